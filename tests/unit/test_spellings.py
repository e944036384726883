"""spelt_alike: the ids that are a text in another Unicode spelling, as the loader finds them."""
from __future__ import annotations

import unicodedata

from skillsite.agent.spellings import spelt_alike

CAFE_NFC = unicodedata.normalize("NFC", "café-notes")
CAFE_NFD = unicodedata.normalize("NFD", "café-notes")


def test_the_other_spelling_of_an_accented_id_is_found_both_ways() -> None:
    assert CAFE_NFC != CAFE_NFD
    assert spelt_alike(CAFE_NFD, ["plain", CAFE_NFC]) == [CAFE_NFC]
    assert spelt_alike(CAFE_NFC, [CAFE_NFD, "plain"]) == [CAFE_NFD]


def test_both_spellings_published_are_both_returned_sorted() -> None:
    assert spelt_alike(CAFE_NFC, [CAFE_NFD, CAFE_NFC, "cafe-notes"]) == sorted([CAFE_NFC, CAFE_NFD])


def test_an_ascii_id_is_found_by_a_text_whose_nfc_is_that_id() -> None:
    """The Kelvin sign composes to the letter K: the loader, which keys every id by its NFC, finds
    the ASCII id for it, and so does this."""
    kelvin = "\u212aubectl"
    assert spelt_alike(kelvin, ["Kubectl", "kubectl"]) == ["Kubectl"]


def test_no_id_of_another_text_is_found() -> None:
    assert spelt_alike("cafe-notes", [CAFE_NFC, CAFE_NFD]) == []
    assert spelt_alike(CAFE_NFC, []) == []
