"""The incremental-build cache: work already done, keyed by content digests.

One file in a cache folder (default ``.skillsite-cache`` beside the output), or a few: a
build keeps its pages' section in a small file of its own, so that the rest can be saved
while the pages are made.
Every entry is keyed by a digest of everything that determines it (content,
paths, skillsite's version and code, the configuration), so a stale entry is never
used: it simply is not found.  The file is written atomically.

A cache folder often sits inside a repository whose contents are untrusted (a pull
request can add any file), so a cache file is read only when its keyed MAC checks out
(the key lives in the user's cache folder, or ``$SKILLSITE_CACHE_KEY``: a planted file
cannot forge it), and then unpickled with only the few classes it legitimately holds.
"""
from __future__ import annotations

import hashlib
import hmac
import io
import os
import pickle
import secrets
from pathlib import Path
from typing import Any, BinaryIO

from skillsite import __version__
from skillsite.agent.store import write_atomically
from skillsite.paths import user_cache_root

CACHE_FILE = "build-cache.pickle"
PAGES_CACHE_FILE = "build-pages.pickle"  # the "pages" section, saved after the rest (see skillsite.build)
#: An input changed this recently (nanoseconds) is not trusted to keep its stamp: a second
#: change within the file system's timestamp granularity would go unnoticed.
RACY_NS = 2_000_000_000
_MAGIC = b"skillsite-cache 3\n"
_MAC_SIZE = 32
_HEADER = ("skillsite-build-cache", 3, __version__)
SECTIONS = ("skills", "html", "files", "search", "pages", "verdicts", "archives", "units")
#: The only classes a cache file may name (YAML's safe loader makes dates; diagnostics are ours).
_ALLOWED_CLASSES = frozenset({
    ("skillsite.diagnostics", "Diagnostic"), ("skillsite.diagnostics", "Severity"),
    ("datetime", "date"), ("datetime", "datetime"), ("datetime", "timezone"), ("datetime", "timedelta"),
})


def digest(*parts: Any) -> str:
    """A hex sha256 of ``parts`` (strings, bytes, numbers, and lists, tuples, dicts and
    dataclasses of those), pickled by :func:`value_bytes`: equal parts, equal digest.

    Pickled whole rather than part by part (repr, or each part on its own): a key of a dozen
    parts then costs one call into C instead of a dozen rounds of Python.
    """
    return hashlib.sha256(value_bytes(parts)).hexdigest()


_secrets: dict[Path, bytes] = {}  # key file -> key, read once per process


def cache_secret() -> bytes:
    """The key that signs cache files: ``$SKILLSITE_CACHE_KEY``, else a random key made once and
    kept (mode 0600) in the user cache folder; a key that cannot be kept lasts one process
    (its cache files are then never read again, which is safe)."""
    if os.environ.get("SKILLSITE_CACHE_KEY"):
        return os.environ["SKILLSITE_CACHE_KEY"].encode("utf-8")
    path = user_cache_root() / "cache-key"
    if path not in _secrets:
        try:
            key = path.read_bytes()
        except OSError:
            key = b""
        if len(key) < 32:
            key = secrets.token_hex(32).encode("ascii")
            fresh = key
            write_atomically(path, lambda handle: handle.write(fresh))  # mkstemp's file: mode 0600
        _secrets[path] = key
    return _secrets[path]


