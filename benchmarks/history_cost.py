"""What reading releases from git adds to ``skillsite build`` of the corpus (issue 30's target:
within 15% of the same build without history).

Copies the corpus into a new git repository and makes a history of 50 commits (the corpus,
then 49 commits that each edit a few skills and bump the version of two versioned ones), and
copies the final work tree to a folder outside any repository (the same files, no history).
Then, after one untimed build of each, builds each in turn, alternating: a cold build (``--no-cache --keep-going``), and a
rebuild with the cache after one skill's SKILL.md was edited.  Prints the wall time of each
run, the medians and the difference.

Run:  python benchmarks/history_cost.py [--runs 3] [--commits 50] [--corpus ../shared/corpus]
"""
from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import describe  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from skillsite.source.versioning import canonical_version  # noqa: E402

VERSION_LINE = re.compile(r"^(\s*version:\s*)([\"']?)([^\"'#\n]+?)\2\s*$", re.M)


def git(folder: Path, *args: str, when: int = 0) -> None:
    stamp = f"{1_700_000_000 + when * 3600} +0000"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({"GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.org", "GIT_COMMITTER_NAME": "Bench",
                "GIT_COMMITTER_EMAIL": "bench@example.org", "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
    subprocess.run(["git", *args], cwd=folder, env=env, check=True, capture_output=True)


def versioned(skill_md: Path) -> bool:
    match = VERSION_LINE.search(_frontmatter(skill_md.read_text(encoding="utf-8", errors="replace")))
    return match is not None and canonical_version(match.group(3)) is not None


def _frontmatter(text: str) -> str:
    return text.split("\n---", 1)[0] if text.startswith("---") else ""


def bump(skill_md: Path) -> None:
    """Raise the patch number of a SKILL.md's version (written canonically)."""
    text = skill_md.read_text(encoding="utf-8")
    head, rest = text[: len(_frontmatter(text))], text[len(_frontmatter(text)):]
    match = VERSION_LINE.search(head)
    major, minor, patch = canonical_version(match.group(3)).split("-")[0].split(".")
    new = f'{match.group(1)}"{major}.{minor}.{int(patch) + 1}"'
    skill_md.write_text(head[: match.start()] + new + head[match.end():] + rest, encoding="utf-8")


def make_history(corpus: Path, repo: Path, commits: int) -> None:
    """The corpus in a new repository with ``commits`` commits; its skills edited and bumped."""
    shutil.copytree(corpus, repo, symlinks=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "corpus", when=1)
    skill_files = sorted(p for p in repo.rglob("SKILL.md") if ".git" not in p.parts)
    with_version = [p for p in skill_files if versioned(p)]
    chosen = random.Random(30)
    for number in range(2, commits + 1):
        for path in chosen.sample(skill_files, 3):
            with path.open("a", encoding="utf-8") as handle:
                handle.write(f"\nEdited in commit {number}.\n")
        for path in chosen.sample(with_version, 2):
            bump(path)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"commit {number}", when=number)


def timed_build(source: Path, out: Path, *more: str) -> float:
    """Seconds of one ``skillsite build`` of ``source`` into ``out``."""
    os.sync()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "skillsite", "build", str(source), "-o", str(out), "--keep-going",
                           "-q", *more], cwd=REPO, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if not out.is_dir():
        raise SystemExit(f"build failed:\n{done.stdout}\n{done.stderr}")
    return seconds


def edit_one(source: Path, run: int) -> None:
    """Append a line to one skill's SKILL.md (the same skill in both trees)."""
    path = sorted(p for p in source.rglob("SKILL.md") if ".git" not in p.parts)[run]
    with path.open("a", encoding="utf-8") as handle:
        handle.write(f"\nEdited before rebuild {run}.\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--commits", type=int, default=50)
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpus")
    args = parser.parse_args()
    print(f"machine: {describe()}\ncommand: python {' '.join(sys.argv)}\n")
    with tempfile.TemporaryDirectory(prefix="skillsite-history-cost-") as tmp:
        history, plain = Path(tmp) / "repo", Path(tmp) / "plain"
        make_history(args.corpus, history, args.commits)
        shutil.copytree(history, plain, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        sources = {f"with a {args.commits}-commit history": history, "the same files, no history": plain}
        for index, source in enumerate(sources.values()):  # warm-up: the first build pays for cold disk caches
            timed_build(source, Path(tmp) / f"warm-up-{index}", "--no-cache")
        times: dict[tuple[str, str], list[float]] = {}
        for run in range(args.runs):
            for index, (label, source) in enumerate(sources.items()):  # alternating: load drifts hit both
                out, cache = Path(tmp) / f"out-{run}-{index}", Path(tmp) / f"cache-{run}-{index}"
                times.setdefault((label, "cold build (--no-cache)"), []).append(
                    timed_build(source, Path(tmp) / f"cold-{run}-{index}", "--no-cache"))
                timed_build(source, out, "--cache-dir", str(cache))
                edit_one(source, run)
                times.setdefault((label, "rebuild after one SKILL.md edit"), []).append(
                    timed_build(source, out, "--cache-dir", str(cache)))
    print("| source | build | median | runs |\n|---|---|---:|---|")
    for (label, kind), values in times.items():
        print(f"| {label} | {kind} | {statistics.median(values):.2f} s | {', '.join(f'{v:.2f}' for v in values)} |")
    print()
    for kind in ("cold build (--no-cache)", "rebuild after one SKILL.md edit"):
        with_history, without = (statistics.median(times[(label, kind)]) for label in sources)
        print(f"{kind}: history adds {with_history - without:.2f} s = "
              f"{100 * (with_history - without) / without:.0f}% (target: within 15%)")


if __name__ == "__main__":
    main()
