"""One word spelt two ways in Unicode ("é" composed, or "e" + U+0301 as a macOS keyboard or file
name may give it) is one search term: in the tokenizer, the loader's index, the sharded index,
the browser's lunr index and `skillsite search`, whichever way the skill and the query spell it."""
from __future__ import annotations

import json
import unicodedata
from dataclasses import replace
from pathlib import Path

import pytest

from skillsite.config import SiteConfig
from skillsite.loader import SearchIndex, build_search_section, tokenize
from skillsite.publish.build import build
from skillsite.search import lunr_index, lunr_reference
from skillsite.search.shard_query import ShardedIndex
from skillsite.search.shard_writer import build_shards, card_row, doc_order
from skillsite.search import terms
from support import assert_searches_find, write_skill


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


#: A skill written composed, one written decomposed; and a query word of each, in the other form.
CAFE = "Plans a café menu of pastries and crème brûlée."
PASTRY = nfd("Writes naïve recipes for a pâtisserie, with Éclairs.")
ENTRIES = [{"id": "bakery/menu", "name": "menu", "description": CAFE, "tags": [], "priority": 0},
           {"id": "bakery/recipes", "name": "recipes", "description": PASTRY, "tags": [], "priority": 0}]
QUERIES = [(nfd("café"), "bakery/menu"), (nfd("brûlée"), "bakery/menu"),
           (nfc("pâtisserie"), "bakery/recipes"), (nfc("éclairs"), "bakery/recipes"),
           (nfd("ÉCLAIRS"), "bakery/recipes")]


def test_a_decomposed_word_is_the_composed_term() -> None:
    assert nfd("café") != "café" and tokenize(nfd("Café")) == tokenize("café") == ["café"]
    assert tokenize(nfd("Crème brûlée")) == tokenize("crème brûlée") == ["crème", "brûlée"]
    # lower-cased first, then composed: "J" + U+030C has no composed capital, its small letter has one
    assert terms.folded("J\u030c") == "\u01f0" == terms.folded("\u01f0")
    assert terms.folded("ﬁle x²") == "ﬁle x²"    # NFC, not NFKC: compatibility characters stay as written


@pytest.mark.parametrize("query, found", QUERIES)
def test_the_loader_index_finds_either_spelling(query: str, found: str) -> None:
    index = SearchIndex.from_manifest({"skills": ENTRIES, "search": build_search_section(ENTRIES)})
    assert [skill_id for skill_id, _ in index.search(query)] == [found]


@pytest.mark.parametrize("query, found", QUERIES)
def test_the_sharded_index_finds_either_spelling(query: str, found: str) -> None:
    rows = [card_row(e["id"], e["name"], e["description"], f"skills/{e['id']}/", e["tags"])
            for e in (ENTRIES[i] for i in doc_order(ENTRIES))]
    shards = build_shards(ENTRIES, rows)
    files = {**shards.files}
    index = ShardedIndex.open(shards.section, lambda path, sha256: files[path])
    assert [card.id for card, _ in index.search(query)] == [found]


def test_the_lunr_index_holds_composed_terms_as_lunr_py_writes_them() -> None:
    ours = lunr_index.lunr_bytes(ENTRIES)
    assert ours == lunr_reference.lunr_json(lunr_reference.build_lunr(ENTRIES))
    terms = [term for term, _ in json.loads(ours)["invertedIndex"]]
    assert {"pâtisseri", "éclair", "naïv", "café"} <= set(terms)
    assert all(unicodedata.is_normalized("NFC", term) for term in terms)


@pytest.mark.parametrize("shard_above", [100, 1], ids=["whole", "sharded"])
def test_skillsite_search_finds_either_spelling(tmp_path: Path, shard_above: int) -> None:
    src = tmp_path / "skills"
    write_skill(src, "bakery/menu", description=CAFE)
    write_skill(src, "bakery/recipes", description=PASTRY)
    site = tmp_path / "site"
    assert build([src], site, replace(SiteConfig(), shard_above=shard_above)).ok
    assert_searches_find(site, QUERIES)


def test_the_table_of_unassigned_characters_is_unicode_13s() -> None:
    """The table is Python 3.10's Unicode 13.0 (made there by tests/data/make_unicode_table.py);
    a later Python assigns every character the table does not hold."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "data" / "make_unicode_table.py"
    spec = importlib.util.spec_from_file_location("make_unicode_table", path)
    maker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(maker)
    table = json.loads(maker.TABLE.read_text(encoding="utf-8"))
    assert table["unicode"] == "13.0.0"
    if unicodedata.unidata_version == table["unicode"]:
        assert maker.table_text() == maker.TABLE.read_text(encoding="utf-8")
    else:
        holes = set(map(tuple, maker.unassigned_ranges()))
        unassigned = {cp for lo, hi in table["unassigned"] for cp in range(lo, hi + 1)}
        assert all(cp in unassigned for lo, hi in holes for cp in range(lo, hi + 1))   # nothing unassigned since


def test_the_pattern_of_unassigned_characters_finds_exactly_the_tables() -> None:
    """The pattern passes over the characters below the table's first at once and looks back at
    the others: over every code point, it finds exactly the characters of the table's ranges."""
    table = json.loads((Path(terms.__file__).parent / "data" / "unassigned.json").read_text(encoding="utf-8"))
    every = "".join(chr(cp) for cp in range(0x110000) if not 0xD800 <= cp < 0xE000)
    found = [ord(char) for char in terms._unassigned().findall(every)]
    assert found == [cp for lo, hi in table["unassigned"] for cp in range(lo, hi + 1) if not 0xD800 <= cp < 0xE000]
    assert terms.known_only("caf\u00e9 \u2014 \u0378x") == "caf\u00e9 \u2014  x"


@pytest.mark.parametrize("text, expected", [
    ("ka\u0898b", ["ka"]),            # a mark of Unicode 14.0: a space, so "ka" and "b" (one letter: no term)
    ("melt 🫠 🚀", ["melt", "🚀"]),    # an emoji of 14.0 is no term; one of 6.0 is
    ("𐕰𐕱 vith", ["vith"]),         # Vithkuqi (14.0), a cased script that lower-cases on 3.11 only
    ("ΑΣ𐕰", ["ας"]),              # Greek's final sigma read with a newer letter after it: a space
    ("café", ["café"]),
])
def test_characters_newer_than_unicode_13_part_words_on_every_python(text: str, expected: list[str]) -> None:
    """Every admitted Python makes the same terms: a letter or symbol assigned since Python 3.10's
    Unicode 13.0 was a term on 3.11 and none on 3.10, so their catalogs differed."""
    assert terms.tokenize(text) == expected
    assert all(terms.known_only(term) == term for term in terms.tokenize(text))
