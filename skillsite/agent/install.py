"""Installing and updating skills from an open catalog: the skill and what it needs, each
verified, written into a temporary folder beside its own and put in place in one step, and
recorded in the lock file.  :meth:`skillsite.loader.Catalog.install` and
:meth:`~skillsite.loader.Catalog.update` hand over to :class:`Installer`; it reads the catalog
through its verified fetches (standard library only)."""
from __future__ import annotations

import errno
import functools
import os
import shutil
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, NamedTuple, Sequence

from skillsite.agent.catalog_versions import current_digest
from skillsite.agent.entry import ManifestEntry
from skillsite.agent.errors import (CatalogFormatError, DependencyError, DestinationExistsError, InstallError,
                                    IntegrityError, LoaderError, NotFoundError, UnsafePathError)
from skillsite.agent.install_limits import MAX_INSTALL_DEPTH, InstallAllowance
from skillsite.agent.install_plan import REQUEST, UNVERSIONED, Ask, PlannedSkill, label, plan_install
from skillsite.agent.install_staging import staging_folder
from skillsite.agent.installed import (InstalledFolder, apart_of, changed_locally, installed_digest,
                                      nested_digest, nested_digest_of, unreadable_text)
from skillsite.agent.lockfile import (Lock, LockedSkill, check_lock_writable, holds_lock, inside_lock_folder,
                                      leads_out_of_lock_folder, LockedFolders, lock_path_text, locked_id, read_lock,
                                      LockRecorder, resolve_locked_path, resolve_source, source_text)
from skillsite.agent.manifest_check import safe_relpath, skill_folder_problem
from skillsite.agent.release_digest import release_digest
from skillsite.agent.semver import parse_version
from skillsite.agent.spellings import one_spelling
from skillsite.agent.utf8 import is_utf8_text
from skillsite.folders import dead_link, make_folders, remove_path, rename_no_replace, replace_folder

#: A file to install: its path in the folder written, the skill it is of, and how to fetch its
#: verified bytes (called once the whole install is counted: :class:`InstallAllowance`).
Fetch = tuple[str, str, Callable[[], bytes]]


