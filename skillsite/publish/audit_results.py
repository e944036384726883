"""The audit in the build: every published skill is audited (on every core, from the cache when
its files are unchanged), ``audit.ignore`` suppressions apply, each manifest entry gets
``audit: {risk, findings}``, and ``audit.fail_on`` decides which findings block publishing.

A skill is audited once its files are published.  The audit reads every file of its folder,
published or not (an excluded file, a ``node_modules`` folder), so its findings are cached under
the digest of the published content (the manifest's ``digest``) plus each other file's content
and every file's executable bit: a fresh checkout with the cache restored (new file times, same
content) audits nothing again.  Working that key out reads the files that are not published;
a build that saw the stamps of every file the audit reads (path, size, time, executable bit)
unchanged takes the key it worked out last time instead (:data:`Section.AUDIT_KEY`).
"""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

from skillsite.agent.entry import NOTHING_FOUND, AuditFinding, AuditSummary, ManifestEntry, shared
from skillsite.audit.engine import audit_skill
from skillsite.audit.files import MAX_TEXT_BYTES, skill_files
from skillsite.audit.model import Finding, at_least, risk_of
from skillsite.audit.report import SkillAudit
from skillsite.audit.suppress import apply_suppressions, entry_lines, parse_suppressions
from skillsite.cache import Cache, KeptObjects, Section, digest, kept_or_made
from skillsite.config import SiteConfig
from skillsite.config_sections import NEVER
from skillsite.diagnostics import Diagnostic, Severity, make
from skillsite.models import Skill
from skillsite.publish.manifest import sha256_hex
from skillsite.bounded import read_limited
from skillsite.workers import Workers



def audit_key(entry: ManifestEntry, folder: Path) -> str:
    """What a skill's findings depend on: its id (nested skills are audited apart), the content
    of the files it publishes and of the other files the audit reads, and their modes."""
    published = {"SKILL.md", *(f.path for f in entry.files)}
    listing = [(f.path, f.executable, None if f.path in published else _content_digest(f.abspath))
               for f in skill_files(folder)]
    return digest("audit", entry.id, entry.digest, listing)


def _content_digest(path: str) -> str:
    """sha256 of a file's first bytes, as far as the audit reads them ("" when unreadable)."""
    try:
        data, _ = read_limited(path, MAX_TEXT_BYTES)
    except OSError:
        return ""
    return sha256_hex(data)


def audit_one(job: Any, index: int) -> list[dict[str, Any]]:
    """The findings of skill ``index`` of a publishing job (in a worker)."""
    return [f.to_json() for f in audit_skill(job.skills[index].source.dir)]


def audit_published(workers: Workers, skills: Sequence[Skill], entries: Sequence[ManifestEntry], cache: Cache,
                    listings: Mapping[str, str]) -> dict[str, tuple[dict[str, Any], ...]]:
    """Every published skill's findings, by id: from the cache (in a long-running process, as
    the last build took them: nothing changes them), or audited on every core (``listings``: the
    digest of each skill's audit listing, where its stamps can be trusted).  Tuples: ``serve``
    keeps them between builds, and most are empty (the one empty tuple, nothing for the garbage
    collector to walk); those audited now are kept as they are for the next build."""
    keys = _audit_keys(skills, entries, cache, listings)
    found = {e.id: stored for e, stored in zip(entries, cache.made_many(Section.AUDIT, keys, tuple))}
    missing = [index for index, entry in enumerate(entries) if found[entry.id] is None]
    for index, findings in zip(missing, workers.imap(audit_one, missing)):
        found[entries[index].id] = tuple(findings)
        cache.put(Section.AUDIT, keys[index], findings)
        cache.keep_made(Section.AUDIT, keys[index], found[entries[index].id])  # the next build takes these
    return found


#: Where a long-running process's resident objects keep each skill's key of its audit key (by its id):
#: the one worked out for this very entry (``serve`` keeps each unchanged skill's) and equal stamps.
AUDIT_STAMPS_KEY = "audit stamps key"


def _audit_keys(skills: Sequence[Skill], entries: Sequence[ManifestEntry], cache: Cache,
                listings: Mapping[str, str]) -> list[str]:
    """Each skill's :func:`audit_key`: the one worked out last time when the skill's published
    content and the stamps of its audit listing are unchanged, else worked out now (and kept)."""
    by_stamps = [kept_or_made(cache.resident, AUDIT_STAMPS_KEY, e.id, e, (listings[e.id],),
                              lambda e=e: digest("audit key", e.id, e.digest, listings[e.id]))
                 if e.id in listings else None for e in entries]
    keys = []
    stored = cache.made_many(Section.AUDIT_KEY, by_stamps, str)
    for skill, entry, stamped, known in zip(skills, entries, by_stamps, stored):
        if known is None:
            known = audit_key(entry, skill.source.dir)
            if stamped is not None:
                cache.put(Section.AUDIT_KEY, stamped, known)
        keys.append(known)
    return keys


