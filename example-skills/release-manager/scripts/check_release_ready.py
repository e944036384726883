#!/usr/bin/env python3
"""Check that the repository is ready for a release.

Exit codes: 0 ready, 1 not ready (reasons printed), 2 usage error.
Read-only: this script never changes the repository.
"""
import argparse
import subprocess
import sys


def git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], check=True, capture_output=True, text=True
    ).stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--remote", default="origin")
    parser.add_argument("--branch", default="main")
    args = parser.parse_args()

    problems = []
    if git("status", "--porcelain"):
        problems.append("working tree has uncommitted changes")
    if git("rev-parse", "--abbrev-ref", "HEAD") != args.branch:
        problems.append(f"not on {args.branch}")
    git("fetch", args.remote, args.branch)
    local = git("rev-parse", "HEAD")
    remote = git("rev-parse", f"{args.remote}/{args.branch}")
    if local != remote:
        problems.append(f"HEAD differs from {args.remote}/{args.branch}")

    for problem in problems:
        print(f"not ready: {problem}")
    if not problems:
        print("ready")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
