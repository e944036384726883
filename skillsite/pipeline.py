"""Reading a catalog: discover, parse and validate — the stages every command shares."""
from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence, cast

from skillsite.cache import RACY_NS, BuildCache, digest
from skillsite.diagnostics import Diagnostic, sort_diagnostics
from skillsite.discover import Discovery, discover
from skillsite.models import CatalogCheck, CatalogReading, ParsedSkill, SourceFile
from skillsite.parallel import batch_collection, parallel_map
from skillsite.parse import DEFAULT_MAX_BYTES, parse_skill, parse_skill_bytes, read_limited
from skillsite.validate import (Validation, catalog_skill_dirs, check_skill, duplicate_name_diagnostics, is_kept,
                                skill_name, validate_catalog)


@dataclass(frozen=True)
class _Job:
    """One skill to parse and check in a worker (everything it needs, picklable)."""

    source: SourceFile
    raw: bytes | None
    profile: str
    skill_dirs: frozenset[tuple[str, str]]
    max_bytes: int


def _parse_and_check(job: _Job) -> tuple[ParsedSkill, list[Diagnostic]]:
    if job.raw is None:
        parsed = parse_skill(job.source, job.max_bytes)
    else:
        parsed = parse_skill_bytes(job.raw, job.source, job.max_bytes)
    return parsed, check_skill(parsed, job.profile, job.skill_dirs)


def _kept(parsed: ParsedSkill, diags: Sequence[Diagnostic]) -> tuple[Any, ...]:
    """What a worker sends back, and the cache keeps, of a parsed and checked skill: all but its
    source and bytes, which are known where it arrives."""
    return parsed.frontmatter, parsed.key_lines, parsed.body, parsed.body_line, parsed.diagnostics, tuple(diags)


def _restored(source: SourceFile, raw: bytes, kept: tuple[Any, ...]) -> tuple[ParsedSkill, list[Diagnostic]]:
    """The parsed skill and its diagnostics again, from what :func:`_kept` gave."""
    frontmatter, key_lines, body, body_line, parse_diags, diags = kept
    return ParsedSkill(source, frontmatter, key_lines, body, body_line, raw, parse_diags), list(diags)


_JOBS: list[_Job] = []  # set before workers fork: they receive an index, not the job


def _parse_and_check_at(index: int) -> tuple[bytes | None, tuple[Any, ...]]:
    """Worker side of :func:`_parse_and_check`: the job comes from the inherited list and only
    what the parent lacks goes back (not the source description, nor the bytes it read itself)."""
    job = _JOBS[index]
    parsed, diags = _parse_and_check(job)
    return None if job.raw is not None else parsed.raw, _kept(parsed, diags)


def _map_jobs(func: Any, jobs_list: list[_Job], todo: list[int], jobs: int) -> list[Any]:
    """``func`` over the jobs at the ``todo`` indexes, on ``jobs`` processes that inherit the list."""
    global _JOBS
    _JOBS = jobs_list
    try:
        return parallel_map(func, todo, jobs)
    finally:
        _JOBS = []


def _parse_and_check_all(jobs_list: list[_Job], todo: list[int], jobs: int
                         ) -> list[tuple[ParsedSkill, list[Diagnostic]]]:
    outcomes = _map_jobs(_parse_and_check_at, jobs_list, todo, jobs)
    return [_restored(jobs_list[i].source, jobs_list[i].raw if raw is None else raw, kept)
            for i, (raw, kept) in zip(todo, outcomes)]


def _read_raw(source: SourceFile, max_bytes: int) -> bytes | None:
    """The bytes of a SKILL.md within the size limit; None when the parser should report why not."""
    try:
        raw = read_limited(source.skill_md, max_bytes)[0]
    except OSError:
        return None
    return raw if len(raw) <= max_bytes else None


def _cache_key(raw: bytes | None, job: _Job, skill_dirs_digest: str) -> str:
    """A parsed skill's cache key: its bytes and place in the tree, and what its checks depend on
    (a SKILL.md that could not be read has a key of its own, under which nothing is cached)."""
    src = job.source
    if raw is None:
        return digest("unread", src.id)
    return digest(raw, src.id, src.display_path, src.rel_path, str(src.dir), src.parent_id,
                  tuple(f.path for f in src.files), skill_dirs_digest, job.profile, job.max_bytes)


_DIRS_DIGEST = ""  # the skill folders' digest, for the keys workers make; set before they fork


