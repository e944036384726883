"""Whether a trigger pattern from an untrusted skill is safe to run on a crafted message, and
the exact pattern to run (standard library only).

Python's ``re`` backtracks: when two ways through a pattern can read the same text, a failing
search tries them all, which can take exponential or high-polynomial time. A pattern is safe
by construction when:

1. it parses in the grammar of :mod:`skillsite.agent.regex_syntax` (what runs is that tree
   written out again, :func:`skillsite.agent.regex_syntax.emit`);
2. an unbounded repeat (``*``, ``+``, ``{m,}``) holds no other repeat; nothing repeated or
   optional can match nothing, and at most one alternative of a choice can; a counted ``{m,n}``
   is written out (``x{2,4}`` as ``xx(x(x)?)?``), up to 1,000 atoms in all;
3. it is unambiguous: each atom stands for the exact set of characters it matches (as the
   loader runs it: case-insensitively, Unicode ``\\d \\w \\s``), and no two ways through the
   pattern ever reach the same atom after reading the same text (this refuses ``a*a*``,
   ``\\d+1+``, ``.*x.*``, ``(a|aa)*``, ``[a-z]*-?[a-z]*x``, ``k+\\u212a+``...);
4. its work is bounded: one search of ``n`` characters makes at most ``n * (t0 + w * t1)``
   tries, with ``t0`` the atoms and zero-width tests tried where a match starts, ``t1`` the
   most tried after any one character and ``w`` the longest match (``n`` when unbounded);
   this must stay within ``8 * n * n`` (with an unbounded repeat: 7 tries per character).

Two ways may both reach the end of the match: nothing follows it, so they cannot multiply.
A look-around must hold no unbounded repeat; its own work counts as tries where it is reached.
"""
from __future__ import annotations

import math
import re
from collections import deque
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator

from skillsite.agent.regex_charsets import MAX_CP, CharSet, atom_set
from skillsite.agent.regex_syntax import (ATOMS, Alt, Anchor, Atom, Look, Node, Refused, Repeat, Scoped,
                                          Seq, emit, emit_node, parse)

__all__ = ["MESSAGE_CHARS", "Refused", "SafePattern", "check", "compile_trigger", "search_work", "unsafe_reason",
           "verdicts_kept"]

MESSAGE_CHARS = 4000
WORK_PER_CHAR = 8
MAX_POSITIONS = 1000
MAX_STATES = 10_000
END = 0  # position 0: the end of a match; atoms are 1, 2, ...


@dataclass(frozen=True)
class SafePattern:
    """An accepted pattern: the text that runs and the work one search may cost."""

    source: str
    text: str
    atoms: int
    first_tries: int
    tries_per_char: int
    longest: float
    work: int


def unsafe_reason(pattern: str, message_chars: int = MESSAGE_CHARS) -> str | None:
    """Why ``pattern`` is refused (a phrase to put after it); None when it is safe."""
    verdict = _verdict(pattern, message_chars)
    return verdict if isinstance(verdict, str) else None


def search_work(pattern: str, message_chars: int = MESSAGE_CHARS) -> int | None:
    """The most work one search of an accepted pattern may cost (None when it is refused)."""
    verdict = _verdict(pattern, message_chars)
    return None if isinstance(verdict, str) else verdict.work


def compile_trigger(pattern: str, message_chars: int = MESSAGE_CHARS) -> re.Pattern[str]:
    """The compiled canonical form of an accepted pattern, as the loader matches it
    (case-insensitively); :class:`Refused` otherwise."""
    verdict = _verdict(pattern, message_chars)
    if isinstance(verdict, str):
        raise Refused(verdict)
    return re.compile(verdict.text, re.IGNORECASE)


#: Verdicts a run keeps whole (:func:`verdicts_kept`), by pattern and message length; None: outside one.
_kept: ContextVar[dict[tuple[str, int], SafePattern | str] | None] = ContextVar("kept_verdicts", default=None)


@contextmanager
def verdicts_kept() -> Iterator[None]:
    """Keep every verdict taken inside until the block ends (a nested block shares the outer one's).
    The process-wide cache holds the last 4,096 only: a run going over more distinct patterns than
    that more than once (a skill's checks, a catalog's budget then its compiling) would check each
    again on every pass. What a run keeps goes with it: a long-lived process holds no more."""
    if _kept.get() is not None:
        yield
        return
    token = _kept.set({})
    try:
        yield
    finally:
        _kept.reset(token)


