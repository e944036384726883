"""The browser's search index: ``search/lunr.json`` (read by lunr.js 2.3.9) and
``search/docs.json`` (what a result shows).

The index's refs are numbers, ``"0"``, ``"1"``, ...: a skill's row in ``docs.json`` (id, name,
description, page URL, tags, the row of the skill it is a copy of, its group's size), which lists
the skills the site's search finds (not hidden ones) in ``skills.json``'s order.
It indexes the same fields as the catalog's TF-IDF index (:data:`~skillsite.search.terms.SEARCH_FIELDS`),
with the same weights, stemmed with lunr.js's own stemmer.

lunr.py's builder makes a token object per word and a vector object per field; at 10,000
skills that took half a minute.  :func:`lunr_index` computes the same serialized index
directly, byte for byte what lunr.py writes with this configuration (lunr.py stays the
reference: :mod:`skillsite.search.lunr_reference`, and the tests compare the two).
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from skillsite.search.bm25 import build_search_section
from skillsite.search.stemmer import stem
from skillsite.search.terms import (SEARCH_FIELDS, STOP_WORDS, folded, is_term, known_only, mark_class,
                                    search_fields, symbol_runs, words)

LUNR_FILE = "search/lunr.json"
DOCS_FILE = "search/docs.json"
DOCS_FORMAT = "skillsite-search-docs"
DOCS_FIELDS = ("id", "name", "description", "url", "tags", "copy_of", "copies", "hidden_tags")
LUNR_VERSION = "2.3.9"
K1 = 1.2      # lunr's BM25 defaults
B = 0.75

#: The characters lunr.py's tokenizer splits on (lunr.js: ``/[\s\-]+/``).
_SEPARATOR_CHARS = " \t\n\r\f\v\xa0-"
_SEPARATORS = re.compile(f"[{_SEPARATOR_CHARS}]+")
#: Characters JavaScript's ``\s`` matches that lunr.py's tokenizer does not split on: turned into
#: spaces first, so both cut text into the same words.
_JS_ONLY_SPACE = re.compile("[\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]")
#: ASCII punctuation but the hyphen (a separator of lunr's tokenizer), and the control characters
#: it does not split on: where an ASCII word may hold more than one word of terms.words
#: ("mcp.json", "user's", "snake_case", "quokka" U+0001 "wombats").
_INNER_PUNCTUATION = re.compile(r"[\x00-\x08\x0e-\x1f!-,./:-@\[-`{-~\x7f]")
#: A word as lunr's tokenizer cuts text: between its separators (not Python's ``\s``, which
#: U+001C to U+001F and U+0085 match too, where neither lunr splits).
_WORD = re.compile(f"[^{_SEPARATOR_CHARS}]+")
#: A word as the index keeps it: from its first word character (letter, digit or "_") to its last
#: one and the combining marks after it ("हिन्दी" ends with a mark, "love❤️" keeps "love"), as
#: ranking.js's trim cuts a query word (lunr.js's trimmer keeps ASCII ones only, so "café" would
#: be indexed as "caf"; for ASCII words the two agree).
WORD_CORE = re.compile(rf"\w(?:.*\w)?[{mark_class()}]*", re.S)


@dataclass(frozen=True)
class SearchIndexes:
    """What the search stage contributes: ``skills.json["search"]`` and the browser's files."""

    manifest_search: dict[str, Any] | None
    files: dict[str, bytes] = field(default_factory=dict)


def lunr_boosts() -> dict[str, float]:
    """Field boosts as lunr writes them (whole numbers as integers)."""
    return {name: int(boost) if float(boost).is_integer() else boost for name, boost in SEARCH_FIELDS.items()}


def _indexed_text(text: str) -> str:
    """A search field's text as lunr reads it: only characters every admitted Python knows
    (:func:`~skillsite.search.terms.known_only`), folded, JavaScript's spaces made spaces, and
    its words' parts beside it."""
    return with_word_parts(_JS_ONLY_SPACE.sub(" ", folded(known_only(text))))


