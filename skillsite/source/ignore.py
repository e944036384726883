"""What discovery leaves out of a source tree, as ruff, MkDocs' watcher and the ``skills``
installer do: the folders of version control systems and tools (``.git``, ``node_modules``,
caches), virtual environments (a folder holding ``pyvenv.cfg`` or ``conda-meta``), and every
path a ``.gitignore`` ignores (with git's rules: each file applies to its folder and below,
a deeper one has the last word; the ``.gitignore`` files between the repository's root and a
source root apply too).  pathspec's ``GitIgnoreSpec`` reads the patterns; a path is decided as
git decides it, by the last pattern matching the path itself (:func:`_matches`), not one that
matches a folder above it: the walk is in that folder, so git did not ignore it.  (pathspec's own
``check_file`` lets ``*`` outrank a later ``!*/`` for a folder, a deeper ``!*/`` take back the
files of the folders it matches, and ``a/**`` match ``a``; git does none of these.)  pathspec also
reads ``a/**/`` as ``a/``, where git means the folders inside ``a``: :func:`_as_git_reads` rewrites
such a line before pathspec compiles it.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import pathspec
import re2

#: Folders never searched for skills, whatever their place.
TOOL_FOLDERS = frozenset({".git", ".hg", ".svn", ".bzr", "_darcs", ".jj", "node_modules", "__pycache__",
                          ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache"})
#: A folder that holds one of these is a Python virtual environment (venv, virtualenv, conda).
ENVIRONMENT_MARKERS = ("pyvenv.cfg", "conda-meta")
GITIGNORE = ".gitignore"
#: .gitignore files bigger than this are not read (a hostile tree could hold a huge one).
MAX_GITIGNORE_BYTES = 1 << 20


def is_environment(names: set[str] | frozenset[str] | dict[str, object]) -> bool:
    """Whether a folder whose listing holds ``names`` is a virtual environment."""
    for marker in ENVIRONMENT_MARKERS:  # a loop, not any(): asked of every folder a walk lists
        if marker in names:
            return True
    return False


class _Expression(Protocol):
    """A compiled regular expression, of ``re`` or of RE2 (the calls :func:`_matches` makes)."""

    def search(self, text: str, pos: int = ...) -> Any: ...


#: One pattern of a .gitignore, as :meth:`Ignores.ignored` asks it: whether it ignores (False: a
#: negation), its regular expression and the numbers of that expression's named groups (pathspec's
#: folder mark).
_Test = tuple[bool, _Expression, tuple[int, ...]]
#: What pathspec's expression of a pattern that may match in any folder starts with.
_ANY_FOLDERS = "^(?:.+/)?"
#: A repeat without bound (``[^/]*`` for a ``*`` in a name, ``.+`` for a ``**``); a ``*`` or ``+``
#: inside a class counts too (more RE2 costs only time, never a different answer).
_OPEN_ENDED = re.compile(r"(?<!\\)[*+]")
#: RE2 refuses an expression quietly (by default it also logs the refusal to the terminal).
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False


def _tests(spec: pathspec.GitIgnoreSpec) -> tuple[_Test, ...]:
    """The patterns of ``spec`` that can decide (not comments), the last first: the last one
    matching a path decides it."""
    return tuple((pattern.include, _expression(pattern.regex), tuple(pattern.regex.groupindex.values()))
                 for pattern in reversed(spec.patterns) if pattern.include is not None and pattern.regex is not None)


def _expression(regex: re.Pattern[str]) -> _Expression:
    """A pattern's expression as the walk searches with it.  ``re`` backtracks: where a pattern has
    two or more repeats without bound past its start (two stars in a name, ``a*c*c*c*c*b``, or two
    ``**``), a hostile name makes it try every way of placing them, time growing with the name's
    length to the power of the stars (a name of 160 letters: seconds; twelve stars: hours).  Such
    an expression is compiled by RE2 instead, which matches in time linear in the path; the others
    stay with ``re``, which is faster for the short expressions most lines make (and RE2 also where
    it refuses one)."""
    if len(_OPEN_ENDED.findall(regex.pattern.removeprefix(_ANY_FOLDERS))) < 2:
        return regex
    try:
        return re2.compile(regex.pattern, options=_RE2_OPTIONS)
    except re2.error:
        return regex


def _matches(test: _Test, path: str, is_dir: bool) -> bool:
    """Whether a pattern matches ``path`` itself, as git matches it: not through a folder above it
    (the walk is in that folder, so git did not ignore it, and a pattern matching it, negated or
    not, says nothing of what it holds).  A folder's path is searched with its "/" when the
    expression has a folder mark (:func:`_matches_itself`)."""
    subject = path + "/" if is_dir and test[2] else path
    found = test[1].search(subject)
    return found is not None and _matches_itself(test, subject, found)


def _matches_itself(test: _Test, subject: str, found: Any) -> bool:
    """Whether the pattern matches the path itself, ``found`` being its expression's first match
    in ``subject`` (the path, and a folder's "/"): the search goes on from it, never again from
    the start.  pathspec marks a match through a folder with a named group (its folder mark, the "/" after
    the folder): for a folder, the mark of its own "/" is a match of the folder itself.  A
    pattern without one (``a/**``, ``*``) matches the path, never through the folder: ``a/**``
    matches what ``a`` holds, not ``a``."""
    _, regex, marks = test
    if not marks:
        return True
    while found is not None:
        mark = next((number for number in marks if found.start(number) != -1), None)
        if mark is None or found.end(mark) == len(subject):
            return True
        found = regex.search(subject, found.end())  # the next folder ("*/" is not anchored)
    return False


@dataclass(frozen=True)
class Ignores:
    """The ``.gitignore`` rules in force in one folder of a walk, deepest last: for each, the
    path of the walk's root relative to the rules' folder ("" when the rules are in the walk)
    or the rules' own folder relative to the root, and the rules."""

    rules: tuple[tuple[str, str, pathspec.GitIgnoreSpec], ...] = ()  # (root prefix, folder in the walk, spec)
    #: per rule, deepest first: its folder, root prefix and :func:`_tests`
    _deepest_first: tuple[tuple[str, str, tuple[_Test, ...]], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_deepest_first", tuple(
            (folder, root_prefix, _tests(spec)) for root_prefix, folder, spec in reversed(self.rules)))

    def ignored(self, rel: str, is_dir: bool) -> bool:
        """Whether the path ``rel`` (relative to the walk's root: names joined by "/") is ignored,
        the folders above it not (the walk left out those that are): as git decides, by the last
        pattern matching it of the deepest .gitignore with one."""
        for folder, root_prefix, tests in self._deepest_first:
            if folder and not rel.startswith(folder + "/"):
                continue
            path = root_prefix + (rel[len(folder) + 1:] if folder else rel)
            text = path + "/" if is_dir else path
            for test in tests:  # most paths match no pattern: one search, and what it found goes on
                subject = text if test[2] else path
                found = test[1].search(subject)
                if found is not None and _matches_itself(test, subject, found):
                    return test[0]
        return False

    def with_file(self, path: str, folder: str) -> Ignores:
        """These rules and those of the ``.gitignore`` at ``path`` (in the walk's ``folder``)."""
        spec = _read_rules(path)
        return self if spec is None else Ignores((*self.rules, ("", folder, spec)))


def _read_rules(path: str) -> pathspec.GitIgnoreSpec | None:
    """The rules of a .gitignore file; None when it cannot be read or holds none."""
    try:
        with open(path, "rb") as handle:
            text = handle.read(MAX_GITIGNORE_BYTES).decode("utf-8", "replace")
    except OSError:
        return None
    return rules_of(text)


def rules_of(text: str) -> pathspec.GitIgnoreSpec | None:
    """The rules of a .gitignore file's text; None when it holds none.  A line pathspec cannot
    read (``!`` alone, a ``\\`` at the end, a range such as ``[z-a]``) matches nothing, as in git,
    instead of refusing the whole file with a traceback (a tree's files are untrusted)."""
    lines = [_as_git_reads(line) for line in text.splitlines()]
    try:
        spec = pathspec.GitIgnoreSpec.from_lines(lines)
    except (ValueError, re.error):
        spec = pathspec.GitIgnoreSpec([pattern for line in lines for pattern in _patterns(line)])
    return spec if len(spec) else None


def _as_git_reads(line: str) -> str:
    """A line ending in a ``**`` of its own and a "/" (``a/**/``, ``*/**/``), spelled as pathspec
    reads it as git does: git matches the folders inside ``a`` (at any depth), not ``a``, which
    pathspec matches (it folds ``**/`` at the end into the "/").  ``a/**/*/`` means the same to
    git, and pathspec reads it so.  Trailing blanks go first, as pathspec drops them (unless the
    last is escaped); ``**/`` alone (every folder) and other lines are left as they are."""
    kept = line if line.endswith("\\ ") else line.rstrip()
    return kept + "*/" if kept.endswith("/**/") else line


def _patterns(line: str) -> list[Any]:
    """The pattern of one line, or none when pathspec cannot read it."""
    try:
        return list(pathspec.GitIgnoreSpec.from_lines([line]).patterns)
    except (ValueError, re.error):
        return []


def repository_folder(path: Path) -> Path | None:
    """The top of the git work tree ``path`` is in: the first of it and the folders above it that
    holds a ``.git`` (a folder, or the file of a worktree or submodule), as ``git rev-parse
    --show-toplevel`` finds it without running git; None outside one.  ``path`` as given (a
    caller that follows symbolic links resolves it first)."""
    return next((folder for folder in (path, *path.parents) if os.path.exists(folder / ".git")), None)


def rules_above(root: Path) -> Ignores:
    """The ``.gitignore`` rules that apply to ``root`` from the folders above it, up to the root of
    the git repository holding it (none when it is in no repository)."""
    real = Path(os.path.realpath(root))
    above = [folder for folder in real.parents]
    top = next((i for i, folder in enumerate(above) if os.path.exists(folder / ".git")), None)
    if top is None:
        return Ignores()
    chain = [*reversed(above[: top + 1]), real]   # the repository's top, and each folder down to the root
    rules = [(folder, spec) for folder in chain[:-1] if (spec := _read_rules(str(folder / GITIGNORE))) is not None]
    found = Ignores(tuple((real.relative_to(folder).as_posix() + "/", "", spec) for folder, spec in rules))
    # a source folder the user names is searched even where git ignores it, or one above it (as `git add -f` adds)
    return Ignores() if any(_folder_ignored(folder, rules) for folder in chain[1:]) else found


def _folder_ignored(folder: Path, rules: list[tuple[Path, pathspec.GitIgnoreSpec]]) -> bool:
    """Whether git ignores ``folder`` by the rules of the folders above it (``rules``: by folder,
    the top first), its parent taken as not ignored: as the walk decides a folder."""
    parent = folder.parent
    held = [("" if where == parent else parent.relative_to(where).as_posix() + "/", "", spec)
            for where, spec in rules if len(where.parts) <= len(parent.parts)]
    return Ignores(tuple(held)).ignored(folder.name, True)
