"""Operating-system calls the standard library does not offer, isolated here (standard library
only, through :mod:`ctypes`).

- :func:`exchange_paths`: swap two paths in one step (Linux ``renameat2(RENAME_EXCHANGE)``,
  macOS ``renamex_np(RENAME_SWAP)``), so a folder can be replaced by another with no instant
  at which neither is there;
- :func:`rename_no_replace`: a rename that fails rather than replace what is at the
  destination, even an empty folder (``RENAME_NOREPLACE`` / ``RENAME_EXCL``);
- :func:`die_with_parent`: a worker process that ends when the process that started it ends,
  however that one ended (Linux ``prctl(PR_SET_PDEATHSIG)``).

Each returns False (or does the portable thing) where the platform or the file system cannot.
"""
from __future__ import annotations

import ctypes
import errno
import os
import signal
import sys
from typing import Any

_AT_FDCWD = -100
_LINUX_RENAME_NOREPLACE = 1
_LINUX_RENAME_EXCHANGE = 2
_MAC_RENAME_SWAP = 2
_MAC_RENAME_EXCL = 4
_PR_SET_PDEATHSIG = 1
#: What the kernel answers when this file system (or kernel) lacks a rename flag.
_UNSUPPORTED = frozenset({errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP})

_libc: Any = None


def _c_library() -> Any:
    """The C library, or None where it cannot be loaded."""
    global _libc
    if _libc is None:
        try:
            _libc = ctypes.CDLL(None, use_errno=True)
        except OSError:
            _libc = False
    return _libc or None


def _rename_call(source: str | os.PathLike[str], dest: str | os.PathLike[str], linux_flag: int,
                 mac_flag: int) -> bool:
    """One flagged rename; False when unsupported here, OSError when it failed."""
    libc = _c_library()
    src, dst = os.fsencode(source), os.fsencode(dest)
    if sys.platform.startswith("linux") and libc is not None and hasattr(libc, "renameat2"):
        result = libc.renameat2(_AT_FDCWD, src, _AT_FDCWD, dst, linux_flag)
    elif sys.platform == "darwin" and libc is not None and hasattr(libc, "renamex_np"):
        result = libc.renamex_np(src, dst, mac_flag)
    else:
        return False
    if result == 0:
        return True
    code = ctypes.get_errno()
    if code in _UNSUPPORTED:
        return False
    raise OSError(code, os.strerror(code), os.fsdecode(source), None, os.fsdecode(dest))


def exchange_paths(first: str | os.PathLike[str], second: str | os.PathLike[str]) -> bool:
    """Swap ``first`` and ``second`` in one step; False when this system cannot (nothing moved).

    Raises OSError when it can but failed (FileNotFoundError when either is missing).
    """
    return _rename_call(first, second, _LINUX_RENAME_EXCHANGE, _MAC_RENAME_SWAP)


def rename_no_replace(source: str | os.PathLike[str], dest: str | os.PathLike[str]) -> None:
    """Rename ``source`` to ``dest``; FileExistsError when ``dest`` exists (an empty folder too).

    Where the system has no such flag, a plain rename after a check: two processes racing for
    an empty folder may then both succeed, one after the other.
    """
    try:
        if _rename_call(source, dest, _LINUX_RENAME_NOREPLACE, _MAC_RENAME_EXCL):
            return
    except OSError as exc:
        if exc.errno in (errno.EEXIST, errno.ENOTEMPTY):
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), os.fsdecode(dest)) from None
        raise
    if os.path.lexists(dest):
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), os.fsdecode(dest))
    try:
        os.rename(source, dest)
    except OSError as exc:
        if exc.errno in (errno.EEXIST, errno.ENOTEMPTY):
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), os.fsdecode(dest)) from None
        raise


def die_with_parent(parent: int) -> None:
    """Have the kernel kill this process when its parent (the process ``parent``, which started
    it) ends (Linux; elsewhere nothing).  Ends it now if that parent has ended already."""
    libc = _c_library()
    if not sys.platform.startswith("linux") or libc is None or not hasattr(libc, "prctl"):
        return
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # it ended before the call took effect (this one was reparented)
        os._exit(1)
