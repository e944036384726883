"""Invisible or deceptive text: tag characters, bidi controls, zero-width characters in words,
line separators and variation-selector runs (SK601-SK605), found in the original text."""
from __future__ import annotations

import re
from typing import Iterator

from skillsite.audit.hit import Hit
from skillsite.audit.text import Document

_TAGS = re.compile("[\U000e0000-\U000e007f]+")
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]+")
_ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad\u180e\u034f]+")
_SEPARATORS = re.compile("[\u2028\u2029]")
_SELECTORS = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]{2,}")
_ANY = re.compile("[\U000e0000-\U000e007f\u202a-\u202e\u2066-\u2069\u200b-\u200d\u2060-\u2064\ufeff\u00ad\u180e\u034f"
                  "\u2028\u2029\ufe00-\ufe0f\U000e0100-\U000e01ef]")


def _hidden_ascii(run: str) -> str:
    """What a run of tag characters spells (they mirror ASCII)."""
    shown = "".join(chr(ord(c) - 0xE0000) for c in run if 0x20 <= ord(c) - 0xE0000 < 0x7F)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _letter(char: str) -> bool:
    return char.isalpha() and char.isascii()


def check_unicode(doc: Document) -> Iterator[Hit]:
    """SK601-SK605 in one document."""
    text = doc.text
    if not doc.unusual or _ANY.search(text) is None:  # unusual: one search for these and the folded ones
        return
    for match in _TAGS.finditer(text):
        spelled = _hidden_ascii(match.group())
        detail = f": {len(match.group())} characters spelling {spelled!r}" if spelled else ""
        yield Hit("SK601", match.start(), match.end(), detail, folded=False)
    for match in _BIDI.finditer(text):
        names = ", ".join(sorted({f"U+{ord(c):04X}" for c in match.group()}))
        yield Hit("SK602", match.start(), match.end(), f" ({names})", folded=False)
    for match in _ZERO_WIDTH.finditer(text):
        run = match.group()
        if match.start() == 0 and run == "\ufeff":
            continue  # a byte order mark
        before = text[match.start() - 1] if match.start() else ""
        after = text[match.end()] if match.end() < len(text) else ""
        if len(run) >= 3:
            yield Hit("SK603", match.start(), match.end(), f": a run of {len(run)}", severity="high", folded=False)
        elif _letter(before) and _letter(after):
            yield Hit("SK603", match.start(), match.end(), f" (U+{ord(run[0]):04X})", folded=False)
    for match in _SEPARATORS.finditer(text):
        yield Hit("SK604", match.start(), match.end(), f" (U+{ord(match.group()):04X})", folded=False)
    for match in _SELECTORS.finditer(text):
        yield Hit("SK605", match.start(), match.end(), f": {len(match.group())} in a row", folded=False)
