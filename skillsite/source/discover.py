"""Discovery: find every skill folder under one or more source roots.

A skill is a folder holding ``SKILL.md`` (``skill.md`` is accepted with a warning).  Its id is
its slash-separated path relative to the root.  Symlinks are followed only when their target
stays inside the root; every real folder is reported once (the shortest id wins); loops are
safe; a later root overrides an earlier one's skill with the same id.  Bundled files of a
skill are its files outside nested skills.  Version control and tool folders, virtual
environments and what ``.gitignore`` files ignore are left out (:mod:`skillsite.source.ignore`),
then what ``exclude`` names.
"""
from __future__ import annotations

import errno
import fnmatch
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from skillsite.agent.site_urls import OUTPUT_MARKER
from skillsite.agent.utf8 import is_utf8_text
from skillsite.agent.vcs_names import VCS_FOLDERS, is_vcs_folder
from skillsite.diagnostics import Diagnostic, Severity, counted, make, sort_diagnostics
from skillsite.models import NO_STAMP, BundledFile, SourceFile, Stamp, stamp_of
from skillsite.paths import is_symlink_loop, special_kind
from skillsite.source.ignore import GITIGNORE, TOOL_FOLDERS, Ignores, is_environment, rules_above

SKILL_FILE = "SKILL.md"
LOWERCASE_SKILL_FILE = "skill.md"
#: The names a skill's main file goes by, the one discovery prefers first.
SKILL_FILES = (SKILL_FILE, LOWERCASE_SKILL_FILE)
MAX_DEPTH = 100
MAX_VISITED_DIRS = 500_000
#: The most times the walk lists one real folder through symlinked folders (besides once as
#: itself).  Links that lead to one folder from many places multiply what is under it: ten links
#: in each of five folders to the next made a skill of 6 files and 50 links into 246,943 files (1.5 GB), and
#: each level more ten times that.  Past it the folder is not listed again there (SK005), and the walk
#: is done again in order, so that which paths reached it does not vary.
MAX_LINKED_WALKS = 3
#: The audit reads every file of a skill folder but those of these folders and of nested skills,
#: up to this many (:func:`skillsite.audit.files.skill_files`; discovery's listing stands in for
#: that one's where it saw all of it: :attr:`~skillsite.models.SourceFile.audited`).
AUDIT_SKIPPED_DIRS = frozenset({".git"})
AUDIT_MAX_FILES = 5000


#: A file as the audit's listing holds it: its path in the skill folder, stamp, executable bit.
_Audited = tuple[str, Stamp, bool]


@dataclass(slots=True)
class _Dir:
    """A folder the walk listed."""

    rel: str                 # id-like path relative to the root ("" for the root itself)
    seen: str                # path as reached
    real: str                # resolved path
    skill_file: str | None   # "SKILL.md", "skill.md" or None
    owner: str | None        # rel of the nearest skill folder at or above this one
    files: tuple[str, ...] = ()   # names of its plain files (a tuple of strings: no object for the collector)
    # symlinked files: name, path, target; most folders have none, and share one empty tuple: a
    # list for each of tens of thousands of folders is one more object for every full collection
    # of the garbage collector to walk, and more collections while the walk goes on
    linked: list[tuple[str, str, str]] | tuple[()] = ()

    def link(self, name: str, path: str, target: str) -> None:
        """Note a symlinked file of this folder."""
        if not self.linked:
            self.linked = []
        self.linked.append((name, path, target))


@dataclass(frozen=True)
class Discovery:
    """The skills found and what was noticed on the way."""

    sources: tuple[SourceFile, ...]
    diagnostics: tuple[Diagnostic, ...]


