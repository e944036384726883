"""skillsite: turn a tree of agent skills into a validated, searchable, published catalog.

The names below are loaded on first use (PEP 562): ``import skillsite`` stays cheap, so a
command that needs little (a build with nothing to do, a search) does not pay for YAML and
the validators.
"""
from __future__ import annotations

import gc as _gc
import importlib as _importlib
from typing import Any as _Any

__version__ = "0.1.0"

#: Public name -> the module that defines it.
_EXPORTS = {
    "CODES": "skillsite.diagnostics", "Diagnostic": "skillsite.diagnostics", "Severity": "skillsite.diagnostics",
    "Discovery": "skillsite.discover", "discover": "skillsite.discover",
    "BundledFile": "skillsite.models", "ParsedSkill": "skillsite.models", "Requirements": "skillsite.models",
    "Skill": "skillsite.models", "SourceFile": "skillsite.models",
    "parse_skill": "skillsite.parse", "parse_skill_bytes": "skillsite.parse",
    "CatalogReading": "skillsite.pipeline", "read_catalog": "skillsite.pipeline",
    "Validation": "skillsite.validate", "validate_catalog": "skillsite.validate",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> _Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'skillsite' has no attribute {name!r}")
    # Modules live as long as the process: collecting garbage while they are imported is wasted time.
    collecting = _gc.isenabled()
    _gc.disable()
    try:
        value = getattr(_importlib.import_module(module), name)
    finally:
        if collecting:
            _gc.enable()
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
