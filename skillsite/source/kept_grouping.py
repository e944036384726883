"""The last grouping of copies, kept by a long-running process (``serve``) for its next build.

Grouping (:func:`~skillsite.source.copies.group_copies`) reads every skill's fingerprint: its
exact keys (SKILL.md bytes, body, name and description) and its sixteen LSH band keys, and
compares the skills that share a band key.  A group is a connected part of the graph whose edges
join two skills sharing an exact key, or sharing a band key and found alike.  So a skill that
changed (or came, or went) changes no group when it was in none before and has no edge now: it
shares no exact key with another skill, and is alike none of those it shares a band key with.
Every other skill keeps its keys and its edges.  Most edits are of such skills (few skills are
copies); the last groups are then the answer, after one look at each skill's keys instead of
grouping every skill again.  Any other change is grouped anew.

A grouping is kept in the cache as well (:meth:`KeptGrouping.to_json`), where a build or
``validate`` in a process of its own takes it again.  There it knows each skill by its
:data:`Identity`, not its fingerprint: what its fingerprint is made of (its name and its
SKILL.md's bytes) and the rest of its candidate.  A long-running process compares its
candidates themselves: an unchanged skill's is the very object it grouped.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from skillsite.source.copies import Candidate, Comparisons, CopySettings, Fingerprint, exact_keys

#: Past this many changed skills, grouping anew costs little more than checking each of them.
MOST_CHANGED = 64
#: Past this many skills sharing a band key with the changed ones, grouping anew is as cheap.
MOST_COMPARED = 1024


#: What grouping reads of a skill, as a kept grouping knows it: its fingerprint's name and
#: SKILL.md digest (a fingerprint is made of its name and of the bytes its description and body
#: are read from), its root's place, its priority, and whether it is offered and listed.
Identity = tuple[str, str, int, int, bool, bool]


def identity(candidate: Candidate) -> Identity:
    """What grouping reads of ``candidate`` (see :data:`Identity`)."""
    return (candidate.fingerprint.name, candidate.fingerprint.raw_sha, candidate.source, candidate.priority,
            candidate.offered, candidate.listed)


@dataclass
class KeptGrouping:
    """The last grouping: its settings, each candidate (by id, in the order grouped: the
    candidate itself, or its :data:`Identity` when read from the cache) and its groups.
    ``updated``: whether the last :meth:`reused` took the groups for changed candidates."""

    settings: CopySettings
    known: dict[str, Candidate | Identity]
    groups: list[tuple[str, ...]]
    updated: bool = False

    @classmethod
    def of(cls, candidates: Sequence[Candidate], settings: CopySettings, groups: list[tuple[str, ...]]
           ) -> KeptGrouping:
        """The grouping just made of ``candidates``."""
        return cls(settings, {c.id: c for c in candidates}, groups)

    def to_json(self) -> dict[str, Any]:
        settings = self.settings
        return {"settings": [settings.group, settings.similarity, list(settings.prefer), sorted(settings.apart),
                             settings.versions],
                "known": [[skill_id, *_identity_of(known)] for skill_id, known in self.known.items()],
                "groups": [list(group) for group in self.groups]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> KeptGrouping:
        group, similarity, prefer, apart, versions = data["settings"]
        return cls(CopySettings(group, similarity, tuple(prefer), frozenset(apart), versions),
                   {skill_id: (name, raw_sha, source, priority, offered, listed)
                    for skill_id, name, raw_sha, source, priority, offered, listed in data["known"]},
                   [tuple(group) for group in data["groups"]])

    def reused(self, candidates: Sequence[Candidate], settings: CopySettings) -> list[tuple[str, ...]] | None:
        """The last groups, when they are those of ``candidates`` (see the module's docstring),
        this grouping then updated to them; None when grouping must be done anew (this one
        unchanged)."""
        now = {c.id: c for c in candidates}
        if settings != self.settings or len(now) != len(candidates):
            return None
        changed = [i for i, c in now.items() if not _knew(self.known.get(i), c)] + \
            [i for i in self.known if i not in now]
        if len(changed) > MOST_CHANGED or not _same_order(self.known, now):
            return None
        grouped = {skill_id for group in self.groups for skill_id in group}
        if any(skill_id in grouped for skill_id in changed):
            return None
        changed_ids = frozenset(changed)
        new = [c for c in candidates if c.id in changed_ids and c.id not in settings.apart]
        if new and not _without_edges(new, candidates, settings):
            return None
        self.known, self.updated = now, bool(changed)
        return list(self.groups)


def _identity_of(known: Candidate | Identity) -> Identity:
    """The :data:`Identity` of what a grouping knew of a skill (the candidate, or its identity read from the cache)."""
    return known if isinstance(known, tuple) else identity(known)


def _knew(known: Candidate | Identity | None, candidate: Candidate) -> bool:
    """Whether a grouping that knew a skill as ``known`` knew ``candidate`` as it is: the very
    object (a long-running process keeps each unchanged skill's), else alike in all grouping reads."""
    return known is candidate or (known is not None and _identity_of(known) == identity(candidate))


def _same_order(last: dict[str, Any], now: dict[str, Candidate]) -> bool:
    """Whether the skills in both are in the same order: grouping buckets the first member of an
    exact group of each set of band keys, so the order of two such members may decide a group
    (discovery sorts skills by id, so in a build it never changes)."""
    return [i for i in last if i in now] == [i for i in now if i in last]


def _without_edges(new: Sequence[Candidate], candidates: Sequence[Candidate], settings: CopySettings) -> bool:
    """Whether none of ``new`` (changed skills, not kept apart) shares an exact key with another
    of ``candidates``, nor is alike one it shares a band key with."""
    owners = {key: changed.id for changed in new for key in exact_keys(changed.fingerprint, settings.versions)}
    owned = frozenset(sha for _, sha in owners)
    changed_bands = [(changed, frozenset(changed.fingerprint.bands)) for changed in new]
    bands = frozenset().union(*(each for _, each in changed_bands))
    compared = Comparisons(settings.similarity, remember=False)
    mates = 0
    for other in candidates:
        if other.id in settings.apart:
            continue
        if any(owners.get(key, other.id) != other.id for key in _exact_of(other.fingerprint, owned, settings)):
            return False
        if bands.isdisjoint(other.fingerprint.bands):
            continue
        for changed, its_bands in changed_bands:
            if changed.id != other.id and not its_bands.isdisjoint(other.fingerprint.bands):
                mates += 1
                if mates > MOST_COMPARED or compared.alike(changed.fingerprint, other.fingerprint):
                    return False
    return True


def _exact_of(p: Fingerprint, owned: frozenset[str], settings: CopySettings) -> list[tuple[str, str]]:
    """The exact keys of ``p`` when one of its digests is among ``owned`` (those of the changed
    skills' exact keys), else none: the list is made only for a skill that may share a key (most
    share none, and this runs for every skill)."""
    if p.raw_sha in owned or p.body_sha in owned or p.about_sha in owned:
        return exact_keys(p, settings.versions)
    return []
