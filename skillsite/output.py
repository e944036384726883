"""Output: a staging folder beside the target, swapped in only when the build succeeded."""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from stat import S_ISREG
from typing import Any, Callable, Iterator, NamedTuple

from skillsite.diagnostics import json_indented
from skillsite.parallel import gather_from_workers

MARKER = ".skillsite-output"
CHUNK = 1 << 20

# (size, mtime_ns) of every file this process wrote or linked into an output being built, by
# path, taken as each was written: what a walk of the staging folder would find, without the
# walk (7,766 files: 60 ms with a core idle).  Workers send theirs back (gather_from_workers).
# Taken only while a staging folder is open (pages written straight into a folder are not).
_PLACED: dict[str, tuple[int, int]] = {}
_OPEN_STAGINGS: set[str] = set()


def _take_placed() -> dict[str, tuple[int, int]]:
    taken = dict(_PLACED)
    _PLACED.clear()
    return taken


gather_from_workers(_take_placed, _PLACED.update)


def _note_placed(path: str, fd: int) -> None:
    if _OPEN_STAGINGS:
        st = os.fstat(fd)
        _PLACED[path] = (st.st_size, st.st_mtime_ns)


class OutputError(Exception):
    """The output folder cannot be used (exit 2: a usage problem, not a skill problem)."""


def is_previous_output(folder: Path) -> bool:
    """True when ``folder`` was written by skillsite (it holds the marker file)."""
    return (folder / MARKER).is_file()


def check_target(target: Path, force: bool) -> None:
    """Refuse to replace a non-empty folder that is not an earlier skillsite output."""
    if target.exists() and not target.is_dir():
        raise OutputError(f"{target} exists and is not a folder")
    if target.is_dir() and any(target.iterdir()) and not is_previous_output(target) and not force:
        raise OutputError(f"{target} is not empty and was not written by skillsite; "
                          "choose another folder or pass --force to replace it")


