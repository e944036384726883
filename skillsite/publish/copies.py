"""Copies in the manifest: each member of a group of copies (:mod:`skillsite.source.copies`) says
its group, and how it differs from the canonical member, once the skills are published (their
files' digests known).  A copy's visibility names the canonical member (``copy_of``): it stays
published at its own address, loadable by its id, but lists, models and search show it as that one.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Iterable, NamedTuple, Sequence

from skillsite.agent.entry import Copies, CopyRecord, ManifestEntry
from skillsite.agent.skill_md import split_skill_md
from skillsite.cache import Cache, Section, digest
from skillsite.models import Skill
from skillsite.source.copies import COPY_CODE, copy_message, line_changes, normalised_lines


def published_groups(groups: Sequence[tuple[str, ...]], published: Iterable[str]) -> list[tuple[str, ...]]:
    """The groups of copies among the published skills (a skill with errors is not published):
    the first published member of a group (groups are in canonical order) is its canonical one;
    a group left with one member is none."""
    ids = set(published)
    kept = [tuple(skill_id for skill_id in group if skill_id in ids) for group in groups]
    return [group for group in kept if len(group) > 1]


def said_as_published(skills: Sequence[Skill], groups: Sequence[tuple[str, ...]]) -> list[Skill]:
    """``skills``, each copy's SK229 saying its group as published with them: the member standing
    for it among ``skills`` and how many of them it has; none for a skill that is no copy of
    another among them (it stands for its group now, or the group is left with it alone).  Reading
    said SK229 of each copy it would publish, naming the member it would publish first; publishing
    under ``keep_going`` leaves out more (the audit blocks some), never adds one, so the copies
    published are among those reading said it of, and only what it said of them changes."""
    members = group_map(published_groups(groups, (s.id for s in skills)))
    return [_said_of(skill, members.get(skill.id)) for skill in skills]


def _said_of(skill: Skill, group: tuple[str, int] | None) -> Skill:
    """``skill`` with its SK229 saying ``group`` (its canonical member and size), or without it
    when it stands for the group or has none."""
    if not any(d.code == COPY_CODE for d in skill.diagnostics):
        return skill
    copy_of = group is not None and group[0] != skill.id
    diags = tuple(d if d.code != COPY_CODE else dataclasses.replace(d, message=copy_message(*group))
                  for d in skill.diagnostics if d.code != COPY_CODE or copy_of)
    return skill if diags == skill.diagnostics else dataclasses.replace(skill, diagnostics=diags)


def group_map(groups: Sequence[tuple[str, ...]]) -> dict[str, tuple[str, int]]:
    """Each member of a group -> (its canonical member, the group's size)."""
    return {skill_id: (group[0], len(group)) for group in groups for skill_id in group}


def apply_copies(entries: list[ManifestEntry], groups: Sequence[tuple[str, ...]],
                 skill_md: Callable[[ManifestEntry], bytes], cache: Cache | None = None) -> None:
    """Give every published member of each group (canonical first) its ``copies`` (entries are
    frozen: each is replaced in ``entries``), the canonical's record listing the others by id;
    ``skill_md``: a published entry's SKILL.md bytes (each read and split once, however many copies
    it is compared with, and only for pairs whose difference ``cache`` does not hold)."""
    position = {entry.id: n for n, entry in enumerate(entries)}
    present = [members for group in groups  # a member with errors is not published
               if len(members := [skill_id for skill_id in group if skill_id in position]) > 1]
    pairs = [(entries[position[members[0]]], entries[position[skill_id]])
             for members in present for skill_id in sorted(members[1:])]
    differences = iter(_differences(pairs, _split_once(skill_md), cache))
    for members in present:
        canonical = entries[position[members[0]]]
        records = []
        for skill_id in sorted(members[1:]):
            copy = entries[position[skill_id]]
            differs = next(differences)
            records.append(CopyRecord(skill_id, differs))
            entries[position[skill_id]] = dataclasses.replace(
                copy, visibility=dataclasses.replace(copy.visibility, copy_of=canonical.id),
                copies=Copies(canonical.id, len(members), differs))
        entries[position[canonical.id]] = dataclasses.replace(
            canonical, copies=Copies(canonical.id, len(members), members=tuple(records)))


def _differences(pairs: Sequence[tuple[ManifestEntry, ManifestEntry]], read: Callable[[ManifestEntry], _SkillMd],
                 cache: Cache | None) -> list[str]:
    """How the copy of each (canonical, copy) pair differs from its canonical member.  How two
    SKILL.md differ is kept in ``cache`` under what it is made of (both files' digests, names and
    descriptions): a rebuild reads and compares only the pairs a change touched, not every copy of
    a big directory."""
    keys = [_difference_key(canonical, copy) for canonical, copy in pairs]
    known = cache.get_many(Section.COPY_DIFFERENCE, keys) if cache is not None else [None] * len(keys)
    found = []
    for (canonical, copy), key, stored in zip(pairs, keys, known):
        text = stored if isinstance(stored, str) else skill_md_difference(canonical, copy, read)
        if cache is not None and key is not None and stored is None:
            cache.put(Section.COPY_DIFFERENCE, key, text)
        found.append(_with_files(text, canonical, copy))
    return found


def _difference_key(canonical: ManifestEntry, copy: ManifestEntry) -> str | None:
    """Where how two SKILL.md differ is kept (None: equal files, nothing to read or keep)."""
    if canonical.sha256 == copy.sha256:
        return None
    return digest("copy difference", canonical.sha256, canonical.name, canonical.description,
                  copy.sha256, copy.name, copy.description)


class _SkillMd(NamedTuple):
    """A SKILL.md as copies compare it, decoded and split once: its body (LF line ends, as
    :func:`~skillsite.agent.skill_md.skill_body` gives it), and the lines of its body and its
    frontmatter without trailing spaces (the body's blank ends dropped; None: no frontmatter)."""

    body: str
    body_lines: list[str]
    frontmatter: list[str] | None

    @classmethod
    def of(cls, raw: bytes) -> _SkillMd:
        text = raw.decode("utf-8", errors="replace").removeprefix("\ufeff")
        parts = split_skill_md(text)
        body = (text if parts is None else parts.body).replace("\r\n", "\n")
        frontmatter = None if parts is None else [line.rstrip() for line in parts.frontmatter.splitlines()]
        return cls(body, [line.rstrip() for line in body.strip().splitlines()], frontmatter)


def _split_once(skill_md: Callable[[ManifestEntry], bytes]) -> Callable[[ManifestEntry], _SkillMd]:
    """``skill_md`` read and split once per skill id: a canonical member is compared with each copy."""
    split: dict[str, _SkillMd] = {}

    def read(entry: ManifestEntry) -> _SkillMd:
        if entry.id not in split:
            split[entry.id] = _SkillMd.of(skill_md(entry))
        return split[entry.id]

    return read


def _with_files(text: str, canonical: ManifestEntry, copy: ManifestEntry) -> str:
    """How ``copy`` differs from ``canonical``, given how their SKILL.md do: ``, other files
    differ`` added when their other files do (``same SKILL.md, other files differ`` when only they do)."""
    if _files(canonical) == _files(copy):
        return text
    return "same SKILL.md, other files differ" if text == "same files" else f"{text}, other files differ"


def skill_md_difference(canonical: ManifestEntry, copy: ManifestEntry,
                        skill_md: Callable[[ManifestEntry], _SkillMd]) -> str:
    """How ``copy``'s SKILL.md differs from ``canonical``'s: ``same files`` (the same bytes),
    ``frontmatter differs``, ``spacing differs`` (line ends, trailing spaces, blank lines at the
    ends of the body) or ``+3 -1 lines``; ``skill_md``: an entry's SKILL.md, split (read only when
    the two differ)."""
    if copy.sha256 == canonical.sha256:
        return "same files"
    ours, theirs = skill_md(canonical), skill_md(copy)
    if ours.body_lines == theirs.body_lines:
        return "spacing differs" if ours.frontmatter == theirs.frontmatter else "frontmatter differs"
    added, removed = line_changes(_lines(canonical, ours), _lines(copy, theirs))
    return f"+{added} -{removed} lines"


def _files(entry: ManifestEntry) -> list[tuple[str, str]]:
    return sorted((f.path, f.sha256) for f in entry.files)


def _lines(entry: ManifestEntry, skill_md: _SkillMd) -> list[bytes]:
    """The normalised lines of a skill's name, description and body (what similarity reads)."""
    return normalised_lines(entry.name, entry.description, skill_md.body)
