"""Pages of a paged ``skills.json`` taken from the last build (#29: a rebuild recomposes the
manifest from stored pieces instead of making every entry JSON again).

A page after the root holds a run of entries; when each of them is made of what it was made of
last time (the skill's publication, :func:`~skillsite.publish.skills.publication_key`, its
audit findings and its versions.json's digest), the page, its index and its entry files are the
same bytes: the build takes them as they are (when the output still holds them untouched) and
feeds the catalog's digest with the entries' canonical JSON kept in the cache, without making
any of it.
"""
from __future__ import annotations

from typing import Any, Sequence

from skillsite.agent.catalog_format import PAGED_FORMAT_VERSION
from skillsite.agent.entry import ManifestEntry
from skillsite.cache import Cache, KeptObjects, Section, digest, kept_or_made
from skillsite.publish.manifest import MadePage
from skillsite.publish.staging import Staging


#: Where a long-running process's resident objects keep each manifest entry's key (by its id).
ENTRY_KEY = "entry key"


def entry_keys(publication_keys: Sequence[str | None], entries: Sequence[ManifestEntry],
               audits: dict[str, Any], resident: KeptObjects | None = None) -> list[str | None]:
    """What each manifest entry is made of: its publication, its audit findings, its
    versions.json's sha256 and its group of copies (the suppressions and everything else an entry depends on are the
    cache's scope); None for a skill whose publication the cache does not keep (one that
    reported a problem).  In a long-running process, the key the last build worked out for this
    very entry, of an equal publication and findings."""
    return [None if key is None else kept_or_made(resident, ENTRY_KEY, entry.id, entry, (key, audits.get(entry.id)),
                                                  lambda key=key, entry=entry: _entry_key(key, entry, audits))
            for key, entry in zip(publication_keys, entries)]


def _entry_key(publication_key: str, entry: ManifestEntry, audits: dict[str, Any]) -> str:
    """:func:`entry_keys`' key of one entry."""
    return digest("entry", publication_key, audits.get(entry.id), entry.versions_sha256,
                  entry.copies.to_json() if entry.copies else None)


class StoredPages:
    """The pages the last build made (a :class:`~skillsite.publish.manifest.PageStore`), by what
    their entries are made of (:func:`entry_keys`, in the manifest's order)."""

    def __init__(self, cache: Cache, staging: Staging, keys: Sequence[str | None]):
        self.cache, self.staging, self.keys = cache, staging, keys

    def _key(self, number: int, start: int, stop: int) -> str | None:
        keys = self.keys[start:stop]
        return None if None in keys else digest("manifest page", PAGED_FORMAT_VERSION, number, keys)

    def taken(self, number: int, start: int, stop: int) -> MadePage | None:
        """The page stored under its entries' keys, its files taken as they are; in a long-running
        process, the very page the last build took or made (not read and decoded again)."""
        key = self._key(number, start, stop)
        page = next(self.cache.made_many(Section.MANIFEST_PAGE, [key], MadePage.from_json))
        if page is None:
            return None
        return page if self.staging.keep_all(page.files()) else None

    def made(self, number: int, start: int, stop: int, page: MadePage) -> None:
        key = self._key(number, start, stop)
        if key is not None:
            self.cache.put(Section.MANIFEST_PAGE, key, page.to_json())
            self.cache.keep_made(Section.MANIFEST_PAGE, key, page)  # the next build of this process takes it
