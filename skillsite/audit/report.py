"""Audit a tree: discover the skills under some paths (as ``skillsite validate`` does), audit
each one, apply the suppressions, and hold the results for the report formats."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

from skillsite.audit.rules import RULES
from skillsite.audit.engine import audit_skill
from skillsite.audit.model import Finding, SkillAudit, at_least
from skillsite.audit.suppress import Suppression, apply_suppressions
from skillsite.diagnostics import Diagnostic


@dataclass(frozen=True)
class AuditReport:
    """Every audited skill, in id order, and the problems: of the suppressions, and the places
    that could not be read, whose skills are not audited."""

    skills: tuple[SkillAudit, ...]
    problems: tuple[Finding, ...] = ()
    config_path: str = ""

    def findings(self) -> Iterator[tuple[SkillAudit, Finding]]:
        """Every finding with its skill, in report order."""
        for skill in self.skills:
            for finding in skill.findings:
                yield skill, finding

    def fails(self, threshold: str) -> bool:
        """Whether a finding (or a problem) is at or above ``threshold``."""
        return any(at_least(f.severity, threshold) for _, f in self.findings()) or any(
            at_least(p.severity, threshold) for p in self.problems)

    def summary(self) -> dict[str, int]:
        """Counts for the report's last line and JSON summary."""
        unaudited = sum(p.code == UNAUDITED for p in self.problems)
        counts = {"skills": len(self.skills), "findings": 0, "suppressed": 0, "problems": len(self.problems),
                  "unaudited": unaudited, "high": 0, "medium": 0, "low": 0, "none": 0}
        for skill in self.skills:
            counts[skill.risk] += 1
            counts["findings"] += len(skill.findings)
            counts["suppressed"] += skill.suppressed
        return counts


#: The code of a place not audited: a file or folder that cannot be read.
UNAUDITED = "SK644"


def _audit_one(_context: None, item: tuple[str, str]) -> tuple[Finding, ...]:
    return tuple(audit_skill(Path(item[1])))


def audit_paths(paths: Sequence[Path], suppressions: Sequence[Suppression] = (), exclude: Sequence[str] = (),
                jobs: int = 1, config_path: str = "skillsite.yml", lines: Sequence[int] = ()) -> AuditReport:
    """Discover the skills under ``paths`` (``skillsite.source.discover``), audit each one (on
    ``jobs`` processes), and apply ``suppressions`` (their problems reported at ``lines``, one per
    ``audit.ignore`` entry, in ``config_path``)."""
    from skillsite.source.discover import discover
    from skillsite.workers import parallel_map

    found = discover(list(paths) or [Path(".")], exclude, stat_files=False)
    folders = [os.path.dirname(s.display_path) + "/" for s in found.sources]
    items = [(s.id, str(s.dir)) for s in found.sources]
    results = parallel_map(_audit_one, None, items, jobs)
    audits = [SkillAudit(s.id, Path(s.dir), findings) for s, findings in zip(found.sources, results)]
    kept, problems = apply_suppressions(audits, suppressions, config_path, lines)
    # a place inside a skill is that skill's finding (SK644); one outside any is the report's
    unseen = [_unseen(d) for d in found.diagnostics
              if d.code in UNSEEN_CODES and not any(d.path.startswith(folder) for folder in folders)]
    return AuditReport(tuple(kept), tuple(problems) + tuple(unseen), config_path)


#: What discovery says of a place it did not search: it cannot be read (SK006), it lies deeper
#: than discovery goes (SK008), its name is not UTF-8 (SK011), it is a folder never searched
#: holding a SKILL.md (SK025: ``node_modules``, a virtual environment, a published catalog).
UNSEEN_CODES = frozenset({"SK006", "SK008", "SK011", "SK025"})


def _unseen(diag: Diagnostic) -> Finding:
    """A place discovery did not search (:data:`UNSEEN_CODES`), outside the skills it found: the
    skills it may hold are not audited, so it is as serious as the worst they could hide (fail
    closed)."""
    rule = RULES[UNAUDITED]
    return Finding(rule.code, rule.category, "high", diag.path, max(diag.line, 1), max(diag.col, 1),
                   f"{rule.message}: {diag.message}")
