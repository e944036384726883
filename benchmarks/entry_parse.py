"""Reading manifest entries (``ManifestEntry.from_json``) by each version of the code, side by side.

What ``skillsite build``'s rebuild pays for each unchanged skill's stored publication, what the MCP
server pays for each entry a listing first needs and what the loader pays for each entry it hands
out: one ``skills.json`` entry read back and checked.  The entries are those of a built catalog
(``SITE``; default: the example catalog, built once into the scratch folder), all its pages read.
Two workloads: the entries as built, and the same entries each with one field damaged (a wrong
type, in turn one of :data:`DAMAGES`), read by ``entry_problem`` (a hostile catalog's cost).

Each version (``--code LABEL=FOLDER``, a checkout put first on PYTHONPATH; default: this
repository) reads them in a fresh process, ``--repeat`` passes (each keeping what it read, as
the callers do), the versions taking turns for ``--rounds`` rounds.  Printed per version and
workload: the median over every pass of microseconds per entry and of the whole catalog's
milliseconds, and the ratio to the first version.

    python benchmarks/entry_parse.py [SITE] [--code before=/tmp/before --code after=.] [--rounds 3] [--repeat 15]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))
from code_versions import check_version, in_turns, run_in_version  # noqa: E402
from machine import describe  # noqa: E402

from skillsite.loader import Catalog  # noqa: E402
from skillsite.publish.build import build  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "example-skills"
#: One field of an entry given a value of the wrong type, each damaged entry one of these in turn.
DAMAGES: tuple[tuple[str, Any], ...] = (("size", [1]), ("files", "oops"), ("visibility", [1]), ("children", [1]),
                                        ("priority", "high"), ("requirements", None), ("tools", {}),
                                        ("dependencies", "b"), ("sha256", "ABC"), ("urls", {}))
#: One process of one version (given ``entries``, ``workload`` and ``repeat``): prints each pass's
#: seconds, as JSON.
PASSES = """
import json, time
from skillsite.agent.entry import ManifestEntry, entry_problem
with open(entries, encoding="utf-8") as file:
    data = json.load(file)
read = ManifestEntry.from_json if workload == "well formed" else entry_problem
seconds = []
for _ in range(repeat):
    start = time.perf_counter()
    kept = [read(entry) for entry in data]
    seconds.append(time.perf_counter() - start)
    del kept
print(json.dumps(seconds))
"""


def damaged(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each entry with one field of the wrong type, :data:`DAMAGES` taken in turn."""
    return [{**entry, DAMAGES[i % len(DAMAGES)][0]: DAMAGES[i % len(DAMAGES)][1]} for i, entry in enumerate(entries)]


def catalog_entries(site: Path | None, work: Path) -> tuple[Path, list[dict[str, Any]]]:
    """The catalog timed (``site``, or the example catalog built into ``work``) and its entries."""
    if site is None:
        site = work / "example"
        if not site.exists() and not build([EXAMPLES], site, jobs=1).ok:
            raise SystemExit(f"the example catalog ({EXAMPLES}) did not build")
    return site, list(Catalog.open(str(site)).skills)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("site", nargs="?", type=Path, default=None, help="a built catalog (default: the examples)")
    parser.add_argument("--code", action="append", default=[], metavar="LABEL=FOLDER")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=15, help="passes over the entries in each process")
    args = parser.parse_args()
    codes = dict(item.split("=", 1) for item in args.code) or {"this": str(REPO)}
    with tempfile.TemporaryDirectory(prefix="entry-parse-") as scratch:
        work = Path(scratch)
        site, entries = catalog_entries(args.site, work)
        files = {"well formed": work / "entries.json", "one field damaged": work / "damaged.json"}
        files["well formed"].write_text(json.dumps(entries), "utf-8")
        files["one field damaged"].write_text(json.dumps(damaged(entries)), "utf-8")
        print(f"machine: {describe()}")
        print(f"command: python benchmarks/entry_parse.py {args.site or ''} --rounds {args.rounds} "
              f"--repeat {args.repeat}" + "".join(f" --code {c}" for c in args.code))
        print(f"catalog: {site} ({len(entries):,} entries)")
        for label, code in codes.items():
            check_version(label, Path(code), work)
        seconds: dict[tuple[str, str], list[float]] = {(w, c): [] for w in files for c in codes}
        for number in range(args.rounds):
            for label, code in in_turns(codes, number):
                for workload, path in files.items():
                    printed = run_in_version(f"{label} ({workload})", Path(code), PASSES, work,
                                             entries=str(path), workload=workload, repeat=args.repeat)
                    seconds[(workload, label)] += json.loads(printed)
    print(f"\nmedians of {args.rounds} rounds x {args.repeat} passes, a fresh process a round and version\n")
    print("| entries | code | µs per entry | all entries, ms | ratio to the first |")
    print("|---|---|---:|---:|---:|")
    for workload in files:
        first = statistics.median(seconds[(workload, next(iter(codes)))])
        for label in codes:
            median = statistics.median(seconds[(workload, label)])
            print(f"| {workload} | {label} | {median / len(entries) * 1e6:.2f} | {median * 1e3:.1f} | "
                  f"{median / first:.2f} |")


if __name__ == "__main__":
    main()