def _verdict(pattern: str, message_chars: int) -> SafePattern | str:
    """The verdict on ``pattern``: kept by the run around it (:func:`verdicts_kept`), else cached."""
    kept = _kept.get()
    if kept is None:
        return _cached_verdict(pattern, message_chars)
    key = (pattern, message_chars)
    if key not in kept:
        kept[key] = _cached_verdict(pattern, message_chars)
    return kept[key]


@lru_cache(maxsize=4096)
def _cached_verdict(pattern: str, message_chars: int) -> SafePattern | str:
    try:
        return check(pattern, message_chars)
    except Refused as exc:
        return str(exc)
    except RecursionError:
        return "is nested too deeply to check"


def check(pattern: str, message_chars: int = MESSAGE_CHARS) -> SafePattern:
    """Check ``pattern`` against the rules of this module; :class:`Refused` says which fails."""
    tree = parse(pattern)
    text = emit(tree)
    if parse(text) != tree:
        raise Refused("cannot be written back in canonical form")
    for candidate, flags in ((pattern, 0), (text, re.IGNORECASE)):
        try:
            re.compile(candidate, flags)
        except (re.error, RecursionError, OverflowError) as exc:
            raise Refused(f"is not a valid regular expression ({exc})") from None
    automaton = _Automaton()
    fragment = automaton.build(tree.body, tree.flags)
    atoms = len(automaton.sets) - 1
    first_tries, per_char = automaton.explore(fragment, message_chars)
    work = message_chars * (first_tries + min(fragment.longest, message_chars) * per_char)
    return SafePattern(pattern, text, atoms, first_tries, per_char, fragment.longest, int(work))


@dataclass
class _Fragment:
    """A part of the pattern as positions (Glushkov): the atoms that can read its first and its
    last character, each with the cost of the zero-width tests on the way, and its ways of
    matching nothing (at most one)."""

    first: list[tuple[int, int]]
    last: list[tuple[int, int]]
    empty: list[int]
    longest: float
    shortest: int


def _nothing(cost: int = 0) -> _Fragment:
    return _Fragment([], [], [cost], 0, 0)


