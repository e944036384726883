"""What the home page's search shows while the sharded index is still answering an earlier query,
in headless chromium on a small paged catalog (``shard_above: 1``, real HTTP server): an answer
that comes after the box was emptied is never drawn under the empty box, and a query whose files
cannot be read leaves no earlier query's results standing for its own."""
from __future__ import annotations

import time
from dataclasses import replace
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


def test_a_query_the_shards_cannot_answer_leaves_no_earlier_results(context, small_site: Served) -> None:
    """The card file a query needs is gone from the host (a catalog deployed again meanwhile):
    the page says the index cannot be read and shows no results (before: the previous query's
    results stayed under the new query, Enter opening the first)."""
    page = context.new_page()
    _open(page, small_site)
    drawn = "() => performance.getEntriesByName('skillsite:results:settled').length"
    page.fill("#searchBox", "bread")
    wait_until(page, f"() => ({drawn[6:]}) > 0")
    assert page.evaluate(STATE)["results"] == ["skills/bakery/bread/"]
    card = small_site.root / "search" / "cards" / "000" / "00001.json"     # launch/rocket's, not read yet
    moved = card.with_name("moved.json")
    card.rename(moved)
    try:
        page.fill("#searchBox", "launch")
        wait_until(page, "() => document.getElementById('searchStatus').textContent.includes('cannot be read')")
    finally:
        moved.rename(card)
    assert page.evaluate(STATE) == {"results": [], "hidden": True, "expanded": "false",
                                    "status": "The search index cannot be read; reload the page to try again."}
    page.press("#searchBox", "Enter")
    assert page.url == small_site.page_url("index.html?q=launch")
