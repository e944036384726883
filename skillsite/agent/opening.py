"""Where a catalog's ``skills.json`` is and how it is had: a URL or a path, fetched and revalidated
against the loader's cache, or its cached copy when the host cannot be reached.  Part of
:class:`skillsite.loader.Catalog`'s opening (standard library only)."""
from __future__ import annotations

import os
import time
import urllib.parse
import warnings
from pathlib import Path
from typing import Any

from skillsite.agent.catalog_format import MANIFEST_NAME
from skillsite.agent.errors import FetchError, HTTPStatusError, StaleCatalogWarning
from skillsite.agent.fetch import Fetcher
from skillsite.agent.manifest_check import parse_manifest
from skillsite.agent.store import LoaderCache, conditional_headers


def classify_source(source: str | os.PathLike[str]) -> tuple[str, str]:
    """``("url", url)`` or ``("path", path of skills.json)``; refuses other URL schemes."""
    if not isinstance(source, (str, os.PathLike)):  # str() of None or of bytes would name a folder
        raise TypeError(f"a catalog is a URL or a path (str or os.PathLike), not {type(source).__name__}")
    if isinstance(source, os.PathLike):
        text = os.fspath(source)
    else:
        text = source
        try:
            scheme = urllib.parse.urlsplit(text).scheme.lower()
        except ValueError as exc:  # a malformed URL, such as "http://[::1"
            raise FetchError(f"refusing {text!r}: {exc}", text) from None
        if scheme in ("http", "https"):
            return "url", manifest_url(text)
        if len(scheme) > 1 and "://" in text or scheme in ("file", "ftp", "data"):
            raise FetchError(f"refusing {text!r}: a catalog is an http(s) URL or a local path", text)
    path = Path(text).expanduser()
    return "path", os.path.abspath(path / MANIFEST_NAME if os.path.isdir(path) else path)  # False on any OSError


def manifest_url(url: str) -> str:
    """The URL of the manifest a catalog URL stands for: one whose path names a ``.json`` file
    is that file; any other is the site's folder (``https://host/sub`` as ``https://host/sub/``),
    so ``skills.json`` is read in it (the query is kept, the fragment dropped)."""
    parts = urllib.parse.urlsplit(url)
    path = parts.path
    if not path.lower().endswith(".json"):
        path = path + ("" if path.endswith("/") else "/") + MANIFEST_NAME
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def fetch_manifest(url: str, fetcher: Fetcher, cache: LoaderCache, revalidate: bool = True
                    ) -> tuple[dict[str, Any], bytes, str, str]:
    """A remote manifest, its bytes, its final URL and how it was had (fetched, not-modified,
    offline); ``revalidate`` false: fetched whole, whatever the cache holds."""
    cached = cache.read_manifest(url) if revalidate else None
    try:
        response = fetcher.get(url, conditional_headers(cached[1] if cached else None))
    except FetchError as exc:
        if cached is None or not exc.transient:
            raise
        warnings.warn(StaleCatalogWarning(f"{exc}; using the cached copy from {_age(cached[1])} ago"),
                      stacklevel=3)
        return parse_manifest(cached[0], url), cached[0], cached[1].get("final_url") or url, "offline"
    if response.status == 304:
        if cached is None:
            raise HTTPStatusError(url, 304, "Not Modified to an unconditional request")
        cache.touch_manifest(url, cached[1])
        return parse_manifest(cached[0], url), cached[0], cached[1].get("final_url") or url, "not-modified"
    manifest = parse_manifest(response.body, url)
    cache.write_manifest(url, response)
    return manifest, response.body, response.url, "fetched"


def _age(meta: dict[str, Any]) -> str:
    """How long ago a cached manifest was fetched, in words."""
    age = time.time() - float(meta.get("fetched_at", 0))
    return f"{age / 3600:.1f} h" if age >= 3600 else f"{age / 60:.0f} min" if age >= 60 else f"{age:.0f} s"
