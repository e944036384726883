"""Over-broad permissions and destructive commands: allowed-tools that pre-approve any shell
command (SK660) or any file write (SK661), agents run without permission checks (SK662), and
commands that destroy the machine or its data (SK663)."""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Iterator

from skillsite.audit.declare import COMMANDS, NEVER, Rule, SkillMd, check, command, pattern, rule
from skillsite.audit.hit import Hit
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
                            "npx", "bunx", "uvx", "pipx", "watch", "flock", "setsid", "stdbuf", "strace", "ltrace",
                            "taskset", "time", "ionice", "chroot", "script", "parallel", "unshare", "nsenter",
                            "expect", "tclsh", "lua", "rscript"})
#: Commands that run any program through one of their options (GTFOBins lists them): a grant of
#: any arguments allows everything too.  Each with how.
_RUNS_THROUGH = {"find": "-exec", "awk": "system()", "gawk": "system()", "mawk": "system()", "nawk": "system()",
                 "sed": "its e command", "tar": "--to-command", "rsync": "-e", "ssh": "-o ProxyCommand",
                 "vim": "-c '!...'", "vi": "-c '!...'", "nvim": "-c '!...'", "gdb": "-ex '!...'",
                 "make": "--eval", "socat": "exec:"}
#: Of those, the ones whose option may come after any other argument: a grant of a longer prefix
#: (``Bash(find . -name:*)``) allows it too.
_OPTION_ANYWHERE = frozenset({"find", "tar", "rsync", "sed", "awk", "gawk", "mawk", "nawk"})
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish", "cmd", "pwsh", "powershell", "busybox"})
_INTERPRETERS = frozenset({"python", "python2", "python3", "node", "perl", "ruby", "php", "deno", "osascript",
                           "npx", "bunx", "uvx", "pipx", "expect", "tclsh", "lua", "rscript"})
#: A tool an allowed-tools value grants: ``*``, or a name with its ``(...)`` if it has one.
_TOOL = re.compile(r"\*|[\w.:/@*-]+(?:\([^)]*\))?")
#: ... after a value's last ``)``, where no ``(`` closes: a name alone.
_TOOL_NAME = re.compile(r"\*|[\w.:/@*-]+")
#: The white space and wildcard that end a command pattern (``:*``, `` *``), the white space read
#: once: read also as the ``\s+`` of ``\s+\*``, a run of it was read again from each of its places.
_WILDCARD = r"\s*(?::\s*\*|\*)"
#: A command pattern that is a command name (with ``-c``, ``-e`` or ``-m``) and a wildcard.
_ANY_ARGUMENTS = re.compile(r"(?:\S*/)?(?P<command>[\w.-]+)(?:\s+-(?:c|e|m|command|encodedcommand))?" + _WILDCARD,
                            re.IGNORECASE)
#: A command pattern that is a command with some arguments, then a wildcard (the pattern's only ``*``,
#: its last character: the ``:`` or white space before it are arguments).
_PREFIX_THEN_ANY = re.compile(r"(?:\S*/)?(?P<command>[\w.-]+)\s[^*]*\*", re.IGNORECASE)
#: ... whose arguments are options and numbers only: the program it runs is not named yet
#: (``Bash(timeout 60:*)``, ``Bash(watch -n 1:*)``, ``Bash(ssh -T:*)``).
_OPTIONS_THEN_ANY = re.compile(r"(?:\S*/)?(?P<command>[\w.-]+)(?:\s+(?:-[\w-]+(?:[=:][^\s*]*)?|\d+[smhd]?))+"
                               + _WILDCARD, re.IGNORECASE)
#: Each form of command pattern that lets any program run, with the commands it does so for.
_OPEN_FORMS = ((_ANY_ARGUMENTS, _RUNS_ANYTHING | frozenset(_RUNS_THROUGH)), (_PREFIX_THEN_ANY, _OPTION_ANYWHERE),
               (_OPTIONS_THEN_ANY, _RUNS_ANYTHING | frozenset(_RUNS_THROUGH)))
_GRANT_KEYS = ("allowed-tools", "allowed_tools", "allowedTools")


def _tools(value: object) -> list[str]:
    """The tools an allowed-tools value (a string or a list of them) grants, each as written."""
    if isinstance(value, str):
        return _tool_words(value)
    if isinstance(value, list):
        return [t for item in value if isinstance(item, str) for t in _tool_words(item)]
    return []


def _tool_words(value: str) -> list[str]:
    """What :data:`_TOOL` finds in ``value``, a name's ``(...)`` looked for only before the last ``)``:
    after it none closes, and the ``(`` after each name there was read to the end (``a(a(a(...``:
    quadratic)."""
    closed = value.rfind(")") + 1
    return _TOOL.findall(value, 0, closed) + _TOOL_NAME.findall(value, closed)


