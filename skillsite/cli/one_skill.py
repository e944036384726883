"""``skillsite validate PATH/SKILL.md``: that skill alone, checked as in its tree.

The tree is the configuration's source that holds the skill, else the git work tree it is in
(else its own folder, the skill alone).  Its ``depends`` and ``conflicts`` then name the skills
of that tree, and its copies are found there: the whole tree is checked (the verdict cache keeps
that quick) and only the skills named are reported.
"""
from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Iterable, Sequence

import click

from skillsite.diagnostics import printable, skill_at
from skillsite.models import CatalogCheck
from skillsite.source.discover import inside_folder
from skillsite.source.ignore import repository_folder

SKILL_FILE_NAMES = ("SKILL.md", "skill.md")


def skill_folder(path: Path) -> Path:
    """A PATH of validate as a folder: a SKILL.md file stands for its skill's folder."""
    if path.is_dir():
        return path
    if path.name in SKILL_FILE_NAMES:
        return path.parent
    raise click.BadParameter(f"{path} is a file but not a SKILL.md: give a folder or a SKILL.md",
                             param_hint="PATHS")


def tree_of(path: Path, sources: Sequence[str]) -> Path:
    """The folder validate searches for PATH: a folder itself; a SKILL.md's tree (see above)."""
    folder = skill_folder(path)
    if folder is path:
        return folder
    real = os.path.realpath(folder)
    source = next((Path(s) for s in sources if inside_folder(real, os.path.realpath(s))), None)
    top = repository_folder(Path(real))
    return source or (_shown(top) if top is not None else folder)


def _shown(folder: Path) -> Path:
    """``folder`` relative to the current folder when under it (as diagnostics then name paths)."""
    relative = os.path.relpath(folder)
    return folder if relative.startswith("..") else Path(relative)


def reported(checked: CatalogCheck, paths: Iterable[Path]) -> CatalogCheck:
    """``checked`` as validate reports it for ``paths``: every skill under a folder given, and
    each skill whose SKILL.md was given; only their diagnostics (a nested skill's are its own)."""
    paths = list(paths)
    if all(path.is_dir() for path in paths):
        return checked
    files = {os.path.realpath(p) for p in paths if not p.is_dir()}
    folders = [os.path.realpath(p) for p in paths if p.is_dir()]
    kept = tuple(s for s in checked.sources if os.path.realpath(s.skill_md) in files
                 or any(inside_folder(os.path.realpath(s.skill_md), f) for f in folders))
    ids = {s.id for s in kept}
    owners = {printable(os.path.dirname(s.display_path)): s.id for s in checked.sources}
    diagnostics = tuple(d for d in checked.diagnostics if skill_at(d.path, owners) in ids)
    return replace(checked, sources=kept, left_out=checked.left_out & ids, diagnostics=diagnostics)
