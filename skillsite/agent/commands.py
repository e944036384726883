"""Slash commands: the ``/command`` each skill answers to (standard library only).

The build gives every skill a unique command (written into ``skills.json``); the loader
turns a typed command line back into the skill and its task.
"""
from __future__ import annotations

import difflib
import functools
import re
from types import MappingProxyType
from typing import Iterable, Mapping, Sequence

from skillsite.agent.prompt_xml import xml_allowed

_NOT_ALNUM = re.compile(r"[\W_]+")
_COMMAND_LINE = re.compile(r"/?(\S*)\s*(.*)", re.S)
FALLBACK_SEGMENT = "skill"


@functools.lru_cache(maxsize=None)
def command_name(skill_id: str) -> str:
    """A skill id as a command: each ``/``-separated segment lower-cased, every run of
    characters other than letters and digits made one ``_``, trimmed
    (``release-manager/version-bump`` -> ``release_manager/version_bump``).  Each id's is worked
    out once per process: ``serve`` assigns every skill its command at every build."""
    segments = [_NOT_ALNUM.sub("_", segment.lower()).strip("_") for segment in skill_id.split("/")]
    return "/".join(segment or FALLBACK_SEGMENT for segment in segments)


def assign_commands(skills: Iterable[tuple[str, int]]) -> Mapping[str, tuple[str, str | None]]:
    """Unique commands for ``(id, priority)`` pairs: ``id -> (command, holder)``.

    On a clash the skill with the higher priority, then the smaller id, keeps the command;
    each other one gets the first free numbered form (``name_2``, ``name_3``...) and
    ``holder`` names the id that kept it (None for a skill that got its own command).
    The assignment depends on the pairs alone, in any order: the last one made is taken again
    for the same pairs (the catalog check and publishing both ask, and ``serve`` asks at every
    build), so it is read-only.
    """
    return _assigned(frozenset(skills))


@functools.lru_cache(maxsize=1)
def _assigned(skills: frozenset[tuple[str, int]]) -> Mapping[str, tuple[str, str | None]]:
    """:func:`assign_commands` of a set of pairs."""
    ranked = sorted(skills, key=lambda pair: (-pair[1], pair[0]))
    wanted = {skill_id: command_name(skill_id) for skill_id, _ in ranked}
    natural = set(wanted.values())
    taken: dict[str, str] = {}
    assigned: dict[str, tuple[str, str | None]] = {}
    for skill_id, _ in ranked:
        command = wanted[skill_id]
        if command not in taken:
            taken[command] = skill_id
            assigned[skill_id] = (command, None)
    tried: dict[str, int] = {}  # each command -> the number its next clash starts from (those below are taken)
    for skill_id, _ in ranked:
        if skill_id in assigned:
            continue
        command = wanted[skill_id]
        number = tried.get(command, 2)
        while f"{command}_{number}" in taken or f"{command}_{number}" in natural:
            number += 1
        tried[command] = number + 1
        taken[f"{command}_{number}"] = skill_id
        assigned[skill_id] = (f"{command}_{number}", taken[command])
    return MappingProxyType(assigned)


def split_command_line(line: str) -> tuple[str, str]:
    """``"/release_manager/changelog since v1.2"`` -> ``("release_manager/changelog", "since v1.2")``."""
    match = _COMMAND_LINE.match(line.strip())
    return (match.group(1), match.group(2).strip()) if match else ("", "")


def close_commands(command: str, commands: Sequence[str], limit: int = 3) -> list[str]:
    """The known commands most like a mistyped one."""
    return difflib.get_close_matches(command, list(commands), n=limit, cutoff=0.6)


def command_message(body: str, task: str) -> str:
    """What a slash command sends the model: the skill's instructions, then the task if any,
    control characters as U+FFFD, as in the ``<skill_content>`` a load gives."""
    text = body.strip("\n")
    return xml_allowed(f"{text}\n\nTask: {task}" if task else text)
