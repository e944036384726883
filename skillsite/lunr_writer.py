"""A fast writer of serialized lunr 2.3.9 indexes, byte for byte what lunr.py would write.

lunr.py builds an index object by object (a token object per word, a vector object per
field, a pipeline call per token per stage); at 10,000 skills that took half a minute.
This module computes the same serialized index directly: words are cut as
``lunr.tokenizer`` cuts them, each distinct word goes through the pipeline once (trimmer,
stop-word filter, lunr.js's stemmer), and the BM25 field vectors use lunr.py's arithmetic
in lunr.py's order, so every score rounds to the same number.  ``tests/unit/test_lunr_writer.py``
checks the bytes against lunr.py itself, which stays the reference.
"""
from __future__ import annotations

import math
import re
from typing import Any, Callable, Mapping, Sequence

from lunr.stop_word_filter import WORDS as STOP_WORDS

#: lunr.py's tokenizer splits on these characters (lunr.js: ``/[\s\-]+/``).
_SEPARATORS = re.compile("[ \t\n\r\f\v\xa0-]+")
K1 = 1.2      # lunr's BM25 defaults
B = 0.75
LUNR_VERSION = "2.3.9"


def _words(text: str) -> list[str]:
    """The words lunr's tokenizer makes of ``text``, lower-cased."""
    return [w for w in _SEPARATORS.split(text.lower()) if w]


class _Terms:
    """Word -> index term (or None when the pipeline drops it), each word worked out once."""

    def __init__(self, trim: Callable[[str], str], stem: Callable[[str], str]):
        self.trim = trim
        self.stem = stem
        self.known: dict[str, str | None] = {}

    def __call__(self, word: str) -> str | None:
        term = self.known.get(word, "")
        if term != "":
            return term
        trimmed = self.trim(word)
        term = None if not trimmed or trimmed in _STOP_WORDS else self.stem(trimmed)
        self.known[word] = term
        return term


_STOP_WORDS = frozenset(STOP_WORDS)


def lunr_index(docs: Sequence[Mapping[str, str]], fields: Mapping[str, float], *,
               trim: Callable[[str], str], stem: Callable[[str], str], ref: str = "id",
               search_pipeline: Sequence[str] = ("stemmer",)) -> dict[str, Any]:
    """The serialized index (``lunr.Index.serialize()``) of ``docs``.

    ``fields`` maps each field to its boost, in the order the builder declared them;
    ``trim`` and ``stem`` are the builder pipeline's trimmer and stemmer (the stop-word
    filter between them is lunr's English one).
    """
    names = list(fields)
    sorted_names = sorted(names)
    terms = _Terms(trim, stem)
    inverted: dict[str, dict[str, Any]] = {}
    field_terms: list[tuple[str, str, dict[str, int]]] = []   # (field ref, field, term frequencies)
    lengths: dict[str, list[int]] = {name: [] for name in names}
    known = terms.known
    for doc in docs:
        doc_ref = str(doc[ref])
        for name in names:
            value = doc.get(name)
            frequencies: dict[str, int] = {}
            length = 0
            for word in _words(str(value)) if value is not None else ():
                term = known[word] if word in known else terms(word)
                if term is not None:
                    frequencies[term] = frequencies.get(term, 0) + 1
                    length += 1
            for term in frequencies:
                posting = inverted.get(term)
                if posting is None:  # keys in the order index._sorted_json gives them
                    posting = {"_index": len(inverted), **{field_name: {} for field_name in sorted_names}}
                    inverted[term] = posting
                posting[name][doc_ref] = {}
            field_terms.append((f"{name}/{doc_ref}", name, frequencies))
            lengths[name].append(length)
    count = len(docs)
    average = {name: sum(values) / len(values) if values else 0 for name, values in lengths.items()}
    idf: dict[str, float] = {}
    vectors = []
    position = {name: 0 for name in names}
    for field_ref, name, frequencies in field_terms:
        length = lengths[name][position[name]]
        position[name] += 1
        boost = fields[name]
        norm = K1 * (1 - B + B * (length / average[name])) if frequencies else 0.0
        elements = []
        for term, tf in frequencies.items():
            term_idf = idf.get(term)
            if term_idf is None:
                posting = inverted[term]
                with_term = sum(len(posting[field_name]) for field_name in names)
                term_idf = idf[term] = math.log(1 + abs((count - with_term + 0.5) / (with_term + 0.5)))
            score = term_idf * ((K1 + 1) * tf) / (norm + tf)
            score *= boost
            score *= 1  # the document boost lunr.py multiplies by (none here)
            elements.append((inverted[term]["_index"], round(score, 3)))
        elements.sort()
        vectors.append([field_ref, [x for pair in elements for x in pair]])
    # keys as index._sorted_json orders them; terms as JavaScript compares strings (UTF-16 code units)
    return {
        "fieldVectors": vectors,
        "fields": names,
        "invertedIndex": [[term, inverted[term]] for term in sorted(inverted, key=_utf16)],
        "pipeline": list(search_pipeline),
        "version": LUNR_VERSION,
    }


def _utf16(term: str) -> bytes:
    return term.encode("utf-16-be", "surrogatepass")


__all__ = ["lunr_index"]