def inside_folder(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or lies under it (both real paths: no ``..``, no symlinks)."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def shown_name(name: str) -> str:
    """A name read from the file system as reports show it: bytes that are not UTF-8 (read back as
    lone surrogates) escaped, as in ``bad\\xff``."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _excluded(rel: str, patterns: Sequence[str]) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatchcase(rel, p) or fnmatch.fnmatchcase(name, p)
               or fnmatch.fnmatchcase(rel + "/", p) for p in patterns)


def is_file_entry(entry: os.DirEntry) -> bool:
    """Whether a listed entry is a file, following a symlink; False when it cannot be read."""
    try:
        return entry.is_file()  # follows a symlink, as os.path.isfile does
    except OSError:
        return False


def _skill_file(by_name: dict[str, os.DirEntry]) -> str | None:
    """The SKILL.md (or skill.md) of a folder listing, if it has one that is a file (a folder
    named SKILL.md is none: :func:`_skill_file_folders`)."""
    return next((name for name in SKILL_FILES if name in by_name and is_file_entry(by_name[name])), None)


def _skill_file_folders(by_name: dict[str, os.DirEntry]) -> list[str]:
    """The names of :data:`SKILL_FILES` a folder listing holds as folders (SK021)."""
    return [name for name in SKILL_FILES if name in by_name and _is_folder(by_name[name])]


def _misspelt_skill_files(by_name: dict[str, os.DirEntry]) -> list[str]:
    """The files of a folder listing named as SKILL.md in another case but for ``skill.md``
    (``Skill.md``, ``SKILL.MD``), which no agent reads as a skill (SK023), in name order."""
    return sorted(name for name, entry in by_name.items() if len(name) == len(SKILL_FILE)
                  and name.casefold() == LOWERCASE_SKILL_FILE and name not in SKILL_FILES and is_file_entry(entry))


def _may_hold_skill_file(by_name: dict[str, os.DirEntry]) -> bool:
    """Whether a listing names a SKILL.md or skill.md at all (most folders' do not: then neither
    :func:`_skill_file` nor :func:`holds_skill_file` need ask more)."""
    return SKILL_FILE in by_name or LOWERCASE_SKILL_FILE in by_name


def holds_skill_file(by_name: dict[str, os.DirEntry]) -> bool:
    """Whether the audit takes a folder with this listing for a skill of its own, not part of the
    skill above it (any SKILL.md or skill.md that is a file: :func:`skillsite.audit.files.skill_files`)."""
    return any(name in by_name and is_file_entry(by_name[name]) for name in SKILL_FILES)


class _RootWalker:
    """Walks one root, following symlinks that stay inside it, never looping."""

    def __init__(self, root: Path, exclude: Sequence[str], ordered: bool = False):
        self.root = root
        # Listings are taken in the file system's order: nothing found depends on it, except which
        # folders a walk cut short at MAX_VISITED_DIRS reached (then the walk is done again, ordered).
        self.ordered = ordered
        self.real_root = os.path.realpath(root)
        shown = os.path.normpath(str(root))
        self.shown_prefix = "" if shown == os.curdir else shown if shown.endswith(os.sep) else shown + os.sep
        self.exclude = exclude
        self.above = rules_above(root)
        self.dirs: list[_Dir] = []
        self.diags: list[Diagnostic] = []
        #: folders (rel) where the walk left out something the audit reads, or listed something it
        #: does not (see :attr:`SourceFile.audited`)
        self.partial: set[str] = set()
        self.cut = False  # stopped at MAX_VISITED_DIRS
        #: how many times each real folder was listed through symlinked folders; whether one was
        #: not listed again past MAX_LINKED_WALKS
        self.linked_walks: dict[str, int] = {}
        self.linked_cut = False
        #: places (rel) the walk could not list or tell apart (SK006): skills may lie there unseen
        self.unsearched: list[str] = []
        #: per reason (:data:`SKIP_REASONS`), how many folders the walk left out on purpose, each with all under it
        self.skipped: dict[str, int] = {}
        #: per rule ("exclude", ".gitignore"), how many folders the user's rules left out, each with all under it
        self.left_out: dict[str, int] = {}

    def show(self, rel: str) -> str:
        """How ``rel`` is shown in diagnostics: under the root as given."""
        if not rel:
            return str(self.root)
        return self.shown_prefix + rel.replace("/", os.sep)

    def walk(self) -> None:
        # stack of (seen path, rel, real path, owner rel, ancestor real paths, .gitignore rules)
        stack = [(str(self.root), "", self.real_root, None, frozenset({self.real_root}), self.above)]
        while stack:
            if len(self.dirs) >= MAX_VISITED_DIRS:
                self.diags.append(make("SK008", f"more than {MAX_VISITED_DIRS} folders; search stopped",
                                       str(self.root)))
                self.cut = True
                self.skip("past the limit", len(stack))
                return
            stack.extend(reversed(self._visit(*stack.pop())))

    def _visit(self, seen: str, rel: str, real: str, owner: str | None, ancestors: frozenset[str],
               ignores: Ignores) -> list:
        """List one folder; the folders to walk into next."""
        if not self._walk_again(rel, real):
            return []
        try:
            with os.scandir(seen) as listing:
                entries = sorted(listing, key=lambda e: e.name) if self.ordered else list(listing)
        except OSError as exc:
            self.diags.append(make("SK006", f"cannot list folder: {exc.strerror or exc}", self.show(rel)))
            self.partial.add(rel)
            self.unsearched.append(rel)
            return []
        by_name = {e.name: e for e in entries}
        if rel and (OUTPUT_MARKER in by_name or is_environment(by_name)):
            self.partial.add(rel)
            if _skill_file(by_name) is not None:
                kind = "a published catalog" if OUTPUT_MARKER in by_name else "a virtual environment"
                self._unsearched_skill(rel, _skill_file(by_name), kind)
            return []  # a published catalog (e.g. _site inside the sources) is output; a venv is a tool's
        if GITIGNORE in by_name:
            ignores = ignores.with_file(os.path.join(seen, GITIGNORE), rel)
        skill_file = None
        if _may_hold_skill_file(by_name):
            skill_file = _skill_file(by_name)
            for name in _skill_file_folders(by_name):  # a mistake, not a skill: say so, as SK013 cannot
                self.diags.append(make("SK021", f"'{name}' is a folder, not a file: no skill is read from it",
                                       self.show(f"{rel}/{name}" if rel else name)))
            if skill_file is not None and not self._stays_inside(by_name[skill_file]):
                skill_file = None  # a SKILL.md linked from outside the root is never read (SK002 says so)
            # the audit would tell nested skills apart otherwise (a folder with a skill file holds one for it too)
            if skill_file is None and holds_skill_file(by_name):
                self.partial.add(rel)
        if skill_file is None:
            for name in _misspelt_skill_files(by_name):
                self.diags.append(make("SK023", f"file is named '{name}'; a skill's file is 'SKILL.md' "
                                                "(or 'skill.md'), so this folder is not read as a skill",
                                       self.show(f"{rel}/{name}" if rel else name)))
        node = _Dir(rel, seen, real, skill_file, rel if skill_file else owner)
        self.dirs.append(node)
        children = self._entries(node, entries, ancestors, ignores)
        if children and (rel.count("/") + 1 if rel else 0) >= MAX_DEPTH:
            self.diags.append(make("SK008", f"nesting deeper than {MAX_DEPTH} folders; not searched further",
                                   self.show(rel)))
            self.partial.add(rel)
            self.skip("too deep", len(children))
            return []
        return children

    def _walk_again(self, rel: str, real: str) -> bool:
        """Whether a folder is listed: always as itself, through symlinked folders (its real path
        is not where ``rel`` lies) up to MAX_LINKED_WALKS times."""
        if real == os.path.join(self.real_root, rel) if rel else real == self.real_root:
            return True
        walks = self.linked_walks.get(real, 0) + 1
        self.linked_walks[real] = walks
        if walks <= MAX_LINKED_WALKS:
            return True
        if walks == MAX_LINKED_WALKS + 1:
            self.diags.append(make("SK005", f"folder reached through symlinks more than {MAX_LINKED_WALKS} times; "
                                            "not followed here or further", self.show(rel)))
        self.linked_cut = True  # no skill is left unseen: the folder was listed where it is
        return False

    def skip(self, reason: str, folders: int) -> None:
        """Note ``folders`` left out on purpose (``reason``: a key of :data:`SKIP_REASONS`): skills
        may lie there unseen."""
        if folders:
            self.skipped[reason] = self.skipped.get(reason, 0) + folders

    def leave_out(self, rule: str, entry: os.DirEntry) -> None:
        """Note an entry the user's ``rule`` left out when it is, or may be, a folder: SK013 counts
        them, as a source gitignored or excluded whole is a common mistake."""
        if _may_be_folder(entry):
            self.left_out[rule] = self.left_out.get(rule, 0) + 1

    def _stays_inside(self, entry: os.DirEntry) -> bool:
        """Whether an entry is no symlink, or one whose target is inside the root."""
        try:
            return not entry.is_symlink() or inside_folder(os.path.realpath(entry.path), self.real_root)
        except OSError:
            return False

    def _tool_folder_skill(self, rel: str, path: str) -> None:
        """SK025 when the tool's folder at ``rel`` (``node_modules``, ``__pycache__``; not a version
        control folder) holds a SKILL.md itself: a skill folder given such a name is never searched."""
        for name in SKILL_FILES:
            if os.path.isfile(os.path.join(path, name)):
                self._unsearched_skill(rel, name, "a tool's folder")
                return

    def _unsearched_skill(self, rel: str, skill_file: str, kind: str) -> None:
        """SK025: the folder at ``rel``, never searched (``kind``), holds ``skill_file``.  Agents that
        read the folder as a skill load it; unsaid, it would be hidden from validate and the audit."""
        self.diags.append(make("SK025", f"'{rel.rpartition('/')[2]}' is never searched ({kind}): the skill in "
                                        "it is not read, checked or audited, though an agent reading the folder "
                                        "loads it; rename the folder or move the skill",
                               self.show(f"{rel}/{skill_file}")))

    def _entries(self, node: _Dir, entries: list[os.DirEntry], ancestors: frozenset[str], ignores: Ignores
                 ) -> list:
        """Note a folder's files; its subfolders (and symlinked folders) to walk into."""
        prefix = f"{node.rel}/" if node.rel else ""
        real_prefix = node.real if node.real.endswith(os.sep) else node.real + os.sep
        children, files = [], []
        for entry in entries:
            name = entry.name
            tool = is_tool_folder(name)
            if tool or (self.exclude and _excluded(prefix + name, self.exclude)):
                if not (name in AUDIT_SKIPPED_DIRS and _is_folder(entry)):
                    self.partial.add(node.rel)
                if tool and name in TOOL_FOLDERS and name not in VCS_FOLDERS and _is_folder(entry):
                    self._tool_folder_skill(prefix + name, entry.path)
                if not tool:
                    self.leave_out("exclude", entry)
                continue
            if ignores.rules and ignores.ignored(prefix + name, _is_folder(entry)):
                self.partial.add(node.rel)
                self.leave_out(GITIGNORE, entry)
                continue
            if not name.isascii() and not is_utf8_text(name):  # a URL, an archive or a JSON manifest cannot name it
                self.diags.append(make("SK011", "name is not valid UTF-8; skipped",
                                       self.show(prefix + shown_name(name))))
                self.partial.add(node.rel)
                self.skip("not UTF-8", _may_be_folder(entry))
                continue
            try:
                if entry.is_file(follow_symlinks=False):
                    files.append(name)
                elif entry.is_dir(follow_symlinks=False):
                    child_real = real_prefix + name
                    children.append((entry.path, prefix + name, child_real, node.owner, ancestors | {child_real},
                                     ignores))
                elif entry.is_symlink():
                    child = self._follow(entry, prefix + name, ancestors, node, ignores)
                    if child is not None:
                        children.append(child)
                        self.partial.add(node.rel)  # the audit does not walk into a symlinked folder
                else:  # reading a pipe would wait forever, a device could be endless
                    kind = special_kind(entry.stat(follow_symlinks=False).st_mode)
                    self.diags.append(make("SK012", f"{kind}, not a regular file; skipped", self.show(prefix + name)))
            except OSError as exc:
                self.diags.append(make("SK006", f"cannot read: {exc.strerror or exc}", self.show(prefix + name)))
                self.partial.add(node.rel)
                self.unsearched.append(prefix + name)
        node.files = tuple(files)
        return children

    def _follow(self, entry: os.DirEntry, rel: str, ancestors: frozenset[str], node: _Dir, ignores: Ignores
                ) -> tuple | None:
        """A symlink: followed only inside the root and never round a loop; a folder to walk into, if any."""
        target = os.path.realpath(entry.path)
        if not os.path.exists(target):
            self.diags.append(make("SK005", _dead_end(entry.path), self.show(rel)))
            return None
        if not inside_folder(target, self.real_root):
            self.diags.append(make("SK002", "symlink points outside the source root; not followed", self.show(rel)))
            return None
        if os.path.isdir(target):
            if target in ancestors:
                self.diags.append(make("SK005", "symlink loop (points at an enclosing folder); not followed",
                                       self.show(rel)))
                return None
            return (entry.path, rel, target, node.owner, ancestors | {target}, ignores)
        if not os.path.isfile(target):
            self.diags.append(make("SK005", "symlink to something that is neither a file nor a folder (a pipe, socket "
                                            "or device); not followed", self.show(rel)))
            return None
        node.link(entry.name, entry.path, target)
        return None


