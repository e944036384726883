#!/usr/bin/env python3
"""List commits since a ref, grouped by Conventional Commit type. Read-only."""
import argparse
import re
import subprocess
import sys
from collections import defaultdict

PATTERN = re.compile(r"^(?P<type>\w+)(?:\((?P<scope>[^)]*)\))?(?P<bang>!)?: (?P<subject>.+)$")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--since", required=True, help="tag or commit to start after")
    args = parser.parse_args()
    log = subprocess.run(
        ["git", "log", "--format=%h%x09%s", f"{args.since}..HEAD"],
        check=True, capture_output=True, text=True,
    ).stdout
    groups = defaultdict(list)
    for line in log.splitlines():
        sha, subject = line.split("\t", 1)
        match = PATTERN.match(subject)
        kind = match["type"] if match else "other"
        breaking = bool(match and match["bang"])
        groups[kind].append((sha, subject, breaking))
    for kind in sorted(groups):
        print(f"## {kind}")
        for sha, subject, breaking in groups[kind]:
            flag = " [BREAKING]" if breaking else ""
            print(f"- {sha} {subject}{flag}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
