"""The SKILL.md frontmatter: confusable names (SK606) and over-broad allowed-tools (SK660, SK661)."""
from __future__ import annotations

import re
import unicodedata
from typing import Iterator

from skillsite.agent.skill_md import split_skill_md
from skillsite.audit.hit import Hit
from skillsite.audit.letters import CONFUSABLES, STYLED
from skillsite.audit.text import Document

_SHELL_TOOLS = frozenset({"bash", "shell", "terminal", "run_shell_command", "execute_command", "exec",
                          "powershell", "run_terminal_cmd", "runcommand", "run_command", "command"})
_WRITE_TOOLS = frozenset({"write", "edit", "multiedit", "write_file", "edit_file", "replace", "writefile",
                          "str_replace_editor", "create_file"})
_OPEN_PATTERNS = frozenset({"", "*", "*:*", ":*", "**", "* *"})
#: Commands that run any other command: a shell pattern starting with one allows everything.
_RUNS_ANYTHING = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish", "cmd", "pwsh", "powershell", "sudo", "su",
                            "doas", "env", "eval", "exec", "command", "xargs", "nohup", "timeout", "nice", "busybox",
                            "python", "python2", "python3", "node", "perl", "ruby", "php", "deno", "osascript",
                            "npx", "bunx", "uvx", "pipx"})
_TOOL = re.compile(r"\*|[\w.:/@*-]+(?:\([^)]*\))?")


def _frontmatter(doc: Document) -> dict | None:
    parts = split_skill_md(doc.text[1:] if doc.text.startswith("\ufeff") else doc.text)
    if parts is None or not parts.closed:
        return None
    from skillsite.source.frontmatter import parse_frontmatter_text

    try:  # the project's reader: bounded aliases and nesting, lenient like the build
        data, _lines, _diags = parse_frontmatter_text(parts.frontmatter, doc.path)
    except Exception:  # FrontmatterError, and anything pyyaml raises on hostile input
        return None
    return data if isinstance(data, dict) else None


def _key_offset(doc: Document, key: str) -> int:
    match = re.search(rf"^{re.escape(key)}\s*:", doc.text, re.MULTILINE)
    return match.start() if match else 0


def _script(char: str) -> str:
    """The script of a letter, from its Unicode name ('LATIN', 'CYRILLIC', ...)."""
    try:
        return unicodedata.name(char).split(" ", 1)[0]
    except ValueError:
        return "UNKNOWN"


def confusable_reason(name: str) -> str | None:
    """Why a skill name is deceptive (mixed scripts, look-alike or invisible letters), or None."""
    if name.isascii():
        return None
    if any(unicodedata.category(c) in ("Cf", "Mn", "Zs") and c != " " for c in name):
        return "invisible or combining characters"
    if any(0xFF01 <= ord(c) <= 0xFF5E for c in name):
        return "fullwidth letters"
    if any(c in STYLED for c in name):
        return "styled letters (mathematical, circled or small capital forms)"
    scripts = {_script(c) for c in name if c.isalpha()}
    look_alikes = sorted({c for c in name if c in CONFUSABLES})
    if len(scripts) > 1:
        return f"letters from several scripts ({', '.join(sorted(scripts))})"
    if look_alikes and len(look_alikes) == len({c for c in name if c.isalpha()}):
        return f"only letters that look like Latin ones ({''.join(look_alikes)})"
    return None


def _tools(value: object) -> list[str]:
    if isinstance(value, str):
        return _TOOL.findall(value)
    if isinstance(value, list):
        return [t for item in value if isinstance(item, str) for t in _TOOL.findall(item)]
    return []


def _open(tool: str, names: frozenset[str]) -> bool:
    """Whether a tool grant allows every use of one of the ``names`` tools (or of every tool)."""
    if tool == "*":
        return True
    base, _, pattern = tool.partition("(")
    if base.lower() not in names:
        return False
    return not _ or pattern.rstrip(")").strip() in _OPEN_PATTERNS


#: A command pattern that is a command name (with ``-c``, ``-e`` or ``-m``) and a wildcard.
_ANY_ARGUMENTS = re.compile(r"(?:\S*/)?(?P<command>[\w.-]+)(?:\s+-(?:c|e|m|command|encodedcommand))?\s*(?::\s*\*|\s+\*|\*)",
                            re.IGNORECASE)


def _runs_anything(tool: str) -> bool:
    """Whether a shell grant lets a shell, an interpreter or a wrapper take any arguments
    (``Bash(sudo:*)``, ``Bash(python3 *)``, ``Bash(sh -c:*)``): then every command is allowed.
    ``Bash(python scripts/check.py:*)`` names what runs, and is not."""
    base, has_pattern, pattern = tool.partition("(")
    grant = _ANY_ARGUMENTS.fullmatch(pattern.rstrip(")").strip()) if has_pattern else None
    return grant is not None and base.lower() in _SHELL_TOOLS and grant.group("command").lower() in _RUNS_ANYTHING


def check_meta(doc: Document, folder_name: str) -> Iterator[Hit]:
    """SK606, SK660 and SK661 for a SKILL.md (and the folder holding it)."""
    data = _frontmatter(doc)
    name = data.get("name") if data else None
    if isinstance(name, str):
        reason = confusable_reason(name)
        if reason:
            offset = _key_offset(doc, "name")
            yield Hit("SK606", offset, offset + 4, f": {name!r} has {reason}", folded=False)
    folder_reason = confusable_reason(folder_name)
    if folder_reason and folder_name != name:
        yield Hit("SK606", 0, 0, f": folder {folder_name!r} has {folder_reason}", folded=False)
    if not data:
        return
    for key in ("allowed-tools", "allowed_tools", "allowedTools"):
        if key not in data:
            continue
        offset = _key_offset(doc, key)
        tools = _tools(data[key])
        shell = [t for t in tools if _open(t, _SHELL_TOOLS) or _runs_anything(t)]
        write = [t for t in tools if _open(t, _WRITE_TOOLS)]
        if shell:
            yield Hit("SK660", offset, offset + len(key), f": {shell[0]}", folded=False)
        if write:
            yield Hit("SK661", offset, offset + len(key), f": {', '.join(write)}", folded=False)
