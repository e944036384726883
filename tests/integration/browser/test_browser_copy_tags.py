"""Tags only a copy has, on the home page in headless chromium, on both pages (the lunr index of a
whole catalog and the search shards of a paged one): each has its chip, counting the group once,
and the chip shows the group's canonical member, as `skillsite search --tag` does; every chip's
count is what it shows, and the closest tags say the same count."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pytest

from browsing import SITE_CONFIG, Served, open_home, shown_skills
from conftest import _build, _serve
from skillsite.loader import Catalog
from support import write_copies

pytestmark = pytest.mark.browser

LAYOUTS = {"whole": SITE_CONFIG, "paged": replace(SITE_CONFIG, shard_above=2)}
CANONICAL = "a/skills/widget"
#: widget three times (its canonical member, a listed copy alone tagged "onlycopy", a hidden copy
#: alone tagged "hiddencopy"), gizmo and doohi; all tagged "shop".
SKILLS = [(CANONICAL, "widget", "tags: [shop]\n"), ("m/skills/widget", "widget", "tags: [shop, onlycopy]\n"),
          ("z/.claude/skills/widget", "widget", "tags: [shop, hiddencopy]\nhidden: true\n"),
          ("b/skills/gizmo", "gizmo", "tags: [shop]\n"), ("y/skills/doohi", "doohi", "tags: [shop]\n")]
SHOWN = {"onlycopy": [CANONICAL], "hiddencopy": [CANONICAL], "shop": [CANONICAL, "b/skills/gizmo", "y/skills/doohi"]}


def _tree(root: Path) -> Path:
    return write_copies(root, SKILLS, "Polishing helper for shiny things of every size.")


@pytest.fixture(scope="module", params=list(LAYOUTS))
def copy_tags_site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("copy-tags-" + request.param)
    yield from _serve(_build([_tree(tmp / "skills")], tmp / "site", LAYOUTS[request.param]))


@pytest.mark.parametrize("tag", list(SHOWN))
def test_each_tag_of_any_member_has_a_chip_that_shows_the_group_once(context, copy_tags_site: Served,
                                                                      tag: str) -> None:
    assert sorted(r.id for r in Catalog.open(copy_tags_site.root).search("", k=10, tags=[tag])) == SHOWN[tag]
    page = context.new_page()
    open_home(page, copy_tags_site)
    chip = page.locator(f"#tagChips button[data-tag='{tag}']")
    assert chip.count() == 1, f"no chip for {tag}"
    assert chip.locator(".chip-count").text_content() == str(len(SHOWN[tag]))
    chip.click()
    page.wait_for_timeout(400)   # the list filtered (a paged list: the shards' results of the tag)
    assert sorted(shown_skills(page)) == SHOWN[tag]


def test_the_closest_tags_count_a_copy_s_tag_as_its_chip(context, copy_tags_site: Served) -> None:
    page = context.new_page()
    open_home(page, copy_tags_site, "?q=onlycopx")
    assert page.text_content("#searchStatus").startswith("No skill matches")
    offered = page.locator("#searchEmptyTags button[data-tag='onlycopy'] .chip-count")
    assert offered.count() == 1 and offered.text_content() == "1"