class Installer:
    """Installs from one open :class:`skillsite.loader.Catalog`."""

    def __init__(self, catalog: Any) -> None:
        self.catalog = catalog

    def install(self, skill_id: str, dest: str | os.PathLike[str], overwrite: bool = False, *,
                children: bool = True, version: str | None = None,
                lock: str | os.PathLike[str] | None = None, follow_links: bool = False) -> Path:
        """Write the verified skill folder (and, by default, its nested sub-skills) to ``dest``,
        after the skills it depends on, each beside it (``dest.parent / <last part of its id>``).

        ``version`` (an exact version or a range) picks the highest release that satisfies it
        (default: the current version).  Each dependency gets the highest release satisfying
        every range asking for it (and, with ``lock``, the ranges of the skills the lock file
        already holds); :class:`DependencyError` names the ranges when none does.  Everything is
        fetched and verified first; each skill is then written into a temporary folder beside
        its own and put in place in one step, whatever other installs run at the same time.
        An existing ``dest`` is replaced only with ``overwrite=True`` (DestinationExistsError
        otherwise); an existing dependency folder is kept when it holds that release already,
        replaced when the lock says it was installed there and it is unchanged, else refused.
        With ``lock`` (the path of a ``skillsite-lock.json``), every skill installed is recorded
        in it; a release whose digest is not the one the lock records for its version is
        refused (IntegrityError).  A destination that cannot be written raises :class:`InstallError`.
        A dependency the lock has in a folder reached through a symbolic link out of the lock's
        folder is refused (UnsafePathError) unless ``follow_links`` (the link is the user's own).
        """
        entry = self.catalog.manifest_entry(skill_id)
        target = Path(os.path.abspath(dest))
        if os.path.lexists(target) and not overwrite:
            raise DestinationExistsError(f"{_already_there(target)}; pass overwrite=True to replace it")
        wanted = version if version is not None else self.catalog._histories.current_range(entry)
        lock_path = None if lock is None else Path(os.path.abspath(lock))
        requested = version if version is not None else _default_request(wanted)
        self._install_closure(entry.id, Ask(REQUEST, wanted), target, overwrite, children, lock_path, requested,
                              follow_links=follow_links)
        return target

    def update(self, skill_id: str, lock: str | os.PathLike[str], *, overwrite: bool = False,
               children: bool = True, follow_links: bool = False) -> list[PlannedSkill]:
        """Re-install a skill the lock file holds (from this catalog) where the lock says, at the
        highest release its locked ranges allow: the range it was installed with and those of
        the locked skills that need it; its dependencies with it, the lock keeping its ranges.

        A release changed under a locked version is refused (IntegrityError), and so is a
        folder whose files differ from what the lock records (DestinationExistsError), unless
        ``overwrite``.  A folder the lock names that leads out of the lock's folder through a
        symbolic link is refused (UnsafePathError: a lock and a link committed side by side could
        send a skill anywhere) unless ``follow_links``, the user's word that the link is theirs (a
        skills folder linked to a shared one).  ``skill_id`` is found as :func:`locked_id` finds it
        (an accented id typed decomposed too).  Returns what was planned, dependencies first.
        """
        lock_path = Path(os.path.abspath(lock))
        lock_file = read_lock(lock_path)
        skill_id = locked_id(lock_file, skill_id, lock_path)  # as the lock spells it (NFC or NFD alike)
        locked = lock_file.skills[skill_id]
        if not self._is_source(locked.source, lock_path):
            raise NotFoundError(f"{lock_path} holds no skill {skill_id!r} installed from {self.catalog.location}")
        target = resolve_locked_path(locked.path, lock_path)
        refusal = None if overwrite else _local_changes(skill_id, target, lock_file, lock_path)
        ask = Ask(REQUEST if locked.requested else f"{lock_path.name}", locked.requested or "*")
        return self._install_closure(skill_id, ask, target, overwrite, children, lock_path, locked.requested,
                                     replace_root=True, follow_links=follow_links, refusal=refusal)

    def _install_closure(self, skill_id: str, ask: Ask, target: Path, overwrite: bool, children: bool,
                         lock_path: Path | None, requested: str | None, *, replace_root: bool = False,
                         follow_links: bool = False, refusal: Exception | None = None) -> list[PlannedSkill]:
        """Install ``skill_id`` at ``target`` and its dependencies beside it, recording them in the
        lock; ``refusal``: raised unless ``target`` holds the release to install already (an update
        of a folder whose files are not those the lock records: an update killed after putting
        the release in place, before recording it, is recorded now)."""
        lock = read_lock(lock_path) if lock_path is not None else Lock()
        ours = {sid: locked for sid, locked in lock.skills.items() if self._is_source(locked.source, lock_path)}
        others = {sid: (label(sid, locked.version or UNVERSIONED), tuple(locked.dependencies.items()))
                  for sid, locked in ours.items()}
        held = {sid: Ask(f"{sid}'s install request in {lock_path.name}", locked.requested)
                for sid, locked in ours.items() if lock_path is not None and locked.requested}
        plan = plan_install([(skill_id, ask)], self.catalog._histories.needs, others, held)
        targets = self._targets(plan, skill_id, target, ours, lock_path)
        for planned in plan:
            if lock_path is not None and holds_lock(targets[planned.id], lock_path):
                raise UnsafePathError(f"{targets[planned.id]} holds the lock file {lock_path}: installing "
                                      f"{planned.id} there would replace it and everything beside it")
        recorded = {sid for sid in targets if sid in ours and (sid != skill_id or replace_root)}  # where the lock says
        for planned in plan:
            if lock_path is not None and not inside_lock_folder(targets[planned.id], lock_path):
                raise UnsafePathError(f"{targets[planned.id]} is outside the lock file's folder ({lock_path}), or in a "
                                      "version-control folder there: a lock names only folders inside its own; put "
                                      "the lock file in a folder above")
            if lock_path is not None and planned.id in recorded and not follow_links and \
                    leads_out_of_lock_folder(targets[planned.id], lock_path):
                raise UnsafePathError(f"{targets[planned.id]}, where {lock_path} has {planned.id}, leads out of "
                                      "the lock file's folder through a symbolic link (a lock and a link committed "
                                      "side by side could send a skill anywhere); if the link is yours, pass "
                                      "follow_links=True to write there")
            if lock_path is not None:
                _check_recordable(targets[planned.id], lock_path)
            if lock_path is not None and not is_utf8_text(planned.id):
                raise CatalogFormatError(f"{self.catalog.location}: skill id {planned.id!r} is not UTF-8 text: "
                                         "it cannot be recorded in the lock file")
        for planned in plan:
            self._check_locked_digest(planned.id, ours.get(planned.id), lock_path)
        if lock_path is not None and not overwrite and not replace_root:  # install, not update
            _check_not_locked_elsewhere(skill_id, target, lock, lock_path)
        if lock_path is not None:
            _check_not_another_s_folder(targets, lock, lock_path)
        planned_files = {p.id: self._planned_files(p, children) for p in plan}
        allowance = InstallAllowance(self.catalog.location)  # every file counted before any is fetched
        allowance.plan(skill_id, sum(len(fetches) for fetches, _ in planned_files.values()))
        fetched = {sid: ({rel: allowance.take(owner, fetch()) for rel, owner, fetch in fetches}, digest)
                   for sid, (fetches, digest) in planned_files.items()}
        folders = LockedFolders(lock, lock_path) if lock_path is not None else None
        inside = {p.id: folders.inside(p.id, targets[p.id]) if folders is not None else {}
                  for p in plan}   # kept across a replacement: the lock has them on their own
        apart = {p.id: [targets[p.id] / rel for rel in inside[p.id].values()] for p in plan}
        nested_of = functools.cache(lambda sid: nested_digest_of(fetched[sid][0]))  # each release's, hashed once
        placed = {p.id: self._placement(p, targets[p.id], fetched[p.id][1], nested_of, overwrite, ours.get(p.id),
                                        lock_path, apart[p.id], root=p.id == skill_id, replace_root=replace_root)
                  for p in plan}
        actions = {sid: placement.action for sid, placement in placed.items()}
        if refusal is not None and not placed[skill_id].holds(fetched[skill_id][1], nested_of(skill_id)):
            raise refusal
        source = source_text(self.catalog.asked_for, self.catalog.remote, lock_path) if lock_path is not None \
            else self.catalog.asked_for   # the URL asked for: a redirect, even a permanent one, is not recorded
        if lock_path is not None and not is_utf8_text(source):
            raise UnsafePathError(f"{source!r} is not UTF-8 text: it cannot be recorded in the lock file")
        for planned in plan:
            _check_room(planned, targets[planned.id], fetched[planned.id][0], inside[planned.id],
                        overwrite or actions[planned.id] == "keep")
        if lock_path is not None:  # before any folder is put in place: none may hold a release the lock misses
            check_lock_writable(lock_path)
        recorder = LockRecorder(lock_path) if lock_path is not None else None
        for planned in plan:
            files, digest = fetched[planned.id]
            if actions[planned.id] != "keep":
                self._put_dependency_or_root(planned.id == skill_id, planned.id, targets[planned.id], files, digest,
                                             replace=actions[planned.id] == "replace",
                                             carried=tuple(inside[planned.id].values()))
            if recorder is not None:
                path = lock_path_text(targets[planned.id], recorder.path)
                as_locked = actions[planned.id] == "keep" and not (refusal is not None and planned.id == skill_id)
                nested, recorded = _kept_nested(targets[planned.id], ours.get(planned.id), apart[planned.id]) \
                    if as_locked else (nested_of(planned.id), True)
                locked = LockedSkill(source, planned.version or None, digest, path, dict(planned.dependencies),
                                     requested if planned.id == skill_id else None, nested, recorded)
                recorder.record(planned.id, locked)
        return plan

    def _is_source(self, text: str, lock_path: Path | None) -> bool:
        """Whether a lock's ``source`` names this catalog: the URL asked for (or, as older locks
        recorded it, the one its redirects led to), or the same file however its path is spelt
        (through a symbolic link too: the locked digests are checked against every spelling of
        the catalog they were taken from)."""
        if lock_path is None:
            return False
        source = resolve_source(text, lock_path)
        if self.catalog.remote or "://" in source:
            return source in (self.catalog.asked_for, self.catalog.location)
        return os.path.realpath(source) == os.path.realpath(self.catalog.location)

    def _targets(self, plan: list[PlannedSkill], root: str, target: Path, locked: Mapping[str, LockedSkill],
                 lock_path: Path | None) -> dict[str, Path]:
        """Where each planned skill goes: the root at ``target``, a dependency where the lock
        has it, else beside the root; DependencyError when two would share a folder."""
        out: dict[str, Path] = {}
        going_to: dict[tuple[Any, ...], int] = {}  # each folder's :func:`_folder_keys`: its skill's place in ``out``
        for planned in plan:
            if planned.id == root:
                where = target
            elif planned.id in locked and lock_path is not None:
                where = resolve_locked_path(locked[planned.id].path, lock_path)
            else:
                where = target.parent / _dependency_folder(planned.id, root)
            keys = _folder_keys(where)
            clashes = [going_to[key] for key in keys if key in going_to]
            clash = list(out)[min(clashes)] if clashes else None  # the first of the plan, as pairwise comparing found
            if clash is not None:
                raise DependencyError(f"{clash} and {planned.id} would both be installed into {where}"
                                      f"{_why_one_folder(out[clash], where)}", planned.id)
            out[planned.id] = where
            going_to.update(dict.fromkeys(keys, len(out) - 1))
        return out

    def _planned_files(self, planned: PlannedSkill, children: bool) -> tuple[list[Fetch], str]:
        """How to fetch the verified files of a planned skill, and their digest: its release's
        files, or the current ones for a skill without releases; nested sub-skills with the
        current version."""
        entry = self.catalog.manifest_entry(planned.id)
        history = self.catalog._histories.of(entry.id)
        if history is None:
            return self._install_files(entry, children), current_digest(entry)
        self.catalog._usable(entry)
        release = self.catalog._histories.usable(entry, history.releases[planned.version])
        nested = self._nested_plan(entry) if children and planned.version == history.latest else []
        paths = [f.path for f in release.skill_files] + [rel for rel, _, _ in nested]
        self._refuse_too_deep(planned.label, paths)
        clash = _path_clash(paths)
        if clash:  # before anything is fetched: a listing that cannot be installed is refused as it is
            raise CatalogFormatError(f"{self.catalog.location}: release {planned.label} has files that clash when "
                                     f"installed: {clash}")
        releases = self.catalog._histories
        fetches: list[Fetch] = [(f.path, entry.id, functools.partial(releases.release_file, entry, release, f.path))
                                for f in release.skill_files]
        fetches += [(rel, sid, functools.partial(self.catalog.resource, sid, path)) for rel, sid, path in nested]
        return fetches, release.digest

    def _refuse_too_deep(self, what: str, paths: list[str]) -> None:
        """CatalogFormatError when one of ``paths`` (written below the skill's folder) is more than
        :data:`MAX_INSTALL_DEPTH` folders deep: the next install over it could not remove it."""
        deepest = max((path.count("/") for path in paths), default=0)
        if deepest > MAX_INSTALL_DEPTH:
            raise CatalogFormatError(f"{self.catalog.location}: installing {what} would write a file {deepest:,} "
                                     f"folders deep (over {MAX_INSTALL_DEPTH}); refusing it")

    def _check_locked_digest(self, skill_id: str, locked: LockedSkill | None, lock_path: Path | None) -> None:
        """Refuse a skill whose locked version the catalog now publishes with another digest:
        a release changed under the same version is tampered (IntegrityError)."""
        if locked is None or not locked.version:
            return
        published = self.catalog.release_digests(skill_id, exact=True).get(locked.version)
        if published is not None and published != locked.digest:
            raise IntegrityError(f"{skill_id}@{locked.version} is tampered: the catalog gives it the digest "
                                 f"{published}, but {lock_path} records {locked.digest} for that version; refusing it",
                                 locked.digest, published)

    @staticmethod
    def _placement(planned: PlannedSkill, target: Path, digest: str, nested_of: Callable[[str], str | None],
                   overwrite: bool, locked: LockedSkill | None, lock_path: Path | None, apart: Sequence[Path], *,
                   root: bool, replace_root: bool) -> _Placement:
        """What to do at ``target``: ``new`` (nothing there), ``replace`` or ``keep`` (it holds the
        planned release already, and the nested skills to be installed with it), and what the folder
        held; DestinationExistsError when it holds something else that may not be replaced.  The
        root's folder was checked by the caller (install, update).  ``digest``: the release's;
        ``nested_of``: a planned skill id -> the digest of the nested skills its files hold;
        ``apart``: the folders inside ``target`` of skills the lock records on their own."""
        if root and not replace_root:
            return _Placement("replace" if overwrite else "new")  # install() refused an existing dest unless overwrite
        if not os.path.lexists(target):
            return _Placement("replace" if root and overwrite else "new")
        present = _held(target, apart, planned.label, may_replace=overwrite or root)
        if present is None:  # a file there cannot be read, and the folder may be replaced
            if root or _holds_skill_md(target):
                return _Placement("replace")
            raise _no_skill_folder(target, planned)
        nested = nested_of(planned.id)
        if present.own == digest and (nested is None or present.holds_nested(nested)):
            # nested skills are checked when they come with it (a release not the latest has none)
            return _Placement("keep", present)
        ours = (locked is not None and lock_path is not None and not present.changed(locked)
                and resolve_locked_path(locked.path, lock_path) == target)
        if ours or root or (overwrite and _holds_skill_md(target)):
            return _Placement("replace", present)
        if overwrite:
            raise _no_skill_folder(target, planned)
        raise DestinationExistsError(f"{target} already exists and does not hold {planned.label}, the dependency "
                                     "to install there; pass overwrite=True to replace it")

    def _put_dependency_or_root(self, root: bool, skill_id: str, target: Path, files: dict[str, bytes], digest: str,
                                *, replace: bool, carried: Sequence[str] = ()) -> None:
        """Put a planned skill in place; a dependency another install put there first, with the
        same release, is left as it is.  ``carried``: see :meth:`_put_folder`."""
        try:
            self._put_folder(skill_id, target, files, overwrite=replace, carried=carried)
        except DestinationExistsError:
            if root or installed_digest(target) != digest:
                raise

    def _put_folder(self, skill_id: str, target: Path, files: dict[str, bytes], *, overwrite: bool,
                    carried: Sequence[str] = ()) -> None:
        """Write ``files`` into a new folder beside ``target`` (:mod:`.install_staging`) and put it
        in place in one step.  The folders ``carried`` (relative paths: skills installed inside
        ``target`` on their own) are copied in from ``target`` first, where ``files`` leave room."""
        try:
            make_folders(target.parent)
            with staging_folder(target) as staging:
                try:
                    write_tree(staging, files, target)
                    carry_over(target, staging, carried, files)
                    _swap_in(staging, target, overwrite)
                finally:
                    remove_path(staging)  # after a swap it holds what ``target`` held before
        except LoaderError:
            raise
        except OSError as exc:
            raise _install_error(skill_id, target, exc) from exc

    def _install_files(self, entry: ManifestEntry, children: bool) -> list[Fetch]:
        """How to fetch everything ``install`` writes (the current files); the paths are checked
        not to clash before anything is fetched (CatalogFormatError)."""
        plan = self._install_plan(entry, children)
        paths = [rel for rel, _, _ in plan]
        self._refuse_too_deep(entry.id, paths)
        clash = _path_clash(paths)
        if clash:
            raise CatalogFormatError(f"{self.catalog.location}: skill {entry.id} has files that clash when installed: "
                                     f"{clash}")
        return [(rel, skill_id, functools.partial(self.catalog.resource, skill_id, path))
                for rel, skill_id, path in plan]

    def _install_plan(self, entry: ManifestEntry, children: bool) -> list[tuple[str, str, str]]:
        """(path written, skill id, path in that skill) of every file ``install`` writes; each
        nested skill is checked, like ``entry``, before it is used."""
        return self._own_plan(entry) + (self._nested_plan(entry) if children else [])

    def _own_plan(self, entry: ManifestEntry) -> list[tuple[str, str, str]]:
        """The :meth:`_install_plan` rows of ``entry``'s own files, once the entry is checked usable."""
        self.catalog._usable(entry)
        return [("SKILL.md", entry.id, "SKILL.md")] + [(safe_relpath(r.path, "bundled file"), entry.id, r.path)
                                                       for r in entry.files]

    def published_nested_digest(self, skill_id: str) -> str | None:
        """The digest of the nested sub-skills an install of ``skill_id``'s current files puts in its
        folder, from the catalog's records (nothing fetched), as the lock's ``nested_digest`` is
        taken of them; None when it has none."""
        rows = self._nested_plan(self.catalog.manifest_entry(skill_id))
        shas = []
        for rel, owner, path in rows:
            child = self.catalog.manifest_entry(owner)
            shas.append((rel, child.sha256 if path == "SKILL.md" else next(f.sha256 for f in child.files
                                                                          if f.path == path)))
        return release_digest(shas) if shas else None

    def _nested_plan(self, entry: ManifestEntry) -> list[tuple[str, str, str]]:
        """The :meth:`_install_plan` rows of the nested sub-skills of ``entry`` (current files), each
        skill's before those of the skills nested in it, in the order of its children: walked with a
        stack of its own, as a chain of nested skills in an untrusted catalog may be longer than
        Python's recursion allows."""
        plan: list[tuple[str, str, str]] = []
        stack = [(entry, "", iter(entry.children))]
        while stack:
            parent, folder, children = stack[-1]
            child_id = next(children, None)
            if child_id is None:
                stack.pop()
                continue
            data = self.catalog._source.find(child_id) if child_id.startswith(parent.id + "/") else None
            if data is None:
                continue
            prefix = folder + safe_relpath(child_id[len(parent.id) + 1:], "sub-skill folder")
            child = self.catalog._source.checked(data)
            plan += [(f"{prefix}/{rel}", sid, path) for rel, sid, path in self._own_plan(child)]
            stack.append((child, prefix + "/", iter(child.children)))
        return plan


