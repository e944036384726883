"""``skillsite new``: a starting point for a skill, valid under the specification as it stands.

The SKILL.md written holds the two required keys, the optional ones of the specification as
YAML comments to fill in, and a body that says what goes where.  Before anything is written,
it is checked as ``skillsite validate --profile spec --strict`` checks a skill: a name the
specification refuses is refused here, with the validator's own message.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from skillsite.diagnostics import Diagnostic, Severity

TEMPLATE = """\
---
name: {name}
description: >-
  Say what this skill does and when an agent should use it, in the words a user would
  write, e.g. "Does X for Y. Use when asked to ..." (agents choose skills by this text).
# Optional keys of the Agent Skills specification:
# license: Apache-2.0
# compatibility: Needs git and network access.
# metadata:
#   version: "0.1.0"
#   owner: platform-team
# allowed-tools: Bash(git:*) Read
---

# {title}

What to do, step by step, written for an agent that has never done it before.

## When to use

- The situations this skill is for, and those it is not for.

## Steps

1. The first thing to do.
2. The next one; say which command to run and what to check.

## Files

Put scripts in `scripts/`, reference documents in `references/` and templates in `assets/`,
and name them from here with paths relative to this folder.
"""


class ScaffoldError(Exception):
    """The skill cannot be created: a name the specification refuses, or a folder in the way."""


def skill_text(name: str) -> str:
    """The SKILL.md of a new skill called ``name``."""
    return TEMPLATE.format(name=name, title=name.replace("-", " ").capitalize())


def create_skill(parent: Path, name: str) -> Path:
    """Write ``parent/name/SKILL.md``; its path.  ScaffoldError when ``name`` is refused by the
    specification or the folder exists."""
    problems = _problems(name)
    if problems:
        raise ScaffoldError("; ".join(d.message for d in problems))
    folder = parent / name
    if os.path.lexists(folder):
        raise ScaffoldError(f"{folder} already exists")
    folder.mkdir(parents=True)
    path = folder / "SKILL.md"
    try:
        path.write_text(skill_text(name), encoding="utf-8")
    except OSError as exc:  # a full disk: no half-made skill left to refuse the retry
        shutil.rmtree(folder, ignore_errors=True)
        raise type(exc)(exc.errno, exc.strerror, str(exc.filename or path)) from exc
    return path


def _problems(name: str) -> list[Diagnostic]:
    """What ``skillsite validate --profile spec --strict`` finds in the new skill, checked in a
    temporary folder."""
    from skillsite.source.catalog import check_catalog

    if not name or "/" in name or "\\" in name or name in (".", ".."):
        return [Diagnostic("", 0, 0, "SK203", Severity.ERROR, f"'{name}' is not a folder name")]
    with tempfile.TemporaryDirectory() as scratch:
        (Path(scratch) / name).mkdir()
        (Path(scratch) / name / "SKILL.md").write_text(skill_text(name), encoding="utf-8")
        checked = check_catalog([Path(scratch)], profile="spec")
    return [d for d in checked.diagnostics if d.severity is not Severity.INFO]
