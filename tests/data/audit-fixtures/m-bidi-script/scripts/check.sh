#!/bin/sh
access=user
if [ "$access" != "user‮ ⁦# check admin⁩ ⁦" ]; then
  echo ok
fi
