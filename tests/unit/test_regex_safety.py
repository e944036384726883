"""SK214's rules for trigger patterns: every spelling of an ambiguous repeat is refused (decided
on the sets of characters atoms match, not on how they are written), the patterns skills use
are kept, and the loader runs the canonical form of what was checked."""
from __future__ import annotations

import re

import pytest

from skillsite.agent import triggers
from skillsite.agent.regex_safety import MESSAGE_CHARS, WORK_PER_CHAR, Refused, check, compile_trigger, unsafe_reason

AMBIGUOUS = "can match the same text in two ways"
TOO_MUCH_WORK = "too much work"
NESTED = "repeats a part that repeats itself"
EMPTY_REPEAT = "can match nothing"

# Issue #31: each spelling of "two repeats that can read the same character, one after the other".
REFUSED = {
    r"\N{DIGIT ONE}+\d+x": AMBIGUOUS,          # the reported one: 5.2 s on 2,000 characters
    r"\x31+\d+x": AMBIGUOUS,
    r"\061+\d+x": AMBIGUOUS,
    r"\u0031+\d+x": AMBIGUOUS,
    r"[1]+\d+x": AMBIGUOUS,
    r"[\d]+\d+x": AMBIGUOUS,
    r"\d+[0-9]+x": AMBIGUOUS,
    r"\u0661+\d+x": AMBIGUOUS,                 # ARABIC-INDIC DIGIT ONE: \d matches it
    r"\d+\u0661+x": AMBIGUOUS,
    r"k+\u212a+x": AMBIGUOUS,                  # KELVIN SIGN is a k case-insensitively
    r"(?i)K+k+x": AMBIGUOUS,
    r"K+k+x": AMBIGUOUS,                       # the loader always ignores case
    r"s+\u017f+x": AMBIGUOUS,                  # LATIN SMALL LETTER LONG S is an s
    r"\w+[a-z]+x": AMBIGUOUS,
    r"\w+\u00e9+x": AMBIGUOUS,                 # \w is Unicode
    r"\W+[!-/]+x": AMBIGUOUS,
    r".+a+x": AMBIGUOUS,
    r".*x.*y": AMBIGUOUS,
    ".*foo.*bar": AMBIGUOUS,
    r"\w+a\w+": AMBIGUOUS,
    "[a-z]*-?[a-z]*x": AMBIGUOUS,              # the same through an optional part between them
    r"\d+(?:-)?\d+x": AMBIGUOUS,
    r"\d+\b\d+x": AMBIGUOUS,                   # a zero-width test does not separate them
    r"\d+(?=\d)\d+x": AMBIGUOUS,
    "(a|a)*b": AMBIGUOUS,
    "(a|aa)*c": AMBIGUOUS,
    "(?:a|[a-c])+x": AMBIGUOUS,
    "a{0,190}a{0,190}x": AMBIGUOUS,
    "a.{0,100}b.{0,100}c": AMBIGUOUS,
    "(?:a|aa)+$": TOO_MUCH_WORK,
    "a*a*a*a*b": TOO_MUCH_WORK,
    r"\s*\s*\s*x": TOO_MUCH_WORK,
    r"\w*(?:a|b|c)+d": TOO_MUCH_WORK,
    ".*" + "a" * 20 + "x": TOO_MUCH_WORK,       # 1.9 s on 4,000 a's, although unambiguous
    r".*\w{50}x": TOO_MUCH_WORK,
    "(?:" + "|".join(c + "a" for c in "bcdefghijklmnopqrstuvwxyz") + ")+x": TOO_MUCH_WORK,
    "(a+)+$": NESTED,
    "(a*)*b": NESTED,
    r"(\w+\s?)*$": NESTED,
    "(?:x+y?)+z": NESTED,
    "(a{2,})+": NESTED,
    r"(?:\d{1,3}\.)+": NESTED,
    "(a?)+": EMPTY_REPEAT,
    "(a?){20}b": EMPTY_REPEAT,
    "(?:a?b?)+c": EMPTY_REPEAT,
    "(?:a?|b?)x": EMPTY_REPEAT,
    "(.*a){12}": TOO_MUCH_WORK,
    r"(?=\w+x)a": "unbounded repeat",
    r"(?=a?a?x)b": AMBIGUOUS,                   # a look-around is checked like a pattern of its own
    r"(?<=a+)b": "fixed-width",                 # Python refuses it first
    r"(?<=ab?)c": "fixed-width",
    r"(a)\1": "backreference",
    "(?x)(a+) +$": "verbose",
}

