"""The files of an open catalog's site: where a site-relative URL points (a URL of a remote
catalog, a path of a local one), and each file fetched and checked against the sha256 that pins
it (kept in the loader's cache by that sha256).  Part of :class:`skillsite.loader.Catalog`
(standard library only)."""
from __future__ import annotations

import hashlib
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator

from skillsite.agent.entry import KnowledgeRecord, ManifestEntry
from skillsite.agent.errors import (CatalogFormatError, IntegrityError, NotFoundError, RiskError, TooLargeError,
                                    TrustError)
from skillsite.agent.fetch import read_local
from skillsite.agent.manifest_check import site_relative
from skillsite.agent.search_files import SearchFiles
from skillsite.agent.site_urls import site_file_url
from skillsite.agent.trust_policy import site_getter


class SiteFiles:
    """Where the files of one open catalog are, and each fetched verified."""

    def __init__(self, catalog: Any) -> None:  # the open skillsite.loader.Catalog
        self.catalog = catalog

    def url(self, rel: str) -> str:
        """Absolute URL or path of a site-relative URL (checked to stay inside the site)."""
        clean = site_relative(rel, "catalog URL")
        if self.catalog.remote:
            return site_file_url(self.catalog.location, clean)
        path = os.path.join(os.path.dirname(self.catalog.location), *clean.rstrip("/").split("/"))
        return path + os.sep if clean.endswith("/") else path

    def verified(self, rel: str, sha: str, size: int | None, what: str) -> bytes:
        """Bytes of a site file whose sha256 must be ``sha``; IntegrityError otherwise (TrustError
        once the signed metadata the catalog was opened with has expired)."""
        catalog = self.catalog
        self.still_signed()
        data = catalog._cache.get_object(sha) if catalog._cache else None
        if data is not None:
            return data
        limit = catalog._max_bytes if size is None else min(catalog._max_bytes, size + 1)
        try:
            if catalog.remote:
                data = catalog._fetcher.get(self.url(rel), limit=limit).body
            else:
                data = read_local(Path(self.url(rel)), limit)
        except TooLargeError:
            if size is None or size >= catalog._max_bytes:
                raise
            raise self.mismatch(f"{what} is larger than the {size:,} bytes the catalog records; refusing it",
                                sha) from None
        actual = hashlib.sha256(data).hexdigest()
        if actual != sha:
            raise self.mismatch(f"{what} does not match the catalog: sha256 is {actual}, the manifest says {sha}; "
                                "refusing it", sha, actual)
        if catalog._cache:
            catalog._cache.put_object(sha, data)
        return data

    def still_signed(self) -> None:
        """TrustError once the signed metadata of the catalog expired while it was open: a reader
        that keeps it open (``skillsite mcp``) reads no more of it, as an open would refuse it, so
        a host frozen on an old build holds it no longer than the metadata allows (its search
        neither, though a small catalog's index is in the skills.json it read)."""
        signed = self.catalog.signed
        if signed is not None and signed.expires <= datetime.now(timezone.utc):
            raise TrustError(f"its signed metadata expired at {signed.expires:%Y-%m-%dT%H:%M:%SZ} while the catalog "
                             "was open: open the catalog again", self.catalog.location)

    def skill_md(self, entry: ManifestEntry) -> bytes:
        """A skill's current SKILL.md, verified."""
        size = entry.size.bytes if entry.size is not None else None
        return self.verified(entry.urls.skill_md, entry.sha256, size, f"SKILL.md of {entry.id}")

    def knowledge(self, path: str) -> bytes:
        """A knowledge document by the path its skills' records give, verified; only for a skill
        the catalog may load (RiskError when every skill naming it is above its ``max_risk``).
        The entries known already are asked first (a skill just loaded names its documents), so a
        paged catalog reads every page only for a path none of them gives.  An entry that fails
        its check is passed over; its error is raised when only such entries name the document."""
        refused: list[RiskError] = []
        malformed: list[CatalogFormatError] = []
        found = self._named_by(self.catalog._source.known(), path, refused)
        if found is None:
            found = self._named_by(self._checked_all(path, malformed), path, refused)
        if found is not None:
            return self.verified(found.url, found.sha256, found.size, f"knowledge document {path}")
        if refused or malformed:
            raise (refused or malformed)[0]
        raise NotFoundError(f"no knowledge document {path!r} in the catalog")

    def _checked_all(self, path: str, malformed: list[CatalogFormatError]) -> Iterator[ManifestEntry]:
        """Every entry that passes its check, in manifest order; the error of each that fails it
        and whose knowledge records (as published, unchecked) name ``path`` is added to ``malformed``."""
        source = self.catalog._source
        for data in source.all():
            try:
                yield source.checked(data)
            except CatalogFormatError as exc:
                records = data.get("knowledge")
                if isinstance(records, list) and any(isinstance(r, dict) and r.get("path") == path for r in records):
                    malformed.append(exc)

    def _named_by(self, entries: Iterable[ManifestEntry], path: str, refused: list[RiskError]
                  ) -> KnowledgeRecord | None:
        """The record of ``path`` in the first of ``entries`` the catalog may load that names it;
        the RiskError of each above ``max_risk`` that does is added to ``refused``."""
        for entry in entries:
            for record in entry.knowledge:
                if record.path != path:
                    continue
                try:
                    self.catalog._usable(entry)
                except RiskError as exc:
                    refused.append(exc)
                    continue
                return record
        return None

    def mismatch(self, message: str, expected: str, actual: str = "") -> IntegrityError:
        """The error of a file that is not the one the catalog pins: a TrustError in a signed catalog."""
        if self.catalog.signed is not None:  # a TrustError names the catalog itself
            message = message.removeprefix(f"{self.catalog.location}: ")
            return TrustError(f"{message} (a file of another build, or altered)", self.catalog.location)
        return IntegrityError(message, expected, actual)

    def unpinned(self, rel: str) -> bytes:
        """A site file no digest names (a versions.json of a catalog built before entries gave
        its sha256): read from disk, or fetched, cached and revalidated as the manifest is, from
        the cache when offline.  Refused when every fetch must be pinned (a signed catalog)."""
        catalog = self.catalog
        if catalog._pin_all_fetches:
            raise self.mismatch(f"{rel}: no digest in the catalog names this file, and this catalog fetches "
                                "only files a digest pins; refusing it", "")
        return self.search_files()(rel, None)

    def search_files(self) -> SearchFiles:
        """The fetch the search shards go through (cached, revalidated, verified when asked)."""
        catalog = self.catalog
        return SearchFiles(self.url, catalog._fetcher, catalog._cache, catalog._max_bytes, remote=catalog.remote,
                           offline=catalog.status == "offline", before_each=self.still_signed)

    def as_published(self, path: str) -> bytes:
        """A file of the site by its path, unchecked; NotFoundError when the site has none."""
        catalog = self.catalog
        data = site_getter(catalog.location, catalog.remote, catalog._fetcher, catalog._max_bytes)(path)
        if data is None:
            raise NotFoundError(f"{catalog.location}: the site has no {path}")
        return data