def _open(tool: str, names: frozenset[str]) -> bool:
    """Whether a tool grant allows every use of one of the ``names`` tools (or of every tool)."""
    if tool == "*":
        return True
    base, has_pattern, pattern = tool.partition("(")
    if base.lower() not in names:
        return False
    return not has_pattern or pattern.rstrip(")").strip() in _OPEN_PATTERNS


def _runs_anything(tool: str) -> bool:
    """Whether a shell grant lets a shell, an interpreter or a wrapper take any arguments
    (``Bash(sudo:*)``, ``Bash(python3 *)``, ``Bash(sh -c:*)``), or a command that runs programs
    through an option (``Bash(find:*)``, ``Bash(find . -name:*)``): then every command is allowed.
    ``Bash(python scripts/check.py:*)`` names what runs, and is not."""
    return _open_command(tool) is not None


def _open_command(tool: str) -> str | None:
    """The command that lets a shell grant run any program (see :func:`_runs_anything`), or None."""
    base, has_pattern, pattern = tool.partition("(")
    if not has_pattern or base.lower() not in _SHELL_TOOLS:
        return None
    granted = pattern.rstrip(")").strip()
    for form, commands in _OPEN_FORMS:
        grant = form.fullmatch(granted)
        if grant is not None and grant.group("command").lower() in commands:
            return grant.group("command").lower()
    return None


def _grants(skill: SkillMd) -> Iterator[tuple[str, int, list[str]]]:
    """(key, its offset, the tools it grants) for each allowed-tools key of the frontmatter."""
    for key in _GRANT_KEYS:
        if skill.frontmatter and key in skill.frontmatter:
            yield key, skill.key_offset(key), _tools(skill.frontmatter[key])


UNRESTRICTED_SHELL = Rule(
    "SK660", "permissions", "medium", "allowed-tools lets any command run",
    "`Bash` without a command pattern (or `Bash(*)`, or `*` for every tool) pre-approves every shell "
    "command, and so does a pattern that starts with a shell, an interpreter or a wrapper "
    "(`Bash(sudo:*)`, `Bash(python3 *)`, `Bash(env:*)`) or a command that runs programs through an option "
    "(`Bash(find:*)`: -exec); list the commands the skill needs, e.g. "
    "`Bash(git status:*)`.", NEVER)


@check(UNRESTRICTED_SHELL, scope="skill")
def unrestricted_shell(skill: SkillMd) -> Iterator[Hit]:
    """The first grant of each key that allows every shell command."""
    for key, offset, tools in _grants(skill):
        shell = [t for t in tools if _open(t, _SHELL_TOOLS) or _runs_anything(t)]
        if shell:
            yield Hit("SK660", offset, offset + len(key), f": {shell[0]}{_why_any(shell[0])}", folded=False)


def _why_any(tool: str) -> str:
    """Why a grant that names a command lets any command run (nothing for a shell grant with no
    pattern: that says it already)."""
    command = _open_command(tool)
    if command is None:
        return " (every shell command)"
    if command in _RUNS_THROUGH:
        return f" ({command} runs any program through {_RUNS_THROUGH[command]})"
    kind = "an interpreter" if command in _INTERPRETERS else "a shell" if command in _SHELLS else "a wrapper"
    return f" ({command} is {kind}: given any arguments, it runs any program)"


UNRESTRICTED_WRITES = Rule(
    "SK661", "permissions", "low", "allowed-tools grants unrestricted file writes",
    "`Write` or `Edit` without a path pattern pre-approves writing anywhere.", NEVER)


@check(UNRESTRICTED_WRITES, scope="skill")
def unrestricted_writes(skill: SkillMd) -> Iterator[Hit]:
    """The grants of each key that allow writing anywhere."""
    for key, offset, tools in _grants(skill):
        write = [t for t in tools if _open(t, _WRITE_TOOLS)]
        if write:
            yield Hit("SK661", offset, offset + len(key), f": {', '.join(write)}", folded=False)


#: What parts a setting's name from its value (``: "never"``, `` = never``, ``" never``): a quote, white
#: space around one ``=``, ``:`` or space, a quote.  Written ``\s*[=: ]\s*``, a run of spaces was
#: read from each of its places, the space between name and value tried at each (quadratic).
_SET_TO = r"[\"']?(?:\s*[=:]|[^\S ]* )\s*[\"']?"


@rule("SK662", "permissions", "high", "runs an agent with permission checks disabled",
      "--dangerously-skip-permissions, --yolo, an approval policy of never or a full-access sandbox "
      "let every later command run without the user's consent.", demotion=COMMANDS, patterns=(pattern(
          r"--dangerously-skip-permissions\b|--dangerously-bypass-approvals-and-sandbox\b|--yolo\b|"
          r"--allow-dangerously-skip-permissions\b|--(?:approval-mode|approval_mode)[= ]\s*[\"']?yolo\b|"
          r"\b(?:approval[_-]policy|ask[_-]for[_-]approval)" + _SET_TO + r"never\b|"
          r"\bsandbox[_-]mode" + _SET_TO + r"danger-full-access\b|--sandbox\s+danger-full-access\b|"
          r"\b(?:permission[_-]?mode|defaultMode)" + _SET_TO + r"bypassPermissions\b|"
          r"--allow-all-tools\b|--trust-all-tools\b|(?<![\w-])--allow-all(?![\w-])"),))
