"""Releases from git: every version a skill has had in HEAD's history, and where its files are.

A skill's releases are the (canonical) versions its SKILL.md carried in the first-parent
history of HEAD; a release's files are the skill folder at the last commit that carried its
version, or at the commit a tag ``<name>--v<version>`` names; the current version's are the
working tree's.  A source that is not in a repository, or is a shallow clone, has only the
current version (SK221, once per root).  A skill changed since the commit that set its current
version gets SK222.  Only roots holding a skill with a valid version run git at all.

The history (per skill: each commit that touched it, with its version) is cached by HEAD; a
past release's file list by its commit; both never go stale.
"""
from __future__ import annotations

import dataclasses
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, Sequence


from skillsite.agent.utf8 import is_utf8_text
from skillsite.cache import Cache, KeptObjects, Section, digest, kept_or_made
from skillsite.diagnostics import Diagnostic, make, merge_diagnostics, sort_diagnostics
from skillsite.models import CatalogReading, Skill, SourceFile
from skillsite.source.discover import SKILL_FILES, _excluded, is_tool_folder
from skillsite.source.frontmatter import parse_frontmatter_text
from skillsite.source.frontmatter_yaml import FrontmatterError
from skillsite.source.git_history import (MAX_TREE_FILES, SUBMODULE_MODE, SYMLINK_MODE, GitError, ObjectReader,
                                          Repository, dirty_paths, first_parent_log, is_ancestor, open_repository,
                                          run_git, tags)
from skillsite.source.ignore import (ENVIRONMENT_MARKERS, GITIGNORE, MAX_GITIGNORE_BYTES, Ignores,
                                     rules_above, rules_of)
from skillsite.bounded import read_limited
from skillsite.source.parse import decode_skill_md, split_frontmatter
from skillsite.source.release_links import followed_links
from skillsite.source.versioning import canonical_version, precedence

TAG_SEPARATOR = "--"


@dataclass(frozen=True)
class ReleaseFile:
    """A file of a past release, in git."""

    path: str      # relative to the skill folder
    blob: str
    size: int


@dataclass(frozen=True)
class Release:
    """One version of a skill: where its files are (``files`` None: the working tree's)."""

    version: str                               # canonical
    commit: str | None                         # None: not committed as it is published
    date: str | None
    files: tuple[ReleaseFile, ...] | None = None


@dataclass(frozen=True)
class SkillReleases:
    """Every release of one skill, oldest first by precedence, and the repository they are in."""

    skill_id: str
    current: str                               # the working tree's canonical version
    releases: tuple[Release, ...]
    top: str | None = None                     # the repository's top folder (None: no history)

    @property
    def versions(self) -> list[str]:
        return [r.version for r in self.releases]


class Versioned(Protocol):
    """What reading a skill's releases needs of it (a :class:`~skillsite.models.Skill` has it all)."""

    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def version(self) -> str | None: ...
    @property
    def source(self) -> SourceFile: ...


@dataclass(frozen=True)
class VersionedSkill:
    """A skill as the catalog-wide checks know it, before it is read whole: enough to find its
    releases."""

    id: str
    name: str
    version: str | None
    source: SourceFile


@dataclass(frozen=True)
class History:
    """What reading the releases gave: the releases by skill id, and the reading with their diagnostics."""

    releases: dict[str, SkillReleases]
    reading: CatalogReading


def version_line(raw: bytes) -> tuple[int, int]:
    """Where a SKILL.md's frontmatter writes its version (line, column), else (1, 1)."""
    lines = raw.decode("utf-8", "replace").split("\n")
    for number, line in enumerate(lines[1:], start=2):
        if line.rstrip() == "---":
            break
        match = re.match(r"^(\s*)version\s*:", line)
        if match:
            return number, len(match.group(1)) + 1
    return 1, 1


def _version_line(skill: Versioned, max_bytes: int) -> tuple[int, int]:
    """Where a skill's SKILL.md writes its version, read again for a warning ((1, 1) when it
    cannot be)."""
    try:
        return version_line(read_limited(skill.source.skill_md, max_bytes)[0])
    except OSError:
        return 1, 1


def blob_version(raw: bytes | None) -> str | None:
    """The canonical version a SKILL.md's bytes carry (None: none, or unreadable)."""
    if raw is None:
        return None
    try:
        split = split_frontmatter(decode_skill_md(raw))
        if split is None:
            return None
        data, _, _ = parse_frontmatter_text(split[0], "SKILL.md", 1)
    except FrontmatterError:
        return None
    data = data if isinstance(data, dict) else {}
    meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    for value in (data.get("version"), meta.get("version")):
        if isinstance(value, str) and value.strip():
            return canonical_version(value.strip())
    return None


