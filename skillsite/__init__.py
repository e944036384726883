"""skillsite: turn a tree of agent skills into a validated, searchable, published catalog."""
from __future__ import annotations

import gc as _gc

__version__ = "0.1.0"

# Modules live as long as the process: collecting garbage while they are imported is wasted
# time (about 3 ms of a 0.3 s `skillsite validate`).
_collecting = _gc.isenabled()
_gc.disable()
try:
    from skillsite.diagnostics import CODES, Diagnostic, Severity  # noqa: E402
    from skillsite.discover import Discovery, discover  # noqa: E402
    from skillsite.models import BundledFile, ParsedSkill, Requirements, Skill, SourceFile  # noqa: E402
    from skillsite.parse import parse_skill, parse_skill_bytes  # noqa: E402
    from skillsite.pipeline import CatalogReading, read_catalog  # noqa: E402
    from skillsite.validate import Validation, validate_catalog  # noqa: E402
finally:
    if _collecting:
        _gc.enable()

__all__ = [
    "__version__", "CODES", "Diagnostic", "Severity", "Discovery", "discover", "BundledFile",
    "ParsedSkill", "Requirements", "Skill", "SourceFile", "parse_skill", "parse_skill_bytes",
    "CatalogReading", "read_catalog", "Validation", "validate_catalog",
]
