"""Copies of one skill in a big real catalog (issue #46): what grouping them does to search, and what it costs.

    python benchmarks/copies_quality.py TREE [--queries TSV] [--jobs N]

TREE: a folder of at least 10,000 real skills with the copies real trees hold, e.g. the shared
corpus beside a checkout of a public mirror (github.com/gabrielmoreira/agent-skills-mirror,
15,723 SKILL.md) and a few forks and aggregators of the repositories it mirrors.

1. Builds TREE cold twice, alternated: with copies grouped (the default) and with
   ``copies: {group: false}``; prints each build's time and peak memory (of its process tree),
   and the grouping step alone (fingerprints are made while each skill is checked; grouping
   reads them): its time and the memory it adds.
2. Runs the dev queries (query TAB relevant skill folder names; a result is relevant when the
   last segment of its id, or its name, is one of them) on the grouped catalog with the loader,
   one result a group and every copy (what a search gave before grouping), and prints the
   number of distinct skills (names, as a reader tells them apart) among the first ten
   results, on average, and MRR@10.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from machine import describe as describe_machine  # noqa: E402
from skillsite.loader import Catalog  # noqa: E402

QUERIES = REPO.parent / "shared" / "eval" / "dev-queries.tsv"
BUILD = r"""
import resource, sys, time
from pathlib import Path
from skillsite.config import SiteConfig
from skillsite.publish.build import build
started = time.perf_counter()
result = build([Path(sys.argv[1])], Path(sys.argv[2]), SiteConfig(copies={"group": sys.argv[3] == "on"}),
               keep_going=True, jobs=int(sys.argv[4]))
peaks = [resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
print(time.perf_counter() - started, result.ok, max(peaks))
"""


def timed_build(tree: Path, out: Path, grouped: bool, jobs: int) -> tuple[float, float]:
    """A cold build in a process of its own: seconds, and the peak memory (MB) of the largest of
    the build process and its workers."""
    done = subprocess.run([sys.executable, "-c", BUILD, str(tree), str(out), "on" if grouped else "off", str(jobs)],
                          capture_output=True, text=True, cwd=REPO)
    if done.returncode:
        raise SystemExit(f"the build failed:\n{done.stderr[-3000:]}")
    seconds, ok, peak_kb = done.stdout.split()
    assert ok == "True", done.stderr[-2000:]
    return float(seconds), int(peak_kb) / 1024


def fingerprints_alone(tree: Path) -> float:
    """The CPU seconds a build spends making every kept skill's fingerprint (in its check, on
    whichever core checks the skill), the SKILL.md files already parsed."""
    import hashlib

    from skillsite.source.catalog import Checking
    from skillsite.source.copies import fingerprint
    from skillsite.source.discover import discover

    found = discover([tree])
    checking = Checking.of(found, "default", 1024 * 1024)
    parsed = [checking.parsed(index) for index in range(len(found.sources))]
    parts = [((p.frontmatter or {}).get("name"), (p.frontmatter or {}).get("description"), p.body, p.raw)
             for p in parsed]
    parts = [(name, description, body, raw) for name, description, body, raw in parts
             if isinstance(name, str) and isinstance(description, str)]
    started = time.process_time()
    for name, description, body, raw in parts:
        fingerprint(name, description, body, hashlib.sha256(raw).hexdigest())
    return time.process_time() - started


def grouping_alone(tree: Path, jobs: int) -> tuple[float, float, int, int]:
    """Grouping the tree's skills, their fingerprints made (as a build's check makes them):
    seconds, MB it allocates at its peak, groups, skills in groups."""
    from skillsite.source.catalog import Checking, _check_all
    from skillsite.source.copies import Candidate, CopySettings, group_copies
    from skillsite.source.discover import discover

    found = discover([tree])
    checked = _check_all(Checking.of(found, "default", 1024 * 1024), range(len(found.sources)), jobs)
    candidates = [Candidate(c.skill.id, c.verdict.fingerprint, 0, c.skill.priority) for c in checked
                  if c.skill is not None and c.verdict.fingerprint is not None]
    started = time.perf_counter()
    groups = group_copies(candidates, CopySettings())
    seconds = time.perf_counter() - started
    tracemalloc.start()  # a second run for the memory: tracing slows Python down several times
    group_copies(candidates, CopySettings())
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return seconds, peak, len(groups), sum(len(g) for g in groups)


def read_queries(path: Path) -> list[tuple[str, set[str]]]:
    rows = []
    for line in path.read_text("utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            query, relevant = line.split("\t")
            rows.append((query, set(relevant.split())))
    return rows


def search_quality(site: Path, queries: list[tuple[str, set[str]]], copies: bool) -> tuple[float, float]:
    """Distinct names among the first ten results (mean) and MRR@10."""
    catalog = Catalog.open(site, max_risk="high")
    distinct, reciprocal = [], []
    for query, relevant in queries:
        hits = catalog.search(query, k=10, copies=copies)
        distinct.append(len({h.name.lower() for h in hits}))
        rank = next((n for n, h in enumerate(hits, 1) if h.id.rsplit("/", 1)[-1] in relevant or h.name in relevant), None)
        reciprocal.append(1 / rank if rank else 0.0)
    return statistics.mean(distinct), statistics.mean(reciprocal)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--queries", type=Path, default=QUERIES)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--builds", type=int, default=1, help="cold builds of each kind (alternated)")
    args = parser.parse_args()
    print(f"machine: {describe_machine()}")
    print(f"command: python benchmarks/copies_quality.py {' '.join(sys.argv[1:])}")
    with tempfile.TemporaryDirectory(prefix="copies-") as tmp:
        work = Path(tmp)
        times: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
        for n in range(args.builds):
            for grouped in (False, True):
                times[grouped].append(timed_build(args.tree, work / f"{grouped}-{n}", grouped, args.jobs))
        site = work / "True-0"
        skills = json.loads((site / "skills.json").read_text("utf-8"))["counts"]["skills"]
        print(f"\n## Cold builds of {skills:,} skills ({args.builds} each, alternated, -j {args.jobs})\n")
        print("| copies | median s | peak MB (largest process) |\n|---|---:|---:|")
        for grouped in (False, True):
            print(f"| {'grouped' if grouped else 'not grouped'} | {statistics.median(t for t, _ in times[grouped]):.1f} | "
                  f"{max(m for _, m in times[grouped]):,.0f} |")
        seconds, peak, groups, members = grouping_alone(args.tree, args.jobs)
        print(f"\nThe grouping step alone: {seconds:.2f} s, {peak:,.0f} MB allocated at its peak; {groups:,} groups "
              f"hold {members:,} skills ({skills - members + groups:,} results where there were {skills:,}).")
        made = fingerprints_alone(args.tree)
        cold = statistics.median(t for t, _ in times[False])
        print(f"Making the fingerprints: {made:.2f} CPU s in all (spread over the check's {args.jobs} workers). "
              f"Fingerprints and grouping together, even on one core: {made + seconds:.2f} s, "
              f"{100 * (made + seconds) / cold:.1f} % of the ungrouped cold build's median.")
        queries = read_queries(args.queries)
        print(f"\n## The {len(queries)} dev queries, first ten results (loader)\n")
        print("| search | distinct skills in the first 10 (mean) | MRR@10 |\n|---|---:|---:|")
        for label, copies in (("every copy (as before grouping)", True), ("one result a group", False)):
            distinct, mrr = search_quality(site, queries, copies)
            print(f"| {label} | {distinct:.1f} | {mrr:.3f} |")


if __name__ == "__main__":
    main()
