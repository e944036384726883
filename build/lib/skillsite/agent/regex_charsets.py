"""The set of characters one atom of a trigger pattern matches, as the loader runs it: with
``re.IGNORECASE``, in a str pattern (standard library only).

A :class:`CharSet` is a sorted tuple of boundaries ``(lo0, hi0, lo1, hi1, ...)`` standing for
the code points in ``[lo0, hi0) | [lo1, hi1) | ...``. :func:`atom_set` is exact rather than
guessed: ``\\d \\w \\s`` are read off Python's own ``re`` over every code point once, and case
folding (``k``, ``K`` and KELVIN SIGN ``\\u212a`` are one letter; ``ſ`` is an ``s``) is settled
by matching the atom itself against every character that has a case mapping.
"""
from __future__ import annotations

import array
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Iterable

from skillsite.agent.regex_syntax import Atom, Category, Char, Dot, Range, emit_node

MAX_CP = 0x110000
_ASCII_CATEGORIES = {"d": ((48, 58),), "w": ((48, 58), (65, 91), (95, 96), (97, 123)),
                     "s": ((9, 14), (32, 33))}


@dataclass(frozen=True)
class CharSet:
    """A set of code points as half-open intervals."""

    bounds: tuple[int, ...] = ()

    @staticmethod
    def of(points: Iterable[int]) -> CharSet:
        """The set of the given code points."""
        return CharSet.spans((cp, cp + 1) for cp in points)

    @staticmethod
    def spans(pairs: Iterable[tuple[int, int]]) -> CharSet:
        """The union of half-open intervals ``[lo, hi)``."""
        bounds: list[int] = []
        for lo, hi in sorted(pairs):
            if bounds and lo <= bounds[-1]:
                bounds[-1] = max(bounds[-1], hi)
            elif lo < hi:
                bounds += [lo, hi]
        return CharSet(tuple(bounds))

    def __bool__(self) -> bool:
        return bool(self.bounds)

    def __contains__(self, cp: int) -> bool:
        return any(lo <= cp < hi for lo, hi in self.intervals())

    def intervals(self) -> list[tuple[int, int]]:
        """The intervals ``[lo, hi)``, in order."""
        return list(zip(self.bounds[::2], self.bounds[1::2]))

    def size(self) -> int:
        """How many code points."""
        return sum(hi - lo for lo, hi in self.intervals())

    def union(self, other: CharSet) -> CharSet:
        return _combine(self, other, lambda a, b: a or b)

    def minus(self, other: CharSet) -> CharSet:
        return _combine(self, other, lambda a, b: a and not b)

    def intersection(self, other: CharSet) -> CharSet:
        return _combine(self, other, lambda a, b: a and b)

    def complement(self) -> CharSet:
        return CharSet.spans([(0, MAX_CP)]).minus(self)

    def sample(self) -> int:
        """One member, printable ASCII when there is one (for examples in messages)."""
        for lo, hi in self.intervals():
            if lo < 0x7F and hi > 0x21:
                return max(lo, 0x21)
        for lo, hi in self.intervals():
            for cp in range(lo, min(hi, lo + 64)):
                if chr(cp).isprintable():
                    return cp
        return self.bounds[0]


def _combine(a: CharSet, b: CharSet, keep: Callable[[bool, bool], bool]) -> CharSet:
    """A boolean combination of two sets, by sweeping their boundaries."""
    out: list[int] = []
    in_a = in_b = inside = False
    bounds_a, bounds_b = set(a.bounds), set(b.bounds)
    for point in sorted(bounds_a | bounds_b):
        in_a ^= point in bounds_a
        in_b ^= point in bounds_b
        if keep(in_a, in_b) != inside:
            inside = not inside
            out.append(point)
    return CharSet(tuple(out))


@dataclass(frozen=True)
class _Tables:
    """What is read off ``re`` and ``str`` once: Unicode ``\\d \\w \\s``, and every character that
    has a case mapping or is one (as a string, its code points and a set)."""

    categories: dict[str, CharSet]
    cased_text: str
    cased_points: tuple[int, ...]
    cased: CharSet


@lru_cache(maxsize=1)
def _tables() -> _Tables:
    """Build the tables from a string of all code points (about 0.1 s; the string is not kept)."""
    encoding = "utf-32-le" if sys.byteorder == "little" else "utf-32-be"
    text = array.array("I", range(MAX_CP)).tobytes().decode(encoding, "surrogatepass")
    categories = {code: CharSet.spans(m.span() for m in re.finditer(f"\\{code}+", text)) for code in "dws"}
    found: set[int] = set()
    for start in range(0, MAX_CP, 512):
        chunk = text[start:start + 512]
        if chunk.lower() == chunk == chunk.upper() == chunk.casefold() == chunk.title():
            continue
        for char in chunk:
            mapped = {char.lower(), char.upper(), char.casefold(), char.title()} - {char}
            if mapped:
                found.add(ord(char))
                found.update(ord(c) for spelt in mapped for c in spelt)
    points = tuple(sorted(found))
    return _Tables(categories, "".join(map(chr, points)), points, CharSet.of(points))


def category_set(code: str, ascii_only: bool) -> CharSet:
    """``\\d``, ``\\w`` or ``\\s`` (code ``d w s``), exactly as ``re`` has them."""
    return CharSet.spans(_ASCII_CATEGORIES[code]) if ascii_only else _tables().categories[code]


def case_sensitive_set(atom: Atom, flags: str) -> CharSet:
    """What ``atom`` matches without ``re.IGNORECASE`` (flags from ``a s``)."""
    if isinstance(atom, Char):
        return CharSet.of([atom.cp])
    if isinstance(atom, Dot):
        return CharSet.spans([(0, MAX_CP)]) if "s" in flags else CharSet.spans([(0, 10), (11, MAX_CP)])
    if isinstance(atom, Category):
        base = category_set(atom.code.lower(), "a" in flags)
        return base.complement() if atom.code.isupper() else base
    found = CharSet()
    for item in atom.items:
        if isinstance(item, Range):
            found = found.union(CharSet.spans([(item.lo, item.hi + 1)]))
        else:
            found = found.union(case_sensitive_set(item, flags))
    return found.complement() if atom.negated else found


@lru_cache(maxsize=4096)
def atom_set(atom: Atom, flags: str) -> CharSet:
    """What ``atom`` matches under ``re.IGNORECASE`` and the inline flags in force (``a s``):
    its case-sensitive set, with every character that has a case mapping tested by ``re``."""
    tables = _tables()
    options = re.IGNORECASE | (re.ASCII if "a" in flags else 0) | (re.DOTALL if "s" in flags else 0)
    matcher = re.compile(emit_node(atom), options)
    hits = CharSet.of(tables.cased_points[match.start()] for match in matcher.finditer(tables.cased_text))
    return case_sensitive_set(atom, flags).minus(tables.cased).union(hits)
