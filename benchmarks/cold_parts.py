"""Where a cold build's CPU time goes, against the render floor of issue #29.

Issue #29 asks for a cold build in at most 1.3x the *render floor*: the CPU time plain
markdown-it-py (``MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])``)
needs to render the same SKILL.md files on one core.  This script measures, side by side:

  render floor   that CPU time (:data:`build_speed.FLOOR`, in a fresh process)
  one job        a cold build with ``jobs=1`` (everything in one fresh process), its wall time
                 (its CPU time, give or take the waits on the disk) split into parts: skillsite's renderer, the audit (reading and scanning every
                 file of each skill), the output's files (writing, copying, linking, the
                 folders they need) and everything else (discovering, reading and checking,
                 entries, search index, manifest, page templates, cache)
  N jobs         the same cold build on N cores (default: every core), its wall time

and prints each part as a multiple of the render floor, with the lower bound N cores could
reach if the whole one-job time were spread over them perfectly.  A lower bound above the
target means no parallelism reaches the target without making the parts themselves cheaper.

    python benchmarks/cold_parts.py [SRC] [--jobs N] [--repeat K]

SRC defaults to ../shared/corpus; synthetic catalogs come from benchmarks/synth.py.  Medians of
``--repeat`` runs (default 3); each run measures the floor and both builds back to back.  Every
build's output stays until the table is printed, and the run starts once creating a file is fast
again (``--settle``): right after many files were deleted, this machine's file system creates
files several times slower (see benchmarks/build_speed.py).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # skillsite, in a checkout
from build_speed import CORPUS, REPO, TRASH, run_floor, settle_writes, settled_file_creation_us  # noqa: E402
from machine import describe  # noqa: E402

TARGET = 1.3
#: The parts of a one-job cold build: name -> the (module, class, method) whose calls are timed.
#: None of these calls another, so their times add up.  "a|b": ``a`` where the code has it, else
#: ``b`` (the renderer's ``render`` calls ``render_noting`` since 2026-12-05; older code has ``render`` alone).
PARTS: dict[str, list[tuple[str, str, str]]] = {
    "render (skillsite's renderer)": [("skillsite.publish.markdown", "MarkdownRenderer", "render_noting|render")],
    "audit (read and scan each skill's files)": [("skillsite.publish.audit_results", "", "audit_one")],
    "output files (write, copy, link)": [("skillsite.publish.staging", "Staging", name)
                                         for name in ("write", "copy", "link", "keep")],
}


def timed_parts(seconds: dict[str, float]) -> None:
    """Wrap each part's functions so that their wall time adds up in ``seconds`` (this process only)."""
    import importlib

    for part, targets in PARTS.items():
        for module_name, class_name, name in targets:
            module = importlib.import_module(module_name)
            owner = getattr(module, class_name) if class_name else module
            name = next(choice for choice in name.split("|") if hasattr(owner, choice))
            setattr(owner, name, _timer(getattr(owner, name), part, seconds))


def _timer(function: Callable[..., Any], part: str, seconds: dict[str, float]) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            seconds[part] += time.perf_counter() - started
    return timed


def measure(src: str, work: str, jobs: int) -> dict[str, Any]:
    """One cold build of ``src`` into ``work`` (in this process, as the ``--measure`` child)."""
    seconds: dict[str, float] = defaultdict(float)
    if jobs == 1:
        timed_parts(seconds)
    from skillsite.publish.build import build

    started = time.perf_counter()
    result = build([src], Path(work) / "out", keep_going=True, cache_dir=Path(work) / "cache", jobs=jobs)
    if not result.ok:
        raise SystemExit(f"the build of {src} failed: {result.errors} errors")
    return {"wall": time.perf_counter() - started, "skills": len(result.published), "parts": dict(seconds)}


def run_build(src: Path, work: Path, jobs: int) -> dict[str, Any]:
    """A cold build in a fresh process, into the new folder ``work`` (a fresh output and cache)."""
    settle_writes()
    work.mkdir(parents=True)
    proc = subprocess.run([sys.executable, __file__, "--measure", str(src), str(work), str(jobs)],
                          capture_output=True, text=True, cwd=REPO)
    if proc.returncode != 0:
        raise SystemExit(f"build failed: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def one_run(src: Path, work: Path, jobs: int) -> dict[str, float]:
    """The floor and both builds, back to back, in ``work``: seconds by row."""
    floor = run_floor(src, jobs)["render_one_core"]
    single = run_build(src, work / "one-job", 1)
    parallel = run_build(src, work / "n-jobs", jobs)
    row = {"render floor": floor, **single["parts"]}
    row["everything else"] = single["wall"] - sum(single["parts"].values())
    row.update({"one job": single["wall"], "n jobs": parallel["wall"], "skills": single["skills"]})
    return row


def print_table(src: Path, jobs: int, runs: list[dict[str, float]], create_us: float) -> None:
    median = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
    floor = median["render floor"]
    print(f"machine: {describe()}")
    print(f"command: python benchmarks/cold_parts.py {src} --jobs {jobs} --repeat {len(runs)}")
    print(f"file system: creating a 4 KB file took {create_us:.0f} us (median of 500) when the run started")
    print(f"{int(median['skills']):,} skills; medians of {len(runs)} runs, each back to back\n")
    print("| part | seconds | x render floor |")
    print("|---|---:|---:|")
    print(f"| render floor: plain markdown-it-py, one core (CPU) | {floor:.2f} | 1.00 |")
    for part in [*PARTS, "everything else"]:
        print(f"| {part} | {median[part]:.2f} | {median[part] / floor:.2f} |")
    print(f"| **cold build, one job** | {median['one job']:.2f} | {median['one job'] / floor:.2f} |")
    render_and_audit = median[list(PARTS)[0]] + median[list(PARTS)[1]]
    print(f"| render and audit alone, spread over {jobs} cores | {render_and_audit / jobs:.2f} | "
          f"{render_and_audit / jobs / floor:.2f} |")
    print(f"| lower bound: the one-job build spread over {jobs} cores | {median['one job'] / jobs:.2f} | "
          f"{median['one job'] / jobs / floor:.2f} |")
    print(f"| **cold build, {jobs} jobs (measured)** | {median['n jobs']:.2f} | {median['n jobs'] / floor:.2f} |")
    print(f"| target (issue #29) | {TARGET * floor:.2f} | {TARGET:.2f} |")


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--measure":
        print(json.dumps(measure(sys.argv[2], sys.argv[3], int(sys.argv[4]))))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", nargs="?", type=Path, default=CORPUS)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--settle", type=float, default=360, metavar="SECONDS",
                        help="wait up to this long while creating a file is slow (after earlier deletions; default 360)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="skillsite-cold-parts-"))
    # file_creation_us's probes go into a trash of this run's own, deleted with the rest (emptying
    # the shared one deleted other runs' folders)
    TRASH.folder = work / "trash"
    try:
        create_us, _ = settled_file_creation_us(work, args.settle)
        runs = [one_run(args.src.resolve(), work / f"run-{run}", args.jobs) for run in range(args.repeat)]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print_table(args.src, args.jobs, runs, create_us)


if __name__ == "__main__":
    main()
