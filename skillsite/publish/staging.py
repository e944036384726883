"""The staging folder: where a build writes, published only when everything succeeded.

Two ways to publish, chosen when the staging starts:

- **swap** (no record of a previous output): everything is written into a folder beside the
  target, which then replaces the target in one rename;
- **patch** (the target is skillsite's previous output, and the last build recorded the
  content key of each of its files): a file whose content key is unchanged, and which is
  still exactly as published (same size and time, a regular file), stays where it is
  (:meth:`Staging.keep`); new and changed files are written into the staging folder, and
  ``commit`` moves them into the target and removes what the new output lacks, undoing every
  move if one fails.

Either way nothing in the target changes before ``commit``: a failed build leaves it as it was.
Worker processes write into the same staging folder and report what they placed
(:meth:`Staging.take_journal`), which this process adopts (:meth:`Staging.adopt`).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Any, Iterable

MARKER = ".skillsite-output"
MARKER_TEXT = "skillsite build output; safe to replace with a new build\n"
_CHUNK = 1 << 20

#: What a build records of each keyed file of its output: content key, size, mtime_ns.
Recorded = tuple[str, int, int]
#: What a worker placed: (site path, content key, kept in place rather than written).
Placed = tuple[str, str, bool]


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


def site_path_parts(rel: str) -> list[str]:
    """The segments of a site-relative path; refuses anything that could leave the folder."""
    parts = rel.split("/")
    if rel.startswith("/") or any(p in ("", ".", "..") for p in parts) or "\x00" in rel:
        raise OutputError(f"refusing to write outside the output folder: {rel!r}")
    return parts


def list_files(folder: Path) -> dict[str, os.stat_result]:
    """Every entry under ``folder`` that is not a folder, by site-relative path, with its lstat."""
    found: dict[str, os.stat_result] = {}
    stack = [("", str(folder))]
    while stack:
        rel, path = stack.pop()
        with os.scandir(path) as entries:
            for entry in entries:
                child = f"{rel}/{entry.name}" if rel else entry.name
                if entry.is_dir(follow_symlinks=False):
                    stack.append((child, entry.path))
                else:
                    found[child] = entry.stat(follow_symlinks=False)
    return found


def _stamps(listing: dict[str, os.stat_result]) -> dict[str, tuple[int, int]]:
    """Size and modification time of each file of a listing ((-1, -1) for what is not a regular file)."""
    return {rel: (st.st_size, st.st_mtime_ns) if stat.S_ISREG(st.st_mode) else (-1, -1)
            for rel, st in listing.items()}


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Size and modification time of every file under ``folder``: what a later check compares."""
    return _stamps(list_files(folder))