def _dead_end(link: str) -> str:
    """Why a symlink that leads to nothing does: its links go round a loop, or its target is missing."""
    if is_symlink_loop(link):
        return "symlink loop (its links lead round in a circle); not followed"
    return "broken symlink; not followed"


#: The ASCII characters a name :func:`is_vcs_folder` takes for a version-control folder may start
#: with: those its names start with, in either case (NTFS's short name ``git~1`` among them).
#: Folding an ASCII character's case gives no other, and the characters HFS+ ignores are not
#: ASCII, so a name starting with any other ASCII character is none (most names, asked of each).
_VCS_ASCII_STARTS = frozenset(c for name in (*VCS_FOLDERS, "git~1") for c in (name[0].lower(), name[0].upper()))


def is_tool_folder(name: str) -> bool:
    """Whether a name is a tool's folder (never searched, never published): a version-control
    folder however a file system may spell it (``.GIT`` is ``.git`` on macOS)."""
    if name in TOOL_FOLDERS:
        return True
    first = name[:1]
    return (first in _VCS_ASCII_STARTS or not first.isascii()) and is_vcs_folder(name)


def _is_folder(entry: os.DirEntry) -> bool:
    """Whether an entry is a folder itself (git sees a symlink as a file, whatever it points to)."""
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _may_be_folder(entry: os.DirEntry) -> bool:
    """Whether an entry is, or may be, a folder (following a symlink): one that cannot be told
    apart may be."""
    try:
        return entry.is_dir()
    except OSError:
        return True


