"""Diagnostics added to a sorted list by bisection (:func:`merge_diagnostics`) come out as sorting
them all again would give, and that order is one total order: the same in every process."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from hypothesis import given, settings, strategies as st

from skillsite.diagnostics import Diagnostic, Severity, merge_diagnostics, sort_diagnostics

# few values of each field, so that equal diagnostics and ties on all but one field are common
diagnostics = st.builds(Diagnostic, st.sampled_from(["a/SKILL.md", "b/SKILL.md", "b/x.md"]),
                        st.integers(0, 3), st.integers(0, 2), st.sampled_from(["SK107", "SK301", "SK610"]),
                        st.sampled_from(list(Severity)), st.sampled_from(["long", "longer", ""]))


@settings(max_examples=400, deadline=None)
@given(st.lists(diagnostics, max_size=40), st.lists(diagnostics, max_size=12))
def test_merged_as_all_sorted(first: list[Diagnostic], more: list[Diagnostic]) -> None:
    ordered = tuple(sort_diagnostics(first))
    assert merge_diagnostics(ordered, more) == sort_diagnostics([*first, *more])
    assert merge_diagnostics(ordered, ()) == list(ordered)


def test_more_than_the_sorted_list() -> None:
    """More new diagnostics than old ones: sorted all together, the same result."""
    old = [Diagnostic("b/SKILL.md", 1, 0, "SK301", Severity.WARNING, "long")]
    new = [Diagnostic(f"{name}/SKILL.md", 2, 0, "SK301", Severity.WARNING, "long") for name in "cab"]
    assert merge_diagnostics(old, new) == sort_diagnostics(old + new)


SORT_IN_A_PROCESS = """
import json, sys
from skillsite.diagnostics import Diagnostic, Severity, sort_diagnostics
same_place = [Diagnostic("a/SKILL.md", 3, 1, "SK610", severity, "found") for severity in Severity]
print(json.dumps([d.severity.value for d in sort_diagnostics(same_place)]))
"""


def test_one_order_in_every_process() -> None:
    """Diagnostics that differ only in severity are in the same order whatever the process's hash seed
    (a set's order is not)."""
    orders = set()
    for seed in range(6):
        done = subprocess.run([sys.executable, "-c", SORT_IN_A_PROCESS], capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": str(seed)})
        orders.add(tuple(json.loads(done.stdout)))
    assert orders == {("error", "info", "warning")}