def _holds_skill_md(target: Path) -> bool:
    """Whether a folder a dependency would replace is a skill's (holds a SKILL.md): with overwrite,
    only such a folder is replaced (:func:`_no_skill_folder`)."""
    return os.path.isfile(target / "SKILL.md")


def _no_skill_folder(target: Path, planned: PlannedSkill) -> DestinationExistsError:
    """Why a dependency is not put over ``target``, even with overwrite: it holds no SKILL.md, and
    its name is the catalog's choice ('.ssh', 'src' beside the destination)."""
    return DestinationExistsError(f"{target} already exists and is no skill folder (it holds no SKILL.md): "
                                  f"{planned.label}, a dependency, is not installed over it, even with overwrite; "
                                  "move it, or install the skill elsewhere")


def _held(target: Path, apart: Sequence[Path], label: str, *, may_replace: bool) -> InstalledFolder | None:
    """What the folder of a planned skill holds (see :meth:`Installer._placement`); None when a
    file there cannot be read and the folder may be replaced anyway (nothing of it is needed),
    else DestinationExistsError naming that file."""
    try:
        return InstalledFolder.at(target, apart)
    except OSError as exc:
        if may_replace:
            return None
        raise DestinationExistsError(f"cannot tell whether {target} holds {label}, the dependency to install there: "
                                     f"{unreadable_text(exc)}; pass overwrite=True to replace it") from None


