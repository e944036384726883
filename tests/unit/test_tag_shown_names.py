"""How a tag spelt several ways is shown ("pdf", "PDF"): as the skills the lists show write it,
never as a copy they do not show (a listed copy, a hidden one) or a hidden skill writes it; the
copies spell only a tag none of the shown skills has.  The same name everywhere the build shows
tags: the home page's chips, the tag index, the tag pages (their name and folder) and the cards."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from skillsite.loader import Catalog
from skillsite.publish.build import build
from support import write_copies

CANONICAL = "a/skills/reader"
#: reader three times (its canonical member, a listed copy, a hidden copy), a hidden skill of its
#: own and two listed ones; the shown skills write "pdf", the others "PDF" (sorted first).
SKILLS = [(CANONICAL, "reader", "tags: [pdf]\n"),
          ("m/skills/reader", "reader", "tags: [PDF, ONLYCOPY]\n"),
          ("z/.claude/skills/reader", "reader", "tags: [Pdf, onlycopy]\nhidden: true\n"),
          ("h/skills/secret", "secret", "tags: [PDF]\nhidden: true\n"),
          ("b/skills/viewer", "viewer", "tags: [pdf]\n"),
          ("c/skills/printer", "printer", "tags: [pdf]\n")]
#: A chip: its page, its data-tag (the home page's: what search.js filters by), its text and count.
CHIP = re.compile(r'<a class="chip" href="([^"]+)"(?: data-tag="([^"]+)")?>([^<]+) '
                  r'<span class="chip-count">(\d+)</span>')


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("tag-names")
    write_copies(tmp / "skills", SKILLS, "Reading helper for documents of every size.")
    out = tmp / "site"
    assert build([tmp / "skills"], out).ok
    entries = {e.id: e for e in Catalog.open(out).entries}
    assert {entries[i].visibility.copy_of for i in ("m/skills/reader", "z/.claude/skills/reader")} == {CANONICAL}
    return out


def test_the_chips_and_the_tag_index_name_a_tag_as_the_shown_skills_write_it(site: Path) -> None:
    """"pdf" as the shown skills write it; "ONLYCOPY", which only copies have, as the first of theirs."""
    for page in ("index.html", "tags/index.html"):
        chips = CHIP.findall((site / page).read_text("utf-8"))
        named = {text: (href.split("tags/", 1)[1], tag or text, int(count)) for href, tag, text, count in chips}
        assert named["pdf"] == ("pdf/", "pdf", 3) and named["ONLYCOPY"][1:] == ("ONLYCOPY", 1), page
        assert sorted(named) == ["ONLYCOPY", "pdf"], page


def test_the_tag_page_and_every_card_show_the_shown_skills_spelling(site: Path) -> None:
    tag_page = (site / "tags" / "pdf" / "index.html").read_text("utf-8")
    assert '<span class="tag-name">pdf</span>' in tag_page and "3 skills." in tag_page
    for skill_id in (CANONICAL, "m/skills/reader", "z/.claude/skills/reader", "h/skills/secret", "b/skills/viewer"):
        page = (site / "skills" / skill_id / "index.html").read_text("utf-8")
        assert re.search(r'<a class="tag" href="[./]*tags/pdf/">pdf</a>', page), skill_id
        assert not re.search(r'class="tag"[^>]*>(PDF|Pdf)<', page), skill_id
