#!/usr/bin/env python3
"""Keep an incident timeline in ./incident-timeline.md with UTC timestamps.

Commands:
    start --title TITLE --severity SEV   begin a new timeline
    add TEXT                             append an event
    export                               print the timeline
"""
import argparse
import sys
from datetime import datetime, timezone
from pathlib import Path

FILE = Path("incident-timeline.md")


def now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%SZ")


def main() -> int:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    start = sub.add_parser("start")
    start.add_argument("--title", required=True)
    start.add_argument("--severity", default="SEV2")
    add = sub.add_parser("add")
    add.add_argument("text")
    sub.add_parser("export")
    args = parser.parse_args()

    if args.command == "start":
        if FILE.exists():
            print(f"{FILE} already exists; refusing to overwrite", file=sys.stderr)
            return 1
        FILE.write_text(f"# {args.title} ({args.severity})\n\n| Time (UTC) | Event |\n|---|---|\n")
        print(f"started {FILE}")
    elif args.command == "add":
        with FILE.open("a", encoding="utf-8") as fh:
            fh.write(f"| {now()} | {args.text} |\n")
    else:
        print(FILE.read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
