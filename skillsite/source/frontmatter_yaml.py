"""What reading a frontmatter (:mod:`skillsite.source.frontmatter`) and its retries when YAML refuses
it share: the keys whose values are text, where a place in the YAML text is in the file, and a YAML
failure as the diagnostic it is (:class:`FrontmatterError`, at the one place its message is about).
"""
from __future__ import annotations

import bisect
import re

import yaml

#: Keys whose values are text: a YAML 1.1 coercion there is turned back into the text as written.
TEXT_KEYS = frozenset({"name", "description", "license", "compatibility", "version", "argument-hint",
                       "allowed-tools"})
TEXT_KEYS |= {"tags[]", "triggers[]", "examples[]", "triggers.keywords[]", "triggers.verbs[]",
              "triggers.patterns[]", "conflicts[]", "knowledge[]", "depends", "depends[]"}
#: Claude Code's keys it documents as text (``when_to_use`` is appended to the description): as
#: ``description: yes`` is, ``when_to_use: yes`` is the text written, not YAML 1.1's boolean.
TEXT_KEYS |= {"when_to_use", "model", "effort", "context", "agent", "shell", "arguments", "arguments[]", "paths",
              "paths[]"}
#: Keys whose value is one text that is often written in brackets, unquoted: Claude Code's docs write
#: ``argument-hint: [message]``, a list in YAML.  A flow list or mapping there is kept as the text written.
WRITTEN_TEXT_KEYS = frozenset({"argument-hint"})


class FrontmatterError(Exception):
    """Raised inside the parser; always turned into a diagnostic."""

    def __init__(self, code: str, message: str, line: int = 0, col: int = 0):
        super().__init__(message)
        self.code, self.message, self.line, self.col = code, message, line, col


#: Where YAML breaks a line and a file (as editors and ``file:line`` count) does not: its line
#: breaks besides LF.
_YAML_BREAK_CHARS = "\r\x85\u2028\u2029"
YAML_ONLY_BREAKS = re.compile(f"[{_YAML_BREAK_CHARS}]")


class FileLines:
    """Where a place in the YAML text is in the file: YAML also breaks lines at CR, NEL, U+2028
    and U+2029, a file's lines (as diagnostics give them) only at LF.  ``line_offset``: the
    file's lines before the text."""

    def __init__(self, text: str, line_offset: int) -> None:
        self.text, self.line_offset = text, line_offset
        self.plain = YAML_ONLY_BREAKS.search(text) is None  # YAML's lines are the file's
        self._newlines: list[int] | None = None

    def at(self, mark: yaml.Mark) -> tuple[int, int]:
        """The file's (line, column), from 1, of a YAML mark."""
        if self.plain:
            return mark.line + 1 + self.line_offset, mark.column + 1
        return self.of_index(mark.index)

    def of_index(self, index: int) -> tuple[int, int]:
        """The file's (line, column), from 1, of the character at ``index`` of the text."""
        if self._newlines is None:
            self._newlines = [m.start() for m in re.finditer("\n", self.text)]
        before = bisect.bisect_left(self._newlines, index)
        start = self._newlines[before - 1] + 1 if before else 0
        return before + 1 + self.line_offset, index - start + 1


#: What YAML says when it ran past the construct in trouble before it knew: the construct's start
#: (its context mark: the line lacking its ':', the quote never closed) is where the fault is.
_FOUND_PAST = ("could not find expected", "found unexpected end of stream")


def _unclosed_flow(exc: yaml.YAMLError, text: str) -> bool:
    """Whether YAML failed in a flow list or mapping (``[a, b``, ``{a: b``) at a later line that
    starts a key of its own, or at the end, and that line holds no bracket closing it: the bracket
    was never closed, and YAML ran on into the next key.  (Marks are read by their index: YAML
    counts more line breaks than ``\\n``.)"""
    context, mark, start = getattr(exc, "context", None) or "", getattr(exc, "problem_mark", None), \
        getattr(exc, "context_mark", None)
    if not context.startswith(("while parsing a flow sequence", "while parsing a flow mapping")) \
            or mark is None or start is None or mark.line <= start.line:
        return False
    begin = max(text.rfind(end, 0, mark.index) for end in "\n" + _YAML_BREAK_CHARS) + 1
    line = _LINE_END.split(text[begin:], maxsplit=1)[0]
    closer = "]" if context.startswith("while parsing a flow sequence") else "}"
    return not line.strip() or not line[0].isspace() and closer not in line


