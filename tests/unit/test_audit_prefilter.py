"""The one-pass search for the patterns' literals (skillsite.audit.prefilter) and the gates that
run a pattern only where it may match: they find exactly what the pattern finds."""
from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillsite.audit import engine
from skillsite.audit.declare import Pattern
from skillsite.audit.letters import ascii_reading
from skillsite.audit.prefilter import Prefilter, occurrences
from skillsite.audit.rules import PATTERNS
from skillsite.audit.text import WINDOWED, _prefilter, make_document


def test_a_text_admits_the_patterns_all_of_whose_needs_occur():
    prefilter = Prefilter([(frozenset({"curl", "wget"}), frozenset({"| sh"})), (frozenset({"rm"}),),
                           (frozenset({"ignore"}), frozenset({"previous"}))])
    found = prefilter.scan("curl -s x | sh; then rm it; ignore that")
    assert found.present == {"curl", "| sh", "rm", "ignore"}
    assert found.admitted == {0, 1}
    assert found.holds(frozenset({"wget", "rm"})) and not found.holds(frozenset({"previous"}))


def test_occurrences_overlap_and_come_in_order():
    found = Prefilter([(frozenset({"aa", "ab"}),)]).scan("aaab aa")
    assert found.starts(frozenset({"aa"})) == [0, 1, 5]
    assert found.starts(frozenset({"aa", "ab"})) == [0, 1, 2, 5]
    assert found.starts(frozenset({"zz"})) == []            # a literal the search does not know: found by search
    assert list(occurrences("aaaa", "aa")) == [0, 1, 2]


def test_places_are_looked_for_inside_the_window_only_and_give_up_when_too_many():
    found = Prefilter([(frozenset({"zz"}),)]).scan("the cat, the hat; then the end")
    assert found.places(frozenset({"the"}), 0, 30, 10) == [0, 9, 18, 23]
    assert found.places(frozenset({"the", "hat"}), 5, 21, 10) == [9, 13, 18]   # in order, overlapping too
    assert found.places(frozenset({"the"}), 5, 20, 10) == [9]                 # only whole occurrences inside
    assert found.places(frozenset({"the"}), 0, 30, 3) is None                 # more than asked for
    assert found.places(frozenset({"the"}), 0, 30, 4) == [0, 9, 18, 23]


def test_the_one_pass_search_holds_the_needs_not_the_starts():
    """Where a pattern's matches start (often a common word) is looked for only where the pattern
    runs: in every other text, each occurrence of such a word would cost for nothing.  The gates'
    words of more than one character are needs too (a single character is left to ``in``)."""
    engine.prepare()
    needed = {literal for each in PATTERNS for group in (each.gate.literals or (), *each.gate.also)
              for literal in group}
    words = {word for each in PATTERNS if each.gate.slot is not None for group in each.gate.words for word in group}
    starts = {literal for each in PATTERNS for literal in each.gate.starts or ()}
    assert "the" in starts - needed - words  # SK611: "the user must not know"
    assert set(_prefilter().literals) == needed | {word for word in words if len(word) > 1}
    assert "|" in words - set(_prefilter().literals)


def test_words_are_searched_for_beside_the_needs_and_admit_no_pattern():
    prefilter = Prefilter([(frozenset({"curl"}),)], words=["nstall", "curl"])
    found = prefilter.scan("pip install x; curl y")
    assert found.present == {"nstall", "curl"} and found.admitted == {0}
    assert Prefilter([(frozenset({"curl"}),)], words=["nstall"]).scan("pip install x").admitted == frozenset()


def test_no_literal_no_automaton():
    found = Prefilter([]).scan("anything")
    assert found.present == frozenset() and found.admitted == frozenset()


def _plain(each: Pattern) -> re.Pattern[str]:
    """A declared pattern as its gate runs it, without the branch that passes over runs."""
    source = ascii_reading(each.source) if each.folds else each.source
    return re.compile(source, each.flags)


#: Patterns searched for in the whole folded text of a short document (lines, folded).
WHOLE = [each for each in PATTERNS if each.scope in ("lines", "folded")]


def _pieces(each: Pattern) -> list[str]:
    """Literals of a pattern, in both cases, with separators and filler: texts built from them
    hold the pattern's literals in every arrangement, matches and near misses."""
    engine.prepare()
    literals = [literal for group in (each.gate.literals or (), *each.gate.also) for literal in group]
    literals += list(each.gate.starts or ()) + [word for group in each.gate.words for word in group]
    return literals + [literal.upper() for literal in literals] + [" ", "\n", "\n\n", "-", "/", "x", "|", "sh",
                                                                  ": ", "'", '"', "(", ")", "= ", "1234567890"]


@pytest.mark.parametrize("each", WHOLE, ids=lambda p: p.source[:40])
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_short_document_gets_the_whole_texts_matches(each, data):
    pieces = data.draw(st.lists(st.sampled_from(_pieces(each)), max_size=30))
    doc = make_document("scripts/run.sh" if data.draw(st.booleans()) else "SKILL.md", "".join(pieces))
    assert len(doc.folded) < WINDOWED
    found = [m.span() for m in each.finditer(doc)]
    # a gate's words (one of each group) are what a match must have beside it to count: without them, none is looked for
    held = not each.gate.words or doc.holds(each.gate.words)
    assert found == ([m.span() for m in _plain(each).finditer(doc.folded)] if held else [])


PROSE = [each for each in PATTERNS if each.scope == "paragraphs"]


@pytest.mark.parametrize("each", PROSE, ids=lambda p: p.source[:40])
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_prose_gets_each_paragraphs_matches(each, data):
    pieces = data.draw(st.lists(st.sampled_from(_pieces(each)), max_size=30))
    doc = make_document("SKILL.md", "".join(pieces))
    if len(doc.lower) != len(doc.folded):
        return
    plain = _plain(each)
    expected = []
    for start, end in _paragraphs(doc.folded):
        expected += [m.span() for m in plain.finditer(doc.folded, start, end)]
    assert [m.span() for m in each.finditer(doc)] == expected


def _paragraphs(text: str) -> list[tuple[int, int]]:
    """The text between blank lines, as a gate of prose cuts it."""
    cuts = [m.start() for m in re.finditer(r"\n(?=[ \t\r]*\n)", text)]
    return [(a + 1 if i else 0, b) for i, (a, b) in enumerate(zip([-1, *cuts], [*cuts, len(text)]))]
