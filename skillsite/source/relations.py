"""What skills of one catalog say about each other: slash commands (unique in a catalog) and
``conflicts`` (names or ids of skills that must not run beside them).

The catalog-wide check reports clashes and unknown names; the build resolves both the same way
for ``skills.json``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import AbstractSet, Mapping, Sequence

from skillsite.agent.commands import assign_commands, command_name
from skillsite.diagnostics import Diagnostic, make
from skillsite.models import SourceFile


@dataclass(frozen=True, slots=True)
class Member:
    """What the catalog-wide relation checks need of a kept skill."""

    source: SourceFile
    name: str
    priority: int
    conflicts: tuple[tuple[str, int, int], ...]   # each declared name or id, with its line and column
    user_invocable: bool = True                    # false: it answers to no slash command, takes none


def resolve_conflicts(declared: Mapping[str, Sequence[str]], names: Mapping[str, str]) -> dict[str, list[str]]:
    """Each skill's declared conflicts as sorted ids: an id stands for itself, a name for every
    skill of that name; unknown names and the skill itself are dropped."""
    ids_by_name: dict[str, list[str]] = {}
    for skill_id, name in names.items():
        ids_by_name.setdefault(name, []).append(skill_id)
    resolved = {}
    for skill_id, items in declared.items():
        found = {other for item in items for other in ([item] if item in names else ids_by_name.get(item, []))}
        resolved[skill_id] = sorted(found - {skill_id})
    return resolved


def unknown_conflict_diagnostics(members: Sequence[Member], elsewhere: AbstractSet[str] = frozenset()
                                 ) -> list[tuple[int, Diagnostic]]:
    """SK215 for every declared conflict that names no skill of the catalog: ``(member index,
    diagnostic)``; ``elsewhere``: names of skills beside a lone skill validated on its own, which
    its conflicts may name (as its dependencies may)."""
    known = {m.source.id for m in members} | {m.name for m in members} | set(elsewhere)
    return [(index, make("SK215", f"conflicts names '{item}', which is no skill of this catalog (neither an id "
                                  "nor a name)", member.source.display_path, line, col))
            for index, member in enumerate(members) for item, line, col in member.conflicts if item not in known]


def command_diagnostics(members: Sequence[Member]) -> list[tuple[int, Diagnostic]]:
    """SK217 for every skill whose slash command another skill keeps (higher priority, then smaller id);
    a skill that says ``user-invocable: false`` has no command, so it keeps none from another."""
    assigned = assign_commands((m.source.id, m.priority) for m in members if m.user_invocable)
    found = []
    for index, member in enumerate(members):
        command, holder = assigned.get(member.source.id, ("", None))
        if holder is not None:
            found.append((index, make("SK217", f"slash command '/{command_name(member.source.id)}' belongs to skill "
                                               f"'{holder}'; this skill answers to '/{command}'",
                                      member.source.display_path)))
    return found


def relation_diagnostics(members: Sequence[Member], elsewhere: AbstractSet[str] = frozenset()
                         ) -> list[tuple[int, Diagnostic]]:
    """Every catalog-wide relation diagnostic, by member index (``elsewhere``: see
    :func:`unknown_conflict_diagnostics`)."""
    return [*unknown_conflict_diagnostics(members, elsewhere), *command_diagnostics(members)]