class Staging:
    """Where a build writes; :meth:`commit` publishes it, :meth:`discard` drops it."""

    def __init__(self, target: Path, previous: dict[str, Recorded] | None = None):
        self.target = target.absolute()
        self.previous = previous if previous and is_previous_output(self.target) else {}
        self.patch = bool(self.previous)
        self.keys: dict[str, str] = {}   # site path -> content key of every keyed file of the new output
        self.kept: set[str] = set()      # patch: files left in place
        self.journal: list[Placed] = []  # what this process placed since the last take_journal
        self.target.parent.mkdir(parents=True, exist_ok=True)
        self.path = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.building-", dir=self.target.parent))
        self._made: set[str] = {""}  # folders known to exist in the staging folder
        #: patch: the target's files as the build found them (what :meth:`keep` checks, and what
        #: ``commit`` moves aside when the new output lacks them)
        self.before: dict[str, os.stat_result] = list_files(self.target) if self.patch else {}

    def file(self, rel: str) -> str:
        """The staging path of a site-relative file, with its folder created."""
        folder = "/".join(site_path_parts(rel)[:-1])
        if folder not in self._made:
            os.makedirs(os.path.join(self.path, folder), exist_ok=True)
            self._made.add(folder)
        return os.path.join(self.path, rel)

    def current(self, rel: str) -> Path:
        """Where the new output's copy of ``rel`` is now: in the target if kept, else staged."""
        site_path_parts(rel)
        return Path(self.target if rel in self.kept else self.path, rel)

    def intact(self, rel: str, key: str) -> bool:
        """Whether the previous output holds exactly the content ``key`` names as ``rel``,
        untouched since it was published (what :meth:`keep` needs)."""
        recorded = self.previous.get(rel)
        if recorded is None or recorded[0] != key:
            return False
        site_path_parts(rel)
        st = self.before.get(rel)
        return st is not None and stat.S_ISREG(st.st_mode) and (st.st_size, st.st_mtime_ns) == tuple(recorded[1:])

    def keep(self, rel: str, key: str) -> bool:
        """Leave ``rel`` in place when it is :meth:`intact`; True when kept."""
        if not self.intact(rel, key):
            return False
        self._placed(rel, key, kept=True)
        return True

    def write(self, rel: str, data: bytes, key: str | None = None) -> None:
        """Write ``data`` as the new output's ``rel`` (``key``: its content key, for the next build)."""
        with open(self.file(rel), "wb") as out:
            out.write(data)
        if key is not None:
            self._placed(rel, key, kept=False)

    def write_keyed(self, rel: str, key: str, make: Any) -> None:
        """Keep ``rel`` if unchanged (see :meth:`keep`), else write ``make()``."""
        if not self.keep(rel, key):
            self.write(rel, make(), key)

    def copy(self, source: str | os.PathLike[str], rel: str) -> tuple[int, str, bytes | None]:
        """Copy a file into the staging folder: its size, sha256 (its content key) and, when it
        is at most 1 MiB, its content."""
        sha, size, chunks = hashlib.sha256(), 0, []
        with open(source, "rb") as src, open(self.file(rel), "wb") as out:
            while chunk := src.read(_CHUNK):
                sha.update(chunk)
                out.write(chunk)
                size += len(chunk)
                chunks.append(chunk)
        key = sha.hexdigest()
        self._placed(rel, key, kept=False)
        return size, key, chunks[0] if len(chunks) == 1 else (b"" if not chunks else None)

    def link(self, published: str, rel: str, key: str) -> None:
        """Publish the new output's ``published`` file a second time, as ``rel`` (content key
        ``key``): a hard link, as both names hold the same bytes and no file of the output is ever
        changed in place (a copy where the file system has no hard links)."""
        source, dest = self.current(published), self.file(rel)
        try:
            os.link(source, dest)
        except OSError:
            shutil.copyfile(source, dest)
        self._placed(rel, key, kept=False)

    def _placed(self, rel: str, key: str, kept: bool) -> None:
        self.journal.append((rel, key, kept))
        self.adopt([(rel, key, kept)])

    def take_journal(self) -> list[Placed]:
        """What was placed since the last call (a worker sends it to the process that commits)."""
        taken, self.journal = self.journal, []
        return taken

    def adopt(self, placed: Iterable[Placed]) -> None:
        """Record files placed here or by a worker."""
        for rel, key, kept in placed:
            self.keys[rel] = key
            if kept:
                self.kept.add(rel)

    def commit(self) -> dict[str, tuple[int, int]]:
        """Publish the new output; returns its :func:`snapshot` (renames keep sizes and times,
        so it is made from the listings taken on the way, not by listing the output again)."""
        return self._commit_patch() if self.patch else self._commit_swap()

    def records(self, published: dict[str, tuple[int, int]]) -> dict[str, Recorded]:
        """The content key, size and mtime of every keyed file of a committed output, for the next build."""
        return {rel: (key, *published[rel]) for rel, key in self.keys.items() if rel in published}

    def _commit_swap(self) -> dict[str, tuple[int, int]]:
        (self.path / MARKER).write_text(MARKER_TEXT, encoding="utf-8")
        os.chmod(self.path, 0o755)
        published = _stamps(list_files(self.path))
        old = None
        if self.target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.old-", dir=self.target.parent))
            os.rmdir(old)
            os.rename(self.target, old)
        os.rename(self.path, self.target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return published

    def _commit_patch(self) -> dict[str, tuple[int, int]]:
        """Move the written files into the target and set aside the ones the new output lacks.

        Every move is journaled; if one fails, the moves already made are undone in reverse
        order and the error is raised, so the target is either the old output or the new one.
        """
        written = list_files(self.path)
        before = self.before
        stale = [rel for rel in before if rel not in self.kept and rel != MARKER]
        backup = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.old-", dir=self.target.parent))
        moves = _Moves()
        try:
            for rel in sorted(stale):
                moves.move(self.target.joinpath(*site_path_parts(rel)), backup.joinpath(*site_path_parts(rel)))
            for rel in sorted(written):
                dest = self.target.joinpath(*site_path_parts(rel))
                if dest.is_dir() and not dest.is_symlink():
                    _remove_empty_folders(dest)   # a folder whose files all went stale becomes a file
                moves.move(self.path.joinpath(*site_path_parts(rel)), dest)
        except BaseException:
            moves.undo()
            shutil.rmtree(backup, ignore_errors=True)
            raise
        for rel in stale:
            _remove_empty_parents(self.target.joinpath(*site_path_parts(rel)).parent, self.target)
        shutil.rmtree(backup, ignore_errors=True)
        shutil.rmtree(self.path, ignore_errors=True)
        kept = {rel: st for rel, st in before.items() if rel not in written and (rel in self.kept or rel == MARKER)}
        return _stamps({**kept, **written})

    def discard(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


class _Moves:
    """Renames that can be undone, newest first."""

    def __init__(self) -> None:
        self.done: list[tuple[Path, Path]] = []

    def move(self, source: Path, dest: Path) -> None:
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.rename(source, dest)
        self.done.append((source, dest))

    def undo(self) -> None:
        for source, dest in reversed(self.done):
            try:
                source.parent.mkdir(parents=True, exist_ok=True)
                os.rename(dest, source)
            except OSError:
                pass


def _remove_empty_folders(folder: Path) -> None:
    """Remove every empty folder in ``folder``, deepest first, and ``folder`` itself if empty."""
    for parent, _, _ in sorted(os.walk(folder), key=lambda item: -len(item[0])):
        try:
            os.rmdir(parent)
        except OSError:
            pass


def _remove_empty_parents(folder: Path, stop: Path) -> None:
    """Remove ``folder`` and its parents, up to ``stop``, while they are empty."""
    while folder != stop and stop in folder.parents:
        try:
            os.rmdir(folder)
        except OSError:
            return
        folder = folder.parent
