"""The literals a regular expression's every match must contain, read from the pattern itself.

Development time only: ``tests/data/make_literal_table.py`` runs this on every declared audit
pattern and writes what it finds into ``skillsite/audit/literal_table.py``, the table the audit
reads (:mod:`skillsite.audit.literals`); the tests regenerate the table and fail when it is stale,
and check what it holds against matches of every pattern.  This module reads the tree Python's
own parser makes of a pattern (``re._parser``, ``sre_parse`` before 3.11: private, so never
imported by the package), so what is derived is what ``re`` runs.

A rule's pattern names words or characters that any match holds ("ignore", "://", "/dev/tcp/"):
one pass over a text finds where any of them occur (:mod:`skillsite.audit.prefilter`), and the
full pattern runs only there.  :func:`derive` finds, for a pattern, sets of literals such that
every match contains one literal of each set, or says there is none (then the pattern is looked
for everywhere).

The method is ripgrep's and YARA's (``regex-syntax``'s literal extractor, YARA's atoms): each
part of the pattern is summed up by the strings it can match in full when they are few, the
strings its matches start and end with, and the sets its matches must contain.  A sequence needs
what each of its parts needs, and joins neighbouring exact parts ("i" "g" "n" ... into "ignore");
an alternation needs the union of one set of each branch; a part that may be repeated zero
times, a large character class, ``.``, ``\\s`` or a back-reference needs nothing.  Look-arounds
and anchors consume nothing, so no literal is taken from them.  Of what a pattern needs, the
rarest set (by :func:`cost`) comes first: the text around its occurrences is what is searched.
An estimate from characters cannot tell a word from the same letters inside longer words ("rm"
in "format"), so where a set read with ``\\s`` as its 29 characters ("rm " and 28 more) is
measured rarer in the shared corpus (``tests/data/literal_counts.json``, written by
``make_literal_counts.py``), that set comes first instead (:func:`measured_anchor`).

Literals are lower-case, as they are looked for in the lower-cased folded text
(:attr:`~skillsite.audit.text.Document.lower`).  A cased letter outside ASCII ends a literal
(:func:`scan_char`): under ``IGNORECASE`` Python matches letters whose lower case differs from
``str.lower`` (``σ`` and a final ``ς``), and those are not worth the trouble; the four that match
an ASCII letter (``İ``, ``ı``, ``ſ`` and the Kelvin sign) are folded to it or, for ``İ``, read
as ``i`` by the scan (``tests/unit/test_audit_literals.py`` checks every code point).
"""
from __future__ import annotations

import functools
import json
import re
import sys
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import Any, Iterable, Optional

from skillsite.audit.literals import Literals, Needs
from skillsite.audit.text import lines_around

try:  # the parser behind re.compile: re._parser from Python 3.11 on, sre_parse before
    from re import _constants as _sre  # type: ignore[attr-defined]
    from re import _parser as _sre_parse  # type: ignore[attr-defined]
except ImportError:  # Python 3.10
    import sre_constants as _sre  # type: ignore[no-redef]
    import sre_parse as _sre_parse  # type: ignore[no-redef]

#: A set of strings; None when there are too many to list or nothing is known.
Strings = Optional[frozenset[str]]

#: Largest character class expanded into its characters (ripgrep's default too).
MAX_CLASS = 10
#: Largest set of strings kept for a part; a larger union is cut to the first characters of its strings.
MAX_SET = 64
#: Most repetitions of an exact part written out (``x{3}`` is "xxx").
MAX_REPEAT = 10
#: Most sets a pattern is said to need (the rarest first), and the rarity (bits, see :func:`bits`)
#: each literal of a set after the first must have: a set of common words finds nothing out.
MAX_NEEDS = 3
MIN_EXTRA_BITS = 10.0
#: The commonest starts worth trying a pattern at (see :func:`cost`): a pattern whose matches may
#: start with a common word is left to the regular-expression engine's own search.
MAX_STARTS_COST = 2.0 ** -8

