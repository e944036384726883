"""The one place the release code reads versions: canonical text and precedence, by
:mod:`skillsite.agent.semver` (the rules the loader uses too), and SK227 for a frontmatter
version that is none."""
from __future__ import annotations

from typing import Any

from skillsite.agent.semver import Version, parse_version
from skillsite.diagnostics import Diagnostic, make


def canonical_version(text: Any) -> str | None:
    """``MAJOR.MINOR.PATCH[-PRERELEASE]`` of a version as written; None when it is none."""
    version = parse_version(text) if isinstance(text, str) else None
    return None if version is None else str(version)


def precedence(canonical: str) -> Version:
    """A sort key of a canonical version: semver precedence."""
    return parse_version(canonical) or Version(0, 0, 0)


def version_diagnostics(fm: dict[str, Any], key_lines: dict[str, tuple[int, int]], path: str) -> list[Diagnostic]:
    """SK227 when the frontmatter's version is not a semantic version."""
    meta = fm.get("metadata") if isinstance(fm.get("metadata"), dict) else {}
    for key, value in (("version", fm.get("version")), ("metadata.version", meta.get("version"))):
        if isinstance(value, str) and value.strip():
            if canonical_version(value) is not None:
                return []
            return [make("SK227", f"version {value.strip()!r} is not a semantic version (MAJOR.MINOR.PATCH); only "
                                  "the current files are published, no release", path, *key_lines.get(key, (1, 1)))]
    return []
