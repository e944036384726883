"""Words with combining marks (Devanagari "हिन्दी", Thai "สวัสดี", Tamil, Bengali) in node, on
what `skillsite build` writes: the page's tokenizer cuts every text as terms.tokenize does (each
combining mark of Unicode inside a word), real lunr.js finds in the lunr index what lunr.py
finds, and the page's own search (ranking.js, through tests/js/browser_search.js and
tests/js/shard_search.js) finds and highlights each word on both pages, as the loader does."""
from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

import pytest

from skillsite.search import terms
from skillsite.search.terms import tokenize
from support import (REPO, assert_lunr_js_finds_as_lunr_py, assert_pages_find_and_mark, page_tokenize, run_node,
                     whole_and_sharded)
SKILLS = {
    "lang/hindi": "हिन्दी में अनुवाद करता है।",
    "lang/thai": "แปล สวัสดี เป็นภาษาอื่น",
    "lang/tamil": "தமிழ் மொழிபெயர்ப்பு செய்கிறது.",
    "lang/bengali": "বাংলা ভাষায় লেখে।",
    "lang/english": "Translates plain English.",
}
#: (query, the skill it finds, the word highlighted in its description)
QUERIES = [("हिन्दी", "lang/hindi", "हिन्दी"), ("अनुवाद", "lang/hindi", "अनुवाद"), ("สวัสดี", "lang/thai", "สวัสดี"),
           ("தமிழ்", "lang/tamil", "தமிழ்"), ("বাংলা", "lang/bengali", "বাংলা"), ("हिन्", "lang/hindi", "हिन्दी")]


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The skills built as a whole catalog (a lunr index) and as a sharded one."""
    tmp = tmp_path_factory.mktemp("marks")
    return whole_and_sharded(tmp, SKILLS)


def test_the_page_cuts_words_at_the_same_marks_as_python() -> None:
    """Every combining mark of Unicode 13.0 (what search terms are made of on every Python:
    :func:`~skillsite.search.terms.known_only`), inside a word, at its end and at its start."""
    marks = [chr(cp) for cp in range(sys.maxunicode + 1)
             if unicodedata.category(chr(cp))[0] == "M" and terms.known_only(chr(cp)) == chr(cp)]
    texts = [f"ka{m}b x{m}{m}y {m}zz q{m}" for m in marks] + list(SKILLS.values()) + [q for q, _, _ in QUERIES]
    assert page_tokenize(texts) == [tokenize(t) for t in texts]


def test_lunr_js_finds_what_lunr_py_finds(sites: dict[str, Path]) -> None:
    settled = QUERIES[:-1]   # the last is a word being typed: lunr itself has no prefix for it
    assert_lunr_js_finds_as_lunr_py(sites["whole"], [q for q, _, _ in settled], [found for _, found, _ in settled])


@pytest.mark.parametrize("layout", ["whole", "sharded"])
def test_the_page_finds_and_marks_the_word_as_the_loader(sites: dict[str, Path], layout: str) -> None:
    assert_pages_find_and_mark(sites[layout], layout, QUERIES)


def _prefixes(query: str) -> list[str]:
    """What the box holds after each key of ``query``."""
    return [query[:end] for end in range(1, len(query) + 1)]


@pytest.mark.parametrize("layout", ["whole", "sharded"])
def test_no_mark_of_a_half_typed_query_is_empty_or_part_of_a_word(sites: dict[str, Path], layout: str) -> None:
    """Each key of "हिन्दी अनुवाद" and "สวัสดี" (a virama, a vowel sign typed alone after its letter):
    every range the page highlights, on either page (lunr's, its plain-text match, the shards'),
    is a whole word of the skill's text, never empty nor cut inside a word."""
    queries = _prefixes("हिन्दी अनुवाद") + _prefixes("สวัสดี")
    if layout == "whole":
        out = run_node(str(REPO / "tests" / "js" / "browser_search.js"), str(sites[layout]), "-", stdin=queries)
        pages = {"lunr": out["lunr"], "text": out["text"]}
    else:
        out = run_node(str(REPO / "tests" / "js" / "shard_search.js"), str(sites[layout]), "-", stdin=queries)
        pages = {"shards": out["hits"]}
    words = {skill_id: set(skill_id.split("/")[1:]) | {w.rstrip("।.") for w in text.split()}
             for skill_id, text in SKILLS.items()}
    for name, hits in pages.items():
        for query, per_query in zip(queries, hits):
            for hit in per_query:
                assert hit["marks"] and set(hit["marks"]) <= words[hit["id"]], (name, query, hit)
        assert [h["marks"] for h in hits[len(_prefixes("हिन्दी अनुवाद")) - 1]] == [["हिन्दी", "अनुवाद"]], name
        assert [h["marks"] for h in hits[-1]] == [["สวัสดี"]], name
