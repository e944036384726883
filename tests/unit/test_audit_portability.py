"""The audit's structure: it runs on every Python the package admits (3.10 and up), as none of
its regular expressions uses syntax that only Python 3.11 compiles (atomic groups, possessive
repeats), and no import circle goes through it (imports in functions and under TYPE_CHECKING count)."""
from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path

import skillsite
import skillsite.audit
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


PACKAGE = Path(skillsite.__file__).resolve().parent


def module_name(path: Path) -> str:
    """The dotted name of a module file of the package."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path, modules: set[str]) -> set[str]:
    """The package's modules a file imports anywhere in it (in functions and under TYPE_CHECKING too)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
            found.update(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names)
    return {m for m in found if m in modules and m != name}


def import_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports, for every module of skillsite."""
    files = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    return {name: imported(path, set(files)) for name, path in files.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_circle_finder_finds_a_circle_through_a_function_level_import():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_goes_through_the_audit():
    graph = import_graph()
    assert "skillsite.audit.suppress" in graph["skillsite.audit.report"]
    assert [group for group in circles(graph) if any(m.startswith("skillsite.audit") for m in group)] == []


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
