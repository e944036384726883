"""SK662's settings (``approval_policy = "never"``, ``sandbox_mode``, ``permissionMode``) with a run
of white space after their name: the pattern costs ``re`` steps in proportion to the run (counted
with tests/regex_steps.py through each search its gate makes), where the run was read again from
each of its places, before and after the ``=``, ``:`` or space between name and value; and it
matches where the pattern as it was matches (its source kept here)."""
from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings

from regex_steps import joined_texts, search_steps, seeded_texts, steps_grow_in_proportion
from skillsite.audit.engine import audit_document
from skillsite.audit.rules import RULES
from skillsite.audit.text import make_document
from test_audit_option_runs import gate_steps

#: SK662 as it was: each setting's name and value parted by ``\s*[=: ]\s*``.
OLD_UNCHECKED = re.compile(
    r"--dangerously-skip-permissions\b|--dangerously-bypass-approvals-and-sandbox\b|--yolo\b|"
    r"--allow-dangerously-skip-permissions\b|--(?:approval-mode|approval_mode)[= ]\s*[\"']?yolo\b|"
    r"\b(?:approval[_-]policy|ask[_-]for[_-]approval)[\"']?\s*[=: ]\s*[\"']?never\b|"
    r"\bsandbox[_-]mode[\"']?\s*[=: ]\s*[\"']?danger-full-access\b|--sandbox\s+danger-full-access\b|"
    r"\b(?:permission[_-]?mode|defaultMode)[\"']?\s*[=: ]\s*[\"']?bypassPermissions\b|"
    r"--allow-all-tools\b|--trust-all-tools\b|(?<![\w-])--allow-all(?![\w-])", re.IGNORECASE)
UNCHECKED = RULES["SK662"].patterns[0]

#: A setting's name, a run of white space repeated, and the end: its value, not after the run, but in
#: the text, so that the gate opens.
SHAPES = [("approval_policy", " ", "x\nnever"), ("approval_policy", " ", "x never"),
          ("ask-for-approval\"", "\t", "x never"), ("sandbox_mode", " ", "x danger-full-access"),
          ("permissionMode", " ", "x bypassPermissions"),
          ("defaultMode", " \n", "x bypassPermissions"), ("approval_policy =", " ", "x never"),
          ("approval_policy", "\n", "= x never")]


@pytest.mark.parametrize("start, unit, end", SHAPES, ids=[repr(f"{s}{u}..{e}") for s, u, e in SHAPES])
def test_a_run_of_white_space_after_a_setting_costs_steps_in_proportion(start, unit, end):
    """Twice the run, at most 2.5 times the steps (quadratic before: each place of the run read the rest)."""
    steps_grow_in_proportion(lambda text: gate_steps(UNCHECKED.gate, text), lambda n: start + unit * n + end,
                             max(40, 400 // len(unit)))


def test_the_pattern_alone_costs_steps_in_proportion():
    pattern = re.compile(UNCHECKED.source, UNCHECKED.flags)
    assert pattern.search("approval_policy" + " " * 400 + "x never") is None
    steps_grow_in_proportion(lambda text: search_steps(pattern, text, 20_000_000),
                             lambda count: "approval_policy" + " " * count + "x never", 200)


def test_a_setting_after_a_long_run_of_white_space_is_found():
    text = "approval_policy" + " " * 5000 + "=\n\n 'never'\n"
    found = [f for f in audit_document("scripts/config.sh", text) if f.code == "SK662"]
    assert [(f.line, f.column) for f in found] == [(1, 1)]


#: Pieces of settings: names (quoted too), separators, white space of each kind, values, flags.
PIECES = ["approval_policy", "approval-policy", "ask_for_approval", "ask-for-approval", "sandbox_mode", "sandbox-mode",
          "permissionMode", "permission_mode", "permission-mode", "defaultMode", "DEFAULTMODE", "\"", "'", "=", ":",
          " ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u2028", "never", "nevermore", "danger-full-access",
          "bypassPermissions", "yolo", "--approval-mode", "--sandbox", "--yolo", "--allow-all", "x", "-", "\u0130"]


def assert_found_as_before(text: str) -> None:
    """The pattern, alone and through its gate (as a script and as SKILL.md), matches where it did."""
    before = [m.span() for m in OLD_UNCHECKED.finditer(text)]
    assert [m.span() for m in re.compile(UNCHECKED.source, UNCHECKED.flags).finditer(text)] == before, text
    for path in ("scripts/run.sh", "SKILL.md"):
        doc = make_document(path, text)
        found = [m.span() for m in UNCHECKED.gate.finditer(doc)]
        assert found == [m.span() for m in OLD_UNCHECKED.finditer(doc.folded)], (text, path)


@settings(max_examples=500, deadline=None)
@given(joined_texts(PIECES, [""], max_size=24))
@example("approval_policy\t\nnever")   # white space, none of it a space: no separator
@example("approval_policy\"\t \t'never")
def test_a_setting_is_found_where_it_was(text):
    assert_found_as_before(text)


def test_a_setting_is_found_where_it_was_on_thousands_of_lines():
    """A seeded fuzz, larger than the property's."""
    for text in seeded_texts(662, PIECES, None, 3000, lengths=(1, 16)):
        assert_found_as_before(text)
