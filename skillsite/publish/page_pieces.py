"""What the pages stage makes of each skill's manifest entry alone, or of it and a few values
named with it, kept between builds in a long-running process (``serve``, #47) with
:func:`~skillsite.cache.kept_or_made`: taken again for the very same entry object and equal
values, so that a rebuild makes these pieces for the changed skills only, and puts the
catalog-wide values (tag counts, cards, page keys, ``_headers``) together from them."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from skillsite.agent.entry import ManifestEntry
from skillsite.cache import KeptObjects, digest, kept_or_made
from skillsite.publish.views import FoldedTags, TagInfo, card_showing, folded_tags, own_active_files

#: Where a long-running process keeps each skill's :class:`EntryPieces` (by its id).
ENTRY_PIECES = "page pieces"
#: Where it keeps each listed skill's :class:`Card` (by its id).
CARDS = "page cards"


@dataclass(frozen=True)
class EntryPieces:
    """What the pages stage needs of one entry alone, made once per entry."""

    tags: FoldedTags
    active_urls: tuple[str, ...]    # its published files a browser might run (:func:`~.views.active_files`)
    active_paths: tuple[str, ...]   # its bundled files a browser might run, as paths in its folder

    @classmethod
    def of(cls, entry: ManifestEntry) -> EntryPieces:
        urls, paths = own_active_files(entry)
        return cls(folded_tags(entry.tags), tuple(urls), tuple(paths))

    def active(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """:func:`~skillsite.publish.views.own_active_files` of its entry."""
        return self.active_urls, self.active_paths


def entry_pieces(resident: KeptObjects | None, entry: ManifestEntry) -> EntryPieces:
    """:class:`EntryPieces` of ``entry``: with ``resident`` objects, those made of this very entry before."""
    return kept_or_made(resident, ENTRY_PIECES, entry.id, entry, (), lambda: EntryPieces.of(entry))


@dataclass(frozen=True)
class Card:
    """A listed skill's card (:func:`~skillsite.publish.views.card`) and a digest of all it
    shows: what keys the list pages it is on.  The card is shared: nothing may change it."""

    values: dict[str, Any]
    key: str


def kept_card(resident: KeptObjects | None, entry: ManifestEntry, tags: Sequence[TagInfo]) -> Card:
    """The :class:`Card` of ``entry`` showing ``tags`` (:func:`~skillsite.publish.views.card_tags`):
    with ``resident`` objects, the one made of this very entry and equal tags before."""
    return kept_or_made(resident, CARDS, entry.id, entry, tuple(tags), lambda: _card(entry, tags))


def _card(entry: ManifestEntry, tags: Sequence[TagInfo]) -> Card:
    """:func:`kept_card`, made."""
    values = card_showing(entry, tags)
    return Card(values, digest("card", values))
