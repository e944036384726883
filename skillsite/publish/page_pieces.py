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
from skillsite.publish.views import (FoldedTags, TagInfo, card_showing, count_tags, folded_tags, own_active_files,
                                     shown_tags, tags_by_folded_name)

#: Where a long-running process keeps each skill's :class:`EntryPieces` (by its id).
ENTRY_PIECES = "page pieces"
#: Where it keeps each listed skill's :class:`Card` (by its id).
CARDS = "page cards"
#: Where it keeps the catalog's tags (:class:`TagCatalog`), made of every listed skill's folded tags.
TAG_CATALOG = "page tags"
#: Where it keeps each skill's tags as cards show them (:func:`~skillsite.publish.views.card_tags`), by its id.
SHOWN_TAGS = "page shown tags"
#: Where it keeps each listed skill's row of :data:`TaggedSkills` (by its id).
TAGGED = "page tagged skill"
#: Each listed skill's own folded tags and those of the other members of its group of copies.
TaggedSkills = tuple[tuple[FoldedTags, tuple[FoldedTags, ...]], ...]


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


@dataclass(frozen=True)
class TagCatalog:
    """Every tag of the listed skills with its page and count (:func:`~skillsite.publish.views.count_tags`),
    by folded name too, and a digest of them all: what the values made of them are kept under."""

    tags: list[TagInfo]
    by_name: dict[str, TagInfo]
    key: str

    @classmethod
    def of(cls, skills: TaggedSkills) -> TagCatalog:
        tags = count_tags(skills)
        return cls(tags, tags_by_folded_name(tags), digest("tags", [(t.name, t.slug, t.count) for t in tags]))


def tagged_skill(resident: KeptObjects | None, skill_id: str, tags: FoldedTags, copies: tuple[FoldedTags, ...]
                 ) -> tuple[FoldedTags, tuple[FoldedTags, ...]]:
    """A listed skill's row of :data:`TaggedSkills`: its folded ``tags`` and those of its ``copies``;
    with ``resident`` objects, the row made before of these very tags and equal copies' (a row made
    anew for each skill at each save would outlive the collector's young collections)."""
    return kept_or_made(resident, TAGGED, skill_id, tags, (copies,), lambda: (tags, copies))


def tag_catalog(resident: KeptObjects | None, skills: TaggedSkills) -> TagCatalog:
    """The :class:`TagCatalog` of ``skills``: with ``resident`` objects, the one made before of
    equal folded tags (the same objects, but for the changed skills'), so that what is made of
    its tags can be kept by its key."""
    return kept_or_made(resident, TAG_CATALOG, "", TAG_CATALOG, (skills,), lambda: TagCatalog.of(skills))


def kept_shown_tags(resident: KeptObjects | None, entry: ManifestEntry, folds: FoldedTags,
                    catalog: TagCatalog) -> tuple[TagInfo, ...]:
    """``entry``'s tags as cards show them (``folds``: its tags folded): with ``resident``
    objects, those made before of this very entry and a catalog of the same tags."""
    return kept_or_made(resident, SHOWN_TAGS, entry.id, entry, (catalog.key,),
                        lambda: shown_tags(folds, catalog.by_name))
