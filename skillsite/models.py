"""Plain, frozen data passed from one pipeline stage to the next."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillsite.diagnostics import Diagnostic


@dataclass(frozen=True)
class BundledFile:
    """A file published with a skill (anything in its folder outside nested skills)."""

    path: str          # posix path relative to the skill folder
    abspath: str       # where it is read from (a path as text: thousands of Path objects cost a third of discovery)
    bytes: int
    mtime_ns: int = 0  # with the size, tells the incremental build whether the content may have changed


@dataclass(frozen=True)
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

    @property
    def folder_name(self) -> str:
        """The skill folder's own name (last id segment)."""
        return self.id.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class ParsedSkill:
    """A SKILL.md split into frontmatter and body, with the line of every key."""

    source: SourceFile
    frontmatter: dict[str, Any] | None   # None when it could not be read at all
    key_lines: dict[str, tuple[int, int]]  # "name" or "metadata.author" -> (line, col), 1-based
    body: str
    body_line: int                       # file line where the body starts (1-based)
    raw: bytes
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def fatal(self) -> bool:
        """True when nothing usable could be read (the skill is left out)."""
        return self.frontmatter is None


@dataclass(frozen=True)
class Requirements:
    """What a skill needs from the machine it runs on."""

    bins: tuple[str, ...] = ()
    env: tuple[str, ...] = ()
    platforms: tuple[str, ...] = ()


@dataclass(frozen=True)
class Skill:
    """A validated skill, ready for every output."""

    id: str
    name: str
    description: str
    source: SourceFile
    body: str
    body_line: int
    raw: bytes
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
    requirements: Requirements = Requirements()
    extra: dict[str, Any] = field(default_factory=dict)  # other understood extension keys
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def parent_id(self) -> str | None:
        return self.source.parent_id

    @property
    def has_errors(self) -> bool:
        return any(d.severity.value == "error" for d in self.diagnostics)


@dataclass(frozen=True)
class BuildContext:
    """What the output writers get: the published skills, their manifest entries, the configuration.

    ``entries`` maps a skill id to its ``skills.json`` entry (see ``skills.schema.json``);
    ``manifest`` is the whole ``skills.json`` object.  Writers put files under ``out``
    (a temporary folder that the build publishes only when everything succeeded); with a
    ``staging``, a writer may instead keep an unchanged file of the previous output.
    """

    config: Any                          # skillsite.config.SiteConfig
    skills: tuple[Skill, ...]            # sorted by id
    manifest: dict[str, Any]
    entries: dict[str, dict[str, Any]]
    diagnostics: tuple[Diagnostic, ...]  # every diagnostic of the build, sorted
    out: Path
    body_html: dict[str, str] = field(default_factory=dict)  # skill id -> rendered body (computed in parallel)
    jobs: int = 1                                            # worker processes the writers may use
    staging: Any = None      # skillsite.output.Staging: lets writers reuse unchanged files of the last output

    def skill_url(self, skill_id: str) -> str:
        """Site-relative URL of a skill's page folder, percent-encoded (``skills/a/b/``)."""
        return self.entries[skill_id]["urls"]["page"]
