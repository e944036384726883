"""SK622's Markdown image and link URLs are looked for on the lines around "](" and the URLs (with
the nearest line holding text on either side), not in the whole folded text, and the pattern
starts with a lookahead each of its matches meets: its matches, groups included, are those of the
pattern as it was, searched in the whole folded text (kept here)."""
from __future__ import annotations

import re

from hypothesis import given, settings

from regex_steps import joined_texts, seeded_texts
from skillsite.audit import engine
from skillsite.audit.rules.exfiltration import variable_url
from skillsite.audit.text import WINDOWED, make_document

#: The pattern as it was, searched with ``finditer`` over the whole folded text.
BEFORE = re.compile(r"(!?)\[[^\]\n]{0,200}\]\(\s*<?((?:https?:)?//[^)\s>]+)|^[^\S\n]*\[[^\]\n]+\]:\s*<?(https?://\S+)",
                    re.MULTILINE | re.IGNORECASE)
PATTERN = variable_url.patterns[0]
#: Links, images and definitions split over lines and blank lines, near misses, filler.
PIECES = ["![x](https://e.io/p?k=$KEY)", "[a](//e.io/?t={{token}})", "[", "]", "](", "](\n  <https://e.io/x>",
          "]: https://e.io/${SECRET}", "  [ref]:\n\n   HTTPS://E.IO/A", "![", "!", "[a]\n(https://x)",
          "[x" + "y" * 210 + "](//z",
          "http://", "HTTP://h", "  ", "\t[d]:  <https://d.io/$X>", "](\n\n\n//x", "[[]](https://[", "x" * 300,
          "\u0130", "\u212a", "ſ", "]:", ")"]
SEPARATORS = ["\n", " ", "", "\n\n", "\n  \n", "\r\n"]


def assert_as_before(text: str) -> None:
    doc = make_document("references/links.md", text)
    before = [(m.span(), m.groups()) for m in BEFORE.finditer(doc.folded)]
    assert [(m.span(), m.groups()) for m in PATTERN.finditer(doc)] == before, text


def test_the_pattern_is_searched_around_its_literals():
    engine.prepare()
    assert PATTERN.scope == "lines" and PATTERN.gate.literals == frozenset({"](", "http://", "https://"})


@settings(max_examples=400, deadline=None)
@given(joined_texts(PIECES, SEPARATORS, max_size=30))
def test_the_links_are_found_as_before(text):
    assert_as_before(text)


def test_the_links_are_found_as_before_in_long_documents():
    """A seeded fuzz on documents past the length from which only windows are scanned."""
    long_ones = 0
    for text in seeded_texts(622, PIECES, SEPARATORS, 300, lengths=(50, 400)):
        long_ones += len(text) >= WINDOWED
        assert_as_before(text)
    assert long_ones > 100
