"""Skills that need other skills: what each declares, and the catalog-wide resolution.

A skill declares ``metadata.depends`` (a space-separated string: the specification keeps extra
data in ``metadata``) or, outside the ``spec`` profile, a top-level ``depends`` (a list, or a
space-separated string).  Each item is ``name`` or ``name@range`` (npm ranges); a malformed
item is SK226 at its line.  Over the whole catalog, :func:`resolve_dependencies` turns each
item into the id it names (an id stands for itself, else the one skill of that name: SK223; a
name only copies of one skill share stands for the copy standing for them, :func:`copy_aliases`),
picks the highest release its range allows (SK224) and refuses cycles (SK225).

The releases each range is matched against are one argument, skill id -> canonical versions:
:func:`current_releases` gives each skill its current version (the build can give the whole
history instead).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import AbstractSet, Any, Iterable, Iterator, Mapping, NamedTuple, Sequence

from skillsite.agent.entry import DependencyRecord
from skillsite.agent.semver import RangeError, max_satisfying, parse_version, split_dependency
from skillsite.agent.spellings import spelt_alike
from skillsite.diagnostics import Diagnostic, make

#: A declared item as written, with its line and column in SKILL.md.
Declared = tuple[str, int, int]

#: What a dependency's name may look like: a skill name or id, a folder path, '@' and spaces and all
#: (``owner@repo/x``, ``team tools/y``): no empty segment, none starting or ending with a space.
_NAME = re.compile(r"[^\s/](?:[^/]*[^\s/])?(?:/[^\s/](?:[^/]*[^\s/])?)*")
#: Ranges that ask for nothing in particular: a skill without releases still satisfies them.
_ANY = frozenset({"*", "", "x", "X"})


# ---------------------------------------------------------------- what a skill declares

def _split_items(text: str) -> list[str]:
    return text.split()


def declared_dependencies(fm: Mapping[str, Any], key_lines: Mapping[str, tuple[int, int]]) -> tuple[Declared, ...]:
    """Every item of a skill's top-level ``depends`` and ``metadata.depends``, with where it is."""
    found: list[Declared] = []
    top = fm.get("depends")
    where = key_lines.get("depends", (1, 1))
    if isinstance(top, str):
        found += [(item, *where) for item in _split_items(top)]
    elif isinstance(top, list):
        found += [(item.strip(), *key_lines.get(f"depends[{index}]", where))
                  for index, item in enumerate(top) if isinstance(item, str) and item.strip()]
    meta = fm.get("metadata")
    if isinstance(meta, dict) and isinstance(meta.get("depends"), str):
        where = key_lines.get("metadata.depends", (1, 1))
        found += [(item, *where) for item in _split_items(meta["depends"])]
    return tuple(found)


def parse_dependency(item: str) -> tuple[str, str]:
    """``(name, range)`` of one item (range ``*`` when none is written); ValueError says what is wrong."""
    try:
        name, range_text = split_dependency(item)
    except RangeError as exc:
        raise ValueError(f"'{item}' has a range that does not parse: {exc} (an id holding '@' is written with a "
                         f"range after it: '{item}@*')") from None
    if not _NAME.fullmatch(name):
        raise ValueError(f"dependency '{item}' is not `name` or `name@range`: '{name}' is no skill name or id")
    return name, range_text.strip() or "*"


def syntax_diagnostics(declared: Iterable[Declared], path: str) -> list[Diagnostic]:
    """SK226 for every declared item that is not ``name`` or ``name@range``."""
    found = []
    for item, line, col in declared:
        try:
            parse_dependency(item)
        except ValueError as exc:
            found.append(make("SK226", f"depends: {exc}", path, line, col))
    return found


# ---------------------------------------------------------------- the catalog's releases

def current_releases(versions: Mapping[str, str | None]) -> dict[str, list[str]]:
    """Each skill's releases when only its files as they are count: its current version
    (canonical), or none when it has no valid version."""
    releases: dict[str, list[str]] = {}
    for skill_id, text in versions.items():
        version = parse_version(text) if text else None
        releases[skill_id] = [str(version)] if version is not None else []
    return releases


