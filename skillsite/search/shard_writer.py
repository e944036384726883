"""Writes the sharded search index (format: :mod:`.shard_format`): the meta file, the term and
tag chunks, and the result cards.  Deterministic: the same skills give the same bytes.

The postings are :mod:`.bm25`'s own (the same saturation, quantisation and idf), numbered in
the shards' skill order, so a sharded catalog ranks exactly as an unsharded one.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

from skillsite.search.bm25 import (BM25_B, BM25_K1, MAX_EXPANSIONS, MIN_PREFIX, PREFIX_FACTOR, WEIGHT_LEVELS, idf,
                                   term_postings)
from skillsite.search.shard_format import (CARD_BUCKET, CARD_FIELDS, CARDS_DIR, CARDS_PER_FOLDER, CHUNK_BYTES,
                                           DESCRIPTION_LIMIT, SHARDS_FILE, SHARDS_FORMAT, SHARDS_VERSION, TAGS_DIR,
                                           TERMS_DIR, card_path, chunk_path, encode_postings)
from skillsite.search.terms import SEARCH_FIELDS

#: One key of a chunk: (key, document frequency, idf or None, encoded postings).
Item = tuple[str, int, "float | None", str]


@dataclass(frozen=True)
class Shards:
    """The index's files (meta and chunks, by site-relative path) and skills.json's ``search``
    section that points at the meta file."""

    files: dict[str, bytes]
    section: dict[str, Any]


def compact(data: Any) -> bytes:
    """Compact, deterministic JSON."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def doc_order(entries: Sequence[dict[str, Any]]) -> list[int]:
    """Positions of ``entries`` in the shards' skill order: priority (higher first), then id."""
    return sorted(range(len(entries)), key=lambda i: (-int(entries[i].get("priority") or 0), entries[i]["id"]))


def _term_items(ordered: Sequence[dict[str, Any]]) -> Iterator[Item]:
    """Every index term of ``ordered`` (entries in skill order), sorted, with its postings."""
    postings = term_postings(ordered)
    for term in sorted(postings):
        found = postings[term]
        yield (term, len(found), idf(len(found), len(ordered)),
               encode_postings([d for d, _ in found], bytes(q for _, q in found)))


def _tag_items(ordered: Sequence[dict[str, Any]]) -> Iterator[Item]:
    """Every tag of ``ordered`` (lower-cased, as the tag filter compares them), sorted, with its skills."""
    skills: dict[str, list[int]] = {}
    for doc, entry in enumerate(ordered):
        for tag in sorted({str(t).lower() for t in entry.get("tags") or ()}):
            skills.setdefault(tag, []).append(doc)
    for tag in sorted(skills):
        yield tag, len(skills[tag]), None, encode_postings(skills[tag])


def _item_bytes(item: Item) -> int:
    """About what an item adds to its chunk's JSON."""
    key, df, idf, data = item
    return len(compact(key)) + len(str(df)) + (len(repr(idf)) + 1 if idf is not None else 0) + len(data) + 5


def _chunked(items: Iterator[Item], budget: int) -> Iterator[list[Item]]:
    """Items in runs that close once they hold ``budget`` bytes."""
    chunk: list[Item] = []
    size = 0
    for item in items:
        chunk.append(item)
        size += _item_bytes(item)
        if size >= budget:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


def _chunk_json(chunk: list[Item]) -> dict[str, Any]:
    data: dict[str, Any] = {"terms": [i[0] for i in chunk], "df": [i[1] for i in chunk]}
    if chunk[0][2] is not None:
        data["idf"] = [i[2] for i in chunk]
    data["postings"] = [i[3] for i in chunk]
    return data


def _chunk_set(folder: str, items: Iterator[Item], chunks: dict[str, dict[str, Any]], budget: int) -> dict[str, Any]:
    """Put a chunk set's chunks into ``chunks`` (by path); its description in the meta file."""
    first = []
    for number, chunk in enumerate(_chunked(items, budget)):
        chunks[chunk_path(folder, number)] = _chunk_json(chunk)
        first.append(chunk[0][0])
    return {"path": folder, "first": first}


def index_id(chunks: dict[str, dict[str, Any]]) -> str:
    """What names one build of the index: the sha256 of every chunk's path and JSON."""
    sha = hashlib.sha256()
    for path in sorted(chunks):
        sha.update(path.encode("utf-8") + b"\0" + compact(chunks[path]) + b"\0")
    return sha.hexdigest()


def build_shards(entries: Sequence[dict[str, Any]], budget: int = CHUNK_BYTES) -> Shards:
    """The sharded index of manifest ``entries`` (any order: the shards number skills themselves),
    in chunks of about ``budget`` bytes."""
    ordered = [entries[i] for i in doc_order(entries)]
    chunks: dict[str, dict[str, Any]] = {}
    terms = _chunk_set(TERMS_DIR, _term_items(ordered), chunks, budget)
    tags = _chunk_set(TAGS_DIR, _tag_items(ordered), chunks, budget)
    index = index_id(chunks)
    meta = {
        "format": SHARDS_FORMAT, "version": SHARDS_VERSION, "index": index, "model": "bm25f",
        "fields": dict(SEARCH_FIELDS), "k1": BM25_K1, "b": BM25_B,
        "weight_unit": round((BM25_K1 + 1.0) / WEIGHT_LEVELS, 9),
        "prefix": {"factor": PREFIX_FACTOR, "min_length": MIN_PREFIX, "max_expansions": MAX_EXPANSIONS},
        "docs": len(ordered), "terms": terms, "tags": tags,
        "cards": {"path": CARDS_DIR, "bucket": CARD_BUCKET, "per_folder": CARDS_PER_FOLDER, "fields": list(CARD_FIELDS)},
    }
    files = {path: compact({"index": index, **chunk}) for path, chunk in chunks.items()}
    files[SHARDS_FILE] = data = compact(meta)
    return Shards(files, {"sharded": SHARDS_FILE, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)})


def card_row(skill_id: str, name: str, description: str, url: str, tags: Sequence[str], risk: str = "none",
             listed: bool = True, offered: bool = True) -> list[Any]:
    """One result card, in CARD_FIELDS order (a description over DESCRIPTION_LIMIT is clipped)."""
    if len(description) > DESCRIPTION_LIMIT:
        description = description[:DESCRIPTION_LIMIT - 1] + "…"
    return [skill_id, name, description, url, list(dict.fromkeys(str(t) for t in tags)), risk, listed, offered]


def card_files(rows: Sequence[list[Any]], index: str) -> dict[str, bytes]:
    """The card buckets of ``rows`` (cards in skill order), by path; each names its ``index``
    (the meta file's), so a reader notices cards of another build than its meta file."""
    return {card_path(bucket): compact({"index": index, "first": start, "cards": list(rows[start:start + CARD_BUCKET])})
            for bucket, start in enumerate(range(0, len(rows), CARD_BUCKET))}
