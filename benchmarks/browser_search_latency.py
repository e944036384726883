"""Browser search latency: from navigation to the first search results, in headless chromium.

Builds the catalog of ../shared/corpus (or --site: an existing build; --site twice or more
compares builds, their runs alternating), serves it on 127.0.0.1 with skillsite's own static
server (in a separate process, so this process's Playwright client never slows it down), and
for each query opens
``index.html?q=<query>`` in a fresh browser context (cold cache) and reads the page's
performance marks:

- ``first results``: navigation start -> the first result list put in the page (lunr if its
  index is already loaded, else the page's plain-text match over search/docs.json);
- ``lunr results``: navigation start -> the result list from the lunr index;
- ``lunr painted``: navigation start -> the end of the first frame that shows lunr's results
  (a requestAnimationFrame callback then a task, scheduled when they are put in the page, by
  a script Playwright injects: the page's own marks say when the DOM changed, not when the
  browser drew it);
- ``index ready``: navigation start -> lunr index fetched and loaded;
- ``keystroke``: once loaded, one more query typed: input event -> results drawn.

Prints medians over --runs runs per query, with the machine it ran on.  A catalog of more
skills than its ``shard_above`` has no lunr index (its page searches search/shards.json): such a
site is refused, in one line naming benchmarks/scale.py, which measures that page.  Usage:

    .venv/bin/python benchmarks/browser_search_latency.py [--runs 5] [--site DIR ...] [--corpus DIR] [--idle 0.15]
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from skillsite.publish.build import build  # noqa: E402
from skillsite.config import SiteConfig  # noqa: E402
from skillsite.search.lunr_index import LUNR_FILE  # noqa: E402
from skillsite.search.shard_format import SHARDS_FILE  # noqa: E402
from machine import describe as describe_machine  # noqa: E402

# One word, a prefix-heavy one, and requests as people type them (the last, from issue 19, has
# words no skill uses: every word is optional, so it still draws a full list).
QUERIES = ("test", "pdf", "deploy kubernetes", "code review", "debug a bug methodically",
           "clean up stale local git branches and worktrees")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TARGET_MS = 300

# Injected before the page's scripts (Playwright's init scripts are not subject to the page's
# CSP): marks the frame after the lunr results were put in the page.
PAINT_HOOK = """(() => {
  const mark = performance.mark.bind(performance);
  let done = false;
  performance.mark = function (name, options) {
    const entry = mark(name, options);
    if (name === 'skillsite:results:lunr' && !done) {
      done = true;
      requestAnimationFrame(() => setTimeout(() => mark('bench:lunr-painted'), 0));
    }
    return entry;
  };
})();"""

READ_MARKS = """() => {
  const at = name => { const e = performance.getEntriesByName(name); return e.length ? e[0].startTime : null; };
  const nav = performance.getEntriesByType('navigation')[0];
  return {first: at('skillsite:results'), lunr: at('skillsite:results:lunr'), ready: at('skillsite:index-ready'),
          painted: at('bench:lunr-painted'),
          dcl: nav ? nav.domContentLoadedEventEnd : null, results: document.querySelectorAll('#searchResults > li').length};
}"""

KEYSTROKE = """q => {
  const box = document.getElementById('searchBox');
  const t0 = performance.now();
  box.value = q;
  box.dispatchEvent(new Event('input', {bubbles: true}));
  return performance.now() - t0;
}"""


def chromium() -> str:
    for candidate in (os.environ.get("SKILLSITE_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and os.path.exists(candidate):
            return candidate
    sys.exit("chromium not found: apt-get install chromium, or set SKILLSITE_CHROMIUM")


def start_server(site: Path) -> tuple[subprocess.Popen, str]:
    """skillsite's static server for ``site`` in a child process; returns it and its URL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code = ("import sys; from pathlib import Path; from skillsite.publish.serve import make_server; "
            "make_server(Path(sys.argv[1]), port=int(sys.argv[2])).serve_forever()")
    proc = subprocess.Popen([sys.executable, "-c", code, str(site), str(port)], cwd=REPO)
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, f"http://127.0.0.1:{port}/"
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                sys.exit("the catalog server did not start")
            time.sleep(0.05)


