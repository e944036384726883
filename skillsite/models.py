"""Plain, frozen data passed from one pipeline stage to the next."""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillsite.agent.skill_md import skill_body
from skillsite.bounded import read_limited
from skillsite.diagnostics import Diagnostic, Severity, count_by_severity, printable


#: What tells a rebuild that a file may have changed, as git's index does: its size, modification
#: time, change time and inode.  An edit that keeps the size and sets the old modification time
#: back (``touch -d``, an archive unpacked) still moves the change time, and a file moved into
#: another's place has another inode.  As in git, only the modification time says whether a
#: stamp is too recent to trust (a second edit within its resolution could keep it).
Stamp = tuple[int, int, int, int]
#: The stamp of a file not looked at.
NO_STAMP: Stamp = (0, 0, 0, 0)


def stamp_of(st: os.stat_result) -> Stamp:
    """A file's :data:`Stamp` from its status."""
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino


@dataclass(frozen=True, slots=True)
class BundledFile:
    """A file published with a skill (anything in its folder outside nested skills)."""

    path: str          # posix path relative to the skill folder
    abspath: str       # where it is read from
    bytes: int
    mtime_ns: int = 0  # with the size, change time and inode: whether the content may have changed
    ctime_ns: int = 0
    inode: int = 0

    @property
    def stamp(self) -> Stamp:
        """The file's :data:`Stamp` as discovery saw it."""
        return self.bytes, self.mtime_ns, self.ctime_ns, self.inode


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A discovered skill folder, before its SKILL.md is read."""

    id: str                      # slash-separated path relative to the root ("sven/plan")
    root: Path                   # the source root as given
    dir: Path                    # the skill folder as reached (may pass through symlinks)
    skill_md: Path               # the SKILL.md (or skill.md) path as reached
    display_path: str            # the SKILL.md's path as shown in diagnostics
    rel_path: str                # SKILL.md path relative to the root, posix
    parent_id: str | None        # nearest enclosing skill, if any
    files: tuple[BundledFile, ...] = ()
    stamp: Stamp = NO_STAMP      # the SKILL.md's :data:`Stamp` as discovery saw it (NO_STAMP: not looked at)
    #: What the audit of the folder reads (:func:`~skillsite.audit.files.audited_stamps`: each file's
    #: path, :data:`Stamp` and executable bit, in its order), when discovery saw all of it; else None.
    audited: tuple[tuple[str, Stamp, bool], ...] | None = field(default=None, compare=False, repr=False)

    @property
    def folder_name(self) -> str:
        """The skill folder's own name (last id segment)."""
        return self.id.rsplit("/", 1)[-1]


@dataclass(frozen=True, slots=True)
class ParsedSkill:
    """A SKILL.md split into frontmatter and body, with the line of every key."""

    source: SourceFile
    frontmatter: dict[str, Any] | None   # None when it could not be read at all
    key_lines: dict[str, tuple[int, int]]  # "name" or "metadata.author" -> (line, col), 1-based
    body: str
    body_line: int                       # file line where the body starts (1-based)
    raw: bytes
    diagnostics: tuple[Diagnostic, ...] = ()
    #: the file column of the body's first character: 4 when it starts on the frontmatter's
    #: closing line, after its ``---`` (SK115), else 1
    body_column: int = 1

    @property
    def fatal(self) -> bool:
        """True when nothing usable could be read (the skill is left out)."""
        return self.frontmatter is None


@dataclass(frozen=True, slots=True)
class Requirements:
    """What a skill needs from the machine it runs on."""

    bins: tuple[str, ...] = ()
    env: tuple[str, ...] = ()
    platforms: tuple[str, ...] = ()


#: What most skills require: nothing (one record for all of them: see :func:`skillsite.agent.entry.shared`).
NOTHING_REQUIRED = Requirements()


@dataclass(frozen=True, slots=True)
class Skill:
    """A validated skill, ready for every output."""

    id: str
    name: str
    description: str
    source: SourceFile
    body_line: int
    sha256: str                          # of SKILL.md's bytes as they were read and checked
    size: int                            # their length: the bytes are read again when needed (read_skill_md)
    frontmatter: dict[str, Any]
    license: str | None = None
    compatibility: str | None = None
    version: str | None = None
    tags: tuple[str, ...] = ()
    allowed_tools: tuple[str, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)
    tools: tuple[dict[str, Any], ...] = ()
    parameters: tuple[dict[str, Any], ...] = ()
    examples: tuple[Any, ...] = ()
    priority: int = 0
    hidden: bool = False
    user_invocable_only: bool = False
    always: bool = False
    requirements: Requirements = NOTHING_REQUIRED
    user_invocable: bool = True          # offered as a slash command (``user-invocable: false`` says no)
    triggers: dict[str, list[str]] = field(default_factory=dict)  # phrases, keywords, verbs, patterns: those declared
    conflicts: tuple[str, ...] = ()      # names or ids of the skills it must not run beside, as declared
    depends: tuple[str, ...] = ()        # the skills it needs, ``name`` or ``name@range``, as declared
    knowledge: tuple[str, ...] = ()      # knowledge documents, as declared
    extra: dict[str, Any] = field(default_factory=dict)  # other understood extension keys
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def parent_id(self) -> str | None:
        return self.source.parent_id

    @property
    def body(self) -> str:
        """The Markdown body (LF line ends), from the SKILL.md read again (a catalog read whole
        holds no skill's text); raises :class:`SkillChanged` when the file is no longer as checked."""
        return skill_body(read_skill_md(self))

    @property
    def has_errors(self) -> bool:
        return any(d.severity.value == "error" for d in self.diagnostics)