def _read_and_key_at(index: int) -> tuple[Any, ...]:
    """Worker side of a read with an empty cache: the worker reads the SKILL.md itself and makes
    its cache key beside parsing it (nothing to look up first, so nothing to do in the parent)."""
    job = _JOBS[index]
    raw = _read_raw(job.source, job.max_bytes)
    parsed, diags = _parse_and_check(dataclasses.replace(job, raw=raw) if raw is not None else job)
    return _cache_key(raw, job, _DIRS_DIGEST), raw is not None, parsed.raw, _kept(parsed, diags)


def read_catalog(roots: Sequence[Path | str], *, exclude: Sequence[str] = (), profile: str = "default",
                 ignore: Iterable[str] = (), max_bytes: int = DEFAULT_MAX_BYTES, jobs: int = 1,
                 cache: BuildCache | None = None, found: Discovery | None = None) -> CatalogReading:
    """Discover, parse and validate every skill under ``roots``.

    Parsing and per-skill checks run on ``jobs`` processes; with a ``cache``, skills
    whose inputs are unchanged are not parsed or checked again.  The result never
    depends on either.  ``found``: what ``discover(roots, exclude)`` gave already.
    """
    with batch_collection():
        return _read_catalog(roots, exclude, profile, frozenset(ignore), max_bytes, jobs, cache, found)


def _read_catalog(roots: Sequence[Path | str], exclude: Sequence[str], profile: str, ignored: frozenset[str],
                  max_bytes: int, jobs: int, cache: BuildCache | None, found: Discovery | None) -> CatalogReading:
    global _DIRS_DIGEST
    if found is None:
        found = discover(roots, exclude)
    skill_dirs = catalog_skill_dirs(found.sources)
    looked_up = cache is not None and cache.holds("skills")
    jobs_list = [_Job(src, _read_raw(src, max_bytes) if looked_up else None, profile, skill_dirs, max_bytes)
                 for src in found.sources]
    results: list[tuple[ParsedSkill, list[Diagnostic]] | None] = [None] * len(jobs_list)
    keys: list[str] = []
    read: list[bool] = [job.raw is not None for job in jobs_list]  # whether each SKILL.md could be read whole
    _DIRS_DIGEST = digest(tuple(sorted(skill_dirs))) if cache is not None else ""
    if cache is not None and looked_up:
        for i, job in enumerate(jobs_list):
            keys.append(_cache_key(job.raw, job, _DIRS_DIGEST))
            hit = cache.get("skills", keys[i]) if job.raw is not None else None
            if hit is not None:
                results[i] = _restored(job.source, job.raw, hit)
        todo = [i for i, r in enumerate(results) if r is None]
        outcomes = _parse_and_check_all(jobs_list, todo, jobs)
    elif cache is not None:  # nothing to look up: the workers read, and make the keys beside parsing
        todo = list(range(len(jobs_list)))
        outcomes = []
        for i, (key, whole, raw, kept) in zip(todo, _map_jobs(_read_and_key_at, jobs_list, todo, jobs)):
            keys.append(key)
            read[i] = whole
            outcomes.append(_restored(jobs_list[i].source, raw, kept))
    else:
        todo = list(range(len(jobs_list)))
        outcomes = _parse_and_check_all(jobs_list, todo, jobs)
    for i, result in zip(todo, outcomes):
        results[i] = result
        if cache is not None and read[i]:
            cache.put("skills", keys[i], _kept(*result))
    parsed_list = [r[0] for r in results if r is not None]
    checked_list = [r[1] for r in results if r is not None]
    checked: Validation = validate_catalog(parsed_list, profile, ignored, checked_list)
    diags = [d for d in found.diagnostics if d.code not in ignored] + list(checked.diagnostics)
    inputs = digest(keys, found.diagnostics) if cache is not None else ""
    return CatalogReading(found.sources, checked.skills, checked.left_out, tuple(sort_diagnostics(diags)), inputs)


# A skill's verdict: kept?, its name, where the name is, its own diagnostics.
_Verdict = tuple[bool, str, tuple[int, int], tuple[Diagnostic, ...]]


def _verdict_at(index: int) -> _Verdict:
    """Worker side of :func:`check_catalog`: only the few facts the catalog checks need go back."""
    parsed, diags = _parse_and_check(_JOBS[index])
    return is_kept(parsed), skill_name(parsed), parsed.key_lines.get("name", (1, 1)), tuple(diags)


#: A verdict's cache key: what the whole check shares (a digest), the skill's place in the tree,
#: its file list, and its SKILL.md's size, times, inode and device.
VerdictKey = tuple


