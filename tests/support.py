"""Helpers shared by the tests: repository paths, writing skill trees, comparing trees, serving folders.

Imported as ``support`` (``tests/`` is on the path through its conftest); a module of its own name,
because several conftest.py files would shadow each other.
"""
from __future__ import annotations

import ast
import contextlib
import json
import importlib.util
import os
import shutil
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"
SAMPLE = REPO / "tests" / "data" / "sample-corpus"
EXAMPLES = REPO / "example-skills"


@dataclass(frozen=True)
class RealSkills:
    """A tree of real skills and what validating it gives (see tests/data/sample-corpus/README.md)."""

    name: str
    path: Path
    skills: int          # folders holding a SKILL.md
    left_out: int        # of which unreadable or without a description
    spec_valid: int      # valid under --profile spec


#: The checked-in sample, and the full shared corpus when it is beside the repository.
REAL_SKILLS = [RealSkills("sample", SAMPLE, 48, 2, 22)] + (
    [RealSkills("shared-corpus", CORPUS, 1091, 31, 849)] if CORPUS.is_dir() else [])
sys.path.insert(0, str(REPO / "tests" / "fixtures"))


def severities(code: str, path: str, text: str) -> list[str]:
    """The severity of each finding ``code`` the audit makes of ``text`` read as the file ``path``."""
    from skillsite.audit.engine import audit_document

    return [f.severity for f in audit_document(path, text) if f.code == code]


