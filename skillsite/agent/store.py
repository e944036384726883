"""The loader's cache on disk: fetched manifests by URL (with their validators) and verified
files by sha256.

Every file name is derived from a hash, so nothing is ever written outside the cache
folder; every write goes to a temporary file renamed into place.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any, BinaryIO, Callable

from skillsite.agent.catalog_format import MANIFEST_NAME
from skillsite.agent.fetch import Response
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
        """Where the signed metadata accepted for the catalog at ``url`` is kept (:mod:`.trust`)."""
        return self._slot(url) / "trust"

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
        meta = {"url": url, "final_url": response.url, "etag": response.etag,
                "last_modified": response.last_modified, "fetched_at": time.time(),
                "sha256": hashlib.sha256(response.body).hexdigest()}
        slot = self._slot(url)
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


def _usable_meta(meta: Any) -> bool:
    """Whether a cached manifest's metadata is what :meth:`LoaderCache.write_manifest` writes: the
    headers a revalidation sends and the URL it came from as text (or null), its time a number;
    a hand-edited or damaged one (an ``etag`` of ``Infinity``) is no cache entry, not a traceback."""
    texts = ("etag", "last_modified", "final_url")
    return (isinstance(meta, dict) and all(meta.get(key) is None or isinstance(meta[key], str) for key in texts)
            and all(isinstance(meta.get(key, 0), (int, float)) and not isinstance(meta.get(key, 0), bool)
                    for key in ("fetched_at", "checked_at")))
