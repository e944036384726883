"""Chinese, Japanese and Korean text, written without spaces between words, in node, on what
`skillsite build` writes: each run of CJK letters is searched as the pairs of letters in it
(terms.cjk_pairs), so a query of one word of two letters or more finds the skill whose text holds
it, on the loader, real lunr.js (as lunr.py), the page's lunr search, its plain-text match and the
sharded page alike, and the page marks the word in the description."""
from __future__ import annotations

from pathlib import Path

import pytest

from skillsite.loader import Catalog
from skillsite.search.terms import known_only, tokenize
from support import (REPO, assert_lunr_js_finds_as_lunr_py, assert_pages_find_and_mark, page_tokenize, run_node,
                     whole_and_sharded)

SKILLS = {
    "lang/chinese": "用于数据分析的工具，生成图表。",
    "lang/japanese": "データベースの移行を自動化します。",
    "lang/korean": "데이터베이스 백업을 관리합니다.",
    "lang/rare": "处理𠀀𠀁文字。",
    "lang/mixed": "Documents a Python库 for 人々.",
    "lang/english": "Translates plain English.",
}
#: (query, the skill it finds, what the page marks in its description)
QUERIES = [("数据", "lang/chinese", "数据"), ("图表", "lang/chinese", "图表"), ("数据分析", "lang/chinese", "数据分析"),
           ("移行", "lang/japanese", "移行"), ("自動化", "lang/japanese", "自動化"), ("백업을", "lang/korean", "백업을"),
           ("𠀀𠀁", "lang/rare", "𠀀𠀁"), ("用于", "lang/chinese", "用于"), ("用于 ", "lang/chinese", "用于"),
           ("库", "lang/mixed", "库"), ("人々", "lang/mixed", "人々")]


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The skills built as a whole catalog (a lunr index) and as a sharded one."""
    return whole_and_sharded(tmp_path_factory.mktemp("cjk"), SKILLS)


def test_a_run_of_cjk_letters_is_searched_as_its_pairs() -> None:
    assert tokenize("用于数据分析") == ["用于", "于数", "数据", "据分", "分析"]
    assert tokenize("Python数据 表 SQL x") == ["python", "数据", "表", "sql"]   # a CJK letter alone is a word
    assert tokenize("人々と様々") == ["人々", "々と", "と様", "様々"]   # an iteration mark is a letter
    assert tokenize("データを") == ["デー", "ータ", "タを"]


def test_the_page_cuts_cjk_text_as_python() -> None:
    texts = [*SKILLS.values(), *(q for q, _, _ in QUERIES), "mixedテキストand数字123", "表", "ｶﾀｶﾅ", "한국어 문장",
             "漢\ufe00字", "x\u0301数据\u0301y", "𠀀", "中文_English", "か\u3099き", "a\u3099b"]
    edges = [0x3041, 0x3096, 0x309D, 0x309F, 0x30A1, 0x30FA, 0x30FC, 0x31F0, 0x31FF, 0x3400, 0x4DBF, 0x4E00, 0x9FFF,
             0xF900, 0xFAFF, 0x20000, 0x3134F, 0xAC00, 0xD7A3, 0xFF66, 0xFF9F]   # terms.CJK_LETTERS' ranges
    around = (f"a{chr(cp - 1)}{chr(cp)}{chr(cp + 1)}{chr(cp)}b" for cp in edges)
    texts += [text for text in around if known_only(text) == text]   # newer letters: no terms on any Python
    assert page_tokenize(texts) == [tokenize(t) for t in texts]


def test_lunr_js_finds_what_lunr_py_finds(sites: dict[str, Path]) -> None:
    """The index's terms, as lunr itself searches them: a pair, or a word between spaces (Korean's);
    a longer run is no term of its own, and the page searches its pairs (the test below)."""
    terms = [(query, found) for query, found, _ in QUERIES if len(query) <= 2 or query == "백업을"]
    assert len(terms) == 8
    assert_lunr_js_finds_as_lunr_py(sites["whole"], [q for q, _ in terms], [found for _, found in terms])


@pytest.mark.parametrize("layout", ["whole", "sharded"])
def test_the_page_finds_and_marks_the_word_as_the_loader(sites: dict[str, Path], layout: str) -> None:
    """Only the word is marked, not the rest of its run, even when the run begins with it."""
    pages = assert_pages_find_and_mark(sites[layout], layout, QUERIES)
    for hits in pages:
        assert [per_query[0]["marks"] for per_query in hits] == [[marked] for _, _, marked in QUERIES]


def test_a_letter_alone_finds_what_the_loader_finds_on_every_page(sites: dict[str, Path]) -> None:
    """"表" is a term only where it stands alone: the plain-text match does not find it inside
    "图表" (a pair is looked for anywhere in a run, a letter alone is not)."""
    queries = ["表 ", "库 "]
    loader = [[r.id for r in Catalog.open(sites["whole"]).search(q)] for q in queries]
    assert loader == [[], ["lang/mixed"]]
    out = run_node(str(REPO / "tests" / "js" / "browser_search.js"), str(sites["whole"]), "-", stdin=queries)
    sharded = run_node(str(REPO / "tests" / "js" / "shard_search.js"), str(sites["sharded"]), "-", stdin=queries)
    for hits in (out["lunr"], out["text"], sharded["hits"]):
        assert [[h["id"] for h in per_query] for per_query in hits] == loader
