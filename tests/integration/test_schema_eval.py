"""skillsite's schema evaluator reports exactly what jsonschema reports, on our own schemas."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support import CORPUS
from skillsite.schema_check import evaluator, reference_validator, schema_diagnostics
from skillsite.schema_eval import SchemaEvaluator

PROFILES = ["default", "spec"]


def both(frontmatter: dict, profile: str) -> tuple[list, list]:
    lines = {k: (i + 2, 1) for i, k in enumerate(frontmatter)}
    ours = schema_diagnostics(frontmatter, profile, "p", lines)
    theirs = schema_diagnostics(frontmatter, profile, "p", lines, validator=reference_validator(profile))
    return sorted(ours), sorted(theirs)


SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=False, width=16),
                    st.sampled_from(["", " ", "ok", "Bad Name", "a--b", "x" * 70, "linux", "macos", "MIT"]))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.sampled_from(["name", "purpose", "required", "bins", "env", "platforms", "description", "a"]),
    inner, max_size=3), max_leaves=8)
KEYS = st.sampled_from(["name", "description", "license", "compatibility", "metadata", "allowed-tools", "version",
                        "tags", "tools", "parameters", "examples", "priority", "hidden", "always", "requires",
                        "requires_bins", "platforms", "triggers", "argument-hint", "user_invocable_only", "extra"])


@pytest.mark.parametrize("profile", PROFILES)
@settings(max_examples=250, deadline=None)
@given(frontmatter=st.dictionaries(KEYS, VALUES, max_size=8))
def test_random_frontmatter(profile, frontmatter):
    ours, theirs = both(frontmatter, profile)
    assert ours == theirs


def test_real_and_hostile_frontmatter(tmp_path):
    from make_hostile import make_hostile_tree
    from skillsite.discover import discover
    from skillsite.parse import parse_skill

    roots = [make_hostile_tree(tmp_path / "root")] + ([CORPUS] if CORPUS.is_dir() else [])
    checked = 0
    for src in discover(roots).sources:
        parsed = parse_skill(src)
        if parsed.frontmatter is not None:
            for profile in PROFILES:
                ours, theirs = both(parsed.frontmatter, profile)
                assert ours == theirs, src.display_path
                ev = evaluator(profile)
                assert ev.is_valid(parsed.frontmatter) == (not list(ev.iter_errors(parsed.frontmatter)))
            checked += 1
    assert checked > 50


def test_unsupported_keywords_are_refused():
    with pytest.raises(ValueError):
        SchemaEvaluator({"oneOf": [{"type": "string"}]})
    with pytest.raises(ValueError):
        SchemaEvaluator({"$ref": "https://example.com/x.json"}).is_valid(1)


@pytest.mark.parametrize("profile", PROFILES)
@settings(max_examples=250, deadline=None)
@given(frontmatter=st.dictionaries(KEYS, VALUES, max_size=8))
def test_is_valid_is_true_exactly_when_iter_errors_finds_nothing(profile, frontmatter):
    """schema_diagnostics skips iter_errors when is_valid says so: the two must agree (on random
    frontmatter here, on real and hostile frontmatter in test_real_and_hostile_frontmatter)."""
    ev = evaluator(profile)
    assert ev.is_valid(frontmatter) == (not list(ev.iter_errors(frontmatter)))


def test_is_valid_with_a_schema_of_the_callers_own_each_time():
    """Predicates are kept per schema object: a schema made for one call, then dropped, never
    lends its predicate to a later schema that happens to reuse its memory."""
    ev = SchemaEvaluator({"type": "object"})
    for _ in range(50):
        assert ev.is_valid("text", {"type": "string"})
        assert not ev.is_valid("text", {"type": "integer"})