def lunr_documents(entries: Sequence[dict[str, Any]]) -> list[dict[str, str]]:
    """One lunr document per manifest entry: ``id``, the ref (the entry's position, as a string),
    and every search field, lower-cased and composed (:func:`~skillsite.search.terms.folded`, as
    the page folds a query: "cafe" + U+0301 and "café" are one term)."""
    docs = []
    for position, entry in enumerate(entries):
        fields = search_fields(entry)
        docs.append({"id": str(position), **{name: _indexed_text(fields[name]) for name in SEARCH_FIELDS}})
    return docs


def with_word_parts(text: str) -> str:
    """``text`` with, after each word (as lunr's tokenizer cuts text: at spaces and hyphens), the
    search words ``skillsite search`` cuts it into when they are not the word itself ("AWS/GCP/Azure
    AWS GCP Azure", "l'été été", "v2.0 v2", "well‐known well known"), as a word delimiter filter
    keeping the original does; and its runs of symbols when it has letters too ("ready🚀 🚀"),
    which the trimmer would drop with the word's edges. The page then finds what the CLI finds."""
    return _WORD.sub(_word_and_parts, text) if _INNER_PUNCTUATION.search(text) or not text.isascii() else text


def _word_and_parts(match: re.Match[str]) -> str:
    """A word, then its search words (:func:`word_parts`), then its runs of symbols
    (:func:`glued_symbols`)."""
    word = match.group()
    extra = [*word_parts(word), *glued_symbols(word)]
    return " ".join([word, *extra]) if extra else word


def word_parts(word: str) -> list[str]:
    """The words of terms.tokenize in ``word`` (terms.words: runs of letters and digits with
    their marks; those terms.is_term keeps), unless that is the trimmed word alone:
    lunr's term of "l'été", "rock'n'roll" or "emoji🎉party" is the whole word, so a query "été",
    "roll" or "party" would find no term, where `skillsite search` finds the skill."""
    parts = [part for part in words(word) if is_term(part)]
    return [] if len(parts) == 1 and parts[0] == trim_word(word) else parts


def glued_symbols(word: str) -> list[str]:
    """The runs of symbols of a word that also has a letter or digit ("ready🚀", "✅done"): terms of
    ``skillsite search`` (terms.tokenize) that the index's trimmed word ("ready") does not hold."""
    return symbol_runs(word) if not word.isascii() and WORD_CORE.search(word) else []


class _Terms:
    """Word -> index term (None when the pipeline drops it): trimmed, stop words out, stemmed."""

    def __init__(self, trim: Callable[[str], str], stem_word: Callable[[str], str]):
        self.trim, self.stem = trim, stem_word
        self.known: dict[str, str | None] = {}

    def __call__(self, word: str) -> str | None:
        if word not in self.known:
            trimmed = self.trim(word)
            self.known[word] = None if not trimmed or trimmed in STOP_WORDS else self.stem(trimmed)
        return self.known[word]


def _frequencies(text: str | None, terms: _Terms) -> tuple[dict[str, int], int]:
    """Term frequencies of one field of one document, and its length in terms."""
    frequencies: dict[str, int] = {}
    length = 0
    for word in _SEPARATORS.split(text.lower()) if text is not None else ():
        term = terms(word) if word else None
        if term is not None:
            frequencies[term] = frequencies.get(term, 0) + 1
            length += 1
    return frequencies, length


def _score(tf: int, idf: float, length: int, average: float, boost: float) -> float:
    """lunr.py's BM25 field score, in lunr.py's order of operations (so it rounds the same)."""
    norm = K1 * (1 - B + B * (length / average))
    return round(idf * ((K1 + 1) * tf) / (norm + tf) * boost * 1, 3)