def _local_changes(skill_id: str, target: Path, lock: Lock, lock_path: Path) -> DestinationExistsError | None:
    """Why an update without ``overwrite`` may not replace ``target``: its files are not those the
    lock records, or one of them cannot be read, so that cannot be told; None when it may."""
    if not os.path.lexists(target):
        return None
    apart = apart_of(LockedFolders(lock, lock_path), skill_id, target)
    try:
        if not changed_locally(target, lock.skills[skill_id], apart):
            return None
        why = f"{target} has local changes (its files are not those {lock_path} records for {skill_id})"
    except OSError as exc:
        why = f"cannot tell whether {target} has local changes: {unreadable_text(exc)}"
    return DestinationExistsError(f"{why}; pass overwrite=True to replace them")


def _check_recordable(target: Path, lock_path: Path) -> None:
    """UnsafePathError unless the lock can record ``target`` as it reads it back: UTF-8 text, and
    no backslash (a lock names one folder on every system, and on Windows that is a separator)."""
    text = lock_path_text(target, lock_path)
    if not is_utf8_text(text):
        raise UnsafePathError(f"{target!r} is not UTF-8 text: it cannot be recorded in the lock file")
    if "\\" in text:
        raise UnsafePathError(f"{target} holds a backslash, a folder separator on Windows and a letter elsewhere: "
                              "it cannot be recorded in the lock file; choose a path without one")


