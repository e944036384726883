"""Copies of one skill in headless chromium (#46): the home page lists a group once with "N
copies", its search shows the group once (the inline index, and the search shards of a paged
catalog), and the "Show every copy" switch shows each copy at its own place."""
from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pytest

from browsing import SITE_CONFIG, Served, open_home, shown_skills, wait_until
from conftest import _build, _serve
from skillsite.loader import Catalog
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
    """The text of each search result, once the box has answered ``query``: its text, not what is
    laid out (``innerText``), which a result below the fold (``content-visibility: auto``) lacks
    until the next frame lays it out."""
    page.fill("#searchBox", query)
    wait_until(page, "q => document.getElementById('searchBox').value === q && "
                     "document.querySelectorAll('#searchResults > li').length > 0", query)
    page.wait_for_timeout(300)  # the shards draw their first results, then the rest
    return page.locator("#searchResults > li").all_text_contents()


def test_a_group_is_one_card_and_one_result_until_every_copy_is_asked_for(context, copies_site: Served) -> None:
    page = context.new_page()
    page.goto(copies_site.page_url("index.html"))
    if (copies_site.root / "page").is_dir():  # a paged list: the group's card is on one of its pages
        page.goto(copies_site.page_url("page/" + next(p.parent.name for p in sorted((copies_site.root / "page").glob(
            "*/index.html")) if f"skills/{ORIGINAL}/" in p.read_text("utf-8")) + "/"))
    listed = page.locator(".skill-title a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    listed = [href.lstrip("./") for href in listed]   # page/2/'s links start with ../../
    assert f"skills/{ORIGINAL}/" in listed and not any(href.startswith("skills/team/") for href in listed)
    assert "4 copies" in page.locator(".skill-item", has_text="using-superpowers").first.text_content()
    page.goto(copies_site.page_url("index.html"))
    grouped = [r for r in results(page, "using superpowers") if "using-superpowers" in r]
    assert len(grouped) == 1 and "4 copies" in grouped[0] and ORIGINAL in grouped[0]
    page.check("#searchCopies")
    # the results are drawn again (a sharded index draws its first results, then the rest): wait
    # for the group's four, then read what the page shows
    wait_until(page, "() => [...document.querySelectorAll('#searchResults > li')]"
                     ".filter(li => li.textContent.includes('using-superpowers')).length >= 4")
    every = [r for r in page.locator("#searchResults > li").all_text_contents() if "using-superpowers" in r]
    assert len(every) == 4 and sum("a copy" in r for r in every) == 3


def _widget_tree(root: Path) -> Path:
    """40 skills that all match "widget"; three of them hidden and two with two copies each, all
    ranked past the first 20 results (their ids sort last on equal scores)."""
    def skill(rel: str, name: str, extra: str = "") -> None:
        folder = root / rel
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Widget helper for polishing gadgets of one kind.\n{extra}---\n\n"
            f"# {name}\n\nBody of {name}.\n", encoding="utf-8")
    for n in range(40):
        skill(f"s{n:02d}", f"widget-{n:02d}", "tags: [widgets]\n" + ("hidden: true\n" if n in (33, 35, 37) else ""))
    for n in (36, 38):
        for copy in ("zcopy-a", "zcopy-b"):
            shutil.copytree(root / f"s{n:02d}", root / copy / f"s{n:02d}")
    return root


@pytest.fixture(scope="module")
def widget_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("widgets")
    yield from _serve(_build([_widget_tree(tmp / "skills")], tmp / "site", replace(SITE_CONFIG, shard_above=5)))


def _status_after(page, act) -> str:
    """The search status once the shards have drawn every result of what ``act`` asked."""
    settled = "() => performance.getEntriesByName('skillsite:results:settled').length"
    before = page.evaluate(settled)
    act()
    wait_until(page, f"() => ({settled[6:]}) > {before}")
    return page.text_content("#searchStatus")


def test_the_sharded_count_leaves_out_copies_and_hidden_skills_ranked_past_the_cards_read(
        context, widget_site: Served) -> None:
    """The count of results is what the reader can go through: one per group of copies and no
    hidden skill, even for the results past the 20 whose cards the page read."""
    catalog = Catalog.open(widget_site.root)
    listed = {e.id for e in catalog.entries if e.visibility.listed}
    grouped = [r.id for r in catalog.search("widget", k=500) if r.id in listed]
    every = [r.id for r in catalog.search("widget", k=500, copies=True) if r.id in listed]
    assert (len(grouped), len(every)) == (37, 41)
    page = context.new_page()
    page.goto(widget_site.page_url("index.html"))
    wait_until(page, "() => performance.getEntriesByName('skillsite:index-ready').length > 0")
    status = _status_after(page, lambda: page.fill("#searchBox", "widget"))
    assert status.startswith("37 results (showing the first 20)")
    assert _status_after(page, lambda: page.check("#searchCopies")).startswith("41 results (showing the first 20)")
    assert page.locator("#searchResults > li").count() == 20