#: How rare each character is in skill text, as bits (-log2 of its frequency in the lower-cased
#: shared corpus); a character not listed counts :data:`RARE_BITS`.  Only the speed of the audit
#: depends on these figures.
CHAR_BITS: dict[str, int] = {char: bits for bits, chars in (
    (2, " "), (4, "aeinrst"), (5, "\ncdlop"), (6, "\"-fghmu"), (7, "()*,.:_`bvwy"), (8, "#'/0=kx|"),
    (9, "12;>[]jqz{}"), (10, "345<"), (11, "$%+68?\\"), (12, "\r79@"), (13, "!&")) for char in chars}
RARE_BITS = 14
#: Words are far more common than their letters suggest: a word (a run of two letters or more)
#: counts ``WORD_BITS``, its first letter's bits and, for each other letter, what its bits exceed
#: ``LETTER_DISCOUNT`` by (rare letters make rare words: "xxd", "iex"), at most ``MAX_WORD_BITS``.
WORD_BITS, LETTER_DISCOUNT, MAX_WORD_BITS = 2.0, 3.5, 16.0
_LETTER_RUNS = re.compile(r"[a-z]+|[^a-z]")


@dataclass(frozen=True)
class Facts:
    """What every match of a part of a pattern is made of.

    ``exact``: every string the part matches (None: too many, or not known); ``prefixes`` and
    ``suffixes``: every match starts (ends) with one of these (None: nothing known); ``needs``:
    every match contains one string of each of these sets."""

    exact: Strings = None
    prefixes: Strings = None
    suffixes: Strings = None
    needs: Needs = ()


UNKNOWN = Facts()
EMPTY = Facts(exact=frozenset({""}))


def scan_char(char: str, ignorecase: bool) -> str | None:
    """The character a pattern's ``char`` is looked for as in the lower-cased text, or None when
    it cannot be relied on there (a cased letter outside ASCII: see the module docstring)."""
    if char.isascii():
        return char.lower()
    if ignorecase:
        return char if char.lower() == char == char.upper() else None
    return char if char.lower() == char else None


def bits(literal: str) -> float:
    """How rare ``literal`` is in skill text, as bits: -log2 of the share of positions where it
    starts, estimated from its characters (see :data:`CHAR_BITS`)."""
    total = 0.0
    for piece in _LETTER_RUNS.findall(literal):
        if len(piece) > 1:  # a word
            rest = sum(max(0.0, CHAR_BITS[c] - LETTER_DISCOUNT) for c in piece[1:])
            total += min(MAX_WORD_BITS, WORD_BITS + CHAR_BITS[piece[0]] + rest)
        else:
            total += CHAR_BITS.get(piece, RARE_BITS)
    return total


def cost(literals: frozenset[str]) -> float:
    """The expected share of a text's positions where one of ``literals`` starts (lower is better)."""
    return sum(2.0 ** -bits(each) for each in literals)


def _key(literals: frozenset[str]) -> tuple[float, int, list[str]]:
    return cost(literals), len(literals), sorted(literals)


def _known(strings: Strings) -> Strings:
    """``strings`` unless it holds the empty string (which says nothing)."""
    return strings if strings and "" not in strings else None


def rarest(choices: Iterable[Strings]) -> Strings:
    """The rarest of several sets of literals (None when none says anything)."""
    return min(filter(None, map(_known, choices)), key=_key, default=None)


def _implies(first: frozenset[str], second: frozenset[str]) -> bool:
    """Whether holding a string of ``first`` means holding one of ``second``."""
    return all(any(other in each for other in second) for each in first)


def ranked(choices: Iterable[Strings], limit: int = MAX_SET) -> Needs:
    """The sets among ``choices`` worth looking for, the rarest first: each set not implied by a
    rarer one kept, at most ``limit``."""
    kept: list[frozenset[str]] = []
    for each in sorted(set(filter(None, map(_known, choices))), key=_key):  # type: ignore[arg-type]
        if len(kept) < limit and not any(_implies(rarer, each) for rarer in kept):
            kept.append(each)
    return tuple(kept)


