"""What a published catalog is: the manifest's format name and version, and which skills a
model is offered, in which order.  Shared by the build (which writes ``skills.json``) and the
loader (which reads it)."""
from __future__ import annotations

from typing import Iterable, Protocol, TypeVar

FORMAT = "skillsite-catalog"
#: Audit risks, least first; a catalog built before the audit has none ("none").
RISKS = ("none", "low", "medium", "high")
#: The highest audit risk offered unless a reader says otherwise: the loader's ``max_risk``, the
#: commands' ``--max-risk``, and the published ``available_skills.xml`` and ``llms.txt``, which
#: a model reads with no loader in between.
DEFAULT_MAX_RISK = "medium"
#: skills.json as one file: every entry in its ``skills``.
WHOLE_FORMAT_VERSION = 1
#: skills.json as the root of a paged catalog: the first page of entries in its ``skills``, the
#: other pages listed in ``pages``, and one entry file per skill (see :mod:`.manifest_pages`).
PAGED_FORMAT_VERSION = 2
#: The newest format a loader of this version reads (it reads every older one too).
FORMAT_VERSION = PAGED_FORMAT_VERSION
MANIFEST_NAME = "skills.json"


class Flags(Protocol):
    """A skill's visibility, as prompt order reads it (:class:`~skillsite.agent.entry.Visibility`)."""

    @property
    def hidden(self) -> bool: ...
    @property
    def user_invocable_only(self) -> bool: ...
    @property
    def always(self) -> bool: ...
    @property
    def copy_of(self) -> str | None: ...


class Ordered(Protocol):
    """What prompt order reads of a skill: a :class:`~skillsite.agent.entry.ManifestEntry`, or
    any listing of one with the same attributes."""

    @property
    def id(self) -> str: ...
    @property
    def priority(self) -> int: ...
    @property
    def visibility(self) -> Flags: ...


O = TypeVar("O", bound=Ordered)


class Rated(Protocol):
    """What the risk gate reads of a skill: the audit's risk (a :class:`~skillsite.agent.entry.ManifestEntry`)."""

    @property
    def risk(self) -> str: ...


def above(risk: str, max_risk: str) -> bool:
    """Whether ``risk`` is above ``max_risk``."""
    return RISKS.index(risk) > RISKS.index(max_risk)


def within_max_risk(entry: Rated, max_risk: str) -> bool:
    """Whether an agent may load, install or offer ``entry``: the audit rates it at most ``max_risk``.
    The loader refuses the others, and every listing an agent reads leaves them out."""
    return not above(entry.risk, max_risk)


def offered_to_model(entry: Ordered, copies_too: bool = False) -> bool:
    """False for a hidden or user-invocable-only skill, or a copy of another (unless
    ``copies_too``): it is never offered to a model (a copy is offered as its group's canonical member)."""
    visibility = entry.visibility
    return (not visibility.hidden and not visibility.user_invocable_only
            and (copies_too or visibility.copy_of is None))


def prompt_rank(always: bool, priority: int, skill_id: str) -> tuple[bool, int, str]:
    """Where a skill stands in prompt order (smaller first): ``always`` first, then priority, then id."""
    return not always, -priority, skill_id


def prompt_order(entries: Iterable[O]) -> list[O]:
    """Skills offered to a model, in prompt order: ``always`` first, then priority, then id.

    Hidden and user-invocable-only skills are left out.
    """
    shown = [e for e in entries if offered_to_model(e)]
    return sorted(shown, key=lambda e: prompt_rank(e.visibility.always, e.priority, e.id))


def text_bytes(text: str) -> int:
    """``text``'s length in UTF-8 (a lone surrogate, which a JSON escape may hold, counted as the
    three bytes it escapes to)."""
    return len(text.encode("utf-8", "surrogatepass"))