class _CacheUnpickler(pickle.Unpickler):
    """Unpickles only the classes a cache file legitimately holds."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED_CLASSES:
            raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a cache file")
        return super().find_class(module, name)


def code_signature() -> list[tuple[str, int, int]]:
    """Size and modification time of skillsite's own modules and schemas: a changed
    installation (even at the same version, as in development) never reuses a cache."""
    package = Path(__file__).resolve().parent
    files = sorted([*package.glob("*.py"), *package.glob("schemas/*.json")])
    return [(p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in files]


def code_scope(*more: Any) -> str:
    """The scope of a cache: skillsite's version and code (see :func:`code_signature`), and
    ``more`` (what else every entry depends on, such as the configuration)."""
    return digest(__version__, code_signature(), *more)


def load_signed(path: Path) -> Any:
    """The object in a cache file written by :func:`save_signed`, or None when it is missing,
    damaged, or not signed with this user's key.

    The file is read twice (its MAC first, then the pickle), never held in memory whole: a
    cache of 100,000 skills is gigabytes.
    """
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(_MAGIC) + _MAC_SIZE)
            if len(head) < len(_MAGIC) + _MAC_SIZE or not head.startswith(_MAGIC):
                return None
            mac = hmac.new(cache_secret(), digestmod="sha256")
            for block in iter(lambda: handle.read(1 << 20), b""):
                mac.update(block)
            if not secrets.compare_digest(head[len(_MAGIC):], mac.digest()):
                return None
            handle.seek(len(head))
            try:
                return _CacheUnpickler(handle).load()
            except (EOFError, pickle.UnpicklingError, AttributeError, ImportError, ValueError, TypeError,
                    IndexError, KeyError, MemoryError, RecursionError):
                return None
    except OSError:
        return None


class _SigningWriter:
    """A file wrapper that feeds everything written through it to a MAC."""

    def __init__(self, handle: Any, mac: Any):
        self.handle = handle
        self.mac = mac

    def write(self, data: Any) -> int:
        self.mac.update(data)
        return self.handle.write(data)


def save_signed(path: Path, value: Any) -> None:
    """Write ``value`` to ``path`` atomically, signed; a folder that cannot be written is skipped.

    The pickle streams into the file (and its MAC) instead of being built in memory first."""
    def write(handle: BinaryIO) -> None:
        handle.write(_MAGIC + bytes(_MAC_SIZE))
        mac = hmac.new(cache_secret(), digestmod="sha256")
        pickle.dump(value, _SigningWriter(handle, mac), protocol=pickle.HIGHEST_PROTOCOL)
        handle.seek(len(_MAGIC))
        handle.write(mac.digest())

    write_atomically(path, write)


def value_bytes(value: Any) -> bytes:
    """``value`` pickled without pickle's memo, so that equal values give equal bytes however
    their parts happen to be shared (the memo would write a repeated object once and refer to
    it after).  Several times faster than ``repr`` on large nested values; for digests."""
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.fast = True
    pickler.dump(value)
    return out.getvalue()


class BuildCache:
    """Lookups and stores for one build; ``save`` keeps only what this build used.

    On disk: a base file and a small delta file beside it.  A save that adds or drops only a
    small part of the base writes just the delta (what the base lacks), so a rebuild after a
    small change does not rewrite the whole cache; otherwise the base is rewritten.
    """

    #: The base is rewritten once the entries it holds in vain, or the delta's, pass this share of it.
    REWRITE_SHARE = 0.25

    def __init__(self, folder: Path | None, scope: str, file_name: str = CACHE_FILE,
                 sections: tuple[str, ...] = SECTIONS):
        self.folder = folder
        self.file_name = file_name
        self.scope = scope  # digest of the configuration: another configuration never shares entries
        self.sections = sections  # the sections this file holds (any other is a KeyError)
        self.old: dict[str, dict[str, Any]] = {name: {} for name in sections}
        self.new: dict[str, dict[str, Any]] = {name: {} for name in sections}
        self.base: dict[str, dict[str, Any]] = {name: {} for name in sections}
        self.base_id = ""
        self.hits = 0
        self.misses = 0
        if folder is not None:
            self._load(folder / file_name, folder / (file_name + ".delta"))

    @property
    def enabled(self) -> bool:
        return self.folder is not None

    def _usable(self, data: Any) -> bool:
        return isinstance(data, dict) and data.get("header") == _HEADER and data.get("scope") == self.scope

    def _load(self, base_path: Path, delta_path: Path) -> None:
        base = load_signed(base_path)
        if not self._usable(base) or not isinstance(base.get("id"), str):
            return
        self.base_id = base["id"]
        for name in self.sections:
            if isinstance(base.get(name), dict):
                self.base[name] = base[name]
                self.old[name] = base[name]
        delta = load_signed(delta_path)
        if self._usable(delta) and delta.get("base") == self.base_id:
            for name in self.sections:
                if isinstance(delta.get(name), dict) and delta[name]:
                    self.old[name] = {**self.old[name], **delta[name]}

    def holds(self, section: str) -> bool:
        """True when the cache as loaded has entries in ``section``."""
        return bool(self.old[section])

    def get(self, section: str, key: Any) -> Any:
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

    def put(self, section: str, key: Any, value: Any) -> None:
        self.new[section][key] = value

    def file_sha(self, path: Path | str, size: int, mtime_ns: int) -> str | None:
        """The sha256 recorded for a file whose size and modification time have not changed."""
        return self.get("files", (str(path), size, mtime_ns))

    def remember_file_sha(self, path: Path | str, size: int, mtime_ns: int, sha: str) -> None:
        self.put("files", (str(path), size, mtime_ns), sha)

    def _delta(self) -> dict[str, dict[Any, Any]]:
        """What this build used that the base does not hold (as the same object)."""
        return {name: {k: v for k, v in self.new[name].items() if self.base[name].get(k) is not v}
                for name in self.sections}

    def _rewrites_base(self, delta: dict[str, dict[Any, Any]]) -> bool:
        in_base = sum(len(entries) for entries in self.base.values())
        unused = sum(1 for name in self.sections for k in self.base[name] if k not in self.new[name])
        added = sum(len(entries) for entries in delta.values())
        return not self.base_id or max(unused, added) > self.REWRITE_SHARE * in_base

    def saves_little(self) -> bool:
        """True when :meth:`save` will write only a small delta file."""
        return self.folder is None or not self._rewrites_base(self._delta())

    def save(self) -> None:
        """Write what this build used, atomically; a cache that cannot be written is skipped."""
        if self.folder is None:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            (self.folder / ".gitignore").write_text("*\n", encoding="utf-8")
        except OSError:
            return
        base_path, delta_path = self.folder / self.file_name, self.folder / (self.file_name + ".delta")
        delta = self._delta()
        if not self._rewrites_base(delta):
            save_signed(delta_path, {"header": _HEADER, "scope": self.scope, "base": self.base_id, **delta})
            return
        base_id = secrets.token_hex(16)
        save_signed(base_path, {"header": _HEADER, "scope": self.scope, "id": base_id, **self.new})
        try:  # a delta of an earlier base: it would be ignored (its base id differs), but takes room
            delta_path.unlink()
        except OSError:
            pass
