"""Whether a text is UTF-8 text: names read from the file system (undecodable bytes come back as
lone surrogates) and JSON escapes (``\\udXXX``) can hold what no UTF-8 file, URL, lock file or
archive can carry (standard library only)."""
from __future__ import annotations


def is_utf8_text(text: str) -> bool:
    """Whether ``text`` encodes as UTF-8 (False when it holds a lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
