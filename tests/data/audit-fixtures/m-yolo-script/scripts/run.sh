#!/bin/sh
gemini --yolo -p "$1"
