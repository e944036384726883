"""skillsite: turn a tree of agent skills into a validated, searchable, published catalog."""
from __future__ import annotations

__version__ = "0.1.0"

from skillsite.diagnostics import CODES, Diagnostic, Severity  # noqa: E402
from skillsite.discover import Discovery, discover  # noqa: E402
from skillsite.models import BundledFile, ParsedSkill, Requirements, Skill, SourceFile  # noqa: E402
from skillsite.parse import parse_skill, parse_skill_bytes  # noqa: E402
from skillsite.pipeline import CatalogReading, read_catalog  # noqa: E402
from skillsite.validate import Validation, validate_catalog  # noqa: E402

__all__ = [
    "__version__", "CODES", "Diagnostic", "Severity", "Discovery", "discover", "BundledFile",
    "ParsedSkill", "Requirements", "Skill", "SourceFile", "parse_skill", "parse_skill_bytes",
    "CatalogReading", "read_catalog", "Validation", "validate_catalog",
]
