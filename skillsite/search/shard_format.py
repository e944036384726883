"""The sharded search index: file names, format constants and the postings encoding, shared by
the writer (:mod:`.shard_writer`) and the reader (:mod:`.shard_query`).  Standard library only.

A catalog with more skills than ``shard_above`` publishes its search index in pieces, so a query
loads only what it needs (Pagefind's design):

- ``search/shards.json``, the meta file: format, version, the ``index`` id of this build of the
  index, scoring constants, the number of skills, per chunk set (``terms``, ``tags``) the
  first key of each chunk, and ``digests``, the url, sha256 and bytes of the digests file: its
  size grows with the number of chunks only;
- ``search/terms/NNNN.json``: a range of sorted index terms, each with its document frequency,
  idf and postings (skill numbers with BM25F weight bytes: :mod:`.bm25`'s, so scores are equal);
- ``search/tags/NNNN.json``: a range of sorted tags, lower-cased and composed (NFC: ``terms.folded``),
  each with the skills carrying it;
- ``search/cards/GGG/BBBBB.json``: the result cards of skills ``B * bucket`` to
  ``B * bucket + bucket - 1`` (folder ``G = B // per_folder``): what a result shows and what
  consumers filter on;
- ``search/digests.json``: the sha256 of every term chunk and tag chunk, in chunk order, and of
  every card-digest file;
- ``search/card-digests/NNNN.json``: the sha256 of card buckets ``N * group`` to
  ``N * group + group - 1``;
- ``search/groups.json``: the skills the site does not list and the groups of copies, by skill
  number (postings: the unlisted skills, the canonical members, the copies, and of each copy
  its canonical member's position among them as :func:`encode_numbers`), so a page can count
  the results it has not read the cards of, and a search listing every copy puts a copy right
  after its canonical member on a tie (the meta file's ``groups`` names it, with its sha256,
  bytes and how many unlisted skills and copies it holds: none, and it is not read).

Every chunk and card file names the ``index`` it belongs to, so a reader that meets a file of
another build (a deploy in the middle of a search) says so instead of mixing them.

Trust goes from skills.json down: its ``search`` section names the meta file and its sha256,
the meta file names the digests file, the digests file pins every chunk and card-digest file,
and a card-digest file pins its cards.  A reader that must trust what it shows (the loader
under a trust policy: ``ShardedIndex(pinned=True)``) checks every file it fetches; one that
need not fetches neither the digests file nor a card-digest file, and pays nothing for them.
Digests are packed: the base64 of the 32-byte sha256 values, one after the other.  Skills are
numbered by priority (higher first), then id: ranking by (score rounded to 6 decimals, skill
number) is the unsharded index's ranking by (score, priority, id).
"""
from __future__ import annotations

import base64
from typing import Iterable, Sequence

SHARDS_FILE = "search/shards.json"
SHARDS_FORMAT = "skillsite-search-shards"
SHARDS_VERSION = 1
TERMS_DIR = "search/terms/"
TAGS_DIR = "search/tags/"
CARDS_DIR = "search/cards/"
#: What a card holds, in this order: the skill's id, name, description (at most
#: DESCRIPTION_LIMIT characters), page URL (site-relative), tags, audit risk, whether the site
#: lists it (``Visibility.listed``), whether a model may be offered it (``offered_to_model``, a
#: copy's group aside: it is offered as its canonical member) and,
#: for a copy of another skill, that skill's number (else -1: a result shows a group of copies once),
#: and how many copies its group holds (1: none).
CARD_FIELDS = ("id", "name", "description", "url", "tags", "risk", "listed", "offered", "copy_of", "copies")
CARD_BUCKET = 4              # cards per file
CARDS_PER_FOLDER = 1000      # card files per folder (hosts cap files per folder)
DESCRIPTION_LIMIT = 1024     # the specification's longest description: longer ones are clipped
#: A chunk closes once it holds about this many bytes (a term's postings are never split, so a
#: common term's chunk is bigger): at 100,000 skills, about 1,100 chunks and an 11 KB meta file.
CHUNK_BYTES = 8_000
DIGESTS_FILE = "search/digests.json"
DIGESTS_FORMAT = "skillsite-search-digests"
CARD_DIGESTS_DIR = "search/card-digests/"
GROUPS_FILE = "search/groups.json"
GROUPS_FORMAT = "skillsite-search-groups"
#: Card buckets a card-digest file pins.  A pinned query reads the digests file (43 bytes a
#: chunk and a card-digest file) and one card-digest file (43 bytes a bucket) per group of the
#: cards it shows: at 100,000 skills (about 1,160 chunks, 25,000 buckets, 391 groups) about
#: 66,000 bytes and 2,800 bytes each, so ten results in ten groups add about 95,000 bytes.
CARD_DIGEST_GROUP = 64
DIGEST_BYTES = 32


