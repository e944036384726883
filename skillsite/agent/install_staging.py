"""The folder an install writes a skill into before putting it in place in one step: made
beside the skill's folder, held (an advisory lock on the folder) while it is written, so that
the next install there can tell one left by an install killed on the way (no holder, untouched
for a while) from one another install is writing, and remove it.  Standard library only."""
from __future__ import annotations

import glob
import os
import secrets
import stat
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from skillsite.folders import RANDOM_DIGITS, remove_path, sibling_prefix

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks, nothing is known abandoned
    fcntl = None  # type: ignore[assignment]

#: A folder no install holds is abandoned once this many seconds passed since it last changed
#: (an install holds its folder from the moment after making it).
ABANDONED_AFTER_S = 60.0


def staging_prefix(target: Path) -> str:
    """The name every staging folder of ``target`` starts with: ``.<name>.tmp-`` (the name cut
    short for a long one: :func:`~skillsite.folders.sibling_prefix`)."""
    return sibling_prefix(target, "tmp")


@contextmanager
def staging_folder(target: Path) -> Iterator[Path]:
    """A new empty folder beside ``target``, held until the block ends; those that installs
    killed before left beside it are removed first."""
    remove_abandoned(target)
    folder = _new_folder(target.parent, staging_prefix(target))
    held = os.open(folder, os.O_RDONLY)
    try:
        if fcntl is not None:
            fcntl.flock(held, fcntl.LOCK_EX)
        yield folder
    finally:
        os.close(held)


def remove_abandoned(target: Path) -> None:
    """Remove the staging folders beside ``target`` that no install holds and that have not
    changed for :data:`ABANDONED_AFTER_S` seconds."""
    for path in glob.glob(os.path.join(glob.escape(str(target.parent)), glob.escape(staging_prefix(target)) + "*")):
        if _abandoned(path):
            remove_path(Path(path))


def _abandoned(path: str) -> bool:
    if fcntl is None:  # pragma: no cover - Windows
        return False
    try:
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode) or time.time() - info.st_mtime < ABANDONED_AFTER_S:
            return False
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:  # held by an install writing it
        return False
    finally:
        os.close(fd)


def _new_folder(parent: Path, prefix: str) -> Path:
    """A new empty folder in ``parent`` with a random name, made as ``mkdir`` makes folders (the
    umask decides who may read it: ``mkdtemp``'s is private, and an installed skill is not)."""
    for _ in range(100):
        folder = parent / f"{prefix}{secrets.token_hex(RANDOM_DIGITS // 2)}"
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        return folder
    raise FileExistsError(f"no free temporary name in {parent}")