ACCEPTED = [
    r"\b\d{3,}_[a-z0-9_]+\.sql\b",              # example-skills/sql-migration-review
    r"\bv\d+\.\d+\b", r"\bv\d+\.\d+\.\d+(?:-[a-z0-9.]+)?\b",
    "deploy(ment)? to (prod|staging)", "(?i:roll ?back)", "(?i)hot ?fix", "[(+]+x",
    r"\d{3,}_\w+\.sql", r"(?<=#)\d+", "a{,3}b", r"\w+\s+\w+", r"\w+(\.)\w+",
    "deploy.*(?:prod|staging)", r"error:.*timeout", r"\b(?:bug|issue|ticket)\s*#?\d+",
    r"https?://\S+", r"\b[A-Z][A-Z0-9]+-\d+\b", r"\bCVE-\d{4}-\d{4,}\b", r"(?:\d{1,3}\.){3}\d{1,3}",
    r"[\w.-]+@[\w.-]+\.\w+", r"\bstack ?trace\b", r"traceback \(most recent call last\)",
    r"^\s*/deploy\b", r"\.(?:py|js|ts)x?\b", r"\b\w+\.(?:ya?ml|json|toml)\b", r"(?:ab|ac)+x",
    "(a|ab)*c",                                 # unambiguous: a b never starts a repetition
    r"\bpr\s*#?\d+\b", r"alter\s+table\s+\w+", r"\$\{\{\s*secrets\.\w+\s*\}\}",
]


@pytest.mark.parametrize(("pattern", "reason"), sorted(REFUSED.items()))
def test_each_spelling_of_an_ambiguous_or_costly_pattern_is_refused(pattern: str, reason: str) -> None:
    found = unsafe_reason(pattern)
    assert found is not None and reason in found, found
    assert triggers.pattern_problem(pattern) == found
    assert triggers.normalise_triggers({"patterns": [pattern]})["patterns"] == []
    with pytest.raises(Refused):
        compile_trigger(pattern)


@pytest.mark.parametrize("pattern", ACCEPTED)
def test_the_patterns_skills_use_are_kept(pattern: str) -> None:
    assert unsafe_reason(pattern) is None
    safe = check(pattern)
    assert safe.work <= WORK_PER_CHAR * MESSAGE_CHARS ** 2
    assert re.compile(safe.text, re.IGNORECASE).pattern == compile_trigger(pattern).pattern


def test_a_refusal_shows_a_text_read_two_ways_and_the_atoms_involved() -> None:
    reason = unsafe_reason(r"\N{DIGIT ONE}+\d+x")
    assert reason == ("can match the same text in two ways, which makes backtracking slow: reading '110', "
                      "`1` (at 0) and `\\d` (at 14) both go on to `\\d` (at 14) (like `a*a*`, `(a|aa)*` or `.*x.*`)")
    work = unsafe_reason(".*" + "a" * 20 + "x")
    assert work is not None and "after reading 'AAAAAA', 7 ways through it are alive, with 8 tries" in work


def test_the_work_bound_is_the_documented_formula() -> None:
    safe = check(r"\bv\d+\.\d+\b")
    assert (safe.first_tries, safe.tries_per_char, safe.longest) == (2, 3, float("inf"))
    assert safe.work == MESSAGE_CHARS * (2 + MESSAGE_CHARS * 3)
    short = check("deploy(ment)? to (prod|staging)")
    assert short.longest == 21 and short.work == MESSAGE_CHARS * (short.first_tries + 21 * short.tries_per_char)
    # a bounded pattern may try more per character than an unbounded one
    words = "|".join(f"w{i}x" for i in range(40))
    assert unsafe_reason(f"(?:{words})") is None and unsafe_reason(f"(?:{words})+") is not None


def test_the_loader_runs_the_canonical_form_case_insensitively() -> None:
    compiled = triggers._compiled(r"\N{LATIN SMALL LETTER K}\x2d(?P<n>\d+)")
    assert compiled is not None
    assert compiled.pattern == r"k\-\d+"
    assert compiled.flags & re.IGNORECASE
    assert triggers.fired_triggers({"patterns": [r"k-\d+"]}, "ticket \u212a-12") == [r"k-\d+"]
    assert triggers._compiled("(a+)+$") is None


def test_counted_repeats_are_written_out_and_bounded_in_size() -> None:
    assert check("a{3}").atoms == 3
    assert check(r"\d{2,4}x").atoms == 5
    assert check("(?:ab){2,}").atoms == 4
    assert "too large" in (unsafe_reason("(?:a{1,100}b){1,20}") or "")
