"""Reading YAML frontmatter into plain values, with the line of every key.

YAML is composed with PyYAML's safe loader (the C one when available) and then constructed
here, so that every key's line is known, duplicate keys and YAML 1.1 coercions are noticed,
unknown tags never construct anything, and alias expansion and nesting are bounded.  What YAML
refuses as written is read again as agents read it (an unquoted ``: `` quoted, JSON's escape of a
surrogate pair as its character, ...) by :mod:`skillsite.source.frontmatter_retries`.
"""
from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import CollectionNode, MappingNode, Node, ScalarNode, SequenceNode

from skillsite.diagnostics import Diagnostic, make
from skillsite.source.frontmatter_retries import compose_leniently
from skillsite.source.frontmatter_yaml import TEXT_KEYS, WRITTEN_TEXT_KEYS, FileLines, FrontmatterError, yaml_error

MAX_YAML_NODES = 10_000       # constructed nodes, counting every alias expansion
#: Characters of the values constructed, counting every alias expansion: aliases repeating one
#: long text would otherwise publish far more than the file holds (36 KB became an 80 MB
#: skills.json, over what the loader reads); a frontmatter's own text is at most max_bytes.
MAX_YAML_CHARS = 2 * 1024 * 1024
MAX_YAML_DEPTH = 64
MAX_FRONTMATTER_NESTING = 200  # brackets or indentation levels, checked before YAML sees it

TEXT_PARENTS = frozenset({"metadata"})  # every scalar value directly under these keys is text

_STR_TAG = "tag:yaml.org,2002:str"
#: Plain values that YAML 1.2's core schema reads as booleans and numbers too: 'true' is a boolean in
#: every YAML, 'yes' and '2024-01-01' only in YAML 1.1 (which PyYAML reads), and SK111 says which.
_YAML_12_CORE = re.compile(r"true|True|TRUE|false|False|FALSE|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|"
                           r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|"
                           r"\.(?:nan|NaN|NAN)")
#: What YAML 1.1 resolves the plain values '=' and '<<' to: in a value they are just text.
_PLAIN_TEXT_TAGS = frozenset({"tag:yaml.org,2002:value", "tag:yaml.org,2002:merge"})
_KNOWN_TAGS = frozenset({
    "tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null", "tag:yaml.org,2002:timestamp",
    "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:binary",
})
#: A plain value YAML 1.2's core schema reads as no text (null, a boolean, a number): how the
#: installers that read YAML strictly (``npx skills``, with the ``yaml`` package) read it.
_YAML12_NOT_TEXT = re.compile(
    r"null|Null|NULL|~|true|True|TRUE|false|False|FALSE|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|"
    r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)")
#: The longest description installers list, in the UTF-16 units JavaScript counts.
MAX_LISTED_DESCRIPTION = 1024
#: The keys an installer needs as text.
_LISTED_KEYS = ("name", "description")


