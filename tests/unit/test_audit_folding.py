"""Folding keeps an exact map from each folded position back to the text (skillsite.audit.folding)."""
from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from skillsite.audit import folding
from skillsite.audit.folding import fold

PIECES = ["ignore", " ", "\n", "&#105;", "&amp;", "&bogus;", "**", "*", "<b>", "</b>", "<!---->", "-\n  ", "\\\n ",
          "\u200b", "\u202e", "\U000e0041", "\U0001d5f6", "\u24d8", "\u026a", "\u0301", "\u2122", "\u2103", "\u0430",
          "\uff49", '" + "', "''", "x", "é", "\u00e6", "\u0417", "\U0001d6b0", "\u13aa"]


def dense_fold(text: str, code: bool) -> tuple[str, list[int]]:
    """The same steps as ``fold``, with the map kept as one original offset per folded position."""
    folded, origin = text, list(range(len(text)))

    def substitute(pattern: re.Pattern[str], replace) -> None:
        nonlocal folded, origin
        parts, mapping, last = [], [], 0
        for match in pattern.finditer(folded):
            parts.append(folded[last:match.start()])
            mapping.extend(origin[last:match.start()])
            new = replace(match)
            parts.append(new)
            mapping.extend([origin[min(match.start(), len(origin) - 1)]] * len(new))
            last = match.end()
        parts.append(folded[last:])
        mapping.extend(origin[last:])
        folded, origin = "".join(parts), mapping

    substitute(folding._ENTITY, folding._entity)
    substitute(folding._foldable(), folding._fold_char)
    if not code:
        for pattern in folding._INSIDE_WORDS:
            substitute(pattern, lambda m: "")
    substitute(folding._CONTINUATION, lambda m: " ")
    if code:
        substitute(folding._CONCAT, lambda m: "")
    return folded, origin


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40), st.booleans())
def test_every_folded_position_maps_back_as_a_map_per_position_would(pieces, code):
    text = "".join(pieces)
    folded, origin = fold(text, code)
    expected_text, expected_map = dense_fold(text, code)
    assert folded == expected_text
    assert [origin(i) if origin else i for i in range(len(folded))] == expected_map


def test_disguised_words_fold_to_plain_ones():
    assert fold("ig**no**re &#112;revious ign<b></b>ore instruc-\n  tions", code=False)[0] == \
        "ignore previous ignore instructions"
    assert fold("\U0001d5f6\u24d6\u0274\u1d0f\u0280e", code=False)[0] == "ignore"


def test_code_keeps_its_stars_and_tags():
    assert fold("a**b <b>x</b>y", code=True)[0] == "a**b <b>x</b>y"
