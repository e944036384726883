"""One build per output: a lock held on the folder that holds the output; and folders claimed
by a running process (``skillsite serve``'s), which others may remove once it is gone.

A build replaces its output folder as a whole, so the lock cannot live inside it; it is an
advisory lock (``flock``) on the parent folder itself, which leaves no file behind and is
released by the kernel however the build ends.  Builds into sibling folders of one parent
therefore take turns too.  Where ``flock`` is missing (Windows), builds are not serialised.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


class OutputBusy(Exception):
    """Another build holds the output's lock and this one was told not to wait."""


@contextmanager
def output_lock(out: Path, wait: bool = True, on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the lock of ``out`` (creating its parent folder if needed) for the ``with`` block.

    When another build holds it: wait for it (telling ``on_wait`` once), or, with ``wait`` false,
    raise :class:`OutputBusy`.
    """
    parent = out.absolute().parent
    parent.mkdir(parents=True, exist_ok=True)
    if fcntl is None:  # pragma: no cover - Windows
        yield
        return
    fd = os.open(parent, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            message = f"another skillsite build is writing into {parent}"
            if not wait:
                raise OutputBusy(f"{message}; try again when it is done (or leave out --no-wait to wait)") from None
            if on_wait is not None:
                on_wait(f"{message}; waiting for it to finish…")
            fcntl.flock(fd, fcntl.LOCK_EX)
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