def _walk(root: Path, exclude: Sequence[str]) -> _RootWalker:
    walker = _RootWalker(root, exclude)
    walker.walk()
    if len(walker.dirs) >= MAX_VISITED_DIRS or walker.linked_cut:  # cut short: what was reached must not vary
        walker = _RootWalker(root, exclude, ordered=True)
        walker.walk()
    return walker


class _RootSkills:
    """The skills of one walked root: each real folder once, its bundled files, its parent skill."""

    def __init__(self, walker: _RootWalker, stat_files: bool):
        self.walker = walker
        self.stat_files = stat_files
        self.diags = walker.diags
        self.by_rel = {d.rel: d for d in walker.dirs}
        root_is_skill = bool(walker.dirs) and walker.dirs[0].skill_file is not None
        self.prefix = os.path.basename(walker.real_root) if root_is_skill else ""
        self.skill_dirs = [d for d in walker.dirs if d.skill_file]
        self.winner = self._unique_folders()
        self.kept = {d.rel for d in self.winner.values()}
        #: per kept skill folder, what its audit reads as discovery saw it: each file's folder (its
        #: path in the skill, as a tuple of names) and stamp, in one list per skill (not one per folder:
        #: fewer objects for the garbage collector to walk)
        self.seen_by_audit: dict[str, list[tuple[tuple[str, ...], _Audited]]] = {rel: [] for rel in self.kept}
        #: per kept skill folder (rel), its SKILL.md's size and time (with ``stat_files``)
        self.skill_stamps: dict[str, Stamp] = {}
        #: the paths of the folders holding skill folders, by rel (see :meth:`_skill_path`)
        self.paths: dict[str, Path] = {}

    def skill_id(self, rel: str) -> str:
        if self.prefix and rel:
            return f"{self.prefix}/{rel}"
        return self.prefix or rel or os.path.basename(self.walker.real_root)

    def _rank(self, d: _Dir) -> tuple[int, int, str]:
        skill_id = self.skill_id(d.rel)
        return skill_id.count("/"), len(skill_id), skill_id

    def _unique_folders(self) -> dict[str, _Dir]:
        """Real folder -> the skill folder reported for it: the shortest id wins (SK003 for the others)."""
        winner: dict[str, _Dir] = {}
        for d in self.skill_dirs:
            if d.real not in winner or self._rank(d) < self._rank(winner[d.real]):
                winner[d.real] = d
        for d in self.skill_dirs:
            win = winner[d.real]
            if win is not d:
                self.diags.append(make("SK003", f"same folder as skill '{self.skill_id(win.rel)}'; reported once, "
                                                "under that id", self.walker.show(_join(d.rel, d.skill_file))))
        return winner

    def sources(self) -> list[SourceFile]:
        files_of, stamps = self._bundled_files()
        audited = self._audited_listings()
        found = []
        for d in self.skill_dirs:
            if d.rel not in self.kept:
                continue
            rel_md = _join(d.rel, d.skill_file)
            if d.skill_file == LOWERCASE_SKILL_FILE:
                self.diags.append(make("SK001", "file is named 'skill.md'; the specification names it 'SKILL.md'",
                                       self.walker.show(rel_md)))
            skill_md = self._skill_path(d)
            found.append(SourceFile(
                id=self.skill_id(d.rel), root=self.walker.root, dir=skill_md.parent, skill_md=skill_md,
                display_path=self.walker.show(rel_md), rel_path=rel_md, parent_id=self._parent(d),
                files=tuple(sorted(files_of[d.rel], key=lambda f: f.path)), stamp=stamps.get(d.rel, NO_STAMP),
                audited=audited.get(d.rel)))
        return found

    def _skill_path(self, d: _Dir) -> Path:
        """The path of skill folder ``d``'s SKILL.md as reached: its parent folder's path (made once
        for all the skills in that folder) joined with its name and the file's (the folder was
        listed there: ``d.seen`` is the two joined)."""
        if not d.rel:
            return Path(d.seen, d.skill_file)
        up, _, name = d.rel.rpartition("/")
        folder = self.paths.get(up)
        if folder is None:
            folder = self.paths[up] = Path(self.by_rel[up].seen)
        return folder.joinpath(name, d.skill_file)

    def _parent(self, d: _Dir) -> str | None:
        """The id of the nearest skill above ``d``, if any."""
        if not d.rel:
            return None
        up = d.rel.rsplit("/", 1)[0] if "/" in d.rel else ""
        owner = self.by_rel[up].owner if up in self.by_rel else None
        return None if owner is None else self.skill_id(self.winner[self.by_rel[owner].real].rel)

    def _bundled_files(self) -> tuple[dict[str, list[BundledFile]], dict[str, Stamp]]:
        """Each kept skill's bundled files, and its SKILL.md's size and time (with ``stat_files``)."""
        files_of: dict[str, list[BundledFile]] = {rel: [] for rel in self.kept}
        for d in self.walker.dirs:
            if d.owner in files_of:
                self._files_of_folder(d, self.by_rel[d.owner], files_of[d.owner])
        return files_of, self.skill_stamps

    def _audited_listings(self) -> dict[str, tuple[_Audited, ...]]:
        """What the audit reads in each kept skill folder whose files discovery saw every one of
        (by rel): its files' stamps in the audit's order (:func:`skillsite.audit.files.skill_files`:
        a folder's files by name, then its folders by name, each with everything under it, which
        is the order of the folders' paths as tuples of names)."""
        if not self.stat_files or self.walker.cut:
            return {}
        partial = {self._owner_of(rel) for rel in self.walker.partial}
        listings = {}
        for rel, files in self.seen_by_audit.items():
            if rel not in partial:
                listed = tuple(stamp for _, stamp in sorted(files))  # by folder, then in a folder by path: by name
                if len(listed) <= AUDIT_MAX_FILES:
                    listings[rel] = listed
        return listings

    def _owner_of(self, rel: str) -> str | None:
        """The skill folder a folder's files belong to (one the walk did not list: its parent's)."""
        while rel not in self.by_rel and rel:
            rel = rel.rsplit("/", 1)[0] if "/" in rel else ""
        return self.by_rel[rel].owner if rel in self.by_rel else None

    def _files_of_folder(self, d: _Dir, owner: _Dir, found: list[BundledFile]) -> None:
        """The files of folder ``d`` that belong to skill ``owner``."""
        in_skill = f"{d.rel}/"[len(owner.rel) + 1:] if owner.rel else (f"{d.rel}/" if d.rel else "")
        audited: list[_Audited] = []
        if d.files:
            seen_dir, real_dir = _as_folder(d.seen), _as_folder(d.real)
            inside = inside_folder(d.real, owner.real)  # a plain file is inside exactly when its folder is
            for name in d.files:
                self._file(d, name, seen_dir + name, real_dir + name, inside, in_skill, found, audited)
        for name, seen, real in d.linked:
            self._file(d, name, seen, real, inside_folder(real, owner.real), in_skill, found, audited)
        if audited:
            folder = tuple(in_skill.split("/")[:-1])
            self.seen_by_audit[owner.rel].extend((folder, stamp) for stamp in audited)

    def _file(self, d: _Dir, name: str, seen: str, real: str, inside: bool, in_skill: str,
              found: list[BundledFile], audited: list[_Audited]) -> None:
        """One file of folder ``d`` (reached as ``seen``, at ``real``; ``inside`` its skill folder):
        a bundled file, the skill's own SKILL.md (its stamp put in ``skill_stamps``), or SK007.
        (Its path in the skill is UTF-8 text: the walk left out every other name.)"""
        is_skill_file = not in_skill and name == d.skill_file
        stamp = NO_STAMP
        if self.stat_files and (inside or is_skill_file):
            st = self._stat(real, d.rel, name, not is_skill_file)
            if st is not None:
                stamp = stamp_of(st)
                if inside and stat.S_ISREG(st.st_mode):
                    audited.append((in_skill + name, stamp, bool(st.st_mode & 0o111)))
        if is_skill_file:
            if self.stat_files:
                self.skill_stamps[d.rel] = stamp
        elif not inside:
            self.diags.append(make("SK007", "symlink points outside the skill folder; file not published",
                                   self.walker.show(_join(d.rel, name))))
        else:
            found.append(BundledFile(in_skill + name, seen, *stamp))

    def _stat(self, real: str, folder: str, name: str, bundled: bool = False) -> os.stat_result | None:
        """A file's status (by its real path: a symlink's target; ``name`` in the walk's ``folder``);
        None, said, when it cannot be read (a ``bundled`` file: also when its mode does not let this
        process read it, asked of the system only for a file not readable by everyone)."""
        try:
            st = os.stat(real)
            if bundled and not st.st_mode & stat.S_IROTH and stat.S_ISREG(st.st_mode) and not os.access(real, os.R_OK):
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), real)
            return st
        except OSError as exc:
            self.diags.append(make("SK006", f"cannot read: {exc.strerror or exc}",
                                   self.walker.show(_join(folder, name))))
            self.walker.partial.add(folder)
            return None


