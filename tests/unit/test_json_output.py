"""The JSON writer gives exactly what ``json.dumps(indent=N, ensure_ascii=False)`` gives (the
report's indent of 2, and the output's JSON files' indent of 1)."""
from __future__ import annotations

import json

from hypothesis import given, settings, strategies as st

from skillsite.diagnostics import Diagnostic, Severity, format_json_report, json_indented

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text()
keys = st.text() | st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
                      max_leaves=30)


@settings(max_examples=500, deadline=None)
@given(values, st.sampled_from(["  ", " ", "    "]))
def test_same_text_as_json_dumps(value, step):
    assert json_indented(value, step=step) == json.dumps(value, indent=len(step), ensure_ascii=False)


def test_empty_containers_and_nesting():
    value = {"a": [], "b": {}, "c": [{"d": [1, 2.5, None, True]}], "é": "\u2028\x00\"'"}
    assert json_indented(value) == json.dumps(value, indent=2, ensure_ascii=False)


_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.fixed_dictionaries({"id": _TEXT, "path": _TEXT, "valid": st.booleans()}), max_size=3)
       | st.lists(st.dictionaries(st.sampled_from(["id", "path", "valid", "x"]), st.booleans() | _TEXT), max_size=3),
       st.lists(st.tuples(_TEXT, st.integers(0, 10**6), st.integers(0, 999), st.sampled_from(["SK201", "SK303"]),
                          st.sampled_from(list(Severity)), _TEXT), max_size=4),
       st.dictionaries(_TEXT, st.integers() | st.dictionaries(_TEXT, st.integers(), max_size=2), max_size=3))
def test_the_json_report_is_what_json_dumps_writes(skills, diags, summary):
    diagnostics = [Diagnostic(*d) for d in diags]
    expected = json.dumps({"skills": skills, "diagnostics": [d.to_json() for d in diagnostics], "summary": summary},
                          indent=2, ensure_ascii=False)
    assert format_json_report(skills, diagnostics, summary) == expected
