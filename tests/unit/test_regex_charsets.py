"""The set of characters an atom matches is exactly what Python's ``re`` matches with it,
case-insensitively, checked over every code point (on whichever Python runs the tests)."""
from __future__ import annotations

import re

import pytest

from skillsite.agent.regex_charsets import MAX_CP, CharSet, atom_set
from skillsite.agent.regex_syntax import parse

ATOMS = [
    "k", "K", r"\u212a", "s", r"\u017f", "i", r"\u0130", r"\u0131", r"\xdf", r"\u1e9e", r"\u03c3", r"\u03c2",
    r"\u1fb3", r"\u1fbc", r"\u0345", r"\xb5", r"\u01c5", r"\U00010400", "1", r"\u0661", "_", "-", r"\n",
    r"\d", r"\D", r"\w", r"\W", r"\s", r"\S", ".",
    "[a-z]", "[^a-z]", "[^k]", r"[\d]", r"[^\d]", r"[\w-]", r"[^\W_]", r"[\u0100-\uffff]", "[A-Z0-9]",
    r"[^\s\S]", r"[\u00c0-\u024f]",
]
EVERY_CHAR = "".join(map(chr, range(MAX_CP)))


@pytest.mark.parametrize("flags", ["", "a", "s"])
@pytest.mark.parametrize("atom", ATOMS)
def test_an_atom_stands_for_exactly_the_characters_re_matches(atom: str, flags: str) -> None:
    options = re.IGNORECASE | (re.ASCII if "a" in flags else 0) | (re.DOTALL if "s" in flags else 0)
    engine = CharSet.spans(m.span() for m in re.finditer(f"(?:{atom})+", EVERY_CHAR, options))
    assert atom_set(parse(atom).body, flags) == engine


def test_case_folding_joins_the_spellings_of_one_letter() -> None:
    kelvin = atom_set(parse("k").body, "")
    assert kelvin == CharSet.of([ord("K"), ord("k"), 0x212A])
    assert atom_set(parse(r"\u212a").body, "") == kelvin
    assert 0x212A not in atom_set(parse("k").body, "a")          # ASCII-only case folding
    assert ord("\u0661") in atom_set(parse(r"\d").body, "")       # ARABIC-INDIC DIGIT ONE is a \d
    assert ord("\u0661") not in atom_set(parse(r"\d").body, "a")


def test_set_operations() -> None:
    low, high = CharSet.spans([(0, 10)]), CharSet.spans([(5, 20)])
    assert low.union(high) == CharSet.spans([(0, 20)])
    assert low.intersection(high) == CharSet.spans([(5, 10)])
    assert low.minus(high) == CharSet.spans([(0, 5)])
    assert low.complement() == CharSet.spans([(10, MAX_CP)])
    assert CharSet.of([3, 1, 2]).intervals() == [(1, 4)]
    assert CharSet.of([3, 1, 2]).size() == 3 and 2 in CharSet.of([2]) and 3 not in CharSet.of([2])
    assert not CharSet() and CharSet.spans([(0, 0x30)]).sample() == 0x21
