"""Copies in the manifest: each member of a group of copies (:mod:`skillsite.source.copies`) says
its group, and how it differs from the canonical member, once the skills are published (their
files' digests known).  A copy's visibility names the canonical member (``copy_of``): it stays
published at its own address, loadable by its id, but lists, models and search show it as that one.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Iterable, Sequence

from skillsite.agent.entry import Copies, CopyRecord, ManifestEntry
from skillsite.agent.skill_md import skill_body, split_skill_md
from skillsite.source.copies import line_changes, normalised_lines


def published_groups(groups: Sequence[tuple[str, ...]], published: Iterable[str]) -> list[tuple[str, ...]]:
    """The groups of copies among the published skills (a skill with errors is not published):
    the first published member of a group (groups are in canonical order) is its canonical one;
    a group left with one member is none."""
    ids = set(published)
    kept = [tuple(skill_id for skill_id in group if skill_id in ids) for group in groups]
    return [group for group in kept if len(group) > 1]


def group_map(groups: Sequence[tuple[str, ...]]) -> dict[str, tuple[str, int]]:
    """Each member of a group -> (its canonical member, the group's size)."""
    return {skill_id: (group[0], len(group)) for group in groups for skill_id in group}


def apply_copies(entries: list[ManifestEntry], groups: Sequence[tuple[str, ...]],
                 skill_md: Callable[[ManifestEntry], bytes]) -> None:
    """Give every published member of each group (canonical first) its ``copies`` (entries are
    frozen: each is replaced in ``entries``), the canonical's record listing the others by id;
    ``skill_md``: a published entry's SKILL.md bytes."""
    position = {entry.id: n for n, entry in enumerate(entries)}
    for group in groups:
        members = [skill_id for skill_id in group if skill_id in position]  # a member with errors is not published
        if len(members) < 2:
            continue
        canonical = entries[position[members[0]]]
        records = []
        for skill_id in sorted(members[1:]):
            copy = entries[position[skill_id]]
            differs = difference(canonical, copy, skill_md)
            records.append(CopyRecord(skill_id, differs))
            entries[position[skill_id]] = dataclasses.replace(
                copy, visibility=dataclasses.replace(copy.visibility, copy_of=canonical.id),
                copies=Copies(canonical.id, len(members), differs))
        entries[position[canonical.id]] = dataclasses.replace(
            canonical, copies=Copies(canonical.id, len(members), members=tuple(records)))


def difference(canonical: ManifestEntry, copy: ManifestEntry, skill_md: Callable[[ManifestEntry], bytes]) -> str:
    """How ``copy`` differs from ``canonical``: ``same files``, ``same SKILL.md, other files
    differ``, ``frontmatter differs``, ``spacing differs`` (line ends, trailing spaces, blank lines
    at the ends of the body) or ``+3 -1 lines`` (then ``, other files differ`` when they do)."""
    same_files = _files(canonical) == _files(copy)
    if copy.sha256 == canonical.sha256:
        return "same files" if same_files else "same SKILL.md, other files differ"
    ours, theirs = skill_md(canonical), skill_md(copy)
    if _body(ours) == _body(theirs):
        text = "spacing differs" if _frontmatter(ours) == _frontmatter(theirs) else "frontmatter differs"
    else:
        added, removed = line_changes(_lines(canonical, ours), _lines(copy, theirs))
        text = f"+{added} -{removed} lines"
    return text if same_files else f"{text}, other files differ"


def _files(entry: ManifestEntry) -> list[tuple[str, str]]:
    return sorted((f.path, f.sha256) for f in entry.files)


def _body(raw: bytes) -> list[str]:
    """A body as copies compare it: its lines without trailing spaces, blank ends dropped."""
    return [line.rstrip() for line in skill_body(raw).strip().splitlines()]


def _frontmatter(raw: bytes) -> list[str] | None:
    """A frontmatter as copies compare it: its lines without trailing spaces (None: it has none)."""
    text = raw.decode("utf-8", errors="replace").removeprefix("\ufeff")
    parts = split_skill_md(text)
    return [line.rstrip() for line in parts.frontmatter.splitlines()] if parts is not None else None


def _lines(entry: ManifestEntry, raw: bytes) -> list[bytes]:
    """The normalised lines of a skill's name, description and body (what similarity reads)."""
    return normalised_lines(entry.name, entry.description, skill_body(raw))
