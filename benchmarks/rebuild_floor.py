"""What a one-change rebuild cannot avoid, beside what it costs today (issue #47, item 1).

#47 asks for a rebuild of one changed SKILL.md in 2 s or less as a fresh process at 10,000
skills, by recomposing the catalog-wide files from compact per-skill records kept in the cache.
Whatever that design looks like, a fresh process still pays for:

- starting Python and importing the build;
- discovery: walking the tree and reading every skill file's size and time (a rebuild must
  learn what changed; the watcher that spares ``serve`` this is not there in CI);
- reading every skill's stored record: here, each publication row the build cache holds,
  decoded from JSON (the smallest record that holds a skill's manifest entry);
- composing the catalog-wide JSON files from those records: every entry as compact JSON (as the
  manifest's pages hold them) and the name, description and address of every skill as indented
  JSON (the shape of the discovery index).

Each part runs in a fresh process of its own on the synthetic catalog's build (its output and
cache, made once by the code at ``--code``); their sum is a floor for that design, lower than
any real one (it leaves out the changed skill's own work, the catalog-wide checks and the
pages).  Beside it: today's one-change rebuild, each in a fresh process, and how much of it
goes to Python's cyclic garbage collector (its full collections traverse every object the build
holds, so they cost in proportion to the objects kept per skill).

    python benchmarks/rebuild_floor.py [--skills 10000] [--repeat 3] [--jobs 2] [--work DIR] [--code DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from code_versions import check_version, run_in_version, version_env  # noqa: E402
from machine import describe  # noqa: E402
from rebuild_code import edit, timed_build  # noqa: E402
from synth import scratch_catalog  # noqa: E402

REPO = Path(__file__).resolve().parents[1]

#: Each part of the floor: a label and the code a fresh process times (``src``, ``cache`` and
#: ``started`` are given; it prints the seconds its work took).
PARTS = {
    "start Python, import the build": None,   # timed from outside: the whole process
    "discovery (walk, stat every file)": """
from skillsite.source.discover import discover
started = time.perf_counter()
found = discover([src], [])
print(time.perf_counter() - started)
""",
    "read every skill's stored record": """
started = time.perf_counter()
db = sqlite3.connect(cache)
records = [json.loads(value) for (value,) in db.execute(
    "SELECT value FROM entries WHERE section = 'publication'")]
print(time.perf_counter() - started)
""",
    "catalog-wide JSON from the records": """
db = sqlite3.connect(cache)
records = [json.loads(value) for (value,) in db.execute(
    "SELECT value FROM entries WHERE section = 'publication'")]
started = time.perf_counter()
entries = [record[0] for record in records]
compact = json.dumps(entries, ensure_ascii=False, separators=(",", ":"))
listing = [{"name": e["name"], "description": e["description"], "url": e["urls"]["page"]} for e in entries]
indented = json.dumps({"skills": listing}, indent=1, ensure_ascii=False)
print(time.perf_counter() - started)
""",
}

#: A one-change rebuild in a fresh process, with the time its full collections take.
REBUILD = """
import gc
from skillsite.cli import main
collected = [0, 0.0, 0.0]
def count(phase, info):
    if phase == "start":
        collected[2] = time.perf_counter()
    elif info["generation"] == 2:
        collected[0] += 1
        collected[1] += time.perf_counter() - collected[2]
gc.callbacks.append(count)
try:
    main(["build", str(src), "-o", out, "--cache-dir", str(Path(cache).parent), "-q", "-j", jobs, "--keep-going"],
         standalone_mode=False)
finally:
    print(json.dumps(collected[:2]))
"""


def run_part(code: Path, work: Path, body: str, src: Path, jobs: int) -> str:
    """The last line a fresh process running ``body`` prints (it is given the catalog's paths)."""
    prelude = (f"import json, sqlite3, time\nfrom pathlib import Path\nsrc = Path({str(src)!r})\n"
               f"cache = {str(work / 'cache' / 'build-cache.sqlite')!r}\nout = {str(work / 'site')!r}\n"
               f"jobs = {str(jobs)!r}\n")
    return run_in_version("a part", code, prelude + body, work)


def started_python(code: Path, work: Path) -> float:
    """Seconds of a fresh process that imports the build and stops."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import skillsite.cli, skillsite.publish.build"], cwd=work,
                   env=version_env(code), check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--skills", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temporary one)")
    parser.add_argument("--code", type=Path, default=REPO, help="the checkout whose build is measured")
    args = parser.parse_args()
    work, src = scratch_catalog(args.work, "rebuild-floor-", args.skills)
    print(f"machine: {describe()}")
    print(f"command: python benchmarks/rebuild_floor.py --skills {args.skills} --repeat {args.repeat} "
          f"--jobs {args.jobs}")
    check_version("code", args.code, work)
    skill_mds = sorted(src.rglob("SKILL.md"))
    if not (work / "cache").exists():
        timed_build(args.code, src, work, args.jobs)   # the cold build whose output and cache are read
    edit(skill_mds[len(skill_mds) // 2], -1)
    timed_build(args.code, src, work, args.jobs)       # the first rebuild after it patches the back folder
    parts: dict[str, list[float]] = {label: [] for label in PARTS}
    rebuilds: list[float] = []
    collections: list[tuple[int, float]] = []
    for number in range(args.repeat):
        for label, body in PARTS.items():
            seconds = started_python(args.code, work) if body is None else \
                float(run_part(args.code, work, body, src, args.jobs))
            parts[label].append(seconds)
        edit(skill_mds[len(skill_mds) // 2], number)
        started = time.perf_counter()
        count, seconds = json.loads(run_part(args.code, work, REBUILD, src, args.jobs))
        rebuilds.append(time.perf_counter() - started)
        collections.append((count, seconds))
    print(f"\n{len(skill_mds):,} synthetic skills, {args.jobs} jobs; medians of {args.repeat} rounds, "
          "each part in a fresh process\n")
    print("| part | seconds (min-max) |")
    print("|---|---:|")
    floor = 0.0
    for label, values in parts.items():
        floor += statistics.median(values)
        print(f"| {label} | {statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f}) |")
    print(f"| **floor of a rebuild from stored records** | **{floor:.2f}** |")
    print(f"| today's one-change rebuild | {statistics.median(rebuilds):.2f} ({min(rebuilds):.2f}-{max(rebuilds):.2f}) |")
    full = [seconds for _, seconds in collections]
    print(f"| of which full garbage collections | {statistics.median(full):.2f} "
          f"({', '.join(str(count) for count, _ in collections)} collections) |")


if __name__ == "__main__":
    main()
