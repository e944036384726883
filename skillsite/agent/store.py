"""The loader's cache on disk: fetched manifests by URL (with their validators) and verified
files by sha256.

Every file name is derived from a hash, so nothing is ever written outside the cache
folder; every write goes to a temporary file renamed into place.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
import urllib.parse
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any, BinaryIO, Callable, Mapping

from skillsite.agent.catalog_format import MANIFEST_NAME
from skillsite.agent.fetch import Response
from skillsite.agent.site_urls import TUF_DIR, site_file_url
from skillsite.paths import user_cache_root


def default_cache_dir() -> Path:
    """``$SKILLSITE_CACHE_DIR``, else the user cache folder's ``loader``."""
    if os.environ.get("SKILLSITE_CACHE_DIR"):
        return Path(os.environ["SKILLSITE_CACHE_DIR"])
    return user_cache_root() / "loader"


def write_atomically(path: Path, write: Callable[[BinaryIO], Any]) -> bool:
    """Make ``path`` with ``write(handle)`` in a private temporary file beside it (mode 0600),
    then rename it into place: readers see the old file or the whole new one.  False (and
    nothing left behind) when the folder cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                write(handle)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        return False
    return True


class LoaderCache:
    """Manifests by URL (with validators) and verified files by sha256, under one folder."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def _slot(self, url: str) -> Path:
        return self.root / "catalogs" / hashlib.sha256(url.encode("utf-8")).hexdigest()[:32]

    def trust_folder(self, url: str) -> Path:
        """Where the signed metadata accepted for the catalog whose manifest is at ``url`` is kept
        (:mod:`.trust`): under :func:`pin_url`, where that metadata is read, so that no spelling of
        the catalog's URL that reads the same metadata (another query or file name, ``./``,
        ``//``) starts trust anew.  A folder an earlier version kept under the URL as given is
        moved there when there is none yet, and used where it is when it cannot be moved."""
        folder = self._slot(pin_url(url)) / "trust"
        earlier = self._slot(url) / "trust"
        try:
            if folder.exists() or not earlier.is_dir():
                return folder
        except OSError:  # a cache folder this process cannot read: its readers go on without it
            return folder
        try:
            folder.parent.mkdir(parents=True, exist_ok=True)
            earlier.rename(folder)
        except OSError:  # another process moved it first, or the cache cannot be written
            return folder if folder.is_dir() else earlier
        return folder

    def _object(self, sha: str) -> Path:
        return self.root / "objects" / sha[:2] / sha

    def read_manifest(self, url: str) -> tuple[bytes, dict[str, Any]] | None:
        """The cached body and its metadata, or None when absent or inconsistent."""
        slot = self._slot(url)
        try:
            meta = json.loads((slot / "meta.json").read_text("utf-8"))
            body = (slot / MANIFEST_NAME).read_bytes()
        except (OSError, ValueError):
            return None
        if not _usable_meta(meta) or meta.get("sha256") != hashlib.sha256(body).hexdigest():
            return None
        return body, meta

    def write_manifest(self, url: str, response: Response) -> None:
        """Keep a fetched file with the validators a later request may send (:func:`conditional_headers`).
        A response its server says not to store (``Cache-Control: no-store``, as ``skillsite serve``
        sends) is not kept, and what was kept of its URL before is dropped."""
        slot = self._slot(url)
        if _no_store(response.cache_control):
            (slot / "meta.json").unlink(missing_ok=True)
            return
        meta = {"url": url, "final_url": response.url, "etag": response.etag,
                "last_modified": _strong_last_modified(response), "fetched_at": time.time(),
                "sha256": hashlib.sha256(response.body).hexdigest()}
        self._write(slot / MANIFEST_NAME, response.body)
        self._write(slot / "meta.json", json.dumps(meta).encode("utf-8"))

    def touch_manifest(self, url: str, meta: dict[str, Any]) -> None:
        """Record a successful revalidation (304)."""
        self._write(self._slot(url) / "meta.json", json.dumps({**meta, "checked_at": time.time()}).encode())

    def get_object(self, sha: str) -> bytes | None:
        try:
            data = self._object(sha).read_bytes()
        except OSError:
            return None
        return data if hashlib.sha256(data).hexdigest() == sha else None

    def put_object(self, sha: str, data: bytes) -> None:
        self._write(self._object(sha), data)

    @staticmethod
    def _write(path: Path, data: bytes) -> None:
        """Atomic write; a cache that cannot be written is silently skipped."""
        write_atomically(path, lambda handle: handle.write(data))