def _stamped_verdict_at(index: int) -> tuple[tuple[int, ...] | None, _Verdict]:
    """:func:`_verdict_at` with the SKILL.md's stamp for the verdict's cache key, taken in the
    worker (in parallel); the parent adds the rest of the key, which it knows already."""
    return _file_stamp(_JOBS[index].source), _verdict_at(index)


def _file_stamp(src: SourceFile) -> tuple[int, ...] | None:
    """A SKILL.md's size, times, inode and device (as ruff's cache keys files); None when it
    changed too recently to trust them."""
    try:
        st = os.stat(src.skill_md)
    except OSError:
        return None
    if max(st.st_mtime_ns, st.st_ctime_ns) >= time.time_ns() - RACY_NS:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev


def _verdict_key(common: str, src: SourceFile, stamp: tuple[int, ...] | None) -> VerdictKey | None:
    """The cache key of a skill's verdict: ``common`` (what the whole check shares), the
    skill's place in the tree and its :func:`_file_stamp`; None without a stamp.

    The key is the tuple itself, not a digest of it: hashing each key costs more than the stat
    when it runs between parses (about 12 us, against 2.5 us in a loop of its own).  The skill's
    folder and SKILL.md paths are the root's joined with ``rel_path``: left out (their text
    costs a first ``str`` of two Path objects per skill).
    """
    if stamp is None:
        return None
    return (common, src.id, src.display_path, src.rel_path, str(src.root), src.parent_id,
            tuple([f.path for f in src.files]), *stamp)


def check_catalog(roots: Sequence[Path | str], *, exclude: Sequence[str] = (), profile: str = "default",
                  ignore: Iterable[str] = (), max_bytes: int = DEFAULT_MAX_BYTES, jobs: int = 1,
                  cache: BuildCache | None = None, found: Discovery | None = None) -> CatalogCheck:
    """Discover and validate every skill under ``roots``: the diagnostics of :func:`read_catalog`
    without keeping the skills themselves.  ``found``: what ``discover(roots, exclude,
    stat_files=False)`` gave already.

    With a ``cache``, a skill whose SKILL.md and surroundings are unchanged since an earlier
    run is not read again.  A verdict that names a missing file (SK303) is never cached: its
    wording depends on files that discovery does not list.
    """
    with batch_collection():
        ignored = frozenset(ignore)
        if found is None:
            found = discover(roots, exclude, stat_files=False)
        skill_dirs = catalog_skill_dirs(found.sources)
        jobs_list = [_Job(src, None, profile, skill_dirs, max_bytes) for src in found.sources]
        verdicts: list[_Verdict | None] = [None] * len(jobs_list)
        keys: list[VerdictKey | None] = [None] * len(jobs_list)
        todo = list(range(len(jobs_list)))
        # what every verdict key of this check shares
        common = digest(tuple(sorted(skill_dirs)), found.diagnostics, profile, max_bytes) if cache is not None else ""
        if cache is not None and cache.holds("verdicts"):
            for i, src in enumerate(found.sources):
                keys[i] = _verdict_key(common, src, _file_stamp(src))
                if keys[i] is not None:
                    verdicts[i] = cache.get("verdicts", keys[i])
            todo = [i for i, v in enumerate(verdicts) if v is None]
            outcomes = _map_jobs(_verdict_at, jobs_list, todo, jobs)
        elif cache is not None:  # nothing to look up: the workers take the stamps beside the verdicts
            stamped = _map_jobs(_stamped_verdict_at, jobs_list, todo, jobs)
            keys = [_verdict_key(common, src, stamp) for src, (stamp, _) in zip(found.sources, stamped)]
            outcomes = [verdict for _, verdict in stamped]
        else:
            outcomes = _map_jobs(_verdict_at, jobs_list, todo, jobs)
        for i, verdict in zip(todo, outcomes):
            verdicts[i] = verdict
            if cache is not None and keys[i] is not None and not any(d.code == "SK303" for d in verdict[3]):
                cache.put("verdicts", keys[i], verdict)
        done = cast("list[_Verdict]", verdicts)  # every None was in todo, and is filled now
        diags = [d for d in found.diagnostics if d.code not in ignored]
        for verdict in done:
            diags += [d for d in verdict[3] if d.code not in ignored]
        kept = [(src, v[1], v[2]) for src, v in zip(found.sources, done) if v[0]]
        diags += [d for _, d in duplicate_name_diagnostics(kept) if d.code not in ignored]
        left_out = frozenset(src.id for src, v in zip(found.sources, done) if not v[0])
        return CatalogCheck(found.sources, left_out, tuple(sort_diagnostics(diags)))
