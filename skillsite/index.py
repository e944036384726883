"""The search stage: the precomputed TF-IDF (BM25F) section of ``skills.json`` and the
browser's lunr index (``search/lunr.json``, read by lunr.js 2.3.9) with its documents
(``search/docs.json``).

The lunr index's refs are numbers, ``"0"``, ``"1"``, ...: a skill's position in the manifest's
``skills`` array, which is also its row in ``search/docs.json`` (id, name, description, page
URL, tags). Skill ids as refs were repeated in every posting and field vector and made up
two thirds of the index; the catalog's page needs the names and descriptions anyway to draw
results before its long skill list is parsed.

Both index the same text of every skill (:func:`skillsite.loader.search_fields`) with the
same field weights (:data:`skillsite.loader.SEARCH_FIELDS`), and both stem with lunr.js's
own Porter stemmer (:func:`skillsite.loader.stem`), so a lunr index written here is read by
lunr.js exactly as lunr.py reads it (the stock lunr.py stemmer differs from lunr.js's on a
final ``y`` after a vowel: ``deploy`` -> ``deploi``; see DESIGN.md §5).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Sequence

from lunr.builder import Builder
from lunr.index import Index
from lunr.pipeline import Pipeline
from lunr.stop_word_filter import stop_word_filter
from lunr.token import Token

from skillsite.search.bm25 import build_search_section
from skillsite.search.stemmer import stem
from skillsite.search.terms import SEARCH_FIELDS, search_fields
from skillsite.lunr_writer import lunr_index
from skillsite.models import Skill

LUNR_FILE = "search/lunr.json"
DOCS_FILE = "search/docs.json"
DOCS_FORMAT = "skillsite-search-docs"
DOCS_FIELDS = ("id", "name", "description", "url", "tags")
# A JavaScript object iterates keys that are canonical array indices first, in numeric order,
# then the others in insertion order; JSON written in that order is iterated the same way by
# lunr.js and by lunr.py (which keeps the file's order), so ties rank identically in both.
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]{0,9}")

# Characters JavaScript's \s matches that lunr.py's tokenizer does not split on: turned into
# spaces first, so lunr.py cuts text into the same words as lunr.tokenizer (/[\s\-]+/).
_JS_ONLY_SPACE = re.compile("[\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]")


@dataclass(frozen=True)
class SearchIndexes:
    """What the search stage contributes: ``skills.json["search"]`` and extra site files."""

    manifest_search: dict[str, Any] | None
    files: dict[str, bytes] = field(default_factory=dict)


def lunr_js_stemmer(token: Token, i: int | None = None, tokens: Any = None) -> Token:
    """lunr.py pipeline function that stems exactly as lunr.js 2.3.9's ``lunr.stemmer``."""
    return token.update(lambda text, metadata=None: stem(text))


_EDGES = re.compile(r"^\W+|\W+\Z")


def word_trimmer(token: Token, i: int | None = None, tokens: Any = None) -> Token | None:
    """Builder pipeline function: strip non-word characters from both ends; drop what is left empty.

    lunr.js's trimmer strips ASCII ``\\W`` (so "café" is indexed as "caf", which a query "café"
    can never find) and keeps empty tokens ("&" becomes ""); for ASCII words this one is
    identical.  Only the builder runs it: a serialized index names its search pipeline, not this.
    """
    token.update(lambda text, metadata=None: _EDGES.sub("", text))
    return token if token.string else None


word_trimmer.label = "trimmer"  # type: ignore[attr-defined]


def use_lunr_js_stemmer() -> None:
    """Make lunr.py's registered ``stemmer`` the lunr.js one.

    A serialized index names its search pipeline (``["stemmer"]``); lunr.js resolves that to
    its own stemmer, and after this call :meth:`lunr.index.Index.load` in Python resolves it
    to :func:`lunr_js_stemmer`, so both stem queries identically.  Idempotent.
    """
    lunr_js_stemmer.label = "stemmer"  # type: ignore[attr-defined]
    Pipeline.registered_functions["stemmer"] = lunr_js_stemmer


use_lunr_js_stemmer()


def _lunr_text(text: str) -> str:
    return _JS_ONLY_SPACE.sub(" ", text)


def lunr_documents(entries: Sequence[dict[str, Any]]) -> list[dict[str, str]]:
    """One lunr document per manifest entry: ``id``, the ref (the entry's position, as a string),
    plus every search field."""
    docs = []
    for position, entry in enumerate(entries):
        fields = search_fields(entry)
        docs.append({"id": str(position), **{name: _lunr_text(fields[name]) for name in SEARCH_FIELDS}})
    return docs


