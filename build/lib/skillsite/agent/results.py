"""What :class:`skillsite.loader.Catalog` hands an agent: search hits, loaded skills and the
tools a skill needs, as plain frozen values (standard library only).

They live apart from the loader so that the modules the loader stands on (tool authorisation,
for one) can name them without importing the loader.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, NamedTuple


@dataclass(frozen=True)
class SearchResult:
    """One search hit, best first."""

    id: str
    name: str
    description: str
    score: float
    copies: int = 1     # the skills of its group of copies (1: it has none); one result stands for them all


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


def one_per_group(ranked: Iterable[tuple[str, float]], copy_of: Mapping[str, str], allowed: Callable[[str], bool],
                  k: int) -> list[tuple[str, float]]:
    """The ``k`` best results of ``ranked`` (ids with scores, best first), a group of copies
    (``copy_of``: a copy's canonical member) once: its canonical member at the place of its best
    member, or, when the canonical member is not ``allowed``, that member itself."""
    shown: list[tuple[str, float]] = []
    seen: set[str] = set()
    for skill_id, score in ranked:
        group = copy_of.get(skill_id, skill_id)
        if group in seen:
            continue
        stands = group if allowed(group) else skill_id
        if allowed(stands):
            seen.add(group)
            shown.append((stands, score))
            if len(shown) == k:
                break
    return shown