#: RFC 3986's unreserved characters but ".": percent-encoded, they are the same URL (section
#: 6.2.2.2) and the same to ``urljoin``, which reads "." as a dot segment and "%2E" as a name.
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_~")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def pin_url(url: str) -> str:
    """The URL of the signed metadata of the catalog whose manifest is at ``url``, joined as the
    loader joins it to fetch it (:func:`site_file_url`: no query, file name, dot or empty
    segment), then spelt as RFC 3986 normalises (section 6.2.2): host in lower case, no default
    port, escapes of unreserved characters but "." decoded and the others' in upper case."""
    parts = urllib.parse.urlsplit(site_file_url(url, TUF_DIR))
    netloc = parts.netloc.lower()
    try:
        host, port = parts.hostname or "", parts.port
    except ValueError:  # a port that is no number: no URL the loader fetches
        host, port = None, None
    if host is not None:
        userinfo = parts.netloc.rpartition("@")[0]
        netloc = (userinfo + "@" if "@" in parts.netloc else "") + (f"[{host}]" if ":" in host else host)
        netloc += f":{port}" if port is not None and port != _DEFAULT_PORTS.get(parts.scheme) else ""
    return urllib.parse.urlunsplit((parts.scheme, netloc, _escapes(parts.path), "", ""))


def _escapes(text: str) -> str:
    """Percent-escapes of unreserved characters but "." decoded, the others' hex digits in upper case."""
    def one(match: re.Match[str]) -> str:
        char = chr(int(match.group(1), 16))
        return char if char in _UNRESERVED else match.group(0).upper()
    return re.sub(r"%([0-9A-Fa-f]{2})", one, text)


def conditional_headers(meta: Mapping[str, Any] | None) -> dict[str, str]:
    """The headers that ask the server for a kept file only if it changed (none for none)."""
    headers = {}
    if meta and meta.get("etag"):
        headers["If-None-Match"] = meta["etag"]
    if meta and meta.get("last_modified"):
        headers["If-Modified-Since"] = meta["last_modified"]
    return headers


def _no_store(cache_control: str | None) -> bool:
    """Whether a ``Cache-Control`` header holds the ``no-store`` directive."""
    return any(part.strip().split("=", 1)[0].lower() == "no-store" for part in (cache_control or "").split(","))


def _strong_last_modified(response: Response) -> str | None:
    """A response's ``Last-Modified``, when it can tell two versions apart: the server's ``Date``
    at least a second later (RFC 9110, 8.8.2.2).  Times have whole seconds, so a file changed again
    within the second it was served keeps its ``Last-Modified``, and asking with it would be
    answered 304 with the copy kept: the next request asks for the whole file instead."""
    try:
        modified = parsedate_to_datetime(response.last_modified or "")
        served = parsedate_to_datetime(response.date or "")
        return response.last_modified if (served - modified).total_seconds() >= 1 else None
    except (TypeError, ValueError):  # either missing or malformed, or one without a zone
        return None


def _usable_meta(meta: Any) -> bool:
    """Whether a cached manifest's metadata is what :meth:`LoaderCache.write_manifest` writes: the
    headers a revalidation sends and the URL it came from as text (or null), its time a number;
    a hand-edited or damaged one (an ``etag`` of ``Infinity``) is no cache entry, not a traceback."""
    texts = ("etag", "last_modified", "final_url")
    return (isinstance(meta, dict) and all(meta.get(key) is None or isinstance(meta[key], str) for key in texts)
            and all(isinstance(meta.get(key, 0), (int, float)) and not isinstance(meta.get(key, 0), bool)
                    for key in ("fetched_at", "checked_at")))
