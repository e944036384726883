"""The last grouping of copies, kept by a long-running process (``serve``) for its next build.

Grouping (:func:`~skillsite.source.copies.group_copies`) reads every skill's fingerprint: its
exact keys (SKILL.md bytes, body, name and description) and its sixteen LSH band keys, and
compares the skills that share one.  A group is a connected part of the graph whose edges join
two skills sharing an exact key, or sharing a band key and found alike.  So a skill that changed
(or came, or went) changes no group when it was in none before and shares no key with any other
skill now: it has no edge before or after, and every other skill keeps its keys and edges.  Most
edits are of such skills (few skills are copies); the last groups are then the answer, without
reading every fingerprint again.  Any other change is grouped anew.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Hashable, Sequence

from skillsite.source.copies import Candidate, CopySettings, exact_keys

#: Past this many changed skills, grouping anew costs little more than checking each of them.
MOST_CHANGED = 64


@dataclass
class KeptGrouping:
    """The candidates of the last grouping (by id), its settings, its groups, and how many of the
    grouped candidates (those not kept ``apart``) hold each exact and band key."""

    settings: CopySettings
    candidates: dict[str, Candidate]
    groups: list[tuple[str, ...]]
    holders: Counter[Hashable]

    @classmethod
    def of(cls, candidates: Sequence[Candidate], settings: CopySettings, groups: list[tuple[str, ...]]
           ) -> KeptGrouping:
        """The grouping just made of ``candidates``."""
        holders: Counter[Hashable] = Counter()
        for candidate in candidates:
            holders.update(_keys(candidate, settings))
        return cls(settings, {c.id: c for c in candidates}, groups, holders)

    def reused(self, candidates: Sequence[Candidate], settings: CopySettings) -> list[tuple[str, ...]] | None:
        """The last groups, when they are those of ``candidates`` (see the module's docstring),
        this grouping then updated to them; None when grouping must be done anew (this one
        unchanged)."""
        now = {c.id: c for c in candidates}
        if settings != self.settings or len(now) != len(candidates):
            return None
        changed = [i for i, c in now.items() if self.candidates.get(i) != c] + \
            [i for i in self.candidates if i not in now]
        if len(changed) > MOST_CHANGED:
            return None
        grouped = {skill_id for group in self.groups for skill_id in group}
        if any(skill_id in grouped for skill_id in changed):
            return None
        delta: Counter[Hashable] = Counter()
        for skill_id in changed:
            if skill_id in self.candidates:
                delta.subtract(_keys(self.candidates[skill_id], settings))
            if skill_id in now:
                delta.update(_keys(now[skill_id], settings))
        if any(self.holders[key] + delta[key] > 1 for skill_id in changed if skill_id in now
               for key in _keys(now[skill_id], settings)):
            return None  # it shares a key: it may join a group, or link two
        for key, change in delta.items():
            self.holders[key] += change
            if not self.holders[key]:
                del self.holders[key]
        self.candidates = now
        return list(self.groups)


def _keys(candidate: Candidate, settings: CopySettings) -> list[Hashable]:
    """The exact and band keys a candidate is grouped by (none when it is kept apart)."""
    if candidate.id in settings.apart:
        return []
    return [*exact_keys(candidate.fingerprint, settings.versions), *candidate.fingerprint.bands]
