"""The digest of a skill release: one value for "these exact files", computed the same way by
the build (versions.json), the loader (verifying a release), the lock file and ``skillsite
outdated`` (an installed folder).  Standard library only.

sha256 over one line per file, sorted by path, in the ``sha256sum`` format
(``f"{sha256hex}  {path}\\n"``, UTF-8), over SKILL.md and every published bundled file (not
skill.xml); written ``sha256:<hex>``.
"""
from __future__ import annotations

import hashlib
from typing import Iterable


def release_digest(files: Iterable[tuple[str, str]]) -> str:
    """``sha256:<hex>`` of the (path, sha256 hex) pairs of a release's files."""
    lines = "".join(f"{sha}  {path}\n" for path, sha in sorted(files))
    return "sha256:" + hashlib.sha256(lines.encode("utf-8")).hexdigest()
