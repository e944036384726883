"""One changed SKILL.md rebuilt by each version of the code, side by side (issue #47).

For each ``--code LABEL=FOLDER`` (a checkout put first on PYTHONPATH; default: this
repository), a synthetic catalog (benchmarks/synth.py) is built cold into an output and cache of
that version's own (each version's cache belongs to its own code): ``--cold`` times, the versions
in alternating order, each time from nothing.  The first rebuild after a cold build is timed
apart, one edit for every version: code older than 2026-12-01 placed every file again there (a
cold build left no catalog in the back folder for it to patch).  Then, each round, one
SKILL.md is edited and every version rebuilds it, in alternating order, each in a fresh process
(``skillsite build`` as CI runs it), and once more with nothing changed.  Medians of ``--repeat``
rounds (and of the ``--cold`` builds); the machine's load drifts, so compare rows of one run.
``--tree DIR`` rebuilds a real tree instead (say, a checkout of a public directory of skills);
one SKILL.md of it is edited, so give it a copy.  ``--change add`` adds a new skill each round
instead of editing one (what changes the catalog's link targets: a skill, a bundled file);
``--change describe`` edits one skill's description (what the look-alike check scores anew, and
what the search indexes are made of).

    python benchmarks/rebuild_code.py --code before=/tmp/before --code after=. [--skills 10000] [--repeat 3] [--cold 1]
                                      [--tree DIR] [--change edit|add|describe]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from code_versions import check_version, in_turns, version_env  # noqa: E402
from machine import describe  # noqa: E402
from synth import scratch_catalog  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def timed_build(code: Path, src: Path, work: Path, jobs: int) -> float:
    """Seconds of one ``skillsite build`` of ``src`` by the code at ``code``, in a fresh process."""
    command = [sys.executable, "-m", "skillsite", "build", str(src), "-o", str(work / "site"), "--cache-dir",
               str(work / "cache"), "-q", "-j", str(jobs), "--keep-going"]
    env = version_env(code)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(f"the build failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return seconds


def edit(skill_md: Path, number: int) -> None:
    """One line added to a SKILL.md, dated a minute back (outside the racy window)."""
    skill_md.write_text(skill_md.read_text(encoding="utf-8") + f"\nEdit number {number}.\n", encoding="utf-8")
    dated_back(skill_md)


def edit_description(skill_md: Path, number: int) -> None:
    """A word added to a SKILL.md's one-line description, dated a minute back."""
    text = skill_md.read_text(encoding="utf-8")
    start = text.index("\ndescription: ") + 1
    end = text.index("\n", start)
    skill_md.write_text(f"{text[:end]} Revision{number}.{text[end:]}", encoding="utf-8")
    dated_back(skill_md)


def add_skill(src: Path, number: int) -> None:
    """A new skill (with a link to a bundled file of its own, and one to the skill added before
    it), dated a minute back."""
    folder = src / "added-skills" / f"added-{number}"
    (folder / "references").mkdir(parents=True)
    (folder / "references" / "notes.md").write_text("# Notes\n", encoding="utf-8")
    (folder / "SKILL.md").write_text(
        f"---\nname: added-{number}\ndescription: Added skill number {number}. Use when measuring rebuilds.\n---\n"
        f"# Added {number}\n\nSee [the notes](references/notes.md) and [the one before](../added-{number - 1}/).\n",
        encoding="utf-8")
    dated_back(folder, folder / "references", folder / "references" / "notes.md", folder / "SKILL.md")


def dated_back(*paths: Path) -> None:
    """``paths`` dated a minute back: outside the racy window, so a build trusts their stamps."""
    stamp = time.time() - 60
    for path in paths:
        os.utime(path, (stamp, stamp))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--code", action="append", default=[], metavar="LABEL=FOLDER")
    parser.add_argument("--skills", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cold", type=int, default=1, help="cold builds of each version, in alternating order")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temporary one)")
    parser.add_argument("--tree", type=Path, default=None, help="a real tree of skills to build (one is edited)")
    parser.add_argument("--change", choices=("edit", "add", "describe"), default="edit",
                        help="each round: edit one SKILL.md's body, add a new skill, or edit one description")
    args = parser.parse_args()
    codes = dict(item.split("=", 1) for item in args.code) or {"this": str(REPO)}
    if args.tree is None:
        work, src = scratch_catalog(args.work, "rebuild-code-", args.skills)
    else:
        work, src = (args.work or Path(tempfile.mkdtemp(prefix="rebuild-code-"))).resolve(), args.tree.resolve()
        work.mkdir(parents=True, exist_ok=True)
    skill_mds = sorted(src.rglob("SKILL.md"))
    skill_md = skill_mds[len(skill_mds) // 2]
    print(f"machine: {describe()}")
    print(f"command: python benchmarks/rebuild_code.py {' '.join(f'--code {c}' for c in args.code)} "
          f"--skills {args.skills} --repeat {args.repeat} --cold {args.cold} --jobs {args.jobs}"
          + (f" --tree {args.tree}" if args.tree else "") + f" --change {args.change}")
    for label, code in codes.items():
        check_version(label, Path(code), _folder(work, label))
    cold: dict[str, list[float]] = {label: [] for label in codes}
    for number in range(args.cold):
        for label, code in in_turns(codes, number):
            shutil.rmtree(_folder(work, label))
            cold[label].append(timed_build(Path(code), src, _folder(work, label), args.jobs))
    edit(skill_md, -1)
    first = {label: timed_build(Path(code), src, _folder(work, label), args.jobs) for label, code in codes.items()}
    changed: dict[str, list[float]] = {label: [] for label in codes}
    same: dict[str, list[float]] = {label: [] for label in codes}
    for number in range(args.repeat):
        change(src, skill_md, number, args.change)
        for label, code in in_turns(codes, number):
            changed[label].append(timed_build(Path(code), src, _folder(work, label), args.jobs))
        for label, code in in_turns(codes, number):
            same[label].append(timed_build(Path(code), src, _folder(work, label), args.jobs))
    described = f"{args.skills:,} synthetic skills" if args.tree is None else f"{len(skill_mds):,} SKILL.md in {src}"
    print(f"\n{described}, {args.jobs} jobs; medians of {args.cold} cold builds and "
          f"{args.repeat} rounds, seconds\n")
    what = {"edit": "one changed SKILL.md", "add": "one skill added", "describe": "one description edited"}[args.change]
    print(f"| code | cold build (min-max) | first rebuild after it | {what} (min-max) | no change |")
    print("|---|---:|---:|---:|---:|")
    for label in codes:
        colds = cold[label]
        print(f"| {label} | "
              + (f"{statistics.median(colds):.1f} ({min(colds):.1f}-{max(colds):.1f})" if colds else "-") + " | "
              f"{first[label]:.2f} | "
              f"{statistics.median(changed[label]):.2f} ({min(changed[label]):.2f}-{max(changed[label]):.2f}) | "
              f"{statistics.median(same[label]):.2f} |")


def change(src: Path, skill_md: Path, number: int, kind: str) -> None:
    """One round's change of ``kind`` (see ``--change``)."""
    if kind == "add":
        add_skill(src, number)
    elif kind == "describe":
        edit_description(skill_md, number)
    else:
        edit(skill_md, number)


def _folder(work: Path, label: str) -> Path:
    folder = work / f"code-{label}"
    folder.mkdir(exist_ok=True)
    return folder


if __name__ == "__main__":
    main()
