"""One tag spelt two ways on the home page, in headless chromium, on both pages (the lunr index of
a whole catalog and the search shards of a paged one): "café" written composed and "CAFÉ"
written decomposed (as a macOS keyboard or file name may give it) are one chip that counts and
filters both skills, a link asking for either spelling presses that chip, and the closest tags
offer it once."""
from __future__ import annotations

import json
import unicodedata
from dataclasses import replace
from pathlib import Path
from typing import Iterator
from urllib.parse import quote

import pytest

from browsing import SITE_CONFIG, Served, open_home, shown_skills
from conftest import _build, _serve
from support import write_skill

pytestmark = pytest.mark.browser

LAYOUTS = {"whole": SITE_CONFIG, "paged": replace(SITE_CONFIG, shard_above=2)}
CAFE = "caf\u00e9"
TAGS = {"bakery/menu": [CAFE, "menu"], "bakery/recipes": [unicodedata.normalize("NFD", "CAFÉ"), "baking"],
        "bakery/bar": ["cafe", "drinks"]}
BOTH = ["bakery/menu", "bakery/recipes"]


def _tree(root: Path) -> Path:
    for skill_id, tags in TAGS.items():
        name = skill_id.rsplit("/", 1)[1]
        write_skill(root, skill_id, f"name: {name}\ndescription: Serves {name} things.\ntags: {json.dumps(tags)}\n")
    return root


@pytest.fixture(scope="module", params=list(LAYOUTS))
def tags_site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("tags-" + request.param)
    yield from _serve(_build([_tree(tmp / "skills")], tmp / "site", LAYOUTS[request.param]))


def _cafe_chips(page) -> list[tuple[str, str, str]]:
    """(tag, count, pressed) of each chip of the tag café, however spelt."""
    chips = page.locator("#tagChips [data-tag]").evaluate_all(
        "cs => cs.map(c => [c.getAttribute('data-tag'), (c.querySelector('.chip-count') || {}).textContent || '',"
        " c.getAttribute('aria-pressed') || ''])")
    return [tuple(c) for c in chips if unicodedata.normalize("NFC", c[0].lower()) == CAFE]


def test_one_chip_counts_and_filters_both_spellings(context, tags_site: Served) -> None:
    page = context.new_page()
    open_home(page, tags_site)
    [(tag, count, _)] = _cafe_chips(page)
    assert count == "2"
    page.click(f"#tagChips button[data-tag='{tag}']")
    page.wait_for_timeout(400)
    assert sorted(shown_skills(page)) == BOTH
    assert _cafe_chips(page) == [(tag, "2", "true")]


@pytest.mark.parametrize("asked", [CAFE, unicodedata.normalize("NFD", "Café"), "CAF\u00c9"])
def test_a_link_asking_for_either_spelling_presses_the_chip(context, tags_site: Served, asked: str) -> None:
    page = context.new_page()
    open_home(page, tags_site, f"?tag={quote(asked)}")
    assert [pressed for _, _, pressed in _cafe_chips(page)] == ["true"]     # that chip, no second one
    assert sorted(shown_skills(page)) == BOTH
    open_home(page, tags_site, f"?q=serves&tag={quote(asked)}")
    assert sorted(shown_skills(page)) == BOTH


def test_the_closest_tags_offer_one_tag_of_both_spellings(context, tags_site: Served) -> None:
    page = context.new_page()
    open_home(page, tags_site, "?q=" + quote("kaf\u00e9"))      # café misspelt: no skill, the closest tag
    assert page.text_content("#searchStatus").startswith("No skill matches")
    offered = page.locator("#searchEmptyTags button[data-tag]").evaluate_all(
        "bs => bs.map(b => [b.getAttribute('data-tag'), b.querySelector('.chip-count').textContent])")
    assert [(unicodedata.normalize("NFC", t.lower()), n) for t, n in offered] == [(CAFE, "2")]
