"""Installing skills from a catalog: ``install``, ``outdated``, ``update`` and the lock file."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import click

from skillsite.diagnostics import json_output, printable
from skillsite.exit_codes import EXIT_CATALOG, EXIT_ENVIRONMENT, EXIT_USAGE
from skillsite.cli.reading import (catalog_options_for, loader_error_text, open_catalog_or_error,
                                   open_catalog_or_exit, run_loader, try_loader)

if TYPE_CHECKING:  # the CLI imports the agent side only when a command runs
    from skillsite.agent.lockfile import Lock


def _say_updated(before: Lock, after: Lock, put_back: set[str]) -> set[str]:
    """Say what an update changed in the lock, and which skills it put back in a folder found
    missing (their record unchanged); returns the skills said."""
    changed = {sid for sid in after.skills if after.skills[sid] != before.skills.get(sid)}
    for sid in sorted(changed):
        old = before.skills.get(sid)
        click.echo(printable(f"{sid}: {_change_text(old, after.skills[sid])}" if old else
                             f"{sid}: installed {_version_text(after.skills[sid])}"))
    for sid in sorted(put_back - changed):
        click.echo(printable(f"{sid}: {_version_text(after.skills[sid])}, put back (its folder was missing)"))
    return changed | put_back


def _change_text(old, new) -> str:
    """What an update changed in a skill's record: its release (``1.0.0 -> 1.1.0``), or, the
    release kept, the catalog or folder it is recorded from (a dependency the lock had from
    another catalog is taken from the updated skill's), or its dependencies as the catalog lists them."""
    if old.version != new.version or old.digest != new.digest or old.nested_digest != new.nested_digest:
        return f"{_version_text(old)} -> {_version_text(new)}"
    said = [f"{what} {now} (the lock had {was})" for what, was, now in (
        ("now from", old.source, new.source), ("now at", old.path, new.path)) if was != now]
    if old.dependencies != new.dependencies:
        said.append("its dependencies recorded as its catalog lists them")
    return f"{_version_text(new)}, {', '.join(said) or 'recorded again'}"


def _version_text(locked) -> str:
    """A locked skill's version as the install commands print it."""
    return locked.version or "unversioned"


def lock_option(func):
    """The ``--lock`` option of the commands that install skills or read what was installed."""
    return click.option("--lock", "lock_file", type=click.Path(dir_okay=False, path_type=Path),
                        default=Path("skillsite-lock.json"), show_default=True,
                        help="The lock file: what was installed where, at which version and digest.")(func)


def follow_links_option(func: Callable[..., None]) -> Callable[..., None]:
    """The ``--follow-links`` option: write where the lock has a skill even through a symbolic link
    out of the lock file's folder (a skills folder linked to a shared one, the user's own)."""
    return click.option("--follow-links", is_flag=True,
                        help="Write skills the lock has in a folder reached through a symbolic link out of the lock "
                             "file's folder (only when that link is yours: a committed one could lead anywhere).")(func)


def read_lock_or_exit(lock_file: Path):
    """The lock file, or exit 2 saying why it cannot be used."""
    from skillsite.agent.lockfile import read_lock

    return run_loader(lambda: read_lock(lock_file))


def locked_id_or_exit(lock: Lock, text: str, lock_file: Path) -> str:
    """The id under which the lock holds the skill ``text`` names, in either Unicode spelling
    (:func:`~skillsite.agent.lockfile.locked_id`); a usage error (exit 2) when it holds none."""
    from skillsite.agent.lockfile import locked_id
    from skillsite.loader import NotFoundError

    try:
        return locked_id(lock, text, lock_file)
    except NotFoundError as exc:
        raise click.BadParameter(str(exc), param_hint="ID") from None


def install_spec(spec: str, catalog) -> tuple[str, str | None]:
    """The id and range ``skillsite install`` is asked for: ``spec`` whole when the catalog holds
    a skill of that id or name (ids are folder paths, and real ones hold '@': ``owner@repo/x``),
    else split at its last '@' (``owner@repo/x@^1.2``); BadParameter for a range that does not parse."""
    from skillsite.agent.semver import RangeError, parse_range

    head, at, range_text = spec.rpartition("@")
    if not at or spec in catalog or "/" in range_text:
        return spec, None
    try:
        if not range_text.strip():
            raise RangeError(f"nothing after '@' (write `{head}` or `{head}@RANGE`)")
        parse_range(range_text)
    except RangeError as exc:
        raise click.BadParameter(f"skill {spec!r}: {exc}", param_hint="ID[@RANGE]") from None
    return head, range_text


@click.command()
@click.argument("spec", metavar="ID[@RANGE]")
@catalog_options_for("_site")
# readable=False: a DEST its owner cannot open (mode 000) is the install's to judge (--overwrite replaces it, and
# without it the install says why not), not refused by click first.
@click.option("--dest", type=click.Path(file_okay=False, readable=False, path_type=Path), required=True,
              help="The skill's own folder; each skill it needs goes beside it, in a folder named after it.")
@lock_option
@click.option("--overwrite", is_flag=True, help="Replace an existing DEST, and dependencies' skill folders (with a "
              "SKILL.md) holding other files.")
@follow_links_option
def install(spec: str, source: str, cache_dir: Path | None, timeout: float, allowed_hosts: tuple[str, ...],
            dest: Path, lock_file: Path, overwrite: bool, follow_links: bool) -> None:
    """Install skill ID (the highest release in RANGE, e.g. changelog@^1.2; default: the current
    version) into DEST, after the skills it needs, verified, and record them in the lock file."""
    from skillsite.agent.lockfile import resolve_locked_path

    before = read_lock_or_exit(lock_file)
    edited = edited_skills(before, lock_file)
    catalog = open_catalog_or_exit(source, cache_dir, timeout, allowed_hosts)
    skill_id, wanted = run_loader(lambda: install_spec(spec, catalog))
    run_loader(lambda: catalog.install(skill_id, dest, overwrite, version=wanted, lock=lock_file,
                                       follow_links=follow_links))
    after = read_lock_or_exit(lock_file)
    for sid, locked in sorted(after.skills.items()):
        if before.skills.get(sid) != locked:
            where = resolve_locked_path(locked.path, lock_file)
            click.echo(printable(f"installed {sid}{'@' + locked.version if locked.version else ''} into {where}"))
    say_replaced(edited)
    click.echo(f"recorded in {lock_file}")


def say_replaced(edited: dict[str, tuple[Path, Any]]) -> dict[str, tuple[Path, Any]]:
    """Name each edited skill (:func:`edited_skills`) whose folder an install replaced (--overwrite);
    the others, still edited, are returned (for the next install of the same command)."""
    kept = {}
    for sid, (where, held) in sorted(edited.items()):
        now = _folder_held(where)
        if now is None or held is not None and now.same_files(held):  # unreadable still, or as it was
            kept[sid] = (where, held)
        elif held is None:
            click.echo(printable(f"replaced {sid} in {where}: some of its files could not be read, so any changes "
                                 "made there are gone"))
        else:
            click.echo(printable(f"replaced {sid} in {where}: the changes made there since it was installed are gone"))
    return kept


def edited_skills(lock: Any, lock_file: Path) -> dict[str, tuple[Path, Any]]:
    """The locked skills whose folder holds something other than the locked files (edited in
    place, or no skill at all): their folder and what it holds now (an
    :class:`~skillsite.agent.installed.InstalledFolder`; None when a file there cannot be read,
    so whether it was edited is unknown), so that replacing one can be said."""
    from skillsite.agent.installed import apart_of
    from skillsite.agent.lockfile import LockedFolders, resolve_locked_path

    found = {}
    folders = LockedFolders(lock, lock_file)
    for sid, locked in lock.skills.items():
        where = resolve_locked_path(locked.path, lock_file)
        if not os.path.lexists(where):
            continue
        held = _folder_held(where, apart_of(folders, sid, where))
        if held is None or held.changed(locked):
            found[sid] = (where, held)
    return found


def _folder_held(where: Path, apart: list[Path] | None = None) -> Any:
    """What an installed folder holds (an :class:`~skillsite.agent.installed.InstalledFolder`), or
    None when one of its files cannot be read: an install that replaces it needs none of them."""
    from skillsite.agent.installed import InstalledFolder

    try:
        return InstalledFolder.at(where, apart or [])
    except OSError:
        return None


def missing_skills(lock: Lock, lock_file: Path) -> set[str]:
    """The locked skills whose folder is gone (``update`` puts them back)."""
    from skillsite.agent.lockfile import resolve_locked_path

    return {sid for sid, locked in lock.skills.items()
            if not os.path.lexists(resolve_locked_path(locked.path, lock_file))}


@click.command()
@click.argument("skill_id", metavar="[ID]", required=False)
@lock_option
@catalog_options_for(None)
@click.option("--json", "as_json", is_flag=True,
              help="Print a JSON list of {id, status, version, wanted, latest, ranges, detail}.")
def outdated(skill_id: str | None, lock_file: Path, source: str | None, cache_dir: Path | None, timeout: float,
             allowed_hosts: tuple[str, ...], as_json: bool) -> None:
    """Say, for each skill of the lock file (or ID alone), whether its catalog has an update within
    the locked ranges, a newer release outside them, the same version with another digest
    (tampered), or whether its installed files were modified.  Exit 1 when a skill is tampered or
    its catalog could not be read (the other catalogs' skills are still checked)."""
    from skillsite.agent.lockfile import LockedFolders
    from skillsite.agent.outdated import PROBLEMS

    lock = read_lock_or_exit(lock_file)
    asked = [locked_id_or_exit(lock, skill_id, lock_file)] if skill_id is not None else sorted(lock.skills)
    folders, opened = LockedFolders(lock, lock_file), {}   # each path resolved, each catalog opened, once
    states = [_locked_state(lock, lock_file, sid, source, cache_dir, timeout, allowed_hosts, opened, folders)
              for sid in asked]
    if as_json:
        click.echo(json_output([s.to_json() for s in states]))
    elif not states:
        click.echo(f"{lock_file} holds no skills.")
    else:
        rows = [("ID", "LOCKED", "WANTED", "LATEST", "STATUS")] + [
            (s.id, s.version or "-", s.wanted or "-", s.latest or "-", s.status) for s in states]
        rows = [tuple(printable(cell) for cell in row) for row in rows]
        widths = [max(len(row[i]) for row in rows) for i in range(4)]
        for row in rows:
            click.echo("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[4])
        for s in states:
            if s.detail and s.status not in ("up-to-date",):
                click.echo(printable(f"{s.id}: {s.status}: {s.detail}"))
    sys.exit(EXIT_CATALOG if any(s.status in PROBLEMS for s in states) else 0)


def _locked_state(lock, lock_file: Path, skill_id: str, source: str | None, cache_dir: Path | None, timeout: float,
                  allowed_hosts: tuple[str, ...], opened: dict, folders):
    """The :class:`~skillsite.agent.outdated.SkillState` of one locked skill (its catalog opened once,
    or found unreadable once: then its skills could not be checked; ``folders``: the lock's
    :class:`~skillsite.agent.lockfile.LockedFolders`)."""
    from skillsite.agent.installed import InstalledFolder, apart_of, unreadable_text
    from skillsite.agent.lockfile import resolve_locked_path, resolve_source
    from skillsite.agent.install import Installer
    from skillsite.agent.outdated import UNKNOWN, locked_asks, skill_state, unchecked_state
    from skillsite.loader import LoaderError

    locked = lock.skills[skill_id]
    where = source or resolve_source(locked.source, lock_file)
    if where not in opened:
        opened[where] = open_catalog_or_error(where, cache_dir, timeout, allowed_hosts)
        if opened[where][0] is None:
            click.echo(f"skillsite: {opened[where][1]}; its skills could not be checked", err=True)
    catalog, error = opened[where]
    digests, error = _release_digests(catalog, skill_id) if catalog is not None else (None, error)
    folder = resolve_locked_path(locked.path, lock_file)
    try:
        installed, unreadable = InstalledFolder.at(folder, apart_of(folders, skill_id, folder)), ""
    except OSError as exc:  # a file that cannot be read: this skill is modified, the others still checked
        installed, unreadable = InstalledFolder(None, None, None), unreadable_text(exc)
    nested_changed = installed.own is not None and installed.nested_changed(locked)
    if error:
        return unchecked_state(skill_id, locked, locked_asks(lock, skill_id), where, error, installed.own,
                               nested_changed, unreadable)

    def published_nested():
        try:
            return Installer(catalog).published_nested_digest(skill_id)
        except LoaderError:  # a nested skill the catalog may not serve here: not compared
            return UNKNOWN

    return skill_state(skill_id, locked, locked_asks(lock, skill_id), digests, installed.own, nested_changed,
                       published_nested() if digests is not None else UNKNOWN, unreadable)


def _release_digests(catalog, skill_id: str):
    """``(digests, "")`` of a locked skill's releases (None when the catalog lacks it), or
    ``(None, why)`` when they could not be read; loader warnings go to stderr."""
    from skillsite.loader import LoaderError, NotFoundError

    def published():
        try:
            return catalog.release_digests(skill_id, exact=True), ""  # a lock's id, never another's name
        except NotFoundError:
            return None, ""
        except LoaderError as exc:
            return None, loader_error_text(exc)
    return run_loader(published)


@click.command()
@click.argument("skill_id", metavar="[ID]", required=False)
@lock_option
@catalog_options_for(None, with_catalog=False)
@click.option("--overwrite", is_flag=True, help="Replace installed files that were changed locally.")
@follow_links_option
def update(skill_id: str | None, lock_file: Path, cache_dir: Path | None, timeout: float,
           allowed_hosts: tuple[str, ...], overwrite: bool, follow_links: bool) -> None:
    """Re-install ID (default: every skill installed by name) and the skills it needs at the highest
    releases the locked ranges allow, from the catalogs the lock records; a release whose
    digest changed under the same version (tampered) is refused.  The lock keeps its ranges.  Every
    target is tried; the exit status is the most severe met: 3 a write refused, 2 an unusable lock, 1 a catalog."""
    from skillsite.agent.lockfile import resolve_source

    lock = read_lock_or_exit(lock_file)
    if skill_id is not None:
        skill_id = locked_id_or_exit(lock, skill_id, lock_file)
    named = sorted(sid for sid, locked in lock.skills.items() if locked.requested)
    targets = [skill_id] if skill_id else named or sorted(lock.skills)
    sources = {target: resolve_source(lock.skills[target].source, lock_file) for target in targets}
    opened: dict[str, Any] = {}
    status = 0
    edited = edited_skills(lock, lock_file)  # the installed files are hashed once, not once a target
    missing = missing_skills(lock, lock_file)
    for target in targets:
        before = read_lock_or_exit(lock_file)
        catalog = _catalog_once(sources, target, opened, cache_dir, timeout, allowed_hosts)
        if catalog is None:  # the other targets are still updated, as outdated still checks them
            status = worst_status(status, EXIT_CATALOG)
            continue
        _, code = try_loader(lambda: catalog.update(target, lock_file, overwrite=overwrite, follow_links=follow_links),
                             "skillsite update")
        still_edited = say_replaced(edited)
        status = worst_status(status, code)
        after = read_lock_or_exit(lock_file)
        said = _say_updated(before, after, missing & set(after.skills) - missing_skills(after, lock_file))
        missing -= said
        if not code and target not in said | set(edited) - set(still_edited):
            click.echo(printable(f"{target}: {_version_text(after.skills[target])}, up to date"))
        edited = still_edited
    sys.exit(status)


def _catalog_once(sources: dict[str, str], target: str, opened: dict[str, Any], cache_dir: Path | None,
                  timeout: float, allowed_hosts: tuple[str, ...]) -> Any:
    """The catalog ``update`` takes ``target`` from (``sources``: each target's, resolved), opened
    once a run and kept in ``opened``; None when it cannot be, which is said once, naming every
    target it leaves not updated (a lock of many skills from one unreachable host is one line)."""
    where = sources[target]
    if where not in opened:
        opened[where], error = open_catalog_or_error(where, cache_dir, timeout, allowed_hosts)
        if opened[where] is None:
            left = [printable(t) for t in sources if sources[t] == where]
            click.echo(f"skillsite: {error}; {', '.join(left)} {'was' if len(left) == 1 else 'were'} not updated",
                       err=True)
    return opened[where]


#: The statuses a target of ``update`` can fail with, least severe first: a catalog problem, an
#: unusable lock file, the machine refusing a write (docs/commands.md).
_SEVERITY = (0, EXIT_CATALOG, EXIT_USAGE, EXIT_ENVIRONMENT)


def worst_status(status: int, code: int) -> int:
    """The more severe of two exit statuses: ``update`` ends with the worst its targets met, so
    that a CI script reading it learns of a lock to mend or a machine refusing, not only "failed"."""
    return max(status, code, key=_SEVERITY.index)