def chunk_path(folder: str, number: int) -> str:
    """Site-relative path of chunk ``number`` of a chunk set kept in ``folder``."""
    return f"{folder}{number:04d}.json"


def card_path(bucket: int, folder: str = CARDS_DIR, per_folder: int = CARDS_PER_FOLDER) -> str:
    """Site-relative path of card bucket ``bucket``."""
    return f"{folder}{bucket // per_folder:03d}/{bucket:05d}.json"


def group_path(group: int, folder: str = CARD_DIGESTS_DIR) -> str:
    """Site-relative path of card-digest file ``group``."""
    return chunk_path(folder, group)


def pack_digests(hex_digests: Iterable[str]) -> str:
    """base64 of sha256 values (hex) as their 32 bytes each, in order."""
    return base64.b64encode(b"".join(bytes.fromhex(h) for h in hex_digests)).decode("ascii")


def unpack_digests(data: str, count: int, what: str) -> list[str]:
    """The ``count`` sha256 values (hex) of packed ``data``; ValueError naming ``what`` otherwise."""
    try:
        raw = base64.b64decode(data, validate=True)
    except (TypeError, ValueError):
        raise ValueError(f"{what} is not base64") from None
    if len(raw) != count * DIGEST_BYTES:
        raise ValueError(f"{what} holds {len(raw) / DIGEST_BYTES:g} digests, not {count}")
    return [raw[at:at + DIGEST_BYTES].hex() for at in range(0, len(raw), DIGEST_BYTES)]


def _varints(numbers: Iterable[int]) -> bytes:
    """Non-negative integers as LEB128 varints, one after the other."""
    out = bytearray()
    for number in numbers:
        while number >= 0x80:
            out.append((number & 0x7F) | 0x80)
            number >>= 7
        out.append(number)
    return bytes(out)


def encode_postings(docs: Sequence[int], weights: bytes = b"") -> str:
    """base64 of the skill numbers (ascending) as LEB128 varints of their gaps (the first as
    itself), then the weight bytes (none for tags)."""
    gaps = (doc - previous for previous, doc in zip([0, *docs], docs))
    return base64.b64encode(_varints(gaps) + weights).decode("ascii")


def encode_numbers(numbers: Iterable[int]) -> str:
    """base64 of non-negative integers as LEB128 varints, one after the other."""
    return base64.b64encode(_varints(numbers)).decode("ascii")


def decode_numbers(data: str, count: int, limit: int) -> list[int]:
    """The ``count`` integers below ``limit`` that :func:`encode_numbers` wrote; ValueError when
    corrupt (truncated, another count, or a number not below ``limit``)."""
    raw = base64.b64decode(data, validate=True)
    numbers: list[int] = []
    value = shift = 0
    for byte in raw:
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            numbers.append(value)
            value = shift = 0
        if len(numbers) > count or value >= limit:
            break
    if shift or len(numbers) != count or any(n >= limit for n in numbers):
        raise ValueError("corrupt search groups: a list is truncated or names a group it does not have")
    return numbers


def decode_postings(data: str, count: int, weighted: bool, docs_count: int) -> tuple[list[int], bytes]:
    """Skill numbers and weight bytes of ``count`` encoded postings; ValueError when corrupt (as
    soon as it shows: a gap longer than a skill number can be, or more postings than ``count``,
    so a hostile list costs no more than a well-formed one of its length)."""
    raw = base64.b64decode(data, validate=True)
    end = len(raw) - (count if weighted else 0)
    longest = 7 * max(1, -(-docs_count.bit_length() // 7))  # bits of the longest gap's encoding
    docs: list[int] = []
    doc = shift = gap = 0
    at = 0
    while at < end:
        byte = raw[at]
        gap |= (byte & 0x7F) << shift
        shift += 7
        at += 1
        if byte < 0x80:
            doc += gap
            docs.append(doc)
            gap = shift = 0
        if shift >= longest or len(docs) > count:
            break
    if shift or len(docs) != count or (docs and docs[-1] >= docs_count) or end < 0:
        raise ValueError("corrupt search shard: a postings list is truncated or names a skill it does not have")
    return docs, raw[end:] if weighted else b""