def lunr_index(docs: Sequence[Mapping[str, str]], fields: Mapping[str, float], *,
               trim: Callable[[str], str], stem_word: Callable[[str], str]) -> dict[str, Any]:
    """The serialized index (``lunr.Index.serialize()``) of ``docs``, refs in their ``id``.

    ``fields`` maps each field to its boost, in the order the builder declared them; ``trim``
    and ``stem_word`` are the pipeline's trimmer and stemmer (lunr's English stop-word filter,
    :data:`~skillsite.search.terms.STOP_WORDS`, runs between them).
    """
    names, terms = list(fields), _Terms(trim, stem_word)
    postings: dict[str, dict[str, Any]] = {}
    field_terms: list[tuple[str, str, dict[str, int], int]] = []   # (field ref, field, frequencies, length)
    for doc in docs:
        for name in names:
            frequencies, length = _frequencies(doc.get(name), terms)
            for term in frequencies:  # posting keys in the order lunr.py sorts them
                postings.setdefault(term, {"_index": len(postings), **{n: {} for n in sorted(names)}})
                postings[term][name][str(doc["id"])] = {}
            field_terms.append((f"{name}/{doc['id']}", name, frequencies, length))
    lengths = {n: [length for _, f, _, length in field_terms if f == n] for n in names}
    average = {n: sum(values) / len(values) if values else 0 for n, values in lengths.items()}
    idf = {term: math.log(1 + abs((len(docs) - count + 0.5) / (count + 0.5)))
           for term, posting in postings.items() for count in [sum(len(posting[n]) for n in names)]}
    vectors = []
    for field_ref, name, frequencies, length in field_terms:
        elements = sorted((postings[term]["_index"], _score(tf, idf[term], length, average[name], fields[name]))
                          for term, tf in frequencies.items())
        vectors.append([field_ref, [x for pair in elements for x in pair]])
    return {"fieldVectors": vectors, "fields": names,
            "invertedIndex": [[term, postings[term]] for term in sorted(postings, key=js_string_order)],
            "pipeline": ["stemmer"], "version": LUNR_VERSION}


def js_string_order(term: str) -> bytes:
    """Sort key comparing strings as JavaScript's ``<`` does: by UTF-16 code units (lunr.js's
    ``Index.load`` refuses terms in any other order)."""
    return term.encode("utf-16-be", "surrogatepass")


def lunr_bytes(entries: Sequence[dict[str, Any]]) -> bytes:
    """``search/lunr.json`` for manifest ``entries``: compact, deterministic JSON."""
    index = lunr_index(lunr_documents(entries), lunr_boosts(), trim=trim_word, stem_word=stem)
    return json.dumps(index, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def trim_word(word: str) -> str:
    """A token of lunr's tokenizer as the index keeps it: without non-word characters at either
    end, but for the combining marks of its last letter (:data:`WORD_CORE`); one of symbols only
    ("🚀") keeps its symbols (terms.symbol_runs), as the page's query does."""
    core = WORD_CORE.search(word)
    return core.group() if core else "".join(symbol_runs(word))


def docs_json(entries: Sequence[dict[str, Any]], every: Sequence[dict[str, Any]] = ()) -> bytes:
    """``search/docs.json``: one row per entry given, in their order (row ``i`` is lunr ref
    ``"i"``), of :data:`DOCS_FIELDS`: what a search result shows and what the tag filter needs;
    a copy of another skill names its row (-1: none), and each row its group's size and the tags
    of each copy of it among ``every`` (all published skills) that has no row (hidden from the
    site): the tag filter lets the canonical member stand for them, as search does."""
    row_of = {e["id"]: row for row, e in enumerate(entries)}
    hidden_tags: dict[int, list[list[str]]] = {}
    for e in every:
        if e["id"] not in row_of and (e.get("copy_of") or "") in row_of:
            hidden_tags.setdefault(row_of[e["copy_of"]], []).append(list(dict.fromkeys(e["tags"])))
    rows = [[e["id"], e["name"], e["description"], e["urls"]["page"], list(dict.fromkeys(e["tags"])),
             row_of.get(e.get("copy_of") or "", -1), e.get("copies", 1), hidden_tags.get(row, [])]
            for row, e in enumerate(entries)]
    data = {"format": DOCS_FORMAT, "version": 1, "fields": list(DOCS_FIELDS), "docs": rows}
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def build_indexes(entries: Sequence[dict[str, Any]], browsed: Sequence[dict[str, Any]] | None = None
                  ) -> SearchIndexes:
    """Both indexes: skills.json's of the published skills (``entries`` in manifest order), the
    browser's of ``browsed`` (the skills the site lists, in the same order; default: all)."""
    browsed = entries if browsed is None else browsed
    return SearchIndexes(build_search_section(entries), {LUNR_FILE: lunr_bytes(browsed),
                                                                DOCS_FILE: docs_json(browsed, entries)})
