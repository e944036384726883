"""SK635's hijacking lines: how far a try of ``_HIJACKING`` reads from a start, as ``_hijack_reach``
says, read again from the pattern's own parse tree (``re``'s parser, through tests/regex_steps.py).

``_HijackingLines`` trusts that bound: a try whose reach ends before a here-document's end is not
made again, its answer taken from the whole text.  A bound smaller than what the pattern reads (a
trap's span widened) would give a hijacking line found past a here-document's end, or miss one its
end cuts, silently.  So each branch of the pattern is read here as the bound reads it: its first
word (characters ``_WORD_AND_SPACE`` reads as a word's, at a start ``_HIJACK_STARTS`` finds), a run
of what it reads as white space and dashes, then parts of a bounded width (first, maybe, a span of
characters other than a line break), which stop at a line break when none of them reads one.  The
bound must cover what every branch reads, and its figures must be those of the pattern: one edited
apart from the names the bound reads them from is told, even where the bound still covers it."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import pytest

from regex_steps import Steps, sre
from skillsite.audit.rules import remote_code
from skillsite.audit.rules.remote_code import _HIJACK_STARTS, _HIJACKING, _WORD_AND_SPACE

Part = tuple[Any, Any]
ONE_CHARACTER = (sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN)


def widths(items: list[Part]) -> tuple[float, float]:
    """The most characters ``items`` consume from a place, and how many from it a try reads at most
    (what it consumes, the character a repeat or a literal stopped at, what a boundary or a look-ahead
    looks at); ``math.inf`` for an open-ended repeat or a back-reference."""
    consumed, read = 0.0, 0.0
    for op, av in items:
        width, reads = _widths(op, av)
        read, consumed = max(read, consumed + reads), consumed + width
    return consumed, read


def _widths(op: Any, av: Any) -> tuple[float, float]:
    if op in ONE_CHARACTER:
        return 1, 1
    if op is sre.AT:
        return 0, 1   # a boundary looks at the character after too
    if op is sre.BRANCH:
        branches = [widths(list(branch)) for branch in av[1]]
        return max(w for w, _ in branches), max(r for _, r in branches)
    if op is sre.SUBPATTERN:
        return widths(list(av[3]))
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
        _least, most, body = av
        width, reads = widths(list(body))
        if most is sre.MAXREPEAT:
            return math.inf, math.inf
        return (most * width, (most - 1) * width + reads) if most else (0, 0)
    if op in (sre.ASSERT, sre.ASSERT_NOT):
        direction, body = av
        return 0, 0 if direction < 0 else widths(list(body))[1]   # a look-behind reads before the place
    if op is sre.GROUPREF:
        return math.inf, math.inf
    raise NotImplementedError(op)


def one_characters(items: list[Part]) -> list[Part]:
    """Every part of ``items`` that reads one character, however deep (look-arounds' too)."""
    found: list[Part] = []
    for op, av in items:
        if op in ONE_CHARACTER:
            found.append((op, av))
        elif op is sre.BRANCH:
            found += [part for branch in av[1] for part in one_characters(list(branch))]
        elif op is sre.SUBPATTERN:
            found += one_characters(list(av[3]))
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
            found += one_characters(list(av[2]))
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            found += one_characters(list(av[1]))
    return found


#: Characters tried against each part: white space, dashes, word characters (letters ``IGNORECASE``
#: matches to ASCII ones too), an ``=``, what is neither.
PROBES = " \t\n\r\x0b\x0c\u00a0\u2028-=_aZ09\u00e9\u212a\u017f\u0131\u0130.;|&'\"$/"


def admits(steps: Steps, part: Part, chars: str) -> list[str]:
    """Which of ``chars`` the one-character ``part`` matches."""
    found = []
    for char in chars:
        steps.text = char
        if steps._one(part, 0, steps.flags):
            found.append(char)
    return found


def in_word(steps: Steps, part: Part) -> bool:
    """Whether ``part`` is a boundary, or a literal whose every match ``_WORD_AND_SPACE`` reads as a word's."""
    if part[0] is sre.AT:
        return True
    chars = chr(part[1]) + chr(part[1]).swapcase() + PROBES if part[0] is sre.LITERAL else ""
    return bool(chars) and all(_WORD_AND_SPACE.match(char).end(1) == 1 for char in admits(steps, part, chars))


def in_run(steps: Steps, part: Part) -> bool:
    """Whether ``part`` reads literals and white space only, each a character ``_WORD_AND_SPACE`` reads
    as white space or a dash."""
    chars = one_characters([part])
    plain = all(op is sre.LITERAL or op is sre.IN and all(
        kind is sre.LITERAL or (kind, value) == (sre.CATEGORY, sre.CATEGORY_SPACE) for kind, value in av)
        for op, av in chars)
    return bool(chars) and part[0] is not sre.AT and plain and all(
        _WORD_AND_SPACE.match(char).end(1) == 0 and _WORD_AND_SPACE.match(char).end() == 1
        for each in chars for char in admits(steps, each, PROBES))


@dataclass(frozen=True)
class Branch:
    """A branch of the pattern as the bound reads it: its first ``word``; whether a ``run`` of white
    space follows; past the run, the ``span`` of a repeat of characters other than a line break (0:
    none), and how far what follows it reads (``after``); whether none of that reads a line break
    (it then stops at one)."""

    word: str
    word_read: float
    run: bool = False
    span: float = 0
    after: float = 0
    stops_at_line_break: bool = True

    def reach(self, start: int, run: int, line_end: int) -> float:
        """How far a try at ``start`` reads at most, the white space after its word ending at ``run``
        and the line there at ``line_end``.  Each matched letter of the word is a word's, so a try
        stops at ``run`` at the latest when the text's word is not all of it (``run`` is then nearer)."""
        if not self.run or run < start + len(self.word):
            return min(start + self.word_read, run + 1)
        rest = run + self.span + self.after
        return max(start + self.word_read, run + 1, min(rest, line_end + 1) if self.stops_at_line_break else rest)


def branches(pattern: re.Pattern[str]) -> list[Branch]:
    """Each branch of ``pattern`` (an alternation, after a ``\\b``), read as ``_hijack_reach`` bounds it."""
    steps = Steps(pattern)
    items = list(steps.tree)
    *before, (op, av) = items
    alternatives = [before + list(branch) for branch in av[1]] if op is sre.BRANCH else [items]
    return [_branch(steps, items) for items in alternatives]


def _branch(steps: Steps, items: list[Part]) -> Branch:
    first = 0
    while first < len(items) and in_word(steps, items[first]):
        first += 1
    word = "".join(chr(av) for op, av in items[:first] if op is sre.LITERAL)
    last = first
    while last < len(items) and in_run(steps, items[last]):
        last += 1
    if last == first:
        return Branch(word, widths(items)[1])
    rest = items[last:]
    newline = any(admits(steps, part, "\n") for part in one_characters(rest))
    span = 0.0
    if rest and rest[0][0] in (sre.MAX_REPEAT, sre.MIN_REPEAT):
        _least, most, body = rest[0][1]
        if len(body) == 1 and body[0][0] in ONE_CHARACTER and not admits(steps, body[0], "\n"):
            span, rest = widths(rest[:1])[0], rest[1:]
    return Branch(word, max(widths(items[:first])[1], len(word) + 1), True, span, widths(rest)[1], not newline)


def mismatches(pattern: re.Pattern[str]) -> list[str]:
    """What ``_hijack_reach`` and its figures get wrong about ``pattern``: a start ``_HIJACK_STARTS``
    does not find, a try reading past the bound (for every length of the white space after its word
    and of its line), or a figure other than the pattern's own."""
    found, each = [], branches(pattern)
    for branch in each:
        if not branch.word or not _HIJACK_STARTS.match(branch.word) or not _HIJACK_STARTS.match(branch.word.swapcase()):
            found.append(f"no start found at {branch.word!r}")
        if not all(map(math.isfinite, (branch.word_read, branch.span, branch.after))):
            found.append(f"{branch.word!r} reads on without a bound")
            continue
        start = 1000
        for run in range(start, start + int(branch.word_read) + 3):
            for line_end in range(run, run + int(branch.span + branch.after) + 3):
                if remote_code._hijack_reach(start, run, line_end) < branch.reach(start, run, line_end):
                    found.append(f"{branch.word!r} reads past the reach, its white space {run - start} long and "
                                 f"its line {line_end - run} more")
    figures = (max(len(b.word) for b in each) + 1, max(b.span for b in each), max(b.after for b in each if b.run))
    if figures != (remote_code._FIRST_WORD_READ, remote_code._TRAP_SPAN, remote_code._AFTER_RUN_READ):
        found.append(f"the pattern's figures {figures} are not the bound's")
    return found


def test_the_pattern_is_read_in_its_branches():
    """Each branch's first word, whether white space follows it, and trap's span and ``DEBUG``."""
    found = branches(_HIJACKING)
    assert [(b.word, b.run, b.span > 0) for b in found] == [
        ("alias", True, False), ("function", True, False), ("PROMPT_COMMAND=", False, False),
        ("LD_PRELOAD=", False, False), ("trap", True, True)]
    assert (found[-1].span, found[-1].after) == (remote_code._TRAP_SPAN, len("DEBUG") + 1)


def test_the_reach_covers_every_branch_with_the_patterns_own_figures():
    assert mismatches(_HIJACKING) == []


#: Edits of the pattern's source alone (old, new, what is told), as they would be made without the
#: names the bound is read from: a wider trap span, an open-ended run, longer names and a longer
#: setting (still covered, trap's span being longer, but not the bound's figures), a new first word.
LAST_ALIAS, LAST_FUNCTION = re.escape(remote_code._ALIASED[-1]), re.escape(remote_code._FUNCTIONS[-1])
LONGER_NAME, LONGER_SETTING = "n" * remote_code._AFTER_RUN_READ, "S" * remote_code._FIRST_WORD_READ + "="
FIRST_SETTING, SPAN, TRAPPED = re.escape(remote_code._SETTINGS[0]), remote_code._TRAP_SPAN, remote_code._TRAPPED
EDITS = [
    (f"{{0,{SPAN}}}", f"{{0,{SPAN + 100}}}", "reads past the reach"),
    (f"\\b{TRAPPED}\\b", f"\\b{TRAPPED}\\b[^\\n]*", "without a bound"),
    (f"|{LAST_ALIAS})=", f"|{LAST_ALIAS}|{LONGER_NAME})=", "figures"),
    (f"|{LAST_FUNCTION})\\b", f"|{LAST_FUNCTION}|{LONGER_NAME})\\b", "figures"),
    (f"{FIRST_SETTING}|", f"{FIRST_SETTING}|{LONGER_SETTING}|", "figures"),
    ("\\b(?:alias", "\\b(?:export\\s+BASH_ENV=|alias", "no start found"),
]


@pytest.mark.parametrize("old, new, told", EDITS)
def test_a_pattern_edited_apart_from_the_bound_is_told(old, new, told):
    assert old in _HIJACKING.pattern
    found = mismatches(re.compile(_HIJACKING.pattern.replace(old, new), _HIJACKING.flags))
    assert any(told in each for each in found), found
