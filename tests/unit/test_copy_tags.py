"""A group of copies of one skill shows under every tag any published member has (a listed copy's
or a hidden one's, not only its canonical member's), counted once: the build's tag pages, tag
counts and chips agree with the tag filter of `skillsite search` and of the page, which let the
canonical member stand for a copy that has the tag."""
from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillsite.cli import main
from skillsite.config import SiteConfig
from skillsite.loader import Catalog
from skillsite.publish.build import build
from skillsite.publish.views import collect_tags, group_tags
from support import write_copies

CANONICAL = "a/skills/widget"
#: widget three times (its canonical member, a listed copy with tag "onlycopy", a hidden copy with
#: "hiddencopy"), and gizmo; all tagged "shop".
SKILLS = [(CANONICAL, "widget", "tags: [shop]\n"), ("m/skills/widget", "widget", "tags: [shop, onlycopy]\n"),
          ("z/.claude/skills/widget", "widget", "tags: [Shop, hiddencopy]\nhidden: true\n"),
          ("b/skills/gizmo", "gizmo", "tags: [shop]\n")]
#: Each tag's count: the widget group once under each tag of any member ("shop": as the shown skills
#: spell it, not as the hidden copy's "Shop", which sorts first).
COUNTS = {"hiddencopy": 1, "onlycopy": 1, "shop": 2}
CHIP = re.compile(r'<a class="chip" href="([^"]+)" data-tag="([^"]+)">[^<]+ <span class="chip-count">(\d+)</span>')


@pytest.fixture(scope="module", params=[100, 2], ids=["whole", "paged"])
def site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("copy-tags")
    write_copies(tmp / "skills", SKILLS, "Polishing helper for shiny things of every size.")
    out = tmp / "site"
    assert build([tmp / "skills"], out, replace(SiteConfig(), shard_above=request.param)).ok
    entries = {e.id: e for e in Catalog.open(out).entries}
    assert {e.visibility.copy_of for i, e in entries.items() if "widget" in i and i != CANONICAL} == {CANONICAL}
    return out


def test_a_group_counts_once_under_every_tag_of_any_member(site: Path) -> None:
    entries = Catalog.open(site).entries
    listed = [e for e in entries if e.visibility.in_lists]
    assert group_tags(entries, listed)[CANONICAL] == ("shop", "shop", "onlycopy", "Shop", "hiddencopy")
    tags = {t.name: t.count for t in collect_tags(listed, group_tags(entries, listed))}
    assert tags == COUNTS


def test_each_tag_of_a_copy_has_a_page_listing_the_group_as_search_filters(site: Path) -> None:
    home = (site / "index.html").read_text("utf-8")
    chips = {tag: (href, int(count)) for href, tag, count in CHIP.findall(home)}
    assert {tag: count for tag, (_, count) in chips.items()} == COUNTS
    catalog = Catalog.open(site)
    for tag, (href, count) in chips.items():
        pages = " ".join(p.read_text("utf-8") for p in (site / href).rglob("index.html"))
        listed = sorted(set(re.findall(r'href="(?:\.\./)+skills/([^"]+)/"', pages)) - {"m/skills/widget"})
        found = CliRunner().invoke(main, ["search", "", "--catalog", str(site), "--tag", tag, "-k", "10", "--json"])
        assert found.exit_code == 0, found.output
        assert listed == sorted(r.id for r in catalog.search("", k=10, tags=[tag])), tag
        assert len(listed) == count and f"{count} skill{'s' if count > 1 else ''}." in pages, tag
    copy_page = (site / "skills" / "m/skills/widget" / "index.html").read_text("utf-8")
    assert re.search(r'<a class="tag" href="[./]*' + re.escape(chips["onlycopy"][0]) + '"', copy_page)
