"""Long encoded blobs in scripts (SK640): base64 or hex too long for anyone to review.

Data URIs (images and fonts inlined in HTML or CSS) and integrity hashes are not blobs.
"""
from __future__ import annotations

import re
from typing import Iterator

from skillsite.audit.hit import Hit
from skillsite.audit.text import Document

MIN_BLOB = 200
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/]{%d,}={0,2}(?![A-Za-z0-9+/=_-])" % MIN_BLOB)
_HEX = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){%d,}(?![0-9A-Fa-f])|(?:\\x[0-9A-Fa-f]{2}){%d,}"
                  % (MIN_BLOB // 2, MIN_BLOB // 8))
_SHORTEST = MIN_BLOB // 2  # characters of the shortest blob (\x escapes)
_DATA_URI = re.compile(r"data:[\w/+.-]+(?:;[\w=.-]+)*;base64,\s*$", re.IGNORECASE)


def check_blobs(doc: Document) -> Iterator[Hit]:
    """SK640 in a script (code files only)."""
    if doc.kind != "code":
        return
    text = doc.text
    if max(map(len, text.split()), default=0) < _SHORTEST:
        return  # a blob holds no white space: without a word this long there is none
    for match in _BASE64.finditer(text):
        blob = match.group()
        if not (re.search("[a-z]", blob) and re.search("[A-Z]", blob) and re.search("[0-9]", blob)):
            continue  # a long word or path, not base64
        if _DATA_URI.search(text, max(0, match.start() - 100), match.start()):
            continue
        yield Hit("SK640", match.start(), match.start() + 20, f": {len(blob)} base64 characters", folded=False)
    for match in _HEX.finditer(text):
        yield Hit("SK640", match.start(), match.start() + 20, f": {len(match.group())} hex characters",
                  folded=False)
