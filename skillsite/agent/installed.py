"""The release digest of an installed skill folder, to tell whether its files are still the
ones the lock records (standard library only).

Every regular file under the folder counts, by its path relative to the folder, except the
folders of nested skills (a sub-folder holding its own SKILL.md is another skill, installed
with it): those count in a digest of their own (:func:`nested_digest`), which the lock keeps
beside the release's.  A skill installed on its own inside another's folder (the lock records it
at its own path) is no change of that one: the nested digest is also taken without it.  Symbolic
links are never followed: one counts as a file whose content is its target's name, so a folder
changed into a link to somewhere else reads as modified.
"""
from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import Collection, Mapping, NamedTuple

from skillsite.agent.lockfile import LockedFolders, LockedSkill
from skillsite.agent.release_digest import release_digest, release_digest_of_bytes

_CHUNK = 1024 * 1024


def installed_digest(folder: Path) -> str | None:
    """``sha256:<hex>`` of the skill installed at ``folder``; None when there is none (no SKILL.md)."""
    folder = Path(folder)  # os.path's tests: False on any OSError (a hand-edited path may be too long)
    if not os.path.isdir(folder) or os.path.islink(folder) or not os.path.isfile(folder / "SKILL.md"):
        return None
    return release_digest(_files(folder))


def nested_digest(folder: Path, apart: Collection[Path] = ()) -> str | None:
    """``sha256:<hex>`` of the files of the nested skills installed in ``folder`` (every file
    under a sub-folder holding its own SKILL.md), those under the folders ``apart`` aside; None
    when it holds none."""
    files = [item for nested in _nested_folders(Path(folder)) for item in _files(nested, folder, nested=True)
             if not any(_inside(item[0], folder, other) for other in apart)]
    return release_digest(files) if files else None


def nested_digest_of(files: Mapping[str, bytes]) -> str | None:
    """:func:`nested_digest` of the folder an install writes ``files`` (relative path -> bytes) into."""
    nested = [(rel, data) for rel, data in files.items() if _in_nested_skill(rel, files)]
    return release_digest_of_bytes(nested) if nested else None


class InstalledFolder(NamedTuple):
    """What a skill's folder holds: the digest of its own files (None: no skill there) and of
    the nested skills in it (None: none), all of them and those installed with it (the skills
    the lock records on their own aside).  Hashed once, then compared as often as needed."""

    own: str | None
    nested: str | None
    nested_with_it: str | None

    @classmethod
    def at(cls, folder: Path, apart: Collection[Path] = ()) -> InstalledFolder:
        """The folder's digests; ``apart``: the folders inside it of skills the lock records on their own."""
        nested = nested_digest(folder)
        return cls(installed_digest(folder), nested, nested_digest(folder, apart) if apart else nested)

    def same_files(self, other: InstalledFolder) -> bool:
        """Whether ``other`` was taken of the same files (every nested skill counted)."""
        return (self.own, self.nested) == (other.own, other.nested)

    def holds_nested(self, digest: str | None) -> bool:
        """Whether the nested skills installed with it are those of ``digest``: all of them, or
        all but the skills the lock records on their own (installed with it, the same path)."""
        return digest in (self.nested, self.nested_with_it)

    def nested_changed(self, locked: LockedSkill) -> bool:
        """Whether the nested skills differ from those the lock records (when it records them: a
        nested skill added to a folder installed without any is a change too)."""
        recorded = locked.nested_recorded or locked.nested_digest is not None
        return recorded and not self.holds_nested(locked.nested_digest)

    def changed(self, locked: LockedSkill) -> bool:
        """Whether the folder differs from what the lock records: its own files or its nested skills."""
        return self.own != locked.digest or self.nested_changed(locked)


def unreadable_text(exc: OSError) -> str:
    """An error met hashing an installed folder as a clause naming the file: a file of mode 000
    (or one in a folder that cannot be entered) leaves unknown whether the folder changed."""
    return f"{exc.filename or 'a file there'} cannot be read ({exc.strerror or exc})"


def apart_of(folders: LockedFolders, skill_id: str, folder: Path) -> list[Path]:
    """The folders inside ``folder`` of the other skills a lock records on their own (for
    :meth:`InstalledFolder.at`)."""
    return [Path(folder) / rel for rel in folders.inside(skill_id, folder).values()]


def changed_locally(folder: Path, locked: LockedSkill, apart: Collection[Path] = ()) -> bool:
    """Whether the skill installed at ``folder`` differs from what the lock records: its own
    files, or the nested skills installed with it (when the lock records their digest; ``apart``:
    see :meth:`InstalledFolder.at`)."""
    return InstalledFolder.at(folder, apart).changed(locked)


def _inside(rel: str, root: Path, other: Path) -> bool:
    """Whether the file ``rel`` (relative to ``root``) lies in the folder ``other``."""
    return os.path.abspath(root / rel).startswith(os.path.abspath(other) + os.sep)


def _in_nested_skill(rel: str, files: Mapping[str, bytes]) -> bool:
    """Whether one of the folders holding ``rel`` holds a SKILL.md among ``files`` (the root's aside)."""
    parts = rel.split("/")
    return any("/".join(parts[:end]) + "/SKILL.md" in files for end in range(1, len(parts)))


def _nested_folders(folder: Path) -> list[Path]:
    """The sub-folders of ``folder`` (at any depth, through none) holding their own SKILL.md."""
    found = []
    for here, dirs, _ in os.walk(folder, onerror=_unlisted):
        base = Path(here)
        real = [d for d in dirs if not os.path.islink(base / d)]
        skills = {d for d in real if (base / d / "SKILL.md").exists()}
        found += [base / d for d in real if d in skills]
        dirs[:] = [d for d in real if d not in skills]
    return found


def _files(folder: Path, root: Path | None = None, nested: bool = False) -> list[tuple[str, str]]:
    """(path relative to ``root`` (default: ``folder``), sha256) of the skill's own files, or with
    ``nested`` every file under ``folder``, nested skills' too."""
    out = []
    for here, dirs, files in os.walk(folder, onerror=_unlisted):
        base = Path(here)
        dirs[:] = [d for d in dirs if not os.path.islink(base / d) and (nested or not (base / d / "SKILL.md").exists())]
        links = [d for d in os.listdir(here) if os.path.islink(base / d) and d not in files]
        for name in files + links:
            path = base / name
            rel = path.relative_to(root or folder).as_posix()
            out.append((rel, _sha256(path)))
    return out


def _unlisted(exc: OSError) -> None:
    """A folder ``os.walk`` may not list (mode 100: it can be entered, not read) is a file that
    cannot be read: what it holds is unknown, so the folder is no unchanged one to replace (and
    removing it would remove what is in it).  Other errors (a folder gone, none at all) are passed
    over, as ``os.walk`` does."""
    if isinstance(exc, PermissionError):
        raise exc


def _sha256(path: Path) -> str:
    """The sha256 of a file, or of a link's target name (never followed); a named pipe, socket
    or device is never opened (reading one could block): install writes none, and its path
    alone changes the digest."""
    if os.path.islink(path):
        return hashlib.sha256(os.readlink(path).encode("utf-8", "surrogateescape")).hexdigest()
    if not stat.S_ISREG(os.stat(path).st_mode):
        return hashlib.sha256(b"").hexdigest()
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
