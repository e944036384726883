"""``skillsite outdated``: how each skill of a lock file stands against its catalog now
(standard library only).

A locked skill is ``tampered`` when the catalog publishes its locked version with another
digest (an update refuses it), ``missing`` when its folder is gone, ``modified`` when the
folder's files are not the ones locked, ``not-in-catalog`` when the catalog no longer has the
skill or its locked release, ``update-available`` when a newer release satisfies every range
the lock asks of it (the range it was installed with, those of the locked skills that need
it) or the locked one satisfies not all and an older one does, ``newer-out-of-range`` when
only releases outside those ranges are newer, else ``up-to-date``.  The first that applies is
its status.  A skill whose catalog could not be read (unreachable with nothing cached, refused)
is ``could-not-check``, saying why; the skills of the lock's other catalogs are still checked.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from skillsite.agent.install_plan import REQUEST, UNVERSIONED, Ask, label
from skillsite.agent.lockfile import Lock, LockedSkill
from skillsite.agent.semver import RangeError, parse_version, satisfies

UNCHECKED = "could-not-check"
STATUSES = (UNCHECKED, "tampered", "missing", "modified", "not-in-catalog", "update-available",
            "newer-out-of-range", "up-to-date")
#: Statuses that are problems: ``skillsite outdated`` exits 1 when a skill has one.
PROBLEMS = frozenset(("tampered", UNCHECKED))


@dataclass(frozen=True)
class SkillState:
    """One locked skill against its catalog: its status, the versions at stake and why."""

    id: str
    status: str
    version: str | None          # the locked version
    wanted: str | None           # the highest release every locked range allows
    latest: str | None           # the highest release
    asks: tuple[Ask, ...]
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "status": self.status, "version": self.version, "wanted": self.wanted,
                "latest": self.latest, "ranges": [{"range": a.range, "asked_by": a.who} for a in self.asks],
                "detail": self.detail}


def locked_asks(lock: Lock, skill_id: str) -> list[Ask]:
    """Every range the lock asks of a skill: the one it was installed with, then those of the
    locked skills that need it (by id)."""
    locked = lock.skills[skill_id]
    asks = [Ask(REQUEST, locked.requested)] if locked.requested else []
    for other in sorted(lock.skills):
        wanted = lock.skills[other].dependencies.get(skill_id)
        if wanted is not None and other != skill_id:
            asks.append(Ask(label(other, lock.skills[other].version or UNVERSIONED), wanted))
    return asks


#: ``published_nested`` when the catalog's nested skills could not be told: they are not compared.
UNKNOWN = "unknown"


def skill_state(skill_id: str, locked: LockedSkill, asks: list[Ask], published: Mapping[str, str] | None,
                installed: str | None, nested_changed: bool = False,
                published_nested: str | None = UNKNOWN, unreadable: str = "") -> SkillState:
    """The state of a locked skill.  ``published``: version -> digest of its releases now
    (:meth:`Catalog.release_digests`), None when the catalog lacks the skill; ``installed``: the
    digest of its folder now (None when there is none); ``nested_changed``: whether the nested
    skills installed with it changed (:meth:`~skillsite.agent.installed.InstalledFolder.nested_changed`);
    ``published_nested``: the digest of the nested skills an install of its current files brings
    (:meth:`~skillsite.agent.install.Installer.published_nested_digest`); ``unreadable``: why
    the folder could not be hashed (a file that cannot be read), which makes it ``modified``."""
    versions = sorted((v for v in (published or {}) if v), key=parse_version)
    latest = versions[-1] if versions else None
    wanted = _wanted(versions, asks)
    status, detail = _status(locked, published, installed, wanted, latest, nested_changed, unreadable)
    if status == "up-to-date" and _nested_moved(locked, latest, published_nested):
        status, detail = "update-available", "the catalog's nested skills of this release changed"
    return SkillState(skill_id, status, locked.version, wanted, latest, tuple(asks), detail)


def unchecked_state(skill_id: str, locked: LockedSkill, asks: list[Ask], catalog: str, reason: str,
                    installed: str | None, nested_changed: bool = False, unreadable: str = "") -> SkillState:
    """The state of a locked skill whose catalog could not be read: ``could-not-check``, saying
    why, and what its folder says (missing or modified) when it says anything."""
    detail = f"its catalog {catalog} could not be read: {reason}"
    local, why = _status(locked, None, installed, None, None, nested_changed, unreadable)
    if local in ("missing", "modified"):
        detail += f"; {local}: {why}"
    return SkillState(skill_id, UNCHECKED, locked.version, None, None, tuple(asks), detail)


def _nested_moved(locked: LockedSkill, latest: str | None, published_nested: str | None) -> bool:
    """Whether the nested skills an update would install differ from those the lock records
    (compared when the lock records them and the locked release is the current one, which is
    the one installed with its nested skills)."""
    current = not locked.version or locked.version == latest
    return (published_nested != UNKNOWN and locked.nested_recorded and current
            and published_nested != locked.nested_digest)


def _wanted(versions: list[str], asks: list[Ask]) -> str | None:
    """The highest of ``versions`` that satisfies every ask (None when none does, or a range does not parse)."""
    try:
        matching = [v for v in versions if all(satisfies(v, a.range) for a in asks)]
    except RangeError:
        return None
    return matching[-1] if matching else None


def _status(locked: LockedSkill, published: Mapping[str, str] | None, installed: str | None,
            wanted: str | None, latest: str | None, nested_changed: bool = False,
            unreadable: str = "") -> tuple[str, str]:
    """The first status that applies, and a sentence saying why."""
    key = locked.version or UNVERSIONED
    if published is not None and locked.version and published.get(key) not in (None, locked.digest):
        return "tampered", (f"the catalog now publishes {locked.version} with the digest {published[key]}, the lock "
                            f"records {locked.digest}; refusing it")
    if unreadable:
        return "modified", f"cannot tell whether the files at {locked.path} are the ones locked: {unreadable}"
    if installed is None:
        return "missing", f"nothing is installed at {locked.path}"
    if installed != locked.digest:
        return "modified", f"the files at {locked.path} are not the ones locked ({installed}, locked {locked.digest})"
    if nested_changed:
        return "modified", f"the nested skills installed in {locked.path} are not the ones locked"
    if published is None:
        return "not-in-catalog", "the catalog no longer has this skill"
    if not locked.version:
        if UNVERSIONED not in published:
            return "update-available", f"the skill now has versions, up to {latest}"
        if published[UNVERSIONED] != locked.digest:
            return "update-available", "the catalog's files changed (this skill has no versions)"
        return "up-to-date", ""
    if key not in published:
        return "not-in-catalog", f"the catalog no longer publishes release {locked.version}"
    current = parse_version(locked.version)
    if wanted is not None and current is not None and parse_version(wanted) > current:
        return "update-available", f"{wanted} satisfies every locked range"
    if wanted is not None and current is not None and parse_version(wanted) < current:
        return "update-available", f"{locked.version} is outside the locked ranges; {wanted} satisfies every one"
    if latest is not None and current is not None and parse_version(latest) > current:
        return "newer-out-of-range", f"{latest} is newer, outside the locked ranges"
    return "up-to-date", ""
