"""The line reach read from each audit pattern (tests/data/line_reach.py, written into
skillsite/audit/data/literal_table.json beside its literals) is sound: no match of a pattern
crosses more boundaries between lines holding text than its reach says, nor more before the start
of a literal of its first set of needs, or after it, than its reach on that side says (the gates
scan as many lines before and after a literal's in a long document: tests/unit/test_audit_padding.py)."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillsite.audit import engine
from skillsite.audit.declare import Pattern
from skillsite.audit.literals import literals_of
from skillsite.audit.rules import PATTERNS, RULES
from skillsite.audit.text import make_document

DATA = Path(__file__).resolve().parents[1] / "data"
FIXTURES = DATA / "audit-fixtures"
sys.path.insert(0, str(DATA))
from line_reach import line_reach, sides  # noqa: E402  (development time: reads the patterns with re's own parser)
from make_literal_table import gate_reach  # noqa: E402

#: A run of white space holding a line break: one boundary between lines holding text.
CROSSING = re.compile(r"\s*\n\s*")

REACHES = [
    (r"a\s*\(\s*b", 0, 2),          # each \s* crosses blank lines into the next line holding text
    (r"\s*\n\s*", 0, 1),            # one run of white space, however it is written
    (r"a\nb\nc", 0, 2),
    (r"[^\n]*", 0, 0),
    (r".*", 0, 0),
    (r"[^\S\n]*x", 0, 0),           # white space but the line break
    (r"\S+\s+\S+", 0, 1),
    (r"(?:a\s+){3}", 0, 3),
    (r"(?:a\s+){0,50}", 0, 50),
    (r"(a\s)\1", 0, 2),             # a back-reference reaches what its group does
    (r"a(?=\s*b)", 0, 1),           # what a look-ahead reads is counted
    (r"foo$", 0, 1),                # $ without MULTILINE looks at the end of the text
    (r"foo$", re.MULTILINE, 0),
    (r"foo\Z", 0, 1),
    (r"(?:-\w+\s+)*", 0, None),     # arguments that may each stand on a line of their own
    (r"[^)]*", 0, None),
    (r"(?s).*", 0, None),
    (r"(?s:x.*)|y", 0, None),
    (r"(?-s:.*)", re.DOTALL, 0),
    (r"\s+", re.ASCII, 1),
]


@pytest.mark.parametrize("source, flags, reach", REACHES)
def test_the_line_reach_is_read_from_the_pattern(source, flags, reach):
    assert line_reach(source, flags) == reach


def crossings(text: str) -> int:
    """How many boundaries between lines holding text ``text`` crosses (at its ends too)."""
    return len(CROSSING.findall(text))


def _plain(each: Pattern) -> re.Pattern[str]:
    return re.compile(each.compiled_source, each.flags)


LINES = [each for each in PATTERNS if each.scope == "lines"]
#: Patterns hypothesis cannot write examples of (back-references), by their index in their rule.
UNGENERATED = {"SK630": (7,), "SK631": (7,)}
GENERATED = [each for each in LINES if gate_reach(each) is not None
             and not any(each is RULES[code].patterns[i] for code, indexes in UNGENERATED.items() for i in indexes)]


@pytest.mark.parametrize("each", GENERATED, ids=lambda p: p.source[:40])
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_no_generated_match_crosses_more_lines_than_its_reach(each, data):
    text = data.draw(st.from_regex(_plain(each), fullmatch=True))
    assert crossings(text) <= gate_reach(each), (each.source[:60], text)


def test_no_match_in_the_fixtures_crosses_more_lines_than_its_reach():
    engine.prepare()
    checked = 0
    for path in sorted(p for p in FIXTURES.rglob("*") if p.is_file() and b"\x00" not in p.read_bytes()[:8192]):
        doc = make_document(path.name, path.read_bytes().decode("utf-8", "replace"))
        for each in LINES:
            reach = gate_reach(each)
            for match in _plain(each).finditer(doc.folded):
                assert reach is None or crossings(match.group()) <= reach, (each.source[:60], match.group())
                checked += 1
    assert checked > 100



SIDES = [
    (r"\bcurl\s+(?:-\w+\s+)*https?://", {"curl"}, (0, None)),   # a command's word, then its options
    (r"\brm\s+(?:-\S+\s+)*--no-preserve-root\b", {"--no-preserve-root"}, (None, 0)),
    (r"a\s+b\s+c", {"b"}, (1, 1)),
    (r"(?:x\s+)?foo\s+bar", {"foo"}, (1, 1)),
    (r"foo\s+bar|baz\s+foo", {"foo"}, (1, 1)),     # each branch places its own: the sides of either
    (r"(?:\s*foo){2}", {"foo"}, (1, 1)),              # in the first round (in the last: 2 before)
    (r"(?:foo\s*){2}", {"foo"}, (1, 1)),              # in the last round (in the first: 0 before, 2 after)
    (r"(?:a|b)c\s+d", {"ac", "bc"}, (0, 1)),          # a literal across the parts it is made of
    (r"(?:open|read)\(\s*x", {"n(", "d("}, (0, 1)),    # its start inside a branch: read from the branch's
    (r"foo\s*$", {"foo"}, (0, 1)),                    # $ looks at the end of the text
    (r"(?<=\s)foo", {"foo"}, (0, 0)),                 # re reads what a look-behind does before a window
    (r"(?=foo\s+bar)foo", {"foo"}, (0, 1)),           # a look-ahead before it reads on after it, not before
    (r"(?!x\s+y\s+z)foo\s+b", {"foo"}, (0, 2)),
    (r"(?:-\w+(?= \S+\s))*foo", {"foo"}, (0, 1)),     # a look-ahead in a repeat before it: only after it
    (r"(?:a(?=b\s*c)\s*)+foo", {"foo"}, (None, 1)),   # what the repeat holds counts before it
    (r"(?:x\s*$)?\s*foo", {"foo"}, (1, 1)),           # so does a $ (as a line break)
    (r"(foo)\s+\1\s+x", {"foo"}, (0, 2)),
    (r"x\s+(?=foo)", {"foo"}, None),                  # a look-ahead's literal is not in the match
    (r"(?:foo)?\s+bar", {"foo"}, None),               # nor is one of a part that may be left out
    (r"x\s+(?:foo|bar)", {"foo"}, None),              # nor one of a single branch
]


@pytest.mark.parametrize("source, anchor, expected", SIDES)
def test_the_reach_before_and_after_a_literal_is_read_from_the_pattern(source, anchor, expected):
    assert sides(source, 0, frozenset(anchor)) == expected


#: Patterns of the rules, as the table gives their reach (before, after) around their first set of needs.
TABLE_SIDES = [
    ("SK663", 0, (0, None)),    # rm (and the white space after it): nothing before its word, its options after
    ("SK663", 2, (0, None)),    # mkfs (found less often than /dev/): nothing before its word, its options after
    ("SK663", 3, (1, 0)),       # dd's \s+ before of=/dev/...
    ("SK630", 0, (0, None)),    # curl ... | sh
    ("SK630", 8, (0, None)),    # a URL given to a command: its options' values, looked past, stay on its line
    ("SK633", 1, (2, 0)),       # npm install ... https://...tgz
    ("SK634", 6, (10, 4)),      # the subprocess call around .fileno()
    ("SK651", 0, (0, 400)),     # a private key block after its first line
]


@pytest.mark.parametrize("code, index, expected", TABLE_SIDES)
def test_the_table_holds_each_patterns_reach_before_and_after_its_literal(code, index, expected):
    each = RULES[code].patterns[index]
    found = literals_of(each.compiled_source, each.flags)
    assert (found.before, found.after) == expected, each.source[:60]
    assert None in expected or sum(expected) <= line_reach(each.compiled_source, each.flags)


def _anchored(each: Pattern) -> bool:
    """Whether the table bounds the pattern's reach on one side of its literal at least."""
    found = literals_of(each.compiled_source, each.flags)
    return bool(found.needs) and (found.before, found.after) != (None, None)


