"""Indented JSON composed of rows encoded once (#47): a catalog-wide listing (the discovery
indexes, the provider layout's list, the marketplace) holds one row per skill, and ``serve``
keeps each unchanged skill's row between builds instead of encoding the whole listing again.
The bytes are :func:`~skillsite.publish.manifest.indented_json`'s of the whole document, the
rows and the rest of it each encoded by the json module."""
from __future__ import annotations

import json
from typing import Any, Callable, Sequence

from skillsite.publish.manifest import indented_json

#: What a document holds in place of its rows while the rest of it is encoded.
_SLOT = "\0the rows of the document\0"
_SLOT_JSON = json.dumps(_SLOT).encode("utf-8")
_ROW_ENCODER = json.JSONEncoder(indent=1, ensure_ascii=False)
_STRING_ENCODER = json.JSONEncoder(ensure_ascii=False)

#: A document made of the list of its rows (as values, or the placeholder of the rows): the list
#: must be the document's last value, as in ``{"name": ..., "skills": [...]}``.
Document = Callable[[list[Any]], Any]


def row_json(value: Any) -> str:
    """One row as :func:`composed_json` takes it: its indented JSON, as if it stood alone."""
    return _ROW_ENCODER.encode(value)


def encode_string(text: str) -> str:
    """A row that is a string, as :func:`row_json` encodes it, by the json module's C encoder."""
    return _STRING_ENCODER.encode(text)


def composed_json(document: Document, rows: Sequence[str]) -> bytes:
    """``indented_json(document([value of each row]))`` of ``rows`` (:func:`row_json` each): the
    rest of the document encoded with a placeholder for the rows, which go in its place, each
    line indented as deep as the list holds it.  ValueError when the rows are not the
    document's last value (something after them would be lost)."""
    if not rows:
        return indented_json(document([]))
    head, slot, tail = indented_json(document([_SLOT])).rpartition(_SLOT_JSON)
    if not slot or tail.strip(b"]}\n "):
        raise ValueError("the rows must be the document's last value")
    indent = "\n" + head[head.rindex(b"\n") + 1:].decode("utf-8")
    return head + ",\n".join(rows).replace("\n", indent).encode("utf-8") + tail
