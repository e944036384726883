"""The folded copy of a text that the audit's rules match against, with its map back to the text.

Folding decodes HTML character references, removes invisible characters, maps look-alike and
styled letters to ASCII (:mod:`skillsite.audit.letters`), drops what parts a word in prose
(emphasis marks, tags, a hyphen at a line break), joins shell line continuations and glues string
literals concatenated in code, so that split or disguised keywords are still found.  Every
folded position maps back to its place in the original text, for line and column.
"""
from __future__ import annotations

import bisect
import functools
import html
import re
from dataclasses import dataclass
from typing import Callable

from skillsite.audit.letters import ascii_forms, foldable_class

#: Characters removed before matching: zero-width, soft hyphen, bidi controls, tags, selectors.
_INVISIBLE_CHARS = ("\u00ad\u034f\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
                    "\ufe00-\ufe0f\U000e0000-\U000e007f\U000e0100-\U000e01ef")
INVISIBLE = re.compile(f"[{_INVISIBLE_CHARS}]")


def _one_of(chars: str) -> re.Pattern[str]:
    """One character of a class of non-ASCII ones: the search skips to a non-ASCII character (a
    short class) and only there looks back at the long class, whose ranges past U+FFFF the
    engine would otherwise test at every character."""
    return re.compile(f"[^\\x00-\\x7f](?<=[{chars}])")


@functools.lru_cache(maxsize=None)
def _foldable() -> re.Pattern[str]:
    """Invisible characters, the look-alike and styled letters (the styled blocks whole) and
    fullwidth ASCII; compiled on first use."""
    return _one_of(_INVISIBLE_CHARS + foldable_class() + "\uff01-\uff5e")


@functools.lru_cache(maxsize=None)
def _unusual() -> re.Pattern[str]:
    """What :func:`_foldable` finds, and line separators: all the characters the unicode rules look for."""
    return _one_of(_INVISIBLE_CHARS + foldable_class() + "\uff01-\uff5e\u2028\u2029")


