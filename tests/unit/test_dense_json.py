"""JSON from a catalog's host that would take many times its size in memory is refused before
it is decoded (``skillsite.bounded.too_dense``), and skillsite's own files are far from that bound."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillsite.agent.errors import CatalogFormatError
from skillsite.agent.manifest_check import decode_json
from skillsite.bounded import DENSE_ABOVE_BYTES, MIN_BYTES_PER_VALUE, too_dense
from skillsite.search.shard_query import parse_json

#: 2 MiB of empty lists: 2 bytes of memory in 60 for each 3 of text.
EMPTY_LISTS = b"[" + b"[]," * 700_000 + b"[]]"


def marks(body: bytes) -> int:
    return body.count(b",") + body.count(b"[") + body.count(b"{")


def test_a_catalog_file_of_empty_lists_is_refused_before_it_is_decoded() -> None:
    with pytest.raises(CatalogFormatError, match=r"site/skills\.json is not a usable catalog: it has 1,400,002 "
                                                 r"commas and opening brackets in 2,100,004 bytes, more than one "
                                                 r"per 8 bytes"):
        decode_json(EMPTY_LISTS, "site/skills.json")


def test_a_search_file_of_empty_objects_is_refused_before_it_is_decoded() -> None:
    body = b'{"keys":[' + b"{}," * 700_000 + b"{}]}"
    with pytest.raises(ValueError, match=r"search/terms/0001\.json has 1,400,003 commas and opening brackets"):
        parse_json(body, "search/terms/0001.json")


def test_small_files_are_decoded_however_dense() -> None:
    small = b"[" + b"[]," * (DENSE_ABOVE_BYTES // 3 - 2) + b"[]]"
    assert len(small) <= DENSE_ABOVE_BYTES and too_dense(small) is None
    assert len(decode_json(small, "small.json")) == DENSE_ABOVE_BYTES // 3 - 1


def test_a_large_catalog_shaped_as_skillsite_writes_it_is_decoded(site: Path) -> None:
    """The example catalog's entries, repeated past the size checked, pass with room to spare."""
    manifest = json.loads((site / "skills.json").read_bytes())
    entries = manifest["skills"]
    manifest["skills"] = entries * (3 * DENSE_ABOVE_BYTES // len(json.dumps(entries)) + 1)
    body = json.dumps(manifest, ensure_ascii=False, separators=(",", ":")).encode()
    assert len(body) > 2 * DENSE_ABOVE_BYTES
    assert len(body) >= 2 * MIN_BYTES_PER_VALUE * marks(body)
    assert decode_json(body, "skills.json")["skills"][-1] == entries[-1]
