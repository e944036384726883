"""Scale: builds, memory and what clients download, on synthetic catalogs of 10,000 to 100,000 skills.

For each size (synthetic skills from benchmarks/synth.py, the real corpus's size distribution)
it measures, every build in a fresh process started after ``sync`` (as build_speed.py does):

  cold         a build with no cache and no previous output; with the peak memory of every
               process of the build: a thread here reads ``VmHWM`` (and ``VmRSS``) from
               /proc/<pid>/status of the build process and of every process under it (its
               worker processes) every 50 ms; the build also reports getrusage's peaks; the
               larger is shown, for the main process and for the largest worker
  no-op        a rebuild with the cold build's cache, nothing changed (the sources are older
               than the 2-second racy window before the cold build starts); as % of cold
  one change   one SKILL.md in the middle of the tree edited (build_speed.touch_one), then a
               rebuild in a fresh process
  in serve     the same inside ``skillsite serve``: a process runs
               ``skillsite.publish.serve.DevServer`` on the output and cache of the builds above
               (moved into its folder); it edits the skill and ``start()``s (its first build, an
               incremental one right after an edit, as serve's rebuilds are), then edits it
               again and times ``check()``: the watcher's walk over the sources and the rebuild
  agent        a fresh agent (a new process, an empty cache folder): ``Catalog.open(url)``,
               ``search(QUERY)``, ``load(first hit)``; the requests and bytes it took
  browser      a fresh headless chromium context opens the home page, types QUERY into the
               search box as soon as it can (a key every 50 ms) and waits for the results: the
               list of results non-empty, no request in flight anywhere and the list unchanged
               for 0.5 s; the requests and bytes until then, and the time from navigation to
               the last change of the list (the final results)
  files        the size of skills.json, index.html, the search/ folder and the largest file

Both clients talk to a ThreadingHTTPServer in this process on 127.0.0.1 that serves the output
as a static host would (skillsite serve's handler: ``_headers``, 404.html; ETag /
If-None-Match and Last-Modified / If-Modified-Since) and counts the bytes it sends for each
request, headers included; responses are not compressed, and the tables also give what the
same responses would be gzipped (level 6), as hosts serve them.  Nothing assumes the names of
the published files: a sharded skills.json or search index is measured by what is fetched.

With ``--mkdocs``, MkDocs 1.6 (search plugin on) also builds the SKILL.md files of each size up
to 10,000 as pages (build_speed.run_mkdocs), right after skillsite's cold build.

    python benchmarks/scale.py [--sizes 10000,30000,100000] [--mkdocs] [--runs N] [--keep DIR] [--jobs N]

``--sizes 500`` runs everything in a minute or two.  ``--keep DIR`` works in DIR and leaves the
sources and the last output there; synthetic sources already in DIR are reused (generating
100,000 takes a while).  Previous outputs are moved aside and deleted only after the tables
(see build_speed.py's docstring: deleting many files slows the next build's file creation);
between sizes they are deleted, then the run waits, up to ``--settle`` seconds, until creating
a file is fast again.
"""
from __future__ import annotations

import argparse
import email.utils
import gzip
import json
import os
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(BENCH))

from build_speed import (BUILD_ONE, TRASH, run_mkdocs, settle_writes, settled_file_creation_us,  # noqa: E402
                         touch_one, tree_size)
from machine import describe as describe_machine  # noqa: E402

from skillsite.publish.serve import CatalogHandler  # noqa: E402

#: What a developer types (the synthetic skills copy the corpus's descriptions and bodies).
QUERY = "debug a failing test"
SAMPLE_SECONDS = 0.05   # how often the memory of a build's processes is read
QUIET_SECONDS = 0.5     # the browser's results are final once nothing happened for this long
KEY_DELAY_MS = 50       # between the keys typed into the search box
BROWSER_TIMEOUT = 600.0
RACY_SECONDS = 2.1      # skillsite.cache.RACY_NS, and a little more
MB = 2**20

