"""Which gate words a text holds, found in one pass instead of one substring test per word.

Each word is looked for at its *pivot*, its rarest character (by :data:`RARITY`): one regular
expression is tried only where the text holds a pivot character, and there tries the words
pivoting on it, the part after the pivot by a look-ahead (a trie of those parts) and the whole
word by a look-behind.  Words made only of common characters would make the expression try
almost every position, and a word of one character is found fastest by a plain test, so those
are left to ``word in text`` (:func:`scanned` is False for them).

A match consumes only its pivot, so every position is tried; where several words share a pivot
position only the first tried is reported.  The words each word may so hide are known
(:attr:`WordFinder.hidden`) and looked for at each of its matches, so the answer is always exactly
``word in text``.
"""
from __future__ import annotations

import functools
import re
from typing import Iterable

#: Characters of the gate words, rarest first in skill text (prose and code, lower-cased).
#: Characters not listed are taken as rare.  Only the speed of the search depends on this.
RARITY = "8+64<53>jz2q1][x/=k|#()w_bv:y.fgh-mupdlconsriate "
#: Characters too common to pivot on: the expression would be tried almost everywhere.  A word
#: made of these only is tested with ``in`` (see the module docstring).
COMMON = frozenset("mudlconsriate ")


def _rank(char: str) -> int:
    return len(RARITY) if char in COMMON else RARITY.find(char)  # -1 (rarest) when not listed


@functools.lru_cache(maxsize=None)
def pivot(word: str) -> int:
    """The index of a word's rarest character, common ones last (the first of them on a tie)."""
    return min(range(len(word)), key=lambda i: _rank(word[i]))


def scanned(word: str) -> bool:
    """Whether a word is found by the expression (rather than by an ``in`` test): it is longer
    than one character (one is found fastest by ``in``) and not made of common characters only."""
    return len(word) > 1 and word[pivot(word)] not in COMMON


def _overlap(first: str, second: str, at_end: bool) -> bool:
    """Whether two strings agree where they overlap when aligned at their ends (or starts)."""
    return first.endswith(second) or second.endswith(first) if at_end else \
        first.startswith(second) or second.startswith(first)


def _order(word: str) -> tuple[str, int, str]:
    """The order words are put in the expression: by pivot character, then longer words first."""
    return word[pivot(word)], -len(word), word


class WordFinder:
    """The search for a fixed set of words; :meth:`find` gives the scanned ones a text holds."""

    def __init__(self, words: Iterable[str]) -> None:
        self.words = frozenset(w for w in words if scanned(w))
        tried: list[str] = []   # the words in the order the expression tries them
        expression = self._expression(sorted(self.words, key=_order), tried)
        self.pattern = re.compile(expression) if self.words else None
        #: group number -> word (each word's alternative ends with an empty group)
        self._by_group = dict(enumerate(tried, 1))
        #: word -> the words tried after it that may have their pivot where it has its own, with
        #: the index of that pivot
        self.hidden = {w: tuple((other, pivot(other)) for other in tried[i + 1:] if self._colocated(w, other))
                       for i, w in enumerate(tried)}

    @staticmethod
    def _colocated(word: str, other: str) -> bool:
        """Whether ``other`` may occur with its pivot where ``word`` has its pivot."""
        at, other_at = pivot(word), pivot(other)
        return (word[at] == other[other_at] and _overlap(word[:at], other[:other_at], True)
                and _overlap(word[at:], other[other_at:], False))

    @staticmethod
    def _expression(words: list[str], tried: list[str]) -> str:
        """One branch per pivot character: a look-ahead holding the trie of what follows the pivot
        in its words, each word ending with the look-behind of the whole word and an empty group
        naming it (``tried`` gets the words in the order of their groups)."""
        tries: dict[str, dict] = {}
        for word in words:
            at = pivot(word)
            node = tries.setdefault(word[at], {})
            for char in word[at + 1:]:
                node = node.setdefault(char, {})
            node.setdefault("", []).append(word)

        def branch(node: dict) -> str:
            alternatives = [re.escape(char) + branch(child) for char, child in node.items() if char]
            for word in node.get("", []):
                tried.append(word)
                alternatives.append(f"(?<={re.escape(word)})()")
            return alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"

        return "|".join(re.escape(char) + "(?=" + branch(node) + ")" for char, node in tries.items())

    def find(self, text: str) -> set[str]:
        """The scanned words that ``text`` holds (exactly those ``w`` with ``w in text``)."""
        found: set[str] = set()
        if self.pattern is None:
            return found
        words, hidden = self._by_group, self.hidden
        for match in self.pattern.finditer(text):
            word = words[match.lastindex]
            found.add(word)
            for other, at in hidden[word]:   # tried after it at the same place: look there
                start = match.start() - at
                if start >= 0 and other not in found and text.startswith(other, start):
                    found.add(other)
        return found
