"""Answers queries from a sharded search index (:mod:`.shard_format`), loading only the files a
query needs through a ``fetch(path, sha256)`` function.  Standard library only.

It ranks exactly as :class:`~skillsite.search.bm25.SearchIndex` does (the same scores, added
in the same order): results by score rounded to 6 decimals, then skill number (the shards
number skills by priority, then id).  The loader, ``skillsite search`` and ``skillsite mcp``
use it for a sharded catalog; ``templates/static/ranking.js`` is its JavaScript twin.

``pinned=True`` verifies every file it fetches against a digest that goes back to skills.json
(the meta file's sha256 in its ``search`` section, the digests file's in the meta file, every
chunk's and card-digest file's in the digests file, every card file's in its card-digest file),
and raises :class:`ShardIntegrityError` naming a file that does not match.  The digests file
is fetched with the first chunks, a card-digest file with the first cards it pins.  Without
it, the index fetches exactly the meta file, the chunks and the cards, unverified.
"""
from __future__ import annotations

import bisect
import hashlib
import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Iterable, NamedTuple, Sequence

from skillsite.bounded import too_dense
from skillsite.search.bm25 import add_gains, best_gains, copies_together, query_terms, tag_filtered
from skillsite.search.shard_format import (DIGESTS_FORMAT, GROUPS_FORMAT, SHARDS_FILE, SHARDS_FORMAT, SHARDS_VERSION,
                                           card_path, chunk_path, decode_numbers, decode_postings, group_path,
                                           unpack_digests)
from skillsite.search.terms import folded

#: ``fetch(site-relative path, sha256 or None) -> bytes``; the sha256 is given for the meta file
#: (skills.json names it) and, in a pinned index, for every file: a fetcher may serve a cached
#: copy that has it.
Fetch = Callable[[str, "str | None"], bytes]
FETCH_THREADS = 6


class ShardIntegrityError(ValueError):
    """A file is not the one published: it does not match the digest that names it, or it names
    another build of the index than its meta file; or a pinned index names no digests to check
    its files against (:class:`skillsite.loader.IntegrityError` to the loader's callers, as any
    other file changed on the host)."""

    def __init__(self, message: str, expected: str = "", actual: str = "") -> None:
        super().__init__(message)
        self.expected, self.actual = expected, actual


class Card(NamedTuple):
    """A search result as the shards describe it (:data:`~.shard_format.CARD_FIELDS`)."""

    doc: int
    id: str
    name: str
    description: str
    url: str
    tags: tuple[str, ...]
    risk: str
    listed: bool
    offered: bool
    copy_of: int = -1     # the number of the skill it is a copy of (-1: none, or shards written before copies)
    copies: int = 1       # how many copies its group holds (1: none)


@dataclass
class _Chunk:
    """One chunk of keys: sorted keys, their document frequencies, idf (terms only) and postings."""

    keys: list[str]
    df: list[int]
    idf: list[float] | None
    postings: list[str]


def parse_json(data: bytes, what: str) -> Any:
    """A JSON object of the shards; ValueError naming ``what`` otherwise (or when it is
    :func:`~skillsite.bounded.too_dense` to decode)."""
    if (problem := too_dense(data)) is not None:
        raise ValueError(f"{what} {problem}")
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{what} is not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise ValueError(f"{what} is not a JSON object")
    return value


def checked(data: bytes, path: str, sha256: str | None) -> bytes:
    """``data`` when its sha256 is ``sha256`` (any, without one); ShardIntegrityError otherwise."""
    actual = hashlib.sha256(data).hexdigest()
    if sha256 is not None and actual != sha256:
        raise ShardIntegrityError(f"{path} does not match the sha256 skills.json gives (sha256 is {actual}, "
                                  f"skills.json says {sha256}): the catalog changed while it was read", sha256, actual)
    return data