class _Automaton:
    """The positions of a pattern, what each can read and which can follow which."""

    def __init__(self) -> None:
        self.sets: list[CharSet] = [CharSet()]
        self.labels: list[str] = ["the end"]
        self.follow: list[list[tuple[int, int]]] = [[]]

    def build(self, node: Node, flags: str) -> _Fragment:
        """The fragment of ``node`` (adding its positions and inner follow edges)."""
        if isinstance(node, ATOMS):
            return self.atom(node, flags)
        if isinstance(node, Anchor):
            return _nothing(1)
        if isinstance(node, Look):
            return _nothing(_look_cost(node, flags))
        if isinstance(node, Scoped):
            return self.build(node.body, "".join(sorted(set(flags + node.flags))))
        if isinstance(node, Seq):
            fragment = _nothing()
            for item in node.items:
                fragment = self.concat(fragment, self.build(item, flags))
            return fragment
        if isinstance(node, Alt):
            return self.alternation(node, flags)
        return self.repeat(node, flags)

    def atom(self, node: Atom, flags: str) -> _Fragment:
        """A new position reading ``node``'s set of characters."""
        if len(self.sets) > MAX_POSITIONS:
            raise Refused(f"is too large: more than {MAX_POSITIONS} atoms once counted repeats are written out")
        position = len(self.sets)
        self.sets.append(atom_set(node, "".join(f for f in flags if f in "as")))
        self.labels.append(f"`{emit_node(node)}` (at {node.at})")
        self.follow.append([])
        return _Fragment([(position, 0)], [(position, 0)], [], 1, 1)

    def concat(self, a: _Fragment, b: _Fragment) -> _Fragment:
        for p, cost_p in a.last:
            self.follow[p].extend((q, cost_p + cost_q) for q, cost_q in b.first)
        return _Fragment(a.first + [(q, e + c) for e in a.empty for q, c in b.first],
                         b.last + [(p, c + e) for e in b.empty for p, c in a.last],
                         [x + y for x in a.empty for y in b.empty],
                         a.longest + b.longest, a.shortest + b.shortest)

    def alternation(self, node: Alt, flags: str) -> _Fragment:
        parts = [self.build(branch, flags) for branch in node.branches]
        empty = [cost for part in parts for cost in part.empty]
        if len(empty) > 1:
            raise Refused(f"can match nothing in two ways: two alternatives of `{emit_node(node)[:40]}` "
                          "match nothing (write one optional group)")
        return _Fragment([e for part in parts for e in part.first], [e for part in parts for e in part.last],
                         empty, max(part.longest for part in parts), min(part.shortest for part in parts))

    def repeat(self, node: Repeat, flags: str) -> _Fragment:
        """A repeat, written out: ``x{2,4}`` as ``xx(x(x)?)?``, ``x{2,}`` as ``xx+``."""
        shown = emit_node(node)[:40]
        if node.high is None and _holds_repeat(node.body):
            raise Refused(f"repeats a part that repeats itself (`{shown}`: nested quantifiers)")
        copies = [self.build(node.body, flags)]
        if copies[0].empty:
            raise Refused(f"repeats or makes optional a part that can match nothing (`{shown}`)")
        mandatory = node.low if node.high is not None else max(node.low - 1, 0)
        while len(copies) < mandatory:
            copies.append(self.build(node.body, flags))
        fragment = _nothing()
        for copy in copies[:mandatory]:
            fragment = self.concat(fragment, copy)
        if node.high is None:
            body = copies[mandatory] if len(copies) > mandatory else self.build(node.body, flags)
            return self.concat(fragment, self.loop(body, optional=node.low == 0))
        tail: _Fragment | None = None
        for index in range(node.high - node.low):
            copy = copies[mandatory] if index == 0 and len(copies) > mandatory else self.build(node.body, flags)
            inner = copy if tail is None else self.concat(copy, tail)
            tail = _Fragment(inner.first, inner.last, [0], inner.longest, 0)
        return fragment if tail is None else self.concat(fragment, tail)

    def loop(self, body: _Fragment, optional: bool) -> _Fragment:
        """``body*`` (or ``body+``): its last positions lead back to its first."""
        for p, cost_p in body.last:
            self.follow[p].extend((q, cost_p + cost_q) for q, cost_q in body.first)
        return _Fragment(body.first, body.last, [0] if optional else [], math.inf, 0 if optional else body.shortest)

    def explore(self, fragment: _Fragment, message_chars: int | None) -> tuple[int, int]:
        """Check rules 3 and 4 by reading every text at once: (tries at the start, most tries after
        one character). With ``message_chars`` None the work is not limited (a look-around's)."""
        for p, cost in fragment.last:
            self.follow[p].append((END, cost))
        start = len(self.sets)
        self.sets.append(CharSet())
        self.labels.append("the start")
        self.follow.append(fragment.first + [(END, cost) for cost in fragment.empty])
        first_tries = sum(1 + cost for _, cost in self.follow[start])
        limit = math.inf
        if message_chars is not None:
            longest = min(fragment.longest, message_chars)
            limit = (WORK_PER_CHAR * message_chars - first_tries) / longest if longest else math.inf
            if first_tries > WORK_PER_CHAR * message_chars:
                raise Refused(f"does too much work: {first_tries} tries at each place a search starts")
        return first_tries, _Explorer(self, limit).run(start)