def wait_for(page, expression: str, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(expression)
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(expression)
        page.wait_for_timeout(10)


def measure(browser, url: str, query: str) -> dict:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.add_init_script(PAINT_HOOK)
    try:
        page = ctx.new_page()
        page.goto(url + "index.html?q=" + query.replace(" ", "+"), wait_until="commit")
        wait_for(page, "() => performance.getEntriesByName('bench:lunr-painted').length > 0")
        wait_for(page, "() => { const n = performance.getEntriesByType('navigation')[0]; "
                       "return !n || n.domContentLoadedEventEnd > 0; }")
        marks = page.evaluate(READ_MARKS)
        marks["keystroke"] = page.evaluate(KEYSTROKE, query + " s")
        return marks
    finally:
        ctx.close()


def cpu_busy(seconds: float = 1.0) -> float | None:
    """Share of the machine's CPU time spent busy over ``seconds`` (None off Linux)."""
    def snapshot() -> tuple[int, int]:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:8]]
        return fields[3] + fields[4], sum(fields)              # idle + iowait, total
    try:
        idle1, total1 = snapshot()
        time.sleep(seconds)
        idle2, total2 = snapshot()
    except OSError:
        return None
    return 1 - (idle2 - idle1) / max(1, total2 - total1)


def wait_for_idle(limit: float, timeout: float = 120.0) -> bool:
    """Wait until the CPUs were at most ``limit`` busy for a second; False if they never were."""
    deadline = time.monotonic() + timeout
    while True:
        busy = cpu_busy()
        if busy is None or busy <= limit:
            return True
        if time.monotonic() > deadline:
            return False


def median(values) -> float:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else float("nan")


def size(path: Path) -> str:
    data = path.read_bytes()
    return f"{len(data) / 1024:.0f} KB ({len(gzip.compress(data, 6)) / 1024:.0f} KB gzipped)"


def refuse_sharded(site: Path) -> None:
    """Exit with one line when ``site`` is a sharded catalog: its page has no lunr index to time."""
    if (site / SHARDS_FILE).is_file() and not (site / LUNR_FILE).is_file():
        skills = json.loads((site / "skills.json").read_bytes())["counts"]["skills"]
        sys.exit(f"browser_search_latency: {site} is a sharded catalog ({skills} skills, above its shard_above): "
                 f"its page searches {SHARDS_FILE}, not {LUNR_FILE}; benchmarks/scale.py measures that page")


def describe_site(site: Path) -> list[tuple[str, str]]:
    """The catalog's skills (as skills.json counts them: a skill's past releases have a skill.xml
    of their own) and the sizes of the files the page loads."""
    skills = json.loads((site / "skills.json").read_bytes())["counts"]["skills"]
    catalog = [("catalog", f"{skills} skills"), ("index.html", size(site / "index.html")),
               ("search/lunr.json", size(site / "search" / "lunr.json"))]
    if (site / "search" / "docs.json").is_file():
        catalog.append(("search/docs.json", size(site / "search" / "docs.json")))
    return catalog