def union(first: Strings, second: Strings, cut: int = 0) -> Strings:
    """Either set, or None when too large.  With ``cut`` (1: keep the start of each string, -1:
    its end), a set too large has its strings cut to fewer characters first: a match holding (or
    starting, or ending with) a string holds its start and its end as well.  A set of exact
    strings is never cut."""
    if first is None or second is None:
        return None
    joined = first | second
    length = 4
    while cut and len(joined) > MAX_SET and length > 0:
        joined = frozenset(each[:length] if cut > 0 else each[-length:] for each in joined)
        length -= 1
    return joined if len(joined) <= MAX_SET else None


def cross(first: Strings, second: Strings) -> Strings:
    """Each string of ``first`` followed by each of ``second`` (None when too many)."""
    if first is None or second is None or len(first) * len(second) > MAX_SET:
        return None
    return frozenset(a + b for a, b in product(first, second))


def exactly(strings: frozenset[str]) -> Facts:
    """The facts of a part that matches exactly ``strings``."""
    known = _known(strings)
    return Facts(strings, known, known, (known,) if known else ())


@functools.lru_cache(maxsize=None)
def derive(source: str, flags: int = 0) -> Literals:
    """The :class:`Literals` of the pattern ``source`` compiled with ``flags``.  Sound: a
    lower-cased text without a literal of each set holds no match, and no match starts where
    none of the starts does.  The first set is the one its gate's windows are built around: a
    rarer one by measured count (:func:`measured_anchor`) where there is one."""
    root = _root(source, flags)
    needs = ranked((*root.needs, root.prefixes, root.suffixes, root.exact))
    starts = root.prefixes if root.prefixes and cost(root.prefixes) <= MAX_STARTS_COST else None
    needs = needs[:1] + tuple(each for each in needs[1:] if _worth(each))[:MAX_NEEDS - 1]
    anchor = measured_anchor(source, flags, needs[0]) if needs else None
    if anchor is not None:
        needs = (anchor, *(each for each in needs if not _implies(anchor, each)))[:MAX_NEEDS]
    return Literals(needs, starts)


def _root(source: str, flags: int, spaces: bool = False) -> Facts:
    """The facts of the whole pattern (``spaces``: see :func:`_characters`)."""
    tree = _sre_parse.parse(source, flags)
    return _sequence(list(tree), bool(tree.state.flags & re.IGNORECASE), spaces)


def anchor_choices(source: str, flags: int) -> Needs:
    """The sets of literals, each in every match, a pattern's windows may be built around besides
    its rarest set by estimate: those derived with ``\\s`` read as its characters (a common word
    is rarer followed by white space, as it stands alone: "rm " against the "rm" of "format")."""
    root = _root(source, flags, spaces=True)
    return ranked((*root.needs, root.prefixes, root.suffixes, root.exact))


def measured_anchor(source: str, flags: int, anchor: frozenset[str]) -> frozenset[str] | None:
    """The set of :func:`anchor_choices` whose literals the shared corpus holds least often, when
    that is at most half as often as ``anchor``'s (None: none is, or the pattern was not
    measured: see ``make_literal_counts.py``).  Literals found less often mean fewer windows, each
    scanned by the pattern: only the audit's speed depends on these counts."""
    patterns, found = measured_counts()
    if (source, flags) not in patterns:
        return None
    rarest_choice = min(anchor_choices(source, flags), key=lambda each: (sum(found.get(l, 0) for l in each),
                                                                         len(each), sorted(each)), default=None)
    if rarest_choice is None:
        return None
    fewer = sum(found.get(literal, 0) for literal in rarest_choice) * _window_lines(source, flags, rarest_choice)
    more = sum(found.get(literal, 0) for literal in anchor) * _window_lines(source, flags, anchor)
    return rarest_choice if fewer * MEASURED_FACTOR <= more else None