# A rebuild inside skillsite serve: DevServer on the output and cache the fresh-process builds
# left (renamed into its folder, renamed back at the end).
SERVE_ONE = r"""
import json, os, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[4])
from build_speed import touch_one
from skillsite.config import SiteConfig
from skillsite.publish.serve import DevServer
src, site, cache = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
dev = DevServer([src], SiteConfig(), log=open(os.devnull, "w"))
moved = False
try:
    dev.out.rmdir()
    site.rename(dev.out)
    cache.rename(dev.tmp / "cache")
    moved = True
    touch_one(src)
    t = time.perf_counter()
    ok = dev.start()
    first = time.perf_counter() - t
    touch_one(src)
    t = time.perf_counter()
    rebuilt = dev.check()
    change = time.perf_counter() - t
    t = time.perf_counter()
    idle = dev.check()
    poll = time.perf_counter() - t
finally:
    if moved:
        (dev.tmp / "cache").rename(cache)
        dev.out.rename(site)
    dev.stop()
print(json.dumps({"ok": ok and rebuilt and not idle, "first": first, "change": change, "poll": poll}))
"""

# A fresh agent: a new process, an empty cache folder.
AGENT = r"""
import json, sys, time
started = time.perf_counter()
from skillsite.loader import Catalog
url, cache, query = sys.argv[1], sys.argv[2], sys.argv[3]
t = time.perf_counter()
catalog = Catalog.open(url, cache_dir=cache)
opened = time.perf_counter() - t
hits = catalog.search(query)
searched = time.perf_counter() - t
skill = catalog.load(hits[0].id) if hits else None
loaded = time.perf_counter() - t
print(json.dumps({"import": t - started, "open": opened, "search": searched, "load": loaded, "hits": len(hits),
                  "first": hits[0].id if hits else None, "body": len(skill.body) if skill else 0}))
"""

# In the page before its own scripts: when the result list changes (performance.now(), from
# navigation start), and how many fetch() calls and body reads are pending.
PAGE_PROBE = """(() => {
  const b = window.__bench = {first: null, last: null, changed: 0, shown: 0, pending: 0, net: 0,
                              firstKey: null, lastKey: null};
  const track = p => {
    b.pending++; b.net = performance.now();
    const done = () => { b.pending--; b.net = performance.now(); };
    p.then(done, done);
    return p;
  };
  if (window.fetch) {
    const fetch = window.fetch.bind(window);
    window.fetch = function () {
      return track(fetch.apply(null, arguments).then(r => {
        for (const m of ['json', 'text', 'arrayBuffer', 'blob']) {
          const read = r[m].bind(r);
          r[m] = () => track(read());
        }
        return r;
      }));
    };
  }
  document.addEventListener('keydown', () => {
    const now = performance.now();
    if (b.firstKey === null) b.firstKey = now;
    b.lastKey = now;
  }, true);
  const watch = () => {
    const list = document.getElementById('searchResults');
    if (!list) return false;
    new MutationObserver(() => {
      const now = performance.now();
      b.shown = list.hidden ? 0 : list.children.length;
      b.changed = now;
      if (b.shown) { if (b.first === null) b.first = now; b.last = now; }
    }).observe(list, {childList: true, subtree: true, characterData: true, attributes: true});
    return true;
  };
  const timer = setInterval(() => { if (watch()) clearInterval(timer); }, 5);
})();"""

PAGE_STATE = "() => Object.assign({now: performance.now()}, window.__bench || {})"


# -- memory of a process tree


