"""What :class:`skillsite.loader.Catalog` hands an agent: search hits, loaded skills and the
tools a skill needs, as plain frozen values (standard library only).

They live apart from the loader so that the modules the loader stands on (tool authorisation,
for one) can name them without importing the loader.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple


@dataclass(frozen=True)
class SearchResult:
    """One search hit, best first."""

    id: str
    name: str
    description: str
    score: float


class SubSkill(NamedTuple):
    """A direct child skill, as listed in ``SkillContent.sub_skills``."""

    id: str
    name: str
    description: str


@dataclass(frozen=True)
class SkillContent:
    """A loaded, verified skill: what an agent receives when it activates it."""

    id: str
    name: str
    description: str
    body: str = field(repr=False)      # the Markdown instructions, frontmatter removed
    resources: tuple[str, ...]         # bundled file paths, relative to the skill folder
    sub_skills: tuple[SubSkill, ...]
    xml: str = field(repr=False)       # the <skill_content> fragment
    location: str                      # absolute URL or path of SKILL.md
    base_url: str                      # absolute URL or path of the skill folder (ends with / or os.sep)
    allowed_tools: tuple[str, ...]
    sha256: str
    raw: bytes = field(repr=False)     # SKILL.md as published (verified)
    version: str | None = None         # the release loaded (canonical); None for the current files


@dataclass(frozen=True)
class ToolCheck:
    """Which of a skill's tools the runtime has; ``complete`` when none required is missing."""

    skill_id: str
    required: tuple[str, ...]
    optional: tuple[str, ...]
    available: tuple[str, ...]
    missing: tuple[str, ...]            # required and not available
    missing_optional: tuple[str, ...]

    @property
    def complete(self) -> bool:
        return not self.missing