#: Where a long-running process's resident objects keep each entry with its audit (by its id).
AUDITED_ENTRY = "audited entry"
#: Where they keep each skill's findings as made of the cache's (by its id).
AUDIT_FINDINGS = "audit findings"


def apply_audits(entries: list[ManifestEntry], raw: Mapping[str, Sequence[dict[str, Any]]], config: SiteConfig,
                 shown: dict[str, str], resident: KeptObjects | None = None) -> list[Diagnostic]:
    """Suppress, then give every entry its ``audit`` (entries are frozen: each is replaced in
    ``entries`` by one with its audit; in a long-running process, by the one the last build made
    of this very entry with equal findings, and each skill's findings are those made last time
    of the very same stored ones); the build's diagnostics: the suppressions' problems
    (warnings) and, with ``audit.fail_on``, an error for each finding at or above it."""
    suppressions, _ = parse_suppressions(config.audit or None)
    found = [kept_or_made(resident, AUDIT_FINDINGS, e.id, stored, (), lambda stored=stored: tuple(
                 Finding(**f) for f in stored)) for e in entries for stored in [raw.get(e.id, ())]]
    problems: list[Finding] = []
    if suppressions:
        config_path = config.config_path or "skillsite.yml"
        lines = entry_lines(config.config_path) if config.config_path else []
        kept, problems = apply_suppressions([SkillAudit(e.id, shown[e.id], f) for e, f in zip(entries, found)],
                                            suppressions, config_path, lines)
        found = [result.findings for result in kept]
    for index, findings in enumerate(found):
        entries[index] = kept_or_made(resident, AUDITED_ENTRY, entries[index].id, entries[index], (findings,),
                                      lambda e=entries[index], f=findings: dataclasses.replace(
                                          e, audit=audit_summary(f)))
    diags = [make(p.code, p.message, p.path, p.line, p.column, Severity.WARNING) for p in problems]
    for entry, findings in zip(entries, found):
        if findings:  # most skills have none
            diags += blocking(findings, config, os.path.dirname(shown[entry.id]))
    return diags


def audit_release(folder: Path, paths: Sequence[str]) -> list[dict[str, Any]]:
    """The findings of a past release's files ``paths``, published in ``folder`` (what else the
    folder holds, its skill.xml or a file of an earlier build, is not the release's)."""
    listed = frozenset(paths)
    return [f.to_json() for f in audit_skill(folder) if f.path in listed]


def suppressed(skill_id: str, shown: str, raw: Sequence[dict[str, Any]], config: SiteConfig) -> tuple[Finding, ...]:
    """The findings ``raw`` of one skill (or of one of its releases) after ``audit.ignore``."""
    suppressions, _ = parse_suppressions(config.audit or None)
    kept, _ = apply_suppressions([SkillAudit(skill_id, shown, tuple(Finding(**f) for f in raw))], suppressions)
    return kept[0].findings


def blocking(findings: Sequence[Finding], config: SiteConfig, folder: str, what: str = "") -> list[Diagnostic]:
    """With ``audit.fail_on``, an error for each finding at or above it (``folder``: where the
    skill's files are shown; ``what``: which release, when not the current files)."""
    fail_on = (config.audit or {}).get("fail_on", NEVER)
    if fail_on == NEVER:
        return []
    return [make(f.code, f"audit: {f.message}{what} (blocks publishing: audit.fail_on is {fail_on})",
                 os.path.join(folder, f.path), f.line, f.column, Severity.ERROR)
            for f in findings if at_least(f.severity, fail_on)]


def audit_summary(findings: Sequence[Finding]) -> AuditSummary:
    """A skill's ``audit`` in the manifest: its risk and its findings (after suppressions)."""
    return shared(AuditSummary(risk_of(findings), tuple(
        AuditFinding(code=f.code, severity=f.severity, category=f.category, path=f.path, line=f.line,
                     column=f.column, message=f.message) for f in findings)), NOTHING_FOUND)


def risk_counts(entries: Sequence[ManifestEntry]) -> dict[str, int]:
    """How many published skills are at each risk."""
    counts = {risk: 0 for risk in ("high", "medium", "low", "none")}
    for entry in entries:
        counts[entry.risk] += 1
    return counts
