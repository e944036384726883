"""Where a Markdown text's fenced code blocks are, for the audit: examples shown as code.

The lines are read once.  A fence may open after quote markers (``> ```bash``), on a list item's
line (``- ```bash``) or indented under one (four spaces or more); it is closed only by a fence of
the same character, at least as long, in the same container: as many quote markers and about the
same indentation (within three columns).  A fence in a quote ends where the quote does (a line with
fewer markers); one on or under a list item ends at a line indented less than it, as markdown-it
ends the list item.  A fence that starts a line at the top level runs to the end unclosed, as
markdown-it renders it.  Where the container is unclear, the fence is ended early: reading too
little as an example leaves a finding as severe as it was.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator

#: One quote marker, with the space after it.
_QUOTE_MARK = re.compile(r"[ \t]{0,3}>[ \t]?")
#: Indentation and list markers before a line's text (``1. ``, ``- ``, ``  * ``).
_LIST_LEAD = re.compile(r"(?:[ \t]*(?:[-*+]|\d{1,9}[.)])(?=[ \t]))*[ \t]*")
_FENCE_RUN = re.compile(r"`{3,}|~{3,}")


@dataclass(frozen=True)
class _Line:
    """A line as a fence sees it: its quote markers, the column its text starts at after them,
    whether a list marker stands before that text, and the fence run starting there (if any)."""

    start: int
    end: int
    depth: int
    column: int
    marked: bool
    blank: bool
    run: str
    rest: str


@dataclass(frozen=True)
class _Open:
    """A fence opened and not yet closed."""

    start: int
    char: str
    length: int
    depth: int
    column: int
    top: bool      # at its container's own indentation (not on or under a list item)


def _lines(text: str) -> Iterator[_Line]:
    """Each line of ``text``, read for its container and its fence run."""
    start = 0
    while True:
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        depth, at = 0, start
        while (mark := _QUOTE_MARK.match(text, at, end)) is not None:
            depth, at = depth + 1, mark.end()
        lead = _LIST_LEAD.match(text, at, end)
        written = text[at:lead.end()]
        run = _FENCE_RUN.match(text, lead.end(), end)
        yield _Line(start, end, depth, len(written.expandtabs(4)), written.strip(" \t") != "",
                    not text[lead.end():end].strip("\r"), run.group() if run else "",
                    text[run.end():end] if run else "")
        if end == len(text):
            return
        start = end + 1


def _opens(line: _Line) -> _Open | None:
    """The fence this line opens, if any (a backtick fence's info string holds no backtick)."""
    if not line.run or (line.run[0] == "`" and "`" in line.rest):
        return None
    return _Open(line.start, line.run[0], len(line.run), line.depth, line.column,
                 line.column <= 3 and not line.marked)


def _closes(fence: _Open, line: _Line) -> bool:
    """Whether ``line`` is the closing fence of ``fence``."""
    return (line.run[:1] == fence.char and len(line.run) >= fence.length and not line.rest.strip(" \t\r")
            and line.depth == fence.depth and not line.marked and abs(line.column - fence.column) <= 3)


def _leaves(fence: _Open, line: _Line) -> bool:
    """Whether ``line`` is past the container of ``fence``: fewer quote markers, or (a fence on or
    under a list item) text indented less than the fence."""
    return line.depth < fence.depth or (not fence.top and not line.blank and line.column < fence.column)


def fenced_blocks(text: str) -> list[tuple[int, int]]:
    """Offsets (start, end) of the fenced code blocks of a Markdown text, each from its opening
    line's start to its closing line's end (or its container's last line, or the text's end)."""
    blocks: list[tuple[int, int]] = []
    fence: _Open | None = None
    last_end = 0
    for line in _lines(text):
        if fence is not None and _closes(fence, line):
            blocks.append((fence.start, line.end))
            fence = None
        elif fence is not None and _leaves(fence, line):
            blocks.append((fence.start, last_end))
            fence = _opens(line)
        elif fence is None:
            fence = _opens(line)
        last_end = line.end
    if fence is not None:
        blocks.append((fence.start, len(text)))
    return blocks
