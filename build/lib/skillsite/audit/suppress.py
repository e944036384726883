"""Suppressions: ``audit: {ignore: [{code, skill, reason}]}`` in ``skillsite.yml``.

A suppression silences one rule for the skills whose id matches ``skill`` (a glob; ``path``,
also a glob, narrows it to some files).  It needs a written reason: without one it is not
applied and is reported (SK690); one that matches no finding is reported too (SK691), so
stale suppressions cannot hide future findings.
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass, replace
from typing import Sequence

from skillsite.audit.model import Finding, SkillAudit
from skillsite.audit.rules import RULES


#: The keys of one ``audit.ignore`` entry.
ENTRY_KEYS = ("code", "skill", "reason", "path")


@dataclass(frozen=True)
class Suppression:
    """One ``audit.ignore`` entry."""

    code: str
    skill: str = "*"
    reason: str = ""
    path: str = "*"
    index: int = 0     # position in the ignore list, for messages

    def matches(self, skill_id: str, finding: Finding) -> bool:
        """Whether this entry silences ``finding`` of skill ``skill_id``."""
        return (finding.code == self.code and fnmatch.fnmatchcase(skill_id, self.skill)
                and fnmatch.fnmatchcase(finding.path, self.path))

    def describe(self) -> str:
        return f"audit.ignore[{self.index}] ({self.code} for '{self.skill}')"


def parse_suppressions(raw: object) -> tuple[list[Suppression], list[str]]:
    """The suppressions in the ``audit`` value of ``skillsite.yml``, and what is wrong with it
    (one message per problem; a bad entry is left out, an entry without a reason is kept so that
    :func:`apply_suppressions` reports it)."""
    found, problems = suppression_entries(raw)
    return found, [message for _, message in problems]


def suppression_entries(raw: object) -> tuple[list[Suppression], list[tuple[int | None, str]]]:
    """:func:`parse_suppressions`, each problem with the index of its ``audit.ignore`` entry
    (None for a problem of the whole value): where it is reported."""
    if raw is None:
        return [], []
    if not isinstance(raw, dict):
        return [], [(None, "'audit' must be a mapping, e.g. audit: {ignore: [{code, skill, reason}]}")]
    entries = raw.get("ignore")
    if entries is None:
        return [], []
    if not isinstance(entries, list):
        return [], [(None, "'audit.ignore' must be a list of {code, skill, reason} mappings")]
    found: list[Suppression] = []
    problems: list[tuple[int | None, str]] = []
    for index, entry in enumerate(entries):
        parsed = _suppression(entry, index)
        if isinstance(parsed, str):
            problems.append((index, parsed))
        else:
            found.append(parsed)
    return found, problems


def _suppression(entry: object, index: int) -> Suppression | str:
    """One ``audit.ignore`` entry, or what is wrong with it."""
    where = f"audit.ignore[{index}]"
    if not isinstance(entry, dict):
        return f"{where} must be a mapping with code, skill and reason"
    unknown = sorted(str(k) for k in entry if k not in ENTRY_KEYS)
    if unknown:
        return f"{where} has unknown keys: {', '.join(unknown)}"
    code, skill = entry.get("code"), entry.get("skill", "*")
    reason, path = entry.get("reason", ""), entry.get("path", "*")
    if not isinstance(code, str) or code.strip().upper() not in RULES:
        return f"{where}: code must be one of the audit codes (SK6xx), not {code!r}"
    if not isinstance(skill, str) or not skill.strip() or not isinstance(path, str) or not path.strip():
        return f"{where}: skill and path must be non-empty strings (globs)"
    if reason is None:
        reason = ""
    if not isinstance(reason, str):
        return f"{where}: reason must be a string"
    return Suppression(code.strip().upper(), skill.strip(), reason.strip(), path.strip(), index)


def entry_lines(config_path: str) -> list[int]:
    """The line of each ``audit.ignore`` entry in the configuration file ([] when it cannot be
    read): where its problems are reported.  YAML is composed, not constructed: no alias grows."""
    import yaml

    try:
        with open(config_path, "rb") as handle:
            root = yaml.compose(handle.read(1 << 20).decode("utf-8", "replace"), Loader=yaml.SafeLoader)
    except (OSError, yaml.YAMLError):
        return []
    audit = _value_of(root, "audit")
    ignore = _value_of(audit, "ignore")
    return [item.start_mark.line + 1 for item in ignore.value] if isinstance(ignore, yaml.SequenceNode) else []


def _value_of(node: object, key: str) -> object:
    """The value node of ``key`` in a YAML mapping node, else None."""
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return None
    return next((value for name, value in node.value if isinstance(name, yaml.ScalarNode) and name.value == key), None)


def _entry_line(index: int | None, lines: Sequence[int]) -> int:
    """The line of ``audit.ignore`` entry ``index`` (``lines``: see :func:`entry_lines`); 1 when unknown."""
    return lines[index] if index is not None and index < len(lines) else 1


def malformed_findings(problems: Sequence[tuple[int | None, str]], config_path: str, lines: Sequence[int] = ()
                       ) -> tuple[Finding, ...]:
    """SK692 for each problem :func:`suppression_entries` found, at its entry's line."""
    return tuple(_problem("SK692", message, config_path, _entry_line(index, lines)) for index, message in problems)


def _problem(code: str, message: str, config_path: str, line: int = 1) -> Finding:
    rule = RULES[code]
    return Finding(code, rule.category, rule.severity, config_path, line, 1, f"{rule.message}: {message}")


def apply_suppressions(results: Sequence[SkillAudit], suppressions: Sequence[Suppression],
                       config_path: str = "skillsite.yml", lines: Sequence[int] = ()
                       ) -> tuple[list[SkillAudit], list[Finding]]:
    """The results without the findings that suppressions with a reason silence, and the
    suppressions' own problems as findings on ``config_path`` (SK690: no reason, not applied;
    SK691: matches nothing), at their entry's line (``lines``: see :func:`entry_lines`)."""
    def line(suppression: Suppression) -> int:
        return _entry_line(suppression.index, lines)

    problems: list[Finding] = []
    active = []
    for suppression in suppressions:
        if suppression.reason:
            active.append(suppression)
        else:
            problems.append(_problem("SK690", f"{suppression.describe()} needs a reason", config_path,
                                     line(suppression)))
    used: set[int] = set()
    kept: list[SkillAudit] = []
    for result in results:
        remaining = []
        for finding in result.findings:
            silencers = [s for s in active if s.matches(result.id, finding)]
            used.update(s.index for s in silencers)
            if not silencers:
                remaining.append(finding)
        suppressed = len(result.findings) - len(remaining)
        kept.append(replace(result, findings=tuple(remaining), suppressed=result.suppressed + suppressed)
                    if suppressed else result)
    for suppression in active:
        if suppression.index not in used:
            problems.append(_problem("SK691", f"{suppression.describe()} matches no finding; remove it",
                                     config_path, line(suppression)))
    return kept, problems
