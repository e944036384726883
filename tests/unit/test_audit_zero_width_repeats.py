"""SK603: a short run of one zero-width character repeated (rich-text residue after a CJK full stop)
is medium, as runs of one or two are; a run mixing characters, or a long run, stays high (data)."""
from __future__ import annotations

import pytest

from support import severities


def sk603(path: str, text: str) -> list[str]:
    return severities("SK603", path, text)


@pytest.mark.parametrize("run", ["\u200b" * 3, "\u200b" * 4, "\u200d" * 3])
def test_a_short_run_of_one_repeated_character_is_medium(run):
    text = f"DolphinDB 是一款\u200b\u200b可用性高的工具。{run}通过拖拽即可完成。\n"
    assert sk603("references/kafka.md", text) == ["medium"]


@pytest.mark.parametrize("text", [
    "pass\u200b\u200c\u200b\u200cword\n", "任务。\u200b\u200c\u200b通过\n", "x\u200b\u200b\u200b\u200b\u200by\n",
    "任务。" + "\u200b" * 16 + "通过\n", "a\u2060\u200b\u200b\u200bb\n",
])
def test_a_run_mixing_characters_or_a_long_run_stays_high(text):
    assert sk603("references/notes.md", text) == ["high"]


def test_a_listing_of_each_character_once_is_still_no_finding():
    assert sk603("scripts/strip.py", '_ZERO_WIDTH = "\u200b\u200c\u200d\ufeff"\n') == []
