"""Whether a regular expression from untrusted input is safe to run on a crafted message
(standard library only).

Python's ``re`` backtracks: a pattern in which two ways of matching the same text compete can
take exponential or high-polynomial time.  Rather than guess, this allows a conservative
subset and names what it refuses:

- backreferences, conditionals, comments and verbose mode (which hides structure);
- a repeated group that itself repeats something, or holds an alternation (``(a+)+``,
  ``(a|aa)*``: write a character class instead);
- two repeats that can match the same character with nothing mandatory and different between
  them (``a*a*``, ``\\s*\\s*``, ``.*x.*``), the polynomial kind.

Character classes, ``.`` and negated escapes count as matching anything, so the check errs on
the side of refusing.  The pattern must already compile.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_REPEAT = re.compile(r"\{(\d*)(,?)(\d*)\}")
_CLASS_ESCAPES = {"d": "d", "w": "w", "s": "s"}
_ZERO_WIDTH_ESCAPES = frozenset("bBAZ")
_LITERAL_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v"}


class Unsafe(Exception):
    """What makes a pattern unsafe."""


@dataclass
class Item:
    """One atom or group of a sequence, with how it repeats."""

    sig: str | None          # what one repetition matches: "lit:x", "d", "w", "s", "any"; None: nothing
    repeat: str = "one"      # "one", "opt" (at most once) or "rep" (more than once)
    has_repeat: bool = False  # (groups) a repeat inside
    has_alt: bool = False     # (groups) an alternation inside


def unsafe_reason(pattern: str) -> str | None:
    """Why ``pattern`` could backtrack for a very long time; None when it is in the safe subset."""
    if re.search(r"\(\?[a-zA-Z]*x", pattern):
        return "uses verbose mode (x)"
    try:
        parser = _Parser(pattern)
        parser.sequence(top=True)
    except Unsafe as exc:
        return str(exc)
    return None


def overlap(a: str, b: str) -> bool:
    """Whether two atoms can match the same character (case-insensitively)."""
    if "any" in (a, b):
        return True
    if a.startswith("lit:") and b.startswith("lit:"):
        return a[4:].lower() == b[4:].lower()
    if a.startswith("lit:"):
        a, b = b, a
    if b.startswith("lit:"):
        char = b[4:]
        return {"d": char.isdigit(), "w": char.isalnum() or char == "_", "s": char.isspace()}[a]
    return a == b or {a, b} == {"d", "w"}


def check_sequence(items: list[Item]) -> None:
    """Refuse two repeats that can match the same text with nothing mandatory and disjoint between."""
    pending: str | None = None
    for item in items:
        if item.sig is None or item.repeat == "opt":
            continue  # zero-width, or may match nothing: no separation
        if item.repeat == "rep":
            if pending is not None and overlap(pending, item.sig):
                raise Unsafe("has two repeats that can match the same text one after the other "
                             "(polynomial backtracking)")
            pending = item.sig
        elif pending is not None and not overlap(pending, item.sig):
            pending = None


class _Parser:
    """A recursive-descent walk over an already compiled pattern, checking as it goes."""

    def __init__(self, pattern: str) -> None:
        self.pattern, self.i = pattern, 0

    def peek(self, count: int = 1) -> str:
        return self.pattern[self.i:self.i + count]

    def sequence(self, top: bool = False) -> tuple[str | None, bool, bool]:
        """Parse alternatives up to ``)`` (or the end): (signature, has a repeat, has an alternation)."""
        alternatives: list[list[Item]] = [[]]
        has_repeat = False
        while self.i < len(self.pattern) and not (self.peek() == ")" and not top):
            if self.peek() == "|":
                self.i += 1
                alternatives.append([])
                continue
            item = self.atom()
            self.quantify(item)
            has_repeat = has_repeat or item.repeat == "rep" or item.has_repeat
            alternatives[-1].append(item)
        for items in alternatives:
            check_sequence(items)
        first = next((it for it in alternatives[0] if it.sig is not None), None)
        sig = first.sig if len(alternatives) == 1 and first is not None and first.repeat == "one" else "any"
        has_alt = len(alternatives) > 1 or any(it.has_alt for items in alternatives for it in items)
        return sig, has_repeat, has_alt

    def atom(self) -> Item:
        char = self.peek()
        if char == "\\":
            return self.escape()
        if char == "[":
            self.i = _class_end(self.pattern, self.i)
            return Item("any")
        if char == "(":
            return self.group()
        self.i += 1
        if char in "^$":
            return Item(None)
        return Item("any" if char == "." else f"lit:{char}")

    def escape(self) -> Item:
        code = self.pattern[self.i + 1:self.i + 2]
        self.i += 2
        if code.isdigit() and code != "0":
            raise Unsafe("uses a backreference")
        if code in _ZERO_WIDTH_ESCAPES:
            return Item(None)
        if code.lower() in _CLASS_ESCAPES:
            return Item(_CLASS_ESCAPES[code] if code.islower() else "any")
        if code in _LITERAL_ESCAPES:
            return Item(f"lit:{_LITERAL_ESCAPES[code]}")
        return Item("any" if code.isalnum() else f"lit:{code}")  # \x41, \u...: taken as anything

    def group(self) -> Item:
        text = self.pattern
        if text.startswith(("(?P=", "(?(", "(?#"), self.i):
            raise Unsafe("uses a backreference, a conditional or a comment")
        zero_width = text.startswith(("(?=", "(?!", "(?<=", "(?<!"), self.i)
        self.i = _group_body(text, self.i)
        if text[self.i - 1] == ")":  # inline flags alone, such as (?i)
            return Item(None)
        sig, has_repeat, has_alt = self.sequence()
        self.i += 1  # the closing ")"
        return Item(None if zero_width else sig, "one", has_repeat, has_alt)

    def quantify(self, item: Item) -> None:
        repeats, width = _quantifier(self.pattern, self.i)
        if width == 0:
            return
        self.i += width
        item.repeat = "rep" if repeats else "opt"
        if repeats and (item.has_repeat or item.has_alt):
            raise Unsafe("repeats a group that already repeats or holds an alternation "
                         "(nested quantifiers; use a character class instead of a|b)")


def _class_end(pattern: str, start: int) -> int:
    """The index just after the character class opened at ``start``."""
    i = start + 1
    if pattern[i:i + 1] == "^":
        i += 1
    if pattern[i:i + 1] == "]":
        i += 1
    while i < len(pattern) and pattern[i] != "]":
        i += 2 if pattern[i] == "\\" else 1
    return i + 1


def _group_body(pattern: str, start: int) -> int:
    """The index where the body of the group opened at ``start`` begins (past ``(?:``, ``(?P<x>``...);
    for inline flags alone, the index after their ``)``."""
    i = start + 1
    if pattern[i:i + 1] != "?":
        return i
    if pattern.startswith("?P<", i):
        return pattern.index(">", i) + 1
    if pattern.startswith(("?<=", "?<!"), i):
        return i + 3
    i += 1
    while i < len(pattern) and pattern[i] not in ":)=!>":
        i += 1  # inline flags such as (?i) or (?i:...)
    return i + 1


def _quantifier(pattern: str, i: int) -> tuple[bool, int]:
    """Whether the quantifier at ``i`` (if any) repeats more than once, and its width (0: none)."""
    char = pattern[i:i + 1]
    if char in ("*", "+"):
        repeats, width = True, 1
    elif char == "?":
        repeats, width = False, 1
    elif char == "{" and (match := _REPEAT.match(pattern, i)) and (match.group(1) or match.group(3)):
        low, comma, high = match.groups()
        repeats = (not high or int(high) > 1) if comma else int(low) > 1
        width = match.end() - i
    else:
        return False, 0
    if pattern[i + width:i + width + 1] in ("?", "+"):
        width += 1  # lazy or possessive form
    return repeats, width
