"""Paginated lists above ``shard_above`` (issue 29): the home page, tag and risk pages show a page
of cards each and link the others (``page/2/`` ...); a smaller catalog lists everything on one
page, as before."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from support import EXAMPLES
from skillsite.config import SiteConfig
from skillsite.loader import Catalog
from skillsite.publish.build import build
from skillsite.publish.views import listing_url, page_count, pager

CARD = re.compile(r'<h[23] class="skill-title"><a href="([^"]+)">')
PAGER = re.compile(r'<nav class="pager" aria-label="([^"]+)">(.*?)</nav>', re.S)


@pytest.fixture(scope="module")
def one_a_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example catalog with ``shard_above: 1``: one card a page in every list."""
    out = tmp_path_factory.mktemp("one") / "_site"
    assert build([EXAMPLES], out, SiteConfig(shard_above=1)).ok
    return out


def listing(site: Path, base: str) -> list[tuple[str, list[str]]]:
    """(folder, skill pages linked) of every page of the list at ``base``, found by following the
    pager's "next" links from its first page."""
    pages, folder = [], base
    while folder is not None:
        html = (site / folder / "index.html").read_text("utf-8")
        root = "../" * folder.count("/")
        pages.append((folder, [href.removeprefix(root) for href in CARD.findall(html)]))
        following = re.search(r'<a href="([^"]+)" rel="next">', html)
        folder = following.group(1).removeprefix(root) if following else None
    return pages


def listed_ids(site: Path) -> list[str]:
    return [e.id for e in Catalog.open(site).entries if e.visibility.listed]


def test_every_listed_skill_is_on_exactly_one_page_of_the_home_list(one_a_page: Path) -> None:
    pages = listing(one_a_page, "")
    ids = listed_ids(one_a_page)
    assert [folder for folder, _ in pages] == ["", *(f"page/{n}/" for n in range(2, len(ids) + 1))]
    assert [links for _, links in pages] == [[f"skills/{i}/"] for i in ids]
    assert not (one_a_page / "page" / "1").exists() and not (one_a_page / "page" / str(len(ids) + 1)).exists()


def test_tag_and_risk_lists_are_paginated_too(one_a_page: Path) -> None:
    entries = [e for e in Catalog.open(one_a_page).entries if e.visibility.listed]
    for base, members in (("tags/release/", [e.id for e in entries if "release" in e.tags]),
                          ("risk/medium/", [e.id for e in entries if e.risk == "medium"])):
        pages = listing(one_a_page, base)
        assert [links for _, links in pages] == [[f"skills/{i}/"] for i in members] and len(members) > 1
        assert pages[-1][0] == f"{base}page/{len(members)}/"


def test_a_page_names_itself_and_marks_the_current_page(one_a_page: Path) -> None:
    html = (one_a_page / "tags/release/page/2/index.html").read_text("utf-8")
    assert "<title>release, page 2 of 4 · Agent skills</title>" in html
    (label, nav), = PAGER.findall(html)
    assert label == "Pages of tag release" and "Page 2 of 4" in nav
    assert re.findall(r'<a href="([^"]+)" aria-current="page">(\d+)</a>', nav) \
        == [("../../../../tags/release/page/2/", "2")]
    assert '<a href="../../../../tags/release/" rel="prev">Previous page</a>' in nav
    home = (one_a_page / "index.html").read_text("utf-8")
    assert '<a href="./" aria-current="page">1</a>' in home and 'rel="prev"' not in home
    assert '<strong>12</strong> skills' in home   # the whole list's count, not the page's
    assert "<title>All skills, page 3 of 12 · Agent skills</title>" in (one_a_page / "page/3/index.html").read_text()


def test_a_small_catalog_lists_everything_on_one_page(site: Path) -> None:
    assert not (site / "page").exists() and not list(site.glob("tags/*/page"))
    home = (site / "index.html").read_text("utf-8")
    assert 'class="pager"' not in home and len(CARD.findall(home)) == 12
    assert '<span class="list-count" id="listCount">12</span>' in home


def test_the_pager_links_nearby_pages_and_jumps_far() -> None:
    nav = pager("tags/x/", 500, 1000, "Pages of tag x")
    numbers = [item["number"] for item in nav["items"] if not item["gap"]]
    assert numbers == [1, 400, 490, 498, 499, 500, 501, 502, 510, 600, 1000]
    assert sum(item["gap"] for item in nav["items"]) == 6
    assert (nav["prev"], nav["next"]) == ("tags/x/page/499/", "tags/x/page/501/")
    assert pager("", 1, 1, "Pages of all skills") is None
    first = pager("", 1, 3, "Pages of all skills")
    assert first["prev"] is None and [i["url"] for i in first["items"]] == ["", "page/2/", "page/3/"]
    assert (listing_url("risk/high/", 1), page_count(0, 100), page_count(201, 100), page_count(5, 0)) == \
        ("risk/high/", 1, 3, 1)


def test_llms_txt_is_bounded_above_shard_above(one_a_page: Path, site: Path) -> None:
    """A catalog above shard_above lists at most min(1,000, shard_above) skills in llms.txt, those
    a model is offered first, and says where the others are; a smaller one lists them all."""
    text = (one_a_page / "llms.txt").read_text("utf-8")
    assert re.findall(r"^- \[([^\]]+)\]", text, re.M) == ["house-style"]   # always on: first in prompt order
    assert "This file lists 1 of the catalog's 12 listed skills" in text and "(skills.json)" in text
    whole = (site / "llms.txt").read_text("utf-8")
    assert len(re.findall(r"^- \[", whole, re.M)) == 12 and "This file lists" not in whole


def test_tags_that_differ_only_in_case_are_one_tag_page(tmp_path: Path) -> None:
    """Search's tag filter takes UPPER and upper as one tag: so do the tag pages and counts (one
    page listing both skills, one chip each naming it), and a skill with both spellings shows it once."""
    from support import write_skill

    write_skill(tmp_path / "src", "t1", "name: t1\ndescription: One. Use when testing.\ntags: [UPPER]\n")
    write_skill(tmp_path / "src", "t2", "name: t2\ndescription: Two. Use when testing.\ntags: [upper, Upper]\n")
    out = tmp_path / "_site"
    assert build([tmp_path / "src"], out).ok
    pages = sorted(p.parent.name for p in (out / "tags").glob("*/index.html"))
    assert len(pages) == 1
    listed = (out / "tags" / pages[0] / "index.html").read_text("utf-8")
    assert 'href="../../skills/t1/"' in listed and 'href="../../skills/t2/"' in listed
    t2 = (out / "skills/t2/index.html").read_text("utf-8")   # its tags, in the header and in the facts
    assert t2.count(f'tags/{pages[0]}/">UPPER</a>') == 2 and ">upper</a>" not in t2 and ">Upper</a>" not in t2
