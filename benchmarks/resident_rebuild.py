"""``serve``'s rebuilds in memory, by each version of the code, side by side (issue #47).

What ``serve`` does on a save, without its watcher and server: a build that keeps a
:class:`~skillsite.publish.resident.Resident`, then ``--edits`` times one line added to one SKILL.md
(``--edit description``: a new first sentence of its description instead), the changed path told to
the resident (as the watcher tells it) and the catalog rebuilt. Each version (``--code
LABEL=FOLDER``, a checkout put first on PYTHONPATH; default: this repository) runs in a fresh
process of its own, with an output and cache of its own, the versions taking turns in alternating
order for ``--rounds`` rounds. Printed per version: each round's first rebuild apart (it pays for
what its fresh resident does not hold yet), in two columns: after a round's build that did work
(its resident holds what that build made; with ``--cold-start`` each round starts as ``serve``
does, from a cold build into an output and cache of its own, so this is the first save after
``serve`` starts; a version whose ``serve`` publishes once more before the first change, with
nothing changed, does so here too, untimed) and after one that had nothing to do (its resident
holds nothing: every piece is read back from the cache and kept); the median of the others with their range; the full garbage
collections they bring on, all told (how many, and their seconds: a resident's objects are walked
by each of them, so they grow with what it keeps, and one every few saves is a slow save the
median does not show), and the rebuilds' mean seconds; and the memory the process holds after its last rebuild
(median of the rounds; Linux), what a ``serve`` process keeps between saves.  Each rebuild is also
timed to the moment its catalog was in place (the build's "save" stage starts, after which it
saves its cache and state): ``serve``'s pages reload then, in code of 2026-12-03 on; for older
code, which reloaded them when the build returned, that column is the whole rebuild.

    python benchmarks/resident_rebuild.py --code before=/tmp/before --code after=. [--skills 10000] [--edits 6]
                                          [--edit body|description] [--rounds 2] [--cold-start] [--tree DIR]

``--tree DIR`` rebuilds a real tree instead (say, a checkout of a public directory of skills, whose
few broken skills are left out as ``--keep-going`` leaves them out); one SKILL.md of it is edited,
so give it a copy.

Finer than ``serve_watch.py`` (which times the real ``serve``, watcher included) for comparing
versions: no file events, no polling, the rebuild alone.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from code_versions import check_version, in_turns, run_in_version  # noqa: E402
from machine import describe  # noqa: E402
from synth import scratch_catalog  # noqa: E402

REPO = Path(__file__).resolve().parents[1]

#: One round of one version, in a fresh process (given ``src``, ``work``, ``edits``, ``jobs``,
#: ``keep_going`` and ``label``): prints, as JSON, whether the round's build did work (its resident then holds
#: what it made), each rebuild's seconds and its full collections, and the bytes of memory the process
#: holds after its last rebuild (the resident and everything else a ``serve`` process keeps; None where
#: ``/proc`` is missing).
ROUND = """
import gc, json, os, time
from pathlib import Path
import yaml
from skillsite.config import SiteConfig
from skillsite.publish import serve
from skillsite.publish.build import build
from skillsite.publish.resident import Resident

full = [0, 0.0, 0.0]   # collections, their seconds, when the current one started
def count(phase, info):
    if info["generation"] != 2:
        return
    if phase == "start":
        full[2] = time.perf_counter()
    else:
        full[0] += 1
        full[1] += time.perf_counter() - full[2]
gc.callbacks.append(count)

