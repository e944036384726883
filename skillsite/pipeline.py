"""Reading a catalog: discover, parse and validate — the stages every command shares."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from skillsite.diagnostics import Diagnostic, Severity, count_by_severity, sort_diagnostics
from skillsite.discover import Discovery, discover
from skillsite.models import ParsedSkill, Skill, SourceFile
from skillsite.parse import DEFAULT_MAX_BYTES, parse_skill
from skillsite.validate import Validation, validate_catalog


@dataclass(frozen=True)
class CatalogReading:
    """Everything known after reading the sources: kept skills, left-out ones, diagnostics."""

    sources: tuple[SourceFile, ...]
    skills: tuple[Skill, ...]
    left_out: tuple[ParsedSkill, ...]
    diagnostics: tuple[Diagnostic, ...]   # sorted

    def verdicts(self) -> list[dict]:
        """``[{"id", "path", "valid"}]`` for every discovered skill, sorted by id."""
        erroneous = {d.path for d in self.diagnostics if d.severity is Severity.ERROR}
        left = {p.source.id for p in self.left_out}
        return [{"id": s.id, "path": s.display_path,
                 "valid": s.display_path not in erroneous and s.id not in left} for s in self.sources]

    def summary(self) -> dict:
        """Counts for the summary line and ``--format json``."""
        verdicts = self.verdicts()
        counts = count_by_severity(self.diagnostics)
        by_code: dict[str, int] = {}
        for d in self.diagnostics:
            by_code[d.code] = by_code.get(d.code, 0) + 1
        return {
            "skills": len(verdicts),
            "valid": sum(v["valid"] for v in verdicts),
            "invalid": sum(not v["valid"] for v in verdicts),
            "left_out": len(self.left_out),
            "errors": counts["error"],
            "warnings": counts["warning"],
            "infos": counts["info"],
            "by_code": dict(sorted(by_code.items())),
        }


def read_catalog(roots: Sequence[Path | str], *, exclude: Sequence[str] = (), profile: str = "default",
                 ignore: Iterable[str] = (), max_bytes: int = DEFAULT_MAX_BYTES) -> CatalogReading:
    """Discover, parse and validate every skill under ``roots``."""
    ignored = frozenset(ignore)
    found: Discovery = discover(roots, exclude)
    parsed = [parse_skill(src, max_bytes) for src in found.sources]
    checked: Validation = validate_catalog(parsed, profile, ignored)
    diags = [d for d in found.diagnostics if d.code not in ignored] + list(checked.diagnostics)
    return CatalogReading(found.sources, checked.skills, checked.left_out, tuple(sort_diagnostics(diags)))