def _check_not_locked_elsewhere(skill_id: str, target: Path, lock: Lock, lock_path: Path) -> None:
    """Refuse to install a skill the lock records in another folder that is still there: the
    lock holds one folder a skill, and that one would silently stop being updated."""
    locked = lock.skills.get(skill_id)
    if locked is None:
        return
    elsewhere = resolve_locked_path(locked.path, lock_path)
    if elsewhere != target and os.path.lexists(elsewhere):
        raise DestinationExistsError(f"{lock_path} already records {skill_id} at {elsewhere}; pass overwrite=True to "
                                     f"record it at {target} instead (the folder at {elsewhere} is then left as it "
                                     "is, and no longer updated)")


def _dependency_folder(skill_id: str, root: str) -> str:
    """The folder name a dependency of ``root`` is installed in beside it (its id's last segment);
    UnsafePathError, naming both and why, when an installer must not write it
    (:func:`~skillsite.agent.manifest_check.skill_folder_problem`): the catalog chose it."""
    problem = skill_folder_problem(skill_id)
    if problem is not None:
        raise UnsafePathError(f"dependency {skill_id!r} of {root} cannot be installed beside it: "
                              f"{problem}; refusing it")
    return safe_relpath(skill_id, "skill id").rsplit("/", 1)[-1]


