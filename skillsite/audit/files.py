"""The files of a skill folder, read safely: regular files only, symlinks kept inside the
folder, ``.git`` and nested skills skipped, a size cap, and never anything executed."""
from __future__ import annotations

import functools
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from skillsite.source.discover import (AUDIT_MAX_FILES, AUDIT_SKIPPED_DIRS, holds_skill_file, inside_folder,
                                       shown_name)
from skillsite.bounded import read_limited
from skillsite.models import Stamp

MAX_TEXT_BYTES = 1024 * 1024


@dataclass(frozen=True)
class SkillFile:
    """One file of a skill: its path relative to the folder and where to read it; or a folder of
    the skill that cannot be listed (``listed`` False, its path ending in ``/``), whose files
    the audit cannot see."""

    path: str          # POSIX, relative to the skill folder
    abspath: str
    size: int
    executable: bool
    mtime_ns: int = 0
    ctime_ns: int = 0
    inode: int = 0
    listed: bool = True

    @property
    def stamp(self) -> Stamp:
        """The file's :data:`~skillsite.models.Stamp`."""
        return self.size, self.mtime_ns, self.ctime_ns, self.inode


def _entries(path: str) -> list[os.DirEntry[str]] | None:
    """A folder's entries by name (None when it cannot be listed)."""
    try:
        with os.scandir(path) as listing:
            return sorted(listing, key=lambda entry: entry.name)
    except OSError:
        return None


def skill_files(folder: Path) -> Iterator[SkillFile]:
    """Every regular file of the skill at ``folder``, in path order (each folder's files, then its
    folders'; at most AUDIT_MAX_FILES).  Symlinked folders are not followed, symlinked files only
    when they stay inside the folder.  The rules are discovery's, which lists what the audit
    reads where it saw all of it (:attr:`skillsite.models.SourceFile.audited`).  A folder that
    cannot be listed comes as such (``listed`` False), after the files of the folder holding it."""
    root = _Root(folder)
    count = 0
    pending = [("", _entries(str(folder)) or [])]
    while pending:
        prefix, entries = pending.pop()
        subfolders, unlisted = [], []
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                inner = [] if entry.name in AUDIT_SKIPPED_DIRS else _entries(entry.path)
                if inner is None:
                    unlisted.append(SkillFile(f"{prefix}{entry.name}/", entry.path, 0, False, listed=False))
                elif inner and not holds_skill_file({e.name: e for e in inner}):  # a nested skill: audited on its own
                    subfolders.append((f"{prefix}{entry.name}/", inner))
                continue
            found = _skill_file(entry, prefix, root)
            if found is not None:
                count += 1
                if count > AUDIT_MAX_FILES:
                    return
                yield found
        yield from unlisted
        pending.extend(reversed(subfolders))


class _Root:
    """A skill folder whose real path is resolved only if a symlink needs it (resolving costs a
    system call per component of the path, for every skill listed)."""

    def __init__(self, folder: Path):
        self.folder = folder

    @functools.cached_property
    def real(self) -> str:
        return os.path.realpath(self.folder)


def _skill_file(entry: os.DirEntry[str], prefix: str, root: _Root) -> SkillFile | None:
    """The entry as a file of the skill, or None (not a regular file, a symlink leaving the folder)."""
    try:
        if entry.is_symlink() and not inside_folder(os.path.realpath(entry.path), root.real):
            return None
        info = entry.stat()
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return SkillFile(shown_name(prefix + entry.name), entry.path, info.st_size, bool(info.st_mode & 0o111),
                     info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


def audited_stamps(folder: Path) -> list[tuple[str, Stamp, bool]]:
    """What the audit of the skill at ``folder`` reads, as stamps: each file's path, stamp and
    executable bit (files discovery leaves out too: ``node_modules``, excluded, ignored), and
    each folder it cannot list (its path ends in ``/``)."""
    return [(f.path, f.stamp, f.executable) for f in skill_files(folder)]


def read_capped(file: SkillFile) -> bytes | None:
    """The bytes of a file, or None when it is over MAX_TEXT_BYTES or cannot be read."""
    try:
        raw, size = read_limited(file.abspath, MAX_TEXT_BYTES)
    except OSError:
        return None
    return None if len(raw) > MAX_TEXT_BYTES else raw


def decode(raw: bytes) -> str:
    """Text from bytes: UTF-8 (BOM dropped) or UTF-16 with a BOM; bad bytes become U+FFFD."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16", errors="replace")
    text = raw.decode("utf-8", errors="replace")
    return text[1:] if text.startswith("\ufeff") else text


def read_head(file: SkillFile, size: int = 8192) -> tuple[bytes, bool]:
    """The first ``size`` bytes of a file (empty when it cannot be read), and whether they are the
    whole file (most files of a skill are smaller: they need not be read a second time)."""
    try:
        head, total = read_limited(file.abspath, size - 1)  # read_limited gives a byte past its limit
    except OSError:
        return b"", False
    return head, len(head) == total
