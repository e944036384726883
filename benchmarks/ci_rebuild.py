"""A CI job's build: a fresh checkout, the cache folder restored, no output yet (issue #47).

A CI runner (the GitHub Action, or `actions/cache` in a workflow of one's own: docs/publishing.md)
builds in a fresh checkout: every file of the tree is new (new inode and times), the cache folder
is restored from the last run, and the output folder does not exist.  This times, side by side
and in alternating order, each in a fresh process (``skillsite build`` as CI runs it):

  cold          no cache, no output (the first run, or a run whose cache was evicted)
  ci            a fresh copy of the tree at the same path, the cache the cold build left restored
  ci-one-change the same with one SKILL.md edited (a pull request's usual change)

Before each timed build the tree is copied anew (a checkout), the output is moved into a trash
folder emptied at the end (deleting a catalog just before a build slows the next file creations on
ext4: see benchmarks/build_speed.py), and everything written is synced.  Medians of ``--repeat``
rounds; compare rows of one run (this machine's speed drifts).

    python benchmarks/ci_rebuild.py [--skills 10000] [--repeat 3] [--jobs N] [--work DIR]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import describe  # noqa: E402
from synth import scratch_catalog  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
KINDS = ("cold", "ci", "ci-one-change")


def build(work: Path, cache: Path | None, jobs: int) -> tuple[float, dict[str, str]]:
    """Seconds of one ``skillsite build src -o site`` in ``work`` (a fresh process), and its last line."""
    cache_args = ["--cache-dir", str(cache)] if cache is not None else ["--no-cache"]
    command = [sys.executable, "-m", "skillsite", "build", "src", "-o", "site", *cache_args, "-j", str(jobs),
               "--keep-going", "--format", "text"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    subprocess.run(["sync"], check=True)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(f"the build failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return seconds, {"summary": next((line for line in done.stdout.splitlines() if line.startswith("Built ")), "")}


def checkout(original: Path, work: Path, trash: Path, number: int) -> None:
    """A fresh checkout of ``original`` at ``work/src`` (new inodes and times) and no output."""
    for name in ("src", "site"):
        if (work / name).exists():
            os.replace(work / name, trash / f"{name}-{number}")
    shutil.copytree(original, work / "src", symlinks=True)


def restore(saved: Path, cache: Path, trash: Path, number: int) -> None:
    """The cache folder as the run that made ``saved`` left it (what ``actions/cache`` restores)."""
    if cache.exists():
        os.replace(cache, trash / f"cache-{number}")
    shutil.copytree(saved, cache, symlinks=True)


def edit_one(src: Path) -> None:
    """One SKILL.md of ``src`` gets a line more, dated a minute back (outside the racy window)."""
    skill_md = sorted(src.rglob("SKILL.md"))[len(list(src.rglob("SKILL.md"))) // 2]
    skill_md.write_text(skill_md.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    stamp = time.time() - 60
    os.utime(skill_md, (stamp, stamp))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--skills", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temporary one)")
    args = parser.parse_args()
    scratch, original = scratch_catalog(args.work, "ci-rebuild-", args.skills)
    work, trash = scratch / "job", scratch / "trash"
    work.mkdir(exist_ok=True)
    trash.mkdir(exist_ok=True)
    print(f"machine: {describe()}")
    print(f"command: python benchmarks/ci_rebuild.py --skills {args.skills} --repeat {args.repeat} --jobs {args.jobs}")
    cache, saved = work / "cache", scratch / "saved-cache"
    checkout(original, work, trash, 0)
    build(work, cache, args.jobs)  # the run before: its cache is what every CI build restores
    shutil.rmtree(saved, ignore_errors=True)
    shutil.copytree(cache, saved, symlinks=True)
    times: dict[str, list[float]] = {kind: [] for kind in KINDS}
    summary = ""
    for number in range(args.repeat):
        order = KINDS if number % 2 == 0 else tuple(reversed(KINDS))
        for kind in order:
            step = number * len(KINDS) + KINDS.index(kind) + 1
            checkout(original, work, trash, step)
            if kind == "ci-one-change":
                edit_one(work / "src")
            if kind != "cold":
                restore(saved, cache, trash, step)
            seconds, said = build(work, cache if kind != "cold" else None, args.jobs)
            times[kind].append(seconds)
            summary = said["summary"] or summary
    shutil.rmtree(trash, ignore_errors=True)
    print(f"\n{args.skills:,} synthetic skills, {args.jobs} jobs; medians of {args.repeat} rounds, seconds "
          f"({summary})\n")
    print("| build | median (min-max) | against cold |")
    print("|---|---:|---:|")
    cold = statistics.median(times["cold"])
    for kind in KINDS:
        median = statistics.median(times[kind])
        print(f"| {kind} | {median:.2f} ({min(times[kind]):.2f}-{max(times[kind]):.2f}) | {median / cold:.2f}x |")


if __name__ == "__main__":
    main()
