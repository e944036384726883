"""Reading a catalog: discover, parse and check every skill — the stage every command shares.

:func:`read_catalog` keeps the skills (the build needs them); :func:`check_catalog` keeps only
each skill's verdict, which ``skillsite validate`` can take from a cache when the SKILL.md and
its surroundings are unchanged.  Skills are parsed and checked on every core; the result
never depends on the number of jobs or on the cache.
"""
from __future__ import annotations

import os
import posixpath
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from skillsite.cache import Cache, digest
from skillsite.diagnostics import Diagnostic, sort_diagnostics
from skillsite.models import CatalogCheck, CatalogReading, ParsedSkill, SourceFile
from skillsite.source.checks import (allowed_tools_diagnostics, body_diagnostics, control_char_diagnostics,
                                     duplicate_name_diagnostics, name_diagnostics)
from skillsite.source.discover import Discovery, discover
from skillsite.source.links import link_diagnostics
from skillsite.source.parse import DEFAULT_MAX_BYTES, parse_skill
from skillsite.source.schema import schema_diagnostics
from skillsite.source.skill import build_skill, is_kept, skill_name
from skillsite.workers import parallel_map

#: A SKILL.md changed this recently (nanoseconds) is not trusted to keep its stamp: a second
#: change within the file system's timestamp granularity would go unnoticed.
RACY_NS = 2_000_000_000


@dataclass(frozen=True)
class Checking:
    """What checking the skills of a catalog needs; each worker process gets its own copy."""

    sources: tuple[SourceFile, ...]
    profile: str
    max_bytes: int
    skill_dirs: frozenset[tuple[str, str]]   # (root, folder relative to it) of every skill: link targets

    @classmethod
    def of(cls, found: Discovery, profile: str, max_bytes: int) -> Checking:
        return cls(found.sources, profile, max_bytes, catalog_skill_dirs(found.sources))


def catalog_skill_dirs(sources: Iterable[SourceFile]) -> frozenset[tuple[str, str]]:
    """(root, folder relative to the root) of every skill: what links to other skills resolve against."""
    return frozenset((str(s.root), posixpath.dirname(s.rel_path)) for s in sources)


def check_skill(parsed: ParsedSkill, profile: str, skill_dirs: frozenset[tuple[str, str]]) -> list[Diagnostic]:
    """Every diagnostic of one skill on its own (the catalog-wide checks come after)."""
    if parsed.fatal:
        return list(parsed.diagnostics)
    fm, src, lines = parsed.frontmatter or {}, parsed.source, parsed.key_lines
    return [*parsed.diagnostics,
            *schema_diagnostics(fm, profile, src.display_path, lines),
            *name_diagnostics(fm, src, profile, lines),
            *allowed_tools_diagnostics(fm, src, lines),
            *control_char_diagnostics(fm, src, lines),
            *body_diagnostics(parsed),
            *link_diagnostics(parsed, skill_dirs)]


def _parse_and_check(checking: Checking, index: int) -> tuple[ParsedSkill, list[Diagnostic]]:
    parsed = parse_skill(checking.sources[index], checking.max_bytes)
    return parsed, check_skill(parsed, checking.profile, checking.skill_dirs)


def _note_duplicate_names(kept: list[tuple[ParsedSkill, list[Diagnostic]]]) -> None:
    """Add SK212 to the diagnostics of each kept skill whose name an earlier one uses."""
    named = [(parsed.source, skill_name(parsed), parsed.key_lines.get("name", (1, 1))) for parsed, _ in kept]
    for index, diag in duplicate_name_diagnostics(named):
        kept[index][1].append(diag)


def read_catalog(roots: Sequence[Path | str], *, exclude: Sequence[str] = (), profile: str = "default",
                 ignore: Iterable[str] = (), max_bytes: int = DEFAULT_MAX_BYTES, jobs: int = 1,
                 found: Discovery | None = None) -> CatalogReading:
    """Discover, parse and validate every skill under ``roots`` (``found``: their discovery, if done).

    A skill whose description is missing or whose frontmatter cannot be read is left out;
    any other problem keeps it, with its diagnostics.  Codes in ``ignore`` are dropped.
    """
    found = found or discover(roots, exclude)
    checking = Checking.of(found, profile, max_bytes)
    results = parallel_map(_parse_and_check, checking, range(len(found.sources)), jobs)
    kept = [(parsed, diags) for parsed, diags in results if is_kept(parsed)]
    _note_duplicate_names(kept)
    ignored = frozenset(ignore)
    skills = tuple(build_skill(parsed, [d for d in diags if d.code not in ignored]) for parsed, diags in kept)
    left_out = tuple(parsed for parsed, _ in results if not is_kept(parsed))
    every = [*found.diagnostics, *(d for _, diags in results for d in diags)]
    return CatalogReading(found.sources, skills, left_out,
                          tuple(sort_diagnostics(d for d in every if d.code not in ignored)))


