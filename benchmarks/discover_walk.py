"""Discovery's walk (``discover``) by each version of the code, side by side, each in a fresh process.

Every build in a fresh process walks its source tree first: lists every folder, checks every
entry against the ``.gitignore`` rules, ``exclude`` and the tool folders, and reads the size and
times of every skill's files.  Here each version (``--code LABEL=FOLDER``, a checkout put first
on PYTHONPATH; default: this repository) runs ``discover([TREE], ())`` once in a fresh process,
``--repeat`` times per tree, the versions taking turns (the machine's drift then favours none).
Printed per tree and version: the median, fastest and slowest seconds, the median CPU seconds
(user and system), the ratios of both medians to the first version's, the median seconds of the
young garbage collections run just after the walk (what a walk that holds the collector off
leaves to them, for the caller to pay), and a digest of everything found (sources with their
files, stamps and audit listings, and the diagnostics), which must be the same for every version
in each round (the versions walk one after the other; a tree someone edits meanwhile may change
between rounds).

    python benchmarks/discover_walk.py --code before=/tmp/before --code after=. --tree DIR [--tree DIR] [--repeat 5]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from code_versions import check_version, in_turns, run_in_version  # noqa: E402
from machine import describe  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
#: One walk in a fresh process (given ``tree``): prints its seconds, what it found, the digest, its
#: CPU seconds (user and system: on a shared machine, less swayed by the others than the wall clock)
#: and the seconds of the young collections (generations 0 and 1) run just after it.
WALK = """
import gc, hashlib, json, time
from pathlib import Path
from skillsite.source.discover import discover
started, cpu = time.perf_counter(), time.process_time()
found = discover([Path(tree)], ())
seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
young = time.perf_counter()
gc.collect(1)
young = time.perf_counter() - young
said = repr([(s, s.audited) for s in found.sources]) + repr(found.diagnostics)
digest = hashlib.sha256(said.encode("utf-8", "surrogateescape")).hexdigest()[:16]
print(json.dumps([seconds, len(found.sources), len(found.diagnostics), digest, cpu, young]))
"""


def walks(codes: dict[str, str], trees: list[Path], repeat: int, cwd: Path) -> dict[tuple[str, str], list]:
    """Per (tree, version): what each of its ``repeat`` walks printed."""
    printed: dict[tuple[str, str], list] = {(str(t), c): [] for t in trees for c in codes}
    for tree in trees:
        for number in range(repeat):
            for label, code in in_turns(codes, number):
                line = run_in_version(f"{label} on {tree}", Path(code), WALK, cwd, tree=str(tree))
                printed[(str(tree), label)].append(json.loads(line))
    return printed


def table(codes: dict[str, str], trees: list[Path], printed: dict[tuple[str, str], list]) -> None:
    """The medians, one row per tree and version."""
    print("| tree | code | skills | diagnostics | median s | fastest s | slowest s | ratio to the first "
          "| median CPU s | CPU ratio | then gc.collect(1) s | digest |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for tree in trees:
        first = printed[(str(tree), next(iter(codes)))]
        first_wall, first_cpu = (statistics.median(run[i] for run in first) for i in (0, 4))
        for label in codes:
            runs = printed[(str(tree), label)]
            seconds = [run[0] for run in runs]
            wall, cpu, young = (statistics.median(seconds), statistics.median(run[4] for run in runs),
                                statistics.median(run[5] for run in runs))
            digests = sorted({run[3] for run in runs})
            print(f"| {tree} | {label} | {runs[0][1]:,} | {runs[0][2]:,} | {wall:.3f} | {min(seconds):.3f} | "
                  f"{max(seconds):.3f} | {wall / first_wall:.2f} | {cpu:.3f} | {cpu / first_cpu:.2f} | {young:.3f} | "
                  f"{', '.join(digests)} |")
    for tree in trees:
        rounds = list(zip(*(printed[(str(tree), label)] for label in codes)))
        differ = [number for number, walked in enumerate(rounds) if len({run[3] for run in walked}) > 1]
        if differ:
            print(f"\nDIFFERENT RESULTS on {tree} in round(s) {', '.join(map(str, differ))}: the versions, walking "
                  "one after the other, did not find the same (or the tree changed between their walks)")
        elif len({walked[0][3] for walked in rounds}) > 1:
            print(f"\n{tree} changed between rounds (someone else edits it); in each round every version found "
                  "the same")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--code", action="append", default=[], metavar="LABEL=FOLDER")
    parser.add_argument("--tree", action="append", type=Path, default=[], help="a source tree (default: the examples)")
    parser.add_argument("--repeat", type=int, default=5, help="walks of each tree per version, a fresh process each")
    args = parser.parse_args()
    codes = dict(item.split("=", 1) for item in args.code) or {"this": str(REPO)}
    trees = [tree.resolve() for tree in args.tree] or [REPO / "example-skills"]
    print(f"machine: {describe()}")
    print("command: python benchmarks/discover_walk.py" + "".join(f" --code {c}" for c in args.code)
          + "".join(f" --tree {t}" for t in args.tree) + f" --repeat {args.repeat}")
    with tempfile.TemporaryDirectory(prefix="discover-walk-") as scratch:
        for label, code in codes.items():
            check_version(label, Path(code), Path(scratch))
        printed = walks(codes, trees, args.repeat, Path(scratch))
    print(f"\n{args.repeat} walks of each tree per version, each the first in a fresh process, versions alternated\n")
    table(codes, trees, printed)


if __name__ == "__main__":
    main()
