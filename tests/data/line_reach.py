"""How many text lines one match of a regular expression can span, read from the pattern itself.

Development time only, like ``literal_derivation`` (whose parse tree, ``re._parser``, is private):
``tests/data/make_literal_table.py`` writes each declared pattern's *line reach* into
``skillsite/audit/data/literal_table.json`` beside its literals, and the audit reads it there
(:mod:`skillsite.audit.literals`).

A long document is searched around each literal's line, with as many lines holding text (*text
lines*) on either side as a match can reach (:meth:`skillsite.audit.text.Document.windows`).  The
reach is the most text-line boundaries one match crosses: the runs of white space holding a line
break that it contains, where a run at its start or end counts too (it reaches back to the end of
the text line before, or on to the start of the next).  Blank lines never count apart: ``\\s+``
crosses any number of them and still reaches only the next text line.  So ``a\\s*\\(\\s*b``
reaches 2, ``[^\\n]*`` 0, and a repeat whose body can hold a line break between characters that
are not white space (``(?:-\\w+\\s+)*``, ``[^)]*``, ``(?s).*``) has no bound: None.

What a look-around reads is counted as if it were matched, and ``$`` or ``\\Z`` (without
``MULTILINE``) as a line break: a window must not end where they look, or they would find its end
where the whole text goes on.  A back-reference reaches what its group does.

Each part of the pattern is summed up by the *shapes* of the strings it matches: all white space
(with or without a line break), or holding text (with or without a line break in the white space
it starts and ends with), each with the most line-break runs inside its text.  Shapes join as the
strings do (two runs that meet are one), so this is a longest path over six states: a repeat
whose longest path still grows after as many rounds as there are states has a growing cycle, and
no bound.

The windows are built around the literals of a pattern's first set of needs: :func:`sides` says
how many boundaries one match crosses before the start of such a literal and after it, where one
can be placed in every match (a command's word, with its options after it: none before).
"""
from __future__ import annotations

import functools
import itertools
import math
import re
import sys
from typing import Any, Optional

from literal_derivation import Facts, _item, concatenation

try:  # the parser behind re.compile: re._parser from Python 3.11 on, sre_parse before
    from re import _compiler as _sre_compile  # type: ignore[attr-defined]
    from re import _constants as _sre  # type: ignore[attr-defined]
    from re import _parser as _sre_parse  # type: ignore[attr-defined]
except ImportError:  # Python 3.10
    import sre_compile as _sre_compile  # type: ignore[no-redef]
    import sre_constants as _sre  # type: ignore[no-redef]
    import sre_parse as _sre_parse  # type: ignore[no-redef]

#: A string's shape: ("blank", holds a line break) for white space alone (or nothing), else
#: ("text", its leading white space holds one, its trailing white space holds one).
Shape = tuple[Any, ...]
#: A part's shapes, each with the most line-break runs a string of that shape holds inside its text.
Shapes = dict[Shape, float]

EMPTY: Shapes = {("blank", False): 0}
#: Repeats written out one by one up to this many times; more (and ``*``, ``+``) are solved as a longest path.
MAX_WRITTEN = 1000
#: Rounds after which the longest paths over the six shapes have settled unless a cycle grows them.
SETTLED = 8
_REPEATS = tuple(getattr(_sre, name) for name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
                 if hasattr(_sre, name))
_ATOMIC = getattr(_sre, "ATOMIC_GROUP", object())
_LEAVES = (_sre.LITERAL, _sre.NOT_LITERAL, _sre.ANY, _sre.IN)
_ENDS = (_sre.AT_END, _sre.AT_END_STRING)


def line_reach(source: str, flags: int = 0) -> int | None:
    """The most text-line boundaries one match of ``source`` (compiled with ``flags``) can cross
    (None: no bound)."""
    tree = _sre_parse.parse(source, flags)
    most = max(_runs(shape, inner) for shape, inner in _Reader(tree.state.flags).sequence(list(tree)).items())
    return None if math.isinf(most) else int(most)


def _runs(shape: Shape, inner: float) -> float:
    """The line-break runs of a string of ``shape`` with ``inner`` runs inside its text."""
    if shape[0] == "blank":
        return 1 if shape[1] else 0
    return inner + shape[1] + shape[2]


def _join_shapes(first: Shape, second: Shape) -> tuple[Shape, int]:
    """The shape of a string of ``first`` followed by one of ``second``, and the runs its join
    adds inside the text (a run between two texts)."""
    if first[0] == "blank" and second[0] == "blank":
        return ("blank", first[1] or second[1]), 0
    if first[0] == "blank":
        return ("text", first[1] or second[1], second[2]), 0
    if second[0] == "blank":
        return ("text", first[1], first[2] or second[1]), 0
    return ("text", first[1], second[2]), int(first[2] or second[1])


