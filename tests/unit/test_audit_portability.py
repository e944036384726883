"""The audit's structure: it runs on every Python the package admits (3.10 and up), as none of
its regular expressions uses syntax that only Python 3.11 compiles (atomic groups, possessive
repeats), and its rule table is a leaf module the diagnostics can import."""
from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path

import skillsite.audit
from support import import_graph
from skillsite.audit.declare import Pattern
from skillsite.audit.text import Gate

try:  # the parser behind re.compile: re._parser from Python 3.11 on, sre_parse before
    from re import _parser as sre_parser  # type: ignore[attr-defined]
except ImportError:  # Python 3.10
    import sre_parse as sre_parser  # type: ignore[no-redef]

#: Opcodes that Python 3.11 added to its regular expressions: "multiple repeat" or "unknown
#: extension ?>" on 3.10.
NEWER_OPCODES = {"ATOMIC_GROUP", "POSSESSIVE_REPEAT"}


def _compiled(value: object) -> list[re.Pattern[str]]:
    """The compiled patterns in a module-level value (a pattern, a gate, a rule's declared
    pattern, or a collection of them)."""
    if isinstance(value, re.Pattern):
        return [value]
    if isinstance(value, Pattern):
        return _compiled(value.gate)
    if isinstance(value, Gate):
        return [value.pattern] + ([value.candidates] if value.candidates is not None else [])
    if isinstance(value, (list, tuple, frozenset, set)):
        return [p for item in value for p in _compiled(item)]
    if isinstance(value, dict):
        return [p for item in value.values() for p in _compiled(item)]
    return []


def audit_patterns() -> list[re.Pattern[str]]:
    """Every compiled pattern held by a module of skillsite.audit (the rules' declared patterns
    compiled: skillsite.audit.rules.PATTERNS holds them all)."""
    found = []
    for info in pkgutil.walk_packages(skillsite.audit.__path__, "skillsite.audit."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            found.extend(_compiled(value))
    return found


def opcodes(parsed: object) -> set[str]:
    """The names of every opcode in a parsed pattern, nested groups and repeats included."""
    names: set[str] = set()
    items = parsed.data if hasattr(parsed, "data") else parsed
    for item in items if isinstance(items, (list, tuple)) else ():
        if isinstance(item, tuple) and len(item) == 2 and hasattr(item[0], "name"):
            names.add(str(item[0].name))
            names |= opcodes(item[1])
        elif hasattr(item, "data") or isinstance(item, (list, tuple)):
            names |= opcodes(item)
    return names


def test_the_walk_sees_opcodes_inside_groups_and_repeats():
    assert {"MAX_REPEAT", "SUBPATTERN", "IN"} <= opcodes(sre_parser.parse(r"(?:(a[bc])+)"))
    assert "ASSERT" in opcodes(sre_parser.parse(r"x(?=(?P<y>z+))(?P=y)"))


def test_no_audit_pattern_needs_python_311():
    patterns = audit_patterns()
    assert len(patterns) > 100
    newer = [p.pattern[:80] for p in patterns if opcodes(sre_parser.parse(p.pattern, p.flags)) & NEWER_OPCODES]
    assert newer == []




def test_the_rule_table_is_a_leaf_the_diagnostics_can_import():
    graph = import_graph()
    reached, todo = set(), ["skillsite.audit.rules"]
    while todo:
        for target in graph[todo.pop()] - reached:
            reached.add(target)
            todo.append(target)
    assert reached and all(m.startswith("skillsite.audit.") for m in reached), sorted(reached)
    assert not reached & {"skillsite.audit.engine", "skillsite.audit.files", "skillsite.audit.report"}
    assert "skillsite.audit.rules" in graph["skillsite.diagnostics"]


#: The parts of ``re`` that are not public (they change between Python versions; sre_* are deprecated).
PRIVATE_RE = {"sre_parse", "sre_compile", "sre_constants", "re._parser", "re._compiler", "re._constants",
              "re._casefix"}


def imported_names(tree: ast.AST) -> set[str]:
    """Every module an ``import`` or ``from ... import`` in a module's tree names (``from re import
    _parser`` as ``re._parser``)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_the_package_uses_no_private_part_of_re():
    """The audit's literals come from a table made at development time (tests/data/
    make_literal_table.py reads re's parser); nothing the package runs imports the parser."""
    assert imported_names(ast.parse("from re import _parser as p\nimport sre_parse")) & PRIVATE_RE == \
        {"re._parser", "sre_parse"}
    package = Path(skillsite.audit.__file__).resolve().parents[1]
    sources = sorted(package.rglob("*.py"))
    assert len(sources) > 100
    used = {str(path.relative_to(package)): imported_names(ast.parse(path.read_text(encoding="utf-8"))) & PRIVATE_RE
            for path in sources}
    assert {path: names for path, names in used.items() if names} == {}
