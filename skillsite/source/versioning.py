"""The one place the release code reads versions: canonical text and precedence.

Backed by :mod:`skillsite.agent.semver` (``parse_version``) once it is on main; until then a
minimal reading of the same rules ("v1.0" -> 1.0.0, "2" -> 2.0.0, pre-release kept, build
metadata dropped).
"""
from __future__ import annotations

import re
from typing import Any

from skillsite.diagnostics import Diagnostic, make

_LOOSE = re.compile(r"^\s*[vV=]?\s*(0|[1-9]\d*)(?:\.(0|[1-9]\d*))?(?:\.(0|[1-9]\d*))?"
                    r"(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?\s*$")


def canonical_version(text: Any) -> str | None:
    """``MAJOR.MINOR.PATCH[-PRERELEASE]`` of a version as written; None when it is none."""
    if not isinstance(text, str):
        return None
    match = _LOOSE.match(text)
    if match is None:
        return None
    major, minor, patch, pre, _ = match.groups()
    return f"{major}.{minor or 0}.{patch or 0}" + (f"-{pre}" if pre else "")


def precedence(canonical: str) -> tuple[Any, ...]:
    """A sort key of a canonical version: semver precedence."""
    core, _, pre = canonical.partition("-")
    numbers = tuple(int(n) for n in core.split("."))
    if not pre:
        return (*numbers, 1, ())
    return (*numbers, 0, tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split(".")))


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
