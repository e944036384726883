"""Which version of each skill an install writes: the skill asked for and the closure of its
dependencies, one version per skill, dependencies first (standard library only).

Each skill gets the highest release that satisfies every range asking for it: the request's,
the ranges of the chosen releases of the skills that depend on it, those of the ``others``
(skills already installed, as a lock file records them) that the plan leaves as they are, and
the range an installed skill the plan reaches was itself installed with (``held``).
Choosing a version changes which ranges its own dependencies see, so the choice is repeated
until it settles (a conflict seen on the way, asked by a release not chosen in the end, is no
error).  When no release
satisfies every range, :class:`DependencyError` names each range and who asked for it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

from skillsite.agent.errors import DependencyError
from skillsite.agent.semver import Range, RangeError, Version, parse_range, parse_version

#: Who asks for the skill named on the command line (or passed to ``Catalog.install``).
REQUEST = "the install request"
#: The version key of a skill published without releases (no semantic version): only its current files.
UNVERSIONED = ""
#: Ranges an unversioned skill satisfies: those that ask for no version at all.
_ANY = frozenset(("", "*", "x", "X"))
MAX_ROUNDS = 100

#: (dependency id, range) pairs of one release.
Needs = Sequence[tuple[str, str]]
#: A skill's releases, version -> what that release needs; None when the catalog has no such skill.
ReleasesOf = Callable[[str], "Mapping[str, Needs] | None"]


@dataclass(frozen=True)
class Ask:
    """One range asking for a skill, and who asks (``a@1.2.0``, or :data:`REQUEST`)."""

    who: str
    range: str

    def __str__(self) -> str:
        return f"{self.range} (asked by {self.who})"


@dataclass(frozen=True)
class PlannedSkill:
    """A skill to install: the version chosen (:data:`UNVERSIONED` for a skill without releases),
    the dependencies of that release and the ranges that asked for it."""

    id: str
    version: str
    dependencies: tuple[tuple[str, str], ...]
    asks: tuple[Ask, ...]

    @property
    def label(self) -> str:
        return label(self.id, self.version)


def label(skill_id: str, version: str) -> str:
    """``id@version``, or the id alone for an unversioned skill."""
    return f"{skill_id}@{version}" if version else skill_id


def plan_install(requests: Sequence[tuple[str, Ask]], releases_of: ReleasesOf,
                 others: Mapping[str, tuple[str, Needs]] | None = None,
                 held: Mapping[str, Ask] | None = None) -> list[PlannedSkill]:
    """The skills to install for ``requests`` ((skill id, ask) pairs), dependencies first.
    ``others``: skills installed already, id -> (``id@version``, what it needs); one the plan
    does not reach keeps asking for its ranges.  ``held``: the range each installed skill was
    installed with, which still asks of it when the plan reaches it as a dependency (a request
    names its own range).  DependencyError when a skill is missing, no release satisfies every
    range, or the dependencies form a cycle."""
    found: dict[str, Mapping[str, Needs]] = {}

    def releases(skill_id: str, ask: Ask) -> Mapping[str, Needs]:
        if skill_id not in found:
            known = releases_of(skill_id)
            if known is None:
                raise DependencyError(f"{ask.who} needs {skill_id} ({ask.range}), but the catalog has no skill "
                                      f"{skill_id!r}", skill_id, ((ask.who, ask.range),))
            found[skill_id] = known
        return found[skill_id]

    def pick(skill_id: str, ranges: Sequence[Ask]) -> str:
        return _pick(skill_id, ranges, releases(skill_id, ranges[0]))

    chosen: dict[str, str] = {}
    for _ in range(MAX_ROUNDS):
        asks = _asks(requests, chosen, lambda sid: found[sid], others or {}, pick)
        _hold(asks, held or {}, {sid for sid, _ in requests})
        picked: dict[str, str] = {}
        failed: list[DependencyError] = []
        for sid, ranges in asks.items():
            try:
                picked[sid] = pick(sid, ranges)
            except DependencyError as exc:  # maybe asked by a release the next round drops
                failed.append(exc)
        if picked == chosen:
            if failed:
                raise failed[0]
            return _in_order([sid for sid, _ in requests], chosen, found, asks)
        chosen = picked
    raise DependencyError("the dependency ranges do not settle on one version per skill: "
                          + ", ".join(label(s, v) for s, v in sorted(chosen.items())))


def _asks(requests: Sequence[tuple[str, Ask]], chosen: Mapping[str, str],
          releases: Callable[[str], Mapping[str, Needs]],
          others: Mapping[str, tuple[str, Needs]],
          pick: Callable[[str, Sequence[Ask]], str]) -> dict[str, list[Ask]]:
    """Every range asking for each skill reached from the requests through the chosen releases
    (a skill not chosen yet through the release ``pick`` gives it for the ranges seen so far, so
    one round reaches the whole closure however deep), and the ranges the ``others`` left out
    of the plan ask of them."""
    asks: dict[str, list[Ask]] = {}
    for skill_id, ask in requests:
        asks.setdefault(skill_id, []).append(ask)
    queue = list(asks)
    for skill_id in queue:
        try:
            version = chosen[skill_id] if skill_id in chosen else pick(skill_id, asks[skill_id])
        except DependencyError:
            continue  # the round's own pick, over every range asking for it, says why
        for dep, wanted in releases(skill_id)[version]:
            if dep not in asks:
                asks[dep] = []
                queue.append(dep)
            asks[dep].append(Ask(label(skill_id, version), wanted))
    for other, (who, needs) in others.items():
        if other not in asks:
            for dep, wanted in needs:
                if dep in asks:
                    asks[dep].append(Ask(f"{who} (installed)", wanted))
    return asks


def _hold(asks: dict[str, list[Ask]], held: Mapping[str, Ask], requested: set[str]) -> None:
    """Add to ``asks`` the range each reached skill was installed with, but for those requested."""
    for skill_id, ranges in asks.items():
        if skill_id in held and skill_id not in requested:
            ranges.append(held[skill_id])


def _pick(skill_id: str, asks: Sequence[Ask], releases: Mapping[str, Needs]) -> str:
    """The highest release of ``skill_id`` that satisfies every ask; DependencyError otherwise."""
    versions = [v for v in releases if v != UNVERSIONED]
    if not versions:
        if all(a.range.strip() in _ANY for a in asks):
            return UNVERSIONED
        raise DependencyError(f"{skill_id} has no versioned release, but {_listed(asks)} asks for a version",
                              skill_id, _pairs(asks))
    # each range parsed once and each version once: a popular skill with many releases and many
    # skills asking for it would otherwise cost releases x asks parses in every round
    ranges = {a.range: _range(skill_id, a) for a in asks}
    parsed = [(v, version) for v in versions if (version := parse_version(v)) is not None]
    for rng in ranges.values():
        parsed = [(v, version) for v, version in parsed if rng.matches(version)]
    matching = [v for v, _ in parsed]
    if not matching:
        ordered = sorted(versions, key=_precedence)
        which = "every range asking for it: " if len(asks) > 1 else ""
        raise DependencyError(f"no release of {skill_id} satisfies {which}{_listed(asks)}; its releases: "
                              f"{', '.join(ordered)}", skill_id, _pairs(asks))
    return max(matching, key=_precedence)


def _range(skill_id: str, ask: Ask) -> Range:
    try:
        return parse_range(ask.range)
    except RangeError as exc:
        raise DependencyError(f"{ask.who} asks for {skill_id} with the range {ask.range!r}, which does not parse "
                              f"({exc})", skill_id, ((ask.who, ask.range),)) from None


def _precedence(version: str) -> Version:
    return parse_version(version)


def _listed(asks: Iterable[Ask]) -> str:
    return ", ".join(str(a) for a in asks)


def _pairs(asks: Iterable[Ask]) -> tuple[tuple[str, str], ...]:
    return tuple((a.who, a.range) for a in asks)


def _in_order(roots: Sequence[str], chosen: Mapping[str, str], found: Mapping[str, Mapping[str, Needs]],
              asks: Mapping[str, Sequence[Ask]]) -> list[PlannedSkill]:
    """The chosen skills, each after its dependencies; DependencyError on a cycle.  A depth-first
    walk with its own stack (a chain in an untrusted catalog may be thousands of skills long)."""
    done: dict[str, PlannedSkill] = {}
    path: list[str] = []
    on_path: set[str] = set()
    for root in roots:
        stack = [(root, 0)]
        while stack:
            skill_id, at = stack.pop()
            needs = tuple(found[skill_id][chosen[skill_id]])
            if at == 0:
                if skill_id in done:
                    continue
                if skill_id in on_path:
                    cycle = path[path.index(skill_id):] + [skill_id]
                    raise DependencyError("dependency cycle: " + " -> ".join(label(s, chosen[s]) for s in cycle),
                                          skill_id)
                path.append(skill_id)
                on_path.add(skill_id)
            if at < len(needs):
                stack += [(skill_id, at + 1), (needs[at][0], 0)]
                continue
            path.pop()
            on_path.discard(skill_id)
            done[skill_id] = PlannedSkill(skill_id, chosen[skill_id], needs, tuple(asks[skill_id]))
    return list(done.values())
