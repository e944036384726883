"""Build speed and size: skillsite against MkDocs, on the real corpus and synthetic catalogs.

For each tree it measures, each build in a fresh process:
  cold       a build with no cache and no previous output
  no-op      a rebuild with the cache of the cold build, nothing changed
  one-change a rebuild after one SKILL.md changed
  in process the same, but by a process that built once already (as `skillsite serve` rebuilds
             after an edit: imports done, templates compiled), timed from the second build's start
and, beside them, the floor of a cold build: reading every file of the tree, then markdown-it-py
rendering every SKILL.md body on every core (the cold build's largest cost), and the render floor
issue #29 measures the cold build against (the CPU time plain markdown-it-py takes to render the
same SKILL.md files on one core); it prints peak memory,
output size and time per stage of the cold build.  With
``--mkdocs [RUNS]`` it also builds the same SKILL.md files as MkDocs pages (search plugin on),
right after each of the first RUNS cold builds (default 3), and prints the ratio run by run:
this machine's speed drifts by up to 2x over minutes, so only neighbouring runs compare.

    python benchmarks/build_speed.py [--sizes corpus,1000,10000] [--mkdocs [RUNS]] [--repeat 3] [--jobs N]

Synthetic catalogs come from benchmarks/synth.py (the corpus's size distribution).  Above
10,000 skills only the cold build is timed.

Nothing is deleted while timing: the previous output, cache and MkDocs site are renamed into
a trash folder, emptied after the tables are printed.  On a file system without a journal
(this machine's root is ext4 without one), ext4 avoids reusing an inode freed in the last
minute, and each new file's allocation then scans past every such inode: right after the
previous run's 7,800 files were deleted, creating a file costs 300-800 us instead of 20-30 us
and the same cold build takes 1.7x as long (measured: 4.7 s -> 7.8 s).  That would measure the
benchmark's own clean-up, not the tools (a CI runner builds in a fresh checkout), so it is
kept out for both; ``--delete`` puts it back.  The table's header shows what creating a file
costs in the work folder when the run starts; while it is slow (a run just before deleted its
trash), the run waits, up to ``--settle`` seconds.

Each timed build (skillsite's and MkDocs's) starts after ``sync``: what the step before wrote
(the other tool's output: MkDocs writes hundreds of megabytes) is written back first instead
of being flushed to disk while the next build runs.
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import describe as describe_machine  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"

BUILD_ONE = """
import json, os, resource, sys, time
from pathlib import Path
from skillsite.publish.build import build
src, out, cache, jobs = sys.argv[1], Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
t = time.perf_counter()
r = build([src], out, keep_going=True, cache_dir=Path(cache) if cache else None, jobs=jobs)
print(json.dumps({"seconds": time.perf_counter() - t, "ok": r.ok, "skills": len(r.published),
                  "bytes": r.output_bytes, "stages": r.stages,
                  "rss_main": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                  "rss_worker": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024}))
"""

# The floor of a cold build: reading every file of the tree (the build reads them all: it
# publishes and audits them), then markdown-it-py (as skillsite configures it, without its
# link rules) rendering every SKILL.md body on every core.  Beside it, the render floor issue #29
# sets the cold build's target by: the CPU time plain markdown-it-py needs to render the same
# SKILL.md files on one core.
FLOOR = """
import json, sys, time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from markdown_it import MarkdownIt
from skillsite.agent.skill_md import skill_body

def render(bodies):
    md = MarkdownIt("commonmark", {"html": False, "tasklists": True, "alerts": True}).enable(["table", "strikethrough"])
    return sum(len(md.render(body)) for body in bodies)

src, jobs = Path(sys.argv[1]), int(sys.argv[2])
started = time.perf_counter()
files = {path: path.read_bytes() for path in sorted(src.rglob("*")) if path.is_file() and ".git" not in path.parts}
bodies = [skill_body(data) for path, data in files.items() if path.name == "SKILL.md"]
read = time.perf_counter() - started
started = time.perf_counter()
with ProcessPoolExecutor(jobs) as pool:
    sum(pool.map(render, [bodies[i::jobs * 8] for i in range(jobs * 8)]))