def _window_lines(source: str, flags: int, literals: frozenset[str]) -> int:
    """How many lines holding text a window around one of ``literals`` reads in a long document
    (``line_reach.sides``, as :func:`skillsite.audit.text.lines_around` bounds them): fewer
    windows of more lines may read more."""
    from line_reach import sides  # development time too; it reads this module's facts

    before, after = lines_around(*(sides(source, flags, literals) or (None, None)))
    return before + 1 + after


#: How many times more often the rarest set by estimate must occur for a measured rarer one to replace it.
MEASURED_FACTOR = 2
#: Each literal of :func:`anchor_choices` and of the rarest set by estimate of every pattern
#: measured: how often the lower-cased folded text of the shared corpus holds it (written by
#: ``make_literal_counts.py``).
COUNTS = Path(__file__).resolve().parent / "literal_counts.json"


@functools.lru_cache(maxsize=None)
def measured_counts() -> tuple[frozenset[tuple[str, int]], dict[str, int]]:
    """The (source, flags) of each pattern measured, and how many times each literal was found
    (those found at least once: any other literal of a measured pattern, never)."""
    if not COUNTS.exists():
        return frozenset(), {}
    read = json.loads(COUNTS.read_text(encoding="utf-8"))
    return frozenset((source, flags) for source, flags in read["patterns"]), read["counts"]


def _worth(literals: frozenset[str]) -> bool:
    """Whether a set is rare enough to be worth checking besides the rarest one."""
    return min(map(bits, literals)) >= MIN_EXTRA_BITS


def _sequence(items: list[tuple[Any, Any]], ignorecase: bool, spaces: bool = False) -> Facts:
    """The facts of parts one after the other (``spaces``: see :func:`_characters`)."""
    return concatenation([_item(op, value, ignorecase, spaces) for op, value in items])


def concatenation(parts: list[Facts]) -> Facts:
    """The facts of ``parts`` matched one after the other."""
    exact: Strings = frozenset({""})
    for part in parts:
        exact = cross(exact, part.exact)
    needs = ranked((*(need for part in parts for need in part.needs), *_runs(parts), exact))
    return Facts(exact, _affix(parts), _affix(parts[::-1], reverse=True), needs)


def _affix(parts: list[Facts], reverse: bool = False) -> Strings:
    """What every match of the sequence starts with (ends with, for ``reverse`` parts): the
    exact parts in front, then the prefixes (suffixes) of the first part that is not exact."""
    found: frozenset[str] = frozenset({""})
    for part in parts:
        step = part.exact if part.exact is not None else (part.suffixes if reverse else part.prefixes)
        joined = (cross(step, found) if reverse else cross(found, step)) if step is not None else None
        if joined is None:
            break
        found = joined
        if part.exact is None:
            break
    return _known(found)


def _runs(parts: list[Facts]) -> Iterable[Strings]:
    """For each run of exact parts (or none) between two parts, the run with the suffixes of
    the part before it and the prefixes of the part after it: strings a match must contain."""
    start = 0
    while start <= len(parts):
        end = start
        while end < len(parts) and parts[end].exact is not None:
            end += 1
        run: Strings = frozenset({""})
        for part in parts[start:end]:
            run = cross(run, part.exact)
        before = parts[start - 1].suffixes if start > 0 else None
        after = parts[end].prefixes if end < len(parts) else None
        yield cross(cross(before or frozenset({""}), run), after or frozenset({""}))
        yield run
        start = end + 1


def _alternation(branches: list[Facts]) -> Facts:
    """The facts of one of ``branches``: each set the union of the branches' sets."""
    exact: Strings = frozenset()
    prefixes: Strings = frozenset()
    suffixes: Strings = frozenset()
    needed: Strings = frozenset()
    for branch in branches:
        exact = union(exact, branch.exact)
        prefixes = union(prefixes, _known(branch.prefixes), cut=1)
        suffixes = union(suffixes, _known(branch.suffixes), cut=-1)
        needed = union(needed, rarest((*branch.needs, branch.prefixes, branch.suffixes)), cut=1)
    return Facts(exact, prefixes, suffixes, ranked((needed, prefixes, suffixes, exact), limit=1))