def _status(pid: int) -> dict[str, int]:
    """VmHWM and VmRSS of a process, in bytes ({} once it is gone or a zombie)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return {}
    out = {}
    for line in text.splitlines():
        if line.startswith(("VmHWM:", "VmRSS:")):
            name, value = line.split(":", 1)
            out[name] = int(value.split()[0]) * 1024
    return out


def _children(pid: int) -> list[int]:
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                found += [int(c) for c in handle.read().split()]
    except OSError:
        pass
    return found


class TreeMemory:
    """Peak memory of a process and of every process under it, read from /proc in a thread.

    With ``limit`` (bytes), the processes are killed once their resident memory together
    exceeds it: on a shared machine without swap, a build that outgrows the memory would
    otherwise have the kernel's OOM killer pick a victim, maybe someone else's process.
    """

    def __init__(self, pid: int, interval: float = SAMPLE_SECONDS, limit: int | None = None):
        self.pid = pid
        self.interval = interval
        self.limit = limit
        self.killed_at: int | None = None  # the tree's RSS when it was killed for going over ``limit``
        self.peaks: dict[int, int] = {}   # pid -> largest VmHWM seen
        self.peak_sum = 0                 # largest sum of VmRSS over the tree at one time (shared pages count twice)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> TreeMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)

    def sample(self) -> None:
        todo, total, seen = [self.pid], 0, []
        while todo:
            pid = todo.pop()
            status = _status(pid)
            if status:
                self.peaks[pid] = max(self.peaks.get(pid, 0), status.get("VmHWM", 0))
                total += status.get("VmRSS", 0)
                seen.append(pid)
            todo += _children(pid)
        self.peak_sum = max(self.peak_sum, total)
        if self.limit is not None and total > self.limit and self.killed_at is None:
            self.killed_at = total
            for pid in seen:   # the build and its workers, started by this benchmark
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    @property
    def main(self) -> int:
        return self.peaks.get(self.pid, 0)

    @property
    def workers(self) -> list[int]:
        return [peak for pid, peak in self.peaks.items() if pid != self.pid]


#: Builds are stopped when their processes' resident memory together exceeds this (bytes; main() sets it).
MEMORY_LIMIT: int | None = None


def run_sampled(argv: list[str], env: dict | None = None) -> tuple[subprocess.CompletedProcess, TreeMemory, float]:
    """A fresh process (after ``sync``), its process tree's memory sampled; and its wall time."""
    settle_writes()
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO, env=env)
    with TreeMemory(proc.pid, limit=MEMORY_LIMIT) as memory:
        stdout, stderr = proc.communicate()
    elapsed = time.perf_counter() - start
    return subprocess.CompletedProcess(argv, proc.returncode, stdout, stderr), memory, elapsed


def failure(proc: subprocess.CompletedProcess, memory: TreeMemory) -> str:
    if memory.killed_at is not None:
        return f"stopped: its processes held {mb(memory.killed_at)}, over --max-memory"
    if proc.returncode < 0:
        return f"killed by signal {-proc.returncode}"
    lines = proc.stderr.strip().splitlines()
    return f"exit status {proc.returncode}" + (f": {lines[-1]}" if lines else "")


def run_build(src: Path, out: Path, cache: Path, jobs: int) -> dict:
    """build_speed's BUILD_ONE in a fresh process, its process tree's memory sampled."""
    proc, memory, elapsed = run_sampled([sys.executable, "-c", BUILD_ONE, str(src), str(out), str(cache), str(jobs)])
    if proc.returncode != 0:
        return {"failed": failure(proc, memory), "stderr": proc.stderr[-2000:], "seconds": elapsed,
                "peak_main": memory.main, "peak_worker": max(memory.workers, default=0)}
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    data.update(in_build=data["seconds"], seconds=elapsed, peak_main=max(memory.main, data["rss_main"]),
                peak_worker=max(max(memory.workers, default=0), data["rss_worker"]),
                worker_count=len(memory.workers), peak_sum=memory.peak_sum)
    return data


def run_serve(src: Path, site: Path, cache: Path, work: Path) -> dict:
    """SERVE_ONE in a fresh process (its temporary folder in ``work``: renames stay on one file system)."""
    proc, memory, _ = run_sampled([sys.executable, "-c", SERVE_ONE, str(src), str(site), str(cache), str(BENCH)],
                                  env={**os.environ, "TMPDIR": str(work)})
    if proc.returncode != 0:
        return {"failed": failure(proc, memory), "stderr": proc.stderr[-2000:]}
    return {**json.loads(proc.stdout.strip().splitlines()[-1]), "peak_main": memory.main}


# -- a static host that counts what it sends


@dataclass
class Request:
    path: str
    status: int
    sent: int            # bytes written to the socket, headers included
    body: int            # Content-Length of the response (0 for a 304)
    started: float
    ended: float