# ---------------------------------------------------------------- resolution over the catalog

@dataclass(frozen=True, slots=True)
class Dependent:
    """What resolving needs of a skill: its id, name, where diagnostics go, what it declares."""

    id: str
    name: str
    path: str                        # SKILL.md as diagnostics show it
    depends: tuple[Declared, ...]


@dataclass(frozen=True)
class Resolution:
    """Each skill's resolved dependencies (in declared order, by id) and the problems found,
    each by the index of the dependent it belongs to."""

    dependencies: dict[str, list[DependencyRecord]]
    diagnostics: list[tuple[int, Diagnostic]]


@dataclass(frozen=True)
class _Edge:
    target: str
    line: int
    col: int


#: A name that only copies of one skill share -> the id of the copy it stands for (:func:`copy_aliases`).
Aliases = Mapping[str, str]
NO_ALIASES: Aliases = MappingProxyType({})


def copy_aliases(named: Iterable[tuple[str, str]], groups: Sequence[tuple[str, ...]]) -> dict[str, str]:
    """Each name that several of ``named`` (id, name) hold, every one of them a member of one group
    of copies, -> that group's first member (``groups``: each in the order that puts the member
    standing for it first).  The copies are one skill shown once, so a dependency on their name
    means that one; a name another skill holds too stays shared (SK223)."""
    group_of = {skill_id: number for number, group in enumerate(groups) for skill_id in group}
    holders: dict[str, list[str]] = {}
    for skill_id, name in named:
        holders.setdefault(name, []).append(skill_id)
    aliases = {}
    for name, ids in holders.items():
        numbers = {group_of.get(skill_id) for skill_id in ids}
        if len(ids) > 1 and len(numbers) == 1 and None not in numbers:
            aliases[name] = groups[numbers.pop()][0]
    return aliases


def _target(name: str, ids: Mapping[str, int], by_name: Mapping[str, list[str]], aliases: Aliases = NO_ALIASES
            ) -> str | list[str]:
    """The id a dependency's name stands for, or the candidates when there is not exactly one: an
    id itself, else the copy an alias names (none when that copy is not among ``ids``: left out),
    else the one skill of that name, else the one id that is the name in another Unicode spelling."""
    if name in ids:
        return name
    if name in aliases:
        return aliases[name] if aliases[name] in ids else []
    found = by_name.get(name) or spelt_alike(name, ids)
    return found[0] if len(found) == 1 else found


def _resolved(versions: Sequence[str], range_text: str) -> tuple[bool, str | None]:
    """Whether a release satisfies the range, and the highest one that does (None: no release,
    and the range asks for nothing in particular)."""
    if not versions:
        return range_text in _ANY, None
    best = max_satisfying(versions, range_text)
    return best is not None, best


def _unresolved_message(dependent: Dependent, name: str, target: str, range_text: str,
                        versions: Sequence[str]) -> str:
    have = (f"its releases are {', '.join(versions)}" if versions
            else f"'{target}' has no release (no valid version)")
    return (f"skill '{dependent.id}' depends on '{name}' (skill '{target}') at range '{range_text}', "
            f"which no release satisfies: {have}")


def _unknown_message(dependent: Dependent, name: str, candidates: Sequence[str]) -> str:
    if candidates:
        return (f"skill '{dependent.id}' depends on '{name}', a name several skills share "
                f"({', '.join(sorted(candidates))}): name one of them by its id")
    several = " (an item names one skill: list several as items of their own)" if re.search(r"\s", name) else ""
    return (f"skill '{dependent.id}' depends on '{name}', which is no skill of this catalog (neither an id nor a "
            f"name){several}")


class _Item(NamedTuple):
    """A well-formed item a dependent declares, and what its name stands for (:func:`_target`)."""

    index: int                   # the dependent's
    dependent: Dependent
    item: str
    line: int
    col: int
    name: str
    range_text: str
    target: str | list[str]


