#!/usr/bin/env python3
"""Bump a semantic version in pyproject.toml, package.json or a Python __init__.py.

Usage: python3 scripts/bump.py {major,minor,patch} --file PATH
Edits the file in place and prints "OLD -> NEW in PATH". Never commits.
"""
import argparse
import re
import sys
from pathlib import Path

VERSION = re.compile(r'(?P<pre>(?:^version\s*=\s*|"version"\s*:\s*|__version__\s*=\s*)["\'])'
                     r'(?P<v>\d+\.\d+\.\d+)(?P<post>["\'])', re.MULTILINE)


def bump(version: str, part: str) -> str:
    major, minor, patch = (int(x) for x in version.split("."))
    if part == "major":
        return f"{major + 1}.0.0"
    if part == "minor":
        return f"{major}.{minor + 1}.0"
    return f"{major}.{minor}.{patch + 1}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("part", choices=["major", "minor", "patch"])
    parser.add_argument("--file", type=Path, default=Path("pyproject.toml"))
    args = parser.parse_args()
    text = args.file.read_text(encoding="utf-8")
    match = VERSION.search(text)
    if not match:
        print(f"no version found in {args.file}", file=sys.stderr)
        return 1
    old = match["v"]
    new = bump(old, args.part)
    text = text[: match.start("v")] + new + text[match.end("v"):]
    args.file.write_text(text, encoding="utf-8")
    print(f"{old} -> {new} in {args.file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
