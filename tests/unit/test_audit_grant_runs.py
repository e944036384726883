"""SK660 and SK661 read allowed-tools, which a skill writes as it likes (up to the size of its
SKILL.md): its names and command patterns cost ``re`` steps in proportion to their length (counted
with tests/regex_steps.py), where a run of white space before a pattern's last word, or names each
followed by a ``(`` that never closes, were read again from each of their places; and they are
read as before (the patterns as they were are kept here)."""
from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from regex_steps import Steps, steps_grow_in_proportion
from skillsite.audit.engine import audit_document
from skillsite.audit.rules import permissions

#: The forms of an open grant as they were: the white space before the wildcard read twice over.
OLD_ANY_ARGUMENTS = re.compile(r"(?:\S*/)?(?P<command>[\w.-]+)(?:\s+-(?:c|e|m|command|encodedcommand))?"
                               r"\s*(?::\s*\*|\s+\*|\*)", re.IGNORECASE)
OLD_PREFIX_THEN_ANY = re.compile(r"(?:\S*/)?(?P<command>[\w.-]+)\s[^*]*?(?::\s*\*|\s+\*|\*)", re.IGNORECASE)
OLD_OPTIONS_THEN_ANY = re.compile(r"(?:\S*/)?(?P<command>[\w.-]+)(?:\s+(?:-[\w-]+(?:[=:][^\s*]*)?|\d+[smhd]?))+\s*"
                                  r"(?::\s*\*|\s+\*|\*)", re.IGNORECASE)
OLD_TOOL = re.compile(r"\*|[\w.:/@*-]+(?:\([^)]*\))?")
FORMS = [("any arguments", OLD_ANY_ARGUMENTS, "_ANY_ARGUMENTS"), ("prefix", OLD_PREFIX_THEN_ANY, "_PREFIX_THEN_ANY"),
         ("options", OLD_OPTIONS_THEN_ANY, "_OPTIONS_THEN_ANY")]


def fullmatch_steps(pattern: re.Pattern[str], text: str) -> int:
    """The steps of ``pattern.fullmatch(text)``, checked to find what it finds."""
    counter = Steps(re.compile(rf"(?:{pattern.pattern})\Z", pattern.flags), budget=20_000_000)
    span = counter.match(text)
    found = pattern.fullmatch(text)
    assert span == (found.span() if found else None)
    return counter.steps


#: Grants with a long run inside: (what starts it, the part repeated, what ends it).
GRANTS = [("sudo", " ", "x"), ("sudo", " ", ""), ("find", " ", "x"), ("find .", " ", "x"), ("timeout -a", " ", "x"),
          ("timeout", " -a", " x"), ("timeout -a", "\t", "-b x"), ("sudo -c", " ", "x"), ("find", " :", "x"),
          ("a", "/a", " *x")]


