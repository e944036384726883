"""One build per output: a lock held on a file named after the output, beside it; and folders
claimed by a running process (``skillsite serve``'s), which others may remove once it is gone.

A build replaces its output folder as a whole, so the lock cannot live inside it; it is an
advisory lock (``flock``) on ``.<name>.lock`` in the output's parent folder, released by the
kernel however the build ends.  Builds into sibling folders of one parent hold different locks
and run side by side, unless they share a cache folder (:func:`cache_lock`).  The build that
holds the lock removes the file before releasing it (a waiter that then gets the lock of a
removed file tries again), so as a rule no file stays behind.  Where ``flock`` is missing
(Windows), builds are not serialised.
"""
from __future__ import annotations

import hashlib
import os
import signal
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from skillsite.folders import make_folders

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


class OutputBusy(Exception):
    """Another build holds the output's lock and this one was told not to wait."""


LOCK_SUFFIX = ".lock"
#: The longest file name most file systems take, in bytes.
_NAME_MAX = 255
#: The lock files this process holds (what an interrupted build removes on its way out).
_HELD: set[Path] = set()


def lock_path(out: Path) -> Path:
    """The file whose lock a build of ``out`` holds: ``.<name>.lock`` beside it (a digest of the
    name when that is too long a file name: the build then reports the output's own name)."""
    out = out.absolute()
    name = f".{out.name}{LOCK_SUFFIX}"
    if len(os.fsencode(name)) > _NAME_MAX:
        name = f".{hashlib.sha256(os.fsencode(out.name)).hexdigest()[:32]}{LOCK_SUFFIX}"
    return out.parent / name


@contextmanager
def output_lock(out: Path, wait: bool = True, on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the lock of ``out`` (creating its parent folder if needed) for the ``with`` block.

    When another build holds it: wait for it (telling ``on_wait`` once), or, with ``wait`` false,
    raise :class:`OutputBusy`.
    """
    path = lock_path(out)
    make_folders(path.parent)
    if fcntl is None:  # pragma: no cover - Windows
        yield
        return
    fd = _locked(path, out.absolute(), wait, on_wait)
    try:
        yield
    finally:
        with _signals_held():  # the file goes with its record: a signal sees both or neither
            _unlink(path)  # still ours: whoever waits on it sees it gone and takes a new one
            _HELD.discard(path)
        os.close(fd)


def remove_held_lock_files() -> None:
    """Remove the lock files this process holds (it is ending at once: the kernel releases the
    locks, waiters take new files)."""
    for path in list(_HELD):
        _unlink(path)
        _HELD.discard(path)


def _unlink(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _locked(path: Path, out: Path, wait: bool, on_wait: Callable[[str], None] | None) -> int:
    """A descriptor of ``path`` (the lock of the output ``out``, which a wait names) holding its
    lock, once the file locked is the one at ``path`` (the previous holder removes it when
    done), recorded among the files this process holds.
    A file this build made is recorded before a signal can end it (see :func:`_signals_held`),
    so an interrupted build never leaves one behind; while it waits for another build, signals
    end it at once (the file is the other build's)."""
    told = False
    while True:
        with _signals_held():
            fd = _open_lock_file(path)
            if _lock_at_once(fd):
                if _record_held(fd, path):
                    return fd
                os.close(fd)
                continue
        try:
            told = _flock(fd, f"another skillsite build is writing into {out}", wait,
                          None if told else on_wait) or told
        except BaseException:
            os.close(fd)
            raise
        with _signals_held():
            if _record_held(fd, path):
                return fd
        os.close(fd)


def _open_lock_file(path: Path) -> int:
    """A descriptor of the lock file ``path``, created if missing: never through a symlink (ELOOP),
    never waiting (a named pipe there would block ``open`` while signals are held), and only of a
    regular file (OSError naming it otherwise: a pipe or device is no lock)."""
    flags = os.O_RDONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, 0o644)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(None, "not a regular file, so it cannot be the lock of a build; remove it", str(path))
    return fd


def _lock_at_once(fd: int) -> bool:
    """Whether ``fd`` could be locked without waiting (then it is)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _record_held(fd: int, path: Path) -> bool:
    """Record ``path`` as held when ``fd``, locked, is the file now there."""
    if not _same_file(fd, path):
        return False
    _HELD.add(path)
    return True


@contextmanager
def _signals_held() -> Iterator[None]:
    """SIGTERM and SIGINT held back for the block, and delivered after it: the interrupt handler
    (:mod:`skillsite.publish.interrupt`) then finds a lock file made in it recorded, or none."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - Windows
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _flock(fd: int, message: str, wait: bool, on_wait: Callable[[str], None] | None) -> bool:
    """Lock ``fd`` exclusively: at once, else (``wait``) once its holder lets go, after telling
    ``on_wait`` ``message``; without ``wait``, raise :class:`OutputBusy`.  True when it waited."""
    if _lock_at_once(fd):
        return False
    if not wait:
        raise OutputBusy(f"{message}; try again when it is done (or leave out --no-wait to wait)")
    if on_wait is not None:
        on_wait(f"{message}; waiting for it to finish…")
    fcntl.flock(fd, fcntl.LOCK_EX)
    return True


def _same_file(fd: int, path: Path) -> bool:
    """Whether ``fd`` is the file now at ``path`` (not one removed meanwhile)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (held.st_dev, held.st_ino)


@contextmanager
def cache_lock(folder: Path, wait: bool = True, on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the lock of the cache folder ``folder`` (which exists) for the ``with`` block: builds
    of two outputs that share a cache (the command line's default, beside them) take turns, as
    each rewrites the cache file and the build state.  A folder never replaced: the lock is on
    the folder itself.  Waits, or raises :class:`OutputBusy`, as :func:`output_lock` does."""
    if fcntl is None:  # pragma: no cover - Windows
        yield
        return
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        _flock(fd, f"another skillsite build is using the cache {folder}", wait, on_wait)
        yield
    finally:
        os.close(fd)


def claim(path: Path) -> int | None:
    """Lock the file ``path`` (created if missing) for as long as the returned descriptor stays
    open, in this process and in those it forks meanwhile; None when another process holds it
    (or this platform has no locks: nothing can be known to be unclaimed)."""
    if fcntl is None:  # pragma: no cover - Windows
        return None
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd
