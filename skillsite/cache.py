"""The incremental-build cache: work already done, keyed by content digests.

One pickle file in a cache folder (default ``.skillsite-cache`` beside the output).
Every entry is keyed by a digest of everything that determines it (content,
paths, skillsite's version, the configuration), so a stale entry is never used:
it simply is not found.  The file is written atomically and read only when its
header matches; the cache folder must be as trusted as the build folder itself.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

from skillsite import __version__

CACHE_FILE = "build-cache.pickle"
_HEADER = ("skillsite-build-cache", 1, __version__)
_SECTIONS = ("skills", "html", "files", "search", "pages", "outputs")


def digest(*parts: Any) -> str:
    """A hex sha256 over the reprs of ``parts`` (strings, bytes, numbers, tuples of those)."""
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, bytes):
            kind, data = b"b", part
        elif isinstance(part, str):   # text as it is: its repr would cost a pass over every character
            kind, data = b"s", part.encode("utf-8", "surrogatepass")
        else:
            kind, data = b"r", repr(part).encode("utf-8", "surrogatepass")
        h.update(kind + len(data).to_bytes(8, "big"))
        h.update(data)
    return h.hexdigest()


class BuildCache:
    """Lookups and stores for one build; ``save`` keeps only what this build used."""

    def __init__(self, folder: Path | None, scope: str):
        self.folder = folder
        self.scope = scope  # digest of the configuration: another configuration never shares entries
        self.old: dict[str, dict[str, Any]] = {name: {} for name in _SECTIONS}
        self.new: dict[str, dict[str, Any]] = {name: {} for name in _SECTIONS}
        self.hits = 0
        self.misses = 0
        if folder is not None:
            self._load(folder / CACHE_FILE)

    @property
    def enabled(self) -> bool:
        return self.folder is not None

    def _load(self, path: Path) -> None:
        try:
            with open(path, "rb") as handle:
                data = pickle.load(handle)
        except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, ValueError, TypeError):
            return
        if not isinstance(data, dict) or data.get("header") != _HEADER or data.get("scope") != self.scope:
            return
        for name in _SECTIONS:
            if isinstance(data.get(name), dict):
                self.old[name] = data[name]

    def get(self, section: str, key: str) -> Any:
        """A cached value (carried over to the next save), or None."""
        value = self.old[section].get(key)
        if value is None:
            value = self.new[section].get(key)
        if value is None:
            self.misses += 1
            return None
        self.hits += 1
        self.new[section][key] = value
        return value

    def put(self, section: str, key: str, value: Any) -> None:
        self.new[section][key] = value

    def file_sha(self, path: Path, size: int, mtime_ns: int) -> str | None:
        """The sha256 recorded for a file whose size and modification time have not changed."""
        return self.get("files", digest(str(path), size, mtime_ns))

    def remember_file_sha(self, path: Path, size: int, mtime_ns: int, sha: str) -> None:
        self.put("files", digest(str(path), size, mtime_ns), sha)

    def save(self) -> None:
        """Write what this build used, atomically; a cache that cannot be written is skipped."""
        if self.folder is None:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            (self.folder / ".gitignore").write_text("*\n", encoding="utf-8")
            fd, tmp = tempfile.mkstemp(prefix=".cache-", dir=self.folder)
            with os.fdopen(fd, "wb") as handle:
                pickle.dump({"header": _HEADER, "scope": self.scope, **self.new}, handle,
                            protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, self.folder / CACHE_FILE)
        except OSError:
            pass
