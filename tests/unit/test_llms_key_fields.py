"""llms.txt from the built-in template is kept when what it shows of each skill is unchanged
(:func:`skillsite.publish.pages._llms_entries` names those fields for its key).  This test reads
the template itself: a field it starts to show that the key does not hold would leave a stale
llms.txt after an edit of that field, so it fails until the key holds the field too."""
from __future__ import annotations

import jinja2
from jinja2 import nodes

from skillsite.config import builtin_templates


def _path(node: nodes.Node) -> str | None:
    """``e.urls.skill_md`` for a chain of attribute lookups on the loop's ``e``; None otherwise."""
    if isinstance(node, nodes.Name):
        return node.name
    if isinstance(node, nodes.Getattr):
        base = _path(node.node)
        return None if base is None else f"{base}.{node.attr}"
    return None


def _outermost(tree: nodes.Template) -> set[str]:
    """Every full attribute chain read of ``e`` in the template (not its prefixes)."""
    chains = {path for node in tree.find_all(nodes.Getattr) if (path := _path(node)) and path.startswith("e.")}
    return {c for c in chains if not any(other.startswith(c + ".") for other in chains)}


def test_the_built_in_llms_txt_shows_only_what_its_key_holds_of_each_skill() -> None:
    source = (builtin_templates() / "llms.txt").read_text(encoding="utf-8")
    tree = jinja2.Environment().parse(source)
    assert _outermost(tree) == {"e.name", "e.urls.skill_md", "e.description"}
    calls = {call.node.name for call in tree.find_all(nodes.Call) if isinstance(call.node, nodes.Name)
             and any(isinstance(arg, nodes.Name) and arg.name == "e" for arg in call.args)}
    assert calls == {"badges"}   # the others' badges: in the key too


def test_the_check_sees_a_field_added_to_the_template() -> None:
    tree = jinja2.Environment().parse("{% for e in visible %}{{ e.name }} {{ e.version }}{% endfor %}")
    assert _outermost(tree) == {"e.name", "e.version"}
