"""Frontmatter schemas: checked by jsonschema at run time; codes and severities come from the schema files."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from skillsite.diagnostics import CODES, Severity
from skillsite.source.schema import PROFILES, load_schema, schema_diagnostics


def annotations(schema: object) -> list[tuple[str, object]]:
    """Every ``x-codes`` and ``x-severity`` value in a schema, wherever it is nested."""
    found: list[tuple[str, object]] = []
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key in ("x-codes", "x-severity"):
                found.append((key, value))
            found += annotations(value)
    elif isinstance(schema, list):
        for value in schema:
            found += annotations(value)
    return found


def leaves(value: object) -> list[str]:
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in leaves(v)]
    return [str(value)]


@pytest.mark.parametrize("profile", PROFILES)
def test_schemas_are_valid_and_name_only_known_codes_and_severities(profile):
    schema = load_schema(f"skill.{profile}.schema.json")
    Draft202012Validator.check_schema(schema)
    found = annotations(schema)
    assert found
    for kind, value in found:
        for leaf in leaves(value):
            if kind == "x-codes":
                assert leaf in CODES, leaf
            else:
                assert leaf in {s.value for s in Severity}, leaf


def check(frontmatter: dict, profile: str = "default") -> list[tuple[str, str, int]]:
    lines = {key: (number + 2, 1) for number, key in enumerate(frontmatter)}
    return sorted((d.code, d.severity.value, d.line) for d in schema_diagnostics(frontmatter, profile, "p", lines))


def test_a_valid_frontmatter_has_no_diagnostics():
    assert check({"name": "ok", "description": "Does things."}, "spec") == []
    assert check({"name": "ok", "description": "Does things.", "tags": ["a"], "priority": 2}) == []


def test_severities_follow_the_profile():
    assert check({"name": "Bad Name", "description": "d"}) == [("SK203", "warning", 2)]
    assert check({"name": "Bad Name", "description": "d"}, "spec") == [("SK203", "error", 2)]
    assert check({"name": "x", "description": "d" * 1025}) == [("SK206", "warning", 3)]
    assert check({"name": "x", "description": "d" * 1025}, "spec") == [("SK206", "error", 3)]


def test_a_warning_says_whether_the_published_value_keeps_the_skill_out_of_the_discovery_index():
    """The catalog publishes a name and description stripped: spaces around a good name do not
    keep the skill out of the discovery index, and the warning must not say they do."""
    def message(frontmatter):
        [diag] = schema_diagnostics(frontmatter, "default", "SKILL.md", {"name": (2, 1), "description": (3, 1)})
        return diag.message
    assert message({"name": "tidy   ", "description": "d"}).endswith("publishes it without the spaces around it")
    assert message({"name": "Tidy ", "description": "d"}).endswith("not listed in the discovery index")
    assert message({"name": "x", "description": "d" * 1024 + "  "}).endswith("without the spaces around it")
    assert message({"name": "x", "description": "d" * 1025 + " "}).endswith("not listed in the discovery index")


def test_required_keys_and_unknown_keys():
    assert check({"description": "d"}) == [("SK202", "warning", 1)]
    assert check({"name": "x"}, "spec") == [("SK201", "error", 1)]
    assert check({"name": "x", "description": "d", "author": "me"}) == [("SK207", "warning", 4)]
    assert check({"name": "x", "description": "d", "author": "me"}, "spec") == [("SK207", "error", 4)]


def test_types_are_checked_with_the_field_named():
    diags = schema_diagnostics({"name": "x", "description": "d", "always": "high", "tags": 3}, "default", "p",
                               {"always": (4, 1), "tags": (5, 1)})
    assert sorted((d.code, d.line) for d in diags) == [("SK208", 4), ("SK208", 5)]
    assert any("'always' must be true or false, not string" in d.message for d in diags)
    # a priority's x-message says what was written and what becomes of it (SK233, a warning)
    [label] = schema_diagnostics({"name": "x", "description": "d", "priority": "high"}, "default", "p",
                                 {"priority": (4, 1)})
    assert (label.code, label.severity.value, label.line) == ("SK233", "warning", 4)
    assert label.message.startswith("'priority' 'high' is not a whole number; ignored")
    # a list (one of the forms allowed) with a wrong item names the item, not "not list"
    items = schema_diagnostics({"name": "x", "description": "d", "conflicts": ["a", 5]}, "default", "p",
                               {"conflicts": (4, 1)})
    assert [d.message for d in items] == ["'conflicts[1]' must be a string, not integer"]
    # but a platforms list with a name that is no OS is ignored whole (SK234, a warning), so said whole
    [whole] = schema_diagnostics({"name": "x", "description": "d", "platforms": ["linux", "beos"]}, "default", "p",
                                 {"platforms": (4, 1), "platforms[1]": (5, 3)})
    assert (whole.code, whole.severity.value, whole.line) == ("SK234", "warning", 4)
    assert whole.message.startswith("'platforms' [\"linux\", \"beos\"] is not in a shape skillsite reads (one or")
    nested = schema_diagnostics({"name": "x", "description": "d", "metadata": {"a": 1}}, "spec", "p",
                                {"metadata": (4, 1), "metadata.a": (5, 3)})
    assert [(d.code, d.line, d.col) for d in nested] == [("SK210", 5, 3)]


SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=False, width=16),
                    st.sampled_from(["", " ", "ok", "Bad Name", "a--b", "x" * 70, "linux", "macos", "MIT"]))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.sampled_from(["name", "purpose", "required", "bins", "env", "platforms", "description", "a"]),
    inner, max_size=3), max_leaves=8)
KEYS = st.sampled_from(["name", "description", "license", "compatibility", "metadata", "allowed-tools", "version",
                        "tags", "tools", "parameters", "examples", "priority", "hidden", "always", "requires",
                        "requires_bins", "platforms", "triggers", "argument-hint", "user_invocable_only", "extra"])


@pytest.mark.parametrize("profile", PROFILES)
@settings(max_examples=200, deadline=None)
@given(frontmatter=st.dictionaries(KEYS, VALUES, max_size=8))
def test_any_frontmatter_gives_diagnostics_with_known_codes(profile, frontmatter):
    lines = {key: (number + 2, 1) for number, key in enumerate(frontmatter)}
    diags = schema_diagnostics(frontmatter, profile, "p", lines)
    assert all(d.code in CODES and d.path == "p" and d.line >= 1 for d in diags)
    valid = Draft202012Validator(load_schema(f"skill.{profile}.schema.json")).is_valid(frontmatter)
    errors = [d for d in diags if d.severity is Severity.ERROR]
    if valid:
        assert not errors
    else:
        assert diags


@pytest.mark.parametrize("profile", PROFILES)
def test_an_empty_value_is_said_once_as_empty(profile: str) -> None:
    """182 skills of a public directory write ``description: ""``: each got "is empty" and
    "'' is only whitespace" (the pattern failing too), every error counted twice."""
    lines = {"name": (2, 1), "description": (3, 1)}
    found = [(d.code, d.message) for d in schema_diagnostics({"name": "", "description": ""}, profile, "s", lines)]
    assert sorted(code for code, _ in found) == ["SK201", "SK203"], found
    assert sorted(message.split(";")[0] for _, message in found) == ["'description' is empty", "'name' is empty"]
    spaces = schema_diagnostics({"name": "a", "description": "   "}, profile, "s", lines)
    assert [d.message for d in spaces] == ["'description' '   ' is only whitespace"]
