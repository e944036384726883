"""A tag spelt several ways ("pdf" by the skills the list shows, "PDF" by copies it does not show
and by a hidden skill), on the home page in headless chromium: the closest tags under an empty
result name it as its chip does, as the shown skills write it (search.js reads docs.json, whose
rows hold copies and the tags of hidden ones; the build names the chips)."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from browsing import SITE_CONFIG, Served, open_home, shown_skills
from conftest import _build, _serve
from support import write_copies

pytestmark = pytest.mark.browser

#: reader three times (its canonical member, a listed copy, a hidden copy), a hidden skill and a
#: listed one; the shown skills write "pdf", the others "PDF" (sorted first); "ONLYCOPY" only copies have.
SKILLS = [("a/skills/reader", "reader", "tags: [pdf]\n"), ("m/skills/reader", "reader", "tags: [PDF, ONLYCOPY]\n"),
          ("z/.claude/skills/reader", "reader", "tags: [PDF, onlycopy]\nhidden: true\n"),
          ("h/skills/secret", "secret", "tags: [PDF]\nhidden: true\n"), ("b/skills/viewer", "viewer", "tags: [pdf]\n")]


def _tree(root: Path) -> Path:
    return write_copies(root, SKILLS, "Reading helper for documents of every size.")


@pytest.fixture(scope="module")
def names_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("tag-names")
    yield from _serve(_build([_tree(tmp / "skills")], tmp / "site", SITE_CONFIG))


@pytest.mark.parametrize(("query", "tag", "count"), [("pdff", "pdf", "2"), ("onlycopx", "ONLYCOPY", "1")])
def test_the_closest_tags_name_a_tag_as_its_chip_does(context, names_site: Served, query: str, tag: str,
                                                      count: str) -> None:
    page = context.new_page()
    open_home(page, names_site)
    chips = page.locator("#tagChips [data-tag]").evaluate_all("cs => cs.map(c => c.getAttribute('data-tag'))")
    assert sorted(chips) == ["ONLYCOPY", "pdf"]
    open_home(page, names_site, f"?q={query}")
    assert page.text_content("#searchStatus").startswith("No skill matches")
    offered = page.locator("#searchEmptyTags button").evaluate_all("bs => bs.map(b => b.getAttribute('data-tag'))")
    assert tag in offered and not {"PDF", "Pdf", "onlycopy"} & set(offered), offered
    button = page.locator(f"#searchEmptyTags button[data-tag='{tag}']")
    assert button.locator(".chip-count").text_content() == count
    button.click()
    page.wait_for_timeout(400)
    assert page.locator(f"#tagChips button[data-tag='{tag}'][aria-pressed='true']").count() == 1
    expected = ["a/skills/reader", "b/skills/viewer"] if tag == "pdf" else ["a/skills/reader"]
    assert sorted(shown_skills(page)) == expected
