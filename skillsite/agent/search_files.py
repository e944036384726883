"""The files of a sharded search index, as :class:`skillsite.loader.Catalog` fetches them for
:class:`skillsite.search.shard_query.ShardedIndex` (standard library only).

The meta file, whose sha256 skills.json gives, is kept in the loader's cache by that sha256 and
never fetched twice, and so is every file of a pinned index (``ShardedIndex(pinned=True)``
asks for each with its sha256, and checks it); chunks and cards of an index that is not pinned
are cached by URL and revalidated with ETag / If-Modified-Since, and served from the cache when
the server cannot be reached (with a StaleCatalogWarning) or when the catalog itself was opened
offline.  A file asked for again after the server said the kept copy was current (304) is
fetched whole: the index asks again for a file it found to be of another build, which a host
with validators that cannot tell two builds apart answers so.  Local catalogs are read
from disk.
"""
from __future__ import annotations

import hashlib
import warnings
from pathlib import Path
from typing import Callable

from skillsite.agent.errors import FetchError, HTTPStatusError, StaleCatalogWarning
from skillsite.agent.fetch import Fetcher, read_local
from skillsite.agent.store import LoaderCache, conditional_headers


class SearchFiles:
    """``fetch(path, sha256)`` for a catalog's sharded search index (see the module's docstring).

    ``url_of`` turns a site-relative path into the file's URL (remote catalogs) or path (local
    ones); ``offline``: the catalog was opened from its cached copy, so cached files are used
    without asking the server.
    """

    def __init__(self, url_of: Callable[[str], str], fetcher: Fetcher, cache: LoaderCache | None,
                 max_bytes: int, *, remote: bool, offline: bool, before_each: Callable[[], None] = lambda: None
                 ) -> None:
        self._url_of, self._fetcher, self._cache = url_of, fetcher, cache
        self._max_bytes, self._remote, self._offline = max_bytes, remote, offline
        self._before_each = before_each  # raises when the catalog may be read no more (its signature expired)
        self._kept_as_current: set[str] = set()  # the URLs a 304 answered with the kept copy

    def __call__(self, path: str, sha256: str | None) -> bytes:
        self._before_each()
        where = self._url_of(path)
        if not self._remote:
            return read_local(Path(where), self._max_bytes)
        if sha256 is not None:
            return self._by_digest(where, sha256)
        return self._revalidated(where)

    def _by_digest(self, url: str, sha256: str) -> bytes:
        """A file named by its sha256: from the cache, else fetched (and kept when it matches)."""
        data = self._cache.get_object(sha256) if self._cache else None
        if data is None:
            data = self._fetcher.get(url).body
            if self._cache and hashlib.sha256(data).hexdigest() == sha256:
                self._cache.put_object(sha256, data)
        return data

    def _revalidated(self, url: str) -> bytes:
        """A file as the server has it now (a 304 keeps the cached copy), or the cached copy offline."""
        cached = self._cache.read_manifest(url) if self._cache else None
        if cached is not None and self._offline:
            return cached[0]
        if url in self._kept_as_current:  # asked again: the kept copy was found to be of another build
            self._kept_as_current.discard(url)
            cached = None
        try:
            response = self._fetcher.get(url, conditional_headers(cached[1] if cached else None))
        except FetchError as exc:
            if cached is None or not exc.transient:
                raise
            warnings.warn(StaleCatalogWarning(f"{exc}; using the cached copy"), stacklevel=2)
            return cached[0]
        if response.status == 304:
            if cached is None:
                raise HTTPStatusError(url, 304, "Not Modified to an unconditional request")
            self._kept_as_current.add(url)
            return cached[0]
        if self._cache:
            self._cache.write_manifest(url, response)
        return response.body
