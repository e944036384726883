"""skillsite: turn a tree of agent skills into a validated, searchable, published catalog.

The public API, by stage:

- reading skills: :func:`discover`, :func:`parse_skill`, :func:`read_catalog`,
  :func:`check_catalog`, and the models they give (:class:`Skill`, :class:`SourceFile`, ...);
- publishing: :func:`build` (what ``skillsite build`` runs), :class:`BuildResult`,
  :class:`SiteConfig`, :func:`load_config`;
- diagnostics: :class:`Diagnostic`, :class:`Severity`, :data:`CODES`;
- using a published catalog: :class:`Catalog` (from :mod:`skillsite.loader`) and the
  :class:`ManifestEntry` of each skill (the typed ``skills.json`` entry the build writes);
- versions and dependencies: :func:`satisfies` and :func:`max_satisfying` (npm ranges, as the
  build and the loader match them), :class:`DependencyError`, :class:`LockFileError`.

Names are imported on first use (PEP 562), so ``import skillsite.loader`` pulls in only the
standard library, and a command loads only the stages it runs.
"""
from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

#: Public name -> the module that defines it.
_EXPORTS = {
    "CODES": "skillsite.diagnostics", "Diagnostic": "skillsite.diagnostics", "Severity": "skillsite.diagnostics",
    "Discovery": "skillsite.source.discover", "discover": "skillsite.source.discover",
    "parse_skill": "skillsite.source.parse", "parse_skill_bytes": "skillsite.source.parse",
    "read_catalog": "skillsite.source.catalog", "check_catalog": "skillsite.source.catalog",
    "BundledFile": "skillsite.models", "ParsedSkill": "skillsite.models", "Requirements": "skillsite.models",
    "Skill": "skillsite.models", "SourceFile": "skillsite.models", "CatalogReading": "skillsite.models",
    "CatalogCheck": "skillsite.models",
    "SiteConfig": "skillsite.config", "load_config": "skillsite.config",
    "build": "skillsite.publish.build", "BuildResult": "skillsite.publish.build",
    "Catalog": "skillsite.loader", "ManifestEntry": "skillsite.agent.entry",
    "satisfies": "skillsite.agent.semver", "max_satisfying": "skillsite.agent.semver",
    "DependencyError": "skillsite.agent.errors", "LockFileError": "skillsite.agent.errors",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'skillsite' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