def _declared_items(dependents: Sequence[Dependent], ids: Mapping[str, int], aliases: Aliases = NO_ALIASES
                    ) -> Iterator[_Item]:
    """Every item of every dependent (``ids``: each one's index by id; ``aliases``: see
    :func:`copy_aliases`), in order; a malformed item (SK226, reported with the skill) is passed over."""
    by_name: dict[str, list[str]] = {}
    for d in dependents:
        by_name.setdefault(d.name, []).append(d.id)
    for index, dependent in enumerate(dependents):
        for item, line, col in dependent.depends:
            try:
                name, range_text = parse_dependency(item)
            except ValueError:
                continue
            yield _Item(index, dependent, item, line, col, name, range_text, _target(name, ids, by_name, aliases))


def resolve_dependencies(dependents: Sequence[Dependent], releases: Mapping[str, Sequence[str]],
                         elsewhere: frozenset[str] = frozenset(), aliases: Aliases = NO_ALIASES) -> Resolution:
    """Every dependent's items resolved to ids and releases; SK223, SK224 and SK225 by dependent
    index.  Items that are malformed (SK226, reported with the skill) are passed over, and so
    are names of ``elsewhere`` that no skill here has: skills beside a single skill validated
    on its own, which this check cannot see.  ``aliases``: names copies share (:func:`copy_aliases`)."""
    ids = {d.id: index for index, d in enumerate(dependents)}
    resolved: dict[str, list[DependencyRecord]] = {d.id: [] for d in dependents}
    edges: dict[str, list[_Edge]] = {}
    diags: list[tuple[int, Diagnostic]] = []
    for index, dependent, item, line, col, name, range_text, target in _declared_items(dependents, ids, aliases):
        if target == [] and name in elsewhere:
            continue
        if isinstance(target, list):
            diags.append((index, make("SK223", _unknown_message(dependent, name, target), dependent.path, line, col)))
            continue
        edges.setdefault(dependent.id, []).append(_Edge(target, line, col))
        versions = list(releases.get(target, ()))
        ok, best = _resolved(versions, range_text)
        if not ok:
            diags.append((index, make("SK224", _unresolved_message(dependent, name, target, range_text, versions),
                                      dependent.path, line, col)))
            continue
        resolved[dependent.id].append(DependencyRecord(name, target, range_text, best))
    diags += _cycle_diagnostics(dependents, ids, edges)
    return Resolution(resolved, diags)


@dataclass(frozen=True, slots=True)
class Unmet:
    """A dependent that needs a skill missing from the catalog: its index, the first item that
    says so (as declared), when that item names a dependent that is itself unmet, its id, and when
    the item's name is an alias (:func:`copy_aliases`), the copy it stands for and whether every
    other copy of that name is missing too (then no other copy can be named instead)."""

    index: int
    item: str
    through: str | None = None
    copy: str | None = None
    every_copy: bool = False


def _down_the_chain(dependents: Sequence[Dependent], needed_by: Mapping[int, list[tuple[int, str, bool]]],
                    unmet: dict[int, Unmet], gone: AbstractSet[int] = frozenset()) -> list[Unmet]:
    """``unmet`` and (breadth first) the dependents that need one of them, down the chain (``needed_by``:
    who needs each dependent, by index: the needing one's index, item and whether its name is an
    alias), none of ``gone``; each once, in the dependents' order."""
    frontier = sorted(unmet)
    while frontier:
        following = []
        for left_out in frontier:
            for index, item, by_alias in needed_by.get(left_out, ()):
                if index not in unmet and index not in gone:
                    through = dependents[left_out].id
                    unmet[index] = Unmet(index, item, through, through if by_alias else None)
                    following.append(index)
        frontier = following
    return [unmet[index] for index in sorted(unmet)]


def left_out_message(skill_id: str, name: str, unmet: Unmet) -> str:
    """SK223's words for a skill that needs ``name``, left out of the catalog for its errors
    (``unmet.through`` None) or for needing a skill left out in turn.  When ``name`` is an alias,
    the copy it stands for (``unmet.copy``) is the one left out: another copy may be published,
    and naming that one by its id needs it instead; when every copy is left out, none can be."""
    why = "for its errors" if unmet.through is None else "for needing a skill left out"
    if unmet.copy is None:
        return (f"skill '{skill_id}' depends on '{name}', which is left out of this catalog {why}: "
                f"'{skill_id}' is left out too")
    said = (f"skill '{skill_id}' depends on '{name}', which stands for its copy '{unmet.copy}', left out of this "
            f"catalog {why}")
    if unmet.every_copy:
        return f"{said}, as is every other copy of '{name}': '{skill_id}' is left out too"
    return f"{said}: '{skill_id}' is left out too (name another copy by its id to need that one)"


