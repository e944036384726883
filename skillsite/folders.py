"""Putting a complete folder in place of another in one step (standard library only).

Both ``skillsite build`` (its output) and ``skillsite.loader`` (an installed skill) write the
new folder beside its target first, then call :func:`replace_folder`.  Where the system can
swap two paths in one step (Linux, macOS), there is no instant at which the target is missing
or half written, whatever kills the process; elsewhere the target is moved aside and the new
folder renamed in, and a target found missing is put back by :func:`restore_moved_aside`.
"""
from __future__ import annotations

import errno
import os
import secrets
import shutil
import stat
from pathlib import Path

from skillsite._compat import exchange_paths, rename_no_replace
from skillsite.paths import is_symlink_loop

#: Attempts at an operation another process keeps changing under us before giving up.
_ATTEMPTS = 50


#: The longest file name, in bytes, that common file systems take (ext4, APFS, NTFS in UTF-16 aside).
NAME_MAX = 255
#: What a random part of a sibling's name adds: 12 hexadecimal digits.
RANDOM_DIGITS = 12


def sibling_prefix(target: Path, kind: str) -> str:
    """``.<name>.<kind>-``: how the hidden names beside ``target`` start, ``name`` cut short
    enough (at a character) that the random part after it still makes a name of at most
    NAME_MAX bytes (a folder of 250 bytes is a valid name, and so must its sibling be)."""
    room, name = NAME_MAX - len(f"..{kind}-") - RANDOM_DIGITS, target.name
    while len(os.fsencode(name)) > room:
        name = name[:-1]
    return f".{name}.{kind}-"


def sibling_name(target: Path, kind: str) -> Path:
    """A fresh hidden name beside ``target``: ``.<name>.<kind>-<random>``."""
    return target.parent / f"{sibling_prefix(target, kind)}{secrets.token_hex(RANDOM_DIGITS // 2)}"


def same_place(first: Path, second: Path) -> bool:
    """Whether two paths name one file or folder: spelt alike, or both there and one on disk (a
    file system that ignores case or Unicode form, as macOS's and Windows' do, spells one folder
    many ways)."""
    if first == second:
        return True
    try:
        return os.path.samefile(first, second)
    except OSError:
        return False


def replace_folder(new: Path, target: Path) -> Path | None:
    """Put ``new`` at ``target`` (replacing whatever is there); returns where the previous target
    now is, for the caller to delete, or None when there was none."""
    for _ in range(_ATTEMPTS):
        try:
            if exchange_paths(new, target):
                return new
        except FileNotFoundError:
            if not os.path.lexists(new):
                raise
        else:  # no exchange here: move the target aside, then rename the new folder in
            aside = _move_aside(target)
            try:
                rename_no_replace(new, target)
            except FileExistsError:  # another process put a folder there meanwhile: ours replaces it
                if aside is not None:
                    remove_path(aside)
                continue
            return aside
        try:
            rename_no_replace(new, target)  # there was no target
            return None
        except FileExistsError:
            continue  # another process made one meanwhile
    raise OSError(errno.EBUSY, f"{target} kept changing while being replaced", str(target))


def _move_aside(target: Path) -> Path | None:
    """Rename ``target`` to a fresh ``.old-`` name beside it; None when it is not there."""
    aside = sibling_name(target, "old")
    try:
        os.rename(target, aside)
    except FileNotFoundError:
        return None
    return aside


def restore_moved_aside(target: Path) -> bool:
    """Where a replacement was interrupted between its two renames (systems without an
    exchange), put the newest folder moved aside back at ``target``; True when one was."""
    if os.path.lexists(target):
        return False
    aside = sorted(target.parent.glob(f".{target.name}.old-*"), key=lambda p: p.lstat().st_mtime_ns)
    if not aside:
        return False
    os.rename(aside[-1], target)
    return True


def make_folders(folder: Path) -> None:
    """Make ``folder`` and its parents (none when there).  What is in the way of a folder is named
    as the cause, not as the "File exists" (EEXIST) mkdir says: a file (ENOTDIR, "Not a
    directory"), a broken symbolic link (ENOENT) or a symbolic link loop (ELOOP)."""
    try:
        _make_each(folder)
    except FileExistsError as exc:
        in_the_way = exc.filename or folder
        if dead_link(in_the_way) is not None:
            raise _dead_link_error(in_the_way) from None
        if not os.path.exists(in_the_way) or os.path.isdir(in_the_way):
            raise
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), in_the_way) from None
    except OSError as exc:  # a folder to make beyond a symbolic link loop: the loop named
        loop = _first_loop(folder) if exc.errno == errno.ELOOP else None
        if loop is None:
            raise
        raise _dead_link_error(loop) from None


def _make_each(folder: Path) -> None:
    """``folder.mkdir(parents=True, exist_ok=True)`` as pathlib does it (the same calls, the same
    errors), with a loop where pathlib calls itself once per folder missing: a path a thousand
    folders deep (a hand-edited lock's) ran past Python's recursion limit."""
    missing: list[Path] = []
    while True:
        try:
            os.mkdir(folder)
        except FileNotFoundError:
            if folder.parent == folder:
                raise
            missing.append(folder)
            folder = folder.parent
            continue
        except OSError:
            if not os.path.isdir(folder):
                raise
        break
    for path in reversed(missing):
        try:
            os.mkdir(path)
        except OSError:
            if not os.path.isdir(path):
                raise


def _first_loop(path: Path) -> Path | None:
    """The first of ``path`` and the folders above it that is a symbolic link loop, if any."""
    return next((p for p in (*reversed(path.parents), path) if os.path.islink(p) and is_symlink_loop(p)), None)


