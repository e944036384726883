"""A past release's symlinks, followed as discovery follows them in the work tree.

Discovery publishes what a symlink in a skill folder leads to when that lies inside the folder:
a file under the link's name, a folder's files under the link's folder (never round a loop: a
folder met again on its own way down).  Git keeps a symlink as a blob holding its target, so a
past release read from git must follow the same links, or a release would publish other files
(and another digest) once it is no longer the current one.  Links are resolved within the
commit's tree, as ``realpath`` resolves them (each part of the way, ``..`` included): one that
leaves the skill folder, leads to nothing, is absolute or goes through more than
:data:`MAX_LINK_HOPS` links is left out, as discovery leaves it out (SK002, SK005, SK007).
"""
from __future__ import annotations

import bisect
import dataclasses
from typing import Callable, Iterator, Sequence

from skillsite.source.git_history import SYMLINK_MODE, TreeFile

#: The most symlinks one path may go through (Linux's own limit, past which realpath gives up).
MAX_LINK_HOPS = 40
#: The longest symlink target read (a path of the system at most).
MAX_LINK_BYTES = 4096


class _Tree:
    """A skill folder's listing at a commit: its plain files and its symlinks' targets, by path
    from the repository's top, each kept sorted for the files under a folder."""

    def __init__(self, listed: Sequence[TreeFile], folder: str, read: Callable[[str, int], bytes | None]):
        self.folder = folder
        self.blobs = {f.path: f for f in listed if f.mode != SYMLINK_MODE}
        self.links = {f.path: _target(read(f.blob, MAX_LINK_BYTES)) for f in listed if f.mode == SYMLINK_MODE}
        self.blob_paths = sorted(self.blobs)
        self.link_paths = sorted(self.links)
        self.folders = {path[:at] for path in self.blob_paths + self.link_paths
                        for at in range(len(path)) if path[at] == "/"}

    def inside(self, path: str) -> bool:
        """Whether ``path`` is in the skill folder."""
        return not self.folder or path.startswith(self.folder + "/")

    def resolved(self, path: str) -> str | None:
        """Where ``path`` leads, each of its parts that is a symlink followed (None: above the top,
        through an absolute or unreadable link, or through more than MAX_LINK_HOPS links)."""
        done: list[str] = []
        todo = path.split("/")[::-1]
        hops = 0
        while todo:
            part = todo.pop()
            if part in ("", "."):
                continue
            if part == "..":
                if not done:
                    return None
                done.pop()
                continue
            done.append(part)
            target = self.links.get("/".join(done), "")
            if target:
                hops += 1
                if target.startswith("/") or hops > MAX_LINK_HOPS:
                    return None
                done.pop()
                todo.extend(reversed(target.split("/")))
            elif target is None:
                return None
        return "/".join(done)


def _target(data: bytes | None) -> str | None:
    """A symlink's target as its blob holds it (None: unreadable or empty)."""
    return data.decode("utf-8", "surrogateescape") if data else None


def _under(paths: list[str], folder: str) -> list[str]:
    """The paths of sorted ``paths`` under ``folder``."""
    start = bisect.bisect_left(paths, folder + "/")
    end = bisect.bisect_left(paths, folder + "0")  # "0" follows "/"
    return paths[start:end]


def followed_links(listed: Sequence[TreeFile], folder: str, read: Callable[[str, int], bytes | None],
                   most: int) -> list[TreeFile]:
    """``listed`` (a skill folder's files at a commit, by path from the top) with each symlink
    discovery would follow replaced by what it reaches, under the link's path, and the others
    left out; at most ``most`` files, sorted by path.  ``read`` gives a blob's bytes up to a limit."""
    if not any(f.mode == SYMLINK_MODE for f in listed):
        return list(listed)
    tree = _Tree(listed, folder, read)
    found = list(tree.blobs.values())
    for path in tree.link_paths:
        if len(found) >= most:
            break
        found.extend(_reached(tree, path, path, _folders_down(folder, path), most - len(found)))
    return sorted(found[:most], key=lambda f: f.path)


def _folders_down(top: str, path: str) -> frozenset[str]:
    """The folders from ``top`` down to ``path``'s own (the ancestors a walk of the work tree has)."""
    parts = path.split("/")
    return frozenset("/".join(parts[:n]) for n in range(len(top.split("/")) if top else 1, len(parts)))


def _reached(tree: _Tree, link: str, shown: str, ancestors: frozenset[str], most: int) -> Iterator[TreeFile]:
    """The files symlink ``link`` reaches, each under ``shown`` (the link's path as the walk met
    it), none past ``most``: a file, or a folder's files and those its own symlinks reach, unless
    the folder is one of ``ancestors`` (a loop)."""
    end = tree.resolved(link)
    if end is None or not tree.inside(end):
        return
    if end in tree.blobs:
        yield dataclasses.replace(tree.blobs[end], path=shown)
        return
    if end not in tree.folders or end in ancestors:
        return
    given = 0
    for path in _under(tree.blob_paths, end):
        if given >= most:
            return
        given += 1
        yield dataclasses.replace(tree.blobs[path], path=shown + path[len(end):])
    for path in _under(tree.link_paths, end):
        for file in _reached(tree, path, shown + path[len(end):], ancestors | _folders_down(end, path),
                             most - given):
            if given >= most:
                return
            given += 1
            yield file