def needing_left_out(dependents: Sequence[Dependent], gone: AbstractSet[int], elsewhere: frozenset[str] = frozenset(),
                     aliases: Aliases = NO_ALIASES) -> list[Unmet]:
    """The dependents, none of ``gone`` (indexes: skills left out), with an item naming no skill
    (nor one of ``elsewhere``) or resolved to one of ``gone`` (over every dependent, as
    :func:`resolve_dependencies` resolves it: an id stands for itself even when another skill has
    it as its name, an alias for its copy), each at its first such item; then, breadth first, those
    that need one of them, down the chain.  Each once, in the dependents' order."""
    ids = {d.id: index for index, d in enumerate(dependents)}
    needed_by: dict[int, list[tuple[int, str, bool]]] = {}
    first: dict[int, Unmet] = {}
    for index, _, item, _, _, name, _, target in _declared_items(dependents, ids, aliases):
        by_alias = isinstance(target, str) and target != name and name in aliases
        if isinstance(target, str):
            needed_by.setdefault(ids[target], []).append((index, item, by_alias))
        if index not in gone and (ids[target] in gone if isinstance(target, str)
                                  else target == [] and name not in elsewhere):
            first.setdefault(index, Unmet(index, item, copy=target if by_alias else None))
    return _with_every_copy(dependents, _down_the_chain(dependents, needed_by, first, gone), gone)


def _with_every_copy(dependents: Sequence[Dependent], unmet: list[Unmet], gone: AbstractSet[int]) -> list[Unmet]:
    """``unmet``, each that needs an alias's copy marked when every other holder of that name (the
    alias's other copies) is missing too: one of ``gone`` or unmet itself."""
    missing = {*gone, *(u.index for u in unmet)}
    holders: dict[str, list[int]] = {}
    for index, dependent in enumerate(dependents):
        holders.setdefault(dependent.name, []).append(index)
    return [replace(u, every_copy=all(
                i in missing for i in holders.get(parse_dependency(u.item)[0], ()) if dependents[i].id != u.copy))
            if u.copy is not None else u for u in unmet]


def needing_erring(dependents: Sequence[Dependent], erring: AbstractSet[int],
                   elsewhere: frozenset[str] = frozenset(), aliases: Aliases = NO_ALIASES
                   ) -> list[tuple[int, Diagnostic]]:
    """SK223 for each of ``dependents`` that needs one of ``erring`` (their indexes: skills with
    errors, which a build leaves out), then for each that needs one of those, down the chain, at
    the item that says so; by index.  What ``build --keep-going`` leaves out beside the skills
    with errors, said as the catalog is checked, so ``validate`` says it as well.  Each item needs
    the skill :func:`resolve_dependencies` resolved it to, among every dependent, erring or not: an
    id stands for itself, even when a standing skill has it as its name; a name of ``elsewhere``
    counts only when no dependent holds it; a name of ``aliases`` needs the copy it names, even
    if another copy stands for the group."""
    found = []
    for unmet in needing_left_out(dependents, erring, elsewhere, aliases):
        dependent = dependents[unmet.index]
        name, _ = parse_dependency(unmet.item)
        line, col = next(((line, col) for item, line, col in dependent.depends if item == unmet.item), (0, 0))
        found.append((unmet.index, make("SK223", left_out_message(dependent.id, name, unmet),
                                        dependent.path, line, col)))
    return found


# ---------------------------------------------------------------- cycles

