"""The commands as documented: README's table names every command, docs/commands.md every option."""
from __future__ import annotations

import re

import click

from skillsite.cli import main
from support import REPO

COMMANDS_PAGE = (REPO / "docs" / "commands.md").read_text(encoding="utf-8")


def commands(group: click.Group = main, prefix: str = "") -> dict[str, click.Command]:
    """Every command by its full name (``keys new``), subcommands of groups included."""
    found: dict[str, click.Command] = {}
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            found.update(commands(command, f"{prefix}{name} "))
        else:
            found[prefix + name] = command
    return found


def section(name: str) -> str:
    """The part of docs/commands.md about one command: from its first mention in a heading or a
    list item to the next heading of that level or item."""
    start = re.search(rf"^(#+ |- ).*?`skillsite {re.escape(name)}\b.*$", COMMANDS_PAGE, re.M)
    assert start, f"docs/commands.md has no heading or item for skillsite {name}"
    marker = start.group(1)
    rest = COMMANDS_PAGE[start.end():]
    end = re.search(rf"^{re.escape(marker)}" if marker == "- " else rf"^#{{1,{len(marker) - 1}}} ", rest, re.M)
    return start.group(0) + rest[:end.start() if end else len(rest)]


def shared_options() -> str:
    return COMMANDS_PAGE.split("## Reading a catalog", 1)[1].split("- `skillsite search", 1)[0]


def test_the_readme_table_has_one_line_per_command() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Commands", 1)[1].split("\n\n", 2)[1]
    rows = [line for line in table.splitlines()[2:] if line.startswith("|")]
    named = {re.match(r"\| `skillsite (\w+)", row).group(1) for row in rows}
    assert named == {name.split()[0] for name in commands()}
    assert all(row.count("|") == 3 for row in rows)   # one line: the command and what it does


def test_every_option_of_every_command_is_documented() -> None:
    missing = []
    for name, command in commands().items():
        text = section(name) + ("" if name.split()[0] in ("validate", "new", "keys", "verify", "build", "serve",
                                                          "audit") else shared_options())
        if name in ("install",):
            text += shared_options()
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:
                longest = max(param.opts + param.secondary_opts, key=len)
                if longest != "--help" and f"{longest}" not in text:
                    missing.append(f"skillsite {name} {longest}")
    assert not missing, missing


def test_the_check_finds_an_undocumented_option() -> None:
    """The section a command's options are looked for in is its own, not the whole page."""
    assert "--sign-key" in section("build") and "--sign-key" not in section("validate")
    assert "--all-copies" in section("search") and "--all-copies" not in section("show")
