"""A CI job's build: a fresh checkout, the cache folder restored, no output yet (issue #47).

A CI runner (the GitHub Action, or `actions/cache` in a workflow of one's own: docs/publishing.md)
builds in a fresh checkout: every file of the tree is new (new inode and times), the cache folder
is restored from the last run, and the output folder does not exist.  This times, side by side
and in alternating order, each in a fresh process (``skillsite build`` as CI runs it):

  cold          no cache, no output (the first run, or a run whose cache was evicted)
  ci            a fresh copy of the tree at the same path, the cache the cold build left restored
                (as the GitHub Action saves it: without the copy of the catalog a first build leaves
                in the cache folder, so every such build places the whole catalog, as a CI job does)
  ci-one-change the same with one SKILL.md edited (a pull request's usual change)

Before each timed build the tree is copied anew (a checkout), the output is moved into a trash
folder emptied at the end (deleting a catalog just before a build slows the next file creations on
ext4: see benchmarks/build_speed.py), and everything written is synced.  Medians of ``--repeat``
rounds; compare rows of one run (this machine's speed drifts).

``--code LABEL=FOLDER`` (twice or more: checkouts put first on PYTHONPATH; default: this
repository) times each version side by side, the versions taking turns in alternating order; each
restores the cache its own code left (a cache belongs to the code that made it).  ``--tree DIR``
builds a real tree instead of a synthetic one (say, a checkout of a public directory of skills,
whose broken skills ``--keep-going`` leaves out); it is only copied, never changed.

    python benchmarks/ci_rebuild.py [--skills 10000] [--repeat 3] [--jobs N] [--work DIR]
                                    [--code before=/tmp/before --code after=.] [--tree DIR]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from code_versions import check_version, in_turns, version_env  # noqa: E402
from machine import describe  # noqa: E402
from synth import scratch_catalog  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
#: The name of the folder a build leaves in the cache folder for the next one to patch
#: (``skillsite.publish.pipeline.BACK_PREFIX``, written out: the versions compared may differ).
BACK_PREFIX = "previous-output-"
KINDS = ("cold", "ci", "ci-one-change")


def build(code: Path, work: Path, cache: Path | None, jobs: int) -> tuple[float, dict[str, str]]:
    """Seconds of one ``skillsite build src -o site`` in ``work`` by the skillsite at ``code`` (a
    fresh process), and its last line."""
    cache_args = ["--cache-dir", str(cache)] if cache is not None else ["--no-cache"]
    command = [sys.executable, "-m", "skillsite", "build", "src", "-o", "site", *cache_args, "-j", str(jobs),
               "--keep-going", "--format", "text"]
    env = version_env(code)
    subprocess.run(["sync"], check=True)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(f"the build failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return seconds, {"summary": next((line for line in done.stdout.splitlines() if line.startswith("Built ")), "")}


def checkout(original: Path, work: Path, trash: Path, step: str) -> None:
    """A fresh checkout of ``original`` at ``work/src`` (new inodes and times) and no output."""
    for name in ("src", "site"):
        if (work / name).exists():
            os.replace(work / name, trash / f"{name}-{step}")
    shutil.copytree(original, work / "src", symlinks=True)


def restore(saved: Path, cache: Path, trash: Path, step: str) -> None:
    """The cache folder as the run that made ``saved`` left it (what ``actions/cache`` restores)."""
    if cache.exists():
        os.replace(cache, trash / f"cache-{step}")
    shutil.copytree(saved, cache, symlinks=True)


def edit_one(src: Path) -> None:
    """One SKILL.md of ``src`` gets a line more, dated a minute back (outside the racy window)."""
    skill_mds = sorted(src.rglob("SKILL.md"))
    skill_md = skill_mds[len(skill_mds) // 2]
    skill_md.write_text(skill_md.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    stamp = time.time() - 60
    os.utime(skill_md, (stamp, stamp))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--skills", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temporary one)")
    parser.add_argument("--code", action="append", default=[], metavar="LABEL=FOLDER")
    parser.add_argument("--tree", type=Path, default=None, help="a real tree of skills to build (only copied)")
    args = parser.parse_args()
    codes = {label: Path(folder) for label, folder in (item.split("=", 1) for item in args.code)} or {"this": REPO}
    if args.tree is None:
        scratch, original = scratch_catalog(args.work, "ci-rebuild-", args.skills)
    else:
        scratch = (args.work or Path(tempfile.mkdtemp(prefix="ci-rebuild-"))).resolve()
        scratch.mkdir(parents=True, exist_ok=True)
        original = args.tree.resolve()
    trash = scratch / "trash"
    trash.mkdir(exist_ok=True)
    print(f"machine: {describe()}")
    print(f"command: python benchmarks/ci_rebuild.py --skills {args.skills} --repeat {args.repeat} --jobs {args.jobs}"
          + "".join(f" --code {c}" for c in args.code) + (f" --tree {args.tree}" if args.tree else ""))
    times, summary = _rounds(codes, original, scratch, trash, args.repeat, args.jobs)
    shutil.rmtree(trash, ignore_errors=True)
    described = f"{args.skills:,} synthetic skills" if args.tree is None else \
        f"{len(list(original.rglob('SKILL.md'))):,} SKILL.md in {original}"
    print(f"\n{described}, {args.jobs} jobs; medians of {args.repeat} rounds, seconds ({summary})\n")
    print("| code | build | median (min-max) | against its cold | against the first code's |")
    print("|---|---|---:|---:|---:|")
    first = next(iter(codes))
    for label in codes:
        cold = statistics.median(times[label]["cold"])
        for kind in KINDS:
            runs = times[label][kind]
            median = statistics.median(runs)
            print(f"| {label} | {kind} | {median:.2f} ({min(runs):.2f}-{max(runs):.2f}) | {median / cold:.2f}x | "
                  f"{median / statistics.median(times[first][kind]):.2f}x |")


def _rounds(codes: dict[str, Path], original: Path, scratch: Path, trash: Path, repeat: int, jobs: int
            ) -> tuple[dict[str, dict[str, list[float]]], str]:
    """Each version's seconds of each kind of build, by version and kind, and the last build's summary line."""
    saved = {}
    for label, code in codes.items():
        work = scratch / f"job-{label}"
        work.mkdir(exist_ok=True)
        check_version(label, code, work)
        checkout(original, work, trash, _step(label, 0, ""))
        build(code, work, work / "cache", jobs)  # the run before: its cache is what each CI build restores
        saved[label] = scratch / f"saved-cache-{label}"
        shutil.rmtree(saved[label], ignore_errors=True)
        shutil.copytree(work / "cache", saved[label], symlinks=True, ignore=_back_folders(work / "cache"))
    times = {label: {kind: [] for kind in KINDS} for label in codes}
    summary = ""
    for number in range(repeat):
        for kind in (KINDS if number % 2 == 0 else tuple(reversed(KINDS))):
            for label, code in in_turns(codes, number):
                work, step = scratch / f"job-{label}", _step(label, number + 1, kind)
                checkout(original, work, trash, step)
                if kind == "ci-one-change":
                    edit_one(work / "src")
                if kind != "cold":
                    restore(saved[label], work / "cache", trash, step)
                seconds, said = build(code, work, work / "cache" if kind != "cold" else None, jobs)
                times[label][kind].append(seconds)
                summary = said["summary"] or summary
    return times, summary


def _back_folders(cache: Path) -> Callable[[str, list[str]], list[str]]:
    """What a copy of ``cache`` leaves out to be the cache the action saves: the copy of the
    catalog a first build leaves in it for a local rebuild, which a CI job's next run never has
    (saved, it would make the cache as big as the catalog)."""
    def ignored(folder: str, names: list[str]) -> list[str]:
        return [name for name in names if name.startswith(BACK_PREFIX)] if Path(folder) == cache else []
    return ignored


def _step(label: str, number: int, kind: str) -> str:
    """A name for what one build leaves in the trash folder, unique in the run."""
    return f"{label}-{number}-{kind or 'first'}"


if __name__ == "__main__":
    main()
