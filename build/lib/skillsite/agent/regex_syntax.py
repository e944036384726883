"""The grammar of trigger patterns: a parser into plain nodes and the canonical re-emitter
(standard library only).

Trigger patterns come from untrusted skills. Rather than reading Python's private parser
(``re._parser`` differs between versions), this parses the accepted subset of ``re`` syntax
itself and refuses everything else with a reason (:class:`Refused`):

- literal characters; escapes ``\\a \\f \\n \\r \\t \\v \\xhh \\uhhhh \\Uhhhhhhhh \\N{name}``,
  octal ``\\0``, ``\\0oo``, ``\\ooo`` and a backslash before any other non-alphanumeric character;
- ``.``, ``\\d \\D \\w \\W \\s \\S`` and classes ``[...]`` / ``[^...]`` of characters, ranges and
  those six escapes;
- anchors ``^ $ \\b \\B \\A \\Z``; look-arounds ``(?=...) (?!...) (?<=...) (?<!...)``;
- groups ``(...)``, ``(?:...)``, ``(?P<name>...)`` and ``(?flags:...)``; alternation ``|``;
- quantifiers ``* + ? {m} {m,} {,n} {m,n}`` (counts up to 1,000), greedy or lazy (``?``);
- inline flags from ``a i m s``, either scoped as above or as one ``(?flags)`` at the very start.

Backreferences, conditionals, comments, verbose mode, atomic groups, possessive quantifiers and
a bare ``{`` are refused. :func:`emit` writes a tree back as a pattern in one canonical spelling
(every group non-capturing, every character other than ``[A-Za-z0-9_]`` escaped), so that what
runs is exactly what was checked.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Callable, Union

MAX_COUNT = 1000
FLAG_LETTERS = frozenset("aims")
_SIMPLE_ESCAPES = {"a": 7, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11}
_CATEGORIES = frozenset("dDwWsS")
_ANCHOR_ESCAPES = frozenset("bBAZ")
_OCTAL = frozenset("01234567")
_HEX = frozenset("0123456789abcdefABCDEF")
_SET_OPERATORS = ("--", "&&", "~~", "||")
_FLAG_RUN = re.compile(r"[A-Za-z-]*")


class Refused(ValueError):
    """Why a pattern is outside the accepted subset (the message reads after the pattern)."""


@dataclass(frozen=True)
class Char:
    """One given character."""

    cp: int
    at: int = field(default=-1, compare=False)


@dataclass(frozen=True)
class Dot:
    """``.``: any character but a newline (any at all under the ``s`` flag)."""

    at: int = field(default=-1, compare=False)


@dataclass(frozen=True)
class Category:
    """``\\d \\D \\w \\W \\s \\S``."""

    code: str
    at: int = field(default=-1, compare=False)


@dataclass(frozen=True)
class Range:
    """``lo-hi`` inside a class."""

    lo: int
    hi: int


@dataclass(frozen=True)
class CharClass:
    """``[...]`` or ``[^...]``."""

    negated: bool
    items: tuple[Union[Char, Range, Category], ...]
    at: int = field(default=-1, compare=False)


@dataclass(frozen=True)
class Anchor:
    """A zero-width test: ``^ $`` or ``\\b \\B \\A \\Z`` (code ``b B A Z``)."""

    code: str


@dataclass(frozen=True)
class Look:
    """A look-around; kind is ``=``, ``!``, ``<=`` or ``<!``."""

    kind: str
    body: Node


@dataclass(frozen=True)
class Scoped:
    """``(?flags:body)``."""

    flags: str
    body: Node


@dataclass(frozen=True)
class Seq:
    """Parts one after the other (never directly inside another Seq)."""

    items: tuple[Node, ...]


@dataclass(frozen=True)
class Alt:
    """``a|b|...``, tried in order."""

    branches: tuple[Node, ...]


@dataclass(frozen=True)
class Repeat:
    """``body{low,high}``; high None is unbounded."""

    body: Node
    low: int
    high: int | None
    lazy: bool = False


@dataclass(frozen=True)
class Pattern:
    """A whole pattern: its leading global flags and its body."""

    flags: str
    body: Node


Atom = Union[Char, Dot, Category, CharClass]
Node = Union[Char, Dot, Category, CharClass, Anchor, Look, Scoped, Seq, Alt, Repeat]
ATOMS = (Char, Dot, Category, CharClass)


def parse(text: str) -> Pattern:
    """The tree of ``text``; :class:`Refused` when it is outside the accepted grammar."""
    return _Parser(text).pattern()


def emit(pattern: Pattern) -> str:
    """``pattern`` written out canonically; ``parse(emit(p)) == p``."""
    prefix = f"(?{pattern.flags})" if pattern.flags else ""
    return prefix + emit_node(pattern.body)


def emit_node(node: Node) -> str:
    """One node written out canonically."""
    if isinstance(node, Char):
        return escape_char(node.cp)
    if isinstance(node, Dot):
        return "."
    if isinstance(node, Category):
        return "\\" + node.code
    if isinstance(node, CharClass):
        return "[" + ("^" if node.negated else "") + "".join(map(_emit_item, node.items)) + "]"
    if isinstance(node, Anchor):
        return node.code if node.code in "^$" else "\\" + node.code
    if isinstance(node, Look):
        return f"(?{node.kind}{emit_node(node.body)})"
    if isinstance(node, Scoped):
        return f"(?{node.flags}:{emit_node(node.body)})"
    if isinstance(node, Seq):
        return "".join(_grouped(item) if isinstance(item, Alt) else emit_node(item) for item in node.items)
    if isinstance(node, Alt):
        return "|".join(_grouped(b) if isinstance(b, Alt) else emit_node(b) for b in node.branches)
    body = emit_node(node.body) if isinstance(node.body, (*ATOMS, Look, Scoped)) else _grouped(node.body)
    return body + _emit_quantifier(node.low, node.high) + ("?" if node.lazy else "")


def escape_char(cp: int) -> str:
    """A character as a pattern: ``[A-Za-z0-9_]`` as itself, other printable ASCII after a
    backslash, anything else as ``\\xhh``, ``\\uhhhh`` or ``\\Uhhhhhhhh``."""
    char = chr(cp)
    if char.isascii() and (char.isalnum() or char == "_"):
        return char
    if 0x20 <= cp < 0x7F:
        return "\\" + char
    if cp < 0x100:
        return f"\\x{cp:02x}"
    return f"\\u{cp:04x}" if cp < 0x10000 else f"\\U{cp:08x}"


def _grouped(node: Node) -> str:
    return f"(?:{emit_node(node)})"


def _emit_item(item: Char | Range | Category) -> str:
    if isinstance(item, Range):
        return f"{escape_char(item.lo)}-{escape_char(item.hi)}"
    return emit_node(item)


def _emit_quantifier(low: int, high: int | None) -> str:
    simple = {(0, None): "*", (1, None): "+", (0, 1): "?"}
    if (low, high) in simple:
        return simple[(low, high)]
    if high is None:
        return f"{{{low},}}"
    return f"{{{low}}}" if low == high else f"{{{low},{high}}}"


def seq(items: list[Node]) -> Node:
    """Parts in a row, flattened; a single part stands for itself."""
    flat: list[Node] = []
    for item in items:
        flat.extend(item.items if isinstance(item, Seq) else [item])
    return flat[0] if len(flat) == 1 else Seq(tuple(flat))


class _Parser:
    """Recursive descent over the grammar in the module docstring."""

    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0
        self.names: set[str] = set()

    def fail(self, what: str, at: int | None = None) -> Refused:
        """A refusal naming where it happened."""
        return Refused(f"{what} (at {self.pos if at is None else at})")

    def peek(self, count: int = 1) -> str:
        return self.text[self.pos:self.pos + count]

    def pattern(self) -> Pattern:
        flags = self.leading_flags()
        body = self.alternation()
        if self.pos < len(self.text):
            raise self.fail("has an unbalanced ')'")
        return Pattern(flags, body)

    def leading_flags(self) -> str:
        end = self.text.find(")")
        if not self.text.startswith("(?") or end < 0 or not self.text[2:end].isalpha():
            return ""
        self.pos = end + 1
        return _check_flags(self.text[2:end], self.fail, 0)

    def alternation(self) -> Node:
        branches = [self.sequence()]
        while self.peek() == "|":
            self.pos += 1
            branches.append(self.sequence())
        return branches[0] if len(branches) == 1 else Alt(tuple(branches))

    def sequence(self) -> Node:
        items: list[Node] = []
        while self.pos < len(self.text) and self.peek() not in "|)":
            items.append(self.quantified(self.atom()))
        return seq(items)

    def atom(self) -> Node:
        char, start = self.peek(), self.pos
        if char in "*+?":
            raise self.fail(f"has nothing to repeat before '{char}'")
        if char == "{":
            raise self.fail("has a bare '{' (write \\{ for the character)")
        if char == "[":
            return self.char_class()
        if char == "(":
            return self.group()
        if char == "\\":
            return self.escape(in_class=False)
        self.pos += 1
        if char == ".":
            return Dot(start)
        return Anchor(char) if char in "^$" else Char(ord(char), start)

    def quantified(self, node: Node) -> Node:
        bounds = self.quantifier()
        if bounds is None:
            return node
        if isinstance(node, (Anchor, Look)) or node == Seq(()):
            raise self.fail("repeats something that takes no characters")
        lazy = self.peek() == "?"
        self.pos += lazy
        if self.peek() == "+":
            raise self.fail("uses a possessive quantifier")
        if self.peek() and self.peek() in "*+?{":
            raise self.fail("has a quantifier right after another (write a group)")
        low, high = bounds
        if high == 0:
            raise self.fail("repeats something zero times")
        return node if low == high == 1 else Repeat(node, low, high, lazy)

    def quantifier(self) -> tuple[int, int | None] | None:
        """The bounds of the quantifier at the cursor (consumed), or None."""
        simple = {"*": (0, None), "+": (1, None), "?": (0, 1)}
        if self.peek() and self.peek() in simple:
            self.pos += 1
            return simple[self.text[self.pos - 1]]
        if self.peek() != "{":
            return None
        end = self.text.find("}", self.pos)
        low, comma, high = self.text[self.pos + 1:max(end, self.pos + 1)].partition(",")
        if end < 0 or not (low or high) or not _is_count(low) or not _is_count(high):
            raise self.fail("has a bare '{' (write \\{ for the character)")
        self.pos = end + 1
        lo = int(low or 0)
        hi = (int(high) if high else None) if comma else lo
        if max(lo, hi or 0) > MAX_COUNT:
            raise self.fail(f"counts more than {MAX_COUNT} repetitions")
        if hi is not None and lo > hi:
            raise self.fail("has a repeat whose minimum is above its maximum")
        return lo, hi

    def group(self) -> Node:
        start = self.pos
        self.pos += 1
        kind = self.group_kind(start)
        body = self.alternation()
        if self.peek() != ")":
            raise self.fail("has a '(' that is never closed", start)
        self.pos += 1
        if kind in ("=", "!", "<=", "<!"):
            return Look(kind, body)
        return Scoped(kind, body) if kind else body

    def group_kind(self, start: int) -> str:
        """Past the opening of a group: '' (plain), look-around kind, or scoped flags."""
        if self.peek() != "?":
            return ""
        rest = self.text[self.pos + 1:]
        for opener, kind in ((":", ""), ("=", "="), ("!", "!"), ("<=", "<="), ("<!", "<!")):
            if rest.startswith(opener):
                self.pos += 1 + len(opener)
                return kind
        if rest.startswith("P<"):
            end = self.text.find(">", self.pos)
            name = self.text[self.pos + 3:end] if end > 0 else ""
            if not name.isidentifier() or name in self.names:
                raise self.fail("has a bad or repeated group name", start)
            self.names.add(name)
            self.pos = end + 1
            return ""
        refusals = {"P=": "uses a backreference", "(": "uses a conditional", "#": "uses a comment",
                    ">": "uses an atomic group"}
        for opener, why in refusals.items():
            if rest.startswith(opener):
                raise self.fail(why, start)
        run = _FLAG_RUN.match(rest)
        letters = run.group() if run else ""
        if letters and rest[len(letters):].startswith(":"):
            self.pos += 2 + len(letters)
            return _check_flags(letters, self.fail, start)
        if letters and rest[len(letters):].startswith(")"):
            _check_flags(letters, self.fail, start)
            raise self.fail("sets flags after the start (only one (?flags) as the very first thing)", start)
        raise self.fail("has an unknown group extension '(?'", start)

    def escape(self, in_class: bool) -> Char | Category | Anchor:
        start = self.pos
        code = self.text[self.pos + 1:self.pos + 2]
        self.pos += 2
        if not code:
            raise self.fail("ends with a backslash", start)
        if code in _CATEGORIES:
            return Category(code, start)
        if code in _ANCHOR_ESCAPES:
            if not in_class:
                return Anchor(code)
            if code != "b":
                raise self.fail(f"has \\{code} inside a class", start)
            return Char(8, start)
        if code in _SIMPLE_ESCAPES:
            return Char(_SIMPLE_ESCAPES[code], start)
        if code in "xuU":
            return Char(self.hex_escape(code, start), start)
        if code == "N":
            return Char(self.named_escape(start), start)
        if code in _OCTAL or (code.isdigit() and code.isascii()):
            return Char(self.octal_escape(code, start, in_class), start)
        if code.isascii() and code.isalpha():
            raise self.fail(f"has an unknown escape \\{code}", start)
        return Char(ord(code), start)

    def hex_escape(self, code: str, start: int) -> int:
        width = {"x": 2, "u": 4, "U": 8}[code]
        digits = self.text[self.pos:self.pos + width]
        if len(digits) != width or not set(digits) <= _HEX:
            raise self.fail(f"has an incomplete escape \\{code}", start)
        self.pos += width
        value = int(digits, 16)
        if value > 0x10FFFF:
            raise self.fail(f"has an escape \\{code} beyond Unicode", start)
        return value

    def named_escape(self, start: int) -> int:
        end = self.text.find("}", self.pos)
        if self.peek() != "{" or end < 0:
            raise self.fail("has an incomplete escape \\N{...}", start)
        name, self.pos = self.text[self.pos + 1:end], end + 1
        try:
            found = unicodedata.lookup(name)
        except KeyError:
            found = ""
        if len(found) != 1:
            raise self.fail(f"names no single character in \\N{{{name}}}", start)
        return ord(found)

    def octal_escape(self, code: str, start: int, in_class: bool) -> int:
        """``\\0``, ``\\0oo``, ``\\ooo`` (and in a class ``\\o`` and ``\\oo`` too); others are group references."""
        more = self.text[self.pos:self.pos + 2]
        if code == "0" or in_class:
            if code not in _OCTAL:
                raise self.fail(f"has a bad escape \\{code}", start)
            taken = len(more) - len(more.lstrip("01234567"))
        elif len(more) == 2 and set(more) <= _OCTAL and code in _OCTAL:
            taken = 2
        else:
            raise self.fail("uses a backreference", start)
        self.pos += taken
        value = int(code + more[:taken], 8)
        if value > 0o377:
            raise self.fail("has an octal escape above \\377", start)
        return value

    def char_class(self) -> CharClass:
        start = self.pos
        self.pos += 1
        negated = self.peek() == "^"
        self.pos += negated
        items: list[Char | Range | Category] = []
        while not items or self.peek() != "]":  # a ']' first is the character itself
            if self.pos >= len(self.text):
                raise self.fail("has a '[' that is never closed", start)
            items.append(self.class_item())
        self.pos += 1
        return CharClass(negated, tuple(items), start)

    def class_item(self) -> Char | Range | Category:
        low = self.class_atom()
        if self.peek(2) == "--":
            raise self.fail("has '--' inside a class (escape it)")
        if self.peek() != "-" or self.peek(2)[1:] in ("", "]"):
            return low
        self.pos += 1
        high = self.class_atom()
        if not isinstance(low, Char) or not isinstance(high, Char) or low.cp > high.cp:
            raise self.fail("has a bad character range")
        return Range(low.cp, high.cp)

    def class_atom(self) -> Char | Category:
        if self.peek() == "\\":
            found = self.escape(in_class=True)
            assert not isinstance(found, Anchor)
            return found
        if self.peek() == "[" or self.peek(2) in _SET_OPERATORS:
            raise self.fail(f"has '{self.peek(2) if self.peek() != '[' else '['}' inside a class (escape it)")
        start = self.pos
        self.pos += 1
        return Char(ord(self.text[start]), start)


def _is_count(digits: str) -> bool:
    return not digits or (digits.isascii() and digits.isdigit())


def _check_flags(letters: str, fail: Callable[[str, int], Refused], at: int) -> str:
    """Inline flags, sorted; only ``a i m s``."""
    if "x" in letters:
        raise fail("uses verbose mode (x), which hides structure", at)
    if not set(letters) <= FLAG_LETTERS or len(set(letters)) != len(letters):
        raise fail(f"uses inline flags {letters!r}; only a, i, m and s are accepted", at)
    return "".join(sorted(letters))
