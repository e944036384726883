"""Discovery: find every skill folder under one or more source roots.

A skill is a folder holding ``SKILL.md`` (``skill.md`` is accepted with a warning).
Its id is its slash-separated path relative to the root.  Symlinks are followed only
when their target stays inside the root; every real folder is reported once (the
shortest id wins); loops are safe; a later root overrides an earlier one's skill
with the same id.  Bundled files of a skill are its files outside nested skills.
"""
from __future__ import annotations

import fnmatch
import operator
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Sequence

from skillsite.diagnostics import Diagnostic, make, sort_diagnostics

if TYPE_CHECKING:  # imported where the skills are made: a walk in a child process needs none of it
    from skillsite.models import SourceFile

SKIPPED_DIRS = frozenset({".git", "node_modules"})
SKILL_FILE = "SKILL.md"
LOWERCASE_SKILL_FILE = "skill.md"
OUTPUT_MARKER = ".skillsite-output"  # written by skillsite.output into every build
MAX_DEPTH = 100
MAX_VISITED_DIRS = 500_000


class _Dir(NamedTuple):
    """A folder a walk listed (a tuple: quick to make, and to send from a walking child)."""

    rel: str                 # id-like path relative to the root ("" for the root itself)
    seen: str                # path as reached
    real: str                # resolved path
    skill_file: str | None   # "SKILL.md", "skill.md" or None
    owner: str | None        # rel of the nearest skill folder at or above this one
    files: list[str]         # names of the plain files in it
    linked: list[tuple[str, str, str]]  # symlinked files: name, path as reached, target


@dataclass(frozen=True)
class Discovery:
    """The skills found and what was noticed on the way."""

    sources: tuple[SourceFile, ...]
    diagnostics: tuple[Diagnostic, ...]


_ENTRY_NAME = operator.attrgetter("name")
_FILE_PATH = operator.attrgetter("path")


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _excluded(rel: str, patterns: Sequence[str]) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatchcase(rel, p) or fnmatch.fnmatchcase(name, p)
               or fnmatch.fnmatchcase(rel + "/", p) for p in patterns)


def _id_rank(skill_id: str) -> tuple[int, int, str]:
    return (skill_id.count("/"), len(skill_id), skill_id)


