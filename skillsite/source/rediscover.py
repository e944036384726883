"""Discovery again after a few files changed, from the paths a file watcher reported, without
walking the tree (``skillsite serve``, #47).

When every reported path is a file the last discovery listed (a SKILL.md or a bundled file)
and still a regular file, or a path that is not there now and was never listed (an editor's
temporary file), the tree has the shape discovery saw: only those files' sizes and times
differ, and the last discovery with them patched in is what a walk would give.  A path in a
tool's folder (``node_modules``, ``__pycache__``...) changes nothing discovery sees.  Anything else
(a file created, removed or replaced by a link, a folder, one holding listed files moved away, an
ignore file, a path discovery left out, a file it could not read) asks for a walk: :func:`rediscover` returns None.
"""
from __future__ import annotations

import dataclasses
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Collection, Sequence

from skillsite.models import SourceFile, Stamp, stamp_of
from skillsite.source.discover import Discovery, is_tool_folder
from skillsite.source.ignore import ENVIRONMENT_MARKERS, GITIGNORE

@dataclass(frozen=True)
class Places:
    """Where each file a discovery lists is: (index of its skill in ``Discovery.sources``, index
    in its files; -1 for the SKILL.md), by absolute path as discovery reached it; and whether
    one of them is a symbolic link, or two are one file (a hard link, or a file reached through
    a linked folder too): a change is reported under one name only, so such a tree is walked
    again at every change."""

    files: dict[str, tuple[int, int]]
    links: bool
    #: every folder holding a listed file, at any depth (one moved away takes its files with it)
    folders: frozenset[str] = frozenset()

    @classmethod
    def of(cls, found: Discovery) -> Places:
        files: dict[str, tuple[int, int]] = {}
        for index, source in enumerate(found.sources):
            files[os.path.abspath(source.skill_md)] = (index, -1)
            for number, bundled in enumerate(source.files):
                files[os.path.abspath(bundled.abspath)] = (index, number)
        links = any(os.path.islink(path) for path in files) or _one_file_twice(found)
        return cls(files, links, _holding_folders(files))


def _one_file_twice(found: Discovery) -> bool:
    """Whether two listed files are one (the same inode: a hard link, or a folder linked inside
    a skill), as discovery's stamps tell (inode 0: not looked at)."""
    seen: set[int] = set()
    for source in found.sources:
        for inode in (source.stamp[3], *(bundled.inode for bundled in source.files)):
            if inode in seen:
                return True
            if inode:
                seen.add(inode)
    return False


def _holding_folders(files: Collection[str]) -> frozenset[str]:
    """Every folder above ``files`` (absolute paths), up to the file system's root."""
    folders: set[str] = set()
    for path in files:
        folder = os.path.dirname(path)
        while folder not in folders and folder != os.path.dirname(folder):
            folders.add(folder)
            folder = os.path.dirname(folder)
    return frozenset(folders)


def as_reached(path: str, roots: Sequence[Path]) -> str | None:
    """A reported path (a watcher names real paths) as discovery reaches it: under the root as
    given; None when it lies under none of them."""
    for root in roots:
        real, given = os.path.realpath(root), os.path.abspath(root)
        if path == real or path.startswith(real.rstrip(os.sep) + os.sep):
            return given + path[len(real):]
    return None


#: Files whose content changes what discovery finds: ignore rules, a virtual environment's marker.
SHAPING_FILES = frozenset({GITIGNORE, *ENVIRONMENT_MARKERS})


def rediscover(found: Discovery, places: Places, roots: Sequence[Path], changed: Collection[str]
               ) -> Discovery | None:
    """``found`` with the new sizes and times of the ``changed`` files, when nothing else
    changed (see the module's docstring); None when only a walk can tell."""
    if places.links or any(d.code == "SK006" for d in found.diagnostics):  # unreadable then, readable now?
        return None
    stamps: dict[tuple[int, int], Stamp] = {}
    for path in changed:
        reached = as_reached(path, roots)
        if reached is None or os.path.basename(reached) in SHAPING_FILES:
            return None
        if _in_tool_folder(reached, roots):
            continue  # discovery never looks inside one (the audit does: see the resident's listings)
        place = places.files.get(reached)
        try:
            info = os.lstat(reached)
        except FileNotFoundError:
            if place is None and reached not in places.folders:
                continue  # came and went: no walk would see it
            return None  # a listed file, or a folder holding some, is gone
        except OSError:
            return None
        if place is None or not stat.S_ISREG(info.st_mode):
            return None
        stamps[place] = stamp_of(info)
    return _patched(found, stamps)


def _in_tool_folder(reached: str, roots: Sequence[Path]) -> bool:
    """Whether a path (as discovery reaches it) is a tool's folder or lies in one, below its root."""
    for root in roots:
        given = os.path.abspath(root).rstrip(os.sep) + os.sep
        if reached.startswith(given):
            return any(is_tool_folder(name) for name in reached[len(given):].split(os.sep))
    return False


def _patched(found: Discovery, stamps: dict[tuple[int, int], Stamp]) -> Discovery:
    """``found`` with the stamp of each file at ``stamps``'s places."""
    sources = list(found.sources)
    for index in sorted({index for index, _ in stamps}):
        sources[index] = _restamped(sources[index], {number: stamp for (at, number), stamp in stamps.items()
                                                     if at == index})
    return Discovery(tuple(sources), found.diagnostics)


def _restamped(source: SourceFile, stamps: dict[int, Stamp]) -> SourceFile:
    files = tuple(dataclasses.replace(f, bytes=stamps[number][0], mtime_ns=stamps[number][1],
                                      ctime_ns=stamps[number][2], inode=stamps[number][3]) if number in stamps
                  else f for number, f in enumerate(source.files))
    return dataclasses.replace(source, files=files, stamp=stamps.get(-1, source.stamp), audited=None)