def print_table(rows: list[tuple[str, list[dict]]]) -> None:
    print("| query | results | first results ms (best) | lunr results ms (best) | lunr painted ms | index ready ms "
          "| DOMContentLoaded ms | keystroke ms |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    all_first, all_lunr, all_painted = [], [], []
    for query, runs in rows:
        first, lunr = median(r["first"] for r in runs), median(r["lunr"] for r in runs)
        all_first += [r["first"] for r in runs]
        all_lunr += [r["lunr"] for r in runs]
        all_painted += [r["painted"] for r in runs]
        print(f"| {query} | {runs[0]['results']} | {first:.0f} ({min(r['first'] for r in runs):.0f}) "
              f"| {lunr:.0f} ({min(r['lunr'] for r in runs):.0f}) | {median(r['painted'] for r in runs):.0f} "
              f"| {median(r['ready'] for r in runs):.0f} | {median(r['dcl'] for r in runs):.0f} "
              f"| {median(r['keystroke'] for r in runs):.1f} |")
    print()
    print(f"median over all runs: first results {median(all_first):.0f} ms (best {min(all_first):.0f}), "
          f"lunr results {median(all_lunr):.0f} ms (best {min(all_lunr):.0f}), lunr painted {median(all_painted):.0f} ms; "
          f"target: {TARGET_MS} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpus")
    parser.add_argument("--site", type=Path, action="append",
                        help="an existing build to serve instead of building the corpus; repeat it to compare "
                             "builds (their runs alternate, so they share the machine's ups and downs)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--query", action="append", help="a query (repeatable; default: a fixed set of six)")
    parser.add_argument("--idle", type=float, metavar="SHARE",
                        help="before each run, wait (up to 2 minutes) until the CPUs were at most this busy "
                             "for a second, e.g. 0.15: on a shared machine, fewer runs share it with other work")
    args = parser.parse_args()
    for site in args.site or []:
        refuse_sharded(site)
    from playwright.sync_api import sync_playwright

    machine_before = describe_machine()                     # load average before this run adds its own

    tmp = None
    sites = list(args.site or [])
    if not sites:
        if not args.corpus.is_dir():
            sys.exit(f"no corpus at {args.corpus}")
        tmp = Path(tempfile.mkdtemp(prefix="skillsite-bench-"))
        started = time.perf_counter()
        result = build([args.corpus], tmp / "site", SiteConfig(title="Corpus skills"), keep_going=True)
        print(f"built {len(result.published)} skills in {time.perf_counter() - started:.1f} s")
        sites = [tmp / "site"]
        try:
            refuse_sharded(sites[0])
        except SystemExit:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    servers = []
    described = [describe_site(site) for site in sites]     # a built corpus is gone by the time we print
    queries = tuple(args.query or QUERIES)
    results: dict[int, list[tuple[str, list[dict]]]] = {i: [] for i in range(len(sites))}
    busy_starts = 0
    try:
        for site in sites:
            servers.append(start_server(site))
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS, headless=True)
            for _, url in servers:
                measure(browser, url, "warm-up")              # first launch costs are not the page's
            for query in queries:
                runs: dict[int, list[dict]] = {i: [] for i in range(len(sites))}
                for _ in range(args.runs):
                    for i, (_, url) in enumerate(servers):
                        if args.idle is not None and not wait_for_idle(args.idle):
                            busy_starts += 1
                        runs[i].append(measure(browser, url, query))
                for i in runs:
                    results[i].append((query, runs[i]))
            version = browser.version
            browser.close()
    finally:
        for server, _ in servers:
            server.terminate()
            server.wait()
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)

    print()
    print("## Browser search latency (headless chromium, cold cache, medians of "
          f"{args.runs} runs per query)")
    print()
    print(f"- machine (at start): {machine_before}")
    print(f"- chromium: {version}")
    if args.idle is not None:
        print(f"- each run started once the CPUs were at most {args.idle:.0%} busy for a second "
              f"({busy_starts} of {len(sites) * len(queries) * args.runs} runs started busy after waiting 2 minutes)")
    if len(sites) > 1:
        print(f"- {len(sites)} builds, their runs alternating")
    for i, site in enumerate(sites):
        print()
        if len(sites) > 1:
            print(f"### {site}")
            print()
        for key, value in described[i]:
            print(f"- {key}: {value}")
        print()
        print_table(results[i])
    print("Wall-clock times on a shared machine: compare the load average above; 'best' is the least disturbed run.")


if __name__ == "__main__":
    main()
