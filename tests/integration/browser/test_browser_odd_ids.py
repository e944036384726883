"""Skills whose ids hold '@', '+', '%', a space, '#', '?', quotes, parentheses and other
scripts, in headless chromium: found by the search of the home page (the inline index, and
the search shards of a paged catalog), each result opens the skill's page, whose raw SKILL.md
link and body link resolve to the published files; no request of the session fails (#46)."""
from __future__ import annotations

from dataclasses import replace
from typing import Iterator

import pytest

from browsing import SITE_CONFIG, Served, wait_until
from conftest import _build, _serve
from odd_ids import ODD_IDS, make_odd_ids

pytestmark = pytest.mark.browser

LAYOUTS = {"whole": SITE_CONFIG, "paged": replace(SITE_CONFIG, shard_above=3)}


@pytest.fixture(scope="module", params=list(LAYOUTS))
def odd_site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    repo = make_odd_ids(tmp_path_factory.mktemp("odd") / "repo").path
    yield from _serve(_build([repo], tmp_path_factory.mktemp(request.param) / "site", LAYOUTS[request.param]))


def search_and_open(page, served: Served, skill_id: str) -> None:
    """Search the home page for the skill's name and follow the result that links its id."""
    name = skill_id.rsplit("/", 1)[-1]
    page.goto(served.page_url("index.html"))
    page.fill("#searchBox", name)
    wait_until(page, "q => document.getElementById('searchBox').value === q && "
                     "document.querySelectorAll('#searchResults > li').length > 0", name)
    hrefs = page.locator("#searchResults > li > a").evaluate_all("links => links.map(a => a.href)")
    wanted = served.page_url(_page_url(skill_id))
    assert wanted in hrefs, f"no result for {skill_id!r} among {hrefs}"
    page.locator("#searchResults > li > a").nth(hrefs.index(wanted)).click()
    page.wait_for_load_state()


def _page_url(skill_id: str) -> str:
    from skillsite.agent.site_urls import url_of

    return url_of(f"skills/{skill_id}/")


def test_every_odd_id_is_found_opened_and_its_files_followed(context, odd_site: Served) -> None:
    page = context.new_page()
    failed: list[str] = []
    page.on("response", lambda response: failed.append(f"{response.status} {response.url}")
            if response.status >= 400 else None)
    for skill_id, files in ODD_IDS.items():
        search_and_open(page, odd_site, skill_id)
        assert page.url == odd_site.page_url(_page_url(skill_id))
        assert page.locator("h1").first.text_content().split() == [skill_id.rsplit("/", 1)[-1], "v1.1.0"]
        for text, path in (("the notes", files[0]), ("SKILL.md", "SKILL.md")):
            href = page.locator("main a", has_text=text).first.evaluate("a => a.href")
            got = page.request.get(href)  # the URL as the browser resolved it from the page
            assert got.ok and got.body() == (odd_site.root / "skills" / skill_id / path).read_bytes(), href
    assert failed == []