@pytest.mark.parametrize("name, _old, attribute", FORMS, ids=[each[0] for each in FORMS])
@pytest.mark.parametrize("start, unit, end", GRANTS, ids=[repr(f"{s}{u}..{e}") for s, u, e in GRANTS])
def test_an_open_form_costs_steps_in_proportion_to_the_grant(name, _old, attribute, start, unit, end):
    """Twice the run, at most 2.5 times the steps (a run of white space before the wildcard was read
    from each of its places: quadratic)."""
    form = getattr(permissions, attribute)
    steps_grow_in_proportion(lambda grant: fullmatch_steps(form, grant), lambda n: start + unit * n + end,
                             max(40, 400 // len(unit)), name)


class FindallSteps:
    """A compiled pattern whose ``findall`` counts the steps ``re`` takes (regex_steps), checked to
    find what ``re`` finds."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern, self.steps = pattern, 0

    def findall(self, text: str, pos: int = 0, endpos: int | None = None) -> list[str]:
        part = text if endpos is None else text[:endpos]
        counter, found, at = Steps(self.pattern, budget=20_000_000), [], pos
        while (span := counter.search(part, at)) is not None:
            found.append(part[span[0]:span[1]])
            at = span[1] if span[1] > span[0] else span[1] + 1
        self.steps += counter.steps
        assert found == self.pattern.findall(text, pos, len(part))
        return found


def tools_steps(monkeypatch: pytest.MonkeyPatch, value: str) -> int:
    """The steps of the patterns :func:`permissions._tools` reads ``value`` with."""
    counting = {name: FindallSteps(getattr(permissions, name)) for name in ("_TOOL", "_TOOL_NAME")
                if hasattr(permissions, name)}
    for name, each in counting.items():
        monkeypatch.setattr(permissions, name, each)
    assert permissions._tools(value) == OLD_TOOL.findall(value)
    monkeypatch.undo()
    return sum(each.steps for each in counting.values())


@pytest.mark.parametrize("unit", ["a(", "Bash(x ", "a(b)c(", "((", "a(b)"])
def test_the_tools_granted_cost_steps_in_proportion(monkeypatch, unit):
    """Twice the value, at most 2.5 times the steps (a name before a ``(`` that never closes read
    the rest of the value: quadratic)."""
    steps_grow_in_proportion(lambda value: tools_steps(monkeypatch, value), lambda n: unit * n + " Read",
                             max(40, 400 // len(unit)))


#: Pieces of command patterns: commands (with a path), options, durations, separators, wildcards.
GRANT_PIECES = ["sudo", "find", "timeout", "python3", "watch", "x", "/usr/bin/", "a/", "/", ".", " ", "  ", "\t", "\n",
                "-c", "-e", "-m", "-command", "-EncodedCommand", "-n", "--x", "-o=x", "-o:", "1", "60s", "5m", "=",
                ":", "*", ":*", " *", ":  *", "-", "_"]
#: Pieces of allowed-tools values: names, grants, parentheses that close or not, separators.
TOOL_PIECES = ["Bash", "Write", "Read", "mcp__x__y", "Bash(git:*)", "Bash(", "(", ")", "((", "a", "*", "*:*", " ", ",",
               ":", "@", "/", ".", "-", "\n", "Edit(src/**)", "x)"]


def assert_read_as_before(grant: str) -> None:
    """Each open form matches the grant where it did, naming the same command; so do the tools."""
    for _name, old, attribute in FORMS:
        found, before = getattr(permissions, attribute).fullmatch(grant), old.fullmatch(grant)
        assert (found and found.group("command")) == (before and before.group("command")), (attribute, grant)
    assert permissions._tools(grant) == OLD_TOOL.findall(grant)
    assert permissions._tools([grant, 1, grant]) == OLD_TOOL.findall(grant) * 2


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(GRANT_PIECES + TOOL_PIECES), max_size=24))
def test_a_grant_is_read_as_before(pieces):
    assert_read_as_before("".join(pieces))


def test_a_grant_is_read_as_before_on_thousands_of_grants():
    """A seeded fuzz, larger than the property's."""
    chance = random.Random(660)
    for _ in range(5000):
        pieces = GRANT_PIECES if chance.random() < 0.7 else GRANT_PIECES + TOOL_PIECES
        assert_read_as_before("".join(chance.choice(pieces) for _ in range(chance.randint(1, 16))))


@pytest.mark.parametrize("grant, why", [
    ("Bash(sudo   *)", "sudo is a wrapper"), ("Bash(find . -name  :*)", "find runs any program through -exec"),
    ("Bash(timeout 60  *)", "timeout is a wrapper"), ("Bash(/usr/bin/python3 -c\t*)", "python3 is an interpreter"),
])
def test_an_open_grant_with_white_space_before_its_wildcard_is_found(grant, why):
    text = f"---\nname: x\ndescription: y\nallowed-tools: {grant} Read\n---\nbody\n"
    found = [f for f in audit_document("SKILL.md", text) if f.code == "SK660"]
    assert len(found) == 1 and why in found[0].message, found