class _RootWalker:
    """Walks one root, following symlinks that stay inside it, never looping."""

    def __init__(self, root: Path, exclude: Sequence[str], stat_files: bool = True, ordered: bool = False):
        self.root = root
        # Folder listings are taken in the file system's order: nothing found depends on it,
        # except which folders a walk cut short at MAX_VISITED_DIRS reached (then walk again, ordered).
        self.ordered = ordered
        self.real_root = os.path.realpath(root)
        shown = os.path.normpath(str(root))
        self.shown_prefix = "" if shown == os.curdir else shown if shown.endswith(os.sep) else shown + os.sep
        self.exclude = exclude
        self.stat_files = stat_files
        self.dirs: list[_Dir] = []
        self.diags: list[Diagnostic] = []

    def _show(self, rel: str) -> str:
        """The path of ``rel`` as shown in diagnostics: under the root as given, normalised.

        Names from a folder listing are never ``.``, ``..`` or empty, so only the root needs
        normalising (once)."""
        if not rel:
            return str(self.root)
        return self.shown_prefix + (rel.replace("/", os.sep) if os.sep != "/" else rel)

    def walk(self) -> None:
        # stack of (seen path, rel, real path, owner rel, ancestor real paths)
        stack: list[tuple[str, str, str, str | None, frozenset[str]]] = [
            (str(self.root), "", self.real_root, None, frozenset({self.real_root}))]
        exclude = self.exclude
        while stack:
            if len(self.dirs) >= MAX_VISITED_DIRS:
                self.diags.append(make("SK008", f"more than {MAX_VISITED_DIRS} folders; search stopped",
                                       str(self.root)))
                return
            seen, rel, real, owner, ancestors = stack.pop()
            try:
                with os.scandir(seen) as listing:
                    entries = sorted(listing, key=_ENTRY_NAME) if self.ordered else list(listing)
            except OSError as exc:
                self.diags.append(make("SK006", f"cannot list folder: {exc.strerror or exc}", self._show(rel)))
                continue
            by_name = {e.name: e for e in entries}
            if OUTPUT_MARKER in by_name and rel:
                continue  # a published catalog (e.g. _site inside the sources) is output, not input
            skill_file = SKILL_FILE if SKILL_FILE in by_name else (
                LOWERCASE_SKILL_FILE if LOWERCASE_SKILL_FILE in by_name else None)
            if skill_file and not _is_file(by_name[skill_file]):
                skill_file = None
            if skill_file:
                owner = rel
            node = _Dir(rel, seen, real, skill_file, owner, [], [])
            self.dirs.append(node)
            children = []
            prefix = f"{rel}/" if rel else ""
            real_prefix = real if real.endswith(os.sep) else real + os.sep
            files = node.files
            for entry in entries:
                name = entry.name
                if name in SKIPPED_DIRS or (exclude and _excluded(prefix + name, exclude)):
                    continue
                try:
                    if entry.is_file(follow_symlinks=False):
                        files.append(name)  # its paths are the folder's joined with the name
                    elif entry.is_dir(follow_symlinks=False):
                        child_real = real_prefix + name
                        children.append((entry.path, prefix + name, child_real, owner, ancestors | {child_real}))
                    elif entry.is_symlink():
                        child = self._follow(entry, prefix + name, ancestors, node)
                        if child is not None:
                            children.append(child)
                except OSError as exc:
                    self.diags.append(make("SK006", f"cannot read: {exc.strerror or exc}", self._show(prefix + name)))
            depth = rel.count("/") + 1 if rel else 0
            if children and depth >= MAX_DEPTH:
                self.diags.append(make("SK008", f"nesting deeper than {MAX_DEPTH} folders; not searched further",
                                       self._show(rel)))
                continue
            stack.extend(reversed(children))

    def _follow(self, entry: os.DirEntry, rel: str, ancestors: frozenset[str], node: _Dir):
        """A symlink: followed only inside the root and never round a loop; returns a stack item
        for a folder to descend into."""
        target = os.path.realpath(entry.path)
        if not os.path.exists(target):
            self.diags.append(make("SK005", "broken symlink; not followed", self._show(rel)))
            return None
        if not _inside(target, self.real_root):
            self.diags.append(make("SK002", "symlink points outside the source root; not followed",
                                   self._show(rel)))
            return None
        if os.path.isdir(target):
            if target in ancestors:
                self.diags.append(make("SK005", "symlink loop (points at an enclosing folder); not followed",
                                       self._show(rel)))
                return None
            return (entry.path, rel, target, node.owner, ancestors | {target})
        node.linked.append((entry.name, entry.path, target))
        return None


def _stamp(real: str, walker: _RootWalker, rel: str, name: str, diags: list[Diagnostic]) -> tuple[int, int]:
    """Size and modification time of a file (by its real path: a symlink's target)."""
    try:
        stat = os.stat(real)
    except OSError as exc:
        diags.append(make("SK006", f"cannot read: {exc.strerror or exc}",
                          walker._show(f"{rel}/{name}" if rel else name)))
        return 0, 0
    return stat.st_size, stat.st_mtime_ns


def _is_file(entry: os.DirEntry) -> bool:
    try:
        return entry.is_file()  # follows a symlink, as os.path.isfile does
    except OSError:
        return False


def _walk(root: Path, exclude: Sequence[str], stat_files: bool) -> _RootWalker:
    walker = _RootWalker(root, exclude, stat_files)
    walker.walk()
    if len(walker.dirs) >= MAX_VISITED_DIRS:  # cut short: which folders were reached must not vary
        walker = _RootWalker(root, exclude, stat_files, ordered=True)
        walker.walk()
    return walker


def _walked(walker: _RootWalker) -> tuple[list[tuple[Any, ...]], list[Diagnostic]]:
    """What a walk found, to send from a child: its folders as plain tuples (pickled in half the
    time of named ones) and its diagnostics."""
    return list(map(tuple, walker.dirs)), walker.diags