def join(first: Shapes, second: Shapes) -> Shapes:
    """The shapes of a string of ``first`` followed by one of ``second``."""
    joined: Shapes = {}
    for shape, inner in first.items():
        for other, more in second.items():
            both, added = _join_shapes(shape, other)
            joined[both] = max(joined.get(both, -1), inner + more + added)
    return joined


def union(first: Shapes, second: Shapes) -> Shapes:
    """The shapes of a string of ``first`` or of ``second``."""
    return {shape: max(first.get(shape, -1), second.get(shape, -1)) for shape in {*first, *second}}


def repeat(low: int, high: int, body: Shapes) -> Shapes:
    """The shapes of ``body`` repeated ``low`` to ``high`` times (``high`` may be MAXREPEAT)."""
    power = EMPTY
    for _ in range(min(low, MAX_WRITTEN)):
        power = join(power, body)
    found, rounds = power, min(high, MAX_WRITTEN + 1) - min(low, MAX_WRITTEN)
    for round_ in range(rounds):
        grown = union(found, join(found, body))
        if grown == found:
            return found
        if high > MAX_WRITTEN and round_ > SETTLED:  # still growing: a growing cycle, no bound
            grown = {shape: math.inf if shape in found and inner > found[shape] else inner
                     for shape, inner in grown.items()}
        found = grown
    return found


class _Reader:
    """The shapes of the parts of one parsed pattern (its groups remembered for back-references):
    of what they read, look-arounds too, or (not ``looks``) of what they match, look-arounds none."""

    def __init__(self, flags: int, looks: bool = True) -> None:
        self.flags = flags
        self.looks = looks
        self.groups: dict[int, Shapes] = {}

    def sequence(self, items: list[tuple[Any, Any]], flags: int | None = None) -> Shapes:
        """The shapes of parts one after the other (``flags``: those in force, when a group sets some)."""
        flags = self.flags if flags is None else flags
        found = EMPTY
        for op, value in items:
            found = join(found, self.item(op, value, flags))
        return found

    def item(self, op: Any, value: Any, flags: int) -> Shapes:
        """The shapes of one node of the parsed pattern."""
        if op in _LEAVES:
            return character_shapes(op, value, flags)
        if op is _sre.AT:
            return {("blank", True): 0} if value in _ENDS and not flags & re.MULTILINE else EMPTY
        if op in (_sre.ASSERT, _sre.ASSERT_NOT):
            return self.sequence(list(value[1]), flags) if self.looks else EMPTY  # read as if matched, or not
        if op is _sre.SUBPATTERN:
            group, add, remove, body = value
            found = self.sequence(list(body), (flags | add) & ~remove)
            if group is not None:
                self.groups[group] = found
            return found
        if op is _sre.BRANCH:
            return functools.reduce(union, (self.sequence(list(branch), flags) for branch in value[1]))
        if op in _REPEATS:
            low, high, body = value
            return repeat(low, high, self.sequence(list(body), flags))
        if op is _ATOMIC:
            return self.sequence(list(value), flags)
        if op is _sre.GROUPREF_EXISTS:
            _group, yes, no = value
            return union(self.sequence(list(yes), flags), self.sequence(list(no), flags) if no else EMPTY)
        if op is _sre.GROUPREF:
            return self.groups.get(value) or repeat(0, _sre.MAXREPEAT, character_shapes(_sre.ANY, None, re.S))
        raise ValueError(f"a part of a pattern line_reach does not know: {op}")


def character_shapes(op: Any, value: Any, flags: int) -> Shapes:
    """The shapes of one character matched by the node ``(op, value)`` under ``flags``: which of a
    line break, other white space and text it can match, found by running the node, compiled
    alone, over every character of each kind (remembered: patterns share their classes)."""
    key = (op, repr(value), flags)
    if key not in _CHARACTER_SHAPES:
        state = _sre_parse.State()
        state.flags = flags
        node = _sre_compile.compile(_sre_parse.SubPattern(state, [(op, value)]), flags)
        kinds = {("blank", True): "\n", ("blank", False): _other_white_space(), ("text", False, False): _text()}
        _CHARACTER_SHAPES[key] = {shape: 0 for shape, chars in kinds.items() if node.search(chars)}
    return _CHARACTER_SHAPES[key]


_CHARACTER_SHAPES: dict[tuple[Any, str, int], Shapes] = {}


@functools.lru_cache(maxsize=None)
def _other_white_space() -> str:
    """Every character that is white space (``\\s``, as the audit's windows read it) but a line break."""
    return "".join(chr(code) for code in range(sys.maxunicode + 1) if chr(code).isspace() and code != 10)