def _why_one_folder(first: Path, second: Path) -> str:
    """Why two install folders with a :func:`_folder_keys` key alike are one, when their paths differ."""
    if first == second:
        return ""
    if one_spelling(str(first)) == one_spelling(str(second)):
        return " (names that differ only in case or Unicode form are one folder on macOS and Windows)"
    return f" (it is {first} on disk)"


def _folder_keys(folder: Path, *, any_spelling: bool = True) -> tuple[tuple[Any, ...], ...]:
    """What two install folders that are one have alike: their path, or, when the folder is there,
    its device and inode (the same on disk, as :func:`~skillsite.folders.same_place` tells it);
    ``any_spelling``: their names but for case and Unicode form too (one folder on macOS and
    Windows).  Keys, not a comparison of two folders: a closure of a thousand skills, or a lock
    of a thousand records, is not compared pairwise."""
    keys: tuple[tuple[Any, ...], ...] = (("spelling", one_spelling(str(folder))) if any_spelling
                                         else ("path", str(folder)),)
    try:
        found = os.stat(folder)
    except (OSError, ValueError):
        return keys
    return (*keys, ("file", found.st_dev, found.st_ino))


def _check_not_another_s_folder(targets: Mapping[str, Path], lock: Lock, lock_path: Path) -> None:
    """Refuse to install a skill into the folder the lock records for another one, overwrite or
    not: the lock holds one skill a folder, and both records would then name it (each update
    would swap the other out, and call it modified)."""
    recorded: dict[tuple[Any, ...], list[str]] = {}  # each recorded folder's keys: the skills the lock has there
    for sid, locked in lock.skills.items():
        for key in _folder_keys(resolve_locked_path(locked.path, lock_path), any_spelling=False):
            recorded.setdefault(key, []).append(sid)
    for skill_id, target in targets.items():
        owner = min((sid for key in _folder_keys(target, any_spelling=False) for sid in recorded.get(key, ())
                     if sid != skill_id), default=None)
        if owner is not None:
            raise DestinationExistsError(f"{target} is where {lock_path} records {owner}; {skill_id} cannot be "
                                         "installed there (remove that record from the lock file first, or install "
                                         f"{skill_id} elsewhere)")


