"""The line reach read from each audit pattern (tests/data/line_reach.py, written into
skillsite/audit/data/literal_table.json beside its literals) is sound: no match of a pattern
crosses more boundaries between lines holding text than its reach says (the gates scan as many
lines around a literal's in a long document: tests/unit/test_audit_padding.py)."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillsite.audit import engine
from skillsite.audit.declare import Pattern
from skillsite.audit.rules import PATTERNS, RULES
from skillsite.audit.text import make_document

DATA = Path(__file__).resolve().parents[1] / "data"
FIXTURES = DATA / "audit-fixtures"
sys.path.insert(0, str(DATA))
from line_reach import line_reach  # noqa: E402  (development time: reads the patterns with re's own parser)
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

