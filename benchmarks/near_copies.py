"""How copy grouping grows with a crowd of near-alike skills, none a copy of another, by each
version of the code, side by side.

    python benchmarks/near_copies.py [--sizes 1000,2000,4000] [--shared 60] [--code LABEL=FOLDER ...]
                                     [--rounds 3]

Each skill of a size shares ``--shared`` body lines with every other and has one line, a name
and a description of its own: its lines are 0.91 alike with every other's (60 shared lines),
above the 0.9 of one name but under the 0.95 two names need, so no two group, and all of them
meet in the buckets of the bands their shared lines fill.  Such a tree is what a directory gets
from one template filled in thousands of times (or from someone who wants its builds to stall).
Each version (``--code LABEL=FOLDER``, a checkout put first on PYTHONPATH; default: this
repository) validates the tree with ``skillsite validate --no-cache -j 1`` in a fresh process of
its own, the versions taking turns for ``--rounds`` rounds.  Printed: the median seconds, the
median peak memory of the process, and the exit code and diagnostics' digest, which must be the
same for every version.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

from code_versions import check_version, in_turns, run_in_version  # noqa: E402
from machine import describe  # noqa: E402

#: One validation by one version, in a fresh process (given ``src``): prints, as JSON, its
#: seconds, peak memory, exit code and the digest of what it printed.
VALIDATE = """
import contextlib, hashlib, io, json, resource, time
from skillsite.cli import main
printed = io.StringIO()
started = time.perf_counter()
with contextlib.redirect_stdout(printed):
    try:
        main(["validate", "--no-cache", "-j", "1", "--format", "json", src], standalone_mode=False)
        code = 0
    except SystemExit as stop:
        code = stop.code
seconds = time.perf_counter() - started
print(json.dumps({"seconds": seconds, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "code": code, "digest": hashlib.sha256(printed.getvalue().encode()).hexdigest()[:12]}))
"""


def make_tree(src: Path, size: int, shared: int) -> None:
    """``size`` skills under ``src``, each of ``shared`` common body lines and one of its own."""
    common = [f"- Step {n}: check the {n}th setting of the service before changing it" for n in range(shared)]
    for n in range(size):
        folder = src / f"tool-{n:05d}"
        folder.mkdir(parents=True)
        body = "\n".join([f"# Tool {n}", "", *common, "", f"This is the guide to tool number {n}."])
        folder.joinpath("SKILL.md").write_text(
            f"---\nname: tool-{n:05d}\ndescription: Runs tool {n} of the toolbox when the user asks for it.\n---\n"
            f"{body}\n", encoding="utf-8")


def validate(label: str, code: Path, src: Path, cwd: Path) -> dict:
    """One validation by the version at ``code`` in a fresh process."""
    return json.loads(run_in_version(f"{label}: validate", code, VALIDATE, cwd, src=str(src)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,2000,4000")
    parser.add_argument("--shared", type=int, default=60)
    parser.add_argument("--code", action="append", default=[], metavar="LABEL=FOLDER")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    codes = dict(item.split("=", 1) for item in args.code) or {"this": str(REPO)}
    work = Path(tempfile.mkdtemp(prefix="near-copies-"))
    trees = {size: work / f"crowd-{size}" for size in sizes}
    for size, src in trees.items():
        make_tree(src, size, args.shared)
    for label, code in codes.items():
        check_version(label, Path(code), work)
    results: dict[tuple[int, str], list[dict]] = {}
    for number in range(args.rounds):
        for size, src in trees.items():
            for label, code in in_turns(codes, number):
                results.setdefault((size, label), []).append(validate(label, Path(code), src, work))
    print(f"machine: {describe()}")
    print(f"command: python benchmarks/near_copies.py --sizes {args.sizes} --shared {args.shared} "
          f"{''.join(f'--code {c} ' for c in args.code)}--rounds {args.rounds}")
    print(f"medians of {args.rounds} rounds, versions in turns, one process each\n")
    print("| skills | code | seconds (min-max) | peak MB | exit | printed digest |")
    print("|---:|---|---:|---:|---:|---|")
    for (size, label), runs in results.items():
        seconds = [run["seconds"] for run in runs]
        print(f"| {size:,} | {label} | {statistics.median(seconds):.2f} ({min(seconds):.2f}-{max(seconds):.2f}) | "
              f"{statistics.median(run['peak_mb'] for run in runs):.0f} | {runs[0]['code']} | {runs[0]['digest']} |")


if __name__ == "__main__":
    main()
