"""Searching an open catalog: its precomputed BM25F index (in ``skills.json``) or, above
``shard_above`` skills, its sharded index (the chunks of the query's words and the cards of the
results, fetched as needed); a group of copies is one result.  Part of
:class:`skillsite.loader.Catalog` (standard library only): it reads the catalog's entries and
fetches through it."""
from __future__ import annotations

from typing import Any, Sequence

from skillsite.agent.catalog_format import RISKS, above, offered_to_model
from skillsite.agent.entry import ManifestEntry
from skillsite.agent.errors import CatalogFormatError
from skillsite.agent.results import SearchResult, one_per_group
from skillsite.search.bm25 import SearchIndex
from skillsite.search.shard_query import Card, ShardedIndex, ShardIntegrityError


#: What reading a corrupt or hostile search index raises (a host may serve anything): each is
#: reported as an unusable index.  ArithmeticError: a zero bucket size, an infinite priority;
#: RecursionError: JSON nested deeper than Python parses.
UNUSABLE = (ValueError, KeyError, TypeError, IndexError, AttributeError, ArithmeticError, RecursionError)
#: What a search reads of its query: a longer one (a paste, a hostile MCP client's megabytes)
#: searches for its start, at the cost of a query, as trigger matching reads a message's start.
MAX_QUERY_CHARS = 4000


def group_size(entry: ManifestEntry | None) -> int:
    """How many skills a search result stands for: its group of copies, else itself."""
    return entry.copies.count if entry is not None and entry.copies is not None else 1


class CatalogSearch:
    """The search of one open catalog; its index is read on first use and kept."""

    def __init__(self, catalog: Any) -> None:  # the open skillsite.loader.Catalog
        self.catalog = catalog
        self.index: SearchIndex | ShardedIndex | None = None

    def search(self, query: str, k: int, tags: Sequence[str] | None, for_model: bool,
               copies: bool) -> list[SearchResult]:
        """What :meth:`skillsite.loader.Catalog.search` returns; TypeError when ``tags`` is no list
        of strings (the caller's mistake), IntegrityError when a file of the index is not the one
        published, CatalogFormatError when the index is unusable, TrustError once the signed
        metadata expired (a small catalog's index is in its skills.json, read before)."""
        return [result for result, _ in self._rated(query, k, tags, for_model, copies, self.catalog.max_risk)]

    def withheld(self, query: str, k: int, tags: Sequence[str] | None, copies: bool) -> list[str]:
        """What :meth:`skillsite.loader.Catalog.search_withheld` returns: the audit risks of the
        ``k`` best matches at any risk that the catalog's ``max_risk`` leaves out, best first."""
        if self.catalog.max_risk == RISKS[-1]:
            return []
        rated = self._rated(query, k, tags, False, copies, RISKS[-1])
        return [risk for _, risk in rated if above(risk, self.catalog.max_risk)]

    def _rated(self, query: str, k: int, tags: Sequence[str] | None, for_model: bool, copies: bool,
               max_risk: str) -> list[tuple[SearchResult, str]]:
        """:meth:`search`'s results, each with its audit risk, of the skills rated at most ``max_risk``."""
        if tags is not None and (isinstance(tags, str) or not all(isinstance(tag, str) for tag in tags)):
            raise TypeError("tags must be a list of strings")
        self.catalog.still_signed()
        query = query[:MAX_QUERY_CHARS]
        if k <= 0:
            return []
        section = self.catalog.manifest.get("search")
        if isinstance(section, dict) and "sharded" in section:
            return self._shards(section, query, k, tags, for_model, copies, max_risk)
        try:
            return self._whole(query, k, tags, for_model, copies, max_risk)
        except UNUSABLE as exc:
            raise CatalogFormatError(f"{self.catalog.location}: unusable search index ({exc})") from None

    def _whole(self, query: str, k: int, tags: Sequence[str] | None, for_model: bool,
               copies: bool, max_risk: str) -> list[tuple[SearchResult, str]]:
        """Search the index ``skills.json`` holds (read on first use)."""
        if not isinstance(self.index, SearchIndex):
            self.index = SearchIndex.from_manifest({**self.catalog.manifest, "skills": self.catalog.skills})
        index = self.index
        entries = {e.id: e for e in self.catalog._source.well_formed()}
        withheld = frozenset(i for i, e in entries.items() if above(e.risk, max_risk)
                             or for_model and not offered_to_model(e, copies_too=True))
        copy_of = {i: e.visibility.copy_of for i, e in entries.items() if e.visibility.copy_of}
        if copies:  # on a tie, a copy right after its canonical member, as the catalog page lists them
            hits = index.search(query, k=k, tags=tags, exclude=withheld, copy_of=copy_of)
        else:
            ranked = index.search(query, k=len(index), tags=tags, exclude=withheld)
            def allowed(sid: str) -> bool:
                """Whether ``sid`` may stand for its group: for a model, a copy never does (it is
                offered as its canonical member only)."""
                return sid not in withheld and not (for_model and sid in copy_of)

            hits = one_per_group(ranked, copy_of, allowed, k)
        return [(SearchResult(sid, *self.catalog._source.summary(sid), float(score), group_size(entries.get(sid))),
                 entries[sid].risk if sid in entries else RISKS[0]) for sid, score in hits]

    def _shards(self, section: dict[str, Any], query: str, k: int, tags: Sequence[str] | None,
                for_model: bool, copies: bool, max_risk: str) -> list[tuple[SearchResult, str]]:
        """Search a sharded index: its meta file once, then only the chunks of the query's words
        and the cards of its results; cards say what to leave out.  When every fetch must be
        pinned, each of those files is verified too (IntegrityError)."""
        catalog = self.catalog

        def keep(card: Card) -> bool:
            offered = card.offered and (copies or card.copy_of < 0)  # a card's "offered" leaves copies aside
            return card.risk in RISKS and not above(card.risk, max_risk) and (offered or not for_model)
        try:
            if not isinstance(self.index, ShardedIndex) or self.index.pinned != catalog._pin_all_fetches:
                self.index = ShardedIndex.open(section, catalog._files.search_files(), pinned=catalog._pin_all_fetches)
            hits = self.index.search(query, k=k, tags=tags, keep=keep, groups=not copies)
        except ShardIntegrityError as exc:
            raise catalog._files.mismatch(f"{catalog.location}: {exc}", exc.expected, exc.actual) from None
        except UNUSABLE as exc:
            raise CatalogFormatError(f"{catalog.location}: unusable search index ({exc})") from None
        return [(SearchResult(card.id, card.name, card.description, float(score), card.copies), card.risk)
                for card, score in hits]