def _unwalked(root: Path, exclude: Sequence[str], stat_files: bool,
              walked: tuple[list[tuple[Any, ...]], list[Diagnostic]]) -> _RootWalker:
    """The walker whose walk gave ``walked`` (see :func:`_walked`)."""
    walker = _RootWalker(root, exclude, stat_files)
    walker.dirs, walker.diags = list(map(_Dir._make, walked[0])), walked[1]
    return walker


def _discover_root(walker: _RootWalker) -> tuple[list[SourceFile], list[Diagnostic]]:
    """The skills of a walked root: each real folder once, its bundled files, its parent skill."""
    from skillsite.models import BundledFile, SourceFile

    root, stat_files = walker.root, walker.stat_files
    diags = walker.diags
    prefix = os.path.basename(walker.real_root) if walker.dirs and walker.dirs[0].skill_file else ""

    def skill_id(rel: str) -> str:
        return f"{prefix}/{rel}" if prefix and rel else prefix or rel

    skill_dirs = [d for d in walker.dirs if d.skill_file]
    # every real folder once: the shortest id wins
    winner: dict[str, _Dir] = {}
    for d in skill_dirs:
        best = winner.get(d.real)
        if best is None or _id_rank(skill_id(d.rel)) < _id_rank(skill_id(best.rel)):
            winner[d.real] = d
    by_rel = {d.rel: d for d in walker.dirs}
    kept = {d.rel for d in winner.values()}
    for d in skill_dirs:
        if d.rel not in kept:
            win = winner[d.real]
            diags.append(make("SK003", f"same folder as skill '{skill_id(win.rel)}'; reported once, under that id",
                              walker._show(f"{d.rel}/{d.skill_file}" if d.rel else d.skill_file)))

    # Only the files of kept skills are looked at (a folder reached twice through a symlink,
    # or files outside every skill, cost no stat).
    files_of: dict[str, list[BundledFile]] = {rel: [] for rel in kept}
    stamps: dict[str, tuple[int, int]] = {}
    for d in walker.dirs:
        if d.owner not in files_of:
            continue
        owner = by_rel[d.owner]
        found = files_of[d.owner]
        in_skill = f"{d.rel}/"[len(owner.rel) + 1:] if owner.rel else (f"{d.rel}/" if d.rel else "")
        seen_prefix = d.seen if d.seen.endswith(os.sep) else d.seen + os.sep
        real_prefix = d.real if d.real.endswith(os.sep) else d.real + os.sep
        skill_file = owner.skill_file if d.rel == owner.rel else None
        # A plain file is inside the skill folder exactly when its folder is (a name has no separator).
        plain_inside = _inside(d.real, owner.real)
        linked = {name: (seen, real) for name, seen, real in d.linked}
        for name in (*d.files, *linked) if linked else d.files:
            seen, real = linked[name] if name in linked else (seen_prefix + name, real_prefix + name)
            if name == skill_file:
                if stat_files:
                    stamps[d.rel] = _stamp(real, walker, d.rel, name, diags)
            elif not (_inside(real, owner.real) if name in linked else plain_inside):
                diags.append(make("SK007", "symlink points outside the skill folder; file not published",
                                  walker._show(f"{d.rel}/{name}" if d.rel else name)))
            else:
                size, mtime_ns = _stamp(real, walker, d.rel, name, diags) if stat_files else (0, 0)
                found.append(BundledFile(in_skill + name, seen, size, mtime_ns))

    sources = []
    for d in skill_dirs:
        if d.rel not in kept:
            continue
        if d.skill_file == LOWERCASE_SKILL_FILE:
            diags.append(make("SK001", "file is named 'skill.md'; the specification names it 'SKILL.md'",
                              walker._show(f"{d.rel}/{d.skill_file}" if d.rel else d.skill_file)))
        parent = None
        up = d.rel.rsplit("/", 1)[0] if "/" in d.rel else ("" if d.rel else None)
        if up is not None:
            owner = by_rel[up].owner if up in by_rel else None
            if owner is not None:
                parent = skill_id(winner[by_rel[owner].real].rel)
        rel_md = f"{d.rel}/{d.skill_file}" if d.rel else d.skill_file
        folder = Path(d.seen)
        sources.append(SourceFile(
            id=skill_id(d.rel) or os.path.basename(walker.real_root),
            root=root,
            dir=folder,
            skill_md=folder / d.skill_file,
            display_path=walker._show(rel_md),
            rel_path=rel_md,
            parent_id=parent,
            files=tuple(sorted(files_of[d.rel], key=_FILE_PATH)),
            stamp=stamps.get(d.rel, (0, 0)),
        ))
    return sources, diags


