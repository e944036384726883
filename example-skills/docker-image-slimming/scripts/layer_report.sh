#!/bin/sh
# List the layers of an image by size, largest first. Read-only.
# Usage: sh scripts/layer_report.sh IMAGE
set -eu
image="${1:?usage: layer_report.sh IMAGE}"
docker history --no-trunc --format '{{.Size}}\t{{.CreatedBy}}' "$image" \
  | awk -F'\t' '{ print $1 "\t" substr($2, 1, 100) }' \
  | sort -h -r \
  | head -n 15
docker image ls "$image" --format 'total: {{.Size}}'