def read_releases(reading: CatalogReading, cache: Cache | None, *, exclude: Sequence[str] = (),
                  max_bytes: int = 1 << 20, ignore: Sequence[str] = ()) -> History:
    """The releases of every kept skill with a valid version, and the reading with SK221/SK222 added."""
    found, diags = _releases(reading.skills, cache, exclude, max_bytes)
    diags = [d for d in diags if d.code not in set(ignore)]
    return History(found, _with_diagnostics(reading, diags, cache.resident if cache is not None else None))


def release_versions(skills: Sequence[Versioned], cache: Cache | None, *, exclude: Sequence[str] = (),
                     max_bytes: int = 1 << 20) -> dict[str, list[str]]:
    """Each versioned skill's releases (canonical versions, oldest first), by id: what ranges of
    dependencies are matched against (the same reading as :func:`read_releases`, cached alike)."""
    found, _ = _releases(skills, cache, exclude, max_bytes)
    return {skill_id: releases.versions for skill_id, releases in found.items()}


def _releases(skills: Sequence[Versioned], cache: Cache | None, exclude: Sequence[str], max_bytes: int
              ) -> tuple[dict[str, SkillReleases], list[Diagnostic]]:
    """The releases of those of ``skills`` with a valid version, read root by root, and SK221/SK222."""
    by_root: dict[str, list[Versioned]] = {}
    for skill in skills:
        if canonical_version(skill.version) is not None:
            by_root.setdefault(str(skill.source.root), []).append(skill)
    found: dict[str, SkillReleases] = {}
    diags: list[Diagnostic] = []
    for root, members in by_root.items():
        root_releases, root_diags = _root_releases(root, members, cache, exclude, max_bytes)
        found.update(root_releases)
        diags += root_diags
    return found, diags


#: Where a long-running process's resident objects keep each skill with its release diagnostics (by its id).
WITH_RELEASES = "with release diagnostics"


def _with_diagnostics(reading: CatalogReading, diags: list[Diagnostic],
                      resident: KeptObjects | None = None) -> CatalogReading:
    """The reading with these diagnostics added, to the catalog's (sorted already: these few are
    merged into them, not all sorted again) and to each skill's own; in a long-running process, a
    skill given the same ones as by the last build is that build's object (``serve`` keeps each
    unchanged skill, and what is made of it, by that object)."""
    if not diags:
        return reading
    by_path: dict[str, list[Diagnostic]] = {}
    for d in diags:
        by_path.setdefault(d.path, []).append(d)
    skills = tuple(_with_own(s, tuple(by_path[path]), resident) if (path := s.source.display_path) in by_path else s
                   for s in reading.skills)
    return dataclasses.replace(reading, skills=skills,
                               diagnostics=tuple(merge_diagnostics(reading.diagnostics, diags)))


def _with_own(skill: Skill, diags: tuple[Diagnostic, ...], resident: KeptObjects | None) -> Skill:
    """``skill`` with its release diagnostics ``diags`` added to its own."""
    return kept_or_made(resident, WITH_RELEASES, skill.id, skill, diags, lambda: dataclasses.replace(
        skill, diagnostics=tuple(sort_diagnostics([*skill.diagnostics, *diags]))))


def _current_only(skills: Sequence[Versioned]) -> dict[str, SkillReleases]:
    current = {}
    for skill in skills:
        version = canonical_version(skill.version) or ""
        current[skill.id] = SkillReleases(skill.id, version, (Release(version, None, None),))
    return current


def _root_releases(root: str, skills: list[Versioned], cache: Cache | None, exclude: Sequence[str], max_bytes: int
                   ) -> tuple[dict[str, SkillReleases], list[Diagnostic]]:
    """The releases of the versioned skills of one source root."""
    try:
        repo = open_repository(root)
        return _RootHistory(repo, root, skills, cache, exclude, max_bytes).releases()
    except GitError as exc:
        return _current_only(skills), [make("SK221", f"no release history: {exc}; only the current version of "
                                                     "each skill is published", root)]