def discover(roots: Sequence[Path | str], exclude: Sequence[str] = (), stat_files: bool = True) -> Discovery:
    """Find every skill under ``roots``; a later root's skill overrides an earlier one's id.

    Without ``stat_files`` the size and modification time of bundled files are left at 0
    (validation needs only their names)."""
    return _gather([_walk(Path(root), exclude, stat_files) for root in roots])


def start_discovery(roots: Sequence[Path | str], exclude: Sequence[str] = (), stat_files: bool = True,
                    jobs: int = 1) -> DiscoveryUnderway:
    """:func:`discover` in two steps: ``start_discovery(...).result()`` is the :class:`Discovery`.

    With ``jobs`` > 1 (and ``fork``), a child process walks the folders meanwhile, while this
    one goes on with something else (``skillsite validate`` imports its checks: 35 ms, about
    as long as the walk of a thousand skills); this process then makes the skills from what
    the walk found.  Otherwise everything is done now.  Either way the same Discovery.
    """
    paths = [Path(root) for root in roots]
    if jobs <= 1 or not hasattr(os, "fork"):
        return DiscoveryUnderway(paths, exclude, stat_files, discover(paths, exclude, stat_files))
    from skillsite.parallel import batch_collection, in_background

    def walk_all() -> list[tuple[list[tuple[Any, ...]], list[Diagnostic]]]:
        with batch_collection():
            return [_walked(_walk(path, exclude, stat_files)) for path in paths]

    try:
        walking = in_background(walk_all, jobs)
    except OSError:  # no process to spare (fork failed): the walk is done here
        return DiscoveryUnderway(paths, exclude, stat_files, discover(paths, exclude, stat_files))
    return DiscoveryUnderway(paths, exclude, stat_files, walking)


class DiscoveryUnderway:
    """A discovery :func:`start_discovery` began: :meth:`result` waits for it; :meth:`abandon`
    stops a walk whose result is no longer wanted (after a failure elsewhere)."""

    def __init__(self, roots: list[Path], exclude: Sequence[str], stat_files: bool, found: Any):
        self._roots, self._exclude, self._stat_files = roots, exclude, stat_files
        self._found = found  # the Discovery, or the Pending walk of a child process

    def result(self) -> Discovery:
        if not isinstance(self._found, Discovery):
            walked = self._found.result()
            self._found = _gather([_unwalked(root, self._exclude, self._stat_files, walk)
                                   for root, walk in zip(self._roots, walked)])
        return self._found

    def abandon(self) -> None:
        if not isinstance(self._found, Discovery):
            self._found.abandon()


def _gather(walkers: Sequence[_RootWalker]) -> Discovery:
    """The skills of every walked root; a later root's skill overrides an earlier one's id."""
    found: dict[str, SourceFile] = {}
    diags: list[Diagnostic] = []
    for walker in walkers:
        sources, root_diags = _discover_root(walker)
        diags.extend(root_diags)
        for src in sources:
            earlier = found.get(src.id)
            if earlier is not None:
                diags.append(make("SK004", f"skill '{src.id}' is overridden by {src.display_path}",
                                  earlier.display_path))
            found[src.id] = src
    return Discovery(tuple(sorted(found.values(), key=lambda s: s.id)), tuple(sort_diagnostics(diags)))