def lunr_builder() -> Builder:
    """A lunr.py builder configured as lunr.js's default one, with lunr.js's stemmer and a
    Unicode-aware trimmer (:func:`word_trimmer`)."""
    builder = Builder()
    builder.pipeline.add(word_trimmer, stop_word_filter, lunr_js_stemmer)
    builder.search_pipeline.add(lunr_js_stemmer)
    builder.ref("id")
    for name, boost in SEARCH_FIELDS.items():
        builder.field(name, boost=_lunr_boost(boost))
    return builder


def build_lunr(entries: Sequence[dict[str, Any]]) -> Index:
    """The lunr index of manifest ``entries``."""
    builder = lunr_builder()
    for doc in lunr_documents(entries):
        builder.add(doc)
    return builder.build()


def _js_key_order(key: str) -> tuple[int, int, str]:
    """Sort key that orders object keys as a JavaScript engine iterates them (see _ARRAY_INDEX)."""
    if _ARRAY_INDEX.fullmatch(key) and int(key) < 2**32 - 1:
        return (0, int(key), "")
    return (1, 0, key)


def _sorted_json(value: Any) -> Any:
    """``value`` with every object's keys in JavaScript iteration order (deterministic)."""
    if isinstance(value, dict):
        return {k: _sorted_json(value[k]) for k in sorted(value, key=_js_key_order)}
    if isinstance(value, list):
        return [_sorted_json(v) for v in value]
    return value


def lunr_json(index: Index) -> bytes:
    """The serialized index as compact, deterministic JSON for ``lunr.Index.load``.

    Object keys are written in the order lunr.js iterates them (numeric refs in numeric
    order), so lunr.py, reading the file in its order, breaks ties between equal scores as
    lunr.js does."""
    data = index.serialize()
    data["version"] = "2.3.9"  # the lunr.js version it is written for
    return _lunr_dump(data)


def _js_string_order(term: str) -> bytes:
    """Sort key comparing strings as JavaScript's ``<`` does: by UTF-16 code units."""
    return term.encode("utf-16-be", "surrogatepass")


def _lunr_dump(data: dict[str, Any]) -> bytes:
    """Terms in JavaScript's order: lunr.js's ``Index.load`` refuses any other (Python's code-point
    order differs for a term with a character past U+FFFF next to one in U+E000-U+FFFF)."""
    data = {**data, "invertedIndex": sorted(data["invertedIndex"], key=lambda item: _js_string_order(item[0]))}
    return json.dumps(_sorted_json(data), ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def docs_json(entries: Sequence[dict[str, Any]]) -> bytes:
    """``search/docs.json``: one row per manifest entry, in manifest order (row ``i`` is lunr ref
    ``"i"``), of :data:`DOCS_FIELDS`: what a search result shows and what the tag filter needs."""
    rows = [[e["id"], e["name"], e["description"], e["urls"]["page"], list(dict.fromkeys(e["tags"]))]
            for e in entries]
    data = {"format": DOCS_FORMAT, "version": 1, "fields": list(DOCS_FIELDS), "docs": rows}
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def load_lunr(data: bytes | str) -> Index:
    """A serialized lunr index read back with lunr.py (stemming queries as lunr.js does)."""
    use_lunr_js_stemmer()
    serialized = json.loads(data)
    serialized["invertedIndex"].sort(key=lambda item: item[0])  # lunr.py wants code-point order
    return Index.load(serialized)


def _lunr_boost(boost: float) -> float:
    return int(boost) if float(boost).is_integer() else boost


def lunr_bytes(entries: Sequence[dict[str, Any]]) -> bytes:
    """``search/lunr.json`` for manifest ``entries``: what ``lunr_json(build_lunr(entries))``
    gives, computed directly (:mod:`skillsite.lunr_writer`; lunr.py stays the reference)."""
    index = lunr_index(lunr_documents(entries), {name: _lunr_boost(b) for name, b in SEARCH_FIELDS.items()},
                       trim=lambda word: _EDGES.sub("", word), stem=stem)
    # lunr_index gives keys and terms in the order _lunr_dump would sort them into
    return json.dumps(index, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def build_indexes(skills: Sequence[Skill], entries: Sequence[dict[str, Any]]) -> SearchIndexes:
    """Both indexes of the published skills (``entries`` in manifest order)."""
    del skills  # everything searched is in the manifest entries
    return SearchIndexes(build_search_section(entries),
                         {LUNR_FILE: lunr_bytes(entries), DOCS_FILE: docs_json(entries)})


__all__ = ["LUNR_FILE", "DOCS_FILE", "SearchIndexes", "build_indexes", "build_lunr", "docs_json", "load_lunr",
           "lunr_builder", "lunr_bytes", "lunr_documents", "lunr_js_stemmer", "lunr_json", "word_trimmer",
           "use_lunr_js_stemmer"]
