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
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from skillsite.source.copies import Candidate, Comparisons, CopySettings, Fingerprint, exact_keys

#: Past this many changed skills, grouping anew costs little more than checking each of them.
MOST_CHANGED = 64
#: Past this many skills sharing a band key with the changed ones, grouping anew is as cheap.
MOST_COMPARED = 1024


@dataclass
class KeptGrouping:
    """The candidates of the last grouping (by id), its settings and its groups."""

    settings: CopySettings
    candidates: dict[str, Candidate]
    groups: list[tuple[str, ...]]

    @classmethod
    def of(cls, candidates: Sequence[Candidate], settings: CopySettings, groups: list[tuple[str, ...]]
           ) -> KeptGrouping:
        """The grouping just made of ``candidates``."""
        return cls(settings, {c.id: c for c in candidates}, groups)

    def reused(self, candidates: Sequence[Candidate], settings: CopySettings) -> list[tuple[str, ...]] | None:
        """The last groups, when they are those of ``candidates`` (see the module's docstring),
        this grouping then updated to them; None when grouping must be done anew (this one
        unchanged)."""
        now = {c.id: c for c in candidates}
        if settings != self.settings or len(now) != len(candidates):
            return None
        changed = [i for i, c in now.items() if self.candidates.get(i) != c] + \
            [i for i in self.candidates if i not in now]
        if len(changed) > MOST_CHANGED or not _same_order(self.candidates, now):
            return None
        grouped = {skill_id for group in self.groups for skill_id in group}
        if any(skill_id in grouped for skill_id in changed):
            return None
        new = [now[skill_id] for skill_id in changed if skill_id in now and skill_id not in settings.apart]
        if new and not _without_edges(new, candidates, settings):
            return None
        self.candidates = now
        return list(self.groups)


def _same_order(last: dict[str, Candidate], now: dict[str, Candidate]) -> bool:
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
