"""Copies of one skill in headless chromium (#46): the home page lists a group once with "N
copies", its search shows the group once (the inline index, and the search shards of a paged
catalog), and the "Show every copy" switch shows each copy at its own place."""
from __future__ import annotations

import shutil
from dataclasses import replace
from typing import Iterator

import pytest

from browsing import SITE_CONFIG, Served, wait_until
from conftest import _build, _serve
from support import SAMPLE

pytestmark = pytest.mark.browser

ORIGINAL = "obra__superpowers/skills/using-superpowers"
COPIES = ["team/skills/using-superpowers", "team/.claude/skills/using-superpowers",
          "team/.agents/skills/using-superpowers"]
LAYOUTS = {"whole": SITE_CONFIG, "paged": replace(SITE_CONFIG, shard_above=10)}


@pytest.fixture(scope="module", params=list(LAYOUTS))
def copies_site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp(request.param)
    second = tmp / "copies"
    for rel in COPIES:
        shutil.copytree(SAMPLE / ORIGINAL, second / rel)
    yield from _serve(_build([SAMPLE, second], tmp / "site", LAYOUTS[request.param]))


def results(page, query: str) -> list[str]:
    """The text of each search result, once the box has answered ``query``."""
    page.fill("#searchBox", query)
    wait_until(page, "q => document.getElementById('searchBox').value === q && "
                     "document.querySelectorAll('#searchResults > li').length > 0", query)
    page.wait_for_timeout(300)  # the shards draw their first results, then the rest
    return page.locator("#searchResults > li").all_inner_texts()


def test_a_group_is_one_card_and_one_result_until_every_copy_is_asked_for(context, copies_site: Served) -> None:
    page = context.new_page()
    page.goto(copies_site.page_url("index.html"))
    if (copies_site.root / "page").is_dir():  # a paged list: the group's card is on one of its pages
        page.goto(copies_site.page_url("page/" + next(p.parent.name for p in sorted((copies_site.root / "page").glob(
            "*/index.html")) if f"skills/{ORIGINAL}/" in p.read_text("utf-8")) + "/"))
    listed = page.locator(".skill-title a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    listed = [href.lstrip("./") for href in listed]   # page/2/'s links start with ../../
    assert f"skills/{ORIGINAL}/" in listed and not any(href.startswith("skills/team/") for href in listed)
    assert "4 copies" in page.locator(".skill-item", has_text="using-superpowers").first.inner_text()
    page.goto(copies_site.page_url("index.html"))
    grouped = [r for r in results(page, "using superpowers") if "using-superpowers" in r]
    assert len(grouped) == 1 and "4 copies" in grouped[0] and ORIGINAL in grouped[0]
    page.check("#searchCopies")
    # the results are drawn again (a sharded index draws its first results, then the rest): wait
    # for the group's four, then read what the page shows
    wait_until(page, "() => [...document.querySelectorAll('#searchResults > li')]"
                     ".filter(li => li.innerText.includes('using-superpowers')).length >= 4")
    every = [r for r in page.locator("#searchResults > li").all_inner_texts() if "using-superpowers" in r]
    assert len(every) == 4 and sum("a copy" in r for r in every) == 3
