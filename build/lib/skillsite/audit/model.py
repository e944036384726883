"""The audit's data model: severities, findings and the findings of a skill (rules are declared
in :mod:`skillsite.audit.declare`).

Plain frozen dataclasses, so findings can be sorted, compared, cached and turned into JSON
without any knowledge of how they were found.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Literal

SeverityName = Literal["low", "medium", "high"]
RiskName = Literal["none", "low", "medium", "high"]

#: Severities from least to most serious; a risk is the most serious severity found.
SEVERITIES: tuple[SeverityName, ...] = ("low", "medium", "high")
RANK: dict[str, int] = {"none": 0, "low": 1, "medium": 2, "high": 3}

CATEGORIES: dict[str, str] = {
    "invisible-text": "Invisible or deceptive text",
    "prompt-injection": "Prompt injection",
    "exfiltration": "Exfiltration",
    "remote-code": "Remote code and supply chain",
    "obfuscation": "Obfuscation",
    "secrets": "Secrets",
    "permissions": "Over-broad permissions and destructive commands",
    "configuration": "Audit configuration",
}


@dataclass(frozen=True, slots=True)
class Finding:
    """One place in one file of a skill where a rule matched.

    ``path`` is POSIX and relative to the skill folder; ``line`` and ``column`` are 1-based
    (column in Unicode code points).
    """

    code: str
    category: str
    severity: SeverityName
    path: str
    line: int
    column: int
    message: str

    def sort_key(self) -> tuple[str, int, int, str, str]:
        """Reports list findings by path, line, column, then code."""
        return (self.path, self.line, self.column, self.code, self.message)

    def to_json(self) -> dict[str, object]:
        """The finding as a JSON-ready mapping (the manifest's and ``--format json``'s shape)."""
        return {"code": self.code, "severity": self.severity, "category": self.category, "path": self.path,
                "line": self.line, "column": self.column, "message": self.message}


def demote(severity: SeverityName) -> SeverityName:
    """One level lower; ``low`` stays ``low`` (a finding is never dropped by its context)."""
    return SEVERITIES[max(0, SEVERITIES.index(severity) - 1)]


def at_least(severity: str, threshold: str) -> bool:
    """Whether ``severity`` is at or above ``threshold`` (both severity or risk names)."""
    return RANK[severity] >= RANK[threshold]


def risk_of(findings: Iterable[Finding]) -> RiskName:
    """The highest severity among ``findings``: ``"none"``, ``"low"``, ``"medium"`` or ``"high"``."""
    best = 0
    for finding in findings:
        best = max(best, RANK[finding.severity])
    return ("none", "low", "medium", "high")[best]  # type: ignore[return-value]


@dataclass(frozen=True)
class SkillAudit:
    """The findings of one skill (after suppressions, when applied)."""

    id: str
    folder: Path
    findings: tuple[Finding, ...]
    suppressed: int = 0

    @property
    def risk(self) -> RiskName:
        """The highest severity of the skill's findings ("none" without any)."""
        return risk_of(self.findings)