class Staging:
    """Where a build writes; ``commit`` publishes it, ``discard`` drops it.

    Two ways to publish, chosen when the staging starts:

    - **swap** (no usable previous output): everything is written into a folder beside the
      target, which then replaces the target in one rename;
    - **patch** (the previous output is ours and the cache recorded its files): files whose
      content is unchanged stay where they are (:meth:`reuse`), only new and changed files
      are written into the staging folder, and ``commit`` moves them into the target and
      removes what the new output no longer has, undoing every step if one fails.  On a
      catalog of thousands of files a one-skill change then touches a handful of files
      instead of re-linking and deleting every one of them.

    Either way nothing in the target changes before ``commit``; a failed build leaves it as it was.
    """

    def __init__(self, target: Path, reuse: dict[str, tuple[str, int, int]] | None = None,
                 current: Snapshot | None = None):
        self.target = target.absolute()
        self.current_files = current  # the target as the build found it (None: look at each file)
        # files of the previous output that may be reused instead of written again:
        # site-relative path -> (content key, size, mtime_ns) as recorded after that build
        self._target_text = str(self.target)
        self.previous = reuse if reuse and is_previous_output(self.target) else {}
        self.patch = bool(self.previous)
        self.keys: dict[str, str] = {}
        self.kept: dict[str, tuple[int, int]] = {}   # patch: files left in place -> (size, mtime_ns)
        self.target.parent.mkdir(parents=True, exist_ok=True)
        self.path = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.building-", dir=self.target.parent))
        self._staging_text = str(self.path)
        _OPEN_STAGINGS.add(self._staging_text)
        self._made: set[str] = {""}
        # while a worker process places files: (path, key, kept) of each, for the parent to adopt
        self.placed: list[tuple[str, str, tuple[int, int] | None]] | None = None

    def file(self, rel: str) -> str:
        """The staging path of a site-relative file, with its folder created."""
        site_path_parts(rel)  # refuses a path that could leave the folder
        folder = rel.rpartition("/")[0]
        if folder not in self._made:
            os.makedirs(os.path.join(self._staging_text, folder), exist_ok=True)
            self._made.add(folder)
        return os.path.join(self._staging_text, rel)

    def current(self, rel: str) -> str:
        """Where the new output's copy of ``rel`` is now: the staging folder, or the target if kept."""
        site_path_parts(rel)
        return os.path.join(self._target_text if rel in self.kept else self._staging_text, rel)

    def write_bytes(self, rel: str, data: bytes, key: str | None = None) -> None:
        write_file(self.file(rel), data)
        if key:
            self.adopt(rel, key, None)

    def write_keyed(self, rel: str, key: str, produce: Callable[[], bytes]) -> bool:
        """Reuse ``rel`` if the previous output holds the content ``key`` names, else write
        ``produce()``; True when it was reused."""
        if self.reuse(rel, key):
            return True
        self.write_bytes(rel, produce(), key=key)
        return False

    def reuse(self, rel: str, key: str) -> bool:
        """Keep ``rel`` from the previous output when it holds exactly the content ``key`` names.

        The previous file must still have the size and modification time recorded when it
        was published, so a copy edited by hand since is never reused.  In swap mode it is
        hard-linked into the staging folder (safe because no published file is ever modified
        in place); in patch mode it simply stays.
        """
        recorded = self.previous.get(rel)
        if recorded is None or recorded[0] != key:
            return False
        old = os.path.join(self._target_text, rel)  # a path an earlier build wrote: checked then
        stamp = (recorded[1], recorded[2])
        try:
            if self.current_files is not None:
                if self.current_files.stats.get(rel) != stamp or rel in self.current_files.irregular:
                    return False
            else:
                stat = os.stat(old, follow_symlinks=False)
                if (stat.st_size, stat.st_mtime_ns) != stamp or not S_ISREG(stat.st_mode):
                    return False
            if not self.patch:
                new = self.file(rel)
                os.link(old, new)
                _PLACED[new] = stamp
        except OSError:
            return False
        self.adopt(rel, key, stamp)
        return True

    def adopt(self, rel: str, key: str, kept: tuple[int, int] | None) -> None:
        """Record a keyed file, written (``kept`` None) or reused; placed here, or by a worker
        process that reported it (see :meth:`recording`)."""
        self.keys[rel] = key
        if kept is not None and self.patch:
            self.kept[rel] = kept
        if self.placed is not None:
            self.placed.append((rel, key, kept))

    @contextmanager
    def recording(self) -> Iterator[list[tuple[str, str, tuple[int, int] | None]]]:
        """Collect what is placed meanwhile, for a worker to report to the parent's :meth:`adopt`."""
        self.placed = placed = []
        try:
            yield placed
        finally:
            self.placed = None

    def published_keys(self, stats: dict[str, tuple[int, int]]) -> dict[str, tuple[str, int, int]]:
        """After ``commit``: content key, size and mtime of every keyed file, for the next build.

        ``stats`` are the size and mtime of every published file by site-relative path.
        """
        return {rel: (key, *stats[rel]) for rel, key in self.keys.items() if rel in stats}

    def overwrite(self, rel: str, offset: int, data: bytes) -> None:
        """Write ``data`` over a file this build wrote, at byte ``offset``."""
        path = self.file(rel)
        fd = os.open(path, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
        try:
            if os.pwrite(fd, data, offset) != len(data):  # pragma: no cover - a regular file takes it whole
                raise OSError(f"short write to {rel}")
            _note_placed(path, fd)
        finally:
            os.close(fd)

    def write_text(self, rel: str, text: str) -> None:
        self.write_bytes(rel, text.encode("utf-8"))

    def write_json(self, rel: str, data: Any) -> bytes:
        """Write JSON indented for people (skills.json, which programs read, is compact: see
        :func:`skillsite.manifest.manifest_bytes`)."""
        payload = (json_indented(data, step=" ") + "\n").encode("utf-8")
        self.write_bytes(rel, payload)
        return payload

    def copy_hashing(self, source: Path | str, rel: str) -> tuple[int, str, bytes | None]:
        """Copy a file into the staging folder, returning its size, sha256 (its content key) and,
        when it is at most 1 MiB, its content."""
        digest = hashlib.sha256()
        size = 0
        content: bytes | None = b""
        with open(source, "rb", buffering=0) as src:
            path = self.file(rel)
            fd = os.open(path, _CREATE, 0o644)
            try:
                while chunk := src.read(CHUNK):
                    digest.update(chunk)
                    _write_all(fd, chunk)
                    content = chunk if size == 0 else None  # kept while the file is one chunk
                    size += len(chunk)
                _note_placed(path, fd)
            finally:
                os.close(fd)
        sha = digest.hexdigest()
        self.adopt(rel, sha, None)
        return size, sha, content

    def commit(self) -> dict[str, tuple[int, int]]:
        """Publish the new output; returns the size and mtime of every published file."""
        if self.patch:
            return self._commit_patch()
        write_file(self.path / MARKER, MARKER_TEXT.encode("utf-8"))
        os.chmod(self.path, 0o755)
        stats = self._placed_stats()
        old = None
        if self.target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.old-", dir=self.target.parent))
            os.rmdir(old)
            os.rename(self.target, old)
        os.rename(self.path, self.target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return stats

    def _commit_patch(self) -> dict[str, tuple[int, int]]:
        """Move the written files into the target and remove the ones the new output lacks.

        Every move is journaled; if one fails, the moves already made are undone in reverse
        order and the error is raised, so the target is either the old output or the new one.
        """
        written = self._placed_stats()
        stale = [rel for rel, _ in _files(self.target) if rel not in written and rel not in self.kept
                 and rel != MARKER]
        backup = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.old-", dir=self.target.parent))
        journal: list[tuple[Path, Path]] = []   # (from, to) of every rename done

        def move(source: Path, dest: Path) -> None:
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.rename(source, dest)
            journal.append((source, dest))

        try:
            replaced = [r for r in written if os.path.lexists(self.target / r) and not _is_folder(self.target / r)]
            for rel in sorted(stale) + sorted(replaced):
                move(self.target.joinpath(*site_path_parts(rel)), backup.joinpath(*site_path_parts(rel)))
            for rel in sorted(written):
                dest = self.target.joinpath(*site_path_parts(rel))
                if _is_folder(dest):
                    _remove_empty_folders(dest, remove_top=True)   # a folder whose files all went stale
                move(self.path.joinpath(*site_path_parts(rel)), dest)
        except BaseException:
            for source, dest in reversed(journal):
                try:
                    source.parent.mkdir(parents=True, exist_ok=True)
                    os.rename(dest, source)
                except OSError:
                    pass
            shutil.rmtree(backup, ignore_errors=True)
            raise
        for rel in stale:
            _remove_empty_folders(self.target.joinpath(*site_path_parts(rel)).parent, stop=self.target)
        shutil.rmtree(backup, ignore_errors=True)
        shutil.rmtree(self.path, ignore_errors=True)
        if not (self.target / MARKER).is_file():
            (self.target / MARKER).write_text(MARKER_TEXT, encoding="utf-8")
        marker = os.stat(self.target / MARKER)
        return {**self.kept, **written, MARKER: (marker.st_size, marker.st_mtime_ns)}

    def _placed_stats(self) -> dict[str, tuple[int, int]]:
        """Size and mtime of every file in the staging folder, by site-relative path, as taken
        when each was written (by this process or a worker); forgotten here."""
        _OPEN_STAGINGS.discard(self._staging_text)
        prefix = self._staging_text + os.sep
        stats = {}
        for path in [p for p in _PLACED if p.startswith(prefix)]:
            stats[path[len(prefix):].replace(os.sep, "/")] = _PLACED.pop(path)
        return stats

    def discard(self) -> None:
        self._placed_stats()
        shutil.rmtree(self.path, ignore_errors=True)


MARKER_TEXT = "skillsite build output; safe to replace with a new build\n"
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def _write_all(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def write_file(path: str | os.PathLike[str], data: bytes) -> None:
    """Create (or truncate) ``path`` holding ``data``: what ``Path.write_bytes`` does, with less
    overhead (a build writes thousands of small files); its size and mtime are noted for
    :meth:`Staging.commit`."""
    fd = os.open(path, _CREATE, 0o644)
    try:
        _write_all(fd, data)
        _note_placed(os.fspath(path), fd)
    finally:
        os.close(fd)


def site_path_parts(rel: str) -> list[str]:
    """The segments of a site-relative path; refuses anything that could leave the folder."""
    parts = rel.split("/")
    if rel.startswith("/") or any(p in ("", ".", "..") for p in parts) or "\x00" in rel:
        raise OutputError(f"refusing to write outside the output folder: {rel!r}")
    return parts


def _is_folder(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink()


def tree_stats(folder: Path) -> dict[str, tuple[int, int]]:
    """Size and modification time of every file under ``folder``, by site-relative path."""
    return snapshot(folder).stats


class Snapshot(NamedTuple):
    """What a folder held when a build started: :func:`tree_stats`, and which of those entries
    are not regular files (a symlink put in a published file's place is never kept)."""

    stats: dict[str, tuple[int, int]]
    irregular: frozenset[str]


def snapshot(folder: Path) -> Snapshot:
    found = _files(folder, stat=True)
    return Snapshot({rel: (st.st_size, st.st_mtime_ns) for rel, st in found},
                    frozenset(rel for rel, st in found if not S_ISREG(st.st_mode)))


def _files(folder: Path, stat: bool = False) -> list[tuple[str, Any]]:
    """Every non-folder entry under ``folder`` as (site-relative path, lstat result or None)."""
    found: list[tuple[str, Any]] = []
    stack = [("", str(folder))]
    while stack:
        rel, path = stack.pop()
        with os.scandir(path) as entries:
            for entry in entries:
                child = f"{rel}/{entry.name}" if rel else entry.name
                if entry.is_dir(follow_symlinks=False):
                    stack.append((child, entry.path))
                else:
                    found.append((child, entry.stat(follow_symlinks=False) if stat else None))
    return found


def _remove_empty_folders(folder: Path, stop: Path | None = None, remove_top: bool = False) -> None:
    """Remove ``folder`` if empty (with ``remove_top``, every empty folder in it first), then its
    empty parents up to ``stop``."""
    if remove_top:
        for parent, _, _ in sorted(os.walk(folder), key=lambda item: -len(item[0])):
            try:
                os.rmdir(parent)
            except OSError:
                pass
        folder = folder.parent
    while stop is not None and folder != stop and stop in folder.parents:
        try:
            os.rmdir(folder)
        except OSError:
            return
        folder = folder.parent