def unchecked_agent(doc: Document, match: re.Match[str], hit: Hit) -> Hit:
    """Names the flag or setting."""
    return replace(hit, detail=f": {match.group().strip()}")


#: rm's options before the path it removes (``-rf``, ``--force``).  Read once: which of them makes it
#: recursive is the condition's question (:func:`_recursive`), not a second run of options in the
#: pattern: with two, a line of thousands of options (``rm -r -r ...``) was read again from each.
_RM_OPTIONS = r"(?:-[a-z]+\s+|--[a-z-]+\s+)*"
_RECURSIVE = re.compile(r"-[a-z]*r[a-z]*|--recursive", re.IGNORECASE)


#: Remove-Item's options (``-Force``, ``-Path x``'s ``-Path``): words that start with a dash.
_PS_OPTIONS = r"(?:-\S+\s+)*"
#: ... up to the first -Recurse among them, which the pattern reads next, then the rest of them.  Read
#: as options then -Recurse, the options after each -Recurse among them were read again from each
#: where no path followed them (``Remove-Item -a -Recurse -a -Recurse ...``: quadratic).  The same
#: matches: no option is a path, so either way the path is the first word after the last option.
_BEFORE_RECURSE = r"(?:(?!-Recurse\s)-\S+\s+)*"


def _shown(doc: Document, match: re.Match[str], hit: Hit) -> Hit:
    """The hit, showing the command."""
    return replace(hit, detail=f": {match.group().strip()[:60]}")


def _recursive(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
    """rm of the root or a home folder with an option that removes recursively (``-r``, ``-Rf``,
    ``--recursive``)."""
    options = match.group().split()[1:]
    return _shown(doc, match, hit) if any(_RECURSIVE.fullmatch(word) for word in options) else None


@rule("SK663", "permissions", "high", "destructive command",
      "rm -rf of / or ~, mkfs, dd onto a device or a fork bomb destroy the user's machine or data.",
      demotion=COMMANDS, patterns=(
          pattern(r"\brm\s+" + _RM_OPTIONS + r"[\"']?(?:/\*?|~/?\*?|\$\{?HOME\}?/?\*?|"
                  r"/(?:usr|etc|bin|boot|var|home|lib|System|Users)/?\*?)[\"']?"
                  r"(?=\s*(?:(?m:$)|[;&|)#`]|--no-preserve-root))",
                  hopeless=(r"\brm\s+", _RM_OPTIONS), condition=_recursive),
          pattern(r"\brm\s+(?:-\S+\s+)*--no-preserve-root\b", hopeless=(r"\brm\s+", r"(?:-\S+\s+)*")),
          pattern(r"\bmkfs(?:\.\w+)?\s+(?:-\S+\s+)*/dev/\w+", hopeless=(r"\bmkfs(?:\.\w+)?\s+", r"(?:-\S+\s+)*")),
          command(r"\bdd\s+", r"[^\n]*",
                  r"\bof=/dev/(?:sd[a-z]|nvme\d|hd[a-z]|disk\d|mmcblk\d|xvd[a-z]|vd[a-z]|rdisk\d)"),
          pattern(r"(?<![<>2&])>\s*/dev/(?:sd[a-z]|nvme\d+n\d+|hd[a-z]|disk\d)\b"),
          pattern(r":\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:"),
          pattern(r"\b(?:chmod|chown)\s+(?:-\S+\s+)*-R\s+\S+\s+/(?=\s*(?:(?m:$)|[;&|]))",
                  hopeless=(r"\b(?:chmod|chown)\s+", r"(?:-\S+\s+)*")),
          command(r"\bshred\s+", r"[^\n]*", r"/dev/(?:sd[a-z]|nvme)"),
          pattern(r"\bformat\s+c:|\b(?:rd|rmdir)\s+/s\s+/q\s+[a-z]:\\(?=\s|$)|\bdel\s+/[fsq]\s+/[fsq]\s+(?:/[fsq]\s+)?"
                  r"[a-z]:\\"),
          pattern(r"\bRemove-Item\s+" + _PS_OPTIONS + r"(?:[\"']?(?:C:\\|~|\$HOME|\$env:USERPROFILE|/)[\"']?)\s+"
                  + _PS_OPTIONS + r"-Recurse\b|\bRemove-Item\s+" + _BEFORE_RECURSE
                  + r"-Recurse\s+" + _PS_OPTIONS + r"[\"']?(?:C:\\|~|\$HOME|/)[\"']?(?=\s|$)",
                  # both branches start with the run passed over
                  hopeless=(r"\bRemove-Item\s+", _PS_OPTIONS)),
      ))
def destructive(doc: Document, match: re.Match[str], hit: Hit) -> Hit:
    """Shows the command."""
    return _shown(doc, match, hit)
