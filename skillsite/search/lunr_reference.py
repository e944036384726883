"""lunr.py configured as the browser's index is built: the reference :mod:`.lunr_index` is
tested against, and a reader of written indexes (queries stemmed as lunr.js stems them).

lunr.py's own English stemmer differs from lunr.js's on a final ``y`` after a vowel
(``deploy`` -> ``deploi``); every pipeline here uses :func:`skillsite.search.stemmer.stem`.
"""
from __future__ import annotations

import json
import re
from typing import Any, Sequence

from lunr.builder import Builder
from lunr.index import Index
from lunr.pipeline import Pipeline
from lunr.stop_word_filter import stop_word_filter
from lunr.token import Token

from skillsite.search.lunr_index import LUNR_VERSION, js_string_order, lunr_boosts, lunr_documents, trim_word
from skillsite.search.stemmer import stem

# A JavaScript object iterates keys that are canonical array indices first, in numeric order,
# then the others in insertion order; JSON written in that order is iterated the same way by
# lunr.js and by lunr.py (which keeps the file's order), so ties rank identically in both.
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]{0,9}")


def lunr_js_stemmer(token: Token, i: int | None = None, tokens: Any = None) -> Token:
    """lunr.py pipeline function that stems exactly as lunr.js 2.3.9's ``lunr.stemmer``."""
    return token.update(lambda text, metadata=None: stem(text))


lunr_js_stemmer.label = "stemmer"  # type: ignore[attr-defined]


def word_trimmer(token: Token, i: int | None = None, tokens: Any = None) -> Token | None:
    """Strip non-word characters from both ends (a token of symbols only keeps them:
    lunr_index.trim_word); drop what is left empty."""
    token.update(lambda text, metadata=None: trim_word(text))
    return token if token.string else None


word_trimmer.label = "trimmer"  # type: ignore[attr-defined]


def lunr_builder() -> Builder:
    """A lunr.py builder configured as lunr.js's default one, with lunr.js's stemmer and a
    Unicode-aware trimmer."""
    builder = Builder()
    builder.pipeline.add(word_trimmer, stop_word_filter, lunr_js_stemmer)
    builder.search_pipeline.add(lunr_js_stemmer)
    builder.ref("id")
    for name, boost in lunr_boosts().items():
        builder.field(name, boost=boost)
    return builder


def build_lunr(entries: Sequence[dict[str, Any]]) -> Index:
    """The lunr.py index of manifest ``entries``."""
    builder = lunr_builder()
    for doc in lunr_documents(entries):
        builder.add(doc)
    return builder.build()


def _js_key_order(key: str) -> tuple[int, int, str]:
    """Sort key that orders object keys as a JavaScript engine iterates them."""
    if _ARRAY_INDEX.fullmatch(key) and int(key) < 2**32 - 1:
        return (0, int(key), "")
    return (1, 0, key)


def _sorted_json(value: Any) -> Any:
    """``value`` with every object's keys in JavaScript iteration order."""
    if isinstance(value, dict):
        return {k: _sorted_json(value[k]) for k in sorted(value, key=_js_key_order)}
    if isinstance(value, list):
        return [_sorted_json(v) for v in value]
    return value


def lunr_json(index: Index) -> bytes:
    """A lunr.py index serialized as ``search/lunr.json`` is: compact, keys in JavaScript's
    iteration order, terms in JavaScript's string order."""
    data = index.serialize()
    data["version"] = LUNR_VERSION
    data["invertedIndex"] = sorted(data["invertedIndex"], key=lambda item: js_string_order(item[0]))
    return json.dumps(_sorted_json(data), ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def load_lunr(data: bytes | str) -> Index:
    """A serialized lunr index read back with lunr.py, stemming queries as lunr.js does.

    The index names its search pipeline (``["stemmer"]``); lunr.py resolves that name through
    its registry, so the lunr.js stemmer is registered under it here, where an index is read
    (this process's lunr.py then stems every loaded index's queries as lunr.js does).
    """
    if Pipeline.registered_functions.get("stemmer") is not lunr_js_stemmer:
        Pipeline.registered_functions["stemmer"] = lunr_js_stemmer  # register_function would log a warning
    serialized = json.loads(data)
    serialized["invertedIndex"].sort(key=lambda item: item[0])  # lunr.py wants code-point order
    return Index.load(serialized)
