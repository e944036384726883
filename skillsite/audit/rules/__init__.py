"""Every audit rule by code (SK601-SK692), and the checks that are not patterns.

The rules are declared in the modules below, one per category (see
:mod:`skillsite.audit.declare`); this table collects every :class:`~skillsite.audit.declare.Rule`,
:class:`~skillsite.audit.declare.Check` and :class:`~skillsite.audit.declare.Pattern` they hold,
so adding a rule touches its declaration (and its fixtures) only.  :data:`skillsite.diagnostics.CODES`
takes the codes' titles from here, so this package imports nothing that imports the diagnostics.

Codes are stable (suppressions and CI configurations name them); never renumber.  A finding
inside a fenced code example of a reference document, or in a sentence that warns against the
thing, is demoted one level unless the rule says it is never demoted (its ``demotion``).
"""
from __future__ import annotations

from types import ModuleType
from typing import Iterator, TypeVar

from skillsite.audit.declare import Check, Pattern, Rule
from skillsite.audit.rules import (configuration, exfiltration, injection, invisible, lures, obfuscation,
                                   permissions, remote_code, secrets)

T = TypeVar("T")

#: The modules that declare rules, in the order of their codes.
MODULES: tuple[ModuleType, ...] = (invisible, injection, exfiltration, remote_code, lures, obfuscation, secrets,
                                   permissions, configuration)


def _inside(value: object) -> Iterator[object]:
    """A module-level value and what it holds (the items of a tuple or list, a rule's patterns)."""
    yield value
    if isinstance(value, (tuple, list)):
        for item in value:
            yield from _inside(item)
    elif isinstance(value, Rule):
        yield from value.patterns


def declared(kind: type[T], modules: tuple[ModuleType, ...] = MODULES) -> list[T]:
    """Every object of ``kind`` the rule modules (or some of them) declare, each once, in the order met."""
    found: dict[int, T] = {}
    for module in modules:
        for value in vars(module).values():
            for item in _inside(value):
                if isinstance(item, kind):
                    found.setdefault(id(item), item)
    return list(found.values())


def _by_code(rules: list[Rule]) -> dict[str, Rule]:
    """The rules by code, in code order; two declarations of one code are a mistake."""
    table: dict[str, Rule] = {}
    for each in sorted(rules, key=lambda r: r.code):
        if each.code in table:
            raise ValueError(f"audit rule {each.code} is declared twice")
        table[each.code] = each
    return table


#: Every audit rule by code.
RULES: dict[str, Rule] = _by_code(declared(Rule))
#: The checks that are not patterns, by the first code each reports.
CHECKS: tuple[Check, ...] = tuple(sorted(declared(Check), key=lambda c: min(c.codes)))
#: Every pattern the rules and checks use (compiled on first use).
PATTERNS: tuple[Pattern, ...] = tuple(declared(Pattern))