class Traffic:
    """Every request the server answered, and how many are being answered now."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests: list[Request] = []
        self.in_flight = 0
        self.last = time.monotonic()

    def mark(self) -> int:
        with self.lock:
            return len(self.requests)

    def since(self, mark: int) -> list[Request]:
        with self.lock:
            return list(self.requests[mark:])

    def idle_for(self) -> float:
        with self.lock:
            return 0.0 if self.in_flight else time.monotonic() - self.last


class _CountingWriter:
    def __init__(self, raw) -> None:
        self.raw = raw
        self.count = 0

    def write(self, data) -> int:
        self.count += len(data)
        return self.raw.write(data)

    def flush(self) -> None:
        self.raw.flush()

    def __getattr__(self, name: str):
        return getattr(self.raw, name)


class CountingHandler(CatalogHandler):
    """skillsite serve's handler (``_headers``, 404.html), caching like a static host (ETag and
    Last-Modified, revalidated every time) instead of ``no-store``, counting what it sends."""

    traffic: Traffic   # set on a subclass per server

    def setup(self) -> None:
        super().setup()
        self.wfile = _CountingWriter(self.wfile)

    def handle_one_request(self) -> None:
        self._status, self._length, self._etag = 0, 0, None
        before, started = self.wfile.count, time.monotonic()
        with self.traffic.lock:
            self.traffic.in_flight += 1
        try:
            super().handle_one_request()
        finally:
            ended = time.monotonic()
            with self.traffic.lock:
                self.traffic.in_flight -= 1
                self.traffic.last = ended
                if self._status:
                    self.traffic.requests.append(Request(self.path, self._status, self.wfile.count - before,
                                                         self._length, started, ended))

    def send_response(self, code, message=None) -> None:
        self._status = int(code)
        super().send_response(code, message)

    def send_header(self, keyword: str, value: str) -> None:
        if keyword.lower() == "content-length":
            self._length = int(value)
        super().send_header(keyword, value)

    def end_headers(self) -> None:
        if self._etag:
            self.send_header("ETag", self._etag)
        self.send_header("Cache-Control", "public, max-age=0, must-revalidate")
        SimpleHTTPRequestHandler.end_headers(self)   # not CatalogHandler's: it says no-store

    def send_head(self):
        """A file's ETag (its size and time); 304 when If-None-Match names it."""
        local = Path(self.translate_path(self.path))
        if local.is_dir() and urllib.parse.urlsplit(self.path).path.endswith("/"):
            local = local / "index.html"
        if not local.is_file():
            return super().send_head()
        st = local.stat()
        self._etag = f'"{st.st_mtime_ns:x}-{st.st_size:x}"'
        wanted = self.headers.get("If-None-Match")
        if wanted and self._etag in [tag.strip() for tag in wanted.split(",")]:
            self.send_response(HTTPStatus.NOT_MODIFIED)
            self.send_header("Last-Modified", email.utils.formatdate(st.st_mtime, usegmt=True))
            self.end_headers()
            return None
        return super().send_head()


class CountingServer:
    """The output served on 127.0.0.1 from a thread of this process."""

    def __init__(self, site: Path):
        self.traffic = Traffic()
        handler = type("Handler", (CountingHandler,), {"traffic": self.traffic})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), lambda *a: handler(*a, directory=str(site)))
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.site = site

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/"

    def __enter__(self) -> CountingServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


# -- the clients


def run_agent(server: CountingServer, work: Path, query: str) -> dict:
    """AGENT in a fresh process with an empty cache folder; the requests it made."""
    cache = Path(tempfile.mkdtemp(prefix="agent-cache-", dir=work))
    mark = server.traffic.mark()
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", AGENT, server.url, str(cache), query],
                          capture_output=True, text=True, cwd=REPO)
    elapsed = time.perf_counter() - started
    time.sleep(0.05)  # the server thread records a request just after its last byte is sent
    TRASH.discard(cache)
    if proc.returncode != 0:
        return {"failed": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "no output",
                "requests": server.traffic.since(mark)}
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    data.update(seconds=elapsed, requests=server.traffic.since(mark))
    return data