def load_script(path: Path) -> ModuleType:
    """A script of the repository (a benchmark) loaded as a module of its file's name, to test its functions."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_cli_in(project: Path, *args: str) -> str:
    """A ``skillsite`` command run in this process from the folder ``project``; its standard output
    (the test fails when the command does)."""
    from click.testing import CliRunner

    from skillsite.cli import main

    before = os.getcwd()
    os.chdir(project)
    try:
        done = CliRunner().invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(before)
    assert done.exit_code == 0, done.output
    return done.stdout


def file_identity(path: Path) -> tuple[int, int, int, int]:
    """What writing a file anew changes: its inode, size, modification and change times."""
    found = os.lstat(path)
    return found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns


def edit_one_byte_in_place(report: Path) -> None:
    """One byte changed in the file itself (its inode, size and modification time kept)."""
    found = os.stat(report)
    with open(report, "r+b") as file:
        file.seek(found.st_size // 2)
        byte = file.read(1)
        file.seek(found.st_size // 2)
        file.write(b"Z" if byte != b"Z" else b"Y")
    os.utime(report, ns=(found.st_atime_ns, found.st_mtime_ns))


def write_skill(root: Path, rel: str, frontmatter: str | None = None, body: str = "# Body\n",
                name: str | None = None, description: str = "Does a thing. Use when testing.") -> Path:
    """Write ``root/rel/SKILL.md``; by default with a valid name (the folder's) and description."""
    folder = root / rel
    folder.mkdir(parents=True, exist_ok=True)
    if frontmatter is None:
        frontmatter = f"name: {name or folder.name}\ndescription: {description}\n"
    (folder / "SKILL.md").write_text(f"---\n{textwrap.dedent(frontmatter)}---\n{body}", encoding="utf-8")
    return folder


#: A body long enough for copies to be told by their whole text, not by name and description alone.
COPY_BODY = "\n# Title\n\nA body long enough to be one of its own, with several words in it, not short at all.\n" * 3


def write_copies(root: Path, skills: list[tuple[str, str, str]], description: str) -> Path:
    """Under ``root``, a SKILL.md at each ``(rel, name, extra frontmatter)``, all with ``description``
    and :data:`COPY_BODY` (then the name): skills of one name are copies of each other."""
    for rel, name, extra in skills:
        (root / rel).mkdir(parents=True)
        (root / rel / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n{extra}---\n"
                                             f"{COPY_BODY}{name}\n", encoding="utf-8")
    return root


def as_an_ordinary_user() -> list[str]:
    """A command prefix that runs without root's right to read any file (as root: ``setpriv``
    dropping it), so a file or folder of mode 000 cannot be read, as for every other user."""
    if os.geteuid() != 0:
        return []
    caps = "-dac_override,-dac_read_search"
    return ["setpriv", f"--bounding-set={caps}", f"--inh-caps={caps}"]


def append_line(path: Path, line: str) -> None:
    """A line added to a file, dated a minute ago (older than the racy window, unlike its folder:
    no re-read forced for that reason alone)."""
    path.write_text(path.read_text() + f"\n{line}\n")
    stamp = time.time() - 60
    os.utime(path, (stamp, stamp))


def tree_bytes(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` by relative path: two equal results mean byte-identical trees."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


class _QuietHandler(__import__("http.server").server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # keep test output clean
        pass


def record_kept_rows(monkeypatch) -> dict[str, list[str]]:
    """Record, by section, the skill of every row a resident build makes anew (rather than takes
    as kept) of four kinds it keeps per skill: a row of the catalog-wide checks, a grouping
    candidate, a publication taken from the cache and a card's tags."""
    from skillsite import cache as cache_module
    from skillsite.publish import page_pieces, skills
    from skillsite.source import catalog

    watched = {catalog.KEPT_ROW, catalog.CANDIDATE, skills.TAKEN, page_pieces.TAGGED}
    made: dict[str, list[str]] = {section: [] for section in watched}

    def recording(resident, section, key, source, inputs, make):
        return cache_module.kept_or_made(resident, section, key, source, inputs,
                                         lambda: (section in watched and made[section].append(key)) or make())

    for module in (catalog, skills, page_pieces):
        monkeypatch.setattr(module, "kept_or_made", recording)
    return made


@contextlib.contextmanager
def serve_process(cwd: Path, *options: str) -> Iterator[list[str]]:
    """A real ``skillsite serve src --port 0 OPTIONS`` started in ``cwd`` (its temporary folder
    there too): yields what it said on standard error up to its "Serving ..." line (or up to its
    end, when it stopped), and stops it with SIGTERM (a test run in the background ignores SIGINT,
    and so would serve)."""
    import subprocess

    env = {**os.environ, "TMPDIR": str(cwd), "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-m", "skillsite", "serve", "src", "--port", "0", *options],
                            cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stderr is not None
        said = [proc.stderr.readline()]
        while said[-1] and not said[-1].startswith("Serving "):
            said.append(proc.stderr.readline())
        yield said
    finally:
        proc.terminate()
        proc.communicate(timeout=60)


def served_port(serving: str) -> int:
    """The port of serve's "Serving http://HOST:PORT/ ..." line."""
    return int(serving.split()[1].rsplit(":", 1)[1].rstrip("/"))


def serve_folder(folder: Path):
    """Serve ``folder`` on 127.0.0.1 (ephemeral port) in a thread; returns (base_url, stop)."""
    import functools
    import threading
    from http.server import ThreadingHTTPServer

    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def stop() -> None:
        server.shutdown()
        server.server_close()

    return f"http://127.0.0.1:{server.server_address[1]}", stop


def served_edited_catalog(built: Path, tmp_path: Path, edit):
    """A copy of the catalog ``built`` whose skills.json ``edit`` changed (given the manifest
    object, as a hostile host could write it), served on 127.0.0.1 and opened by the loader:
    yields the Catalog once (iterate with ``for``)."""
    import json
    import shutil

    from skillsite.loader import Catalog

    site = tmp_path / "site"
    shutil.copytree(built, site)
    manifest = json.loads((site / "skills.json").read_text(encoding="utf-8"))
    edit(manifest)
    (site / "skills.json").write_text(json.dumps(manifest), encoding="utf-8")  # ensure_ascii: "\udcff" stays
    base, stop = serve_folder(site)
    try:
        yield Catalog.open(f"{base}/skills.json", cache_dir=tmp_path / "cache")
    finally:
        stop()


def assert_searches_find(site: Path, queries) -> None:
    """Each ``(query, id)`` of ``queries`` finds that one skill, and only it, through ``skillsite
    search`` and through the loader."""
    import json

    from click.testing import CliRunner

    from skillsite.cli import main
    from skillsite.loader import Catalog

    for query, found in queries:
        result = CliRunner().invoke(main, ["search", query, "--catalog", str(site), "--json"])
        assert result.exit_code == 0, result.output
        assert [r["id"] for r in json.loads(result.output)] == [found], query
        assert [r.id for r in Catalog.open(site).search(query)] == [found], query


def run_node(*args: str, stdin: object) -> object:
    """The JSON a node script (``args``) prints, given ``stdin`` as JSON: the page's own search
    code run outside a browser (tests/js)."""
    import json
    import shutil
    import subprocess

    node = shutil.which("node")
    assert node and (REPO / "node_modules" / "lunr" / "lunr.js").is_file(), \
        "node and node_modules/lunr are needed (.ci/run installs them)"
    done = subprocess.run([node, *args], input=json.dumps(stdin), capture_output=True, text=True, encoding="utf-8",
                          timeout=120, check=True)
    return json.loads(done.stdout)


def page_tokenize(texts: list[str]) -> object:
    """The terms ranking.js's tokenize makes of each of ``texts`` (with lunr.js's stemmer), in node."""
    import json

    ranking, lunr = REPO / "templates" / "static" / "ranking.js", REPO / "node_modules" / "lunr"
    script = (f"const lunr = require({json.dumps(str(lunr))}), page = require({json.dumps(str(ranking))});"
              "const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "process.stdout.write(JSON.stringify(input.map((t) => page.tokenize(lunr, t))));")
    return run_node("-e", script, stdin=texts)


def assert_lunr_js_finds_as_lunr_py(site: Path, queries: list[str], found: list[str]) -> None:
    """Real lunr.js and lunr.py, over the lunr index of ``site``, each find the one skill of
    ``found`` for the query at the same place of ``queries``."""
    import json

    from skillsite.search import lunr_reference

    index = site / "search" / "lunr.json"
    theirs = run_node(str(REPO / "tests" / "js" / "lunr_query.js"), "search", str(index), "-", stdin=queries)
    ours = lunr_reference.load_lunr(index.read_bytes())
    rows = [row[0] for row in json.loads((site / "search" / "docs.json").read_text("utf-8"))["docs"]]
    for query, expected, js in zip(queries, found, theirs):
        assert [rows[int(r["ref"])] for r in js] == [rows[int(r["ref"])] for r in ours.search(query)] == [expected], \
            query


def assert_pages_find_and_mark(site: Path, layout: str, cases: list[tuple[str, str, str]]) -> list[list[Any]]:
    """Each ``(query, id, word)`` of ``cases`` finds that one skill, and only it, through the
    loader and the page's search of ``site`` (``layout`` "whole": lunr's ranking and the plain-text
    match, through tests/js/browser_search.js; "sharded": the shards', through
    tests/js/shard_search.js), whose first page marks ``word`` in it.  The pages' hits, per query."""
    from skillsite.loader import Catalog

    queries = [query for query, _, _ in cases]
    if layout == "whole":
        out = run_node(str(REPO / "tests" / "js" / "browser_search.js"), str(site), "-", stdin=queries)
        pages = [out["lunr"], out["text"]]
    else:
        pages = [run_node(str(REPO / "tests" / "js" / "shard_search.js"), str(site), "-", stdin=queries)["hits"]]
    catalog = Catalog.open(site)
    for query, found, _ in cases:
        assert [r.id for r in catalog.search(query)] == [found], query
    for hits in pages:
        assert [[h["id"] for h in per_query] for per_query in hits] == [[found] for _, found, _ in cases]
    for per_query, (query, _, marked) in zip(pages[0], cases):
        assert marked in per_query[0]["marks"], (query, per_query[0]["marks"])
    return pages


def whole_and_sharded(tmp: Path, descriptions: dict[str, str]) -> dict[str, Path]:
    """Skills of these ids and descriptions built as a whole catalog (a lunr index, ``"whole"``)
    and as a sharded one (``"sharded"``), under ``tmp``."""
    from dataclasses import replace

    from skillsite.config import SiteConfig
    from skillsite.publish.build import build

    for skill_id, description in descriptions.items():
        write_skill(tmp / "skills", skill_id, description=description)
    built = {}
    for layout, shard_above in (("whole", 100), ("sharded", 1)):
        built[layout] = tmp / layout
        assert build([tmp / "skills"], built[layout], replace(SiteConfig(), shard_above=shard_above)).ok
    return built


class CountingServer:
    """Serves a folder on 127.0.0.1 as a static host does for the loader (an ETag per file, 304
    when If-None-Match matches), recording each request's path and status; ``stop()`` when done.
    A path in :attr:`unavailable` is answered 503 (a host down for now) until taken out."""

    def __init__(self, root: Path) -> None:
        import hashlib
        import threading
        from email.utils import formatdate
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.root = root
        self.requests: list[tuple[str, int]] = []
        self.held: HeldRequests | None = None
        self.unavailable: set[str] = set()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                if server.held is not None:
                    server.held.wait(self.path)
                file = root / self.path.lstrip("/")
                data = file.read_bytes() if file.is_file() else None
                etag = f'"{hashlib.sha256(data).hexdigest()[:16]}"' if data is not None else ""
                code = 404 if data is None else 304 if self.headers.get("If-None-Match") == etag else 200
                code = 503 if self.path in server.unavailable else code
                server.requests.append((self.path, code))
                self.send_response(code)
                self.send_header("ETag", etag)
                self.send_header("Last-Modified", formatdate(1_700_000_000, usegmt=True))
                body = data if code == 200 else b""
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"

    def take(self) -> list[tuple[str, int]]:
        """The requests since the last call: (path, status)."""
        taken, self.requests = self.requests, []
        return taken

    def take_paths(self) -> list[str]:
        """The paths asked for since the last call."""
        return [path for path, _ in self.take()]

    def hold(self, prefix: str) -> HeldRequests:
        """Hold every request for a path starting with ``prefix`` until released (a host slow to answer)."""
        self.held = HeldRequests(prefix)
        return self.held

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class HeldRequests:
    """Requests a :class:`CountingServer` holds, answered once :meth:`release` is called (or after
    ``seconds``, so that a server whose client never releases them is not held for ever)."""

    def __init__(self, prefix: str, seconds: float = 30) -> None:
        import threading

        self.prefix, self.seconds = prefix, seconds
        self.reached, self.released = threading.Event(), threading.Event()

    def wait(self, path: str) -> None:
        if path.startswith(self.prefix):
            self.reached.set()
            if not self.released.wait(self.seconds):
                self.released.set()  # held long enough: those after it are answered at once

    def release(self) -> None:
        self.released.set()


def python312() -> str:
    """A Python 3.12 with the agentskills-* packages (.ci/run's SKILLSITE_PY312, or this clone's
    .venv312); skips with a "python3.12 missing" reason, which only a machine .ci/run found
    without Python 3.12 allows (see tests/conftest.py)."""
    import pytest

    found = os.environ.get("SKILLSITE_PY312") or str(REPO / ".venv312" / "bin" / "python")
    if not Path(found).is_file():
        pytest.skip(f"python3.12 missing: no {found} (set SKILLSITE_PY312, or make .venv312 as .ci/run does)")
    return found


def run_async_in_thread(func: Any, *args: Any, timeout: float = 120) -> Any:
    """``anyio.run(func, *args)`` in a thread of its own, its result or exception passed back:
    another test's fixture (Playwright's sync API) may keep an event loop running in this
    thread, and anyio refuses to nest loops."""
    import threading

    import anyio

    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = anyio.run(func, *args)
        except BaseException as exc:  # re-raised in the test's thread
            outcome["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(timeout=timeout)
    assert not thread.is_alive(), f"the session did not finish in {timeout:.0f} s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


# ---------------------------------------------------------------- the package's import graph

def module_name(path: Path) -> str:
    """The dotted name of a module file of the package."""
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path, modules: set[str]) -> set[str]:
    """The package's modules a file imports anywhere in it (in functions and under TYPE_CHECKING too)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
            found.update(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names)
    return {m for m in found if m in modules and m != name}


def import_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports, for every module of skillsite."""
    files = {module_name(path): path for path in (REPO / "skillsite").rglob("*.py")}
    return {name: imported(path, set(files)) for name, path in files.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def grown_catalog(site: Path, into: Path, count: int, malformed: frozenset[int], with_files: bool = False) -> Path:
    """A copy of the built catalog ``site`` at ``into`` with ``count`` more user-invocable skills
    after its own (copies of test-first's entry as gen-00000..., each with its own id and command;
    ``with_files``: its folder copied too), those numbered in ``malformed`` with a malformed
    ``files`` field (an MCP server must leave them out when a request reaches them)."""
    shutil.copytree(site, into)
    data = json.loads((into / "skills.json").read_text("utf-8"))
    model = next(e for e in data["skills"] if e["id"] == "test-first")
    for i in range(count):
        entry = {**model, "id": f"gen-{i:05d}", "name": f"gen-{i:05d}", "command": f"gen_{i:05d}", "children": []}
        data["skills"].append({**entry, "files": "oops"} if i in malformed else entry)
        if with_files:
            shutil.copytree(into / "skills" / "test-first", into / "skills" / entry["id"])
    (into / "skills.json").write_text(json.dumps(data), "utf-8")
    return into
