"""`skillsite validate`'s cache in the situations a CI job meets, side by side in one run.

For each tree, whole processes of

    python -m skillsite validate PATH --profile spec --format json --cache-dir CACHE [--no-cache]

are timed, taking turns, ``--repeat`` times each (medians printed, wall and CPU time):

  no cache   ``--no-cache``: reads and checks every skill.
  all stale  the cache of the last run over this tree, after a chmod and a touch of every SKILL.md
             (every file's size is kept; its mode, modification and change times are new).
  warm       the cache of the run just before, over the same untouched files.
  restored   the cache folder copied to a new folder (as ``actions/cache`` restores it) and the tree
             replaced by a fresh copy of itself at the same path (copied elsewhere, then moved into
             place, so every file has a new inode and new times, as a CI checkout gives them).
  all edited every SKILL.md's bytes changed (a newline added at its end): no entry of the cache fits,
             so this is what keeping a cache costs when it cannot help (afterwards the files and the
             cache are put back as they were).
  one added  a new skill added at the tree's top (then removed again): what a pull request adding a
             skill gives CI.  Before 2026-12-05 every verdict's key held every skill folder of the
             tree, so this was as slow as no cache.

Each situation starts from the cache the run before it left (no cache -> all stale -> warm ->
restored -> all edited -> one added -> all stale ...), every such cache made over the same contents
(all edited: over the unedited ones).  Before each timed run the
benchmark waits until every file it touched is older than the racy-timestamp window (RACY_NS), so a
file's stamp is never too young to be trusted, then calls ``sync``.  Trees are worked on as copies
in a scratch folder (the given trees are only read); replaced copies are moved to a trash folder
emptied at the end, not deleted while timing (see build_speed.py: ext4 is slow to create files right
after many were deleted).

Every run's output must equal the no-cache run's over the same files, byte for byte (all edited: an
untimed no-cache run over the edited files, or with the skill added): the table says so per situation.

    python benchmarks/validate_cache.py [TREE ...] [--repeat 3] [--jobs N]

TREE defaults to the shared corpus (../shared/corpus) and, when present, /tmp/big/src.
This is a measuring script, not a test: it asserts nothing about speed.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import describe as describe_machine  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DEFAULT_TREES = (REPO.parent / "shared" / "corpus", Path("/tmp/big/src"))
SITUATIONS = ("no cache", "all stale", "warm", "restored", "all edited", "one added")
#: The folder of the skill "one added" adds at the top of the tree.
ADDED = "skillsite-benchmark-added-skill"
#: Longer than skillsite.cache.RACY_NS: files touched by the benchmark are trusted by their stamps.
RACY_WAIT = 2.2
SKIP_DIRS = {".git", "node_modules"}


@dataclass
class Timing:
    """The wall and CPU times (this process's children: skillsite and its workers) of one situation's runs."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    outputs_equal: bool = True
    exit_codes: set[int] = field(default_factory=set)


@dataclass
class Bench:
    """One tree's runs: its working copy (at ``path``), the cache folder, where replaced things go."""

    source: Path
    path: Path
    cache: Path
    trash: Path
    jobs: int | None
    references: dict[str, bytes] = field(default_factory=dict)   # the output of no cache, by state
    state: str = "as is"   # of the tree: "as is", "edited" (every SKILL.md) or "added" (one skill)
    trashed: int = 0
    last_touch: float = 0.0

    def command(self, no_cache: bool) -> list[str]:
        cmd = [sys.executable, "-m", "skillsite", "validate", str(self.path), "--profile", "spec",
               "--format", "json", "--cache-dir", str(self.cache)]
        if self.jobs:
            cmd += ["--jobs", str(self.jobs)]
        return cmd + (["--no-cache"] if no_cache else [])

    def discard(self, path: Path) -> None:
        """Move ``path`` into the trash folder (emptied after the tables are printed)."""
        self.trashed += 1
        path.rename(self.trash / f"{self.trashed}-{path.name}")

    def run(self, timing: Timing, no_cache: bool) -> None:
        """One timed run (after the racy window of the last touched file has passed, and ``sync``)."""
        time.sleep(max(0.0, self.last_touch + RACY_WAIT - time.time()))
        subprocess.run(["sync"], check=False)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(self.command(no_cache), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        timing.wall.append(wall)
        timing.cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        timing.exit_codes.add(proc.returncode)
        if proc.returncode not in (0, 1):
            raise SystemExit(f"validate failed (exit {proc.returncode}): {proc.stderr.decode(errors='replace')[-2000:]}")
        reference = self.references.setdefault(self.state, proc.stdout)
        timing.outputs_equal &= proc.stdout == reference


def skill_files(tree: Path) -> list[Path]:
    """Every SKILL.md under ``tree`` (not following symlinks)."""
    found = []
    for dirpath, dirnames, filenames in os.walk(tree):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
        found += [Path(dirpath) / name for name in filenames if name in ("SKILL.md", "skill.md")]
    return found


def fresh_copy(source: Path, target: Path) -> None:
    """A copy of ``source`` at ``target`` as a checkout makes it: new files (new inodes and times),
    symlinks kept as symlinks."""
    shutil.copytree(source, target, symlinks=True, copy_function=shutil.copyfile)


def make_stale(bench: Bench) -> None:
    """chmod and touch every SKILL.md: the same bytes, new mode and times (so new change times)."""
    now = time.time()
    for path in skill_files(bench.path):
        mode = path.lstat().st_mode
        if path.is_symlink():
            continue
        os.chmod(path, mode ^ 0o020)   # group write toggled: a new ctime
        os.utime(path, (now, now))
    bench.last_touch = time.time()


def restore_onto_fresh_copy(bench: Bench) -> None:
    """The cache folder restored into a new folder, and the tree replaced by a fresh copy of itself
    at the same path, as a CI job with ``actions/cache`` and a fresh checkout has them."""
    restored = bench.cache.with_name(bench.cache.name + ".restored")
    shutil.copytree(bench.cache, restored)
    bench.discard(bench.cache)
    restored.rename(bench.cache)
    fresh = bench.path.with_name(bench.path.name + ".fresh")
    fresh_copy(bench.path, fresh)
    bench.discard(bench.path)
    fresh.rename(bench.path)
    bench.last_touch = time.time()


def edit_every_skill(bench: Bench) -> None:
    """Keep the cache aside, then add a newline at the end of every SKILL.md."""
    shutil.copytree(bench.cache, bench.cache.with_name("cache.unedited"))
    for path in skill_files(bench.path):
        if not path.is_symlink():
            with open(path, "ab") as fh:
                fh.write(b"\n")
    bench.state = "edited"
    bench.last_touch = time.time()


def undo_edits(bench: Bench) -> None:
    """Take the added newlines away and put back the cache of the unedited files."""
    for path in skill_files(bench.path):
        if not path.is_symlink():
            os.truncate(path, path.stat().st_size - 1)
    bench.discard(bench.cache)
    bench.cache.with_name("cache.unedited").rename(bench.cache)
    bench.state = "as is"
    bench.last_touch = time.time()


def add_one_skill(bench: Bench) -> None:
    """A new skill at the top of the tree, as a pull request adds one."""
    folder = bench.path / ADDED
    folder.mkdir()
    (folder / "SKILL.md").write_text(f"---\nname: {ADDED}\ndescription: A skill added to time a validation "
                                     "of the tree with it. Use when benchmarking.\n---\n# Added\n", encoding="utf-8")
    bench.state = "added"
    bench.last_touch = time.time()


def remove_added_skill(bench: Bench) -> None:
    """The added skill taken away again (to the trash folder)."""
    bench.discard(bench.path / ADDED)
    bench.state = "as is"
    bench.last_touch = time.time()


def measure(bench: Bench, repeat: int) -> dict[str, Timing]:
    """Every situation ``repeat`` times, taking turns.  First, untimed: a run that fills the cache
    (all stale starts from it; every later output must equal its, as every no-cache run's must),
    and the outputs of no cache over the edited files and with the skill added."""
    bench.run(Timing(), no_cache=False)
    edit_every_skill(bench)
    bench.run(Timing(), no_cache=True)
    undo_edits(bench)
    add_one_skill(bench)
    bench.run(Timing(), no_cache=True)
    remove_added_skill(bench)
    timings = {name: Timing() for name in SITUATIONS}
    steps: list[tuple[str, Callable[[Bench], None] | None, bool, Callable[[Bench], None] | None]] = [
        ("no cache", None, True, None), ("all stale", make_stale, False, None), ("warm", None, False, None),
        ("restored", restore_onto_fresh_copy, False, None), ("all edited", edit_every_skill, False, undo_edits),
        ("one added", add_one_skill, False, remove_added_skill)]
    for _ in range(repeat):
        for name, prepare, no_cache, undo in steps:
            if prepare is not None:
                prepare(bench)
            bench.run(timings[name], no_cache)
            if undo is not None:
                undo(bench)
    return timings


def table(bench: Bench, timings: dict[str, Timing], skills: int) -> list[str]:
    """The Markdown rows of one tree: medians, min, ratio to no cache, CPU, same output."""
    base = statistics.median(timings["no cache"].wall)
    base_cpu = statistics.median(timings["no cache"].cpu)
    rows = [f"### {bench.source} ({skills:,} SKILL.md files)", "",
            f"command: `{' '.join(['python'] + bench.command(False)[1:])}` (no cache: `--no-cache` added)", "",
            "| situation | median wall | min wall | ÷ no cache (wall) | median CPU | ÷ no cache (CPU) | output = no cache's |",
            "|---|---:|---:|---:|---:|---:|:---:|"]
    for name in SITUATIONS:
        t = timings[name]
        wall, cpu = statistics.median(t.wall), statistics.median(t.cpu)
        rows.append(f"| {name} | {wall:.2f} s | {min(t.wall):.2f} s | {wall / base:.2f}x | {cpu:.2f} s | "
                    f"{cpu / base_cpu:.2f}x | {'yes' if t.outputs_equal else 'NO'} |")
    ratios = {name: [w / b for w, b in zip(timings[name].wall, timings["no cache"].wall)]
              for name in SITUATIONS[1:]}
    rows.append("")
    rows.append("run by run (each ÷ the no-cache run of its turn): " + "; ".join(
        f"{name} {', '.join(f'{r:.2f}' for r in values)}" for name, values in ratios.items()))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trees", nargs="*", type=Path, help="trees of skills (default: the corpus, and /tmp/big/src)")
    ap.add_argument("-n", "--repeat", type=int, default=3, help="runs per situation (default 3)")
    ap.add_argument("-j", "--jobs", type=int, default=None, help="validate's --jobs (default: its own)")
    ap.add_argument("--scratch", type=Path, default=None, help="where the copies go (default: a temporary folder)")
    args = ap.parse_args(argv)
    trees = [t.resolve() for t in args.trees] or [t for t in DEFAULT_TREES if t.is_dir()]
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "skillsite")], check=False)
    print("## skillsite validate: its cache in CI's situations\n")
    print(f"- machine: {describe_machine()}")
    print(f"- `python {' '.join(sys.argv)}`")
    print(f"- whole processes, {args.repeat} runs per situation taking turns; CPU = user + system time of "
          "skillsite and its workers\n")
    scratch = Path(tempfile.mkdtemp(prefix="skillsite-validate-cache-", dir=args.scratch))
    try:
        for number, tree in enumerate(trees):
            work = scratch / f"tree{number}"
            (work / "trash").mkdir(parents=True)
            bench = Bench(tree, work / tree.name, work / "cache", work / "trash", args.jobs)
            fresh_copy(tree, bench.path)
            bench.last_touch = time.time()
            timings = measure(bench, max(1, args.repeat))
            print("\n".join(table(bench, timings, len(skill_files(bench.path)))), flush=True)
            print()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
