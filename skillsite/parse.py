"""Parsing: split a SKILL.md into YAML frontmatter and Markdown body.

The frontmatter is found line by line (an opening ``---`` with optional trailing
spaces, after an optional BOM, with LF or CRLF), never by splitting on ``---``.
YAML is composed with PyYAML's safe (C when available) loader and then constructed
here, so that every key's line is known, duplicate keys and YAML 1.1 coercions are
noticed, unknown tags never construct anything, and alias expansion is bounded.
"""
from __future__ import annotations

import os
import re
from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from skillsite.diagnostics import Diagnostic, make
from skillsite.agent.skill_md import frontmatter_end
from skillsite.models import ParsedSkill, SourceFile

try:  # the C loader is ten times faster; fall back quietly when libyaml is missing
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

WARN_BYTES = 256 * 1024
DEFAULT_MAX_BYTES = 1024 * 1024
MAX_YAML_NODES = 10_000       # constructed nodes, counting every alias expansion
MAX_YAML_DEPTH = 64
MAX_FRONTMATTER_NESTING = 200  # brackets or indentation levels, checked before YAML sees it

#: Keys whose values are text: a YAML 1.1 coercion there is turned back into the text as written.
TEXT_KEYS = frozenset({"name", "description", "license", "compatibility", "version", "argument-hint",
                       "allowed-tools"})
TEXT_KEYS |= {"tags[]", "triggers[]", "examples[]"}
TEXT_PARENTS = frozenset({"metadata"})  # every scalar value directly under these keys is text

_STR_TAG = "tag:yaml.org,2002:str"
_KNOWN_TAGS = frozenset({
    "tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null", "tag:yaml.org,2002:timestamp",
    "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:binary",
})
_UNQUOTED_COLON_LINE = re.compile(r"^(\s*(?:-\s+)?[A-Za-z0-9_.-]+:[ \t]+)([^'\"\[{|>&*!#%@`\s].*?: .*?)\s*$")


class FrontmatterError(Exception):
    """Raised inside the parser; always turned into a diagnostic."""

    def __init__(self, code: str, message: str, line: int = 0, col: int = 0):
        super().__init__(message)
        self.code, self.message, self.line, self.col = code, message, line, col


