"""A hopeless gate's lowered search (:func:`skillsite.audit.text.make_gate`: the pattern, or its
start and the run after it passed over) lets ``re`` skip to the start's first letters where the
start begins with a letter (``nc``, ``rm``, ``dd``): both branches then begin with it, ``re`` moves
it out in front and looks for it before trying the branches.  Before, the run's branch began with
a group holding the start, nothing was moved out, and both branches were tried at every character
(SK634's ``nc ... -e sh``, whose literals ``-e`` and ``-c`` are in most documents: 83 ms of the
corpus's audit, now 35 ms).  What the gates find is tested in test_audit_lowered_search.py."""
from __future__ import annotations

import re

import pytest

from regex_steps import sre, sre_parse
from skillsite.audit import engine
from skillsite.audit.rules import PATTERNS
from skillsite.audit.text import lowered_letters

try:  # the compiler behind re.compile: re._compiler from Python 3.11 on, sre_compile before
    from re import _compiler as sre_compile  # type: ignore[attr-defined]
except ImportError:  # Python 3.10
    import sre_compile  # type: ignore[no-redef]


def begins_with_a_letter(source: str) -> bool:
    """Whether every match of ``source`` begins with one letter that ``re``'s parser sees first."""
    return sre_parse.parse(source, 0)[0][0] is sre.LITERAL


def skips(source: str) -> bool:
    """Whether ``re`` searches for ``source`` (case-sensitively, as the lowered search does) by
    skipping to a known prefix or to a set of first characters, not trying it at every character."""
    code = sre_compile._code(sre_parse.parse(source, 0), 0)
    return code[0] == sre.INFO and bool(code[2] & (sre.SRE_INFO_PREFIX | sre.SRE_INFO_CHARSET))


def lowered_start(source: str, start: str) -> str:
    """The start as the lowered search reads it: without a leading ``\\b`` where the pattern drops one."""
    return lowered_letters(start.removeprefix(r"\b") if source.startswith(r"\b") else start)


#: The hopeless patterns searched through a lowered search (case-insensitive ones) that begin with
#: their start, and a start that begins with a letter.
LETTERED = [p for p in PATTERNS if p.hopeless and p.flags & re.IGNORECASE and p.source.startswith(p.hopeless[0])
            and begins_with_a_letter(lowered_start(p.source, p.hopeless[0]))]


def test_the_hopeless_patterns_are_compared():
    engine.prepare()
    assert len(LETTERED) >= 10 and any(p.hopeless[0] == r"\b(?:nc|ncat|netcat)\b" for p in LETTERED)
    assert all(skips(lowered_start(p.source, p.hopeless[0])) for p in LETTERED)


@pytest.mark.parametrize("each", LETTERED, ids=[p.hopeless[0][:40] for p in LETTERED])
def test_a_hopeless_gates_lowered_search_skips_to_its_start(each):
    assert skips(each.gate.candidates.pattern), each.gate.candidates.pattern[:80]
