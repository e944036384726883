"""One pass over a text for the required literals of every pattern: which patterns may match, and
where their literals occur.

Every pattern of the audit needs literals: sets of strings such that each match holds one of
each set (:mod:`skillsite.audit.literals`).  A :class:`Prefilter` looks for all of them at once
with an Aho-Corasick automaton (the ``ahocorasick-rs`` package: Rust's ``aho-corasick`` crate,
as in ripgrep), so a text is read once however many patterns there are; a pattern then runs
only on texts where all it needs occurs (:attr:`Found.admitted`), and only near those places
(:class:`~skillsite.audit.text.Gate`).  The search is plain substring search: occurrences may
overlap, and every one is reported.

What a pattern's matches start with (its *starts*, often a common word such as "the") is not
part of that pass: every occurrence it reports costs, in every text, and the starts are wanted
only inside the few windows of the texts that admit the pattern, where :meth:`Found.places`
looks for them.
"""
from __future__ import annotations

import functools
import itertools
from typing import Iterable, Iterator, Sequence

from ahocorasick_rs import AhoCorasick, Implementation

#: Sets of literals one of each of which every match of a pattern holds, the first set its anchor.
Needs = tuple[frozenset[str], ...]


class Prefilter:
    """The search for the literals of a fixed list of patterns' needs (a pattern's number in the
    list is its *slot*), and for ``words`` besides (the gates' words, which admit no slot: found in
    the same pass, a gate's test of a word costs no search of its own); :meth:`scan` reads a text
    once for all of them."""

    def __init__(self, needs: Sequence[Needs], words: Iterable[str] = ()) -> None:
        self.needs = tuple(needs)
        self.literals = tuple(sorted({literal for each in needs for group in each for literal in group} | {*words}))
        self.known = frozenset(self.literals)
        #: each literal -> the slots whose first set holds it
        self.anchoring: dict[str, tuple[int, ...]] = {}
        for slot, each in enumerate(needs):
            for literal in each[0] if each else ():
                self.anchoring[literal] = (*self.anchoring.get(literal, ()), slot)
        self._automaton = AhoCorasick(list(self.literals), implementation=Implementation.DFA) \
            if self.literals else None

    def scan(self, text: str) -> Found:
        """Every occurrence of every literal in ``text``."""
        if self._automaton is None:
            return Found(self, text, [])
        return Found(self, text, self._automaton.find_matches_as_indexes(text, overlapping=True))


class Found:
    """Which literals of a :class:`Prefilter` occur in one text, and where."""

    def __init__(self, prefilter: Prefilter, text: str, matches: list[tuple[int, int, int]]) -> None:
        self.prefilter = prefilter
        self.text = text
        self._matches = matches   # (literal number, start, end), as the automaton reports them
        self._searched: dict[str, list[int]] = {}

    @functools.cached_property
    def present(self) -> frozenset[str]:
        """The literals that occur in the text."""
        literals = self.prefilter.literals
        return frozenset({literals[number] for number in {number for number, _start, _end in self._matches}})

    @functools.cached_property
    def admitted(self) -> frozenset[int]:
        """The slots of the patterns all of whose needs occur in the text."""
        present, needs, anchoring = self.present, self.prefilter.needs, self.prefilter.anchoring
        slots = {slot for literal in present for slot in anchoring.get(literal, ())}
        return frozenset(slot for slot in slots if all(not present.isdisjoint(each) for each in needs[slot][1:]))

    def holds(self, literals: frozenset[str]) -> bool:
        """Whether one of ``literals`` occurs in the text."""
        return not self.present.isdisjoint(literals)

    def starts(self, literals: frozenset[str]) -> list[int]:
        """Where one of ``literals`` starts in the text, in order (overlapping occurrences too)."""
        if literals <= self.prefilter.known:   # only those it found: of a set of 64, most are absent
            literals = literals & self.present
        lists = [self._starts_of(each) for each in literals]
        if len(lists) < 2:
            return lists[0] if lists else []
        return sorted(itertools.chain.from_iterable(lists))

    @functools.cached_property
    def _grouped(self) -> dict[str, list[int]]:
        """Where each literal of the search starts, from its report (grouped when first asked)."""
        grouped: dict[str, list[int]] = {}
        literals = self.prefilter.literals
        for number, start, _end in self._matches:
            grouped.setdefault(literals[number], []).append(start)
        return grouped

    def places(self, literals: frozenset[str], start: int, end: int, most: int) -> list[int] | None:
        """Where one of ``literals`` starts inside ``text[start:end]`` (the whole literal inside),
        in order, overlapping occurrences too; None as soon as there are more than ``most``."""
        if most < 0:
            return None
        found: list[int] = []
        text = self.text
        for literal in literals:   # occurrences(), written out: most windows hold none, and are many
            at = text.find(literal, start, end)
            while at >= 0:
                if len(found) == most:
                    return None
                found.append(at)
                at = text.find(literal, at + 1, end)
        return sorted(found) if len(literals) > 1 else found

    def _starts_of(self, literal: str) -> list[int]:
        """Where ``literal`` starts: as the search reported it, or (a literal it does not know)
        searched for when first asked."""
        if literal in self.prefilter.known:
            return self._grouped.get(literal, [])
        found = self._searched.get(literal)
        if found is None:
            found = self._searched[literal] = list(occurrences(self.text, literal))
        return found


def occurrences(text: str, literal: str, start: int = 0, end: int | None = None) -> Iterator[int]:
    """Where ``literal`` starts in ``text`` (inside ``text[start:end]``), in order (overlapping
    occurrences included)."""
    at = text.find(literal, start, end)
    while at >= 0:
        yield at
        at = text.find(literal, at + 1, end)