class _Builder:
    """Constructs Python values from a composed YAML node tree, within bounds."""

    def __init__(self, path: str, line_offset: int):
        self.path = path
        self.line_offset = line_offset
        self.nodes = 0
        self.scalars = SafeConstructor()
        self.key_lines: dict[str, tuple[int, int]] = {}
        self.diags: list[Diagnostic] = []

    def _pos(self, node: Node) -> tuple[int, int]:
        return node.start_mark.line + 1 + self.line_offset, node.start_mark.column + 1

    def build(self, node: Node, key_path: str = "", depth: int = 0) -> Any:
        self.nodes += 1
        if self.nodes > MAX_YAML_NODES:
            raise FrontmatterError("SK108", f"frontmatter expands to more than {MAX_YAML_NODES} YAML nodes "
                                            "(aliases are expanded); refusing to read it", *self._pos(node))
        if depth > MAX_YAML_DEPTH:
            raise FrontmatterError("SK108", f"frontmatter nests deeper than {MAX_YAML_DEPTH} levels",
                                   *self._pos(node))
        if node.tag not in _KNOWN_TAGS:
            raise FrontmatterError("SK113", f"unsupported YAML tag {node.tag!r}; nothing was constructed",
                                   *self._pos(node))
        if isinstance(node, ScalarNode):
            return self._scalar(node, key_path)
        if isinstance(node, SequenceNode):
            return [self.build(child, key_path + "[]", depth + 1) for child in node.value]
        if isinstance(node, MappingNode):
            return self._mapping(node, key_path, depth)
        raise FrontmatterError("SK103", "unexpected YAML node", *self._pos(node))  # pragma: no cover

    def _scalar(self, node: ScalarNode, key_path: str) -> Any:
        if node.tag == _STR_TAG:
            return node.value
        value = self.scalars.construct_object(node)
        parent = key_path.rsplit(".", 1)[0] if "." in key_path else ""
        wants_text = key_path in TEXT_KEYS or parent in TEXT_PARENTS
        if wants_text and not node.style and value is not None:
            line, col = self._pos(node)
            kind = {bool: "a boolean", int: "an integer", float: "a number"}.get(type(value), "a date")
            self.diags.append(make("SK111", f"'{key_path}: {node.value}' is {kind} in YAML 1.1; kept as the "
                                            f"text '{node.value}' (quote it to silence this)", self.path, line, col))
            return node.value
        if isinstance(value, (bytes, bytearray)):
            return node.value
        return value

    def _mapping(self, node: MappingNode, key_path: str, depth: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise FrontmatterError("SK113", "YAML merge keys ('<<') are not supported in frontmatter",
                                       *self._pos(key_node))
            key = self.build(key_node, "", depth + 1)
            if isinstance(key, (dict, list)):
                raise FrontmatterError("SK103", "a mapping key must be a scalar", *self._pos(key_node))
            key = key_node.value if not isinstance(key, str) else key
            full = f"{key_path}.{key}" if key_path else key
            line, col = self._pos(key_node)
            if key in result:
                first = self.key_lines.get(full, (0, 0))[0]
                self.diags.append(make("SK112", f"key '{full}' appears again (first on line {first}); "
                                                "the last value wins", self.path, line, col))
            self.key_lines[full] = (line, col)
            result[key] = self.build(value_node, full, depth + 1)
        return result


def _nesting_too_deep(text: str) -> bool:
    """A cheap guard against pathological nesting before the YAML composer recurses into it."""
    if text.count("[") + text.count("{") > MAX_FRONTMATTER_NESTING:
        depth = 0
        for ch in text:
            if ch in "[{":
                depth += 1
                if depth > MAX_FRONTMATTER_NESTING:
                    return True
            elif ch in "]}":
                depth = max(0, depth - 1)
    return _DEEP_INDENT.search(text) is not None


_DEEP_INDENT = re.compile("^ {%d,}" % (2 * MAX_FRONTMATTER_NESTING + 1), re.M)


def _compose(text: str) -> Node | None:
    loader = _Loader(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def _quote_unquoted_colons(text: str) -> tuple[str, list[int]]:
    """Quote plain values that contain ``: `` (the spec's client guide asks for this retry)."""
    fixed, lines = [], []
    for number, line in enumerate(text.split("\n")):
        body = line.rstrip("\r")
        match = _UNQUOTED_COLON_LINE.match(body)
        if match and " #" not in match.group(2):
            value = match.group(2).replace("'", "''")
            fixed.append(f"{match.group(1)}'{value}'" + line[len(body):])
            lines.append(number)
        else:
            fixed.append(line)
    return "\n".join(fixed), lines


def _yaml_error(exc: yaml.YAMLError, line_offset: int, text: str) -> FrontmatterError:
    """A YAML failure as a diagnostic, placed where the construct in trouble starts."""
    problem = getattr(exc, "problem", None) or getattr(exc, "reason", None) or str(exc).splitlines()[0]
    context = getattr(exc, "context", None)
    scanning = bool(context and context.startswith("while scanning") and getattr(exc, "context_mark", None))
    mark = exc.context_mark if scanning else getattr(exc, "problem_mark", None)
    if scanning and getattr(exc, "problem_mark", None):
        end = exc.problem_mark
        message = f"{context}, {problem} (line {end.line + 1 + line_offset})"
    else:
        message = f"{context}, {problem}" if context else problem
    if isinstance(exc, yaml.reader.ReaderError):
        before = text[: exc.position]
        line, col = before.count("\n"), exc.position - (before.rfind("\n") + 1)
        char = f"U+{exc.character:04X}" if isinstance(exc.character, int) else repr(exc.character)
        return FrontmatterError("SK103", f"invalid YAML: control character {char} is not allowed",
                                line + 1 + line_offset, col + 1)
    if mark is not None:
        return FrontmatterError("SK103", f"invalid YAML: {message}", mark.line + 1 + line_offset, mark.column + 1)
    return FrontmatterError("SK103", f"invalid YAML: {message}", line_offset + 1, 1)


def parse_frontmatter_text(text: str, path: str, line_offset: int = 1
                           ) -> tuple[dict[str, Any], dict[str, tuple[int, int]], list[Diagnostic]]:
    """Read YAML frontmatter text into a mapping, the line of every key, and recovery warnings.

    ``line_offset`` is the number of file lines before the YAML text.  Raises
    :class:`FrontmatterError` when the frontmatter cannot be used at all.
    """
    if _nesting_too_deep(text):
        raise FrontmatterError("SK108", f"frontmatter nests deeper than {MAX_FRONTMATTER_NESTING} levels",
                               line_offset + 1, 1)
    diags: list[Diagnostic] = []
    try:
        node = _compose(text)
    except yaml.YAMLError as exc:
        retried, fixed_lines = _quote_unquoted_colons(text)
        if not fixed_lines:
            raise _yaml_error(exc, line_offset, text) from None
        try:
            node = _compose(retried)
        except yaml.YAMLError:
            raise _yaml_error(exc, line_offset, text) from None
        for number in fixed_lines:
            diags.append(make("SK110", "value contains ': ' without quotes; read as a string "
                                       "(quote the value to silence this)", path, number + 1 + line_offset, 1))
    except RecursionError:
        raise FrontmatterError("SK108", "frontmatter nests too deeply", line_offset + 1, 1) from None
    if node is None:
        raise FrontmatterError("SK104", "frontmatter is empty; it must be a mapping with at least a description",
                               line_offset + 1, 1)
    if not isinstance(node, MappingNode):
        kind = "a list" if isinstance(node, SequenceNode) else "a single value"
        raise FrontmatterError("SK104", f"frontmatter is {kind}, not a mapping of keys to values",
                               node.start_mark.line + 1 + line_offset, node.start_mark.column + 1)
    builder = _Builder(path, line_offset)
    try:
        data = builder.build(node)
    except RecursionError:
        raise FrontmatterError("SK108", "frontmatter nests too deeply", line_offset + 1, 1) from None
    except yaml.YAMLError as exc:
        raise _yaml_error(exc, line_offset, text) from None
    return data, builder.key_lines, diags + builder.diags


def _decode(raw: bytes, path: str) -> str:
    if b"\x00" in raw:
        offset = raw.index(b"\x00")
        raise FrontmatterError("SK109", f"file contains NUL bytes (first at byte offset {offset}); "
                                        "it looks binary, not Markdown")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise FrontmatterError("SK105", f"not valid UTF-8: byte 0x{raw[exc.start]:02x} at byte offset {exc.start}",
                               line, col) from None
    return text[1:] if text.startswith("\ufeff") else text


# Fences as the first line and as a later line, when lines end with "\n" only.
_OPENING_FENCE = re.compile(r"---[ \t]*(?:\n|\Z)")
_CLOSING_FENCE = re.compile(r"^---[ \t]*(?:\n|\Z)", re.M)
# Every line break str.splitlines knows besides "\n".
_RARE_LINE_BREAKS = re.compile("[\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def split_frontmatter(text: str) -> tuple[str, int, str, int] | None:
    """Find the frontmatter line by line (the rule of :func:`skillsite.loader.frontmatter_end`).

    Returns ``(yaml_text, yaml_first_line, body, body_first_line)`` with 1-based file
    lines, or None when the file does not open with ``---``.  Raises
    :class:`FrontmatterError` when the frontmatter is never closed.
    """
    opening = _OPENING_FENCE.match(text)
    if opening is None and not text.startswith("---"):
        return None            # cannot open a frontmatter, whatever its line breaks
    if opening is not None:
        closing = _CLOSING_FENCE.search(text, opening.end())
        region_end = closing.end() if closing is not None else len(text)
        if not _RARE_LINE_BREAKS.search(text, 0, region_end):
            # Up to the closing fence every line ends with "\n", so these matches are the lines
            # str.splitlines would give; the body's own line breaks do not matter.
            if closing is None:
                raise FrontmatterError("SK102", "frontmatter opened with '---' on line 1 is never closed by a "
                                                "'---' line", 1, 1)
            body = text[closing.end():]
            return (text[opening.end():closing.start()], 2, body.replace("\r\n", "\n") if "\r" in body else body,
                    text.count("\n", 0, closing.start()) + 2)
    lines = text.splitlines(keepends=True)
    end = frontmatter_end(lines)
    if end is None:
        return None
    if end < 0:
        raise FrontmatterError("SK102", "frontmatter opened with '---' on line 1 is never closed by a '---' line",
                               1, 1)
    yaml_text = "".join(lines[1:end]).replace("\r\n", "\n")
    body = "".join(lines[end + 1:]).replace("\r\n", "\n")
    return yaml_text, 2, body, end + 2


def parse_skill_bytes(raw: bytes, source: SourceFile, max_bytes: int = DEFAULT_MAX_BYTES) -> ParsedSkill:
    """Parse the bytes of one SKILL.md; never raises on bad input."""
    path = source.display_path
    diags: list[Diagnostic] = []

    def failed(code: str, message: str, line: int = 0, col: int = 0) -> ParsedSkill:
        diags.append(make(code, message, path, line, col))
        return ParsedSkill(source, None, {}, "", 1, raw, tuple(diags))

    size = len(raw)
    if size > max_bytes:
        return failed("SK106", f"file is {size:,} bytes, over the limit of {max_bytes:,} bytes; not read")
    if size > WARN_BYTES:
        diags.append(make("SK107", f"file is {size:,} bytes (over {WARN_BYTES:,}); agents load all of it", path))
    if not raw.strip():
        return failed("SK100", "SKILL.md is empty; it needs frontmatter with at least a description", 1, 1)
    try:
        text = _decode(raw, path)
        split = split_frontmatter(text)
        if split is None:
            return failed("SK101", "no YAML frontmatter: the file must start with a '---' line", 1, 1)
        yaml_text, yaml_line, body, body_line = split
        data, key_lines, yaml_diags = parse_frontmatter_text(yaml_text, path, yaml_line - 1)
    except FrontmatterError as exc:
        return failed(exc.code, exc.message, exc.line, exc.col)
    diags.extend(yaml_diags)
    return ParsedSkill(source, data, key_lines, body, body_line, raw, tuple(diags))


def read_limited(path: str | os.PathLike[str], limit: int) -> tuple[bytes, int]:
    """Up to ``limit + 1`` bytes of a file (more than ``limit`` means too big), and its size.

    The first read asks for the size fstat gives, plus one byte to notice growth: a buffered
    ``read(limit + 1)`` allocates the whole limit for every file.  A file that grew since is
    read on to its end or past the limit, never cut short.  Opened non-blocking, so a FIFO
    put in a file's place cannot hang the build.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        size = os.fstat(fd).st_size
        chunks = [os.read(fd, min(size, limit) + 1)]
        total = len(chunks[0])
        while chunks[-1] and total <= limit and total != size:  # grown (or a short read)
            chunks.append(os.read(fd, limit + 1 - total))
            total += len(chunks[-1])
    finally:
        os.close(fd)
    return (chunks[0] if len(chunks) == 1 else b"".join(chunks)), max(size, total)


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