skill_mds = sorted(Path(src).rglob("SKILL.md"))
edited = skill_mds[len(skill_mds) // 2]
resident = Resident()
in_place = []  # when the catalog was in place: the "save" stage starts then (code of 2026-12-03 on)
def told(stage):
    if stage == "save":
        in_place.append(time.perf_counter())
def rebuild():
    result = build([Path(src)], Path(work) / "site", SiteConfig(), cache_dir=Path(work) / "cache", jobs=jobs,
                   resident=resident, keep_going=keep_going, progress=told)
    if not result.ok:
        raise SystemExit("the build failed")
    return result
def edit(number):
    text = edited.read_text(encoding="utf-8")
    if kind == "description":  # a new first sentence, the description kept under 1,024 characters
        _, front, body = text.split("---\\n", 2)
        data = yaml.safe_load(front)
        data["description"] = f"Edit {label} {number}. " + data["description"][:990]
        text = "---\\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000) + "---\\n" + body
    else:
        text += f"\\nEdit {label} {number}.\\n"
    edited.write_text(text, encoding="utf-8")
worked = "read" in rebuild().stages  # the round's build read skills (else it had nothing to do)
if worked and hasattr(serve.DevServer, "prepare"):  # as serve does before the first change (2026-12-04 on)
    resident.saw([])
    build([Path(src)], Path(work) / "site", SiteConfig(), cache_dir=Path(work) / "cache", jobs=jobs,
          resident=resident, keep_going=keep_going, always_publish=True)
rows = []
for number in range(edits):
    edit(number)
    stamp = time.time() - 60
    os.utime(edited, (stamp, stamp))
    resident.saw([os.path.realpath(edited)])
    full[:2] = [0, 0.0]
    in_place.clear()
    started = time.perf_counter()
    rebuild()
    ended = time.perf_counter()
    rows.append([ended - started, full[0], full[1], (in_place[0] if in_place else ended) - started])
gc.collect()  # what the process holds between saves, not what a collection would have freed
try:  # resident memory now (Linux); None elsewhere
    with open("/proc/self/statm") as statm:
        held = int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
except (OSError, ValueError):
    held = None
print(json.dumps({"worked": worked, "rows": rows, "held": held}))
"""


def one_round(label: str, code: Path, src: Path, work: Path, edits: int, jobs: int, kind: str,
              keep_going: bool = False) -> tuple[bool, list[list[float]], int | None]:
    """Whether the round's build did work, [seconds, full collections, their seconds] of each
    rebuild of one round of one version, and the bytes its process held after the last one."""
    done = json.loads(run_in_version(f"{label}: the round", code, ROUND, work, src=str(src), work=str(work),
                                     edits=edits, jobs=jobs, label=label, kind=kind, keep_going=keep_going))
    return done["worked"], done["rows"], done["held"]


def median_text(values: list[float]) -> str:
    """The median of ``values`` to two places, or "-" when there are none."""
    return f"{statistics.median(values):.2f}" if values else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--code", action="append", default=[], metavar="LABEL=FOLDER")
    parser.add_argument("--skills", type=int, default=10000)
    parser.add_argument("--edits", type=int, default=6)
    parser.add_argument("--edit", choices=["body", "description"], default="body",
                        help="what each edit changes: a line added to the body, or the description's first sentence")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temporary one)")
    parser.add_argument("--cold-start", action="store_true",
                        help="start each round as serve starts: a cold build, into an output and cache of its own")
    parser.add_argument("--tree", type=Path, default=None, help="a real tree of skills to build (one is edited)")
    args = parser.parse_args()
    if args.edits < 2:
        parser.error("--edits must be 2 or more (the first rebuild of a round is set apart)")
    codes = dict(item.split("=", 1) for item in args.code) or {"this": str(REPO)}
    if args.tree is None:
        work, src = scratch_catalog(args.work, "resident-rebuild-", args.skills)
    else:
        work, src = (args.work or Path(tempfile.mkdtemp(prefix="resident-rebuild-"))).resolve(), args.tree.resolve()
        work.mkdir(parents=True, exist_ok=True)
    print(f"machine: {describe()}")
    print(f"command: python benchmarks/resident_rebuild.py {' '.join(f'--code {c}' for c in args.code)} "
          f"--skills {args.skills} --edits {args.edits} --edit {args.edit} --rounds {args.rounds} --jobs {args.jobs}"
          + (" --cold-start" if args.cold_start else "") + (f" --tree {args.tree}" if args.tree else ""))
    folders = {label: work / f"code-{label}" for label in codes}
    for label, code in codes.items():
        folders[label].mkdir(exist_ok=True)
        check_version(label, Path(code), folders[label])
    rows: dict[str, list[list[float]]] = {label: [] for label in codes}
    # the first rebuild of a round, apart: after a build that did work (its resident holds what it
    # made) or after one that had nothing to do (its resident holds nothing)
    first: dict[bool, dict[str, list[float]]] = {True: {label: [] for label in codes},
                                                 False: {label: [] for label in codes}}
    held: dict[str, list[int]] = {label: [] for label in codes}
    for number in range(args.rounds):
        for label, code in in_turns(codes, number):
            if args.cold_start:  # serve builds into a folder of its own, its cache in it
                shutil.rmtree(folders[label])
                folders[label].mkdir()
            worked, done, bytes_held = one_round(label, Path(code), src, folders[label], args.edits, args.jobs,
                                                 args.edit, keep_going=args.tree is not None)
            first[worked][label].append(done[0][0])
            if bytes_held is not None:
                held[label].append(bytes_held)
            rows[label] += done[1:]
    start = "a cold build" if args.cold_start else "a build"
    described = f"{args.skills:,} synthetic skills" if args.tree is None else \
        f"{len(list(src.rglob('SKILL.md'))):,} SKILL.md in {src}"
    print(f"\n{described}, {args.jobs} jobs; {args.rounds} rounds, each {start} then "
          f"{args.edits} edits ({'of the description' if args.edit == 'description' else 'of the body'}); the first "
          "rebuild of a round (its resident holds only what that build kept) apart; medians\n")
    print("| code | first rebuild, after a build that worked | after one with nothing to do "
          "| rebuild, seconds (min-max) | catalog in place, seconds (min-max) "
          "| full collections, all rebuilds | their seconds | mean rebuild, seconds | memory held after, MB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, values in rows.items():
        seconds = [row[0] for row in values]
        in_place = [row[3] for row in values]
        print(f"| {label} | {median_text(first[True][label])} | {median_text(first[False][label])} "
              f"| {statistics.median(seconds):.2f} ({min(seconds):.2f}-{max(seconds):.2f}) "
              f"| {statistics.median(in_place):.2f} ({min(in_place):.2f}-{max(in_place):.2f}) "
              f"| {sum(row[1] for row in values):.0f} in {len(values)} "
              f"| {sum(row[2] for row in values):.2f} "
              f"| {statistics.mean(seconds):.2f} "
              f"| {f'{statistics.median(held[label]) / 2**20:.0f}' if held[label] else '-'} |")


if __name__ == "__main__":
    main()
