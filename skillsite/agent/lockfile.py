"""``skillsite-lock.json``: what was installed where, from which catalog, at which version and
digest (standard library only).

Sorted keys, two-space indent, a trailing newline and no timestamps, so the same installs give
the same bytes and the file diffs and merges well.  Written to a temporary file beside it and
renamed into place: a reader sees the old lock or the new one.  Paths inside the lock file's
folder are written relative to it (with ``/``), so a lock checked into a repository works in
every clone.
"""
from __future__ import annotations

import bisect
import json
import os
import urllib.parse
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterator

from skillsite.agent.errors import InstallError, LockFileError, NotFoundError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]
from skillsite.agent.semver import RangeError, parse_range, parse_version
from skillsite.agent.spellings import spelt_alike
from skillsite.agent.versions import is_release_digest
from skillsite.agent.utf8 import is_utf8_text
from skillsite.agent.vcs_names import is_vcs_folder
from skillsite.folders import sibling_name, write_bytes_atomically

LOCK_NAME = "skillsite-lock.json"
LOCKFILE_VERSION = 1
MAX_LOCK_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class LockedSkill:
    """One installed skill.  ``requested`` is the range it was installed with, for a skill named
    on the command line (None for one installed as a dependency); ``version`` is None for a
    skill published without releases.  ``nested_digest``: the digest of the nested sub-skills
    installed in its folder with it (which ``digest``, the release's, does not cover), so that an
    edit there is a local change too; None when it has none.  ``nested_recorded``: the lock says
    which nested skills were installed (``nested_digest``, null for none), so a nested skill
    added since is a local change too; False in a lock an older skillsite wrote, which is silent."""

    source: str
    version: str | None
    digest: str
    path: str
    dependencies: dict[str, str] = field(default_factory=dict)
    requested: str | None = None
    nested_digest: str | None = None
    #: how the record is written, not what was installed: two records differing only here are equal
    nested_recorded: bool = field(default=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        data = {"source": self.source, "version": self.version, "digest": self.digest,
                "dependencies": dict(self.dependencies), "path": self.path}
        if self.requested is not None:
            data["requested"] = self.requested
        if self.nested_recorded or self.nested_digest is not None:
            data["nested_digest"] = self.nested_digest  # null: none (an older skillsite reads it as unrecorded)
        return data


@dataclass(frozen=True)
class Lock:
    """The whole lock file: skill id -> :class:`LockedSkill`."""

    skills: dict[str, LockedSkill] = field(default_factory=dict)

    def with_skill(self, skill_id: str, locked: LockedSkill) -> Lock:
        """A copy holding ``locked`` for ``skill_id`` (its ``requested`` kept when the new one has none)."""
        previous = self.skills.get(skill_id)
        if locked.requested is None and previous is not None:
            locked = replace(locked, requested=previous.requested)
        return Lock({**self.skills, skill_id: locked})


def locked_id(lock: Lock, text: str, where: str | os.PathLike[str]) -> str:
    """The id under which ``lock`` (the file ``where``) holds the skill ``text`` names: ``text``
    itself, else the one locked id of the same NFC (a shell on macOS gives an accented id
    decomposed), as a catalog finds its ids.  Two locked ids of one NFC (each spelling installed
    from a catalog publishing it) are told apart only exactly; NotFoundError when none is meant."""
    if text in lock.skills:
        return text
    same = spelt_alike(text, lock.skills)
    if len(same) == 1:
        return same[0]
    if same:
        raise NotFoundError(f"{ascii(text)} is the Unicode text of several skills' ids in {where} "
                            f"({', '.join(ascii(i) for i in same)}); give one of them exactly")
    raise NotFoundError(f"{where} holds no skill {text!r}")

def lock_text(lock: Lock) -> str:
    """The lock file's text: sorted keys, 2-space indent, trailing newline."""
    data = {"lockfile_version": LOCKFILE_VERSION,
            "skills": {sid: skill.to_json() for sid, skill in lock.skills.items()}}
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def read_lock(path: Path) -> Lock:
    """The lock at ``path``; an empty one when there is no file; LockFileError when it is unusable."""
    body = _lock_body(path)
    return Lock() if body is None else _lock_of(body, path)


def _lock_body(path: Path) -> bytes | None:
    """The lock file's bytes; None when there is no file; LockFileError when it cannot be read or
    is too large."""
    try:
        with open(path, "rb") as handle:
            body = handle.read(MAX_LOCK_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise LockFileError(f"cannot read the lock file {path}: {exc.strerror or exc}") from None
    if len(body) > MAX_LOCK_BYTES:
        raise LockFileError(f"{path}: the lock file is over {MAX_LOCK_BYTES:,} bytes")
    return body


def _lock_of(body: bytes, path: Path) -> Lock:
    """The lock the bytes of the file at ``path`` hold, checked; LockFileError when it is unusable."""
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        where = f" (line {exc.lineno} column {exc.colno})" if isinstance(exc, json.JSONDecodeError) else ""
        raise LockFileError(f"{path}{where}: the lock file is not valid JSON") from None
    lock = parse_lock(data, str(path))
    _check_paths(lock, Path(path))
    return _relative_paths(lock, Path(path))


def holds_lock(folder: Path, lock_path: Path) -> bool:
    """Whether installing a skill at ``folder`` would replace the lock file: ``folder`` is the
    lock file, its folder or one above it (and so the whole project around it)."""
    base = Path(os.path.realpath(Path(os.path.abspath(lock_path)).parent))
    where = Path(os.path.realpath(folder))
    return where == base or where in base.parents or where == base / Path(lock_path).name


def inside_lock_folder(folder: Path, lock_path: Path) -> bool:
    """Whether ``folder`` lies inside the lock file's folder as its path reads (no ``..`` out of
    it, no absolute path elsewhere), and in no version-control folder there: the only places a
    lock may name, as a lock committed to a project is anyone's to write, and ``update`` writes
    (``--overwrite``: replaces) what it names."""
    base = os.path.normpath(os.path.abspath(Path(lock_path).parent))
    where = os.path.normpath(os.path.abspath(folder))
    return lies_under(where, base) and not any(is_vcs_folder(part) for part in Path(os.path.relpath(where, base)).parts)


def leads_out_of_lock_folder(folder: Path, lock_path: Path) -> bool:
    """Whether ``folder``, inside the lock file's folder as its path reads, leads out of it
    through a symbolic link (or into a version-control folder there): a lock and a link committed
    side by side would make ``update`` write anywhere."""
    base = os.path.realpath(os.path.abspath(Path(lock_path).parent))
    where = os.path.realpath(folder)
    return not inside_lock_folder(Path(where), Path(base) / LOCK_NAME)


class LockedFolders:
    """Where a lock's skills are installed, each path resolved once and kept sorted (a lock of a
    thousand skills is asked of each of them): which lie inside a folder."""

    def __init__(self, lock: Lock, lock_path: Path) -> None:
        self.real = sorted((os.path.realpath(resolve_locked_path(locked.path, lock_path)), skill_id)
                           for skill_id, locked in lock.skills.items())

    def inside(self, skill_id: str, folder: Path) -> dict[str, str]:
        """The other skills installed inside ``folder`` (each there on its own): id -> its
        folder's path relative to ``folder`` (POSIX), by id."""
        where = os.path.realpath(folder)
        prefix = where.rstrip(os.sep) + os.sep
        found = {}
        for path, other in self.real[bisect.bisect_left(self.real, (prefix, "")):]:
            if not path.startswith(prefix):
                break
            if other != skill_id:
                found[other] = Path(os.path.relpath(path, where)).as_posix()
        return dict(sorted(found.items()))


def lies_under(path: str, folder: str) -> bool:
    """Whether ``path`` lies inside ``folder`` (both spelt alike: absolute, normalised or real)."""
    return path.startswith(folder.rstrip(os.sep) + os.sep)


def _check_paths(lock: Lock, lock_path: Path) -> None:
    """LockFileError when a skill's ``path`` is the lock file, its folder or one above it, or
    lies outside that folder: skillsite never records one, and ``update --overwrite`` would
    replace the whole project (or the lock, or a folder elsewhere) with a skill; or when it holds
    a ``..`` part."""
    for skill_id, skill in sorted(lock.skills.items()):
        folder = resolve_locked_path(skill.path, lock_path)
        if holds_lock(folder, lock_path):
            raise LockFileError(f"{lock_path}: skill {skill_id!r} is installed at {skill.path!r}, the lock file "
                                "itself, its folder or one above it; refusing the lock file")
        if not inside_lock_folder(folder, lock_path):
            raise LockFileError(f"{lock_path}: skill {skill_id!r} is installed at {skill.path!r}, outside the lock "
                                "file's folder (or in a version-control folder there); refusing the lock file (a lock "
                                "names only folders inside its own)")
        if ".." in skill.path.split("/"):
            raise LockFileError(f"{lock_path}: skill {skill_id!r} is malformed: path {skill.path[:80]!r} holds a '..' "
                                "part, which skillsite never writes (through a symbolic link it is not the folder it "
                                "reads as); name the folder straight down from the lock file's")


def _relative_paths(lock: Lock, lock_path: Path) -> Lock:
    """``lock`` with each absolute ``path`` (one inside the lock's folder: :func:`_check_paths`)
    spelt as skillsite writes it, relative to that folder: the same folder, so that ``update``
    does not call a record it writes back so a change."""
    if not any(os.path.isabs(skill.path) for skill in lock.skills.values()):
        return lock
    return Lock({sid: replace(skill, path=lock_path_text(Path(skill.path), lock_path))
                 if os.path.isabs(skill.path) else skill for sid, skill in lock.skills.items()})


def parse_lock(data: Any, where: str) -> Lock:
    """A lock from its JSON value; LockFileError saying what is wrong."""
    if not isinstance(data, dict) or not isinstance(data.get("skills"), dict):
        raise LockFileError(f"{where}: not a skillsite lock file (it needs 'lockfile_version' and 'skills')")
    version = data.get("lockfile_version")
    if type(version) is not int or version != LOCKFILE_VERSION:  # true and 1.0 equal 1 in Python, not in JSON
        raise LockFileError(f"{where}: lockfile_version {data.get('lockfile_version')!r} is not "
                            f"{LOCKFILE_VERSION}; upgrade skillsite")
    lock = Lock({sid: _locked(sid, value, where) for sid, value in data["skills"].items()})
    _check_dependencies_held(lock, where)
    return lock


def _check_dependencies_held(lock: Lock, where: str) -> None:
    """Refuse a record naming a dependency the lock holds no record of: skillsite records every
    dependency it installs (before the skill needing it), so the lock was edited, and ``update``
    would otherwise rewrite the record from the catalog, calling it a change."""
    for skill_id, skill in sorted(lock.skills.items()):
        missing = sorted(dep for dep in skill.dependencies if dep not in lock.skills)
        if missing:
            raise LockFileError(f"{where}: skill {skill_id!r} is malformed: its dependency {missing[0]!r} has no "
                                "record in the lock file (remove it there: update records what its catalog says "
                                "the skill needs)")


def _locked(skill_id: str, value: Any, where: str) -> LockedSkill:
    """One skill's record, checked."""
    problem = f"{where}: skill {skill_id!r} is malformed"
    if not isinstance(value, dict):
        raise LockFileError(problem)
    strings = all(isinstance(value.get(k), str) and value[k] and "\0" not in value[k]
                  for k in ("source", "digest", "path"))
    deps = value.get("dependencies", {})
    if not strings or not (value.get("version") is None or isinstance(value["version"], str)) \
            or not (isinstance(deps, dict) and all(isinstance(v, str) for v in deps.values())) \
            or not (value.get("requested") is None or isinstance(value["requested"], str)):
        raise LockFileError(f"{problem} (it needs source, version, digest, dependencies and path)")
    for key in ("digest", "nested_digest"):
        if (key == "digest" or value.get(key) is not None) and not is_release_digest(value.get(key)):
            raise LockFileError(f"{problem}: {key} {str(value.get(key))[:80]!r} is not sha256:<64 hex digits>")
    texts = [skill_id, value["source"], value["path"], value.get("version") or "", value.get("requested") or "",
             *deps, *deps.values()]
    if not all(is_utf8_text(text) for text in texts):
        raise LockFileError(f"{problem}: it holds a lone surrogate (\\udXXX), which is no text")
    _check_version(problem, value.get("version"))
    _check_ranges(problem, value.get("requested"), deps)
    _check_source(problem, value["source"])
    return LockedSkill(value["source"], value.get("version"), value["digest"], _normal_path(problem, value["path"]),
                       dict(deps), value.get("requested"), value.get("nested_digest"), "nested_digest" in value)


def _check_version(problem: str, text: str | None) -> None:
    """Refuse a version skillsite never records: a release's version is written as semver's
    MAJOR.MINOR.PATCH[-PRERELEASE] (no build metadata, no ``v``), a skill without releases has
    none; ``update`` would otherwise call its replacement a change from ``banana``."""
    version = parse_version(text) if text is not None else None
    if text is not None and (version is None or str(version) != text):
        raise LockFileError(f"{problem}: version {text[:80]!r} is not a release's version (MAJOR.MINOR.PATCH"
                            "[-PRERELEASE], or null for a skill without releases)")


def _check_ranges(problem: str, requested: str | None, deps: dict[str, str]) -> None:
    """Refuse a range that does not parse: ``outdated`` would otherwise call the skill up to date."""
    asked = ([("requested", requested)] if requested is not None else []) + \
        [(f"dependency {name!r}", text) for name, text in deps.items()]
    for what, text in asked:
        try:
            parse_range(text)
        except RangeError as exc:
            raise LockFileError(f"{problem}: {what} range {text[:80]!r} does not parse ({exc})") from None


def _normal_path(problem: str, text: str) -> str:
    """A record's ``path`` spelt as skillsite writes it: ``.`` parts, doubled and trailing ``/``
    dropped (every file call reads them as the same folder, so a hand-written ``skills/lib/`` is
    no change when ``update`` records ``skills/lib``; a ``..`` part is :func:`_check_paths`'s).
    LockFileError for a backslash: a folder separator on Windows, a letter elsewhere (one lock,
    two folders)."""
    if "\\" in text:
        raise LockFileError(f"{problem}: path {text[:80]!r} holds a backslash, a folder separator on Windows "
                            "and a letter elsewhere; a lock's paths separate folders with '/'")
    kept = "/".join(part for part in text.split("/") if part not in ("", "."))
    if text.startswith("/"):
        return "/" + kept
    return kept or "."


def _check_source(problem: str, text: str) -> None:
    """Refuse a ``source`` that names no catalog: a URL of a scheme other than http(s) (as
    :meth:`skillsite.loader.Catalog.open` refuses them) or one without a host.  An update of a
    skill needing this one would otherwise record it from its own catalog without a word."""
    try:
        parts = urllib.parse.urlsplit(text)
        host = parts.hostname
    except ValueError as exc:  # "http://[::1", a port that is no number
        raise LockFileError(f"{problem}: source {text[:80]!r} is not a URL ({exc})") from None
    scheme = parts.scheme.lower()
    if scheme in ("http", "https") and not host:
        raise LockFileError(f"{problem}: source {text[:80]!r} names no host")
    if scheme not in ("http", "https") and ("://" in text and len(scheme) > 1 or scheme in ("file", "ftp", "data")):
        raise LockFileError(f"{problem}: source {text[:80]!r} is neither an http(s) URL nor the path of a "
                            "catalog's skills.json")


class LockRecorder:
    """Records one install's skills in the lock at ``path``, each as it is put in place: the lock
    is read again and written back while its folder is held (:func:`_folder_held`), so installs
    sharing a lock at once each keep their records.

    The lock this recorder last wrote (or found unchanged) is kept with the file's bytes: while the
    file still holds those bytes, no other install wrote it since, and the next record is added to
    the lock kept rather than to the file read, parsed and checked again (every record's folder
    resolved), which made recording a skill cost as much as the whole lock."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._known: tuple[bytes, Lock] | None = None   # the file's bytes, and the lock they read as

    def record(self, skill_id: str, locked: LockedSkill) -> None:
        """Add (or replace) ``skill_id``'s record."""
        with _folder_held(self.path):
            body = _lock_body(self.path)
            if body is None:
                lock = Lock()
            elif self._known is not None and body == self._known[0]:
                lock = self._known[1]
            else:
                lock = _lock_of(body, self.path)
            updated = lock.with_skill(skill_id, locked)
            _check_record(self.path, updated, skill_id)
            if updated == lock and body is not None and self.path.is_file():
                self._known = (body, lock)  # left as it is, as write_lock leaves it
                return
            text = lock_text(updated).encode("utf-8")
            _write_lock_bytes(self.path, text)
            self._known = (text, updated)


def _check_record(path: Path, lock: Lock, skill_id: str) -> None:
    """LockFileError when :func:`read_lock` would refuse the lock at ``path`` for ``lock``'s record
    of ``skill_id`` (say, a catalog's source it cannot read back): the recorder reads again only
    what another install wrote, so what it writes itself is checked before it is written."""
    record = _locked(skill_id, lock.skills[skill_id].to_json(), f"{path} (the record to write)")
    _check_paths(Lock({skill_id: record}), path)
    missing = sorted(dep for dep in record.dependencies if dep not in lock.skills)
    if missing:
        raise LockFileError(f"{path}: skill {skill_id!r} would be recorded before its dependency {missing[0]!r}")


def check_lock_writable(path: Path) -> None:
    """InstallError unless a lock can be written at ``path`` as :func:`write_lock` writes it: a
    new file in its folder, renamed over the lock.  Tried for real, while the folder is held: the
    lock's own bytes written again (an immutable or otherwise fixed lock file refuses the rename,
    which the folder's permissions do not show), or a new file made and removed where there is
    no lock yet.  Checked before any skill folder is put in place, so a lock that cannot be
    written leaves them as they were, not holding releases it does not record."""
    path = Path(path)
    with _folder_held(path):
        try:
            if os.path.lexists(path):
                write_bytes_atomically(path, path.read_bytes())
            else:
                probe = sibling_name(path, "tmp")
                os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
                os.unlink(probe)
        except OSError as exc:
            raise InstallError(exc.errno, f"cannot write the lock file {path}: {exc.strerror or exc}",
                               str(path)) from None


@contextmanager
def _folder_held(path: Path) -> Iterator[None]:
    """The lock's folder made, and held by an advisory lock (``flock``) for the ``with`` block:
    installs sharing the lock file take turns (none is taken where ``flock`` is missing, Windows,
    or on a file system without locks, some network ones: they write unserialised).
    InstallError naming the lock when the folder cannot be made or opened."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        folder = os.open(path.parent, os.O_RDONLY) if fcntl is not None else None
    except OSError as exc:
        raise InstallError(exc.errno, f"cannot write the lock file {path}: {exc.strerror or exc}", str(path)) from None
    try:
        if folder is not None:
            try:
                fcntl.flock(folder, fcntl.LOCK_EX)
            except OSError:
                pass
        yield
    finally:
        if folder is not None:
            os.close(folder)  # and with it the flock


def write_lock(path: Path, lock: Lock) -> None:
    """Write ``lock`` to ``path`` atomically (a file made as ``open`` makes them, so the umask
    decides who may read it); InstallError naming the path and the cause when the folder refuses.
    A file that reads as ``lock`` already is left as it is: an update that changes nothing keeps
    the file's bytes, with the fields a newer skillsite (or its user) added, which this version
    would not write."""
    path = Path(path)
    try:
        if read_lock(path) == lock and path.is_file():
            return
    except LockFileError:
        pass  # written anew
    _write_lock_bytes(path, lock_text(lock).encode("utf-8"))


def _write_lock_bytes(path: Path, data: bytes) -> None:
    """Write a lock's bytes to ``path`` atomically; InstallError naming the path and the cause
    when the folder refuses."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes_atomically(path, data)
    except OSError as exc:
        raise InstallError(exc.errno, f"cannot write the lock file {path}: {exc.strerror or exc}", str(path)) from None


def lock_path_text(installed: Path, lock_path: Path) -> str:
    """How the lock names an installed folder: relative to the lock's folder (with ``/``) when
    inside it, else absolute."""
    base = Path(os.path.abspath(lock_path)).parent
    target = Path(os.path.abspath(installed))
    try:
        return target.relative_to(base).as_posix()
    except ValueError:
        return str(target)


def resolve_locked_path(text: str, lock_path: Path) -> Path:
    """The folder a lock's ``path`` names: relative ones from the lock's folder."""
    path = Path(text)
    return path if path.is_absolute() else Path(os.path.abspath(lock_path)).parent / path


def source_text(location: str, remote: bool, lock_path: Path) -> str:
    """How the lock names a catalog: its URL, or its skills.json path (relative when inside the lock's folder)."""
    return location if remote else lock_path_text(Path(location), lock_path)


def resolve_source(text: str, lock_path: Path) -> str:
    """The catalog a lock's ``source`` names: a URL as it is, a relative path from the lock's folder."""
    if "://" in text:
        return text
    return str(resolve_locked_path(text, lock_path))
