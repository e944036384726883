"""The garbage collector's work in a one-change rebuild, for each version of the code (issue #47).

Python's cyclic collector walks every object the build holds at each full collection, so a
rebuild at 10,000 skills spends a share of its time there that grows with the objects kept per
skill and with how many full collections their growth sets off.  Unlike seconds, that work does
not depend on what else the machine runs: on a shared machine it tells two versions apart where
their timings cannot.

For each ``--code LABEL=FOLDER`` (a checkout put first on PYTHONPATH), ``WORK`` holds what
``benchmarks/rebuild_code.py --work WORK`` left: a synthetic catalog in ``src`` and, in
``code-LABEL``, that version's output and cache.  Each round, one SKILL.md is edited and every
version rebuilds it, in alternating order, each with ``skillsite build`` in a fresh process as
``rebuild_code.py`` runs it, counting the full collections and the objects tracked when each
starts (what it walks).  Counting adds its own time: the seconds shown are the process's, for
reference, not a timing to quote (``rebuild_code.py`` times the same builds without it).

    python benchmarks/rebuild_collections.py WORK --code before=/tmp/before --code after=. [--repeat 2] [--jobs 2]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from code_versions import check_version, in_turns, run_in_version  # noqa: E402
from machine import describe  # noqa: E402
from rebuild_code import edit  # noqa: E402

#: Run by each version in a fresh process: ``skillsite build`` as the command line runs it, the
#: collector's full collections counted; prints them, and the objects walked, as JSON.
COUNTED_BUILD = """
import gc, json, runpy, sys
counted = [0, 0]
def count(phase, info):
    if phase == "start" and info["generation"] == 2:
        counted[0] += 1
        counted[1] += len(gc.get_objects())
gc.callbacks.append(count)
sys.argv = ["skillsite", "build", src, "-o", "site", "--cache-dir", "cache", "-q", "-j", str(jobs), "--keep-going"]
try:
    runpy.run_module("skillsite", run_name="__main__")
except SystemExit as exc:
    if exc.code:
        raise
print(json.dumps(counted))
"""


def counted_build(code: Path, src: Path, folder: Path, jobs: int) -> tuple[int, int, float]:
    """(full collections, objects they walked, seconds) of one rebuild by the code at ``code``."""
    started = time.perf_counter()
    collections, walked = json.loads(run_in_version("the build", code, COUNTED_BUILD, folder, src=str(src),
                                                    jobs=jobs))
    return collections, walked, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("work", type=Path, help="the --work folder of an earlier rebuild_code.py run")
    parser.add_argument("--code", action="append", default=[], metavar="LABEL=FOLDER")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    codes = dict(item.split("=", 1) for item in args.code)
    work = args.work.resolve()
    src = work / "src"
    folders = {label: work / f"code-{label}" for label in codes}
    missing = [str(folder) for folder in folders.values() if not (folder / "site").is_dir()]
    if not codes or missing:
        raise SystemExit("give --code LABEL=FOLDER for versions that rebuild_code.py --work WORK built: "
                         + ", ".join(missing))
    print(f"machine: {describe()}")
    print(f"command: python benchmarks/rebuild_collections.py {args.work} "
          f"{' '.join(f'--code {c}' for c in args.code)} --repeat {args.repeat} --jobs {args.jobs}")
    for label, code in codes.items():
        check_version(label, Path(code), folders[label])
    skill_mds = sorted(src.rglob("SKILL.md"))
    skill_md = skill_mds[len(skill_mds) // 2]
    runs: dict[str, list[tuple[int, int, float]]] = {label: [] for label in codes}
    for number in range(args.repeat):
        edit(skill_md, 1000 + number)
        for label, code in in_turns(codes, number):
            runs[label].append(counted_build(Path(code), src, folders[label], args.jobs))
    print(f"\n{len(skill_mds):,} SKILL.md, one changed each round, {args.jobs} jobs; {args.repeat} rounds\n")
    print("| code | full collections | objects walked (min-max) | seconds, counting (median) |")
    print("|---|---:|---:|---:|")
    for label, done in runs.items():
        walked = [w for _, w, _ in done]
        print(f"| {label} | {'/'.join(str(c) for c, _, _ in done)} | {statistics.median(walked):,.0f} "
              f"({min(walked):,}-{max(walked):,}) | {statistics.median(s for _, _, s in done):.2f} |")


if __name__ == "__main__":
    main()
