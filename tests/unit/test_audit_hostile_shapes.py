"""Audit patterns on the hostile shapes benchmarks/hostile_patterns.py found super-linear: each
place is tried a few times, not once from each of thousands of lines or words, and the findings
are those of the patterns as they were (their sources before the change are kept here)."""
from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from skillsite.audit.engine import audit_document
from skillsite.audit.rules import RULES
from skillsite.audit import text as text_module

#: The patterns as they were: a link definition or an index line matched from the blank lines before it.
OLD_DEFINITION = re.compile(r"(!?)\[[^\]\n]{0,200}\]\(\s*<?((?:https?:)?//[^)\s>]+)|"
                            r"^\s*\[[^\]\n]+\]:\s*<?(https?://\S+)", re.MULTILINE | re.IGNORECASE)
OLD_INDEX_LINE = re.compile(r"^\s*(?:--)?(?:extra-)?index-url\s*[= ]\s*[\"']?(https?://[^\s\"'`]+)",
                            re.MULTILINE | re.IGNORECASE)


def definition_pattern() -> re.Pattern[str]:
    return RULES["SK622"].patterns[0].gate.pattern


def index_pattern() -> re.Pattern[str]:
    return next(p.gate.pattern for p in RULES["SK633"].patterns if "own_line" in p.source)


def test_a_link_definition_is_matched_from_its_own_line_not_from_each_blank_line_before_it():
    text = "Intro\n" + "\n" * 3 + "  \n[a]: https://x.invalid/?key=$TOKEN\n"
    assert definition_pattern().match(text, len("Intro\n")) is None   # a blank line reads itself only
    assert index_pattern().match("\n\n--index-url https://x.invalid/simple\n", 0) is None
    assert definition_pattern().match(text, text.index("[a]")) is not None


def test_a_link_definition_after_blank_lines_is_reported_where_it_was():
    text = "Intro\n\n\n[a]: https://x.invalid/?key=$TOKEN\n"
    assert [(f.code, f.line, f.column) for f in audit_document("SKILL.md", text)] == [("SK622", 2, 1)]
    found = audit_document("requirements.txt", "x\n\n \n--extra-index-url http://x.invalid/simple\n")
    assert [(f.code, f.line, f.column, f.severity) for f in found] == [("SK633", 2, 1, "high")]


PIECES = ["\n", " ", "\t", "  \n", "text", "[a]: https://x.invalid/?k=$T", "[b]:", "![i](https://x.invalid/$T)",
          "--index-url https://x.invalid/s", "index-url=http://x.invalid", "pip install y", "-i ", "x\u2029"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30))
def test_a_match_from_its_own_line_starts_where_the_old_one_did(pieces):
    text = "".join(pieces)
    for old, new, group in ((OLD_DEFINITION, definition_pattern(), 3), (OLD_INDEX_LINE, index_pattern(), "own_line")):
        found = [(text_module.white_space_start(text, m.start()) if m.group(group) else m.start(), m.end())
                 for m in new.finditer(text) if m.group(group) or new is definition_pattern()]
        assert found == [m.span() for m in old.finditer(text)]
