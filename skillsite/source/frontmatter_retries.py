"""Reading a frontmatter again when YAML refuses it as written, as the agents that read it do.

A SKILL.md's frontmatter is written by hand, and libyaml (PyYAML's C reader) refuses much that the
agents reading skills read: the specification's client guide asks for a value holding an unquoted
``: `` to be read again quoted; Claude Code shows a bracketed hint (``argument-hint: [pr] [prio]``)
as written; JavaScript's YAML readers (``npx skills``) read JSON's escape of a character past U+FFFF
(``"\\uD83D\\uDD2D"``, a surrogate pair) as that character; and a text value starting with ``*``
(``paths: *.md``, no alias), or a prose value wrapped over lines that are not indented or that
hold ``: ``, is the text its author meant.  :func:`compose_leniently` composes the text, and
only when YAML fails, tries these readings in turn (each composes the frontmatter again, within a
budget), with a warning for each value read so (SK110, SK111, SK114).  When none reads, the error
is the text's as written.  Installers that read YAML strictly skip such a skill
(:func:`skillsite.source.frontmatter.strict_refusal` says so).
"""
from __future__ import annotations

import re
from typing import NamedTuple, Sequence

import yaml
from yaml.nodes import Node

from skillsite.diagnostics import Diagnostic, make
from skillsite.source.frontmatter_yaml import (TEXT_KEYS, WRITTEN_TEXT_KEYS, YAML_ONLY_BREAKS, FrontmatterError,
                                               char_at, yaml_error)

try:  # libyaml's loader where PyYAML was built with it; the pure-Python one otherwise
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

#: A line ``key: value`` whose plain value starts as a string (no quote, flow, block or tag) and
#: may hold ": " (:func:`_colon_value` finds the value): read to its end once, as a lazy match
#: with trailing spaces after it tried every end (a line of spaces took the square of its length).
_UNQUOTED_COLON_LINE = re.compile(r"^(\s*(?:-\s+)?[A-Za-z0-9_.-]+:[ \t]+)([^'\"\[{|>&*!#%@`\s].*)$")