class SkillChanged(OSError):
    """A SKILL.md whose bytes are no longer those that were read and checked."""


def read_skill_md(skill: Skill) -> bytes:
    """A skill's SKILL.md bytes, read again: the same as when it was checked (same size and
    sha256), else :class:`SkillChanged`, so nothing is published from a file that changed since.
    Opened non-blocking: a FIFO put in its place cannot hang the build."""
    raw, _ = read_limited(skill.source.skill_md, skill.size)  # a byte more if it grew
    if len(raw) != skill.size or hashlib.sha256(raw).hexdigest() != skill.sha256:
        raise SkillChanged(f"SKILL.md changed during the build (it is not the {skill.size:,}-byte file that "
                           "was checked); build again")
    return raw


# ------------------------------------------------------------------ what reading a catalog gives

@dataclass(frozen=True, slots=True)
class CacheUse:
    """How ``skillsite validate`` took its skills' verdicts from its cache: how many SKILL.md files
    it knew by their stamp (not read), read to hash them, and how many verdicts it reused or made
    by checking the skill.  Counts of work done, never of time: what tests observe."""

    by_stamp: int = 0
    hashed: int = 0
    reused: int = 0
    checked: int = 0


@dataclass(frozen=True)
class CatalogCheck:
    """What ``skillsite validate`` reports: a verdict per skill and every diagnostic (and, with a
    cache, how it was used: not part of the report)."""

    sources: tuple[SourceFile, ...]
    left_out: frozenset[str]              # ids of the skills left out of every output
    diagnostics: tuple[Diagnostic, ...]   # sorted
    cache_use: CacheUse | None = field(default=None, compare=False)

    def verdicts(self) -> list[dict]:
        """``[{"id", "path", "valid"}]`` for every discovered skill, sorted by id; its path as its
        diagnostics give it (control characters escaped), so that the two can be matched."""
        erroneous = {d.path for d in self.diagnostics if d.severity is Severity.ERROR}
        return [{"id": s.id, "path": printable(s.display_path),
                 "valid": printable(s.display_path) not in erroneous and s.id not in self.left_out}
                for s in self.sources]

    def summary(self) -> dict:
        """Counts for the summary line and ``--format json``."""
        verdicts = self.verdicts()
        counts = count_by_severity(self.diagnostics)
        by_code: dict[str, int] = {}
        for d in self.diagnostics:
            by_code[d.code] = by_code.get(d.code, 0) + 1
        return {
            "skills": len(verdicts),
            "valid": sum(v["valid"] for v in verdicts),
            "invalid": sum(not v["valid"] for v in verdicts),
            "left_out": len(self.left_out),
            "errors": counts["error"],
            "warnings": counts["warning"],
            "infos": counts["info"],
            "by_code": dict(sorted(by_code.items())),
        }


@dataclass(frozen=True)
class CatalogReading:
    """Everything known after reading the sources: kept skills, left-out ones, diagnostics,
    the groups of copies (each a tuple of ids, its canonical member first), and the names only
    copies of one skill share, each with the id of the copy a dependency on it needs (sorted)."""

    sources: tuple[SourceFile, ...]
    skills: tuple[Skill, ...]
    left_out: tuple[ParsedSkill, ...]
    diagnostics: tuple[Diagnostic, ...]   # sorted
    copies: tuple[tuple[str, ...], ...] = ()
    missing: tuple[tuple[str, str, str], ...] = ()   # where SK303 targets lie (skillsite.source.links.MissingPlace)
    aliases: tuple[tuple[str, str], ...] = ()   # (name, id): skillsite.source.dependencies.copy_aliases

    def check(self) -> CatalogCheck:
        """The verdicts of this reading, as ``skillsite validate`` reports them."""
        return CatalogCheck(self.sources, frozenset(p.source.id for p in self.left_out), self.diagnostics)

    def verdicts(self) -> list[dict]:
        """``[{"id", "path", "valid"}]`` for every discovered skill, sorted by id."""
        return self.check().verdicts()

    def summary(self) -> dict:
        """Counts for the summary line and ``--format json``."""
        return self.check().summary()