def fits_around_a_literal(each: Pattern, text: str) -> bool:
    """Whether the match ``text`` of the pattern holds an occurrence of a literal of its first set
    of needs (in the lower-cased text, as the one-pass search finds them) with no more boundaries
    crossed before its start, and after it, than the table says: a window around it holds the match."""
    found = literals_of(each.compiled_source, each.flags)
    lower = text.lower()
    if len(lower) != len(text):   # a long document whose lower case differs in length is not windowed
        return True
    starts = [at for literal in found.needs[0] for at in range(len(lower)) if lower.startswith(literal, at)]
    return any((found.before is None or crossings(text[:at]) <= found.before)
               and (found.after is None or crossings(text[at:]) <= found.after) for at in starts)


SIDED = [each for each in GENERATED if _anchored(each)]


@pytest.mark.parametrize("each", SIDED, ids=lambda p: p.source[:40])
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_no_generated_match_crosses_more_lines_before_or_after_its_literal_than_the_table_says(each, data):
    text = data.draw(st.from_regex(_plain(each), fullmatch=True))
    assert fits_around_a_literal(each, text), (each.source[:60], text)


def test_no_match_in_the_fixtures_crosses_more_lines_before_or_after_its_literal_than_the_table_says():
    engine.prepare()
    checked = 0
    for path in sorted(p for p in FIXTURES.rglob("*") if p.is_file() and b"\x00" not in p.read_bytes()[:8192]):
        doc = make_document(path.name, path.read_bytes().decode("utf-8", "replace"))
        for each in (each for each in LINES if _anchored(each)):
            for match in _plain(each).finditer(doc.folded):
                assert fits_around_a_literal(each, match.group()), (each.source[:60], match.group())
                checked += 1
    assert checked > 100 and len(SIDED) > 40