@functools.lru_cache(maxsize=None)
def _text() -> str:
    """Every character that is not white space."""
    return "".join(chr(code) for code in range(sys.maxunicode + 1) if not chr(code).isspace())



#: (before, after): the line-break runs one match crosses before and after a literal (None: no bound).
Sides = tuple[Optional[int], Optional[int]]
#: Of a part's matches: the shapes of what comes before an anchoring literal's start, of what
#: follows it, and the most line-break runs a look-ahead (or ``$``) before that start reads.
Split = tuple[Shapes, Shapes, float]
#: The most items of a sequence a literal is looked for across (no literal of the audit is near as long).
MAX_SPAN = 64


def sides(source: str, flags: int, anchor: frozenset[str]) -> Sides | None:
    """The most text-line boundaries one match of ``source`` (compiled with ``flags``) crosses
    before the start of an occurrence of a literal of ``anchor`` that the match holds, and from
    that start on (None: no bound); None when no such occurrence can be placed in every match.
    The literals are lower-case, as the one-pass search looks for them in the lower-cased text.

    The side before the literal is what the match holds there: where a match may start.  What a
    look-ahead (or ``$``) before the literal reads may run on past it, even past the match's end:
    the side after the literal reaches that far too (a window's end is where ``re`` stops reading).
    What a look-around before the literal reads short of it, the match holds; what a look-behind
    reads before the match needs no window: ``re`` reads the text before the position a search
    starts at.  So look-arounds add nothing before the literal (SK630's option values, each
    looked past for a line break, do not make a URL's command reach eight lines back)."""
    tree = _sre_parse.parse(source, flags)
    reader, held = _Reader(tree.state.flags), _Reader(tree.state.flags, looks=False)
    reader.sequence(list(tree))   # the groups, for the back-references
    held.sequence(list(tree))
    split = _Anchored(reader, held, anchor).sequence(list(tree), tree.state.flags)
    return None if split is None else _bounds(split)


def _bounds(split: Split) -> tuple[Optional[int], Optional[int]]:
    """(before, after) of ``split`` (None: no bound)."""
    before, after = (max(_runs(shape, inner) for shape, inner in side.items()) for side in split[:2])
    return tuple(None if math.isinf(each) else int(each) for each in (before, max(after, split[2])))  # type: ignore


def _cost(split: Split) -> tuple[int, int, int]:
    """How many sides of ``split`` have no bound, then how many lines a window of it reads (on the
    bounded sides), then its wider bounded side: the less the better."""
    bounded = [each for each in _bounds(split) if each is not None]
    return 2 - len(bounded), sum(bounded), max(bounded, default=0)