# ---------------------------------------------------------------- verdicts, for skillsite validate

@dataclass(frozen=True)
class Verdict:
    """What ``validate`` keeps of a checked skill: whether it is kept, its name and where that
    name is (for the duplicate-name check), and its own diagnostics."""

    kept: bool
    name: str
    name_at: tuple[int, int]
    diagnostics: tuple[Diagnostic, ...]

    def to_json(self) -> list[Any]:
        return [self.kept, self.name, list(self.name_at), [d.to_json() for d in self.diagnostics]]

    @classmethod
    def from_json(cls, data: list[Any]) -> Verdict:
        kept, name, name_at, diags = data
        return cls(kept, name, tuple(name_at), tuple(Diagnostic.from_json(d) for d in diags))


def _verdict(checking: Checking, index: int) -> Verdict:
    parsed, diags = _parse_and_check(checking, index)
    return Verdict(is_kept(parsed), skill_name(parsed), parsed.key_lines.get("name", (1, 1)), tuple(diags))


def _file_stamp(src: SourceFile) -> tuple[int, ...] | None:
    """A SKILL.md's size, times, inode and device (as ruff's cache keys files); None when it
    changed too recently to trust them, or cannot be read."""
    try:
        st = os.stat(src.skill_md)
    except OSError:
        return None
    if max(st.st_mtime_ns, st.st_ctime_ns) >= time.time_ns() - RACY_NS:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev


def _verdict_key(shared: str, src: SourceFile) -> str | None:
    """The cache key of a skill's verdict: what the whole check shares, the skill's place in the
    tree and file list, and its SKILL.md's stamp; None without a stamp to trust."""
    stamp = _file_stamp(src)
    if stamp is None:
        return None
    return digest(shared, src.id, src.display_path, src.rel_path, str(src.root), src.parent_id,
                  [f.path for f in src.files], stamp)


def _cached_verdicts(found: Discovery, checking: Checking, cache: Cache, jobs: int) -> list[Verdict]:
    """Every skill's verdict, from the cache where its key is found, else checked (and kept)."""
    shared = digest(sorted(checking.skill_dirs), [d.to_json() for d in found.diagnostics],
                    checking.profile, checking.max_bytes)
    keys = [_verdict_key(shared, src) for src in found.sources]
    verdicts: list[Verdict | None] = [None] * len(keys)
    for index, key in enumerate(keys):
        stored = cache.get("verdicts", key) if key else None
        verdicts[index] = Verdict.from_json(stored) if stored is not None else None
    todo = [index for index, verdict in enumerate(verdicts) if verdict is None]
    for index, verdict in zip(todo, parallel_map(_verdict, checking, todo, jobs)):
        verdicts[index] = verdict
        # a missing file's wording depends on files discovery does not list: never kept
        if keys[index] is not None and not any(d.code == "SK303" for d in verdict.diagnostics):
            cache.put("verdicts", keys[index], verdict.to_json())
    return [v for v in verdicts if v is not None]


def check_catalog(roots: Sequence[Path | str], *, exclude: Sequence[str] = (), profile: str = "default",
                  ignore: Iterable[str] = (), max_bytes: int = DEFAULT_MAX_BYTES, jobs: int = 1,
                  cache: Cache | None = None, found: Discovery | None = None) -> CatalogCheck:
    """The diagnostics and verdicts :func:`read_catalog` gives, without keeping the skills.

    With a ``cache``, a skill whose SKILL.md and surroundings are unchanged since an earlier
    check is not read again.
    """
    found = found or discover(roots, exclude, stat_files=False)
    checking = Checking.of(found, profile, max_bytes)
    if cache is None:
        verdicts = parallel_map(_verdict, checking, range(len(found.sources)), jobs)
    else:
        verdicts = _cached_verdicts(found, checking, cache, jobs)
    kept = [(src, v.name, v.name_at) for src, v in zip(found.sources, verdicts) if v.kept]
    every = [*found.diagnostics, *(d for v in verdicts for d in v.diagnostics),
             *(d for _, d in duplicate_name_diagnostics(kept)), *(cache.notes if cache is not None else ())]
    ignored = frozenset(ignore)
    left_out = frozenset(src.id for src, v in zip(found.sources, verdicts) if not v.kept)
    return CatalogCheck(found.sources, left_out, tuple(sort_diagnostics(d for d in every if d.code not in ignored)))