class BoundedBuilder:
    """Constructs Python values from a composed YAML node tree, within bounds.  With ``text``, the
    YAML the nodes were composed from, a flow list or mapping under :data:`WRITTEN_TEXT_KEYS` is
    kept as the text written; without it, as YAML reads it."""

    def __init__(self, path: str, line_offset: int, lines: FileLines | None = None, text: str | None = None):
        self.path = path
        self.text = text
        self.line_offset = line_offset
        self.lines = lines  # None: YAML's lines are the file's
        self.nodes = 0
        self.chars = 0
        self.scalars = SafeConstructor()
        self.key_lines: dict[str, tuple[int, int]] = {}
        self.diags: list[Diagnostic] = []

    def _pos(self, node: Node) -> tuple[int, int]:
        if self.lines is not None:
            return self.lines.at(node.start_mark)
        return node.start_mark.line + 1 + self.line_offset, node.start_mark.column + 1

    def build(self, node: Node, key_path: str = "", depth: int = 0) -> Any:
        self.nodes += 1
        if self.nodes > MAX_YAML_NODES:
            raise FrontmatterError("SK108", f"frontmatter has more than {MAX_YAML_NODES} YAML nodes "
                                            "(each alias counted as the nodes it repeats); refusing to read it",
                                   *self._pos(node))
        if depth > MAX_YAML_DEPTH:
            raise FrontmatterError("SK108", f"frontmatter nests deeper than {MAX_YAML_DEPTH} levels",
                                   *self._pos(node))
        if isinstance(node, ScalarNode):
            self.chars += len(node.value)
            if self.chars > MAX_YAML_CHARS:
                raise FrontmatterError("SK108", f"frontmatter's values hold more than {MAX_YAML_CHARS:,} characters "
                                                "(each alias counted as the text it repeats); refusing to read it",
                                       *self._pos(node))
        if isinstance(node, ScalarNode) and node.tag in _PLAIN_TEXT_TAGS:
            return node.value
        if node.tag not in _KNOWN_TAGS:
            raise FrontmatterError("SK113", f"unsupported YAML tag {node.tag!r}; nothing was constructed",
                                   *self._pos(node))
        if isinstance(node, ScalarNode):
            return self._scalar(node, key_path)
        if self.text is not None and key_path in WRITTEN_TEXT_KEYS and isinstance(node, CollectionNode) \
                and node.flow_style and self.text.startswith(("[", "{"), node.start_mark.index):
            return self._as_written(node, key_path)
        if isinstance(node, SequenceNode):
            for index, child in enumerate(node.value):  # where each item is, for diagnostics about one
                self.key_lines[f"{key_path}[{index}]"] = self._pos(child)
            return [self.build(child, key_path + "[]", depth + 1) for child in node.value]
        if isinstance(node, MappingNode):
            return self._mapping(node, key_path, depth)
        raise FrontmatterError("SK103", "unexpected YAML node", *self._pos(node))  # pragma: no cover

    def _as_written(self, node: CollectionNode, key_path: str) -> str:
        """The text of a flow collection as the file writes it (``[message]``), with a warning."""
        assert self.text is not None
        written = " ".join(self.text[node.start_mark.index:node.end_mark.index].split())  # one line
        self.chars += len(written)
        kind = "a list" if isinstance(node, SequenceNode) else "a mapping"
        self.diags.append(make("SK111", f"'{key_path}: {written}' is {kind} in YAML; kept as the text written, as "
                                        "Claude Code shows it (quote it to silence this)", self.path, *self._pos(node)))
        return written

    def _constructed(self, node: ScalarNode) -> tuple[Any, bool]:
        """The scalar's YAML value, and whether YAML could read it: a date such as 2020-13-45, or
        an integer of thousands of digits, is not read (its text as written is given instead)."""
        try:
            return self.scalars.construct_object(node), True
        except (ValueError, OverflowError, KeyError):  # KeyError: '!!bool sometimes'
            return node.value, False

    def _scalar(self, node: ScalarNode, key_path: str) -> Any:
        if node.tag == _STR_TAG:
            return node.value
        value, readable = self._constructed(node)
        if not readable:
            line, col = self._pos(node)
            what = {"timestamp": "date", "int": "integer", "float": "number"}.get(node.tag.rsplit(":", 1)[-1], "value")
            written = node.value if len(node.value) <= 60 else node.value[:57] + "..."
            self.diags.append(make("SK111", f"'{key_path + ': ' if key_path else ''}{written}' is not a valid {what} "
                                            "in YAML; kept as the text written (quote it to silence this)",
                                   self.path, line, col))
            return node.value
        parent = key_path.rsplit(".", 1)[0] if "." in key_path else ""
        wants_text = key_path in TEXT_KEYS or parent in TEXT_PARENTS
        if wants_text and not node.style and value is not None:
            line, col = self._pos(node)
            kind = {bool: "a boolean", int: "an integer", float: "a number", bytes: "binary data"}.get(
                type(value), "a date")
            version = "YAML" if _YAML_12_CORE.fullmatch(node.value) else "YAML 1.1"
            self.diags.append(make("SK111", f"'{key_path}: {node.value}' is {kind} in {version}; kept as the "
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


def nesting_too_deep(text: str) -> bool:
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


def parse_frontmatter_text(text: str, path: str, line_offset: int = 1, *, installable: bool = False
                           ) -> tuple[dict[str, Any], dict[str, tuple[int, int]], list[Diagnostic]]:
    """Read YAML frontmatter text into a mapping, the line of every key, and recovery warnings.

    ``line_offset`` is the number of file lines before the YAML text; ``installable``: a SKILL.md's,
    also said (SK016) when installers that read YAML strictly skip it.  Raises
    :class:`FrontmatterError` when the frontmatter cannot be used at all.
    """
    if nesting_too_deep(text):
        raise FrontmatterError("SK108", f"frontmatter nests deeper than {MAX_FRONTMATTER_NESTING} levels",
                               line_offset + 1, 1)
    try:
        node, diags, retried = compose_leniently(text, path, line_offset)
    except RecursionError:
        raise FrontmatterError("SK108", "frontmatter nests too deeply", line_offset + 1, 1) from None
    if node is None:
        raise FrontmatterError("SK104", "frontmatter is empty; it must be a mapping with at least a description",
                               line_offset + 1, 1)
    if not isinstance(node, MappingNode):
        kind = "a list" if isinstance(node, SequenceNode) else "a single value"
        raise FrontmatterError("SK104", f"frontmatter is {kind}, not a mapping of keys to values",
                               *FileLines(retried, line_offset).at(node.start_mark))
    lines = FileLines(retried, line_offset)
    builder = BoundedBuilder(path, line_offset, None if lines.plain else lines, retried)
    try:
        data = builder.build(node)
    except RecursionError:
        raise FrontmatterError("SK108", "frontmatter nests too deeply", line_offset + 1, 1) from None
    except yaml.YAMLError as exc:
        raise yaml_error(exc, line_offset, retried) from None   # its marks point into the text composed
    found = diags + builder.diags
    refused = strict_refusal(node, diags, builder.diags, path, line_offset, retried) if installable else None
    return data, builder.key_lines, found + ([refused] if refused is not None else [])


def strict_refusal(node: MappingNode, recovered: list[Diagnostic], found: list[Diagnostic], path: str,
                   line_offset: int, text: str) -> Diagnostic | None:
    """SK016 when installers that read YAML strictly skip the skill: its frontmatter is a YAML
    error for them (what the retry ``recovered`` from, a key written twice: ``found`` says so), it
    has no name, or its name or description is no text for YAML 1.2 (``name: 123``, ``!!timestamp``;
    ``text``: the YAML the nodes were composed from).  They skip it silently: so say it."""
    error = next(iter(recovered), None) or next((d for d in found if d.code == "SK112"), None)
    if error is not None:
        why, fix = _STRICT_ERRORS[error.code]
        return not_listed(f"{why} is a YAML error for them", fix, path, error.line, error.col)
    values = {key.value: value for key, value in node.value if isinstance(key, ScalarNode)}
    if "name" not in values:
        return not_listed("they need a name in the frontmatter", "add one", path, line_offset + 1, 1)
    for key in _LISTED_KEYS:
        value = values.get(key)
        if not isinstance(value, ScalarNode):
            continue
        line, col = FileLines(text, line_offset).at(value.start_mark)
        if not _text_in_yaml12(value, text):
            shown = text[value.start_mark.index:value.end_mark.index][:60]
            return not_listed(f"'{key}: {shown}' is no text for them", "quote the value", path, line, col)
        if key == "description" and len(value.value) <= MAX_LISTED_DESCRIPTION < _utf16_units(value.value):
            return not_listed(f"the description is {_utf16_units(value.value):,} UTF-16 units for them, over "
                              f"{MAX_LISTED_DESCRIPTION:,}", "shorten it", path, line, col)
    return None


#: What a diagnostic that makes the frontmatter a YAML error for strict readers stands for, and its fix.
_STRICT_ERRORS = {"SK114": ("a value going on over lines that are not indented", "indent them under its key"),
                  "SK110": ("an unquoted ': ' in a value", "quote the value"),
                  "SK111": ("a value of text and brackets, or one starting with '*', written unquoted",
                            "quote the value"),
                  "SK112": ("a key written twice", "write the key once")}


def _utf16_units(text: str) -> int:
    """A string's length as JavaScript counts it: in UTF-16 code units (a lone surrogate, which
    PyYAML's pure-Python reader makes of JSON's pair escape, counts one)."""
    return len(text.encode("utf-16-le", errors="surrogatepass")) // 2


#: Explicit tags YAML 1.2 reads a scalar as text with.
_TEXT_TAGS = ("!", "!!str", "!<tag:yaml.org,2002:str>")


def _text_in_yaml12(value: ScalarNode, text: str) -> bool:
    """Whether YAML 1.2's core schema reads the scalar as text: quoted, tagged as text, or plain
    and not a null, a boolean or a number (``value``'s marks point into ``text``)."""
    written = text[value.start_mark.index:value.end_mark.index]
    if written.startswith("!"):
        return written.split(None, 1)[0] in _TEXT_TAGS
    return bool(value.style) or not _YAML12_NOT_TEXT.fullmatch(value.value)


def not_listed(why: str, fix: str, path: str, line: int, col: int) -> Diagnostic:
    """SK016: installers that read YAML strictly skip the skill, and why."""
    return make("SK016", f"installers that read frontmatter strictly (npx skills) skip this skill: {why}; it is not "
                         f"listed in the discovery index ({fix})", path, line, col)
