"""Ids told apart only by their Unicode spelling: a folder named on macOS is spelt decomposed
(NFD), the same name typed elsewhere composed (NFC).  Wherever a skill is named by text (a
``depends`` item, an id typed in a shell), an id of the same NFC stands for it, as the loader
finds one; and names a file system that ignores case and Unicode form holds as one
(:func:`one_spelling`) (standard library only)."""
from __future__ import annotations

import unicodedata
from typing import Iterable


def spelt_alike(text: str, ids: Iterable[str]) -> list[str]:
    """The ``ids`` that are ``text`` in some Unicode spelling (the same NFC), sorted.  An ASCII id
    has one spelling, so it is only compared."""
    key = unicodedata.normalize("NFC", text)
    return sorted(i for i in ids if i == key or (not i.isascii() and unicodedata.normalize("NFC", i) == key))


def one_spelling(name: str) -> str:
    """``name`` as a file system that ignores case and Unicode form (macOS, Windows) tells names
    apart: two names of one spelling are one file or folder there (``Skill.md`` and ``SKILL.md``,
    ``Team/x`` and ``team/x``)."""
    return unicodedata.normalize("NFC", name).casefold()
