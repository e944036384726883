"""What the prompt XML says of a skill is text XML 1.0 can hold and UTF-8 can encode, whatever a
catalog's host wrote (a JSON ``\\ud800`` is a lone surrogate once parsed)."""
from __future__ import annotations

import xml.dom.minidom

import pytest

from skillsite.agent.prompt_xml import xml_text


@pytest.mark.parametrize("text", ["a\x00b", "a\x1fb", "a\ud800b", "a\udfffb", "a\ufffeb"])
def test_characters_xml_or_utf8_cannot_hold_become_the_replacement_character(text: str) -> None:
    shown = xml_text(text)
    assert shown == "a\ufffdb"
    xml.dom.minidom.parseString(f"<d>{shown}</d>".encode("utf-8"))


def test_markup_is_escaped_and_everything_else_is_kept() -> None:
    assert xml_text("<skill> & \U0001F600 é") == "&lt;skill&gt; &amp; \U0001F600 é"
