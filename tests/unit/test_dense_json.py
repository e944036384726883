"""JSON from a catalog's host that would take too much memory decoded is refused before it is
decoded (``skillsite.bounded.too_dense``), and skillsite's own files are far from that bound."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillsite.agent.errors import CatalogFormatError
from skillsite.agent.manifest_check import decode_json
from skillsite.bounded import CONTAINER_BYTES, MAX_DECODED_BYTES, VALUE_BYTES, too_dense
from skillsite.search.shard_query import parse_json

#: 6.6 MB of empty lists: 64 bytes of memory or more for each 3 of text.
EMPTY_LISTS = b"[" + b"[]," * 2_200_000 + b"[]]"


def estimate(body: bytes) -> int:
    return body.count(b",") * VALUE_BYTES + (body.count(b"[") + body.count(b"{")) * CONTAINER_BYTES


def test_a_catalog_file_of_empty_lists_is_refused_before_it_is_decoded() -> None:
    with pytest.raises(CatalogFormatError, match=r"site/skills\.json is not a usable catalog: it would take about "
                                                 r"[0-9,]+ MiB of memory decoded \(2,200,000 commas and 2,200,002 "
                                                 r"opening brackets in 6,600,004 bytes\), over the 512 MiB"):
        decode_json(EMPTY_LISTS, "site/skills.json")


def test_a_search_file_of_small_objects_is_refused_before_it_is_decoded() -> None:
    body = b'{"keys":[' + b'{"a":1},' * 2_200_000 + b"{}]}"
    with pytest.raises(ValueError, match=r"search/terms/0001\.json would take about [0-9,]+ MiB of memory decoded"):
        parse_json(body, "search/terms/0001.json")


def test_a_dense_file_under_the_estimate_is_decoded() -> None:
    """1.5 MB of empty lists (about 130 MiB estimated) decodes: the bound is on memory, not density."""
    dense = b"[" + b"[]," * 500_000 + b"[]]"
    assert estimate(dense) <= MAX_DECODED_BYTES and too_dense(dense) is None
    assert len(decode_json(dense, "dense.json")) == 500_001


def test_a_large_catalog_shaped_as_skillsite_writes_it_is_decoded(site: Path) -> None:
    """The example catalog's entries (and its search index), repeated to 24 MB, are far from the bound."""
    manifest = json.loads((site / "skills.json").read_bytes())
    entries = manifest["skills"]
    manifest["skills"] = entries * (26 * 1024 * 1024 // len(json.dumps(entries)) + 1)
    body = json.dumps(manifest, ensure_ascii=False, separators=(",", ":")).encode()
    assert len(body) > 24 * 1024 * 1024
    assert estimate(body) < MAX_DECODED_BYTES // 2
    assert decode_json(body, "skills.json")["skills"][-1] == entries[-1]
