"""Browser test fixtures: freshly built catalogs served on 127.0.0.1 and headless Debian chromium.

Playwright cannot download its own browser here: we drive the system chromium
(``$SKILLSITE_CHROMIUM``, else ``/usr/bin/chromium``, else ``chromium`` on PATH).
Tests are skipped, not failed, when playwright or chromium is missing.
"""
from __future__ import annotations

import shutil
import threading
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pytest

from browsing import ARTIFACTS, CHROMIUM_ARGS, EXAMPLES, RECORD_CSP, REPO, SITE_CONFIG, XSS, Served, chromium_path
from skillsite.publish.build import build
from skillsite.config import SiteConfig
from skillsite.publish.serve import make_server

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
def paged_example_site(tmp_path_factory) -> Iterator[Served]:
    """``example-skills`` built as a catalog above ``shard_above`` (3): lists of 3 cards a page."""
    out = _build([EXAMPLES], tmp_path_factory.mktemp("paged") / "site", replace(SITE_CONFIG, shard_above=3))
    assert (out / "page" / "2" / "index.html").is_file(), "the build paginated nothing"
    yield from _serve(out)


@pytest.fixture(scope="session")
def sharded_site(tmp_path_factory) -> Iterator[Served]:
    """``example-skills`` forced into search shards (``shard_above: 1``): no lunr index."""
    out = _build([EXAMPLES], tmp_path_factory.mktemp("sharded") / "site", replace(SITE_CONFIG, shard_above=1))
    assert (out / "search" / "shards.json").is_file() and not (out / "search" / "lunr.json").exists()
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


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
