"""Writes the sharded search index (format: :mod:`.shard_format`): the term and tag chunks
(:func:`build_chunks`, from the skills' search fields), then the result cards, the digests that
pin chunks and cards and the meta file (:func:`finish_shards`, once the cards are known: they
show the audit's risk); :func:`build_shards` does both.  Deterministic: the same skills give
the same bytes.

The postings are :mod:`.bm25`'s own (the same saturation, quantisation and idf), numbered in
the shards' skill order, so a sharded catalog ranks exactly as an unsharded one.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Iterator, Mapping, Sequence

from skillsite.search.bm25 import (BM25_B, BM25_K1, MAX_EXPANSIONS, MIN_PREFIX, PREFIX_FACTOR, WEIGHT_LEVELS, idf,
                                   term_postings)
from skillsite.search.shard_format import (CARD_BUCKET, CARD_DIGEST_GROUP, CARD_DIGESTS_DIR, CARD_FIELDS, CARDS_DIR,
                                           CARDS_PER_FOLDER, CHUNK_BYTES, DESCRIPTION_LIMIT, DIGESTS_FILE,
                                           DIGESTS_FORMAT, GROUPS_FILE, GROUPS_FORMAT, SHARDS_FILE, SHARDS_FORMAT,
                                           SHARDS_VERSION, TAGS_DIR, TERMS_DIR, card_path, chunk_path,
                                           encode_numbers, encode_postings, group_path, pack_digests)
from skillsite.search.terms import SEARCH_FIELDS, folded

#: One key of a chunk: (key, document frequency, idf or None, encoded postings).
Item = tuple[str, int, "float | None", str]
#: One result card (:func:`card_row`), its values in CARD_FIELDS order.
Card = tuple[Any, ...]


@dataclass(frozen=True)
class Chunks:
    """The term and tag chunks of a sharded index (by site-relative path) and its meta file's
    object, all but ``digests`` (which pins the cards too: see :func:`finish_shards`)."""

    files: dict[str, bytes]
    meta: dict[str, Any]

    def digests(self) -> dict[str, str]:
        """The sha256 (hex) of each chunk, by path."""
        return {path: _sha(data) for path, data in self.files.items()}


@dataclass(frozen=True)
class Shards:
    """Files of the index (by site-relative path) and skills.json's ``search`` section that
    points at the meta file."""

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
    """Every tag of ``ordered`` (folded: lower-cased and composed, as the tag filter compares
    them), sorted, with its skills."""
    skills: dict[str, list[int]] = {}
    for doc, entry in enumerate(ordered):
        for tag in sorted({folded(str(t)) for t in entry.get("tags") or ()}):
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


def build_chunks(entries: Sequence[dict[str, Any]], budget: int = CHUNK_BYTES) -> Chunks:
    """The term and tag chunks of the sharded index of manifest ``entries`` (any order: the
    shards number skills themselves), of about ``budget`` bytes each, and the meta file's
    object but its digests."""
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
        "cards": {"path": CARDS_DIR, "bucket": CARD_BUCKET, "per_folder": CARDS_PER_FOLDER,
                  "fields": list(CARD_FIELDS)},
    }
    return Chunks({path: compact({"index": index, **chunk}) for path, chunk in chunks.items()}, meta)


def finish_shards(meta: dict[str, Any], chunk_sha256: Mapping[str, str], rows: Sequence[Card],
                  buckets: Sequence[tuple[bytes, str]] | None = None) -> Shards:
    """The rest of the sharded index whose chunks ``meta`` describes (:func:`build_chunks`;
    ``chunk_sha256``: their sha256 by path) for the cards ``rows`` (:func:`card_row`, in skill
    order): the card files, the card-digest files, the digests file and the meta file that
    names it, the groups file; and skills.json's ``search`` section.  ``buckets``: the card
    files as :func:`card_buckets` makes them, when the caller has them (kept from an earlier build)."""
    if len(rows) != meta["docs"]:
        raise ValueError(f"the search index covers {meta['docs']} skills, the cards {len(rows)}")
    index = meta["index"]
    buckets = card_buckets(rows, index) if buckets is None else buckets
    files = {card_path(bucket): data for bucket, (data, _) in enumerate(buckets)}
    files.update(card_digest_files([sha for _, sha in buckets], index))
    groups = [_sha(files[group_path(g)]) for g in range(_groups(len(rows)))]
    files[DIGESTS_FILE] = digests = compact({
        "format": DIGESTS_FORMAT, "version": SHARDS_VERSION, "index": index,
        "terms": pack_digests(chunk_sha256[chunk_path(TERMS_DIR, n)] for n in range(len(meta["terms"]["first"]))),
        "tags": pack_digests(chunk_sha256[chunk_path(TAGS_DIR, n)] for n in range(len(meta["tags"]["first"]))),
        "card_digests": {"path": CARD_DIGESTS_DIR, "group": CARD_DIGEST_GROUP, "sha256": pack_digests(groups)}})
    groups_file, held = groups_json(rows, index)
    files[GROUPS_FILE] = groups_file
    files[SHARDS_FILE] = data = compact({**meta, "digests": {"url": DIGESTS_FILE, "sha256": _sha(digests),
                                                             "bytes": len(digests)},
                                         "groups": {"url": GROUPS_FILE, "sha256": _sha(groups_file),
                                                    "bytes": len(groups_file), **held}})
    return Shards(files, {"sharded": SHARDS_FILE, "sha256": _sha(data), "size": len(data)})


def build_shards(entries: Sequence[dict[str, Any]], rows: Sequence[Card], budget: int = CHUNK_BYTES) -> Shards:
    """Every file of the sharded index of manifest ``entries`` (any order) with the cards
    ``rows`` (in skill order: :func:`doc_order`), in chunks of about ``budget`` bytes."""
    chunks = build_chunks(entries, budget)
    rest = finish_shards(chunks.meta, chunks.digests(), rows)
    return Shards({**chunks.files, **rest.files}, rest.section)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _groups(docs: int) -> int:
    """Card-digest files of an index of ``docs`` skills."""
    buckets = -(-docs // CARD_BUCKET)
    return -(-buckets // CARD_DIGEST_GROUP)


def card_row(skill_id: str, name: str, description: str, url: str, tags: Sequence[str], risk: str = "none",
             listed: bool = True, offered: bool = True, copy_of: int = -1, copies: int = 1) -> Card:
    """One result card, in CARD_FIELDS order (a description over DESCRIPTION_LIMIT is clipped);
    ``copy_of``: the number of the skill this one is a copy of (-1: none); ``copies``: its group's size.
    Tuples: ``serve`` keeps every skill's card between builds, and a tuple of texts and numbers is
    one the garbage collector stops walking."""
    if len(description) > DESCRIPTION_LIMIT:
        description = description[:DESCRIPTION_LIMIT - 1] + "…"
    return (skill_id, name, description, url, tuple(dict.fromkeys(str(t) for t in tags)), risk, listed, offered,
            copy_of, copies)


def groups_json(rows: Sequence[Card], index: str) -> tuple[bytes, dict[str, int]]:
    """The groups file of the cards ``rows`` (in skill order, :mod:`.shard_format`) and how many
    unlisted skills and copies it holds: ``unlisted``, the skills the site does not list;
    ``canonical``, the canonical members of groups of copies; ``copies``, every copy, with its
    canonical member's position in ``canonical``. With them a page counts a query's results (one
    a group, none hidden) without reading the card of every skill found."""
    listed, copy_of = CARD_FIELDS.index("listed"), CARD_FIELDS.index("copy_of")
    unlisted = [doc for doc, row in enumerate(rows) if not row[listed]]
    copies = [doc for doc, row in enumerate(rows) if row[copy_of] >= 0]
    canonical = sorted({rows[doc][copy_of] for doc in copies})
    position = {doc: at for at, doc in enumerate(canonical)}
    data = compact({"format": GROUPS_FORMAT, "version": SHARDS_VERSION, "index": index,
                    "unlisted": {"count": len(unlisted), "postings": encode_postings(unlisted)},
                    "canonical": {"count": len(canonical), "postings": encode_postings(canonical)},
                    "copies": {"count": len(copies), "postings": encode_postings(copies),
                               "groups": encode_numbers(position[rows[doc][copy_of]] for doc in copies)}})
    return data, {"unlisted": len(unlisted), "copies": len(copies)}


def card_buckets(rows: Sequence[Card], index: str) -> list[tuple[bytes, str]]:
    """The card files of ``rows`` (cards in skill order), in bucket order (:func:`card_path`
    names them): each one's bytes and sha256 (:func:`card_bucket`)."""
    return [card_bucket(tuple(rows[start:start + CARD_BUCKET]), index, start)
            for start in range(0, len(rows), CARD_BUCKET)]


def card_bucket(cards: tuple[Card, ...], index: str, first: int) -> tuple[bytes, str]:
    """One card file, of the cards from number ``first`` on: its bytes and sha256.  It names its
    ``index`` (the meta file's), so a reader notices cards of another build than its meta file."""
    data = compact({"index": index, "first": first, "cards": list(cards)})
    return data, _sha(data)


def card_digest_files(card_sha256: Sequence[str], index: str) -> dict[str, bytes]:
    """The card-digest files of the card buckets whose sha256 are ``card_sha256`` (in bucket
    order), by path: each pins CARD_DIGEST_GROUP consecutive buckets, from bucket ``first``."""
    return {group_path(group): compact({"index": index, "first": first,
                                        "sha256": pack_digests(card_sha256[first:first + CARD_DIGEST_GROUP])})
            for group, first in enumerate(range(0, len(card_sha256), CARD_DIGEST_GROUP))}
