"""SK663's Remove-Item on a line of its options with -Recurse among them (``Remove-Item -a -Recurse
-a -Recurse ...``, what benchmarks/hostile_patterns.py builds from the pattern): the pattern costs
``re`` steps in proportion to the line (counted with tests/regex_steps.py through each search its
gate makes), where the options after each -Recurse were read again from each; and it matches
where the pattern as it was matches (its source kept here)."""
from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings

from regex_steps import joined_texts, search_steps, seeded_texts, steps_grow_in_proportion
from skillsite.audit.rules import RULES
from skillsite.audit.text import make_document
from test_audit_option_runs import gate_steps

#: Remove-Item as it was: in its second branch, options, -Recurse, then options again.
OLD_REMOVE_ITEM = re.compile(
    r"\bRemove-Item\s+(?:-\S+\s+)*(?:[\"']?(?:C:\\|~|\$HOME|\$env:USERPROFILE|/)[\"']?)\s+(?:-\S+\s+)*"
    r"-Recurse\b|\bRemove-Item\s+(?:-\S+\s+)*-Recurse\s+(?:-\S+\s+)*[\"']?(?:C:\\|~|\$HOME|/)[\"']?(?=\s|$)",
    re.IGNORECASE)
REMOVE_ITEM = next(p for p in RULES["SK663"].patterns if "Remove-Item" in p.source)

#: Hostile lines: a start written once, a part repeated, an end (on the next line, so that the gate opens).
SHAPES = [
    ("", "Remove-Item -a -Recurse -" + "a" * 64, ""),   # hostile_patterns.py's: each command glued to an option
    ("Remove-Item ", "-Recurse ", "\nx"),                 # each -Recurse read the options after it
    ("Remove-Item ", "-a -Recurse ", "\n-x"),
    ("Remove-Item ", "-Recurse\n", "-x"),                 # options over many lines
    ("Remove-Item / ", "-Recurse -a ", "\nx"),            # the first branch: a path, then options
    ("Remove-Item ", "-Remove-Item -Recurse ", "\nx"),    # later starts among the options
    ("", "Remove-Item -Recurse ", "\nx"),
]


@pytest.mark.parametrize("start, unit, end", SHAPES)
def test_a_line_of_options_with_recurse_among_them_costs_steps_in_proportion(start, unit, end):
    """Twice the line, at most 2.5 times the steps (quadratic before: each -Recurse read the rest)."""
    steps_grow_in_proportion(lambda text: gate_steps(REMOVE_ITEM.gate, text), lambda n: start + unit * n + end,
                             max(10, 240 // len(unit)))


def test_the_pattern_alone_costs_steps_in_proportion():
    """The pattern itself, not only its gate: one search of a line of -Recurse options and no path."""
    pattern = re.compile(REMOVE_ITEM.source, REMOVE_ITEM.flags)
    assert pattern.search("Remove-Item " + "-a -Recurse " * 80 + "x") is None
    steps_grow_in_proportion(lambda text: search_steps(pattern, text, 10_000_000),
                             lambda count: "Remove-Item " + "-a -Recurse " * count + "x", 40)


#: Pieces of Remove-Item lines: the command (glued to an option too), options, -Recurse in its
#: spellings, the paths either branch ends with, quotes, separators.
PIECES = ["Remove-Item", "-Remove-Item", "remove-item", "-Recurse", "-RECURSE", "-recurse:$true", "-Recursex",
          "-Force", "-x", "-", "--", "/", "~", "C:\\", "c:\\x", "$HOME", "$home", "$env:USERPROFILE", "'/'", '"~"',
          "'", '"', "x", "-Path", "/etc", ";", "|", "aRemove-Item", "Remove-Itemx", "\u0130"]
SEPARATORS = ["", " ", " ", " ", "  ", "\t", "\n", " \n", "\n\n"]


def assert_found_as_before(text: str) -> None:
    """The pattern, alone and through its gate (as a script and as SKILL.md), matches where it did."""
    before = [m.span() for m in OLD_REMOVE_ITEM.finditer(text)]
    assert [m.span() for m in re.compile(REMOVE_ITEM.source, REMOVE_ITEM.flags).finditer(text)] == before, text
    for path in ("scripts/run.ps1", "SKILL.md"):
        doc = make_document(path, text)
        found = [m.span() for m in REMOVE_ITEM.gate._matches(doc, 0, len(doc.folded))]
        assert found == [m.span() for m in OLD_REMOVE_ITEM.finditer(doc.folded)], (text, path)


@settings(max_examples=500, deadline=None)
@given(joined_texts(PIECES, SEPARATORS, max_size=30))
@example("Remove-Item -a -Recurse -b\n/")
@example("Remove-Item -Recurse/ ")   # -Recurse/ is an option, not -Recurse
def test_remove_item_finds_what_it_found(text):
    assert_found_as_before(text)


def test_remove_item_finds_what_it_found_on_thousands_of_lines():
    """A seeded fuzz, larger than the property's."""
    for text in seeded_texts(663, PIECES, SEPARATORS, 3000, lengths=(1, 24)):
        assert_found_as_before(text)
