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

from skillsite.diagnostics import printable, skill_at, sort_diagnostics
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
    """``folder`` (absolute) relative to the current folder when under it (as diagnostics then name paths)."""
    relative = _relative(str(folder))
    return folder if relative is None else Path(relative)


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
    return _near(replace(checked, sources=kept, left_out=checked.left_out & ids, diagnostics=diagnostics))


def _near(checked: CatalogCheck) -> CatalogCheck:
    """``checked`` with the paths of each skill under the current folder relative to it, as a
    linter shows them: a SKILL.md given below its work tree's top was checked in the whole tree,
    named from that top (absolute, as it is above the current folder)."""
    moved = {s.id: shown for s in checked.sources if (shown := _relative(s.display_path)) is not None}
    if not moved:
        return checked
    owners = {printable(os.path.dirname(s.display_path)): s.id for s in checked.sources}
    folders = {s.id: (printable(os.path.dirname(s.display_path)), printable(os.path.dirname(moved[s.id])))
               for s in checked.sources if s.id in moved}
    diagnostics = []
    for diag in checked.diagnostics:
        owner = skill_at(diag.path, owners)
        if owner in folders:
            old, new = folders[owner]
            diag = replace(diag, path=os.path.normpath(os.path.join(new, os.path.relpath(diag.path, old))))
        diagnostics.append(diag)
    sources = tuple(replace(s, display_path=moved.get(s.id, s.display_path)) for s in checked.sources)
    return replace(checked, sources=sources, diagnostics=tuple(sort_diagnostics(diagnostics)))


def _relative(path: str) -> str | None:
    """An absolute ``path`` under the current folder, relative to it; None for any other path."""
    if not os.path.isabs(path):
        return None
    relative = os.path.relpath(path)
    return None if relative.startswith("..") else relative