def _dead_link_error(link: str | os.PathLike[str]) -> OSError:
    """Why a folder cannot be made through the symbolic link ``link``, which leads nowhere."""
    said = f"{dead_link(link) or 'a symbolic link that leads nowhere'} where a folder must be"
    return OSError(errno.ELOOP, said, link) if is_symlink_loop(link) else FileNotFoundError(errno.ENOENT, said, link)


def dead_link(path: str | os.PathLike[str]) -> str | None:
    """What ``path`` is when it is a symbolic link that leads nowhere, as messages name it ("a
    broken symbolic link (to 'x', which does not exist)", "a symbolic link loop ..."); else None."""
    try:
        target = os.readlink(path)
    except OSError:  # not a link (or gone)
        return None
    if os.path.exists(path):
        return None
    if is_symlink_loop(path):
        return "a symbolic link loop (its links lead round in a circle)"
    return f"a broken symbolic link (to {target!r}, which does not exist)"


def write_text_atomically(path: Path, text: str) -> os.stat_result | None:
    """:func:`write_bytes_atomically` of ``text`` in UTF-8."""
    return write_bytes_atomically(path, text.encode("utf-8"))


def write_bytes_atomically(path: Path, data: bytes) -> os.stat_result | None:
    """Write ``data`` into a new file beside ``path`` (made as ``open`` makes files, so the umask
    decides who may read it), then rename it into place: readers see the old file or the whole new
    one, and a full disk or a folder that refuses leaves nothing behind (the OSError is raised).
    Returns the status of the file at ``path`` when it is still the one written (None: another
    process put one there since), for a caller that records what it wrote."""
    partial = sibling_name(path, "tmp")
    try:
        with open(partial, "xb") as handle:
            handle.write(data)
            written = os.fstat(handle.fileno())
        os.replace(partial, path)
    except OSError:
        try:
            os.unlink(partial)
        except OSError:
            pass
        raise
    try:
        found = os.lstat(path)
    except OSError:
        return None
    return found if (found.st_dev, found.st_ino) == (written.st_dev, written.st_ino) else None


def remove_path(path: Path) -> None:
    """Delete a folder tree, a file or a link; nothing when it is gone already.  A tree left
    partly there (a folder in it of mode 000 or without write permission, which its owner may
    still change) is removed again once :func:`_open_up` gave its folders back to their owner."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
        if os.path.lexists(path) and _open_up(path):
            shutil.rmtree(path, ignore_errors=True)
        return
    try:
        path.unlink()
    except FileNotFoundError:
        pass


#: The permissions a folder's owner needs to empty it: list it, enter it, remove what is in it.
_OWNER_RWX = stat.S_IRWXU


def _open_up(top: Path) -> bool:
    """Give each folder of the tree at ``top`` that this process owns, and that lacks them, its
    owner's read, write and search permissions, so that what is in it can be removed; True when
    one was changed.  A symbolic link in the tree is never entered (each folder is opened with
    ``O_NOFOLLOW``, each mode changed relative to its parent's descriptor).  Nothing where the
    system cannot change a mode relative to a descriptor (Windows)."""
    if os.chmod not in os.supports_dir_fd or not hasattr(os, "O_NOFOLLOW"):
        return False
    changed = False
    stack: list[tuple[str, list[str] | None]] = [(str(top.parent), [top.name])]
    while stack:
        folder, only = stack.pop()
        nofollow = os.O_NOFOLLOW if only is None else 0  # the folder holding ``top`` may be reached through a link
        try:
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | nofollow)
        except OSError:  # gone, replaced by a link, or not ours to open
            continue
        try:
            names = only if only is not None else \
                [entry.name for entry in os.scandir(fd) if entry.is_dir(follow_symlinks=False)]
            for name in names:
                changed = _give_back(fd, name) or changed
                stack.append((os.path.join(folder, name), None))
        except OSError:  # a folder still not ours to list: what is in it stays
            pass
        finally:
            os.close(fd)
    return changed


def _give_back(fd: int, name: str) -> bool:
    """Add the owner's read, write and search permissions to the folder ``name`` in the folder
    open as ``fd`` when this process owns it and it lacks them; True when it did."""
    try:
        info = os.stat(name, dir_fd=fd, follow_symlinks=False)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & _OWNER_RWX == _OWNER_RWX:
            return False
        mode = stat.S_IMODE(info.st_mode) | _OWNER_RWX
        try:  # not following links: a folder replaced by a link since the stat above is refused, its target kept
            os.chmod(name, mode, dir_fd=fd, follow_symlinks=False)
        except (ValueError, NotImplementedError):  # a link's mode cannot change, or no system here changes one's
            return _give_back_opened(fd, name, info, mode)
        return True
    except OSError:
        return False


def _give_back_opened(fd: int, name: str, info: os.stat_result, mode: int) -> bool:
    """:func:`_give_back` where the system changes no mode without following links (glibc before
    2.32, or no /proc mounted: ``fchmodat`` refuses ``AT_SYMLINK_NOFOLLOW``): the folder opened
    without following a link, still the one looked at, changed through its descriptor (one its
    owner cannot read stays as it is)."""
    try:
        folder = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
    except OSError:  # a link, no folder, or one its owner cannot read
        return False
    try:
        opened = os.fstat(folder)
        if (opened.st_dev, opened.st_ino) != (info.st_dev, info.st_ino):
            return False
        os.fchmod(folder, mode)
        return True
    except OSError:
        return False
    finally:
        os.close(folder)
