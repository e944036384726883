"""The package's shape: imports flow one way (no module imports, however indirectly, a module
that imports it; imports in functions and under TYPE_CHECKING count), and docs/contributing.md's module
graph is the package's."""
from __future__ import annotations

import re

from support import REPO, circles, import_graph


def test_the_circle_finder_finds_circles() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_module_of_the_package_imports_itself_through_others() -> None:
    graph = import_graph()
    assert len(graph) > 50 and graph["skillsite.publish.build"]  # the walk sees the package
    assert circles(graph) == []


def part_of(module: str) -> str:
    """How the module graph names a module: its subpackage (``publish/``), else its own name."""
    parts = module.split(".")
    is_package = (REPO / "/".join(parts) / "__init__.py").is_file()
    return f"{parts[1]}/" if len(parts) > 2 or is_package else parts[-1]


def package_graph() -> dict[str, set[str]]:
    """Subpackage or top-level module -> those it imports, from the module graph."""
    found: dict[str, set[str]] = {}
    for module, targets in import_graph().items():
        if module in ("skillsite", "skillsite.__main__"):
            continue
        for target in targets - {"skillsite"}:  # the package itself: its version
            if part_of(target) != part_of(module):
                found.setdefault(part_of(module), set()).add(part_of(target))
    return found


def documented_graph() -> dict[str, set[str]]:
    """The arrows of docs/contributing.md's module graph: ``a, b --> c, d`` lines in its graph block."""
    text = (REPO / "docs/contributing.md").read_text(encoding="utf-8")
    block = text.split("<!-- module-graph -->", 2)[1]
    found: dict[str, set[str]] = {}
    for line in block.splitlines():
        if "-->" not in line:
            continue
        sources, targets = line.split("-->", 1)
        targets = re.sub(r"\(.*?\)", "", targets)
        for source in sources.split(","):
            found.setdefault(source.strip(), set()).update(t.strip() for t in targets.split(",") if t.strip())
    return found


def test_the_docs_show_the_module_graph_as_it_is() -> None:
    assert documented_graph() == package_graph()


def test_the_wheel_lists_every_subpackage() -> None:
    """pyproject.toml names its packages one by one: a new subpackage left out of that list is
    missing from the wheel (and from ``pre-commit``'s and the GitHub Action's installs)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    on_disk = {".".join(init.parent.relative_to(REPO).parts) for init in (REPO / "skillsite").rglob("__init__.py")}
    assert on_disk and on_disk <= listed, sorted(on_disk - listed)


def test_each_exit_status_is_defined_once_in_exit_codes() -> None:
    """The commands' exit statuses have one home that ``cli/`` and ``audit/`` both import: a
    second definition could drift from the first (``audit`` may not import ``cli/``)."""
    import ast

    defined: dict[str, list[str]] = {}
    for path in sorted((REPO / "skillsite").rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
                if isinstance(node, ast.AnnAssign) else []
            for target in targets:
                if isinstance(target, ast.Name) and target.id.startswith("EXIT_"):
                    defined.setdefault(target.id, []).append(path.relative_to(REPO).as_posix())
    assert "EXIT_ENVIRONMENT" in defined
    assert {name: places for name, places in defined.items() if places != ["skillsite/exit_codes.py"]} == {}


def _numbers_given(call) -> list[int]:
    """The integer literals other than 0 among a call's arguments (in ``1 if failed else 0`` too)."""
    import ast

    return [node.value for arg in call.args for node in ast.walk(arg)
            if isinstance(node, ast.Constant) and type(node.value) is int and node.value != 0]


def test_no_command_exits_with_a_bare_number() -> None:
    """Every status a command ends with is named in skillsite/exit_codes.py (``sys.exit(EXIT_USAGE)``,
    ``fail(text, EXIT_CATALOG)``): a bare ``1`` or ``2`` says nothing of what it means."""
    import ast

    bare = []
    for path in sorted([*(REPO / "skillsite" / "cli").rglob("*.py"), *(REPO / "skillsite" / "audit").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and ast.unparse(node.func) in ("sys.exit", "fail") and _numbers_given(node):
                bare.append(f"{path.relative_to(REPO).as_posix()}:{node.lineno}: {ast.unparse(node)}")
    assert bare == []


MAX_LINE = 120


def test_no_line_of_the_code_or_its_tests_is_longer_than_120_characters() -> None:
    """The project's line limit, on every Python file of the package and of tests/unit and
    tests/integration (characters, not bytes).  Data is left as it comes: Unicode's
    confusables.txt, the generated literal table, the JSON schemas the catalog publishes byte for
    byte, and tests/data (real skills, fixtures)."""
    folders = [REPO / "skillsite", REPO / "tests" / "unit", REPO / "tests" / "integration"]
    files = sorted(path for folder in folders for path in folder.rglob("*.py"))
    assert len(files) > 200  # the walk sees the package and the tests
    long = [f"{path.relative_to(REPO).as_posix()}:{number}: {len(line)} characters"
            for path in files for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if len(line) > MAX_LINE]
    assert long == []
