"""Letters past U+FFFF (Gothic "𐌰", "𐍁") on the home page's search, in headless chromium,
on both pages (the lunr index of a whole catalog and the search shards of a paged one): a word
counts its letters as `skillsite search` does. The lunr page counted each such letter twice (its
UTF-16 units), so a word of two of them matched as a prefix there once search/lunr.json was in,
and the closest tags took "א" written for "𐍀" for two edits, offering nothing.  (Not CJK letters:
a run of them is searched as its pairs, whatever its length: test_browser_search_cjk.py.)"""
from __future__ import annotations

import json
from dataclasses import replace
from typing import Iterator
from urllib.parse import quote

import pytest

from browsing import SITE_CONFIG, Served, open_home, shown_skills, wait_until
from conftest import _build, _serve
from skillsite.loader import Catalog
from support import write_skill

pytestmark = pytest.mark.browser

LAYOUTS = {"whole": SITE_CONFIG, "paged": replace(SITE_CONFIG, shard_above=1)}
POEMS = "\U00010330\U00010331\U00010332"             # 𐌰𐌱𐌲, three letters
TAG = "\U00010340\U00010341\U00010342\U00010343"     # 𐍀𐍁𐍂𐍃, four letters
MISSPELT = "\u05d0\U00010341\U00010342\U00010343"    # א𐍁𐍂𐍃: its first letter one below U+FFFF
RESULTS = "() => performance.getEntriesByName('skillsite:results:lunr').length" \
          " + performance.getEntriesByName('skillsite:results:settled').length"


@pytest.fixture(scope="module", params=list(LAYOUTS))
def astral_site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("astral-" + request.param)
    tags = json.dumps([TAG], ensure_ascii=False)      # the letters themselves, not escaped surrogate pairs
    write_skill(tmp / "skills", "food/poems", f"name: poems\ndescription: Writes {POEMS} poems.\ntags: {tags}\n")
    write_skill(tmp / "skills", "food/bread", description="Bakes sourdough bread at home.")
    yield from _serve(_build([tmp / "skills"], tmp / "site", LAYOUTS[request.param]))


def test_a_word_of_two_such_letters_is_no_prefix(context, astral_site: Served) -> None:
    """"𐌰𐌱 " (settled: no word being typed) finds what the CLI finds, nothing; "𐌰𐌱𐌲 " the skill."""
    for query, expected in ((POEMS[:2] + " ", []), (POEMS + " ", ["food/poems"])):
        assert [r.id for r in Catalog.open(astral_site.root).search(query)] == expected
        page = context.new_page()
        open_home(page, astral_site, "?q=" + quote(query))
        wait_until(page, RESULTS)      # lunr's ranking or the shards' drew the results, not the plain-text match
        page.wait_for_timeout(400)
        assert shown_skills(page) == expected, query
        assert page.text_content("#searchStatus").startswith("No skill matches") == (not expected)


@pytest.mark.parametrize("query, offered", [(MISSPELT, TAG), (TAG[:3] + "\u05d1", TAG)])
def test_the_closest_tags_count_such_a_letter_once(context, astral_site: Served, query: str, offered: str) -> None:
    """"א𐍁𐍂𐍃" for the tag "𐍀𐍁𐍂𐍃" is one letter misspelt; so is "𐍀𐍁𐍂ב" (a letter below
    U+FFFF misspelt beside those past it)."""
    assert list(Catalog.open(astral_site.root).search(query)) == []
    page = context.new_page()
    open_home(page, astral_site, "?q=" + quote(query))
    assert page.text_content("#searchStatus").startswith("No skill matches")
    tags = page.locator("#searchEmptyTags button[data-tag]").evaluate_all(
        "bs => bs.map(b => [b.getAttribute('data-tag'), b.querySelector('.chip-count').textContent])")
    assert tags == [[offered, "1"]]