def _as_folder(path: str) -> str:
    """``path`` (not empty) ending in the separator, as ``os.path.join(path, "")`` makes it."""
    return path if path.endswith(os.sep) else path + os.sep


def _join(rel: str, name: str | None) -> str:
    return f"{rel}/{name}" if rel else str(name)


#: Why the walk leaves folders out on purpose, each with all under it (SK011, SK008 name them),
#: in the order SK013 says them.
SKIP_REASONS = ("not UTF-8", "too deep", "past the limit")


def _skipped_text(reason: str, folders: int) -> str:
    """``folders`` left out on purpose for ``reason`` (of :data:`SKIP_REASONS`), in words."""
    if reason == "not UTF-8":
        return ("1 folder whose name is" if folders == 1 else f"{folders:,} folders whose names are") + \
            " not valid UTF-8"
    where = f"more than {MAX_DEPTH} levels deep" if reason == "too deep" else \
        f"past the limit of {MAX_VISITED_DIRS:,} searched"
    return f"{counted(folders, 'folder')} {where}"


def _left_out_text(left_out: dict[str, int]) -> str:
    """How many folders ``exclude`` and .gitignore files left out (``left_out``: per rule)."""
    counts = [(rule, left_out[rule]) for rule in ("exclude", GITIGNORE) if left_out.get(rule)]
    was = "was" if counts[0][1] == 1 else "were"
    said = f"{counted(counts[0][1], 'folder')} {was} left out by {counts[0][0]}"
    return said + "".join(f" and {folders:,} by {rule}" for rule, folders in counts[1:])