def _repeat(low: int, high: int, body: Facts) -> Facts:
    """The facts of ``body`` repeated ``low`` to ``high`` times (``high`` may be MAXREPEAT)."""
    if high == 0:
        return EMPTY
    if low == 0:
        return Facts(exact=body.exact | {""}) if high == 1 and body.exact is not None else UNKNOWN
    written: Strings = frozenset({""})
    for _ in range(min(low, MAX_REPEAT)):
        written = cross(written, body.exact)
    exact = written if low == high <= MAX_REPEAT else None
    return Facts(exact, body.prefixes, body.suffixes, ranked((*body.needs, written)))


def _characters(items: list[tuple[Any, Any]], ignorecase: bool, spaces: bool = False) -> Facts:
    """The facts of a character class: its characters when they are few and each reliable; with
    ``spaces``, ``\\s`` read as every white space character it matches, which count as none of
    those few (a literal and the white space after it: "rm " where "rm" is mostly inside words)."""
    chars: set[str] = set()
    for op, value in items:
        if op is _sre.LITERAL:
            chars.add(chr(value))
        elif op is _sre.RANGE and value[1] - value[0] < MAX_CLASS:
            chars.update(map(chr, range(value[0], value[1] + 1)))
        elif op is _sre.CATEGORY and value is _sre.CATEGORY_SPACE and spaces:
            chars.update(white_space())
        else:  # a category (\d, \s ...), a negation, or a wide range
            return UNKNOWN
    scanned = {scan_char(char, ignorecase) for char in chars}
    if None in scanned or len(scanned - white_space()) > MAX_CLASS:
        return UNKNOWN
    return exactly(frozenset(scanned))  # type: ignore[arg-type]


@functools.lru_cache(maxsize=None)
def white_space() -> frozenset[str]:
    """Every character ``\\s`` matches in a str pattern: 29, not only ASCII's six (under
    ``re.ASCII`` it matches fewer: a superset is still sound)."""
    space = re.compile(r"\s")
    return frozenset(chr(code) for code in range(sys.maxunicode + 1) if space.match(chr(code)))


def _item(op: Any, value: Any, ignorecase: bool, spaces: bool = False) -> Facts:
    """The facts of one node of the parsed pattern (``spaces``: see :func:`_characters`)."""
    if op is _sre.LITERAL:
        char = scan_char(chr(value), ignorecase)
        return exactly(frozenset({char})) if char is not None else UNKNOWN
    if op is _sre.IN:
        return _characters(value, ignorecase, spaces)
    if op in (_sre.AT, _sre.ASSERT, _sre.ASSERT_NOT):
        return EMPTY  # consumes nothing
    if op is _sre.SUBPATTERN:
        _group, add, remove, body = value
        inner = (ignorecase or bool(add & re.IGNORECASE)) and not remove & re.IGNORECASE
        return _sequence(list(body), inner, spaces)
    if op is _sre.BRANCH:
        return _alternation([_sequence(list(branch), ignorecase, spaces) for branch in value[1]])
    if op in _REPEATS:
        low, high, body = value
        return _repeat(low, high, _sequence(list(body), ignorecase, spaces))
    if op is _ATOMIC:
        return _sequence(list(value), ignorecase, spaces)
    if op is _sre.GROUPREF_EXISTS:
        _group, yes, no = value
        return _alternation([_sequence(list(yes), ignorecase, spaces),
                             _sequence(list(no), ignorecase, spaces) if no else EMPTY])
    return UNKNOWN  # any character, a negated one, a category, a back-reference


_REPEATS = tuple(getattr(_sre, name) for name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
                 if hasattr(_sre, name))
_ATOMIC = getattr(_sre, "ATOMIC_GROUP", object())
