"""What a build reads outside the source folders, which ``skillsite serve`` polls (its file events
cover the sources only): the git refs its skills' releases depend on, the ``.gitignore`` files
above its sources, the knowledge folder when it lies elsewhere, and the configuration file where
it is or would be.  A path that does not exist yet is polled too: its creation is a change.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

from skillsite.source.discover import inside_folder
from skillsite.source.ignore import GITIGNORE, repository_folder
from skillsite.source.knowledge import default_knowledge_dir

__all__ = ["git_ref_paths", "gitignores_above", "outside_inputs"]


def git_ref_paths(root: Path) -> list[Path]:
    """What git's HEAD and tags are read from for the repository holding ``root``: HEAD, the
    packed refs, the branches (HEAD names one) and the tags (for a worktree, its ``.git`` file,
    its own HEAD and its common folder's refs); [] outside a repository.  Remote-tracking refs,
    which a fetch moves, are no input."""
    top = repository_folder(Path(os.path.realpath(root)))
    if top is None:
        return []
    dot_git = top / ".git"
    if dot_git.is_dir():
        return [dot_git / "HEAD", *_refs(dot_git)]
    try:
        pointer = dot_git.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return [dot_git]
    git_dir = (top / pointer.removeprefix("gitdir:").strip()).resolve()
    try:
        common = (git_dir / (git_dir / "commondir").read_text(encoding="utf-8").strip()).resolve()
    except OSError:
        common = git_dir
    return [dot_git, git_dir / "HEAD", *_refs(common)]


def _refs(common: Path) -> list[Path]:
    return [common / "packed-refs", common / "refs" / "heads", common / "refs" / "tags"]


def gitignores_above(root: Path) -> list[Path]:
    """The ``.gitignore`` files whose rules apply to ``root`` from above it, existing or not:
    those of its parents up to the top of its repository (see ``source.ignore.rules_above``)."""
    real = Path(os.path.realpath(root))
    top = repository_folder(real.parent) if real.parent != real else None
    if top is None:
        return []
    folders = [folder for folder in real.parents if folder == top or top in folder.parents]
    return [folder / GITIGNORE for folder in folders]


def _inside(path: Path, roots: Sequence[Path]) -> bool:
    real = os.path.realpath(path)
    return any(inside_folder(real, os.path.realpath(root)) for root in roots)


def outside_inputs(roots: Sequence[Path], knowledge_dir: str | None, config_paths: Sequence[Path]) -> list[Path]:
    """Every path a build of ``roots`` reads that lies outside them (see the module's docstring):
    ``knowledge_dir`` as configured (else the default one), ``config_paths``: the configuration
    file, or where one would be found."""
    paths: list[Path] = list(config_paths)
    for root in roots:
        paths += git_ref_paths(root) + gitignores_above(root)
    knowledge = Path(knowledge_dir) if knowledge_dir else default_knowledge_dir(list(roots))
    if knowledge is not None and not _inside(knowledge, roots):
        paths.append(knowledge)
    return list(dict.fromkeys(paths))
