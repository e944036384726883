"""What finding the skill of a slash command costs an agent, by each version of the code, side by side.

A fresh process of each version (``--code LABEL=FOLDER``, a checkout put first on PYTHONPATH;
default: this repository) opens a built catalog (``--site``, served over HTTP on 127.0.0.1 so
that what is fetched is counted) and asks ``Catalog.command_message`` for the slash command of
the catalog's last skill, as ``skillsite mcp``'s ``prompts/get`` asks for it; the versions take
turns.  Printed per version, medians of ``--runs``: the seconds from the open to the message,
the requests and the bytes fetched.  A paged catalog's indexes give each skill's command
(``docs/artifacts.md``); before, every page was fetched.

    python benchmarks/command_lookup.py --site SITE [--runs 5] [--code before=/tmp/before --code after=.]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))
sys.path.insert(2, str(Path(__file__).resolve().parents[1] / "tests"))
from code_versions import check_version, in_turns, run_in_version  # noqa: E402
from machine import describe  # noqa: E402
from support import CountingServer  # noqa: E402

from skillsite.loader import Catalog  # noqa: E402

REPO = Path(__file__).resolve().parents[1]

#: What each version runs: open the catalog, ask for a command's message, print the seconds.
SCRIPT = """
import json, time
from skillsite.loader import Catalog
start = time.perf_counter()
message = Catalog.open(url, cache_dir=cache).command_message(line)
print(json.dumps({"seconds": time.perf_counter() - start, "chars": len(message)}))
"""


def last_command(site: Path) -> str:
    """The slash command of the catalog's last skill that has one."""
    return Catalog.open(str(site)).commands()[-1][1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", type=Path, required=True, help="a built catalog")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--code", action="append", default=[], metavar="LABEL=FOLDER")
    args = parser.parse_args()
    codes = dict(item.split("=", 1) for item in args.code) or {"this": str(REPO)}
    work = Path(tempfile.mkdtemp(prefix="command-lookup-"))
    line = f"/{last_command(args.site)} since v1.2"
    print(f"machine: {describe()}")
    print(f"command: python benchmarks/command_lookup.py --site {args.site} --runs {args.runs}"
          + "".join(f" --code {c}" for c in args.code))
    print(f"asked: Catalog.open(URL).command_message({line!r}), a fresh process and cache each time")
    for label, code in codes.items():
        check_version(label, Path(code), work)
    host = CountingServer(args.site.resolve())
    runs: dict[str, list[dict[str, float]]] = {label: [] for label in codes}
    try:
        for number in range(args.runs):
            for label, code in in_turns(codes, number):
                host.take()
                said = json.loads(run_in_version(label, Path(code), SCRIPT, work, url=host.url, line=line,
                                                 cache=str(work / f"cache-{label}-{number}")))
                fetched = [path for path, _ in host.take()]
                said.update(requests=len(fetched), bytes=sum(_size(args.site, path) for path in fetched))
                runs[label].append(said)
    finally:
        host.stop()
    print(f"\nmedians of {args.runs} runs\n")
    print("| code | open to message, s | requests | fetched, KB |")
    print("|---|---:|---:|---:|")
    for label, found in runs.items():
        print(f"| {label} | {statistics.median(r['seconds'] for r in found):.2f} | "
              f"{statistics.median(r['requests'] for r in found):.0f} | "
              f"{statistics.median(r['bytes'] for r in found) / 1000:,.0f} |")


def _size(site: Path, path: str) -> int:
    """The size of the site file a request fetched."""
    return (site / path.lstrip("/")).stat().st_size


if __name__ == "__main__":
    main()