def pinned_data(data: bytes, path: str, sha256: str, named_by: str) -> bytes:
    """``data`` when its sha256 is ``sha256`` (as ``named_by`` gives it); ShardIntegrityError otherwise."""
    actual = hashlib.sha256(data).hexdigest()
    if actual != sha256:
        raise ShardIntegrityError(f"{path} does not match the sha256 {named_by} gives: sha256 is {actual}, "
                                  f"{named_by} says {sha256}; refusing it", sha256, actual)
    return data


@dataclass
class _Pins:
    """What a pinned index checks its files against (all given by the digests file ``path``):
    the sha256 of each term and tag chunk (by number), of each card-digest file (by group), and
    of the card buckets read so far (given by their card-digest files)."""

    path: str
    chunks: dict[str, list[str]]
    group_path: str
    group: int
    groups: list[str]
    cards: dict[int, str]


class ShardedIndex:
    """The sharded search index of a catalog: :meth:`open` it from skills.json's ``search``
    section, then :meth:`search` it."""

    def __init__(self, meta: dict[str, Any], fetch: Fetch, *, pinned: bool = False) -> None:
        if meta.get("format") != SHARDS_FORMAT or meta.get("version") != SHARDS_VERSION:
            raise ValueError(f"search shards in format {meta.get('format')!r} version {meta.get('version')!r}; "
                             f"this loader reads {SHARDS_FORMAT} version {SHARDS_VERSION}")
        digests = meta.get("digests")
        if pinned and not (isinstance(digests, dict) and isinstance(digests.get("url"), str)
                           and isinstance(digests.get("sha256"), str)):
            raise ShardIntegrityError("the search index names no digests of its chunks and cards (search/shards.json "
                                      "has no 'digests': a catalog built before they were published), so its files "
                                      "cannot be verified; refusing to search it unverified")
        self.meta, self._fetch, self.pinned = meta, fetch, pinned
        self._pins: _Pins | None = None
        self.index: str = meta["index"]
        self.docs: int = meta["docs"]
        self._unit: float = meta["weight_unit"]
        prefix = meta["prefix"]
        self._factor, self._min_prefix, self._expansions = (prefix["factor"], prefix["min_length"],
                                                            prefix["max_expansions"])
        cards = meta["cards"]
        self._fields: list[str] = cards["fields"]
        self._bucket: int = cards["bucket"]
        self._card_path = lambda bucket: card_path(bucket, cards["path"], cards["per_folder"])
        self._chunks: dict[tuple[str, int], _Chunk] = {}
        self._decoded: dict[tuple[str, int, int], tuple[list[int], bytes]] = {}
        self._cards: dict[int, Card] = {}
        self._copy_of: dict[int, int] | None = None

    @classmethod
    def open(cls, section: dict[str, Any], fetch: Fetch, *, pinned: bool = False) -> ShardedIndex:
        """The index that skills.json's ``search`` section (``{"sharded": path, "sha256": ...}``)
        points at; ``pinned``: every file verified (see the module's docstring)."""
        path, sha = section["sharded"], section.get("sha256")
        if not pinned:
            return cls(parse_json(checked(fetch(path, sha), path, sha), path), fetch)
        if not isinstance(sha, str):
            raise ShardIntegrityError(f"skills.json's search section gives no sha256 of {path}; refusing it")
        return cls(parse_json(pinned_data(fetch(path, sha), path, sha, "skills.json"), path), fetch, pinned=True)

    def __len__(self) -> int:
        return self.docs

    # -- files

    def _fetch_all(self, paths: Sequence[str], pins: Sequence[tuple[str, str]] | None = None) -> list[dict[str, Any]]:
        """The chunk or card files at ``paths`` (fetched in parallel when there are several), each
        checked to belong to this index; with ``pins`` (a pinned index), each checked against
        its (sha256, the file that gives it) first."""
        shas = [None] * len(paths) if pins is None else [sha for sha, _ in pins]
        if len(paths) <= 1:
            found = [self._fetch(p, s) for p, s in zip(paths, shas)]
        else:
            with ThreadPoolExecutor(min(FETCH_THREADS, len(paths))) as pool:
                found = list(pool.map(self._fetch, paths, shas))
        if pins is not None:
            found = [pinned_data(data, path, *pin) for data, path, pin in zip(found, paths, pins)]
        files = [parse_json(data, path) for path, data in zip(paths, found)]
        for at, (path, data) in enumerate(zip(paths, files)):
            if data.get("index") != self.index and pins is None:  # once more: a cache may have kept an old copy
                files[at] = data = parse_json(self._fetch(path, None), path)
            if data.get("index") != self.index:
                raise ShardIntegrityError(f"{path} belongs to another build of the search index: the catalog "
                                          "changed while it was read")
        return files

    # -- pins

    def _digests(self) -> _Pins:
        """The digests file, fetched once (a pinned index only) and checked against the meta file."""
        if self._pins is None:
            ref = self.meta["digests"]
            path = ref["url"]
            raw = parse_json(pinned_data(self._fetch(path, ref["sha256"]), path, ref["sha256"], SHARDS_FILE), path)
            if raw.get("format") != DIGESTS_FORMAT or raw.get("index") != self.index:
                raise ValueError(f"{path} is not the digests file of this search index")
            groups = raw["card_digests"]
            if not isinstance(groups.get("group"), int) or groups["group"] < 1:
                raise ValueError(f"{path}: card_digests has no valid group size")
            buckets = -(-self.docs // self._bucket)
            count = -(-buckets // groups["group"])
            self._pins = _Pins(
                path, {kind: unpack_digests(raw[kind], len(self.meta[kind]["first"]), f"{path}: {kind}")
                 for kind in ("terms", "tags")},
                groups["path"], groups["group"], unpack_digests(groups["sha256"], count, f"{path}: card_digests"), {})
        return self._pins

    def _chunk_pins(self, todo: Sequence[tuple[str, int]]) -> list[tuple[str, str]] | None:
        """(sha256, where it comes from) of chunks ``todo`` when the index is pinned."""
        if not self.pinned or not todo:
            return None
        pins = self._digests()
        return [(pins.chunks[kind][n], pins.path) for kind, n in todo]

    def _card_pins(self, buckets: Sequence[int]) -> list[tuple[str, str]] | None:
        """(sha256, where it comes from) of card buckets ``buckets`` when the index is pinned,
        the card-digest files they need fetched first (verified, in parallel)."""
        if not self.pinned or not buckets:
            return None
        pins = self._digests()
        groups = sorted({b // pins.group for b in buckets if b not in pins.cards})
        paths = [group_path(g, pins.group_path) for g in groups]
        named = [(pins.groups[g], pins.path) for g in groups]
        for group, path, raw in zip(groups, paths, self._fetch_all(paths, named)):
            first = group * pins.group
            count = min(pins.group, -(-self.docs // self._bucket) - first)
            if raw.get("first") != first:
                raise ValueError(f"{path} does not pin card buckets {first} to {first + count - 1}")
            for bucket, sha in enumerate(unpack_digests(raw["sha256"], count, path), first):
                pins.cards[bucket] = sha
        return [(pins.cards[b], group_path(b // pins.group, pins.group_path)) for b in buckets]

    def _load_chunks(self, wanted: Iterable[tuple[str, int]]) -> None:
        """Fetch the chunks (kind, number) not loaded yet."""
        todo = sorted({w for w in wanted if w not in self._chunks})
        paths = [chunk_path(self.meta[kind]["path"], n) for kind, n in todo]
        for (kind, n), path, raw in zip(todo, paths, self._fetch_all(paths, self._chunk_pins(todo))):
            chunk = _Chunk(raw["terms"], raw["df"], raw.get("idf"), raw["postings"])
            if not len(chunk.keys) == len(chunk.df) == len(chunk.postings) \
                    or (kind == "terms") != (chunk.idf is not None):
                raise ValueError(f"{path}: keys, df, idf and postings differ in length")
            self._chunks[kind, n] = chunk

    def _locate(self, kind: str, key: str) -> int:
        """The chunk that holds ``key`` (or would): the last whose first key is not after it."""
        return max(0, bisect.bisect_right(self.meta[kind]["first"], key) - 1)

    def _postings(self, kind: str, n: int, at: int) -> tuple[list[int], bytes]:
        found = self._decoded.get((kind, n, at))
        if found is None:
            chunk = self._chunks[kind, n]
            found = decode_postings(chunk.postings[at], chunk.df[at], kind == "terms", self.docs)
            self._decoded[kind, n, at] = found
        return found

    # -- scoring

    def _matches(self, term: str) -> list[tuple[int, int, float]]:
        """Vocabulary terms ``term`` matches, as (chunk, position, factor): itself, or else the
        terms it begins (at most max_expansions, across chunk boundaries) at the prefix factor."""
        n = self._locate("terms", term)
        keys = self._chunks["terms", n].keys
        at = bisect.bisect_left(keys, term)
        if at < len(keys) and keys[at] == term:
            return [(n, at, 1.0)]
        if len(term) < self._min_prefix:
            return []
        found: list[tuple[int, int, float]] = []
        firsts = self.meta["terms"]["first"]
        while len(found) < self._expansions:
            if at == len(keys):
                if n + 1 >= len(firsts) or not firsts[n + 1].startswith(term):
                    break
                n, at = n + 1, 0
                self._load_chunks([("terms", n)])
                keys = self._chunks["terms", n].keys
            if not keys[at].startswith(term):
                break
            found.append((n, at, self._factor))
            at += 1
        return found

    def _gains(self, matches: list[tuple[int, int, float]]) -> dict[int, float]:
        def postings(n: int, at: int, factor: float) -> tuple[list[int], bytes, float]:
            idf = self._chunks["terms", n].idf
            assert idf is not None
            return (*self._postings("terms", n, at), idf[at] * self._unit * factor)
        return best_gains(postings(*m) for m in matches)

    def scores(self, query: str) -> dict[int, float]:
        """Score of every matching skill, by skill number (unrounded), as SearchIndex.scores."""
        terms = query_terms(query)
        self._load_chunks(("terms", self._locate("terms", t)) for t in terms)
        scores: dict[int, float] = {}
        for term in terms:
            add_gains(scores, self._gains(self._matches(term)))
        return scores

    def with_tags(self, tags: Sequence[str]) -> set[int]:
        """Skill numbers of the skills that carry every one of ``tags`` (compared folded, as the
        tag chunks hold them); none when no skill has a tag (the index then has no tag chunk to read)."""
        wanted = sorted({folded(t) for t in tags})
        if not self.meta["tags"]["first"]:
            return set()
        self._load_chunks(("tags", self._locate("tags", t)) for t in wanted)
        found: set[int] | None = None
        for tag in wanted:
            n = self._locate("tags", tag)
            keys = self._chunks["tags", n].keys
            at = bisect.bisect_left(keys, tag)
            docs = set(self._postings("tags", n, at)[0]) if at < len(keys) and keys[at] == tag else set()
            found = docs if found is None else found & docs
        return found or set()

    def ranked(self, query: str, tags: Sequence[str] | None = None) -> list[tuple[int, float]]:
        """Every skill found, best first, as (skill number, score rounded to 6 decimals); with
        ``tags``, as SearchIndex.search filters them."""
        scores = self.scores(query)
        if tags:
            scores = tag_filtered(scores, self.with_tags(tags), query)
        return sorted(((d, round(s, 6)) for d, s in scores.items()), key=lambda hit: (-hit[1], hit[0]))

    # -- cards

    def cards(self, docs: Iterable[int]) -> list[Card]:
        """The cards of skill numbers ``docs`` (their buckets fetched in parallel)."""
        docs = list(docs)
        buckets = sorted({d // self._bucket for d in docs if d not in self._cards})
        paths = [self._card_path(b) for b in buckets]
        for bucket, path, raw in zip(buckets, paths, self._fetch_all(paths, self._card_pins(buckets))):
            self._read_bucket(bucket, path, raw)
        return [self._cards[d] for d in docs]

    def _read_bucket(self, bucket: int, path: str, raw: dict[str, Any]) -> None:
        first = bucket * self._bucket
        size = min(self._bucket, self.docs - first)
        if raw.get("first") != first or len(raw.get("cards") or ()) != size:
            raise ValueError(f"{path} does not hold cards {first} to {first + size - 1}")
        for doc, row in enumerate(raw["cards"], first):
            values = dict(zip(self._fields, row))
            self._cards[doc] = Card(doc, values["id"], values["name"], values["description"], values["url"],
                                    tuple(values["tags"]), values["risk"], values["listed"], values["offered"],
                                    values.get("copy_of", -1), values.get("copies", 1))

    def copy_of(self) -> dict[int, int]:
        """Each copy's canonical member, by skill number, read from the groups file (once; checked
        against the meta file's sha256 when the index is pinned); empty when the index holds no
        copies or has no groups file (a build before it)."""
        if self._copy_of is None:
            ref = self.meta.get("groups")
            if not (isinstance(ref, dict) and ref.get("copies") and isinstance(ref.get("url"), str)):
                self._copy_of = {}
                return self._copy_of
            path = ref["url"]
            raw = self._fetch_all([path], [(ref["sha256"], SHARDS_FILE)] if self.pinned else None)[0]
            if raw.get("format") != GROUPS_FORMAT:
                raise ValueError(f"{path} is not the groups file of this search index")
            canonical, _ = decode_postings(raw["canonical"]["postings"], raw["canonical"]["count"], False, self.docs)
            copies, _ = decode_postings(raw["copies"]["postings"], raw["copies"]["count"], False, self.docs)
            positions = decode_numbers(raw["copies"]["groups"], len(copies), len(canonical))
            self._copy_of = {doc: canonical[at] for doc, at in zip(copies, positions)}
        return self._copy_of

    def search(self, query: str, k: int = 5, tags: Sequence[str] | None = None,
               keep: Callable[[Card], bool] | None = None, groups: bool = False) -> list[tuple[Card, float]]:
        """The ``k`` best (card, score) for ``query``, as SearchIndex.search ranks them; ``keep``
        says which cards may be returned (the k best are taken from those).  ``groups``: one
        result per group of copies, its canonical member's card at the place of its best member
        (the best member's when ``keep`` refuses the canonical one); else every copy, on a tie
        right after its canonical member (:func:`~.bm25.copies_together`, as the catalog page)."""
        if k <= 0:
            return []
        hits = self.ranked(query, tags)
        copy_of = {} if groups else self.copy_of()
        if copy_of:
            hits = copies_together(hits, lambda doc: copy_of.get(doc, doc))
        out: list[tuple[Card, float]] = []
        seen: set[int] = set()
        at = 0
        while at < len(hits) and len(out) < k:
            batch = hits[at:at + k - len(out)]
            at += len(batch)
            for card, (_, score) in zip(self.cards(d for d, _ in batch), batch):
                shown = self._representative(card, keep, seen) if groups else card
                if shown is not None and (keep is None or keep(shown)):
                    out.append((shown, score))
        return out

    def _representative(self, card: Card, keep: Callable[[Card], bool] | None, seen: set[int]) -> Card | None:
        """The card that stands for ``card``'s group (None: the group is shown already)."""
        group = card.copy_of if card.copy_of >= 0 else card.doc
        if group in seen:
            return None
        canonical = self.cards([group])[0] if group != card.doc else card
        shown = canonical if keep is None or keep(canonical) else card
        if keep is None or keep(shown):
            seen.add(group)
        return shown