#: Runs of ASCII characters: without them, a text is its few non-ASCII characters.
_ASCII_RUNS = re.compile(r"[\x00-\x7f]+")
#: HTML character references (``&#105;`` is an "i"): decoded everywhere.
_ENTITY = re.compile(r"&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
#: In prose, what parts a word without showing: emphasis marks (``ig**no**re``), HTML tags
#: (``ign<b></b>ore``) and a hyphen at a line break (``instruc-\ntions``).  Each pattern starts
#: with its literal character, which the search skips to.
_TAG = r"<(?:/?[A-Za-z][\w-]*\s*/?|!--\s*--)>"
_INSIDE_WORDS = tuple(re.compile(p) for p in (
    r"\*(?<=[^\W\d_]\*)\**(?=[^\W\d_])",
    rf"<(?<=[^\W\d_]<){_TAG[1:]}(?:{_TAG})*(?=[^\W\d_])",
    r"-(?<=[^\W\d_]-)[ \t]*\r?\n[ \t]*(?=[^\W\d_])",
))
_CONTINUATION = re.compile(r"\\\r?\n[ \t]*")
#: String literals glued in code: ``"a" + "b"``, ``'a' .. 'b'`` and ``a""b``.  Every branch starts with its
#: quote, so the search skips straight to quotes.
_CONCAT = re.compile(r""""\s*(?:\+|\.\.)\s*"|'\s*(?:\+|\.\.)\s*'|""(?<=\w"")(?=\w)|''(?<=\w'')(?=\w)""")


@dataclass(frozen=True)
class OffsetMap:
    """Where each position of a folded text comes from in the text, as segments: from folded
    offset ``starts[i]`` on, a position maps to ``origins[i]`` plus its distance from
    ``starts[i]`` (text kept), or to ``origins[i]`` itself (text put in place of a match)."""

    starts: list[int]
    origins: list[int]
    kept: list[bool]
    length: int            # of the folded text

    @classmethod
    def identity(cls, length: int) -> OffsetMap:
        return cls([0], [0], [True], length)

    def __call__(self, offset: int) -> int:
        """The text offset of folded position ``offset`` (< ``length``)."""
        index = bisect.bisect_right(self.starts, offset) - 1
        return self.origins[index] + (offset - self.starts[index] if self.kept[index] else 0)


class _MapBuilder:
    """The :class:`OffsetMap` of a text made from pieces of a folded text and replacements."""

    def __init__(self, source: OffsetMap):
        self.source = source
        self.starts: list[int] = []
        self.origins: list[int] = []
        self.kept: list[bool] = []
        self.length = 0

    def copy(self, start: int, end: int) -> None:
        """Append positions ``start`` to ``end`` of the source text, as they map."""
        source = self.source
        index = max(0, bisect.bisect_right(source.starts, start) - 1)
        while start < end:
            stop = min(end, source.starts[index + 1] if index + 1 < len(source.starts) else end)
            kept = source.kept[index]
            origin = source.origins[index] + (start - source.starts[index] if kept else 0)
            self._segment(origin, kept, stop - start)
            start, index = stop, index + 1

    def put(self, size: int, anchor: int) -> None:
        """Append ``size`` positions of new text, all mapping to ``anchor``."""
        self._segment(anchor, False, size)

    def _segment(self, origin: int, kept: bool, size: int) -> None:
        if size <= 0:
            return
        if self.kept and kept and self.kept[-1] and self.origins[-1] + self.length - self.starts[-1] == origin:
            self.length += size  # continues the last kept segment
            return
        self.starts.append(self.length)
        self.origins.append(origin)
        self.kept.append(kept)
        self.length += size

    def done(self) -> OffsetMap:
        return OffsetMap(self.starts or [0], self.origins or [0], self.kept or [True], self.length)


def substitute(text: str, origin: OffsetMap | None, pattern: re.Pattern[str],
               replace: Callable[[re.Match[str]], str]) -> tuple[str, OffsetMap | None]:
    """``pattern.sub`` that keeps the map from the new text's positions to the original's."""
    if pattern.search(text) is None:
        return text, origin
    source = origin if origin is not None else OffsetMap.identity(len(text))
    built = _MapBuilder(source)
    parts: list[str] = []
    last = 0
    for match in pattern.finditer(text):
        parts.append(text[last:match.start()])
        built.copy(last, match.start())
        new = replace(match)
        parts.append(new)
        built.put(len(new), source(min(match.start(), len(text) - 1)) if text else 0)
        last = match.end()
    parts.append(text[last:])
    built.copy(last, len(text))
    return "".join(parts), built.done()


def _fold_char(match: re.Match[str]) -> str:
    char = match.group()
    forms = ascii_forms()
    if char in forms:
        return forms[char]
    code = ord(char)
    if 0xFF01 <= code <= 0xFF5E:  # fullwidth ASCII
        return chr(code - 0xFEE0)
    if 0xE0020 <= code <= 0xE007E:  # tag characters mirror ASCII: what they hide is scanned too
        return chr(code - 0xE0000)
    return "" if INVISIBLE.match(char) else char  # a character of a styled block with no ASCII form stays


def _entity(match: re.Match[str]) -> str:
    return html.unescape(match.group())


def unusual(text: str) -> bool:
    """Whether ``text`` holds a character that is folded or that the unicode rules report: one
    search over its non-ASCII characters (matching a class of many ranges at every character of
    a long text is what costs)."""
    return not text.isascii() and _unusual().search(_ASCII_RUNS.sub("", text)) is not None


def fold(text: str, code: bool, odd: bool = True) -> tuple[str, OffsetMap | None]:
    """The text rules match against, and its map back to ``text`` (None: the same positions);
    ``odd`` False says that :func:`unusual` found nothing to fold."""
    folded, origin = text, None
    if "&" in text:
        folded, origin = substitute(folded, origin, _ENTITY, _entity)
    if (odd or origin is not None) and not folded.isascii():
        folded, origin = substitute(folded, origin, _foldable(), _fold_char)
    if not code:
        for inside_word in _INSIDE_WORDS:
            folded, origin = substitute(folded, origin, inside_word, lambda m: "")
    folded, origin = substitute(folded, origin, _CONTINUATION, lambda m: " ")
    if code:
        folded, origin = substitute(folded, origin, _CONCAT, lambda m: "")
    return folded, origin