def run_browser(browser, server: CountingServer, query: str) -> dict:
    """A fresh context opens the home page, types ``query``, waits for the final results."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(PAGE_PROBE)
    mark = server.traffic.mark()
    try:
        page = context.new_page()
        page.goto(server.url, wait_until="commit", timeout=BROWSER_TIMEOUT * 1000)
        page.locator("#searchBox").press_sequentially(query, delay=KEY_DELAY_MS, timeout=BROWSER_TIMEOUT * 1000)
        deadline = time.monotonic() + BROWSER_TIMEOUT
        while True:
            state = page.evaluate(PAGE_STATE)
            quiet = (state["now"] - max(state["changed"] or 0, state["net"] or 0, state["lastKey"] or 0)) / 1000
            if (state["shown"] and not state["pending"] and quiet >= QUIET_SECONDS
                    and server.traffic.idle_for() >= QUIET_SECONDS):
                break
            if time.monotonic() > deadline:
                return {"failed": f"no results after {BROWSER_TIMEOUT:.0f} s ({state})",
                        "requests": server.traffic.since(mark)}
            page.wait_for_timeout(50)
    finally:
        context.close()
    return {"first": state["first"] / 1000, "results": state["last"] / 1000, "shown": state["shown"],
            "typed": state["firstKey"] / 1000, "after_key": (state["last"] - state["lastKey"]) / 1000,
            "requests": server.traffic.since(mark)}


def local_file(site: Path, url_path: str) -> Path:
    """The file of ``site`` a request path names (a folder: its index.html)."""
    rel = urllib.parse.unquote(url_path.split("?", 1)[0].split("#", 1)[0]).lstrip("/")
    local = site / rel
    return local / "index.html" if local.is_dir() else local


class Gzipped:
    """What each response would weigh with its body gzipped (level 6), computed once per file."""

    def __init__(self, site: Path):
        self.site = site
        self.sizes: dict[str, int] = {}

    def of(self, request: Request) -> int:
        if request.status != 200 or not request.body:
            return request.sent
        if request.path not in self.sizes:
            try:
                self.sizes[request.path] = len(gzip.compress(local_file(self.site, request.path).read_bytes(), 6))
            except OSError:
                self.sizes[request.path] = request.body
        return request.sent - request.body + self.sizes[request.path]


def measure_clients(site: Path, work: Path, query: str, runs: int) -> dict:
    from playwright.sync_api import sync_playwright
    from browser_search_latency import CHROMIUM_ARGS, chromium

    agents, browsers = [], []
    with CountingServer(site) as server:
        for _ in range(runs):
            try:
                agents.append(run_agent(server, work, query))
            except Exception as exc:  # noqa: BLE001 - report it in the table, carry on
                agents.append({"failed": repr(exc), "requests": []})
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS, headless=True)
            try:
                for _ in range(runs):
                    mark = server.traffic.mark()
                    try:
                        browsers.append(run_browser(browser, server, query))
                    except Exception as exc:  # noqa: BLE001 - a crashed page, a timeout: report it
                        browsers.append({"failed": repr(exc)[:300], "requests": server.traffic.since(mark)})
                version = browser.version
            finally:
                browser.close()
    gz = Gzipped(site)
    for run in agents + browsers:
        run["bytes"] = sum(r.sent for r in run["requests"])
        run["gzipped"] = sum(gz.of(r) for r in run["requests"])
    return {"agent": agents, "browser": browsers, "chromium": version}


# -- the output's files


def output_files(site: Path) -> dict:
    sizes = {}
    for folder, _, files in os.walk(site):
        for name in files:
            path = os.path.join(folder, name)
            sizes[os.path.relpath(path, site)] = os.lstat(path).st_size
    search = {rel: size for rel, size in sizes.items() if rel.startswith("search" + os.sep)}
    largest = max(sizes.items(), key=lambda item: item[1])
    return {"files": len(sizes), "bytes": sum(sizes.values()), "skills.json": sizes.get("skills.json"),
            "index.html": sizes.get("index.html"), "search_files": len(search), "search_bytes": sum(search.values()),
            "search_largest": max(search.items(), key=lambda item: item[1]) if search else None,
            "largest": largest, "top": sorted(sizes.items(), key=lambda item: -item[1])[:8]}


# -- one size


@dataclass
class Row:
    size: int
    cold: list[dict] = field(default_factory=list)
    noop: list[dict] = field(default_factory=list)
    change: list[dict] = field(default_factory=list)
    serve: list[dict] = field(default_factory=list)
    clients: dict | None = None
    files: dict | None = None
    mkdocs: dict | None = None
    generated: float = 0.0
    failed: str | None = None


def sources(work: Path, size: int, reuse: bool) -> tuple[Path, float]:
    """The synthetic tree of ``size`` skills in ``work/src`` (reused when ``reuse`` and it is
    there); the seconds spent generating it."""
    from synth import generate

    src, marker = work / "src", work / "src.json"
    wanted = {"skills": size, "seed": 0}
    if reuse and src.is_dir() and marker.is_file() and json.loads(marker.read_text()) == wanted:
        return src, 0.0
    TRASH.discard(src)
    marker.unlink(missing_ok=True)
    print(f"generating {size:,} synthetic skills in {src}", file=sys.stderr, flush=True)
    started = time.perf_counter()
    generate(src, size)
    marker.write_text(json.dumps(wanted))
    return src, time.perf_counter() - started


def measure(size: int, work: Path, args) -> Row:
    row = Row(size)
    src, row.generated = sources(work, size, reuse=args.keep is not None)
    site, cache = work / "site", work / "cache"
    for run in range(args.runs):
        TRASH.discard(site)
        TRASH.discard(cache)
        time.sleep(RACY_SECONDS)  # every input older than the racy window: the no-op can stop after discovery
        print(f"{size:,}: cold build {run + 1}", file=sys.stderr, flush=True)
        cold = run_build(src, site, cache, args.jobs)
        row.cold.append(cold)
        if "failed" in cold or not cold["ok"]:
            row.failed = f"cold build failed: {cold.get('failed', 'errors')}\n{cold.get('stderr', '')}"
            return row
        if args.mkdocs and size <= 10_000 and run == 0:
            print(f"{size:,}: MkDocs", file=sys.stderr, flush=True)
            seconds = run_mkdocs(src, work / "mkdocs")
            mk_site = work / "mkdocs" / "site"
            index = mk_site / "search" / "search_index.json"
            row.mkdocs = {"seconds": seconds, "bytes": tree_size(mk_site),
                          "search": index.stat().st_size if index.is_file() else None}
            TRASH.discard(work / "mkdocs")
        print(f"{size:,}: no-op, one change, in serve", file=sys.stderr, flush=True)
        row.noop.append(run_build(src, site, cache, args.jobs))
        touch_one(src)
        row.change.append(run_build(src, site, cache, args.jobs))
        row.serve.append(run_serve(src, site, cache, work))
        for what, result in (("no-op", row.noop[-1]), ("one change", row.change[-1]), ("serve", row.serve[-1])):
            if "failed" in result:
                row.failed = f"{what} failed: {result['failed']}\n{result.get('stderr', '')}"
                return row
    print(f"{size:,}: agent and browser", file=sys.stderr, flush=True)
    row.files = output_files(site)
    row.clients = measure_clients(site, work, args.query, args.runs)
    return row


# -- printing


def mb(n: int | None) -> str:
    if n is None:
        return "–"
    return f"{n / MB:.1f} MB" if n < 100 * MB else f"{n / MB:.0f} MB"


def size_text(n: int | None) -> str:
    if n is None:
        return "–"
    if n < MB:
        return f"{n / 1024:.0f} KB"
    return mb(n)


def med(values) -> float:
    return statistics.median(values)


def client_cell(runs: list[dict]) -> str:
    ok = [r for r in runs if "failed" not in r]
    if not ok:
        return f"failed after {len(runs[0]['requests'])} req, {size_text(runs[0]['bytes'])}" if runs else "–"
    r = ok[0]
    fetched = [sorted((q.path, q.sent) for q in o["requests"] if q.status != 304) for o in ok]
    same = all(f == fetched[0] for f in fetched)   # revalidations (304) vary with timing
    revalidated = sum(1 for q in r["requests"] if q.status == 304)
    count = f"{len(r['requests'])} req" + (f" ({revalidated} of them 304)" if revalidated else "")
    return f"{size_text(r['bytes'])} ({size_text(r['gzipped'])} gz), {count}{'' if same else ' *'}"


def print_tables(rows: list[Row], args, machine: str, creation: float) -> None:
    print(f"machine: {machine}; jobs {args.jobs}")
    print(f"command: python benchmarks/scale.py {shlex.join(sys.argv[1:])}")
    print(f"file system: creating a 4 KB file in the work folder took {creation:.0f} us (median of 500) at the "
          "start; previous outputs moved aside while timing")
    print(f"query: {args.query!r}; runs per size: {args.runs} (times: median; memory: largest); builds stopped "
          f"above {mb(MEMORY_LIMIT)} of resident memory")
    print()
    print("| skills | cold build | peak RSS main / worker | no-op rebuild | one change, fresh process | "
          "one change, in serve | agent: transferred | browser: transferred | browser: to results | "
          "index.html | skills.json | search/ | largest file | output |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        if row.failed and not row.noop:
            cold = row.cold[-1] if row.cold else {}
            print(f"| {row.size:,} | {row.failed.splitlines()[0]} after {cold.get('seconds', 0):.0f} s | "
                  f"{mb(cold.get('peak_main'))} / {mb(cold.get('peak_worker'))} |" + " – |" * 11)
            continue
        cold = med(c["seconds"] for c in row.cold)
        noop = med(c["seconds"] for c in row.noop)
        noop_full = any("read" in c.get("stages", {}) for c in row.noop)
        change = med(c["seconds"] for c in row.change)
        serve = [s for s in row.serve if "failed" not in s]
        serve_text = f"{med(s['change'] for s in serve):.2f} s" if serve else "failed"
        main = max(c["peak_main"] for c in row.cold)
        worker = max(c["peak_worker"] for c in row.cold)
        f = row.files or {}
        clients = row.clients or {"agent": [], "browser": []}
        shown = [b for b in clients["browser"] if "failed" not in b]
        to_results = (f"{med(b['results'] for b in shown):.2f} s ({med(b['after_key'] for b in shown):.2f} s "
                      "after the last key)" if shown else "–")
        search = (f"{f['search_files']} files, {size_text(f['search_bytes'])}" if f.get("search_files") else "–")
        largest = f"{f['largest'][0]} {size_text(f['largest'][1])}" if f.get("largest") else "–"
        print(f"| {row.size:,} | {cold:.1f} s | {mb(main)} / {mb(worker)} | "
              f"{noop:.2f} s ({100 * noop / cold:.1f}%){' (read everything!)' if noop_full else ''} | "
              f"{change:.2f} s | {serve_text} | {client_cell(clients['agent'])} | {client_cell(clients['browser'])} | "
              f"{to_results} | {size_text(f.get('index.html'))} | {size_text(f.get('skills.json'))} | {search} | "
              f"{largest} | {mb(f.get('bytes'))}, {f.get('files', 0):,} files |")
    print()
    print("Transferred: bytes the server sent (headers included, uncompressed), then the same responses gzipped; "
          "req: requests (* when runs fetched different files: first run shown). To results: navigation -> the last change "
          f"of the result list (typing starts as soon as the box can take keys, a key every {KEY_DELAY_MS} ms).")
    for row in rows:
        print()
        print(f"### {row.size:,} skills")
        print()
        if row.generated:
            print(f"- generated in {row.generated:.0f} s")
        if row.failed:
            print(f"- FAILED: {row.failed.strip()}")
        for i, cold in enumerate(row.cold):
            if "failed" in cold:
                continue
            stages = ", ".join(f"{k} {v:.1f}" for k, v in cold["stages"].items())
            print(f"- cold build {i + 1}: {cold['seconds']:.1f} s ({cold['in_build']:.1f} s in build(); "
                  f"{cold['skills']:,} skills, output {mb(cold['bytes'])}); peak RSS main {mb(cold['peak_main'])}, largest of "
                  f"{cold['worker_count']} other processes {mb(cold['peak_worker'])}, whole tree at one time "
                  f"at most {mb(cold['peak_sum'])} (sum of RSS: shared pages counted in each process); "
                  f"seconds per stage: {stages}")
        for noop in row.noop:
            if "failed" not in noop:
                print(f"- no-op: {noop['seconds']:.2f} s, stages: "
                      + ", ".join(f"{k} {v:.2f}" for k, v in noop["stages"].items())
                      + f"; peak RSS main {mb(noop['peak_main'])}")
        for change in row.change:
            if "failed" not in change:
                print(f"- one change, fresh process: {change['seconds']:.2f} s, stages: "
                      + ", ".join(f"{k} {v:.2f}" for k, v in change["stages"].items())
                      + f"; peak RSS main {mb(change['peak_main'])} / worker {mb(change['peak_worker'])}")
        for serve in row.serve:
            if "failed" not in serve:
                print(f"- in serve: its first build (an edit just before) {serve['first']:.2f} s; after one more edit "
                      f"check() {serve['change']:.2f} s (a check with nothing changed, the watcher's walk alone: "
                      f"{serve['poll']:.2f} s); peak RSS of the serve process {mb(serve['peak_main'])}")
        if row.mkdocs:
            print(f"- MkDocs 1.6 (search plugin on), right after the first cold build: {row.mkdocs['seconds']:.1f} s "
                  f"({row.mkdocs['seconds'] / row.cold[0]['seconds']:.1f}x skillsite's cold build), output "
                  f"{mb(row.mkdocs['bytes'])}, search_index.json {size_text(row.mkdocs['search'])}")
        f = row.files
        if f:
            print("- largest files: " + ", ".join(f"{rel} {size_text(n)}" for rel, n in f["top"]))
            if f.get("search_largest"):
                print(f"- search/: {f['search_files']} files, {size_text(f['search_bytes'])}, largest "
                      f"{f['search_largest'][0]} {size_text(f['search_largest'][1])}")
        if row.clients:
            print(f"- chromium {row.clients['chromium']}")
            for name in ("agent", "browser"):
                for i, run in enumerate(row.clients[name]):
                    print(f"- {name} run {i + 1}: " + describe_run(name, run))


def describe_run(name: str, run: dict) -> str:
    if "failed" in run:
        head = f"FAILED: {run['failed']}"
    elif name == "agent":
        head = (f"{run['seconds']:.2f} s in all (imports {run['import']:.2f} s, open {run['open']:.2f} s, "
                f"+ search {run['search'] - run['open']:.2f} s, + load {run['load'] - run['search']:.2f} s; "
                f"{run['hits']} hits, loaded {run['first']})")
    else:
        head = (f"first results {run['first']:.2f} s, final results {run['results']:.2f} s "
                f"({run['after_key']:.2f} s after the last key; typing began at {run['typed']:.2f} s), "
                f"{run['shown']} results")
    requests = run["requests"]
    total = sum(r.sent for r in requests)
    by_size = sorted(requests, key=lambda r: -r.sent)
    listed = ", ".join(f"{r.path} {r.status} {size_text(r.sent)}" for r in by_size[:8])
    more = f", and {len(requests) - 8} more" if len(requests) > 8 else ""
    return f"{head}; {len(requests)} requests, {size_text(total)}: {listed}{more}"


# -- main


def available_memory() -> int:
    """MemAvailable, in bytes."""
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return 2**62


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,30000,100000", help="comma-separated numbers of synthetic skills")
    parser.add_argument("--runs", type=int, default=1, help="builds and client runs per size (default 1)")
    parser.add_argument("--mkdocs", action="store_true", help="also time MkDocs on each size up to 10,000")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="work in DIR, reuse the synthetic sources there, leave the last output")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--query", default=QUERY, help=f"what the agent searches and the browser types ({QUERY!r})")
    parser.add_argument("--max-memory", type=float, metavar="GB",
                        help="stop a build whose processes together hold more than this "
                             "(default: 80%% of the memory available when the run starts)")
    parser.add_argument("--settle", type=float, default=360, metavar="SECONDS",
                        help="wait up to this long while creating a file is slow (after deletions; default 360)")
    args = parser.parse_args()
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]

    machine = describe_machine()   # before this run loads the machine
    global MEMORY_LIMIT
    MEMORY_LIMIT = int(args.max_memory * 2**30) if args.max_memory else int(0.8 * available_memory())
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "skillsite")], check=False)
    root = args.keep or Path(tempfile.mkdtemp(prefix="skillsite-scale-"))
    root.mkdir(parents=True, exist_ok=True)
    TRASH.folder, TRASH.delete_now = root / "trash", False
    TRASH.empty()
    creation, _ = settled_file_creation_us(root, args.settle)
    rows = []
    for i, size in enumerate(sizes):
        if i:
            TRASH.empty()
            settled_file_creation_us(root, args.settle)
        work = root / str(size)
        work.mkdir(parents=True, exist_ok=True)
        rows.append(measure(size, work, args))
        if args.keep is None:
            TRASH.discard(work)
    print_tables(rows, args, machine, creation)
    TRASH.empty()
    if args.keep is None:
        import shutil
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
