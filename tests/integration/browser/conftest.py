"""Browser test fixtures: freshly built catalogs served on 127.0.0.1 and headless Debian chromium.

Playwright cannot download its own browser here: we drive the system chromium
(``$SKILLSITE_CHROMIUM``, else ``/usr/bin/chromium``, else ``chromium`` on PATH).
Tests are skipped, not failed, when playwright or chromium is missing.
"""
from __future__ import annotations

import os
import shutil
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import pytest

from skillsite.build import build
from skillsite.config import SiteConfig
from skillsite.serve import make_server

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "example-skills"
XSS = REPO / "tests" / "fixtures" / "xss"
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SITE_CONFIG = SiteConfig(title="Example skills", description="Skills for an imaginary engineering team.",
                         repo_url="https://github.com/example/skills")

# Script injected before any page script (not subject to the page's CSP): records CSP
# violations, so a test sees an injection the policy had to block.
RECORD_CSP = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI);
});
"""


def chromium_path() -> str | None:
    for candidate in (os.environ.get("SKILLSITE_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and os.path.exists(candidate):
            return candidate
    return None


@dataclass
class Served:
    """A built catalog served over HTTP; ``requests`` collects every URL a page asked for."""

    root: Path
    url: str
    requests: list[str] = field(default_factory=list)

    def page_url(self, rel: str = "") -> str:
        return self.url + rel


@pytest.fixture(scope="session")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    path = chromium_path()
    if path is None:
        pytest.skip("chromium is not installed (apt-get install chromium, or set SKILLSITE_CHROMIUM)")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


def _serve(root: Path) -> Iterator[Served]:
    server = make_server(root)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    try:
        yield Served(root, f"http://{host}:{port}/")
    finally:
        server.shutdown()
        server.server_close()


def _build(sources: list[Path], out: Path, config: SiteConfig = SITE_CONFIG) -> Path:
    result = build(sources, out, config, keep_going=True, base=str(REPO))
    assert result.ok, [str(d) for d in result.diagnostics if d.severity.value == "error"]
    return out


@pytest.fixture(scope="session")
def example_site(tmp_path_factory) -> Iterator[Served]:
    """``example-skills`` built with the real build (search index included) and served."""
    out = _build([EXAMPLES], tmp_path_factory.mktemp("example") / "site")
    assert (out / "search" / "lunr.json").is_file(), "the build wrote no lunr index"
    yield from _serve(out)


@pytest.fixture(scope="session")
def hostile_site(tmp_path_factory) -> Iterator[Served]:
    """The hostile fixture tree (``make_hostile.py``: static cases plus symlinks, huge and binary
    files) and the XSS tree (with hostile file and folder names added here), built together."""
    from make_hostile import make_hostile_tree  # tests/fixtures is on sys.path (tests/conftest.py)

    tmp = tmp_path_factory.mktemp("hostile")
    hostile = make_hostile_tree(tmp / "root")
    xss = tmp / "xss"
    shutil.copytree(XSS, xss)
    (xss / "xss-everywhere" / "references" / "\"><img src=x onerror=alert('filename')>.md").write_text(
        "# file with a hostile name\n", encoding="utf-8")
    odd = xss / "<svg onload=alert('folder')>"
    odd.mkdir()
    (odd / "SKILL.md").write_text(
        "---\nname: odd-folder\ndescription: \"A skill in a folder whose name is markup. <b>bold?</b>\"\n"
        "tags: [safe-tag]\n---\n\n# Odd folder\n\n[home](../xss-links/)\n", encoding="utf-8")
    out = _build([hostile, xss], tmp / "site")
    yield from _serve(out)


@pytest.fixture
def context(browser):
    """A fresh browser context (own storage) that records CSP violations."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.add_init_script(RECORD_CSP)
    yield ctx
    ctx.close()


def watch_requests(page, served: Served) -> list[str]:
    """Record every request of ``page`` into a list (and ``served.requests``)."""
    seen: list[str] = []

    def on_request(request) -> None:
        seen.append(request.url)
        served.requests.append(request.url)

    page.on("request", on_request)
    return seen


def wait_until(page, expression: str, arg=None, timeout: float = 10.0) -> None:
    """Poll a JavaScript function until it returns true.

    ``page.wait_for_function`` compiles its predicate with ``eval`` while polling, which
    the catalog's Content-Security-Policy (rightly) forbids; ``page.evaluate`` is not
    affected, so poll with it.
    """
    from playwright.sync_api import Error

    deadline = time.monotonic() + timeout
    while True:
        try:
            if page.evaluate(expression, arg):
                return
        except Error:  # the page is navigating (a reload): look again
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {expression}")
        page.wait_for_timeout(20)


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