class _Placement(NamedTuple):
    """What to do at a planned skill's folder (``new``, ``replace`` or ``keep``), and what the
    folder held when that was decided (None: nothing was there, or it was not looked at)."""

    action: str
    present: InstalledFolder | None = None

    def holds(self, digest: str, nested: str | None) -> bool:
        """Whether the folder held exactly the release ``digest`` with the nested skills ``nested``:
        its own files and the nested skills installed with it (those the lock has on their own aside),
        as hashed for the decision (an update's refusal of local changes is not hashed twice)."""
        return self.present is not None and self.present.own == digest and self.present.nested_with_it == nested


def _kept_nested(target: Path, locked: LockedSkill | None, apart: Sequence[Path]) -> tuple[str | None, bool]:
    """The nested skills' digest to record for a folder kept as it is, and whether it is recorded:
    as the lock recorded them (an edit there stays a local change), else as they are (those the
    lock has on their own, in the folders ``apart``, aside)."""
    if locked is not None:
        return locked.nested_digest, locked.nested_recorded
    return nested_digest(target, apart), True


def _check_room(planned: PlannedSkill, target: Path, files: Mapping[str, bytes], inside: Mapping[str, str],
                allowed: bool) -> None:
    """DestinationExistsError, unless ``allowed``, when ``files`` (to be written at ``target``)
    would take the place of a skill the lock has on its own inside it (``inside``: id -> path)."""
    for other, rel in inside.items():
        if not allowed and os.path.lexists(target.joinpath(*rel.split("/"))) and _in_the_way(rel, files):
            raise DestinationExistsError(f"{target / rel} holds {other}, installed there on its own, and "
                                         f"{planned.label} has files of its own there; pass overwrite=True to "
                                         "replace it")


