"""The catalog's precomputed search index (``skills.json["search"]``) and its ranking.

Scoring is BM25F: each occurrence of a term counts its field's weight (``SEARCH_FIELDS``),
divided by that field's length normalisation; the sum is saturated with k1 at build time,
quantised to one byte, and multiplied by the term's idf at query time.  The stored format is
described in ``skills.schema.json`` (``$defs/search``).  Standard library only.
"""
from __future__ import annotations

import array
import base64
import bisect
import heapq
import math
import sys
from typing import Any, Callable, Collection, Iterable, Mapping, Sequence, TypeVar

from skillsite.search.terms import SEARCH_FIELDS, folded, search_fields, tokenize

SEARCH_VERSION = 2  # 2: a triggers field
BM25_K1 = 3.6                # 1.2 on the description's scale: one description occurrence
BM25_B = 0.75                # saturates as a plain BM25 term does
WEIGHT_LEVELS = 255          # quantised weights are integers 1..255 (one byte)
PREFIX_FACTOR = 0.5          # a query word matching only a longer term's start counts this much
MIN_PREFIX = 3               # shortest query word that is prefix-matched
MAX_EXPANSIONS = 50          # most vocabulary terms one query word expands to


def _field_terms(entry: dict[str, Any]) -> dict[str, list[str]]:
    """The terms of each search field of a manifest entry."""
    fields = search_fields(entry)
    return {field: tokenize(fields.get(field, "")) for field in SEARCH_FIELDS}


def _pseudo_counts(terms: dict[str, list[str]], average: dict[str, float]) -> dict[str, float]:
    """BM25F term frequencies of one skill: each occurrence counts its field's weight divided by
    the field's length normalisation ``1 - b + b * length / average length``."""
    counts: dict[str, float] = {}
    for field, weight in SEARCH_FIELDS.items():
        words = terms[field]
        if not words:
            continue
        share = weight / (1.0 - BM25_B + BM25_B * len(words) / average[field])
        for term in words:
            counts[term] = counts.get(term, 0.0) + share
    return counts


def idf(df: int, n: int) -> float:
    """BM25 idf, never negative."""
    return round(math.log(1.0 + (n - df + 0.5) / (df + 0.5)), 4)


def _doc_typecode(doc_bytes: int) -> str:
    """The ``array`` type code of unsigned integers of ``doc_bytes`` bytes (2 or 4)."""
    if doc_bytes == 2:
        return "H"
    return "I" if array.array("I").itemsize == 4 else "L"


def _encode_postings(postings: list[tuple[int, int]], doc_bytes: int) -> str:
    """base64 of the skill indexes (little-endian, ``doc_bytes`` each) then one weight byte each."""
    docs = array.array(_doc_typecode(doc_bytes), [i for i, _ in postings])
    if sys.byteorder != "little":
        docs.byteswap()
    return base64.b64encode(docs.tobytes() + bytes(q for _, q in postings)).decode("ascii")


def _decode_postings(data: str, doc_bytes: int, docs_count: int) -> tuple[Sequence[int], bytes]:
    """Skill indexes and weight bytes of one encoded postings list; ValueError when corrupt."""
    raw = base64.b64decode(data, validate=True)
    count, rest = divmod(len(raw), doc_bytes + 1)
    docs = array.array(_doc_typecode(doc_bytes))
    docs.frombytes(raw[:count * doc_bytes])
    if sys.byteorder != "little":
        docs.byteswap()
    if rest or (count and max(docs) >= docs_count):
        raise ValueError("corrupt search index: a postings list is truncated or names a skill it does not have")
    return docs, raw[count * doc_bytes:]


def term_postings(entries: Sequence[dict[str, Any]]) -> dict[str, list[tuple[int, int]]]:
    """Per term, (skill index, quantised weight) of every skill that has it."""
    per_skill = [_field_terms(e) for e in entries]
    n = len(per_skill)
    average = {f: (sum(len(t[f]) for t in per_skill) / n if n else 0.0) or 1.0 for f in SEARCH_FIELDS}
    postings: dict[str, list[tuple[int, int]]] = {}
    for index, terms in enumerate(per_skill):
        for term, tf in _pseudo_counts(terms, average).items():
            level = round(tf / (tf + BM25_K1) * WEIGHT_LEVELS)  # (tf * (k1 + 1) / (tf + k1)) / (k1 + 1)
            postings.setdefault(term, []).append((index, min(WEIGHT_LEVELS, max(1, level))))
    return postings


