"""A SKILL.md's frontmatter as the MCP Skills extension serves it: the YAML read as plain data
(PyYAML's safe scalar rules, with the build's bounds on nodes, depth and aliases from
:mod:`skillsite.source.frontmatter`, no tag constructed); a value JSON cannot hold (a date,
``.nan``, ``!!binary``) is kept as the text written.
"""
from __future__ import annotations

import math
from typing import Any

import yaml
from yaml.nodes import MappingNode, ScalarNode

from skillsite.agent.skill_md import split_skill_md
# The build's bounded YAML reading (node, depth and nesting limits, no tag constructed).
from skillsite.source.frontmatter import BoundedBuilder, nesting_too_deep
from skillsite.source.frontmatter_retries import compose_leniently
from skillsite.source.frontmatter_yaml import FrontmatterError

__all__ = ["FrontmatterError", "frontmatter_object"]


class _PlainBuilder(BoundedBuilder):
    """The build's bounded YAML construction, with scalars as any YAML 1.1 reader sees them
    (the build turns some back into text; a host comparing frontmatter would not)."""

    def _scalar(self, node: ScalarNode, key_path: str) -> Any:
        if node.tag == "tag:yaml.org,2002:str":
            return node.value
        value, readable = self._constructed(node)
        if readable and (value is None or isinstance(value, (bool, int))
                         or (isinstance(value, float) and math.isfinite(value))):
            return value
        return node.value  # dates, non-finite floats, binary, what YAML cannot read: the text as written


def frontmatter_object(raw: bytes) -> dict[str, Any]:
    """A SKILL.md's frontmatter as a JSON-ready mapping; FrontmatterError when it has none."""
    text = raw.decode("utf-8", errors="replace").removeprefix("\ufeff")
    parts = split_skill_md(text)
    if parts is None or not parts.closed:
        raise FrontmatterError("SK104", "SKILL.md has no closed frontmatter")
    if nesting_too_deep(parts.frontmatter):
        raise FrontmatterError("SK108", "frontmatter nests too deeply")
    try:
        node, _, _ = compose_leniently(parts.frontmatter, "SKILL.md", 1)
        if not isinstance(node, MappingNode):
            raise FrontmatterError("SK104", "frontmatter is not a mapping")
        return _PlainBuilder("SKILL.md", 1).build(node)
    except (yaml.YAMLError, RecursionError) as exc:
        raise FrontmatterError("SK103", f"frontmatter cannot be read ({type(exc).__name__})") from None
