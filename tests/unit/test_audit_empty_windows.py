"""A long document is searched by a gate in the windows around its literals, and nearly every
window holds no place where a match can start and no candidate of the lowered search (each ``-e``
line for SK634's ``nc ... -e sh``; on the corpus, 85,000 of the 86,000 windows and short documents
the gates search).  Such a window costs the one search that finds nothing there, and no state for
a scan (before, each made the searches for a later start of a hopeless gate, and two generators)."""
from __future__ import annotations

import pytest

from skillsite.audit import text
from skillsite.audit.rules import RULES
from skillsite.audit.text import MAX_LINES, WINDOWED, make_document

#: SK634's netcat handing a shell (hopeless, no known starts: searched through its lowered search)
#: and SK663's ``rm --no-preserve-root`` (hopeless, tried at each ``rm``; its windows are around
#: ``--no-preserve-root``).
NETCAT = next(p for p in RULES["SK634"].patterns if p.hopeless and p.hopeless[0].startswith(r"\b(?:nc|"))
RM = next(p for p in RULES["SK663"].patterns if p.source.startswith(r"\brm\s+(?:-\S+\s+)*--no-preserve-root"))


class CountedNextMatch(text._NextMatch):
    """The searches for a later start or another branch, counted as they are made."""

    made = 0

    def __init__(self, *args) -> None:
        CountedNextMatch.made += 1
        super().__init__(*args)


@pytest.mark.parametrize("each, line", [(NETCAT, "echo -e 'a b'\n"), (RM, "echo --no-preserve-root\n")])
def test_a_window_without_a_candidate_makes_no_scan(each, line, monkeypatch):
    monkeypatch.setattr(text, "_NextMatch", CountedNextMatch)
    doc = make_document("scripts/run.sh", (line + "x\n" * (2 * MAX_LINES + 1)) * (4 * WINDOWED // len(line)))
    windows = doc.windows(each.gate.anchors, False, each.gate.also, each.gate.lines)
    CountedNextMatch.made = 0
    assert each.gate.admits(doc) and len(windows) > 100
    assert list(each.finditer(doc)) == [] and CountedNextMatch.made == 0