def _nothing_found(skipped: dict[str, int], left_out: dict[str, int]) -> str:
    """SK013's message: no SKILL.md under a root, or (when the walk left folders out, ``skipped``
    on purpose, ``left_out`` by the user's exclude and .gitignore rules) none in the part of it
    searched, which is all that is known, and why the folders were left out, in words: the codes
    that name those skipped (SK008, SK011) may be silenced (--ignore), and nothing names the others."""
    if not skipped and not left_out:
        return ("no SKILL.md found under this folder (a skill is a folder holding a SKILL.md: "
                "`skillsite new NAME` makes one)")
    parts = ["no SKILL.md found in the part of this folder that was searched"]
    if skipped:
        said = " and ".join(_skipped_text(reason, skipped[reason]) for reason in SKIP_REASONS if reason in skipped)
        parts.append(f"{said} {'was' if sum(skipped.values()) == 1 else 'were'} skipped")
    if left_out:
        parts.append(_left_out_text(left_out))
    return "; ".join(parts)


def discover(roots: Sequence[Path | str], exclude: Sequence[str] = (), stat_files: bool = True) -> Discovery:
    """Find every skill under ``roots``; a later root's skill overrides an earlier one's id.

    Without ``stat_files`` the size and modification time of files are left at 0 (validation
    needs only their names).
    """
    found: dict[str, SourceFile] = {}
    diags: list[Diagnostic] = []
    for root in roots:
        if not is_utf8_text(str(root)):  # every path shown of a skill under it would hold the name
            diags.append(make("SK011", "source folder's name is not valid UTF-8 (a URL, an archive or a JSON "
                                       "manifest could not name what is under it); not searched: name it "
                                       "from inside, or rename it", shown_name(str(root)), severity=Severity.ERROR))
            continue
        skills = _RootSkills(_walk(Path(root), exclude), stat_files)
        if not is_utf8_text(skills.prefix):  # a skill itself, its id is its real folder's name
            diags.append(make("SK011", "skill folder's name is not valid UTF-8 (a URL, an archive or a JSON manifest "
                                       "could not name it); not published: rename it",
                              shown_name(skills.walker.real_root), severity=Severity.ERROR))
            continue
        sources = skills.sources()
        diags.extend(skills.diags)
        if not sources and not skills.walker.unsearched:
            # (a folder that cannot be listed, the root or one inside it, may hold skills: its SK006
            # names it and says why none was found there; "none under this folder" would not be known)
            diags.append(make("SK013", _nothing_found(skills.walker.skipped, skills.walker.left_out), str(root)))
        for src in sources:
            earlier = found.get(src.id)
            if earlier is not None:
                diags.append(make("SK004", f"skill '{src.id}' is overridden by {src.display_path}",
                                  earlier.display_path))
            found[src.id] = src
    return Discovery(tuple(sorted(found.values(), key=lambda s: s.id)), tuple(sort_diagnostics(diags)))
