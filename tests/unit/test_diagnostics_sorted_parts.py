"""The sorted diagnostics of a catalog's parts (:class:`SortedParts`), patched where parts changed
(as ``serve``'s rebuild after an edit does), are what sorting them all again gives: duplicates
within a part and across parts, diagnostics moving from one part to another, parts gone or new."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from skillsite import diagnostics as diagnostics_module
from skillsite.diagnostics import Diagnostic, Severity, SortedParts, sort_diagnostics

# few values of each field, so that equal diagnostics in several parts are common
diagnostics = st.builds(Diagnostic, st.sampled_from(["a/SKILL.md", "b/SKILL.md", "b/x.md"]),
                        st.integers(0, 3), st.integers(0, 2), st.sampled_from(["SK107", "SK301", "SK610"]),
                        st.sampled_from(list(Severity)), st.sampled_from(["long", "longer", ""]))
parts = st.dictionaries(st.sampled_from("abcdefghijklmnopqrstuvwxyz"), st.lists(diagnostics, max_size=5).map(tuple),
                        max_size=26)


def _sorted_anew(of: dict[str, tuple[Diagnostic, ...]]) -> tuple[Diagnostic, ...]:
    return tuple(sort_diagnostics(d for part in of.values() for d in part))


@settings(max_examples=400, deadline=None)
@given(parts, parts, parts)
def test_patched_as_sorted_anew(first: dict, changes: dict, third: dict) -> None:
    """Any number of parts changed, twice over: each result is the sort of all the parts."""
    second = {**first, **changes}
    for gone in list(third)[:3]:
        second.pop(gone, None)
    made = SortedParts.of(first)
    assert made.ordered == _sorted_anew(first)
    patched = made.updated(second)
    assert patched.ordered == _sorted_anew(second)
    assert patched.updated(third).ordered == _sorted_anew(third)
    assert made.ordered == _sorted_anew(first)  # what the last build kept is not changed


def test_one_changed_part_of_many_is_neither_sorted_nor_keyed_again(monkeypatch) -> None:
    """One skill's part changed among hundreds: a few sort keys (bisection), not one per diagnostic;
    the same parts give the very same object."""
    many = {f"skill-{n:03d}": tuple(Diagnostic(f"skill-{n:03d}/SKILL.md", line, 1, "SK303", Severity.WARNING,
                                               "link to a missing file") for line in range(1, 6))
            for n in range(400)}
    made = SortedParts.of(many)
    assert made.updated(dict(many)) is made
    keyed = []
    order = diagnostics_module._ORDER
    monkeypatch.setattr(diagnostics_module, "_ORDER", lambda diag: keyed.append(diag) or order(diag))
    edited = {**many, "skill-123": (*many["skill-123"][1:], Diagnostic("skill-123/SKILL.md", 9, 1, "SK301",
                                                                      Severity.WARNING, "body longer"))}
    patched = made.updated(edited)
    assert 0 < len(keyed) < 100
    assert patched.ordered == _sorted_anew(edited)