class _Explorer:
    """Breadth-first over the sets of positions that one text can leave alive."""

    def __init__(self, automaton: _Automaton, limit: float) -> None:
        self.labels, self.limit = automaton.labels, limit
        self.classes = _minterms(automaton.sets)
        self.masks = [sum(1 << q for q, _ in follow if q != END) for follow in automaton.follow]
        self.tries = [sum(1 + cost for _, cost in follow) for follow in automaton.follow]
        self.parent: dict[int, tuple[int, str]] = {}
        for position, follow in enumerate(automaton.follow):
            targets = [q for q, _ in follow if q != END]
            if len(targets) != len(set(targets)):
                raise Refused(f"can match the same text in two ways: {self.labels[position]} "
                              "is followed by the same atom in two ways")

    def run(self, start: int) -> int:
        """The most tries after one character; :class:`Refused` on ambiguity or too much work."""
        most = 0
        queue = deque([1 << start])
        while queue:
            alive = queue.popleft()
            positions = _members(alive)
            tries = sum(self.tries[p] for p in positions)
            if positions != [start]:
                most = max(most, tries)
                if tries > self.limit:
                    raise Refused(
                        f"does too much work per character: after reading {self.witness(alive)!r}, "
                        f"{_ways(len(positions))} alive, with {tries} tries on the next character "
                        f"(at most {int(self.limit)} here; think of `.*` before a long run of one letter, "
                        "or a repeated choice between many words)")
            queue.extend(self.step(alive, positions))
        return most

    def step(self, alive: int, positions: list[int]) -> list[int]:
        """The new sets of positions that one more character can leave alive."""
        found = []
        for key, sample in self.moves(alive, positions).items():
            after = 0
            for p in positions:
                move = self.masks[p] & key
                if after & move:
                    self.ambiguous(alive, positions, p, move & after, sample)
                after |= move
            if after and after not in self.parent:
                self.parent[after] = (alive, chr(sample))
                found.append(after)
        if len(self.parent) > MAX_STATES:
            raise Refused(f"is too complex to check (more than {MAX_STATES:,} states of reading)")
        return found

    def moves(self, alive: int, positions: list[int]) -> dict[int, int]:
        """The distinct sets of next positions one character can enter, each with an example."""
        reach = 0
        for p in positions:
            reach |= self.masks[p]
        moves: dict[int, int] = {}
        for enabled, sample in self.classes:
            key = enabled & reach
            if key and key not in moves:
                moves[key] = sample
        return moves

    def ambiguous(self, alive: int, positions: list[int], late: int, clash: int, sample: int) -> None:
        meet = clash.bit_length() - 1
        early = next(p for p in positions if p != late and self.masks[p] >> meet & 1)
        text = self.witness(alive) + chr(sample)
        raise Refused(f"can match the same text in two ways, which makes backtracking slow: reading {text!r}, "
                      f"{self.labels[early]} and {self.labels[late]} both go on to {self.labels[meet]} "
                      "(like `a*a*`, `(a|aa)*` or `.*x.*`)")

    def witness(self, alive: int) -> str:
        """The shortest text found that leaves ``alive``."""
        chars = []
        while alive in self.parent:
            alive, char = self.parent[alive]
            chars.append(char)
        return "".join(reversed(chars))


def _minterms(sets: list[CharSet]) -> list[tuple[int, int]]:
    """The classes of characters that no atom tells apart: (positions that can read them, an
    example character, printable ASCII when there is one)."""
    distinct: dict[CharSet, int] = {}
    for position, found in enumerate(sets):
        distinct[found] = distinct.get(found, 0) | 1 << position
    masks = list(distinct.values())
    toggles: dict[int, int] = {}
    for index, found in enumerate(distinct):
        for bound in found.bounds:
            toggles[bound] = toggles.get(bound, 0) ^ 1 << index
    samples: dict[int, int] = {}
    active = 0
    points = sorted(toggles)
    for bound, following in zip(points, points[1:] + [MAX_CP]):
        active ^= toggles[bound]
        sample = 0x21 if bound < 0x21 < following else bound
        if active and (active not in samples or _is_plain(sample) and not _is_plain(samples[active])):
            samples[active] = sample
    return [(sum(mask for i, mask in enumerate(masks) if signature >> i & 1), sample)
            for signature, sample in samples.items()]


def _members(mask: int) -> list[int]:
    """The positions in a bit mask."""
    found = []
    while mask:
        low = mask & -mask
        found.append(low.bit_length() - 1)
        mask ^= low
    return found


def _ways(count: int) -> str:
    return "one way through it is" if count == 1 else f"{count} ways through it are"


def _is_plain(cp: int) -> bool:
    return 0x21 <= cp < 0x7F


def _holds_repeat(node: Node) -> bool:
    """Whether ``node`` holds a quantifier that repeats (more than ``?``)."""
    if isinstance(node, Repeat):
        return node.high is None or node.high > 1 or _holds_repeat(node.body)
    if isinstance(node, (Seq, Alt)):
        return any(map(_holds_repeat, node.items if isinstance(node, Seq) else node.branches))
    if isinstance(node, (Scoped, Look)):
        return _holds_repeat(node.body)
    return False


@lru_cache(maxsize=256)
def _look_cost(node: Look, flags: str) -> int:
    """The work of one run of a look-around's body (checked like a pattern of its own)."""
    inner = _Automaton()
    fragment = inner.build(node.body, flags)
    if fragment.longest == math.inf:
        raise Refused(f"has a look-around with an unbounded repeat (`{emit_node(node)[:40]}`)")
    if node.kind.startswith("<") and fragment.longest != fragment.shortest:
        raise Refused(f"has a look-behind of varying width (`{emit_node(node)[:40]}`)")
    first_tries, per_char = inner.explore(fragment, None)
    return 1 + first_tries + int(fragment.longest) * per_char
