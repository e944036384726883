"""A word of a script whose combining marks have no precomposed form (Devanagari "हिन्दी", Thai
"สวัสดี", Tamil "தமிழ்", Bengali "বাংলা") is one search term, marks and all: in the tokenizer,
the loader's index, the sharded index, the browser's lunr index and `skillsite search`. Cut at
its marks, it was one-letter pieces that are no terms, and nothing found it."""
from __future__ import annotations

import json
import sys
import unicodedata
from dataclasses import replace
from pathlib import Path

import pytest

from skillsite.config import SiteConfig
from skillsite.loader import SearchIndex, build_search_section, tokenize
from skillsite.publish.build import build
from skillsite.search import lunr_index, lunr_reference, terms
from skillsite.search.shard_query import ShardedIndex
from skillsite.search.shard_writer import build_shards, card_row, doc_order
from support import assert_searches_find

#: Words of four scripts, each with marks inside or at its end (Mn and Mc).
WORDS = {"hindi": "हिन्दी", "thai": "สวัสดี", "tamil": "தமிழ்", "bengali": "বাংলা"}
ENTRIES = [
    {"id": "lang/hindi", "name": "hindi", "description": "हिन्दी में अनुवाद करता है।", "tags": [], "priority": 0},
    {"id": "lang/thai", "name": "thai", "description": "แปล สวัสดี ภาษาไทย เป็นภาษาอื่น", "tags": [], "priority": 0},
    {"id": "lang/tamil", "name": "tamil", "description": "தமிழ் மொழிபெயர்ப்பு செய்கிறது.", "tags": [], "priority": 0},
    {"id": "lang/bengali", "name": "bengali", "description": "বাংলা ভাষায় অনুবাদ করে।", "tags": [], "priority": 0},
    {"id": "lang/english", "name": "english", "description": "Translates into plain English.", "tags": [],
     "priority": 0},
]
QUERIES = [(word, f"lang/{language}") for language, word in WORDS.items()] + [("अनुवाद", "lang/hindi")]


@pytest.mark.parametrize("word", WORDS.values(), ids=list(WORDS))
def test_a_word_keeps_its_marks(word: str) -> None:
    assert any(unicodedata.category(c)[0] == "M" for c in word)
    assert terms.words(f"({word}), {word}!") == [word, word]
    assert tokenize(f"Text in {word}.") == ["text", word]


def test_a_mark_continues_a_word_but_does_not_begin_one() -> None:
    assert terms.words("\u0301ab \u093fक") == ["ab", "क"]
    assert tokenize("love❤️ and ❤️") == ["love", "❤️", "❤️"]         # VS16 (a mark) stays the emoji's
    assert terms.words("naï\u0308ve_xy") == ["naï\u0308ve", "xy"]          # "_" still splits


def test_the_mark_class_is_every_mark_of_this_python_s_unicode() -> None:
    """Read off planes 0, 1 and 14 only, it holds every code point of category M there is."""
    every = {cp for cp in range(sys.maxunicode + 1) if unicodedata.category(chr(cp))[0] == "M"}
    text = "".join(f"a{chr(cp)}b " for cp in sorted(every))
    assert terms.words(text) == [f"a{chr(cp)}b" for cp in sorted(every)]
    assert len(every) > 2000


def test_the_lunr_index_keeps_the_marks_as_lunr_py_writes_it() -> None:
    assert [lunr_index.trim_word(w) for w in ["हिन्दी,", "(สวัสดี)", "love❤️", "❤️", "\u0301ab"]] == \
        ["हिन्दी", "สวัสดี", "love", "❤️", "ab"]
    ours = lunr_index.lunr_bytes(ENTRIES)
    assert ours == lunr_reference.lunr_json(lunr_reference.build_lunr(ENTRIES))
    indexed = {term for term, _ in json.loads(ours)["invertedIndex"]}
    assert set(WORDS.values()) | {"अनुवाद"} <= indexed
    for word, found in QUERIES:
        assert [r["ref"] for r in lunr_reference.load_lunr(ours).search(word)] == [str(ENTRIES.index(
            next(e for e in ENTRIES if e["id"] == found)))], word


@pytest.mark.parametrize("query, found", QUERIES, ids=[*WORDS, "hindi-2"])
def test_the_loader_and_the_sharded_index_find_the_word(query: str, found: str) -> None:
    index = SearchIndex.from_manifest({"skills": ENTRIES, "search": build_search_section(ENTRIES)})
    assert [skill_id for skill_id, _ in index.search(query)] == [found]
    rows = [card_row(e["id"], e["name"], e["description"], f"skills/{e['id']}/", e["tags"])
            for e in (ENTRIES[i] for i in doc_order(ENTRIES))]
    shards = build_shards(ENTRIES, rows)
    sharded = ShardedIndex.open(shards.section, lambda path, sha256: shards.files[path])
    assert [card.id for card, _ in sharded.search(query)] == [found]


@pytest.mark.parametrize("shard_above", [100, 1], ids=["whole", "sharded"])
def test_skillsite_search_finds_the_word(tmp_path: Path, shard_above: int) -> None:
    src = tmp_path / "skills"
    for entry in ENTRIES:
        folder = src / entry["id"]
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {entry['name']}\ndescription: {entry['description']}\n---\n"
                                         "# Body\n", encoding="utf-8")
    site = tmp_path / "site"
    assert build([src], site, replace(SiteConfig(), shard_above=shard_above)).ok
    assert_searches_find(site, QUERIES)