def build_search_section(entries: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The ``search`` section of ``skills.json`` for manifest ``entries`` (in manifest order).

    Deterministic: terms sorted, postings by skill index, floats rounded.
    """
    postings = term_postings(entries)
    n = len(entries)
    terms = sorted(postings)
    doc_bytes = 2 if n <= 0x10000 else 4
    return {
        "version": SEARCH_VERSION,
        "model": "bm25f",
        "fields": dict(SEARCH_FIELDS),
        "k1": BM25_K1,
        "b": BM25_B,
        "docs": n,
        "doc_bytes": doc_bytes,
        "weight_unit": round((BM25_K1 + 1.0) / WEIGHT_LEVELS, 9),
        "terms": terms,
        "idf": [idf(len(postings[t]), n) for t in terms],
        "postings": [_encode_postings(postings[t], doc_bytes) for t in terms],
    }


def query_terms(query: str) -> list[str]:
    """The distinct terms of a query, in the order their scores are added (sorted)."""
    return sorted(set(tokenize(query)))


def best_gains(postings: Iterable[tuple[Sequence[int], bytes, float]]) -> dict[int, float]:
    """One query term's score per skill, from the (skills, weight bytes, scale) of each vocabulary
    term it matches (scale: idf * weight_unit * prefix factor): its best weight times scale."""
    best: dict[int, float] = {}
    for docs, weights, scale in postings:
        for doc, weight in zip(docs, weights):
            gain = weight * scale
            if doc not in best or gain > best[doc]:
                best[doc] = gain
    return best


def tag_filtered(scores: dict[int, float], allowed: Collection[int], query: str) -> dict[int, float]:
    """The scores of the skills in ``allowed`` (those with every tag asked for); a query without
    search terms lists every one of them with score 0."""
    if scores or tokenize(query):
        return {d: scores[d] for d in allowed if d in scores}
    return dict.fromkeys(allowed, 0.0)


Key = TypeVar("Key")


def copies_together(ranked: Sequence[tuple[Key, float]], group_of: Callable[[Key], Key]) -> list[tuple[Key, float]]:
    """``ranked`` (hits with rounded scores, best first) with, in each run of equal scores, the
    members of a group of copies together at the place of the first of them, its canonical
    member first (``group_of``: a hit's canonical member, itself outside a group): every copy
    listed, a copy follows its canonical member on a tie, as the catalog page lists them
    (ranking.js's copiesInPlace), and the runs' other hits keep their order."""
    out: list[tuple[Key, float]] = []
    at = 0
    while at < len(ranked):
        end = at + 1
        while end < len(ranked) and ranked[end][1] == ranked[at][1]:
            end += 1
        members: dict[Key, list[tuple[Key, float]]] = {}
        for hit in ranked[at:end]:
            group = group_of(hit[0])
            held = members.setdefault(group, [])
            if hit[0] == group:
                held.insert(0, hit)
            else:
                held.append(hit)
        out.extend(hit for hits in members.values() for hit in hits)
        at = end
    return out


def add_gains(scores: dict[int, float], gains: dict[int, float]) -> None:
    """Add one query term's ``gains`` to ``scores`` (terms in :func:`query_terms` order)."""
    for doc, gain in gains.items():
        scores[doc] = scores.get(doc, 0.0) + gain


class SearchIndex:
    """The precomputed search index of a catalog, ready to answer queries.

    Build it with :meth:`from_manifest`; :meth:`search` ranks skills by BM25F score, ties
    broken by priority (higher first) and then id.
    """

    def __init__(self, section: dict[str, Any], ids: Sequence[str], priorities: Sequence[int],
                 tags: Sequence[Sequence[str]]) -> None:
        if section.get("docs") != len(ids):
            raise ValueError(f"search index covers {section.get('docs')} skills, the manifest has {len(ids)}")
        if not len(section["terms"]) == len(section["idf"]) == len(section["postings"]):
            raise ValueError("search index terms, idf and postings differ in length")
        if section["doc_bytes"] not in (2, 4) or not section["weight_unit"] > 0:
            raise ValueError("search index has an unknown doc_bytes or weight_unit")
        self.ids = list(ids)
        self.priorities = list(priorities)
        self._tags = tags
        self._terms: list[str] = section["terms"]
        self._idf: list[float] = section["idf"]
        self._encoded: list[str] = section["postings"]
        self._doc_bytes: int = section["doc_bytes"]
        self._unit: float = section["weight_unit"]
        self._decoded: dict[int, tuple[Sequence[int], bytes]] = {}
        self._tag_index: dict[str, set[int]] | None = None

    @classmethod
    def from_manifest(cls, manifest: dict[str, Any]) -> SearchIndex:
        """The index of a parsed ``skills.json``; computed from its entries when it has none
        (or one in a newer format than this loader reads)."""
        skills = manifest.get("skills") or []
        section = manifest.get("search")
        if not isinstance(section, dict) or section.get("version") != SEARCH_VERSION:
            section = build_search_section(skills)
        return cls(section, [s["id"] for s in skills], [int(s.get("priority") or 0) for s in skills],
                   [s.get("tags") or () for s in skills])

    def __len__(self) -> int:
        return len(self.ids)

    def _postings(self, term_index: int) -> tuple[Sequence[int], bytes]:
        """A term's postings, decoded on first use."""
        found = self._decoded.get(term_index)
        if found is None:
            found = _decode_postings(self._encoded[term_index], self._doc_bytes, len(self.ids))
            self._decoded[term_index] = found
        return found

    def _matches(self, term: str) -> list[tuple[int, float]]:
        """Vocabulary terms a query term matches, as (term index, factor): itself, or else
        (when it is not in the vocabulary) the terms it begins, at PREFIX_FACTOR."""
        at = bisect.bisect_left(self._terms, term)
        if at < len(self._terms) and self._terms[at] == term:
            return [(at, 1.0)]
        if len(term) < MIN_PREFIX:
            return []
        found = []
        while at < len(self._terms) and self._terms[at].startswith(term) and len(found) < MAX_EXPANSIONS:
            found.append((at, PREFIX_FACTOR))
            at += 1
        return found

    def _term_scores(self, matches: list[tuple[int, float]]) -> dict[int, float]:
        """One query term's score per skill: that of its best-matching vocabulary term."""
        return best_gains((*self._postings(at), self._idf[at] * self._unit * factor) for at, factor in matches)

    def scores(self, query: str) -> dict[int, float]:
        """Score of every matching skill, by manifest index (unrounded)."""
        scores: dict[int, float] = {}
        for term in query_terms(query):
            add_gains(scores, self._term_scores(self._matches(term)))
        return scores

    def _with_tags(self, tags: Sequence[str]) -> set[int]:
        """Indexes of the skills that carry every one of ``tags``, each compared :func:`folded` (case
        aside, "é" written composed or decomposed alike), as every tag filter and count does."""
        if self._tag_index is None:
            self._tag_index = {}
            for doc, doc_tags in enumerate(self._tags):
                for tag in doc_tags:
                    self._tag_index.setdefault(folded(str(tag)), set()).add(doc)
        found: set[int] | None = None
        for tag in {folded(t) for t in tags}:
            docs = self._tag_index.get(tag, set())
            found = set(docs) if found is None else found & docs
        return found or set()

    def search(self, query: str, k: int = 5, tags: Sequence[str] | None = None,
               exclude: Collection[str] = (), copy_of: Mapping[str, str] | None = None) -> list[tuple[str, float]]:
        """The ``k`` best (skill id, score) for ``query``, best first; ties by priority, then id.

        Scores are rounded to 6 decimals before ranking.  ``tags`` keeps only skills carrying
        every one of them (case-insensitive); with tags and a query without search terms, the
        tagged skills are listed with score 0.  Skills whose ids are in ``exclude`` are never
        returned (the k best are taken from the others).  ``copy_of`` (each copy's canonical
        member, by id): on a tie, a group's copies right after its canonical member
        (:func:`copies_together`), as the catalog page lists every copy.
        """
        if k <= 0:
            return []
        scores = self.scores(query)
        if tags:
            scores = tag_filtered(scores, self._with_tags(tags), query)
        if exclude:
            scores = {d: s for d, s in scores.items() if self.ids[d] not in exclude}
        if len(scores) > k:  # only skills within rounding of the k-th best score can be in the top k
            floor = heapq.nlargest(k, scores.values())[-1] - 1e-6
            scores = {d: s for d, s in scores.items() if s >= floor}
        ranked = sorted((-round(s, 6), -self.priorities[d], self.ids[d]) for d, s in scores.items())
        if not copy_of:
            return [(skill_id, -neg) for neg, _, skill_id in ranked[:k]]
        hits = [(skill_id, -neg) for neg, _, skill_id in ranked]
        return copies_together(hits, lambda skill_id: copy_of.get(skill_id, skill_id))[:k]
