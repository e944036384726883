#!/bin/sh
echo ZWNobyBoaQo= | base64 -d > /tmp/.p
sh /tmp/.p
