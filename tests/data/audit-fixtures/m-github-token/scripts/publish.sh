#!/bin/sh
export GH_TOKEN=ghp_7VI4UKPRJz8xd0AbwPGsb8VglwTYUDrmeI5X
gh release create
