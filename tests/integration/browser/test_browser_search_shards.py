"""The home page's search box on a catalog forced into search shards (``shard_above: 1``), in
headless chromium: it reads search/shards.json, the chunks of the typed words and the cards of
the results it shows (never docs.json or lunr.json), ranks as `skillsite search` does, keeps the
query and tags in the URL, highlights what matched, filters by tag, and offers the closest tags
when nothing matches."""
from __future__ import annotations

import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from browsing import Served, wait_until
from skillsite.loader import Catalog

pytestmark = pytest.mark.browser

RESULTS = "#searchResults > li"
DRAWN = "() => performance.getEntriesByName('skillsite:results:settled').length"
QUERIES = ["roll back a release", "restore a dropped postgres table from last nights backup",
           "shrink my bloated docker image", "review", "deplo", "write release notes for the new version",
           "incident outage", "sql migration locks"]


def cli_order(site: Path, query: str, tags: list[str] | None = None, n: int = 20) -> list[str]:
    """What `skillsite search` ranks, less the skills the site does not list: what the page shows."""
    catalog = Catalog.open(site)
    listed = {e.id for e in catalog.entries if e.visibility.listed}
    return [r.id for r in catalog.search(query, k=200, tags=tags) if r.id in listed][:n]


def result_ids(page) -> list[str]:
    hrefs = page.locator(f"{RESULTS} a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    return [h.removeprefix("skills/").removesuffix("/") for h in hrefs]


def open_home(page, served: Served, rel: str = "index.html") -> None:
    page.goto(served.page_url(rel))
    wait_until(page, "() => performance.getEntriesByName('skillsite:index-ready').length > 0")


def search(page, query: str) -> list[str]:
    """Type ``query`` into the box; the results the shards gave."""
    drawn = page.evaluate(DRAWN)
    page.fill("#searchBox", query)
    wait_until(page, f"() => ({DRAWN[6:]}) > {drawn}")
    return result_ids(page)


def test_the_box_ranks_as_skillsite_search(context, sharded_site: Served) -> None:
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url.removeprefix(sharded_site.url)))
    open_home(page, sharded_site)
    found = 0
    for query in QUERIES:
        ids = search(page, query)
        assert ids == cli_order(sharded_site.root, query), query
        found += bool(ids)
    assert found >= len(QUERIES) - 1
    searched = [r for r in requests if r.startswith("search/")]
    assert "search/shards.json" in searched and not any(r.endswith(("lunr.json", "docs.json")) for r in requests)
    assert all(r == "search/shards.json" or r.startswith(("search/terms/", "search/cards/")) for r in searched)
    assert len(searched) == len(set(searched))                     # every file fetched once
    assert page.evaluate("window.__cspViolations") == []


def test_a_query_in_the_url_is_searched_on_load_and_highlighted(context, sharded_site: Served) -> None:
    page = context.new_page()
    page.goto(sharded_site.page_url("index.html?q=roll+back+a+release"))
    wait_until(page, f"() => ({DRAWN[6:]}) > 0")
    assert result_ids(page) == cli_order(sharded_site.root, "roll back a release")
    first = page.locator(f"{RESULTS}:first-child mark").all_text_contents()
    assert {"release", "roll", "back"} <= {m.lower() for m in first}
    assert page.get_attribute("#searchResult0", "class") == "active"
    status = page.text_content("#searchStatus")
    assert status.startswith(f"{len(result_ids(page))} result")
    # typing changes the URL; the back button brings the previous query back
    search(page, "docker")
    assert parse_qs(urlsplit(page.url).query)["q"] == ["docker"]
    page.go_back()
    wait_until(page, "() => document.getElementById('searchBox').value === 'roll back a release'")


def test_tag_chips_filter_the_results_through_the_tag_shards(context, sharded_site: Served) -> None:
    page = context.new_page()
    open_home(page, sharded_site)
    everything = search(page, "database")
    chip = page.locator("#tagChips button[data-tag='database']")
    assert chip.count() == 1
    drawn = page.evaluate(DRAWN)
    chip.click()
    wait_until(page, f"() => ({DRAWN[6:]}) > {drawn}")
    tagged = result_ids(page)
    assert tagged == cli_order(sharded_site.root, "database", ["database"])
    assert tagged and set(tagged) <= set(everything)
    assert parse_qs(urlsplit(page.url).query)["tag"] == ["database"]


def test_nothing_found_offers_the_closest_tags(context, sharded_site: Served) -> None:
    page = context.new_page()
    open_home(page, sharded_site)
    assert search(page, "dockr flibbertigibbet") == []
    assert page.text_content("#searchStatus").startswith("No skill matches")
    assert "docker" in page.locator("#searchEmptyTags button").all_text_contents()[0]
    assert page.locator("#searchShowAll").count() == 1


SHARDS_DRAWN = "() => performance.getEntriesByName('skillsite:results:shards').length"


def test_the_first_results_are_drawn_then_the_rest(context, sharded_site: Served) -> None:
    """A query with more listed results than the first drawn (8): drawn twice, the first ones
    first, then all of them (up to 20), as `skillsite search` ranks them."""
    query = "use when"
    expected = cli_order(sharded_site.root, query)
    assert len(expected) > 8
    page = context.new_page()
    open_home(page, sharded_site)
    before = page.evaluate(SHARDS_DRAWN)
    assert search(page, query) == expected
    assert page.evaluate(SHARDS_DRAWN) == before + 2
    assert page.text_content("#searchStatus").startswith(f"{len(expected)} results.")
    assert page.locator(f"{RESULTS}.active").count() == 1 and page.get_attribute("#searchResult0", "class") == "active"
    assert len(set(result_ids(page))) == len(expected)


def test_an_older_query_never_overwrites_a_newer_one(context, sharded_site: Served) -> None:
    """The cards of the first query arrive after the second query was answered: they are not drawn."""
    page = context.new_page()
    held: list = []
    page.route("**/search/cards/**", lambda route: held.append(route))
    open_home(page, sharded_site)
    drawn = page.evaluate(DRAWN)
    page.fill("#searchBox", "use when")                       # waits for its cards (held)
    deadline = time.monotonic() + 10
    while not held:
        assert time.monotonic() < deadline, "no card file requested"
        page.wait_for_timeout(20)
    assert search(page, "dockr flibbertigibbet") == []        # needs no card: answered at once
    assert page.evaluate(DRAWN) == drawn + 1
    with page.expect_event("requestfinished", lambda r: "/search/cards/" in r.url):
        for route in held:
            route.continue_()
    page.wait_for_timeout(200)
    assert result_ids(page) == [] and page.evaluate(DRAWN) == drawn + 1
    assert page.text_content("#searchStatus").startswith("No skill matches")
    assert page.input_value("#searchBox") == "dockr flibbertigibbet"


def test_nothing_found_with_the_tags_counts_the_results_without_them(context, sharded_site: Served) -> None:
    page = context.new_page()
    open_home(page, sharded_site)
    drawn = page.evaluate(DRAWN)
    page.click("#tagChips button[data-tag='database']")
    # a paged list: the tag alone is searched across its pages; let that settle before typing
    wait_until(page, f"() => ({DRAWN[6:]}) > {drawn}")
    assert search(page, "docker image") == []                 # found, but not with the tag
    without = page.locator("#searchWithoutTags")
    assert without.text_content().startswith("1 skill matches without the tag filter")
    drawn = page.evaluate(DRAWN)
    without.click()
    wait_until(page, f"() => ({DRAWN[6:]}) > {drawn}")
    assert result_ids(page) == cli_order(sharded_site.root, "docker image")
    assert result_ids(page)[0] == "docker-image-slimming"