def _shop_tree(root: Path) -> Path:
    """Five skills that tie on "polishing" (one description): widget, with a listed copy that
    alone has tag "onlycopy" and a hidden copy that alone has "hiddencopy", gizmo (tag "🚀")
    and doohi. Canonical is a/skills/widget; m/ sorts between gizmo (b/) and doohi (y/)."""
    body = "\n# Title\n\nA body long enough to be one of its own, with several words in it, not short at all.\n" * 3
    for rel, name, extra in [("a/skills/widget", "widget", "tags: [shop]\n"),
                             ("m/skills/widget", "widget", "tags: [shop, onlycopy]\n"),
                             ("z/.claude/skills/widget", "widget", "tags: [shop, hiddencopy]\nhidden: true\n"),
                             ("b/skills/gizmo", "gizmo", "tags: [shop, \"🚀\"]\n"),
                             ("y/skills/doohi", "doohi", "tags: [shop]\n")]:
        (root / rel).mkdir(parents=True)
        (root / rel / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Polishing helper for shiny things of "
                                             f"every size.\n{extra}---\n{body}{name}\n", encoding="utf-8")
    return root


SHOP_LAYOUTS = {"whole": SITE_CONFIG, "paged": replace(SITE_CONFIG, shard_above=2)}


@pytest.fixture(scope="module", params=list(SHOP_LAYOUTS))
def shop_site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("shop-" + request.param)
    site = _build([_shop_tree(tmp / "skills")], tmp / "site", SHOP_LAYOUTS[request.param])
    entries = {e.id: e for e in Catalog.open(site).entries}
    assert entries["m/skills/widget"].visibility.copy_of == entries["z/.claude/skills/widget"].visibility.copy_of \
        == "a/skills/widget"
    yield from _serve(site)


def test_on_ties_a_copy_comes_right_after_its_canonical_member(context, shop_site: Served) -> None:
    page = context.new_page()
    open_home(page, shop_site, "?q=polishing")
    grouped = shown_skills(page)
    assert grouped == ["a/skills/widget", "b/skills/gizmo", "y/skills/doohi"]
    page.check("#searchCopies")
    wait_until(page, "() => document.querySelectorAll('#searchResults > li').length === 4")
    every = shown_skills(page)
    assert every == ["a/skills/widget", "m/skills/widget", "b/skills/gizmo", "y/skills/doohi"]
    assert [i for i in every if i != "m/skills/widget"] == grouped


@pytest.mark.parametrize("query", ["", "q=polishing&"])
@pytest.mark.parametrize("tag", ["onlycopy", "hiddencopy"])
def test_a_tag_only_a_copy_has_shows_its_canonical_member(context, shop_site: Served, query: str, tag: str) -> None:
    """As `skillsite search` filters: the copy has the tag, its canonical member stands for it
    (never the hidden copy itself)."""
    catalog = Catalog.open(shop_site.root)
    assert [r.id for r in catalog.search(query[2:-1], k=5, tags=[tag])] == ["a/skills/widget"]
    page = context.new_page()
    open_home(page, shop_site, f"?{query}tag={tag}")
    assert shown_skills(page) == ["a/skills/widget"]


def test_an_emoji_tag_is_searched_and_filtered(context, shop_site: Served) -> None:
    """A tag of symbols only ("🚀") is a search term (as for `skillsite search`), and its chip filters."""
    catalog = Catalog.open(shop_site.root)
    assert [r.id for r in catalog.search("🚀", k=5)] == ["b/skills/gizmo"]
    assert [r.id for r in catalog.search("polishing 🚀", k=5)][0] == "b/skills/gizmo"
    page = context.new_page()
    open_home(page, shop_site, "?q=%F0%9F%9A%80")
    assert shown_skills(page) == ["b/skills/gizmo"]
    open_home(page, shop_site, "?q=polishing+%F0%9F%9A%80")
    assert shown_skills(page)[0] == "b/skills/gizmo"
    open_home(page, shop_site)
    page.click("#tagChips button[data-tag='🚀']")
    page.wait_for_timeout(400)
    assert shown_skills(page) == ["b/skills/gizmo"]


def test_an_empty_result_offers_every_listed_skill_once(context, shop_site: Served) -> None:
    """"Browse all N skills" counts what the list holds: a group of copies once, every page of a
    paged list (not the rows of docs.json, nor the cards of this page)."""
    page = context.new_page()
    open_home(page, shop_site, "?q=flibbertigibbet")
    assert page.text_content("#searchStatus").startswith("No skill matches")
    assert page.text_content("#searchShowAll") == "Browse all 3 skills"


def test_the_closest_tags_count_what_their_chip_shows(context, shop_site: Served) -> None:
    """Under an empty result the closest tags say how many skills each shows: the list filtered
    by the tag, a group of copies once (widget's listed copy also has "shop", its hidden copy
    alone "hiddencopy": the group is one skill of each)."""
    page = context.new_page()
    open_home(page, shop_site, "?q=shoppe")
    assert page.text_content("#searchStatus").startswith("No skill matches")
    chip = page.locator("#searchEmptyTags button[data-tag='shop']")
    assert chip.locator(".chip-count").text_content() == "3"
    chip.click()
    page.wait_for_timeout(400)   # the list filtered (a paged list: the shards' results of the tag)
    assert shown_skills(page) == ["a/skills/widget", "b/skills/gizmo", "y/skills/doohi"]
    if not (shop_site.root / "page").is_dir():       # docs.json: a hidden copy's tag shows its group
        open_home(page, shop_site, "?q=hiddencopie")
        assert page.locator("#searchEmptyTags button[data-tag='hiddencopy'] .chip-count").text_content() == "1"
