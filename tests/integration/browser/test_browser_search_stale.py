"""What the home page's search shows while the sharded index is still answering an earlier query,
in headless chromium on a small paged catalog (``shard_above: 1``, real HTTP server): an answer
that comes after the box was emptied is never drawn under the empty box."""
from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pytest

from browsing import SITE_CONFIG, Served, wait_until
from conftest import _build, _serve
from support import write_skill

pytestmark = pytest.mark.browser

#: Skills are numbered by id in the shards, four cards a file: "launch/rocket" (the fifth) has a
#: card file of its own.
SKILLS = {"bakery/bread": "Bakes sourdough bread at home.", "bakery/menu": "Plans a café menu of pastries.",
          "lang/hindi": "हिन्दी में अनुवाद करता है।", "lang/thai": "แปล สวัสดี เป็นภาษาอื่น",
          "launch/rocket": "Runs launch checklists for releases."}
STATE = """() => ({results: [...document.querySelectorAll('#searchResults > li a')].map(a => a.getAttribute('href')),
  hidden: document.getElementById('searchResults').hidden, status: document.getElementById('searchStatus').textContent,
  expanded: document.getElementById('searchBox').getAttribute('aria-expanded')})"""


@pytest.fixture(scope="module")
def small_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("stale")
    for rel, description in SKILLS.items():
        write_skill(tmp / "skills", rel, description=description)
    yield from _serve(_build([tmp / "skills"], tmp / "site", replace(SITE_CONFIG, shard_above=1)))


def _open(page, served: Served) -> None:
    page.goto(served.page_url("index.html"))
    wait_until(page, "() => performance.getEntriesByName('skillsite:index-ready').length > 0")


def _wait_for(page, held: list) -> None:
    """Until a request is in ``held`` (the routes' handlers run while the page is waited on)."""
    deadline = time.monotonic() + 10
    while not held:
        assert time.monotonic() < deadline, "no file requested"
        page.wait_for_timeout(20)


def test_an_answer_that_comes_after_the_box_was_emptied_is_not_drawn(context, small_site: Served) -> None:
    """Escape empties the box while the query's card file is on its way: when it arrives, the
    box stays without results (before: the emptied box showed the query's results, and Enter
    opened the first)."""
    page = context.new_page()
    held: list = []
    page.route("**/search/cards/**", lambda route: held.append(route))
    _open(page, small_site)
    page.fill("#searchBox", "launch")
    _wait_for(page, held)
    page.press("#searchBox", "Escape")
    assert page.input_value("#searchBox") == ""
    with page.expect_event("requestfinished", lambda r: "/search/cards/" in r.url):
        for route in held:
            route.continue_()
    page.wait_for_timeout(300)
    assert page.evaluate(STATE) == {"results": [], "hidden": True, "status": "", "expanded": "false"}
    assert not page.evaluate("() => document.documentElement.classList.contains('searching')")
