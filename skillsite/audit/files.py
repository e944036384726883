"""The files of a skill folder, read safely: regular files only, symlinks kept inside the
folder, ``.git`` and nested skills skipped, a size cap, and never anything executed."""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from skillsite.source.parse import read_limited

MAX_TEXT_BYTES = 1024 * 1024
MAX_FILES = 5000
SKIPPED_DIRS = frozenset({".git"})
SKILL_FILES = ("SKILL.md", "skill.md")


@dataclass(frozen=True)
class SkillFile:
    """One file of a skill: its path relative to the folder and where to read it."""

    path: str          # POSIX, relative to the skill folder
    abspath: str
    size: int
    executable: bool


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def skill_files(folder: Path) -> Iterator[SkillFile]:
    """Every regular file of the skill at ``folder``, in path order (at most MAX_FILES)."""
    real_root = os.path.realpath(folder)
    count = 0
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        rel_dir = os.path.relpath(dirpath, folder)
        prefix = "" if rel_dir == os.curdir else rel_dir.replace(os.sep, "/") + "/"
        kept = []
        for name in sorted(dirnames):
            full = os.path.join(dirpath, name)
            if name in SKIPPED_DIRS or os.path.islink(full):
                continue  # symlinked folders are not followed
            if any(os.path.isfile(os.path.join(full, s)) for s in SKILL_FILES):
                continue  # a nested skill is audited on its own
            kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            try:
                if os.path.islink(full) and not _inside(os.path.realpath(full), real_root):
                    continue
                info = os.stat(full)
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode):
                continue
            count += 1
            if count > MAX_FILES:
                return
            yield SkillFile(prefix + name, full, info.st_size, bool(info.st_mode & 0o111))


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


def read_head(file: SkillFile, size: int = 8192) -> bytes:
    """The first bytes of a file (empty when it cannot be read)."""
    try:
        fd = os.open(file.abspath, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return b""
    try:
        return os.read(fd, size)
    except OSError:
        return b""
    finally:
        os.close(fd)
