"""Finding a SKILL.md's frontmatter and body, line by line (never by splitting on ``---``).

The frontmatter opens with a ``---`` line (trailing spaces allowed) and closes at the next line
that starts with ``---`` after a line feed, as ``npx skills`` reads it: a closing line that holds
more (``---**Base URL:**``, as translations of whole files write it) ends the frontmatter there,
and what follows its ``---`` is the body's first line (a line of dashes alone, ``-----``, closes
it as ``---`` does).  Lines end where ``str.splitlines`` ends them, but only a line feed (or, in
a classic Mac file, whose first line ends with a carriage return alone, a carriage return) may
come before the closing line: after a U+2028 or a form feed, which agents and installers read as
no line break, a ``---`` would end the frontmatter where they do not, and hide the keys after it
from every check.  The build's parser and the loader use the same rule, so a body means the same
to both.
"""
from __future__ import annotations

import re
from typing import Iterator, NamedTuple, Sequence

_FENCE = re.compile(r"^---[ \t]*$")
#: A line that closes the frontmatter with nothing after it but dashes and white space.
_CLEAN_CLOSE = re.compile(r"^---+\s*$")
_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"  # every line break str.splitlines knows
_LINE = re.compile(f"[^{_BREAKS}]*(?:\r\n|[{_BREAKS}])?")


class SkillMdParts(NamedTuple):
    """A SKILL.md text cut at its frontmatter's fences (line ends as written)."""

    frontmatter: str   # the text between the fences
    body: str          # the text after the closing fence
    body_line: int     # the 1-based line the body starts on
    closed: bool       # False: the opening fence is never closed (frontmatter and body are empty)
    after_fence: str = ""   # what the closing line holds after its ``---`` (then the body's first line)


def _lines(text: str) -> Iterator[str]:
    """The lines of ``text`` with their ends, as ``text.splitlines(keepends=True)``, one at a time."""
    position = 0
    while position < len(text):
        line = _LINE.match(text, position).group()  # type: ignore[union-attr]  # always matches
        position += len(line)
        yield line


def _is_fence(line: str) -> bool:
    return _FENCE.match(line.rstrip("\r\n")) is not None


def split_skill_md(text: str) -> SkillMdParts | None:
    """The frontmatter and body of a SKILL.md's text (after any BOM); None when its first line
    does not open a frontmatter."""
    lines = _lines(text)
    first = next(lines, None)
    if first is None or not _is_fence(first):
        return None
    start = offset = len(first)
    breaks = ("\n", "\r") if first.endswith("\r") else ("\n",)   # a classic Mac file: lines end with CR alone
    before = first
    for number, line in enumerate(lines, start=2):
        if before.endswith(breaks) and line.startswith("---"):
            if _CLEAN_CLOSE.match(line):
                return SkillMdParts(text[start:offset], text[offset + len(line):], number + 1, True)
            return SkillMdParts(text[start:offset], text[offset + 3:], number, True, line[3:].rstrip("\r\n"))
        offset += len(line)
        before = line
    return SkillMdParts("", "", 0, False)


def frontmatter_end(lines: Sequence[str]) -> int | None:
    """The index of the line that closes a SKILL.md's frontmatter, in its list of lines (with
    their ends); None when the first line does not open a frontmatter, -1 when it is never closed."""
    parts = split_skill_md("".join(lines))
    if parts is None:
        return None
    if not parts.closed:
        return -1
    return parts.body_line - (1 if parts.after_fence else 2)


def skill_body(raw: bytes) -> str:
    """The Markdown body of a SKILL.md: the text after its closing ``---`` line (LF line ends)."""
    text = raw.decode("utf-8", errors="replace")
    text = text[1:] if text.startswith("\ufeff") else text
    parts = split_skill_md(text)
    if parts is None:
        return text.replace("\r\n", "\n")
    return parts.body.replace("\r\n", "\n")
