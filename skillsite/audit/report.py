"""Audit a tree: discover the skills under some paths (as ``skillsite validate`` does), audit
each one, apply the suppressions, and hold the results for the report formats."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

from skillsite.audit.engine import audit_skill
from skillsite.audit.model import Finding, SkillAudit, at_least
from skillsite.audit.suppress import Suppression, apply_suppressions


@dataclass(frozen=True)
class AuditReport:
    """Every audited skill, in id order, and the problems of the suppressions."""

    skills: tuple[SkillAudit, ...]
    problems: tuple[Finding, ...] = ()
    config_path: str = ""

    def findings(self) -> Iterator[tuple[SkillAudit, Finding]]:
        """Every finding with its skill, in report order."""
        for skill in self.skills:
            for finding in skill.findings:
                yield skill, finding

    def fails(self, threshold: str) -> bool:
        """Whether a finding (or a suppression problem) is at or above ``threshold``."""
        return any(at_least(f.severity, threshold) for _, f in self.findings()) or any(
            at_least(p.severity, threshold) for p in self.problems)

    def summary(self) -> dict[str, int]:
        """Counts for the report's last line and JSON summary."""
        counts = {"skills": len(self.skills), "findings": 0, "suppressed": 0, "problems": len(self.problems),
                  "high": 0, "medium": 0, "low": 0, "none": 0}
        for skill in self.skills:
            counts[skill.risk] += 1
            counts["findings"] += len(skill.findings)
            counts["suppressed"] += skill.suppressed
        return counts


def _audit_one(_context: None, item: tuple[str, str]) -> tuple[Finding, ...]:
    return tuple(audit_skill(Path(item[1])))


def audit_paths(paths: Sequence[Path], suppressions: Sequence[Suppression] = (), exclude: Sequence[str] = (),
                jobs: int = 1, config_path: str = "skillsite.yml", lines: Sequence[int] = ()) -> AuditReport:
    """Discover the skills under ``paths`` (``skillsite.source.discover``), audit each one (on
    ``jobs`` processes), and apply ``suppressions`` (their problems reported at ``lines``, one per
    ``audit.ignore`` entry, in ``config_path``)."""
    from skillsite.source.discover import discover
    from skillsite.workers import parallel_map

    sources = discover(list(paths) or [Path(".")], exclude, stat_files=False).sources
    items = [(s.id, str(s.dir)) for s in sources]
    results = parallel_map(_audit_one, None, items, jobs)
    audits = [SkillAudit(s.id, Path(s.dir), found) for s, found in zip(sources, results)]
    kept, problems = apply_suppressions(audits, suppressions, config_path, lines)
    return AuditReport(tuple(kept), tuple(problems), config_path)