def _in_the_way(rel: str, files: Iterable[str]) -> bool:
    """Whether one of ``files`` lies at, in or above the folder ``rel``."""
    return any(path == rel or path.startswith(rel + "/") or rel.startswith(path + "/") for path in files)


def _default_request(wanted: str) -> str:
    """The range a lock records for a skill installed without one: ``^`` the version installed
    (as npm records ``npm install x``), any for a skill without releases."""
    return f"^{wanted}" if parse_version(wanted) is not None else "*"


def _path_clash(paths: Sequence[str]) -> str | None:
    """How two of ``paths`` clash (one path twice, or a file where another needs a folder), or None."""
    seen: set[str] = set()
    for path in paths:
        if path in seen:
            return f"{path!r} is listed twice"
        seen.add(path)
    for path in paths:
        parts = path.split("/")
        folder = next((f for f in ("/".join(parts[:i]) for i in range(1, len(parts))) if f in seen), None)
        if folder is not None:
            return f"{path!r} clashes with {folder!r}"
    return None


def write_tree(folder: Path, files: dict[str, bytes], target: Path) -> None:
    """Write ``files`` (relative path -> bytes) under ``folder``, never outside it and never one
    over another: paths that differ only in case are one file on some file systems."""
    real_folder = os.path.realpath(folder)
    for rel, data in files.items():
        out = folder.joinpath(*rel.split("/"))
        if os.path.commonpath([os.path.realpath(out.parent), real_folder]) != real_folder:
            raise UnsafePathError(f"{rel!r} would be written outside {target}")
        try:
            make_folders(out.parent)
            with open(out, "xb") as handle:
                handle.write(data)
        except (FileExistsError, NotADirectoryError, IsADirectoryError):
            raise UnsafePathError(f"{rel!r} clashes with another file written to {target}") from None


def carry_over(old: Path, new: Path, carried: Sequence[str], files: Mapping[str, bytes]) -> None:
    """Copy each folder ``carried`` (a relative path) from ``old`` into ``new``, unless ``files``
    (written into ``new``) hold something at, in or above it: a copy, not a move, so that the
    folder is in ``old`` or in ``new`` at every instant, whatever kills the install."""
    for rel in carried:
        if _in_the_way(rel, files):
            continue
        source, dest = old.joinpath(*rel.split("/")), new.joinpath(*rel.split("/"))
        if os.path.isdir(source) and not os.path.islink(source) and not os.path.lexists(dest):
            make_folders(dest.parent)
            try:
                shutil.copytree(source, dest, symlinks=True)
            except shutil.Error as exc:  # a named pipe, a socket, a device: not copied
                path, _, why = exc.args[0][0]
                raise OSError(errno.EINVAL, f"{why}; it cannot be kept in the new folder", path) from None


def _swap_in(staging: Path, target: Path, overwrite: bool) -> None:
    """Put ``staging`` at ``target`` in one step; an existing target is replaced only when allowed."""
    if not overwrite:
        try:
            rename_no_replace(staging, target)
        except FileExistsError:
            raise DestinationExistsError(f"{_already_there(target)}; pass overwrite=True to replace it") from None
        return
    previous = replace_folder(staging, target)
    if previous is not None and previous != staging:
        remove_path(previous)


def _already_there(target: Path) -> str:
    """``target`` said to be there already; a symbolic link that leads nowhere (nothing to list
    there) is named as one."""
    what = dead_link(target)
    return f"{target} already exists" + (f" as {what}" if what else "")


def _install_error(skill_id: str, target: Path, exc: OSError) -> InstallError:
    """The loader's own error for a destination the machine would not let ``install`` write."""
    path = exc.filename or str(target)
    return InstallError(exc.errno, f"cannot install {skill_id} into {target}: {path}: {exc.strerror or exc}", path)