class _Anchored:
    """Where, in each match of a part of a pattern, an occurrence of one of ``anchor``'s literals
    starts: the shapes of the part of the match before it and of the part from it on (None: no
    occurrence can be placed in every match).  An occurrence is placed in the shortest run of
    items of a sequence whose every match holds one (:func:`literal_derivation.concatenation`
    says which), or inside one item (a group, a branch, a repeat) where each match holds one:
    the text before it is then a prefix of the sequence up to the end of that run, the text from
    it on a suffix from the run's start, and neither crosses more than the whole it is part of.
    The text before it is read by ``held`` (what the match holds), the text from it on by ``reader``
    (what the match reads, look-aheads too)."""

    def __init__(self, reader: _Reader, held: _Reader, anchor: frozenset[str]) -> None:
        self.reader, self.held, self.anchor = reader, held, anchor

    def sequence(self, items: list[tuple[Any, Any]], flags: int) -> Split | None:
        """The split of parts one after the other: the best of those :meth:`_candidates` finds."""
        return min(self._candidates(items, flags), key=_cost, default=None)

    def _candidates(self, items: list[tuple[Any, Any]], flags: int) -> list[Split]:
        shapes = [self.reader.item(op, value, flags) for op, value in items]
        held = [self.held.item(op, value, flags) for op, value in items]
        before = list(itertools.accumulate(held, join, initial=EMPTY))                   # items[:i]
        after = list(itertools.accumulate(shapes[::-1], lambda a, b: join(b, a), initial=EMPTY))[::-1]  # items[i:]
        ahead = list(itertools.accumulate((self.ahead(op, value, flags) for op, value in items), max, initial=0.0))
        found = [(before[start if leading else end], after[start], ahead[end])
                 for start, end, leading in self._holding(items, flags)]
        for at, (op, value) in enumerate(items):
            inner = self.item(op, value, flags)
            if inner is not None:
                found.append((join(before[at], inner[0]), join(inner[1], after[at + 1]), max(ahead[at], inner[2])))
        return found

    def _holding(self, items: list[tuple[Any, Any]], flags: int) -> list[tuple[int, int, bool]]:
        """(start, end, leading) of the shortest run of items from each start whose every match
        holds a literal of the anchor (where there is one); ``leading``: every match of the run
        starts with one, and its first item consumes something, so nothing of the run comes
        before it (``rm\\s+``, anchored by "rm" and the white space after it, which may be a
        line break, reaches no line before "rm")."""
        ignorecase = bool(flags & re.IGNORECASE)
        facts = [_item(op, value, ignorecase, spaces=True) for op, value in items]
        runs = []
        for start in range(len(items)):
            for end in range(start + 1, min(len(items), start + MAX_SPAN) + 1):
                run = concatenation(facts[start:end])
                if _holds(run, self.anchor):  # a run led by what matches nothing (a look-behind) reads before
                    runs.append((start, end, facts[start].exact != frozenset({""}) and _leads(run, self.anchor)))
                    break
        return runs

    def item(self, op: Any, value: Any, flags: int) -> Split | None:
        """The split of one node of the parsed pattern: of a group's body, of each branch (all of
        them placing one), of a repeat's first or last round (at least one round)."""
        if op is _sre.SUBPATTERN:
            _group, add, remove, body = value
            return self.sequence(list(body), (flags | add) & ~remove)
        if op is _ATOMIC:
            return self.sequence(list(value), flags)
        if op is _sre.BRANCH:
            splits = [self.sequence(list(branch), flags) for branch in value[1]]
            if None in splits:
                return None
            return functools.reduce(lambda a, b: (union(a[0], b[0]), union(a[1], b[1]), max(a[2], b[2])),
                                    splits)  # type: ignore[arg-type, return-value]
        if op in _REPEATS and value[0] >= 1:
            return self._rounds(value, flags)
        return None

    def _rounds(self, value: Any, flags: int) -> Split | None:
        """The split of a repeat of one round or more: in its first round, or in its last."""
        low, high, body = value
        inner = self.sequence(list(body), flags)
        if inner is None:
            return None
        more = high if high == _sre.MAXREPEAT else high - 1
        rest = repeat(low - 1, more, self.reader.sequence(list(body), flags))
        held = repeat(low - 1, more, self.held.sequence(list(body), flags))
        earlier = max((self.ahead(op, each, flags) for op, each in body), default=0.0)
        return min([(inner[0], join(inner[1], rest), inner[2]),
                    (join(held, inner[0]), inner[1], max(inner[2], earlier))], key=_cost)

    def ahead(self, op: Any, value: Any, flags: int) -> float:
        """The most line-break runs a look-ahead (or ``$``) in the node reads, from where it stands."""
        if op in (_sre.ASSERT, _sre.ASSERT_NOT) and value[0] >= 0:
            return max(_runs(shape, inner) for shape, inner in self.reader.sequence(list(value[1]), flags).items())
        if op is _sre.AT:
            return 1.0 if value in _ENDS and not flags & re.MULTILINE else 0.0
        if op is _sre.SUBPATTERN:
            flags = (flags | value[1]) & ~value[2]
        return max((self.ahead(each_op, each, flags) for each_op, each in _children(op, value)), default=0.0)


def _children(op: Any, value: Any) -> list[tuple[Any, Any]]:
    """The nodes inside a node of the parsed pattern."""
    if op is _sre.SUBPATTERN:
        return list(value[3])
    if op is _ATOMIC:
        return list(value)
    if op is _sre.BRANCH:
        return [node for branch in value[1] for node in branch]
    if op in _REPEATS:
        return list(value[2])
    if op in (_sre.ASSERT, _sre.ASSERT_NOT):
        return list(value[1])
    if op is _sre.GROUPREF_EXISTS:
        return [node for branch in value[1:] if branch for node in branch]
    return []


def _leads(facts: Facts, anchor: frozenset[str]) -> bool:
    """Whether every string of which ``facts`` speak starts with a literal of ``anchor``."""
    return bool(facts.prefixes) and all(any(each.startswith(literal) for literal in anchor)
                                        for each in facts.prefixes)  # type: ignore[union-attr]


def _holds(facts: Facts, anchor: frozenset[str]) -> bool:
    """Whether every string of which ``facts`` speak holds a literal of ``anchor``: each of its
    exact strings, its prefixes, its suffixes, or each string of one of the sets it needs."""
    return any(strings and all(any(literal in each for literal in anchor) for each in strings)
               for strings in (facts.exact, facts.prefixes, facts.suffixes, *facts.needs))