def strongly_connected(nodes: Sequence[str], edges: Mapping[str, Sequence[_Edge]]) -> list[list[str]]:
    """The strongly connected components of the graph (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for root in nodes:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, child = work.pop()
            if child == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            targets = edges.get(node, ())
            if child < len(targets):
                work.append((node, child + 1))
                nxt = targets[child].target
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(component)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return components


def _cycle_through(start: str, members: set[str], edges: Mapping[str, Sequence[_Edge]]) -> list[_Edge]:
    """The shortest cycle from ``start`` back to it inside one component: its edges, in order."""
    came: dict[str, tuple[str, _Edge]] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for edge in edges.get(node, ()):
                if edge.target not in members or edge.target in came:
                    continue
                came[edge.target] = (node, edge)
                if edge.target == start:
                    path = []
                    at = start
                    while True:
                        before, step = came[at]
                        path.append(step)
                        at = before
                        if at == start:
                            return path[::-1]
                following.append(edge.target)
        frontier = following
    return []  # pragma: no cover - every member of a cyclic component is on a cycle


def _cycle_diagnostics(dependents: Sequence[Dependent], ids: Mapping[str, int],
                       edges: Mapping[str, Sequence[_Edge]]) -> list[tuple[int, Diagnostic]]:
    """SK225 once for each skill on a cycle, at the item that continues it, naming the whole
    cycle from that skill round to it again."""
    found = []
    # only a skill that depends on one can be on a cycle: the others are no start worth a search
    for component in strongly_connected([d.id for d in dependents if d.id in edges], edges):
        members = set(component)
        if len(component) == 1 and not any(e.target == component[0] for e in edges.get(component[0], ())):
            continue
        first = min(component)
        cycle = _cycle_through(first, members, edges)
        on_cycle = {cycle[i - 1].target if i else first: i for i in range(len(cycle))}
        for member in sorted(component):
            if member in on_cycle:
                at = on_cycle[member]
                steps = cycle[at:] + cycle[:at]
            else:
                steps = _cycle_through(member, members, edges)
            names = _cycle_text([member] + [e.target for e in steps])
            dependent = dependents[ids[member]]
            found.append((ids[member], make("SK225", f"dependency cycle: {names} (skills cannot need each other "
                                                     "in a circle)", dependent.path, steps[0].line, steps[0].col)))
    return found


#: A cycle longer than this is named by its first and last steps (each member's message names it).
MAX_NAMED_STEPS = 10


def _cycle_text(path: Sequence[str]) -> str:
    """``a -> b -> a``; a long cycle by its ends and its length, so the messages of the n skills
    on a cycle do not grow as n squared."""
    if len(path) <= MAX_NAMED_STEPS + 1:
        return " -> ".join(path)
    return (" -> ".join(path[:5]) + f" -> ... ({len(path) - 1:,} skills) ... -> " + " -> ".join(path[-3:]))


# ---------------------------------------------------------------- past releases

@dataclass(frozen=True)
class CatalogNames:
    """Each skill's id and name, indexed once for the dependencies of every past release."""

    ids: dict[str, int]
    by_name: dict[str, list[str]]
    aliases: Aliases = field(default_factory=dict)

    @classmethod
    def of(cls, catalog: Sequence[tuple[str, str]], aliases: Aliases = NO_ALIASES) -> CatalogNames:
        """The index of ``catalog``: each skill's (id, name); ``aliases``: the names copies share,
        as the catalog check resolved them, or over the catalog published (:func:`copy_aliases`)."""
        by_name: dict[str, list[str]] = {}
        for skill_id, name in catalog:
            by_name.setdefault(name, []).append(skill_id)
        return cls({skill_id: index for index, (skill_id, _) in enumerate(catalog)}, by_name, aliases)


def release_dependencies(items: Iterable[str], names: CatalogNames,
                         releases: Mapping[str, Sequence[str]]) -> list[DependencyRecord]:
    """What a past release declared, resolved over today's catalog as far as it can be: a
    published release is not checked again, so an item that is malformed, names no skill or
    that no release satisfies is left out rather than refused."""
    records = []
    for item in items:
        try:
            name, range_text = parse_dependency(item)
            target = _target(name, names.ids, names.by_name, names.aliases)
            ok, best = _resolved(list(releases.get(target, ()))
                                 if isinstance(target, str) else [], range_text)
        except (ValueError, RangeError):
            continue
        if isinstance(target, str) and ok:
            records.append(DependencyRecord(name, target, range_text, best))
    return records