def _compose(text: str) -> Node | None:
    loader = _Loader(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def _colon_value(rest: str) -> str | None:
    """The value of a line's ``rest`` (after ``key: ``) that holds ": " after its first character:
    the shortest start of it followed by white space only; None when it holds no such ": "."""
    value = rest.rstrip()
    if ": " in value[1:]:
        return value
    if len(value) > 1 and value.endswith(":") and rest[len(value):len(value) + 1] == " ":
        return value + " "   # the ": " ends the value: its space is kept
    return None


def _quote_unquoted_colons(text: str, quoted: frozenset[int] = frozenset()) -> tuple[str, list[int]]:
    """Quote plain values that contain ``: `` (the spec's client guide asks for this retry), but on
    the lines of values ``quoted`` already."""
    fixed, lines = [], []
    for number, line in enumerate(text.split("\n")):
        body = line.rstrip("\r")
        match = _UNQUOTED_COLON_LINE.match(body) if number not in quoted else None
        value = _colon_value(match.group(2)) if match else None
        if value is not None and " #" not in value:
            value = value.replace("'", "''")
            fixed.append(f"{match.group(1)}'{value}'" + line[len(body):])
            lines.append(number)
        else:
            fixed.append(line)
    return "\n".join(fixed), lines


#: A top-level line of a :data:`WRITTEN_TEXT_KEYS` key whose plain value starts with a bracket and
#: goes on after it closes (``argument-hint: [pr-number] [priority]``, as Claude Code's docs write
#: it): no YAML, but what the author wrote is the hint.
_BRACKETED_LINE = re.compile(r"^((?:%s):[ \t]+)([\[{].*)$" % "|".join(sorted(WRITTEN_TEXT_KEYS)))


#: How many bracketed hints, or values starting with ``*``, one frontmatter's retry quotes at
#: least before it gives up (a key written twice has two hints) ...
MAX_BRACKETED_RETRIES = 4
#: ... and how many characters its retries may compose in all, past those: each retry composes
#: the whole frontmatter again, so a short one (``paths:`` and a dozen ``- **/*.ts`` items) gets
#: a retry for each item, while a long one costs no more than :data:`MAX_BRACKETED_RETRIES` of it.
RETRY_BUDGET_CHARS = 256 * 1024
#: Where a comment starts in a plain value: white space, then ``#``.
_COMMENT_START = re.compile(r"[ \t]#")


def _closed(value: str) -> bool:
    """Whether every bracket ``value`` opens it closes."""
    return value.count("[") == value.count("]") and value.count("{") == value.count("}")


def _quote_bracketed_line(line: str) -> str | None:
    """A :data:`_BRACKETED_LINE` with its value quoted, a comment after it kept a comment (one
    after the brackets close: "[issue #12] [prio]" holds no comment); None for any other line."""
    body = line.rstrip("\r")
    match = _BRACKETED_LINE.match(body)
    if match is None:
        return None
    value, comment = match.group(2), ""
    for start in _COMMENT_START.finditer(value):
        if _closed(value[:start.start()]):
            value, comment = value[:start.start()], value[start.start():]
            break
    quoted = value.rstrip(" \t").replace("'", "''")
    return f"{match.group(1)}'{quoted}'{comment}{line[len(body):]}"


#: A line of a top-level text key (:data:`TEXT_KEYS`) whose plain value starts with ``*``
#: (``paths: *.md``, ``description: **Bold** ...``): YAML reads an alias there, and with no anchor
#: of that name, or no name at all, fails; what the author wrote is the text.
_ALIAS_LINE = re.compile(r"^((?:%s):[ \t]+)(\*.*)$" % "|".join(
    sorted(re.escape(key) for key in TEXT_KEYS if "." not in key and "[" not in key)))
#: A block list item whose plain value starts with ``*`` (``  - *.md``).
_ALIAS_ITEM = re.compile(r"^([ \t]*-[ \t]+)(\*.*)$")
#: A top-level key whose value starts on the next lines, and the keys whose list items are text.
_BLOCK_KEY = re.compile(r"^([A-Za-z0-9_-]+):[ \t]*(?:#.*)?$")
_TEXT_LIST_KEYS = frozenset(key[:-2] for key in TEXT_KEYS if key.endswith("[]") and "." not in key)


def _alias_failure(error: yaml.YAMLError) -> bool:
    """Whether YAML failed at an alias: one with no name (``*.md``) or naming no anchor (``*foo``)."""
    context, problem = getattr(error, "context", None) or "", getattr(error, "problem", None) or ""
    return context.startswith("while scanning an alias") or problem.startswith("found undefined alias")


def _in_text_list(lines: list[str], number: int) -> bool:
    """Whether the block list item on line ``number`` is an item of a top-level key whose items are
    text (``paths:`` then ``  - *.md``), not of a list nested deeper."""
    indent = len(lines[number]) - len(lines[number].lstrip(" \t"))
    for line in reversed(lines[:number]):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if line[0] not in " \t-":
            key = _BLOCK_KEY.match(line.rstrip("\r"))
            return key is not None and key.group(1) in _TEXT_LIST_KEYS
        if len(line) - len(line.lstrip(" \t")) < indent:
            return False
    return False


def _quote_alias_line(lines: list[str], number: int) -> list[str] | None:
    """Line ``number`` with its value quoted when it is a text key's (or a text list item's) plain
    value starting with ``*``, and the lines the value goes on over (:func:`_continued`), up to the
    closing quote; a comment after it kept a comment; None for any other line."""
    line = lines[number]
    body = line.rstrip("\r")
    match = _ALIAS_LINE.match(body) or ((item := _ALIAS_ITEM.match(body)) and _in_text_list(lines, number) and item)
    if not match:
        return None
    first = match.group(2)
    more = [] if _COMMENT_START.search(first) else _continued(lines, number, len(body) - len(body.lstrip(" \t")))
    texts = [first, *(text.rstrip("\r") for text in more)]
    value, comment = texts[-1], ""
    start = _COMMENT_START.search(value)
    if start is not None:   # a comment ends the value (only its last line may hold one)
        value, comment = value[:start.start()], value[start.start():]
    texts[-1] = value
    quoted = [text.rstrip(" \t").replace("'", "''") for text in texts]
    ends = [line[len(body):], *(text[len(text.rstrip("\r")):] for text in more)]
    quoted[0] = f"{match.group(1)}'{quoted[0]}"
    quoted[-1] = f"{quoted[-1]}'{comment}"   # the same line as the first when the value has one
    return [text + end for text, end in zip(quoted, ends)]


def _continued(lines: list[str], number: int, indent: int) -> list[str]:
    """The lines after line ``number`` that a plain value starting there goes on over: those
    indented past ``indent`` (the column of its key or its item's dash), and the blank lines
    between them, up to a line indented no further, a comment line, and the line whose comment ends
    the value (taken: it is cut at its comment).  Not a line holding ``: ``: in a plain value that
    is no YAML, and the colons' retry quoted part of it already, so the value stops before it (and
    YAML's error is said there)."""
    more, blank = [], []
    for line in lines[number + 1:]:
        stripped = line.strip()
        if not stripped:
            blank.append(line)
            continue
        if stripped.startswith("#") or len(line) - len(line.lstrip(" \t")) <= indent or _COLON_SPACE.search(line):
            break
        more += [*blank, line]
        blank = []
        if _COMMENT_START.search(line):
            break
    return more


#: A colon that YAML reads as a key's in a plain value: before white space or at the line's end.
_COLON_SPACE = re.compile(r":(?:[ \t]|\r?$)")


def _quoted_written(lines: list[str], number: int, failure: yaml.YAMLError) -> list[str] | None:
    """Line ``number`` with the value YAML failed at quoted (and the lines it goes on over): a
    bracketed hint, or, when YAML failed at an alias, a text value starting with ``*``; None when
    it holds neither."""
    hint = _quote_bracketed_line(lines[number])
    if hint is not None:
        return [hint]
    return _quote_alias_line(lines, number) if _alias_failure(failure) else None


def _retried(text: str, error: yaml.YAMLError, line_offset: int
             ) -> tuple[Node | None, str, list[int], list[int], list[_Joined]]:
    """``text`` read again as written (:func:`_read_again`), and only when that is not enough,
    with the prose values that go on over lines YAML cannot read as their own quoted over those
    lines (:func:`_join_continuations`): the node tree, the text composed, the lines of each kind
    quoted and the values joined.  When neither reads, the error of the text as written."""
    try:
        return (*_read_again(text, error, line_offset), [])
    except FrontmatterError as as_written:
        joined_text, joined = _join_continuations(text)
        if not joined:
            raise
        try:
            return (*_read_again(joined_text, error, line_offset, joined), joined)
        except FrontmatterError:
            raise as_written from None


def _read_again(text: str, error: yaml.YAMLError, line_offset: int, joined: Sequence[_Joined] = ()
                ) -> tuple[Node | None, str, list[int], list[int]]:
    """``text`` composed once more with its values holding an unquoted ``: `` quoted (but those
    ``joined``, quoted already), and only when that is not enough, with the bracketed hints and the
    text values starting with ``*`` YAML fails at quoted too, and JSON's surrogate pair escapes
    read (:func:`_with_hints_quoted`): the node tree, the text composed, and the lines of each kind
    quoted.  When none of that reads, :class:`FrontmatterError` of the first YAML error, or of the
    one past the lines quoted when any were (the fault itself: the line of a value starting with
    ``*`` was no fault)."""
    failure = error
    inside = frozenset(n for value in joined for n in range(value.first, value.last + 1))
    # a hint's line is none of these: it starts with a bracket
    retried, fixed_lines = _quote_unquoted_colons(text, inside)
    if fixed_lines or joined:
        try:
            return _compose(retried), retried, fixed_lines, []
        except yaml.YAMLError as exc:
            failure = exc
    found = _with_hints_quoted(retried.split("\n"), failure)
    if found is None:
        raise yaml_error(error, line_offset, text) from None
    if isinstance(found[0], yaml.YAMLError):
        raise yaml_error(found[0], line_offset, found[1]) from None
    node, composed, bracketed = found
    return node, composed, fixed_lines, bracketed


#: The keys whose plain value is prose that may go on over lines YAML cannot read as its own
#: (:func:`_join_continuations`): never a key that grants or runs something (``allowed-tools``).
_JOINED_KEYS = ("description", "when_to_use", "compatibility", "license")
#: A top-level prose key whose plain value starts on its own line (not quoted, a flow list or
#: mapping, a block scalar, an anchor, a tag or a comment): text that may go on over the lines after it.
_PLAIN_VALUE_LINE = re.compile(r"^((?:%s):[ \t]+)([^'\"\[{|>&!%%@`#\s].*)$" % "|".join(_JOINED_KEYS))
#: How a line at the start of which YAML may read something of its own starts: a document marker,
#: a quoted key, '? ', a comment (or it holds a colon YAML reads as a key's: :data:`_COLON_SPACE`).
_OWN_LINE_START = re.compile(r"^(?:---|\.\.\.|\?(?:[ \t]|\r?$)|[\"'#])")


class _Joined(NamedTuple):
    """A top-level plain value read over its lines as one quoted value (:func:`_join_continuations`)."""

    first: int   # its key's line
    last: int    # its last line
    code: str    # SK114: it goes on at the start of a line; SK110: a line of it holds ': '


def _join_continuations(text: str) -> tuple[str, list[_Joined]]:
    """``text`` with each top-level prose value (:data:`_JOINED_KEYS`) that goes on over lines YAML
    cannot read as its own quoted over all of them, which reads it as its author meant: lines
    that start at column 1 (a description's Markdown wrapped or listed without indentation, as
    translations write it: ``description: **Weather API**`` then ``Gives current conditions.`` or
    ``- Search``), where YAML reads a new key, or lines that hold ``: ``, which YAML reads as a
    mapping inside the value (the colons' retry quotes a value on one line).  The value ends
    before a line that starts at column 1 with anything YAML may read as its own (a key, a
    document marker: :func:`_own_line`) and before any comment line; blank lines stay line breaks,
    as in a plain value; a value holding a comment after its text (`` #``), or a line indented
    with a tab (YAML refuses it: a key, most likely, written with a tab), is left as it is.  Each
    line keeps its number."""
    lines, joined = text.split("\n"), []
    for number in range(len(lines)):
        value = _PLAIN_VALUE_LINE.match(lines[number].rstrip("\r"))
        last = _value_end(lines, number) if value else number
        texts = [value.group(2) if value else "", *(line.rstrip("\r") for line in lines[number + 1:last + 1])]
        code = _join_code(texts)
        if value is None or last == number or code is None:
            continue
        quoted = [text.strip(" \t").replace("'", "''") for text in texts]
        quoted[0], quoted[-1] = f"{value.group(1)}'{quoted[0]}", f"{quoted[-1]}'"
        lines[number:last + 1] = [q if i == 0 or not q else "  " + q for i, q in enumerate(quoted)]
        joined.append(_Joined(number, last, code))
    return "\n".join(lines), joined


def _value_end(lines: list[str], number: int) -> int:
    """The last line of the top-level value whose key is on line ``number``: the last one holding
    text before a comment line or a line YAML may read as its own at column 1 (:func:`_own_line`)."""
    last = number
    for index in range(number + 1, len(lines)):
        line = lines[index]
        if not line.strip():
            continue
        if line.lstrip().startswith("#") or line[0] not in " \t" and _own_line(line):
            break
        last = index
    return last


def _own_line(line: str) -> bool:
    """Whether YAML may read something of its own at the start of ``line``: a document marker, a
    key (any text holding ': ' or ending with ':', a quoted one, '? '), a comment."""
    return _OWN_LINE_START.match(line) is not None or _COLON_SPACE.search(line) is not None


def _join_code(texts: list[str]) -> str | None:
    """Why a value written over ``texts`` (its first line's text, then the lines after it) is read
    joined: SK114 when a line after the first starts at column 1, SK110 when one holds ``: ``;
    None when YAML reads it as it is, when a comment follows text on a line, a line is indented
    with a tab, or one holds a line break YAML reads and agents' readers may not (a lone CR,
    U+2028: ``allowed-tools:\rBash`` is a key to npx skills, and joined it would hide from every check)."""
    if any(_COMMENT_START.search(text.strip()) or text.startswith("\t") or YAML_ONLY_BREAKS.search(text)
           for text in texts):
        return None
    if any(text.strip() and text[0] not in " \t" for text in texts[1:]):
        return "SK114"
    return "SK110" if any(_COLON_SPACE.search(text) for text in texts) else None


def _with_hints_quoted(lines: list[str], failure: yaml.YAMLError
                       ) -> tuple[Node | None, str, list[int]] | tuple[yaml.YAMLError, str] | None:
    """``lines`` composed with the bracketed hint or the value starting with ``*``
    (:func:`_quoted_written`) on the line each YAML error names quoted, one at a time (quoting every
    such line would change one inside a quoted description, and break a flow list written over two
    lines), or the surrogate pairs of the double-quoted value it names read (:func:`_pairs_read`):
    the node tree, the text and the lines quoted; None when the first error names no such line or
    value; the last error and the text it was found in when a later one names none (or the retries
    ran out)."""
    bracketed: list[int] = []
    composed, paired = "\n".join(lines), False
    for _ in range(max(MAX_BRACKETED_RETRIES, RETRY_BUDGET_CHARS // (len(composed) + 1))):
        before = composed
        # where YAML failed, or where the construct it failed in starts (a flow list open to the end)
        marks = (getattr(failure, "problem_mark", None), getattr(failure, "context_mark", None))
        numbers = [mark.line for mark in marks if mark is not None and 0 <= mark.line < len(lines)]
        fixes = [(n, quoted) for n in numbers if n not in bracketed and (quoted := _quoted_written(lines, n, failure))]
        pairs = None if fixes else _pairs_read(composed, failure)
        if isinstance(pairs, yaml.YAMLError):
            return pairs, composed
        if pairs is not None:
            composed, paired = pairs.text, True
            lines = composed.split("\n")
        elif fixes:
            number, quoted = fixes[0]
            lines[number:number + len(quoted)] = quoted
            bracketed.append(number)
            composed = "\n".join(lines)
        else:
            return (failure, composed) if bracketed or paired else None
        try:
            return _compose(composed), composed, sorted(bracketed)
        except yaml.YAMLError as exc:
            failure = exc
        if pairs is not None and (inside := pairs.placed(failure, before)) is not None:
            return inside, before   # a fault inside the value just read: said in the text as written
    return _said_out_of_readings(failure, lines, composed), composed


def _said_out_of_readings(failure: yaml.YAMLError, lines: list[str], text: str) -> yaml.YAMLError:
    """``failure``, when the retries ran out at a value one more would have read (a value
    starting with ``*``, a surrogate pair), with a word saying so: YAML's own message there
    (an alias, an invalid escape) names no fault of the author's."""
    mark = getattr(failure, "problem_mark", None)
    if not isinstance(failure, yaml.MarkedYAMLError) or mark is None:
        return failure
    if 0 <= mark.line < len(lines) and _quoted_written(lines, mark.line, failure):
        fix = "quote such values"
    elif _at_surrogate_escape(text, failure):   # one more reading would read its pair (or say it is alone)
        fix = "write the characters themselves, not their escapes"
    else:
        return failure
    return yaml.MarkedYAMLError(failure.context, failure.context_mark, f"{failure.problem} (the frontmatter was "
                                f"read again for each such value, as many times as one may be; {fix})", mark)


#: What libyaml says of a ``\u`` escape of a UTF-16 surrogate (and of one past U+10FFFF).
_BAD_CODE = "found invalid Unicode character escape code"
#: In a double-quoted value: a ``\u`` escape of a surrogate pair (JSON's way to escape a character
#: past U+FFFF, ``\uD83D\uDD2D``), one of a lone surrogate, any other escape, the closing quote.
_QUOTED_PART = re.compile(r"\\u(?P<high>[dD][89abAB][0-9a-fA-F]{2})\\u(?P<low>[dD][c-fC-F][0-9a-fA-F]{2})"
                          r"|(?P<lone>\\u[dD][89a-fA-F][0-9a-fA-F]{2})|\\.|(?P<close>\")", re.S)


class _PairsRead(NamedTuple):
    """A text with the surrogate pairs of one double-quoted value written as ``\\UXXXXXXXX``
    (two characters shorter each), with as many spaces after its closing quote as the pairs on that
    line took away: every column past the value stays where the file has it."""

    text: str
    written: list[int]   # where each pair was, in the text before
    end: int             # past the value's closing quote in the text before (its length: no quote)

    def placed(self, failure: yaml.YAMLError, before: str) -> yaml.MarkedYAMLError | None:
        """``failure``, when YAML found it inside the value (a bad escape after a pair), at its
        place in the text ``before``; None when it is past the value."""
        mark = getattr(failure, "problem_mark", None)
        if mark is None or mark.index >= self.end - 2 * len(self.written):
            return None
        index = mark.index + 2 * sum(1 for number, at in enumerate(self.written) if at - 2 * number < mark.index)
        return yaml.MarkedYAMLError(getattr(failure, "context", None), getattr(failure, "context_mark", None),
                                    getattr(failure, "problem", None), _mark_at(before, index))


def _at_surrogate_escape(text: str, failure: yaml.YAMLError) -> bool:
    """Whether YAML failed at a ``\\u`` escape of a surrogate in a double-quoted value of ``text``
    (libyaml refuses each, and fails at the first): where :func:`_pairs_read` reads the value."""
    start, mark = getattr(failure, "context_mark", None), getattr(failure, "problem_mark", None)
    return getattr(failure, "problem", None) == _BAD_CODE and start is not None and mark is not None \
        and char_at(text, start) == '"' and re.match(r"[dD][89a-fA-F]", text[mark.index:mark.index + 2]) is not None \
        and text[mark.index - 2:mark.index] == "\\u"


def _pairs_read(text: str, failure: yaml.YAMLError) -> _PairsRead | yaml.MarkedYAMLError | None:
    """When YAML failed at a ``\\u`` escape of a surrogate in a double-quoted value: ``text`` with
    that value's surrogate pairs read as the one character each stands for, as JavaScript's YAML
    readers read them, or the error of its first lone surrogate; None for any other failure."""
    if not _at_surrogate_escape(text, failure):
        return None
    start = failure.context_mark
    parts: list[str] = []
    written: list[int] = []
    at, end, closed = 0, len(text), False
    for found in _QUOTED_PART.finditer(text, start.index + 1):
        if found.group("close"):
            end, closed = found.end(), True
            break
        if found.group("lone"):
            return _lone_surrogate(text, found)
        if found.group("high"):
            high, low = int(found.group("high"), 16), int(found.group("low"), 16)
            parts += [text[at:found.start()], f"\\U{0x10000 + (high - 0xD800) * 0x400 + low - 0xDC00:08X}"]
            written.append(found.start())
            at = found.end()
    if not written:  # pragma: no cover - YAML and this reading disagree on where the value is: no retry
        return None
    line_start = text.rfind("\n", 0, end) + 1
    padding = " " * (2 * sum(1 for where in written if where >= line_start)) if closed else ""
    return _PairsRead("".join(parts) + text[at:end] + padding + text[end:], written, end)


def _lone_surrogate(text: str, found: re.Match[str]) -> yaml.MarkedYAMLError:
    """The error of a ``\\u`` escape of a surrogate with no other half, at its backslash."""
    escape = found.group()
    if int(escape[2:], 16) < 0xDC00:
        problem = (f"'{escape}' is the first half of a UTF-16 surrogate pair, and no second half "
                   "('\\uDC00' to '\\uDFFF') follows it")
    else:
        problem = (f"'{escape}' is the second half of a UTF-16 surrogate pair, and no first half "
                   "('\\uD800' to '\\uDBFF') comes before it")
    return yaml.MarkedYAMLError(None, None, problem + "; write the character itself, or a '\\U0001F52D'-style "
                                                      "escape of its code point", _mark_at(text, found.start()))


def _mark_at(text: str, index: int) -> yaml.Mark:
    """A YAML mark at ``index`` of ``text``, its line and column counted as the file counts them."""
    line_start = text.rfind("\n", 0, index) + 1
    return yaml.Mark("<unicode string>", index, text.count("\n", 0, index), index - line_start, None, None)


def _written_message(line: str) -> str:
    """SK111's words for a line whose value YAML cannot read, kept as the text written."""
    if _ALIAS_LINE.match(line) or _ALIAS_ITEM.match(line):
        return (f"'{line}' is not valid YAML: a value starting with '*' names an anchor ('&name') to repeat, "
                "and there is none; read as the text written (quote the value to silence this)")
    return f"'{line}' is not valid YAML; kept as the text written, as Claude Code shows it (quote it to silence this)"


#: What SK110 says of a value holding ': ' (on one line, or over several).
_UNQUOTED_COLON_SAID = "contains ': ' without quotes; read as a string (quote the value to silence this)"


def _joined_diagnostics(joined: list[_Joined], path: str, line_offset: int) -> list[Diagnostic]:
    """SK114 or SK110 at the key line of each value read joined over its lines (:func:`_join_continuations`)."""
    messages = {"SK114": "this value goes on over lines that start at column 1, where YAML reads a new key; read as "
                         "one value, as if quoted (indent its lines under its key, or quote it, to silence this)",
                "SK110": f"value written over several lines {_UNQUOTED_COLON_SAID}"}
    return [make(value.code, messages[value.code], path, value.first + 1 + line_offset, 1) for value in joined]


def compose_leniently(text: str, path: str, line_offset: int) -> tuple[Node | None, list[Diagnostic], str]:
    """The YAML node tree of ``text``; when it does not parse, of the text read again
    (:func:`_retried`), with a warning for each value read so (SK110, SK111, SK114).  With the text
    composed (the nodes' marks point into it).  Raises :class:`FrontmatterError` when none reads."""
    try:
        return _compose(text), [], text
    except yaml.YAMLError as exc:
        node, retried, fixed_lines, bracketed, joined = _retried(text, exc, line_offset)
    said = _joined_diagnostics(joined, path, line_offset)
    said += [make("SK110", f"value {_UNQUOTED_COLON_SAID}",
                 path, number + 1 + line_offset, 1) for number in fixed_lines]
    written = text.split("\n")
    said += [make("SK111", _written_message(written[number].rstrip()), path, number + 1 + line_offset, 1)
             for number in bracketed]
    return node, sorted(said, key=lambda d: d.line or 0), retried
