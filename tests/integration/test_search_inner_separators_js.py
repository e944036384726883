"""Words glued by what lunr's tokenizer does not split on, in node, on what `skillsite build`
writes: a control character (U+0001, U+001C, U+0085: Python's ``\\s`` matches the last two, lunr's
separators do not) or a "*" between two words. `skillsite search` finds the skill by either word,
and so must the lunr page: its index kept "quokka<U+0085>wombats" whole with no parts, and a query
"docx*pdf" lost its "*" and looked for "docxpdf"."""
from __future__ import annotations

from pathlib import Path

import pytest

from support import assert_searches_find, run_node, whole_and_sharded

REPO = Path(__file__).resolve().parents[2]
SKILLS = {
    "glued/nel": '"Manages quokka\\Nwombats in the zoo."',
    "glued/fs": '"Feeds x\\x1cplatypus every morning."',
    "glued/ascii": '"Counts echidna\\x01numbats every day"',
    "glued/plain": "Converts docx files to pdf files for printing.",
}
QUERIES = [("wombats", "glued/nel"), ("quokka", "glued/nel"), ("platypus", "glued/fs"),
           ("numbats", "glued/ascii"), ("echidna", "glued/ascii")]


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return whole_and_sharded(tmp_path_factory.mktemp("glued"), SKILLS)


def _page(site: Path, queries: list[str]) -> list[list[str]]:
    """The ids each query finds on the page: the lunr index's search, or the sharded page's."""
    if (site / "search" / "lunr.json").exists():
        found = run_node(str(REPO / "tests" / "js" / "browser_search.js"), str(site), "-", stdin=queries)["lunr"]
    else:
        found = run_node(str(REPO / "tests" / "js" / "shard_search.js"), str(site), "-", stdin=queries)["hits"]
    return [[h["id"] for h in per_query] for per_query in found]


def test_the_cli_and_the_loader_find_each_glued_word(sites: dict[str, Path]) -> None:
    assert_searches_find(sites["whole"], QUERIES)


@pytest.mark.parametrize("layout", ["whole", "sharded"])
def test_the_page_finds_each_glued_word(sites: dict[str, Path], layout: str) -> None:
    assert _page(sites[layout], [query + " " for query, _ in QUERIES]) == [[found] for _, found in QUERIES]


@pytest.mark.parametrize("layout", ["whole", "sharded"])
def test_a_star_between_two_words_cuts_them_as_the_cli_does(sites: dict[str, Path], layout: str) -> None:
    assert_searches_find(sites["whole"], [("docx*pdf", "glued/plain")])
    assert _page(sites[layout], ["docx*pdf ", "docx*pdf"]) == [["glued/plain"], ["glued/plain"]]


@pytest.mark.parametrize("layout", ["whole", "sharded"])
def test_a_query_past_4000_characters_is_read_as_far_as_the_cli_reads_it(sites: dict[str, Path], layout: str) -> None:
    """The CLI, the loader and MCP read a query's first 4,000 characters; the page read all of
    it, so "please " x 580 + "wombats" found the skill there and nothing in the CLI."""
    import re

    from skillsite.agent.catalog_search import MAX_QUERY_CHARS
    from skillsite.loader import Catalog

    script = (REPO / "templates" / "static" / "ranking.js").read_text("utf-8")
    assert int(re.search(r"var MAX_QUERY_CHARS = (\d+);", script).group(1)) == MAX_QUERY_CHARS
    past, within = "please " * 580 + "wombats ", "please " * 500 + "wombats "
    assert len(past) > MAX_QUERY_CHARS >= len(within)
    assert [[r.id for r in Catalog.open(sites["whole"]).search(q)] for q in (past, within)] == [[], ["glued/nel"]]
    assert _page(sites[layout], [past, within]) == [[], ["glued/nel"]]
