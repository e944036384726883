"""Tool authorisation: which tools a skill needs, and what an agent session may run.

A skill's ``allowed-tools`` are patterns such as ``Read``, ``Bash(git:*)`` or
``Bash(npm run *)``; :func:`tool_matches` says whether a tool request is covered by one.
:class:`SkillSession` allows what the active skills allow, plus what was approved at run
time, and applies a policy to everything else.
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Iterable, Protocol

from skillsite.agent.entry import ManifestEntry
from skillsite.agent.results import SkillContent, ToolCheck

POLICIES = ("strict", "approval", "permissive")
_SHELL_OPERATORS = (";", "&", "|", "`", "$(", ">", "<", "\n", "\r")


def split_tool(spec: str) -> tuple[str, str | None]:
    """``"Bash(git status)"`` -> ``("Bash", "git status")``; ``"Read"`` -> ``("Read", None)``."""
    spec = spec.strip()
    if spec.endswith(")") and "(" in spec:
        name, _, args = spec[:-1].partition("(")
        return name.strip(), " ".join(args.split())
    return spec, None


def tool_matches(pattern: str, request: str) -> bool:
    """Whether a tool ``request`` is covered by an allowed-tools ``pattern``.

    The rule:
    - Names compare exactly (case-sensitive).  A bare pattern (``Read``, ``Bash``) or one
      with ``(*)`` allows every use of that tool.
    - ``Name(prefix:*)`` allows a request whose argument is ``prefix`` or starts with
      ``prefix`` followed by a space, whole words only: ``Bash(git:*)`` allows
      ``Bash(git status)`` and ``Bash(git)``, never ``Bash(gitk)``.
    - ``Name(glob)`` with ``*`` elsewhere matches the argument with fnmatch rules;
      ``Name(text)`` without ``*`` matches that exact argument.
    - Whitespace in arguments is collapsed before comparing.  A request whose argument
      contains a shell operator (``; & | ` $( > <`` or a newline) never matches a
      pattern with an argument, so ``Bash(git:*)`` cannot approve ``git log; rm -rf ~``.
    """
    p_name, p_args = split_tool(pattern)
    r_name, r_args = split_tool(request)
    if p_name != r_name:
        return False
    if p_args is None or p_args == "*":
        return True
    if r_args is None or any(op in r_args for op in _SHELL_OPERATORS):
        return False
    if p_args.endswith(":*"):
        prefix = p_args[:-2].rstrip()
        return r_args == prefix or r_args.startswith(prefix + " ")
    if "*" in p_args:
        return fnmatch.fnmatchcase(r_args, p_args)
    return r_args == p_args


def tool_check(entry: ManifestEntry, available_tools: Iterable[str]) -> ToolCheck:
    """Which tools a skill's manifest entry needs that ``available_tools`` lacks.

    Required: the skill's ``tools`` marked required, plus the tool names of its
    ``allowed-tools`` (``Bash(git:*)`` needs ``Bash``); optional: the other ``tools``.  A tool
    is available when ``available_tools`` names it, bare or with arguments.
    """
    have = {split_tool(t)[0] for t in available_tools}
    required = list(dict.fromkeys([t.name for t in entry.tools if t.required] +
                                  [split_tool(a)[0] for a in entry.allowed_tools]))
    optional = [t.name for t in entry.tools if not t.required and t.name not in required]
    return ToolCheck(entry.id, tuple(required), tuple(optional),
                     tuple(t for t in required + optional if t in have),
                     tuple(t for t in required if t not in have),
                     tuple(t for t in optional if t not in have))


class SkillLoader(Protocol):
    """What a session activates skills from: :class:`skillsite.loader.Catalog`, or any object
    that loads a verified skill by id or name."""

    def load(self, id_or_name: str) -> SkillContent: ...


@dataclass(frozen=True)
class Decision:
    """The answer to ``SkillSession.authorize``: outcome is allowed, denied or needs-approval."""

    tool: str
    outcome: str
    reason: str

    @property
    def allowed(self) -> bool:
        return self.outcome == "allowed"


class SkillSession:
    """Tool authorisation for an agent session that activates skills from a catalog.

    Activating a skill adds its ``allowed-tools`` to the session's allowed set.
    ``authorize(tool)`` checks, in order: tools denied at run time (denied, whatever the
    policy), tools approved at run time (allowed), the active skills' allowed tools
    (allowed), then the policy for anything else: ``strict`` denies, ``approval`` answers
    needs-approval, ``permissive`` allows.  See :func:`tool_matches` for the pattern rule.
    """

    def __init__(self, catalog: SkillLoader, policy: str = "strict") -> None:
        if policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {policy!r}")
        self.catalog = catalog
        self.policy = policy
        self._active: dict[str, tuple[str, ...]] = {}
        self._approved: list[str] = []
        self._denied: list[str] = []

    @property
    def active(self) -> tuple[str, ...]:
        return tuple(self._active)

    @property
    def allowed_tools(self) -> tuple[str, ...]:
        """The union of the active skills' allowed tools, in activation order."""
        return tuple(dict.fromkeys(t for tools in self._active.values() for t in tools))

    def activate(self, id_or_name: str) -> SkillContent:
        """Load (and verify) a skill and add its allowed tools to the session."""
        content = self.catalog.load(id_or_name)
        self._active[content.id] = content.allowed_tools
        return content

    def deactivate(self, skill_id: str) -> None:
        self._active.pop(skill_id, None)

    def approve(self, tool: str) -> None:
        """Allow a tool (or pattern) for the rest of the session."""
        self._denied = [t for t in self._denied if t != tool]
        self._approved.append(tool)

    def deny(self, tool: str) -> None:
        """Deny a tool (or pattern) for the rest of the session, whatever else allows it."""
        self._approved = [t for t in self._approved if t != tool]
        self._denied.append(tool)

    def authorize(self, tool: str) -> Decision:
        """Decide whether the agent may use ``tool`` now (e.g. ``"Read"``, ``"Bash(git status)"``)."""
        for pattern in self._denied:
            if tool_matches(pattern, tool):
                return Decision(tool, "denied", f"denied at run time ({pattern})")
        for pattern in self._approved:
            if tool_matches(pattern, tool):
                return Decision(tool, "allowed", f"approved at run time ({pattern})")
        for skill_id, patterns in self._active.items():
            for pattern in patterns:
                if tool_matches(pattern, tool):
                    return Decision(tool, "allowed", f"allowed by skill {skill_id} ({pattern})")
        return self._by_policy(tool)

    def _by_policy(self, tool: str) -> Decision:
        """The policy's answer for a tool nothing else allows or denies."""
        scope = (f"not in the allowed-tools of the active skills ({', '.join(self._active)})"
                 if self._active else "no active skill allows it")
        if self.policy == "permissive":
            return Decision(tool, "allowed", f"{scope}; allowed by the permissive policy")
        if self.policy == "approval":
            return Decision(tool, "needs-approval", f"{scope}; the approval policy asks the user")
        return Decision(tool, "denied", f"{scope}; denied by the strict policy")
