"""Parsing: read a SKILL.md and split it into YAML frontmatter and Markdown body.

The frontmatter is found line by line (an opening ``---`` with optional trailing spaces,
after an optional BOM, with LF or CRLF, up to the next line that starts with ``---``), never by
splitting on ``---``; see :func:`skillsite.agent.skill_md.split_skill_md`, the rule the loader
uses too.  Bad input never raises: it becomes a :class:`~skillsite.models.ParsedSkill` without
frontmatter and a diagnostic saying why.
"""
from __future__ import annotations

import re

from skillsite.agent.skill_md import SkillMdParts, split_skill_md
from skillsite.bounded import read_limited
from skillsite.diagnostics import Diagnostic, make
from skillsite.models import ParsedSkill, SourceFile
from skillsite.source.frontmatter import not_listed, parse_frontmatter_text
from skillsite.source.frontmatter_yaml import FrontmatterError

WARN_BYTES = 256 * 1024
DEFAULT_MAX_BYTES = 1024 * 1024


def decode_skill_md(raw: bytes) -> str:
    """The text of a SKILL.md (without a BOM); FrontmatterError for binary or non-UTF-8 bytes."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):  # as Windows editors save "Unicode"
        raise FrontmatterError("SK105", "not valid UTF-8: the file is UTF-16 (it starts with a UTF-16 byte "
                                        "order mark); save it as UTF-8", 1, 1)
    if b"\x00" in raw:
        offset = raw.index(b"\x00")
        raise FrontmatterError("SK109", f"file contains NUL bytes (first at byte offset {offset}); "
                                        "it looks binary, not Markdown", *_place(raw, offset))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FrontmatterError("SK105", f"not valid UTF-8: byte 0x{raw[exc.start]:02x} at byte offset {exc.start}",
                               *_place(raw, exc.start)) from None
    return text[1:] if text.startswith("\ufeff") else text


def _place(raw: bytes, offset: int) -> tuple[int, int]:
    """The 1-based line and column (in bytes) of a byte offset."""
    return raw.count(b"\n", 0, offset) + 1, offset - (raw.rfind(b"\n", 0, offset) + 1) + 1


def split_frontmatter(text: str) -> tuple[str, int, str, int] | None:
    """``(yaml_text, yaml_first_line, body, body_first_line)`` with 1-based file lines and LF
    line ends, or None when the text does not open with a ``---`` line.  Raises
    :class:`FrontmatterError` when the frontmatter is never closed.
    """
    return _split(split_skill_md(text), text)


def _split(parts: SkillMdParts | None, text: str) -> tuple[str, int, str, int] | None:
    """:func:`split_frontmatter`'s value of a SKILL.md's parts (of ``text``): the body's first
    line as :func:`_line_of` counts it, as markdown-it counts the body's own (a U+2028 in the
    frontmatter is a line to ``str.splitlines``, and was counted one)."""
    if parts is None:
        return None
    if not parts.closed:
        raise FrontmatterError("SK102", "frontmatter opened with '---' on line 1 is never closed by a '---' line",
                               1, 1)
    body_line = _line_of(text, len(text) - len(parts.body))
    return parts.frontmatter.replace("\r\n", "\n"), 2, parts.body.replace("\r\n", "\n"), body_line


#: How ``npx skills`` finds the frontmatter: a first line of exactly ``---``, up to the first
#: line that starts with ``---``.  Their pattern goes on over the body to the end of the file,
#: which any text matches: not matched here (it made the regex engine walk every body to its end).
_INSTALLER_FENCES = re.compile(r"\ufeff?---\r?\n([\s\S]*?)\r?\n---")


def installer_fences(text: str, yaml_text: str, path: str) -> list[Diagnostic]:
    """SK016 when the installers' reading of the frontmatter's fences finds none, or other YAML
    than ``yaml_text`` (the frontmatter as read here, LF line ends)."""
    found = _INSTALLER_FENCES.match(text)
    if found is None:
        if re.match("\ufeff?---\r(?!\n)", text):   # a classic Mac file: no line ends they know
            return [not_listed("they find no frontmatter (its lines end with a carriage return alone)",
                               "save it with LF line ends", path, 1, 1)]
        return [not_listed("they find no frontmatter (its first line must be exactly '---')",
                           "remove what follows '---' on the first line", path, 1, 1)]
    theirs = found.group(1).replace("\r\n", "\n")
    if theirs.rstrip() != yaml_text.rstrip():
        line = theirs.count("\n") + 3
        return [not_listed(f"they end the frontmatter at line {line}, the first line that starts with '---'",
                           "start no frontmatter line with '---'", path, line, 1)]
    return []


#: What ends a line for markdown-it and editors: LF, CRLF, or a carriage return alone.
_LINE_BREAK = re.compile(r"\r\n?|\n")

#: The file column of the text after a closing ``---`` (SK115): where the body's first line starts.
AFTER_FENCE_COLUMN = len("---") + 1


def _line_of(text: str, index: int) -> int:
    """The 1-based line of ``text`` that offset ``index`` is on, counting LF, CRLF and a lone CR
    as line ends (not U+2028 or a form feed, which ``str.splitlines`` counts too)."""
    return len(_LINE_BREAK.findall(text, 0, index)) + 1


def _text_after_fence(parts: SkillMdParts, body_line: int, path: str) -> Diagnostic:
    """SK115: the frontmatter's closing line holds more than ``---``: read as the body's first
    line, ``body_line``, where it is said."""
    written = parts.after_fence.rstrip()
    shown = written if len(written) <= 60 else written[:57] + "..."
    return make("SK115", f"the line closing the frontmatter holds more than '---' ({shown!r}); read as the "
                         "frontmatter's end and the body's first line, as npx skills reads it (put the text on a "
                         "line of its own)", path, body_line, AFTER_FENCE_COLUMN)


def _size_diagnostics(raw: bytes, path: str, max_bytes: int) -> list[Diagnostic]:
    """SK106 for a file over ``max_bytes`` (it is not read), SK107 for one over WARN_BYTES."""
    size = len(raw)
    if size > max_bytes:
        return [make("SK106", f"file is {size:,} bytes, over the limit of {max_bytes:,} bytes; not read", path)]
    if size > WARN_BYTES:
        return [make("SK107", f"file is {size:,} bytes (over {WARN_BYTES:,}); agents load all of it", path)]
    return []


def parse_skill_bytes(raw: bytes, source: SourceFile, max_bytes: int = DEFAULT_MAX_BYTES) -> ParsedSkill:
    """Parse the bytes of one SKILL.md; never raises on bad input."""
    path = source.display_path
    diags = _size_diagnostics(raw, path, max_bytes)

    def failed(code: str, message: str, line: int = 0, col: int = 0) -> ParsedSkill:
        return ParsedSkill(source, None, {}, "", 1, raw, (*diags, make(code, message, path, line, col)))

    if diags and diags[0].code == "SK106":
        return ParsedSkill(source, None, {}, "", 1, raw, tuple(diags))
    if not raw.strip():
        return failed("SK100", "SKILL.md is empty; it needs frontmatter with at least a description", 1, 1)
    try:
        text = decode_skill_md(raw)
        parts = split_skill_md(text)
        split = _split(parts, text)
        if split is None:
            return failed("SK101", "no YAML frontmatter: the file must start with a '---' line", 1, 1)
        yaml_text, yaml_line, body, body_line = split
        data, key_lines, yaml_diags = parse_frontmatter_text(yaml_text, path, yaml_line - 1, installable=True)
    except FrontmatterError as exc:
        return failed(exc.code, exc.message, exc.line, exc.col)
    if not any(d.code == "SK016" for d in yaml_diags):
        yaml_diags += installer_fences(text, yaml_text, path)
    if parts is not None and parts.after_fence:
        yaml_diags.append(_text_after_fence(parts, body_line, path))
    body_column = AFTER_FENCE_COLUMN if parts is not None and parts.after_fence else 1
    return ParsedSkill(source, data, key_lines, body, body_line, raw, (*diags, *yaml_diags), body_column)


def parse_skill(source: SourceFile, max_bytes: int = DEFAULT_MAX_BYTES) -> ParsedSkill:
    """Read and parse one discovered SKILL.md; never raises on bad input or unreadable files."""
    try:
        raw, size = read_limited(source.skill_md, max_bytes)
    except OSError as exc:
        diag = make("SK006", f"cannot read SKILL.md: {exc.strerror or exc}", source.display_path)
        return ParsedSkill(source, None, {}, "", 1, b"", (diag,))
    if len(raw) > max_bytes:
        diag = make("SK106", f"file is {size:,} bytes, over the limit of {max_bytes:,} bytes; not read",
                    source.display_path)
        return ParsedSkill(source, None, {}, "", 1, b"", (diag,))
    return parse_skill_bytes(raw, source, max_bytes)
