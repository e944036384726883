"""The steps of ``re``'s backtracking on a pattern, counted: a matcher over the tree ``re``'s own
parser makes of the pattern, trying what each part can match in ``re``'s order (alternatives
left to right, greedy repeats longest first, lazy ones shortest first).  Its count grows as
``re``'s work does (exponentially on a pattern that reads a text in exponentially many ways), so
a test can say how a pattern scales without timing it.  Its matches are checked against ``re``'s
by the tests that use it (:meth:`Steps.search` beside ``pattern.search``).

Beside it, what the audit's regex tests share: :func:`steps_grow_in_proportion` (twice the input,
at most 2.5 times the steps), and the texts they compare a pattern with the pattern as it was on
(:func:`joined_texts` for a property, :func:`seeded_texts` for a larger seeded fuzz).

Development time only: it reads ``re._parser`` (``sre_parse`` before Python 3.11), a private
module, and covers the parts the audit's patterns use (no conditional groups)."""
from __future__ import annotations

import random
import re
from typing import Any, Callable, Iterator, Sequence

from hypothesis import strategies as st

try:  # the parser behind re.compile: re._parser from Python 3.11 on, sre_parse before
    from re import _constants as sre  # type: ignore[attr-defined]
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # Python 3.10
    import sre_constants as sre  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

#: Captured groups: (number, start, end) pairs, the latest capture of a group last.
Groups = tuple[tuple[int, int, int], ...]
#: The parts a repeat of one character is made of: it is read as ``re`` reads it, one run.
ONE_CHARACTER = {sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN}


class Exhausted(Exception):
    """More steps than the budget: the pattern's work on the text is out of proportion."""


def _word(text: str, at: int) -> bool:
    return 0 <= at < len(text) and _is_word(text[at])


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


class Steps:
    """A pattern's matches found step by step, ``steps`` counting each part tried at a place and
    each place a repeat gives back (:class:`Exhausted` past ``budget``)."""

    def __init__(self, pattern: re.Pattern[str], budget: int = 1_000_000) -> None:
        self.tree = sre_parse.parse(pattern.pattern, pattern.flags)
        self.flags = self.tree.state.flags
        self.budget, self.steps, self.text = budget, 0, ""

    def match(self, text: str, pos: int = 0) -> tuple[int, int] | None:
        """The span of the match at ``pos``, as ``pattern.match`` finds it."""
        self.text = text
        for end, _groups in self._sequence(list(self.tree), pos, (), self.flags):
            return pos, end
        return None

    def search(self, text: str, pos: int = 0) -> tuple[int, int] | None:
        """The span of the first match at ``pos`` or after, as ``pattern.search`` finds it."""
        return next((span for start in range(pos, len(text) + 1) if (span := self.match(text, start))), None)

    def _step(self, count: int = 1) -> None:
        self.steps += count
        if self.steps > self.budget:
            raise Exhausted(f"over {self.budget:,} steps")

    def _sequence(self, items: list[Any], pos: int, groups: Groups, flags: int) -> Iterator[tuple[int, Groups]]:
        """Where ``items`` in turn can end from ``pos``, in the order ``re`` tries them."""
        if not items:
            yield pos, groups
            return
        for end, found in self._part(items[0], pos, groups, flags):
            yield from self._sequence(items[1:], end, found, flags)

    def _part(self, item: tuple[Any, Any], pos: int, groups: Groups, flags: int) -> Iterator[tuple[int, Groups]]:
        """Where one part can end from ``pos``, in order."""
        self._step()
        op, av = item
        if op in ONE_CHARACTER:
            if self._one(item, pos, flags):
                yield pos + 1, groups
        elif op is sre.AT:
            if self._at(av, pos, flags):
                yield pos, groups
        elif op is sre.BRANCH:
            for branch in av[1]:
                yield from self._sequence(list(branch), pos, groups, flags)
        elif op is sre.SUBPATTERN:
            number, add, remove, body = av
            for end, found in self._sequence(list(body), pos, groups, (flags | add) & ~remove):
                yield end, found + ((number, pos, end),) if number else found
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
            yield from self._repeat(op is sre.MAX_REPEAT, av, pos, groups, flags)
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            yield from self._assert(op is sre.ASSERT, av, pos, groups, flags)
        elif op is sre.GROUPREF:
            yield from self._reference(av, pos, groups, flags)
        else:
            raise NotImplementedError(op)

    def _one(self, item: tuple[Any, Any], pos: int, flags: int) -> bool:
        """Whether one character part matches the character at ``pos``."""
        if pos >= len(self.text):
            return False
        char, (op, av) = self.text[pos], item
        caseless = bool(flags & re.IGNORECASE)
        if op is sre.ANY:
            return char != "\n" or bool(flags & re.DOTALL)
        if op in (sre.LITERAL, sre.NOT_LITERAL):
            return _same(char, chr(av), caseless) == (op is sre.LITERAL)
        negated = bool(av) and av[0][0] is sre.NEGATE
        return any(_in(char, kind, value, caseless) for kind, value in av[negated:]) != negated

    def _at(self, where: Any, pos: int, flags: int) -> bool:
        text, lines = self.text, bool(flags & re.MULTILINE)
        if where is sre.AT_BOUNDARY:
            return _word(text, pos - 1) != _word(text, pos)
        if where is sre.AT_NON_BOUNDARY:
            return _word(text, pos - 1) == _word(text, pos)
        if where in (sre.AT_BEGINNING, sre.AT_BEGINNING_LINE):
            return pos == 0 or (lines and text[pos - 1] == "\n")
        if where is sre.AT_BEGINNING_STRING:
            return pos == 0
        if where in (sre.AT_END, sre.AT_END_LINE):
            return pos == len(text) or (text[pos] == "\n" and (lines or pos == len(text) - 1))
        if where is sre.AT_END_STRING:
            return pos == len(text)
        raise NotImplementedError(where)

    def _repeat(self, greedy: bool, av: Any, pos: int, groups: Groups, flags: int) -> Iterator[tuple[int, Groups]]:
        least, most, body = av
        most = float("inf") if most is sre.MAXREPEAT else most
        body = list(body)
        if len(body) == 1 and body[0][0] in ONE_CHARACTER:  # one run, given back a place at a time
            run = 0
            while run < most and self._one(body[0], pos + run, flags):
                run += 1
            self._step(run)
            counts = range(run, least - 1, -1) if greedy else range(least, run + 1)
            for count in counts:
                self._step()
                yield pos + count, groups
            return
        yield from self._repeated(greedy, least, most, body, 0, pos, groups, flags)

    def _repeated(self, greedy: bool, least: int, most: float, body: list[Any], count: int, pos: int,
                  groups: Groups, flags: int) -> Iterator[tuple[int, Groups]]:
        """A repeat of a group, ``count`` times read so far: one more (a read that moves on), or stop there."""
        if not greedy and count >= least:
            yield pos, groups
        if count < most:
            for end, found in self._sequence(body, pos, groups, flags):
                if end > pos or count < least:
                    yield from self._repeated(greedy, least, most, body, count + 1, end, found, flags)
        if greedy and count >= least:
            yield pos, groups

    def _assert(self, positive: bool, av: Any, pos: int, groups: Groups, flags: int) -> Iterator[tuple[int, Groups]]:
        direction, body = av
        start = pos
        if direction < 0:
            start = pos - body.getwidth()[0]
            if start < 0:
                if not positive:
                    yield pos, groups
                return
        first = next(iter(self._sequence(list(body), start, groups, flags)), None)
        if (first is not None) == positive:
            yield pos, first[1] if first is not None else groups

    def _reference(self, number: int, pos: int, groups: Groups, flags: int) -> Iterator[tuple[int, Groups]]:
        spans = [(start, end) for each, start, end in groups if each == number]
        if not spans:
            return
        wanted = self.text[spans[-1][0]:spans[-1][1]]
        got = self.text[pos:pos + len(wanted)]
        self._step(len(wanted))
        if len(got) == len(wanted) and all(_same(a, b, bool(flags & re.IGNORECASE)) for a, b in zip(got, wanted)):
            yield pos + len(wanted), groups


