"""A run of symbols written against a word ("ready🚀", "love❤️", "✅done") in node, on what
`skillsite build` writes: `skillsite search` and the loader find the skill by the symbols alone
(terms.tokenize makes a term of them), and so must both pages, with the symbols highlighted. The
lunr index kept such a word's letters only ("ready"), so the lunr page found nothing for "🚀", and
a skill its quick plain-text match had shown ("✅") went away when the index arrived."""
from __future__ import annotations

from pathlib import Path

import pytest

from skillsite.loader import Catalog
from skillsite.search import lunr_index
from support import assert_lunr_js_finds_as_lunr_py, run_node, whole_and_sharded

REPO = Path(__file__).resolve().parents[2]
SKILLS = {
    "glued/rocket": "Deploys services to production, ready🚀 in minutes.",
    "glued/heart": "Writes release notes people love❤️ to read.",
    "glued/check": "Marks tasks ✅done in the tracker.",
    "glued/family": "Plans trips for the whole family👨‍👩‍👧 on a budget.",
    "glued/plain": "Deploys services to staging with care.",
}
#: (query, the skill it finds, the symbols highlighted in its description)
QUERIES = [("🚀", "glued/rocket", "🚀"), ("❤️", "glued/heart", "❤️"), ("✅", "glued/check", "✅"),
           ("👨‍👩‍👧", "glued/family", "👨‍👩‍👧")]


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The skills built as a whole catalog (a lunr index) and as a sharded one."""
    tmp = tmp_path_factory.mktemp("glued")
    return whole_and_sharded(tmp, SKILLS)


def test_the_lunr_index_holds_the_symbols_beside_the_word() -> None:
    assert lunr_index.with_word_parts("ready🚀 ✅done (🚀) love❤️,") == "ready🚀 🚀 ✅done ✅ (🚀) love❤️, ❤️"
    assert lunr_index.with_word_parts("mcp.json🚀") == "mcp.json🚀 mcp json 🚀"     # the words of "mcp.json🚀"


@pytest.mark.parametrize("layout", ["whole", "sharded"])
def test_the_page_finds_and_marks_symbols_against_a_word_as_the_loader(sites: dict[str, Path], layout: str) -> None:
    """The lunr page's ranking (once search/lunr.json is in) and the sharded page's."""
    site, queries = sites[layout], [q for q, _, _ in QUERIES]
    catalog = Catalog.open(site)
    for query, found, _ in QUERIES:
        assert [r.id for r in catalog.search(query)] == [found], query
    if layout == "whole":
        hits = run_node(str(REPO / "tests" / "js" / "browser_search.js"), str(site), "-", stdin=queries)["lunr"]
    else:
        hits = run_node(str(REPO / "tests" / "js" / "shard_search.js"), str(site), "-", stdin=queries)["hits"]
    assert [[h["id"] for h in per_query] for per_query in hits] == [[found] for _, found, _ in QUERIES]
    for per_query, (query, _, marked) in zip(hits, QUERIES):
        assert marked in per_query[0]["marks"], (query, per_query[0]["marks"])


def test_real_lunr_js_finds_what_lunr_py_finds(sites: dict[str, Path]) -> None:
    assert_lunr_js_finds_as_lunr_py(sites["whole"], [q for q, _, _ in QUERIES], [found for _, found, _ in QUERIES])


def test_the_plain_text_match_finds_symbols_against_a_word(sites: dict[str, Path]) -> None:
    """The lunr page's quick match over search/docs.json, before lunr.json arrives: a word's start
    must follow a non-letter ("ready" in "already" is no match), a run of symbols need not ("🚀" of
    "ready🚀" is a term of its own), or the results would change when the index arrives."""
    queries = [q for q, _, _ in QUERIES] + ["ady"]
    out = run_node(str(REPO / "tests" / "js" / "browser_search.js"), str(sites["whole"]), "-", stdin=queries)
    assert [[h["id"] for h in per_query] for per_query in out["text"]] == [[found] for _, found, _ in QUERIES] + [[]]


def test_a_query_s_symbols_against_a_word_are_searched_as_the_loader_does(sites: dict[str, Path]) -> None:
    """A query word "wow🚀" is the terms "wow" and "🚀" to `skillsite search` (and "it✅" the term
    "✅": "it" is a stop word); the page took its letters only and found nothing."""
    queries = ["wow🚀", "it✅ ", "(zzz❤️)"]
    found = [["glued/rocket"], ["glued/check"], ["glued/heart"]]
    catalog = Catalog.open(sites["whole"])
    assert [[r.id for r in catalog.search(q)] for q in queries] == found
    out = run_node(str(REPO / "tests" / "js" / "browser_search.js"), str(sites["whole"]), "-", stdin=queries)
    for hits in (out["lunr"], out["text"]):
        assert [[h["id"] for h in per_query] for per_query in hits] == found
    assert "🚀" in out["lunr"][0][0]["marks"]
