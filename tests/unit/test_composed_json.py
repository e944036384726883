"""Indented JSON composed of rows encoded one at a time is the whole document's indented JSON."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillsite.publish.composed_json import composed_json, encode_string, row_json
from skillsite.publish.manifest import indented_json

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)  # "\n", "\0", U+2028, astral too
SCALARS = st.none() | st.booleans() | st.integers() | TEXT
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
                      max_leaves=12)


def _nest(depth: int, before: dict, rows: list) -> dict:
    """A document holding ``rows`` as its last value, ``depth`` objects and lists deep."""
    held: object = rows
    for level in range(depth):
        held = {**{k: v for k, v in before.items() if k != "rows"}, "rows": held} if level % 2 == 0 else [before, held]
    return held if isinstance(held, dict) else {"held": held}


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(VALUES, max_size=6), before=st.dictionaries(TEXT, VALUES, max_size=3),
       depth=st.integers(min_value=0, max_value=4))
def test_composed_rows_are_the_whole_document_s_indented_json(rows, before, depth):
    document = lambda listed: _nest(depth, before, listed)  # noqa: E731
    assert composed_json(document, [row_json(row) for row in rows]) == indented_json(document(rows))


@given(TEXT)
def test_a_string_row_encodes_as_the_indenting_encoder_does(text):
    assert encode_string(text) == row_json(text)


def test_rows_followed_by_another_value_are_refused():
    """Whatever came after the rows would be lost: such a document is not composed."""
    with pytest.raises(ValueError):
        composed_json(lambda rows: {"rows": rows, "after": 1}, [row_json(1)])
    with pytest.raises(ValueError):
        composed_json(lambda rows: {"rows": rows, "after": [2]}, [row_json(1)])
