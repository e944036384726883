"""What counts as one word on the home page's search, in headless chromium, on both pages (the
lunr index of a whole catalog and the search shards of a paged one): a word typed decomposed
("e" + U+0301, as a macOS keyboard may give it) finds and highlights the same word written
composed in a skill, and the reverse; a run of symbols (an emoji, a term as `skillsite search`
makes it) is found and highlighted as any other word; so is a word of a script whose combining
marks have no precomposed form (Devanagari "हिन्दी", Thai "สวัสดี"), marks and all; and so is a word
of Chinese or Japanese, written without spaces between words (its pairs of letters are searched)."""
from __future__ import annotations

import time
import unicodedata
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pytest

from browsing import SITE_CONFIG, Served, wait_until
from conftest import _build, _serve
from skillsite.loader import Catalog
from support import write_skill

pytestmark = pytest.mark.browser

LAYOUTS = {"whole": SITE_CONFIG, "paged": replace(SITE_CONFIG, shard_above=1)}
#: One skill written composed (NFC), one decomposed (NFD), one with emoji, and a filler.
MENU = "Plans a café menu of pastries and crème brûlée."
RECIPES = unicodedata.normalize("NFD", "Writes naïve recipes for a pâtisserie.")
ROCKET = "Runs launch checklists 🚀 for releases that are ready🚀, with a 👍🏽 at the end."
HINDI = "हिन्दी में अनुवाद करता है।"
THAI = "แปล สวัสดี เป็นภาษาอื่น"
CHINESE = "用于数据分析的工具，生成图表。"
JAPANESE = "データベースの移行を自動化します。"


def _tree(root: Path) -> Path:
    write_skill(root, "bakery/menu", description=MENU)
    write_skill(root, "bakery/recipes", description=RECIPES)
    write_skill(root, "bakery/bread", description="Bakes sourdough bread at home.")
    write_skill(root, "launch/rocket", description=ROCKET)
    write_skill(root, "lang/hindi", description=HINDI)
    write_skill(root, "lang/thai", description=THAI)
    write_skill(root, "lang/chinese", description=CHINESE)
    write_skill(root, "lang/japanese", description=JAPANESE)
    return root


@pytest.fixture(scope="module", params=list(LAYOUTS))
def words_site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("words-" + request.param)
    yield from _serve(_build([_tree(tmp / "skills")], tmp / "site", LAYOUTS[request.param]))


#: Every key's highlighted words, as drawn: recorded whenever the results change. Their text, not
#: what is laid out (``innerText``): a result is ``content-visibility: auto`` (app.css), and until
#: the next frame lays it out its marks' innerText is "" (the two empty marks a CI run once read).
RECORD_MARKS = """
window.__drawnMarks = [];
new MutationObserver(function () {
  var results = document.getElementById('searchResults');
  if (results) window.__drawnMarks.push([document.getElementById('searchBox').value,
    Array.prototype.map.call(results.querySelectorAll('mark'), function (m) { return m.textContent; })]);
}).observe(document, { subtree: true, childList: true });
"""


def _typed(page, served: Served, query: str, expected: list[str], marked: list[str]) -> tuple[list[str], list[str]]:
    """Type ``query`` into the box of a freshly opened home page, one key at a time; the skills
    of the results and the highlighted words (their text: see RECORD_MARKS), once they are
    ``expected`` and ``marked`` (the page draws each key's results as they come: the last key's
    may follow an earlier key's list), or as they are after 5 s."""
    page.goto(served.page_url("index.html"))
    wait_until(page, "() => performance.getEntriesByName('skillsite:index-ready').length > 0")
    page.locator("#searchBox").press_sequentially(query)
    read = "() => [...document.querySelectorAll('#searchResults > li a')].map(a => a.getAttribute('href'))"
    deadline = time.monotonic() + 5
    while True:
        shown = [h.removeprefix("skills/").removesuffix("/") for h in page.evaluate(read)]
        marks = page.locator("#searchResults mark").all_text_contents()
        if (shown, marks) == (expected, marked) or time.monotonic() > deadline:
            return shown, marks
        page.wait_for_timeout(50)


@pytest.mark.parametrize("query, expected, marked", [
    (unicodedata.normalize("NFD", "café"), "bakery/menu", "café"),
    (unicodedata.normalize("NFD", "Brûlée"), "bakery/menu", "brûlée"),
    ("pâtisserie", "bakery/recipes", unicodedata.normalize("NFD", "pâtisserie")),
])
def test_a_word_typed_decomposed_or_composed_finds_and_marks_the_other(
        context, words_site: Served, query: str, expected: str, marked: str) -> None:
    assert [r.id for r in Catalog.open(words_site.root).search(query)] == [expected]    # as `skillsite search`
    page = context.new_page()
    shown, marks = _typed(page, words_site, query, [expected], [marked])
    assert shown == [expected]
    assert marks == [marked]


@pytest.mark.parametrize("query, marked", [("🚀", ["🚀", "🚀"]), ("checklists 👍🏽", ["checklists", "👍🏽"])])
def test_a_run_of_symbols_found_is_highlighted(context, words_site: Served, query: str, marked: list[str]) -> None:
    assert [r.id for r in Catalog.open(words_site.root).search(query)] == ["launch/rocket"]
    page = context.new_page()
    shown, marks = _typed(page, words_site, query, ["launch/rocket"], marked)
    assert shown == ["launch/rocket"]
    assert marks == marked


@pytest.mark.parametrize("query, expected, marked", [
    ("हिन्दी", "lang/hindi", ["हिन्दी"]),
    ("हिन्दी अनुवाद", "lang/hindi", ["हिन्दी", "अनुवाद"]),
    ("สวัสดี", "lang/thai", ["สวัสดี"]),
    ("数据", "lang/chinese", ["数据"]),
    ("数据分析 图表", "lang/chinese", ["数据分析", "图表"]),
    ("自動化", "lang/japanese", ["自動化"]),
], ids=["hindi", "hindi-two-words", "thai", "chinese", "chinese-two-words", "japanese"])
def test_a_word_with_combining_marks_or_in_a_run_of_cjk_letters_is_found_and_highlighted(
        context, words_site: Served, query: str, expected: str, marked: list[str]) -> None:
    """A word with marks is marked whole; a word of Chinese or Japanese, inside the run of letters
    it is written in, is marked where the query's pairs of letters are."""
    assert [r.id for r in Catalog.open(words_site.root).search(query)] == [expected]    # as `skillsite search`
    page = context.new_page()
    shown, marks = _typed(page, words_site, query, [expected], marked)
    assert shown == [expected]
    assert marks == marked


def test_no_mark_drawn_while_a_query_is_typed_is_empty_or_part_of_a_word(context, words_site: Served) -> None:
    """Typing "हिन्दी अनुवाद" key by key (a virama and vowel signs typed alone after their letter):
    every mark drawn for any key, on either page, is a whole word of the skill, never empty."""
    context.add_init_script(RECORD_MARKS)
    page = context.new_page()
    shown, marks = _typed(page, words_site, "हिन्दी अनुवाद", ["lang/hindi"], ["हिन्दी", "अनुवाद"])
    assert (shown, marks) == (["lang/hindi"], ["हिन्दी", "अनुवाद"])
    drawn = page.evaluate("window.__drawnMarks")
    assert ["हिन्दी अनुवाद", ["हिन्दी", "अनुवाद"]] in drawn
    assert {mark for _, per_key in drawn for mark in per_key} == {"हिन्दी", "अनुवाद"}, drawn
