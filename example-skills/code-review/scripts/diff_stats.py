#!/usr/bin/env python3
"""Summarise a diff read from stdin: files touched, lines added and removed.

Usage:
    git diff origin/main...HEAD | python3 scripts/diff_stats.py
"""
import sys
from collections import defaultdict


def main() -> int:
    added = defaultdict(int)
    removed = defaultdict(int)
    current = None
    for line in sys.stdin:
        if line.startswith("+++ "):
            path = line[4:].strip()
            current = path[2:] if path.startswith("b/") else path
        elif line.startswith("+") and not line.startswith("+++") and current:
            added[current] += 1
        elif line.startswith("-") and not line.startswith("---") and current:
            removed[current] += 1
    files = sorted(set(added) | set(removed))
    for path in files:
        print(f"{added[path]:>6} +  {removed[path]:>6} -  {path}")
    total = sum(added.values()) + sum(removed.values())
    print(f"{len(files)} files, {total} changed lines")
    if total > 400:
        print("note: large change; consider asking the author to split it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
