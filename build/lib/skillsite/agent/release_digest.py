"""The digest of one release of a skill: the build writes it in ``versions.json``, the loader,
the lock file and ``skillsite outdated`` recompute it from the files they fetched or installed.

It is the sha256 of the ``sha256sum`` listing of the release's files (SKILL.md and every
published bundled file, never ``skill.xml``): one line ``"<sha256 hex>  <path>\\n"`` per file,
sorted by path, in UTF-8 (a name holding ``\\``, a newline or a carriage return escaped as
GNU sha256sum escapes it).  Standard library only (the loader imports it).
"""
from __future__ import annotations

import hashlib
from typing import Iterable

PREFIX = "sha256:"


def release_digest(files: Iterable[tuple[str, str]]) -> str:
    """``"sha256:<hex>"`` of the release made of ``files``: (path, sha256 hex of its bytes)."""
    listing = "".join(_line(path, sha) for path, sha in sorted(files))
    # surrogatepass: a name read from disk that is not UTF-8 (os.walk gives it with surrogates)
    return PREFIX + hashlib.sha256(listing.encode("utf-8", "surrogatepass")).hexdigest()


def release_digest_of_bytes(files: Iterable[tuple[str, bytes]]) -> str:
    """:func:`release_digest` of files given by their bytes."""
    return release_digest((path, hashlib.sha256(data).hexdigest()) for path, data in files)


def _line(path: str, sha: str) -> str:
    """One ``sha256sum`` line.  As GNU sha256sum writes it, a name holding a backslash, newline
    or carriage return has them escaped and the line starts with a backslash: unescaped, one
    file named ``"a\\n<sha>  b"`` would list (and digest) as two files."""
    if not any(c in path for c in "\\\n\r"):
        return f"{sha}  {path}\n"
    escaped = path.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
    return f"\\{sha}  {escaped}\n"