class _RootHistory:
    """The history of the skills of one source root in its repository."""

    def __init__(self, repo: Repository, root: str, skills: list[Versioned], cache: Cache | None,
                 exclude: Sequence[str], max_bytes: int):
        self.repo, self.root, self.skills, self.cache = repo, root, skills, cache
        self.exclude, self.max_bytes = exclude, max_bytes
        # skill folder from the repository's top ("" for the top itself) -> skill
        self.folders = {posixpath.dirname(repo.prefix + s.source.rel_path): s for s in skills}
        self._reader: ObjectReader | None = None

    def releases(self) -> tuple[dict[str, SkillReleases], list[Diagnostic]]:
        try:
            history = self._history()
            tagged = tags(self.repo.top)
            dirty = {self._owner(path) for path in dirty_paths(self.repo.top, self.repo.prefix)
                     if self._published(path)}
            found, diags = {}, []
            for folder, skill in self.folders.items():
                entries = [tuple(e) for e in history.get(folder, [])]
                marked, refused = self._checked_tags(skill, folder, self._tagged(skill, tagged))
                diags += refused
                found[skill.id] = self._skill_releases(skill, folder, entries, marked, folder in dirty)
                if self._changed(skill, entries, folder in dirty):
                    diags.append(make("SK222", f"skill changed since the commit that set its version "
                                               f"{skill.version}; bump the version",
                                      skill.source.display_path, *_version_line(skill, self.max_bytes)))
                elif self._reused(skill, folder, entries):
                    diags.append(make("SK222", f"version {skill.version} was released before with other files; "
                                               "bump the version", skill.source.display_path,
                                      *_version_line(skill, self.max_bytes)))
            return found, diags
        finally:
            if self._reader is not None:
                self._reader.close()

    def _owner(self, path: str) -> str | None:
        """The skill folder a path (from the top) belongs to: the deepest one holding it."""
        folder = posixpath.dirname(path)
        while True:
            if folder in self.folders:
                return folder
            if not folder:
                return None
            folder = posixpath.dirname(folder)

    def _published(self, path: str) -> bool:
        """Whether a path (from the top) is one discovery could publish as a skill's file: not in a
        tool folder (``__pycache__``, ``node_modules`` ...) of the skill, nor left out by ``exclude``
        (a change there changes no release: no SK222 for it)."""
        owner = self._owner(path)
        if owner is None:
            return False
        parts = path[len(owner) + 1 if owner else 0:].split("/")
        return not _left_out(parts, path[len(self.repo.prefix):], self.exclude)

    def _history(self) -> dict[str, list[list[Any]]]:
        """Per skill folder, each commit that touched a file it could publish, oldest first:
        [commit, date, version]."""
        names = sorted((folder, posixpath.basename(s.source.rel_path)) for folder, s in self.folders.items())
        key = digest("history", self.repo.top, self.repo.prefix, self.repo.head, names, self.max_bytes,
                     list(self.exclude))
        stored = self.cache.get(Section.HISTORY, key) if self.cache is not None else None
        if stored is not None:
            return stored
        files = dict(names)
        blob_of: dict[str, str | None] = {}
        touched: dict[str, list[tuple[str, str, str | None]]] = {}
        for commit in first_parent_log(self.repo.top, self.repo.prefix):
            hit: dict[str, dict[str, str | None]] = {}  # owner -> its SKILL.md/skill.md this commit changed
            for change in commit.changes:
                owner = self._owner(change.path)
                if owner is None or not self._published(change.path):
                    continue
                main = hit.setdefault(owner, {})
                if posixpath.dirname(change.path) == owner and posixpath.basename(change.path) in SKILL_FILES:
                    plain = change.mode not in (SYMLINK_MODE, SUBMODULE_MODE)
                    main[posixpath.basename(change.path)] = change.blob if plain else None
            for owner, main in hit.items():
                blob_of[owner] = _main_blob(main, files[owner], blob_of.get(owner))
            for owner in sorted(hit):
                touched.setdefault(owner, []).append((commit.id, commit.date, blob_of.get(owner)))
        versions = self._blob_versions({b for entries in touched.values() for _, _, b in entries if b})
        history = {owner: [[c, d, versions.get(b) if b else None] for c, d, b in entries]
                   for owner, entries in touched.items()}
        if self.cache is not None:
            self.cache.put(Section.HISTORY, key, history)
        return history

    def reader(self) -> ObjectReader:
        if self._reader is None:
            self._reader = ObjectReader(self.repo.top)
        return self._reader

    def _blob_versions(self, blobs: set[str]) -> dict[str, str | None]:
        return {blob: blob_version(self.reader().read(blob, self.max_bytes)) for blob in sorted(blobs)}

    def _tagged(self, skill: Versioned, tagged: dict[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
        """The releases this skill's tags mark: canonical version -> (commit, date)."""
        prefix = f"{skill.name}{TAG_SEPARATOR}"
        marked = {}
        for name, target in sorted(tagged.items()):
            if name.startswith(prefix) and name[len(prefix):][:1] in ("v", "V"):
                version = canonical_version(name[len(prefix):])
                if version is not None:
                    marked[version] = target
        return marked

    def _checked_tags(self, skill: Versioned, folder: str, marked: dict[str, tuple[str, str]]
                      ) -> tuple[dict[str, tuple[str, str]], list[Diagnostic]]:
        """The tags that name a release the skill had: on a commit of HEAD's history whose
        SKILL.md carries the tag's version; SK230 for each other one (a tag is a name anyone can
        put on any commit: it must not publish other files under a version)."""
        kept, diags = {}, []
        for version, (commit, date) in marked.items():
            problem = None
            if not is_ancestor(self.repo.top, commit, self.repo.head):
                problem = "is on a commit outside the history of HEAD"
            else:
                files = self._release_files(commit, folder, posixpath.basename(skill.source.rel_path))
                main = next((f for f in files or () if f.path in SKILL_FILES), None)
                carried = blob_version(self.reader().read(main.blob, self.max_bytes)) if main else None
                if carried != version:
                    problem = f"is on a commit whose SKILL.md carries version {carried or 'none'}"
            if problem is None:
                kept[version] = (commit, date)
            else:
                diags.append(make("SK230", f"tag {skill.name}{TAG_SEPARATOR}v{version} {problem}; it is not published "
                                           "as that release", skill.source.display_path,
                                  *_version_line(skill, self.max_bytes)))
        return kept, diags

    def _skill_releases(self, skill: Versioned, folder: str, entries: list[tuple[Any, ...]],
                        tagged: dict[str, tuple[str, str]], dirty: bool) -> SkillReleases:
        """A skill's releases: the last commit carrying each version (a tag's commit first)."""
        current = canonical_version(skill.version) or ""
        last: dict[str, tuple[str, str]] = {}
        for commit, date, version in entries:
            if version is not None:
                last[version] = (commit, date)
        last.update(tagged)
        releases = []
        for version, (commit, date) in last.items():
            if version == current:
                continue
            files = self._release_files(commit, folder, posixpath.basename(skill.source.rel_path))
            if files is not None:
                releases.append(Release(version, commit, date, files))
        committed = bool(entries) and entries[-1][2] == current and not dirty
        head = (entries[-1][0], entries[-1][1]) if committed else (None, None)
        releases.append(Release(current, *head))
        releases.sort(key=lambda r: precedence(r.version))
        return SkillReleases(skill.id, current, tuple(releases), self.repo.top)

    def _changed(self, skill: Versioned, entries: list[tuple[Any, ...]], dirty: bool) -> bool:
        """Whether the skill changed since the commit that set its current version (the first of
        the newest run of commits carrying it); never when that version is not committed yet."""
        current = canonical_version(skill.version)
        if not entries or entries[-1][2] != current:
            return False
        run = 0
        while run < len(entries) and entries[-1 - run][2] == current:
            run += 1
        return dirty or run > 1

    def _reused(self, skill: Versioned, folder: str, entries: list[tuple[Any, ...]]) -> bool:
        """Whether the current version, set again after other versions, had other files the
        last time it was released (going back to 1.1.0 after 2.0.0 republishes 1.1.0)."""
        current = canonical_version(skill.version)
        run = 0
        while run < len(entries) and entries[-1 - run][2] == current:
            run += 1
        before = [e[0] for e in entries[:len(entries) - run] if e[2] == current]
        if not run or not before:
            return False
        trees = run_git(self.repo.top, "rev-parse", f"{before[-1]}:{folder}", f"{entries[-1][0]}:{folder}").split()
        return len(trees) != 2 or trees[0] != trees[1]

    def _release_files(self, commit: str, folder: str, skill_file: str) -> tuple[ReleaseFile, ...] | None:
        """The files of the skill folder at ``commit`` as discovery would publish them; None when
        it has no SKILL.md within the size limit there."""
        above = rules_above(Path(self.repo.top, folder))
        key = digest("tree", commit, folder, skill_file, self.repo.prefix, list(self.exclude), self.max_bytes,
                     [(prefix, where, [str(getattr(p, "pattern", p)) for p in spec.patterns])
                      for prefix, where, spec in above.rules])
        stored = self.cache.get(Section.HISTORY, key) if self.cache is not None else None
        if stored is None:
            tree = self.reader().tree(commit, folder + "/" if folder else "")
            listed = _kept_files(followed_links(tree, folder, self.reader().read, MAX_TREE_FILES), folder,
                                 self.repo.prefix, self.exclude)
            listed = _not_ignored(listed, above, self.reader())
            stored = [[f.path, f.blob, f.size] for f in listed]
            if self.cache is not None:
                self.cache.put(Section.HISTORY, key, stored)
        files = tuple(ReleaseFile(*f) for f in stored)
        main = next((f for f in files if f.path in SKILL_FILES), None)
        if main is None or main.size > self.max_bytes:
            return None
        return files


def _kept_files(listed: list[Any], folder: str, prefix: str, exclude: Sequence[str]) -> list[ReleaseFile]:
    """The files of a folder's tree listing that discovery would publish as the skill's: files
    (no submodule; symlinks followed first, :func:`~skillsite.source.release_links.followed_links`)
    with UTF-8 names, outside nested skills, tool folders, virtual environments and ``exclude``;
    sorted by path."""
    start = len(folder) + 1 if folder else 0
    by_path = {f.path[start:]: f for f in listed if f.kind == "blob" and f.mode not in (SYMLINK_MODE, SUBMODULE_MODE)}
    folders_of = {posixpath.dirname(path) for path in by_path}
    nested = {d for d in folders_of if d and any(posixpath.join(d, name) in by_path for name in SKILL_FILES)}
    shut = nested | {d for d in folders_of if any(posixpath.join(d, m) in by_path for m in ENVIRONMENT_MARKERS)}
    kept = []
    for path, f in sorted(by_path.items()):
        parts = path.split("/")
        above = ["/".join(parts[:i]) for i in range(1, len(parts))]
        from_root = (folder + "/" + path if folder else path)[len(prefix):]
        if any(d in shut for d in above) or not is_utf8_text(path) or not _plain_path(parts) \
                or _left_out(parts, from_root, exclude):
            continue
        kept.append(ReleaseFile(path, f.blob, f.size))
    return kept


def _left_out(parts: list[str], from_root: str, exclude: Sequence[str]) -> bool:
    """Whether discovery leaves out a skill's file (``parts``: its path in the skill folder;
    ``from_root``: from the source root): a tool folder or inside one (a version-control folder
    however spelt: :func:`~skillsite.source.discover.is_tool_folder`), or matched by ``exclude``."""
    return any(is_tool_folder(part) for part in parts) or bool(
        exclude and any(_excluded(p, exclude) for p in _prefixes(from_root)))


def _not_ignored(files: list[ReleaseFile], above: Ignores, reader: ObjectReader) -> list[ReleaseFile]:
    """The files no ``.gitignore`` ignores: those above the skill folder in the work tree, and
    the release's own (read from git), as discovery applies them to the work tree."""
    rules = list(above.rules)
    for path in sorted((f.path for f in files if posixpath.basename(f.path) == GITIGNORE), key=lambda p: p.count("/")):
        blob = next(f.blob for f in files if f.path == path)
        text = reader.read(blob, MAX_GITIGNORE_BYTES) or b""
        spec = rules_of(text.decode("utf-8", "replace"))
        if spec is not None:
            rules.append(("", posixpath.dirname(path), spec))
    if not rules:
        return files
    ignores = Ignores(tuple(rules))
    return [f for f in files
            if not any(ignores.ignored(folder, True) for folder in _prefixes(f.path)[:-1])
            and not ignores.ignored(f.path, False)]


def _main_blob(changed: dict[str, str | None], current: str, before: str | None) -> str | None:
    """The skill's SKILL.md blob after a commit that changed ``changed`` (file name -> blob, None
    when deleted): a file written wins (SKILL.md first, as in discovery), so a rename of
    ``skill.md`` to ``SKILL.md`` keeps the history; else deleting the current name leaves none."""
    written = [changed[name] for name in SKILL_FILES if changed.get(name)]
    if written:
        return written[0]
    return None if current in changed else before


def _prefixes(path: str) -> list[str]:
    """Every folder above a path (from the root), and the path itself: what ``exclude`` is matched against."""
    parts = path.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]


def _plain_path(parts: list[str]) -> bool:
    """Whether a path from git names a file inside the folder (a hand-made tree may hold '..')."""
    return all(part not in ("", ".", "..") and "\0" not in part and "\\" not in part for part in parts)
