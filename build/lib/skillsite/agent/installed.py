"""The release digest of an installed skill folder, to tell whether its files are still the
ones the lock records (standard library only).

Every regular file under the folder counts, by its path relative to the folder, except the
folders of nested skills (a sub-folder holding its own SKILL.md is another skill, installed
with it).  Symbolic
links are never followed: one counts as a file whose content is its target's name, so a
folder changed into a link to somewhere else reads as modified.
"""
from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from skillsite.agent.release_digest import release_digest

_CHUNK = 1024 * 1024


def installed_digest(folder: Path) -> str | None:
    """``sha256:<hex>`` of the skill installed at ``folder``; None when there is none (no SKILL.md)."""
    folder = Path(folder)  # os.path's tests: False on any OSError (a hand-edited path may be too long)
    if not os.path.isdir(folder) or os.path.islink(folder) or not os.path.isfile(folder / "SKILL.md"):
        return None
    return release_digest(_files(folder))


def _files(folder: Path) -> list[tuple[str, str]]:
    """(relative path, sha256) of the skill's own files."""
    out = []
    for here, dirs, files in os.walk(folder):
        base = Path(here)
        dirs[:] = [d for d in dirs if not os.path.islink(base / d) and not (base / d / "SKILL.md").exists()]
        links = [d for d in os.listdir(here) if os.path.islink(base / d) and d not in files]
        for name in files + links:
            path = base / name
            rel = path.relative_to(folder).as_posix()
            out.append((rel, _sha256(path)))
    return out


def _sha256(path: Path) -> str:
    """The sha256 of a file, or of a link's target name (never followed); a named pipe, socket
    or device is never opened (reading one could block): install writes none, and its path
    alone changes the digest."""
    if os.path.islink(path):
        return hashlib.sha256(os.readlink(path).encode("utf-8", "surrogateescape")).hexdigest()
    if not stat.S_ISREG(os.stat(path).st_mode):
        return hashlib.sha256(b"").hexdigest()
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
