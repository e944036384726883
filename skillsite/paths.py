"""Where skillsite keeps files of its own on this machine (standard library only)."""
from __future__ import annotations

import errno
import os
import stat
import sys
from pathlib import Path


def user_cache_root() -> Path:
    """skillsite's folder in the user cache: ``$XDG_CACHE_HOME/skillsite`` (``~/.cache/skillsite``
    when it is unset, empty or relative: the XDG spec says a relative value is to be ignored)."""
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "skillsite"
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = xdg if os.path.isabs(xdg) else os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "skillsite"


def is_symlink_loop(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` leads nowhere because its symlinks lead round in a circle (itself, or
    each other), not because what they point at is missing."""
    try:
        os.stat(path)
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False


def special_kind(mode: int) -> str:
    """What a file that is neither regular, a folder nor a symlink is (``st_mode``), in words."""
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a special file"