def _same(char: str, other: str, caseless: bool) -> bool:
    return char == other or caseless and (char.lower() == other.lower() or char.upper() == other.upper())


def _in(char: str, kind: Any, value: Any, caseless: bool) -> bool:
    """Whether ``char`` is one item of a character class."""
    if kind is sre.LITERAL:
        return _same(char, chr(value), caseless)
    if kind is sre.RANGE:
        low, high = value
        return any(low <= ord(each) <= high for each in {char, *((char.lower(), char.upper()) if caseless else ())}
                   if len(each) == 1)
    if kind is sre.CATEGORY:
        return _CATEGORIES[value](char)
    raise NotImplementedError(kind)


_CATEGORIES = {
    sre.CATEGORY_DIGIT: str.isdecimal, sre.CATEGORY_NOT_DIGIT: lambda c: not c.isdecimal(),
    sre.CATEGORY_SPACE: str.isspace, sre.CATEGORY_NOT_SPACE: lambda c: not c.isspace(),
    sre.CATEGORY_WORD: _is_word, sre.CATEGORY_NOT_WORD: lambda c: not _is_word(c),
}


def search_steps(pattern: re.Pattern[str], text: str, budget: int = 2_000_000, search: bool = True) -> int:
    """The steps of ``pattern.search(text)`` (``search=False``: ``pattern.match``), at most ``budget``,
    checked to find what ``re`` finds."""
    counter = Steps(pattern, budget=budget)
    span = counter.search(text) if search else counter.match(text)
    found = pattern.search(text) if search else pattern.match(text)
    assert span == (found.span() if found else None), (span, found)
    return counter.steps


def steps_grow_in_proportion(steps_of: Callable[[str], float], make_text: Callable[[int], str], count: int,
                             *about: object) -> None:
    """Twice the input costs at most 2.5 times the steps: ``make_text(count)`` against
    ``make_text(2 * count)``.  A part read again from each place of a run grows with the square (4x),
    a text read once in proportion (2x, and a little for what surrounds the run)."""
    short, long = (steps_of(make_text(n)) for n in (count, 2 * count))
    assert long <= 2.5 * short, (*about, short, long)


def joined_texts(pieces: Sequence[str], separators: Sequence[str], max_size: int) -> st.SearchStrategy[str]:
    """Texts of up to ``max_size`` pieces, each followed by one of ``separators``: a property's inputs."""
    return st.lists(st.tuples(st.sampled_from(pieces), st.sampled_from(separators)), max_size=max_size).map(
        lambda chosen: "".join(piece + separator for piece, separator in chosen))


def seeded_texts(seed: int, pieces: Sequence[str], separators: Sequence[str] | None, n: int,
                 lengths: tuple[int, int]) -> Iterator[str]:
    """``n`` texts drawn with ``random.Random(seed)``, each of a number of pieces in ``lengths``
    (inclusive), each piece followed by one of ``separators`` (none drawn where it is ``None``):
    a fuzz larger than a property's, the same texts on every run."""
    chance = random.Random(seed)
    for _ in range(n):
        count = chance.randint(*lengths)
        if separators is None:
            yield "".join(chance.choice(pieces) for _ in range(count))
        else:
            yield "".join(chance.choice(pieces) + chance.choice(separators) for _ in range(count))
