"""Finding a SKILL.md's frontmatter and body, line by line (never by splitting on ``---``).

The build's parser and the loader use the same rule, so a body means the same to both.
"""
from __future__ import annotations

import re
from typing import Sequence

_FENCE = re.compile(r"^---[ \t]*$")


def frontmatter_end(lines: Sequence[str]) -> int | None:
    """The index of the line that closes a SKILL.md's frontmatter.

    ``lines`` are the file's lines (after any BOM).  The first line must be ``---`` (trailing
    spaces allowed); the first later ``---`` line closes it.  None when the first line does
    not open a frontmatter; -1 when it is never closed.
    """
    if not lines or not _FENCE.match(lines[0].rstrip("\r\n")):
        return None
    for index in range(1, len(lines)):
        if _FENCE.match(lines[index].rstrip("\r\n")):
            return index
    return -1


def skill_body(raw: bytes) -> str:
    """The Markdown body of a SKILL.md: the text after its closing ``---`` line (LF line ends)."""
    text = raw.decode("utf-8", errors="replace")
    text = text[1:] if text.startswith("\ufeff") else text
    lines = text.splitlines(keepends=True)
    end = frontmatter_end(lines)
    if end is None:
        return text.replace("\r\n", "\n")
    return "".join(lines[end + 1:]).replace("\r\n", "\n") if end > 0 else ""