render = time.perf_counter() - started
plain = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
texts = [data.decode("utf-8", "replace") for path, data in files.items() if path.name == "SKILL.md"]
started = time.process_time()
for text in texts:
    plain.render(text)
print(json.dumps({"read": read, "render": render, "render_one_core": time.process_time() - started}))
"""


# A rebuild inside a process that already built once, as `skillsite serve` rebuilds after an edit:
# build (nothing changed), change one skill, build again; the second build is timed.
REBUILD_IN_PROCESS = """
import json, sys, time
from pathlib import Path
from skillsite.publish.build import build
src, out, cache, jobs = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4])
sys.path.insert(0, sys.argv[5])
from build_speed import touch_one
build([src], out, keep_going=True, cache_dir=cache, jobs=jobs)
touch_one(Path(src))
t = time.perf_counter()
build([src], out, keep_going=True, cache_dir=cache, jobs=jobs)
print(json.dumps({"seconds": time.perf_counter() - t}))
"""


def settle_writes() -> None:
    """Write back what earlier steps left in the page cache (the other tool's output, the copied
    sources), so that a timed build does not share the machine with flushing them."""
    os.sync()


def run_floor(src: Path, jobs: int) -> dict:
    settle_writes()
    proc = subprocess.run([sys.executable, "-c", FLOOR, str(src), str(jobs)], capture_output=True, text=True, cwd=REPO)
    if proc.returncode != 0:
        raise SystemExit(f"floor failed: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_build(src: Path, out: Path, cache: Path | None, jobs: int) -> dict:
    settle_writes()
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", BUILD_ONE, str(src), str(out), str(cache or ""), str(jobs)],
                          capture_output=True, text=True, cwd=REPO)
    if proc.returncode != 0:
        raise SystemExit(f"build failed: {proc.stderr[-2000:]}")
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    data["process_seconds"] = time.perf_counter() - start
    return data


class Trash:
    """Folders put out of the way by a rename, deleted at the end (see the module's docstring)."""

    def __init__(self, folder: Path, delete_now: bool):
        self.folder = folder
        self.delete_now = delete_now
        self.count = 0

    def discard(self, path: Path) -> None:
        if self.delete_now:
            shutil.rmtree(path, ignore_errors=True)
        elif path.exists():
            self.folder.mkdir(parents=True, exist_ok=True)
            self.count += 1
            while (self.folder / str(self.count)).exists():  # left by a run that did not finish
                self.count += 1
            path.rename(self.folder / str(self.count))

    def empty(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


#: Creating a file slower than this (median, microseconds) means inodes freed in the last
#: minutes are being skipped (see the docstring): the benchmark waits for that to pass.
SLOW_CREATE_US = 40  # settled, it is 25-38 us on this machine; 50 us still slowed a cold build 2x

TRASH = Trash(Path(tempfile.gettempdir()) / "skillsite-bench-trash", delete_now=False)


def file_creation_us(folder: Path, n: int = 2000) -> float:
    """Median microseconds to create (and write 4 KB to) a file in ``folder``, over ``n`` files
    spread over 64 new subfolders (new folders go to other block groups, as a build's do)."""
    probe = folder / "probe"
    probe.mkdir(parents=True, exist_ok=True)
    data, times = b"x" * 4096, []
    for i in range(n):
        sub = probe / str(i % 64)
        if i < 64:
            sub.mkdir()
        started = time.perf_counter()
        fd = os.open(sub / str(i), os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o644)
        os.write(fd, data)
        os.close(fd)
        times.append(time.perf_counter() - started)
    TRASH.discard(probe)
    return statistics.median(times) * 1e6


def settled_file_creation_us(folder: Path, settle: float) -> tuple[float, float]:
    """:func:`file_creation_us` in ``folder``, once creating files is fast again after earlier
    deletions (a run before this one), waiting up to ``settle`` seconds: (microseconds, seconds waited)."""
    creation, waited = file_creation_us(folder, 500), 0.0
    while creation > SLOW_CREATE_US and waited < settle:
        time.sleep(15)
        waited += 15
        creation = file_creation_us(folder, 500)
    if waited:
        print(f"waited {waited:.0f} s for the file system to settle after earlier deletions", file=sys.stderr)
    return creation, waited


def run_mkdocs(src: Path, work: Path) -> float:
    """MkDocs 1.6 building every SKILL.md of ``src`` as a page, with its search plugin."""
    docs = work / "docs"
    TRASH.discard(work)
    docs.mkdir(parents=True)
    for skill_md in sorted(src.rglob("SKILL.md")):
        target = docs / skill_md.parent.relative_to(src) / "index.md"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(skill_md, target)
    (docs / "index.md").write_text("# Skills\n")
    (work / "mkdocs.yml").write_text("site_name: skills\nplugins:\n  - search\n")
    settle_writes()
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q"], cwd=work, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"mkdocs failed: {proc.stderr[-2000:]}")
    return elapsed


def tree_size(folder: Path) -> int:
    return sum(os.lstat(os.path.join(d, f)).st_size for d, _, files in os.walk(folder) for f in files)


def touch_one(src: Path) -> None:
    """Change one skill's body (the middle SKILL.md in sorted order)."""
    skill = sorted(src.rglob("SKILL.md"))[len(list(src.rglob("SKILL.md"))) // 2]
    skill.write_text(skill.read_text(encoding="utf-8") + f"\n<!-- edited {time.time_ns()} -->\n", encoding="utf-8")


def rebuild_in_process(src: Path, out: Path, cache: Path, jobs: int) -> float:
    settle_writes()
    proc = subprocess.run([sys.executable, "-c", REBUILD_IN_PROCESS, str(src), str(out), str(cache), str(jobs),
                           str(Path(__file__).resolve().parent)], capture_output=True, text=True, cwd=REPO)
    if proc.returncode != 0:
        raise SystemExit(f"build failed: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])["seconds"]


def measure(label: str, src: Path, work: Path, repeat: int, jobs: int, mkdocs: int, rebuilds: bool) -> dict:
    """``mkdocs``: how many of the ``repeat`` rounds also build with MkDocs, right after
    skillsite's cold build (on this shared machine speed drifts: only neighbours compare)."""
    colds, noops, changes, served, mk_times, paired, floors = [], [], [], [], [], [], []
    render_floors = []
    cold = {}
    for round_ in range(repeat):
        out, cache = work / "site", work / "cache"
        TRASH.discard(out)
        TRASH.discard(cache)
        floor = run_floor(src, jobs)
        floors.append(floor["read"] + floor["render"])
        render_floors.append(floor["render_one_core"])
        cold = run_build(src, out, cache, jobs)
        colds.append(cold["process_seconds"])
        if round_ < mkdocs:
            mk_times.append(run_mkdocs(src, work / "mkdocs"))
            paired.append(mk_times[-1] / colds[-1])
        if rebuilds:
            noops.append(run_build(src, out, cache, jobs)["process_seconds"])
            touch_one(src)
            changes.append(run_build(src, out, cache, jobs)["process_seconds"])
            served.append(rebuild_in_process(src, out, cache, jobs))
    row = {"label": label, "skills": cold["skills"], "cold": statistics.median(colds),
           "noop": statistics.median(noops) if noops else None,
           "change": statistics.median(changes) if changes else None,
           "served": statistics.median(served) if served else None,
           "bytes": tree_size(work / "site"), "rss_main": cold["rss_main"], "rss_worker": cold["rss_worker"],
           "stages": cold["stages"], "floor": statistics.median(floors),
           "cold_vs_floor": statistics.median(c / f for c, f in zip(colds, floors)),
           "render_floor": statistics.median(render_floors),
           "cold_vs_render_floor": statistics.median(c / f for c, f in zip(colds, render_floors))}
    if mk_times:
        row["mkdocs"] = statistics.median(mk_times)
        row["paired"] = paired
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="corpus,1000,10000",
                        help="comma-separated: 'corpus' and/or numbers of synthetic skills")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--mkdocs", type=int, nargs="?", const=3, default=0, metavar="RUNS",
                        help="also time MkDocs on the same files, after the first RUNS cold builds (default 3)")
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temporary one)")
    parser.add_argument("--settle", type=float, default=360, metavar="SECONDS",
                        help="wait up to this long while creating a file is slow (after earlier deletions; default 360)")
    parser.add_argument("--delete", action="store_true",
                        help="delete previous outputs before each build instead of moving them to a trash folder")
    args = parser.parse_args()

    from synth import generate

    # skillsite's modules are byte-compiled first, as `pip install` does for MkDocs's.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "skillsite")], check=False)
    work_root = args.work or Path(tempfile.mkdtemp(prefix="skillsite-bench-"))
    TRASH.folder, TRASH.delete_now = work_root / "trash", args.delete
    creation, waited = settled_file_creation_us(work_root, args.settle)
    rows = []
    for size in args.sizes.split(","):
        work = work_root / size
        work.mkdir(parents=True, exist_ok=True)
        src = work / "src"
        TRASH.discard(src)
        if size == "corpus":
            shutil.copytree(CORPUS, src, symlinks=True)
            label = "shared corpus"
        else:
            generate(src, int(size))
            label = f"synthetic {int(size):,}"
            # inputs written less than 2 s before a build are not trusted to keep their stamps
            # (skillsite.cache.RACY_NS): the next build would read everything again
            time.sleep(2.1)
        small = size == "corpus" or int(size) <= 10_000
        rows.append(measure(label, src, work, args.repeat if size in ("corpus", "1000") else 1, args.jobs,
                            args.mkdocs if size in ("corpus", "1000") else 0, rebuilds=small))
        TRASH.discard(work / "site")
        TRASH.discard(src)

    print(f"machine: {describe_machine()}; jobs {args.jobs}")
    print(f"command: python benchmarks/build_speed.py {' '.join(sys.argv[1:])}")
    print(f"file system: creating a 4 KB file in {work_root} took {creation:.0f} us (median of 500) when the "
          f"run started{f' (after waiting {waited:.0f} s)' if waited else ''}; previous outputs "
          f"{'deleted' if args.delete else 'moved aside, deleted after the run'}")
    print()
    print("| tree | skills | floor | cold build | cold / floor | render floor, one core | cold / render floor | "
          "no-op rebuild | one skill changed | "
          "same, in a running process | MkDocs | MkDocs / cold | peak RSS main / worker | output |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        mk = f"{r['mkdocs']:.1f} s" if "mkdocs" in r else "–"
        ratio = f"{r['mkdocs'] / r['cold']:.1f}x" if "mkdocs" in r else "–"
        noop = f"{r['noop']:.2f} s ({100 * r['noop'] / r['cold']:.0f}%)" if r["noop"] is not None else "–"
        change = f"{r['change']:.2f} s" if r["change"] is not None else "–"
        served = f"{r['served']:.2f} s" if r["served"] is not None else "–"
        print(f"| {r['label']} | {r['skills']:,} | {r['floor']:.2f} s | {r['cold']:.2f} s | {r['cold_vs_floor']:.2f}x | "
              f"{r['render_floor']:.2f} s | {r['cold_vs_render_floor']:.2f}x | {noop} | {change} | {served} | {mk} | {ratio} | "
              f"{r['rss_main'] / 2**20:.0f} / {r['rss_worker'] / 2**20:.0f} MB | {r['bytes'] / 2**20:.0f} MB |")
    for r in rows:
        if r.get("paired"):
            ratios = r["paired"]
            print(f"{r['label']}: MkDocs ÷ skillsite cold, run by run (each MkDocs build right after a cold build): "
                  f"median {statistics.median(ratios):.1f}x, range {min(ratios):.1f}x–{max(ratios):.1f}x "
                  f"over {len(ratios)} runs")
    print()
    stages = sorted({s for r in rows for s in r["stages"]}, key=lambda s: list(rows[0]["stages"]).index(s)
                    if s in rows[0]["stages"] else 99)
    print("cold build, seconds per stage:")
    print("| tree | " + " | ".join(stages) + " |")
    print("|---|" + "---:|" * len(stages))
    for r in rows:
        print(f"| {r['label']} | " + " | ".join(f"{r['stages'].get(s, 0):.2f}" for s in stages) + " |")
    TRASH.empty()
    if args.work is None:
        shutil.rmtree(work_root, ignore_errors=True)


if __name__ == "__main__":
    main()