#: A top-level key's value quoted whole on its line (a comment may follow).
_QUOTED_VALUE_LINE = re.compile(r"""^[A-Za-z0-9_.-]+:[ \t]+(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*')[ \t]*(?:#.*)?\r?$""")


#: An indented line that starts a key or a list item: meant as YAML, not as more of a value.
_KEY_OR_ITEM = re.compile(r"[ \t]+(?:-(?:[ \t]|$)|[^\s:]+:(?:[ \t]|$))")


def _after_quoted_value(exc: yaml.YAMLError, text: str) -> bool:
    """Whether YAML failed at an indented line of text (no key, no list item) right after a
    top-level key's value quoted whole on its line (``description: "Fortune Teller."`` then
    ``  算命娱乐。...``): the author went on writing the value past its closing quote."""
    mark = getattr(exc, "problem_mark", None)
    if mark is None or not (getattr(exc, "problem", None) or "").startswith("did not find expected key"):
        return False
    lines = text.split("\n")
    if not 0 < mark.line < len(lines) or not lines[mark.line][:1].isspace() or _KEY_OR_ITEM.match(lines[mark.line]):
        return False
    above = next((line for line in reversed(lines[:mark.line]) if line.strip()), "")
    return _QUOTED_VALUE_LINE.match(above) is not None


#: What YAML reads as line breaks: LF and :data:`_YAML_BREAK_CHARS`.
_LINE_END = re.compile(f"[\n{_YAML_BREAK_CHARS}]")


def char_at(text: str, mark: yaml.Mark) -> str:
    """The character of ``text`` at ``mark``."""
    return text[mark.index:mark.index + 1]


def yaml_error(exc: yaml.YAMLError, line_offset: int, text: str) -> FrontmatterError:
    """A YAML failure as a diagnostic at the one place the message is about: where YAML found the
    problem (a tab, a stray ':'), or where the construct starts when YAML only found out past it
    (:data:`_FOUND_PAST`). The message names no other line."""
    problem = getattr(exc, "problem", None) or getattr(exc, "reason", None) or str(exc).splitlines()[0]
    context = getattr(exc, "context", None)
    message = f"{context}, {problem}" if context else problem
    found_past = bool(context and context.startswith("while scanning") and problem.startswith(_FOUND_PAST))
    if _unclosed_flow(exc, text):
        found_past, message = True, f"{message} (the '{char_at(text, exc.context_mark)}' here is never closed)"
    elif _after_quoted_value(exc, text):
        message += " (the quoted value above ends at its closing quote, and this line goes on after it: " \
                   "put the text inside the quotes)"
    mark = (exc.context_mark if found_past else None) or getattr(exc, "problem_mark", None) \
        or getattr(exc, "context_mark", None)
    lines = FileLines(text, line_offset)
    if isinstance(exc, yaml.reader.ReaderError):
        # its position counts bytes (libyaml) or characters: the character itself is looked for
        found = yaml.reader.Reader.NON_PRINTABLE.search(text)
        index = found.start() if found is not None else min(exc.position, len(text))
        char = f"U+{exc.character:04X}" if isinstance(exc.character, int) else repr(exc.character)
        return FrontmatterError("SK103", f"invalid YAML: control character {char} is not allowed",
                                *lines.of_index(index))
    if mark is not None:
        return FrontmatterError("SK103", f"invalid YAML: {message}", *lines.at(mark))
    return FrontmatterError("SK103", f"invalid YAML: {message}", line_offset + 1, 1)
