"""The build: one linear function that reads every skill, then writes every artifact atomically.

Order: read and validate everything first (nothing is written when the build fails),
then write into a staging folder beside the target and swap it in only on success.
"""
from __future__ import annotations

import datetime as _dt
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from skillsite.config import SiteConfig
from skillsite.diagnostics import Diagnostic, Severity, make, sort_diagnostics
from skillsite.loader import available_skills_xml, prompt_order, skill_content_xml, skill_entry_xml
from skillsite.manifest import (ENTRY_FILE, RESERVED_NAMES, SCHEMA_FILE, XML_FILE, absolute, manifest,
                                sha256_hex, skill_dir_url, skill_entry)
from skillsite.models import BuildContext, Skill
from skillsite.output import Staging, check_target
from skillsite.pipeline import CatalogReading, read_catalog
from skillsite.schema_check import load_schema
from skillsite.wellknown import (ARCHIVE_DIR, INDEX_PATH, deterministic_tar_gz, discovery_entry,
                                 index_document, listable)

AVAILABLE_SKILLS_FILE = "available_skills.xml"
MANIFEST_FILE = "skills.json"


@dataclass(frozen=True)
class BuildResult:
    """What a build did: whether it published, what it published, and what it found."""

    ok: bool                              # the output was written (and swapped in)
    out: Path
    reading: CatalogReading
    published: tuple[str, ...]            # ids of published skills
    skipped: tuple[str, ...]              # ids of skills left out (errors)
    diagnostics: tuple[Diagnostic, ...]   # sorted, including the build's own
    output_bytes: int
    seconds: float

    @property
    def errors(self) -> int:
        return sum(d.severity is Severity.ERROR for d in self.diagnostics)

    @property
    def warnings(self) -> int:
        return sum(d.severity is Severity.WARNING for d in self.diagnostics)


def source_date() -> tuple[int, str | None]:
    """``SOURCE_DATE_EPOCH`` as (seconds, ISO text); (0, None) when unset or invalid."""
    raw = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not raw.isdigit():
        return 0, None
    seconds = int(raw)
    return seconds, _dt.datetime.fromtimestamp(seconds, tz=_dt.timezone.utc).isoformat().replace("+00:00", "Z")


def _children(skills: Sequence[Skill]) -> dict[str, list[str]]:
    published = {s.id for s in skills}
    children: dict[str, list[str]] = {s.id: [] for s in skills}
    for s in skills:
        if s.parent_id in published:
            children[s.parent_id].append(s.id)
    return children


def _publish_files(skill: Skill, staging: Staging, diags: list[Diagnostic]) -> list[dict[str, Any]]:
    """Copy a skill's SKILL.md and bundled files under ``skills/<id>/``; returns the file records."""
    folder = f"skills/{skill.id}/"
    staging.write_bytes(folder + "SKILL.md", skill.raw)
    records = []
    for f in skill.source.files:
        if f.path in RESERVED_NAMES:
            diags.append(make("SK009", f"bundled file '{f.path}' has a name the catalog uses for its own "
                                       "pages; not published", skill.source.display_path))
            continue
        try:
            size, sha = staging.copy_hashing(f.abspath, folder + f.path)
        except OSError as exc:
            diags.append(make("SK006", f"cannot read bundled file '{f.path}': {exc.strerror or exc}",
                              skill.source.display_path))
            continue
        records.append({"path": f.path, "bytes": size, "sha256": sha})
    return records


def _write_discovery_index(entries: Sequence[dict[str, Any]], staging: Staging, mtime: int,
                           diags: list[Diagnostic], paths: dict[str, str]) -> None:
    """``.well-known/agent-skills/index.json`` with a raw SKILL.md or an archive per skill."""
    listed: list[dict[str, str]] = []
    names: set[str] = set()
    for entry in entries:
        if not listable(entry):
            continue
        if entry["name"] in names:
            diags.append(make("SK212", f"name '{entry['name']}' is already in the discovery index; "
                                       f"skill '{entry['id']}' is not listed there", paths[entry["id"]],
                              severity=Severity.INFO))
            continue
        names.add(entry["name"])
        skill_md = staging.file(f"skills/{entry['id']}/SKILL.md")
        if not entry["files"]:
            listed.append(discovery_entry(entry["name"], entry["description"], "skill-md",
                                          "../../" + entry["urls"]["skill_md"], skill_md.read_bytes()))
            continue
        members = [("SKILL.md", skill_md)] + [(f["path"], staging.file(f"skills/{entry['id']}/{f['path']}"))
                                              for f in entry["files"]]
        data = deterministic_tar_gz(members, mtime)
        rel = f"{ARCHIVE_DIR}/{entry['name']}.tar.gz"
        staging.write_bytes(rel, data)
        listed.append(discovery_entry(entry["name"], entry["description"], "archive",
                                      f"archives/{entry['name']}.tar.gz", data))
    staging.write_json(INDEX_PATH, index_document(listed))


def _search(skills: Sequence[Skill], entries: Sequence[dict[str, Any]], staging: Staging) -> dict[str, Any] | None:
    """The search stage: TF-IDF for skills.json, lunr index for the browser (see skillsite.index)."""
    from skillsite import index

    result = index.build_indexes(skills, entries)
    for rel, data in result.files.items():
        staging.write_bytes(rel, data)
    return result.manifest_search


def _write_pages(ctx: BuildContext) -> None:
    from skillsite import site

    site.write_site(ctx)


def build(sources: Sequence[Path | str], out: Path, config: SiteConfig = SiteConfig(), *,
          keep_going: bool = False, force: bool = False, strict: bool | None = None,
          base: str | None = None) -> BuildResult:
    """Read every skill under ``sources`` and publish the catalog into ``out``.

    Nothing is written when the build fails (errors, or warnings under strict, without
    ``keep_going``); otherwise everything is written into a staging folder that replaces
    ``out`` only at the very end.  Raises :class:`skillsite.output.OutputError` when
    ``out`` is not ours to replace.
    """
    started = time.perf_counter()
    strict = config.strict if strict is None else strict
    out = Path(out)
    check_target(out, force)
    reading = read_catalog(sources, exclude=config.exclude, profile=config.profile, ignore=config.ignore,
                           max_bytes=config.max_bytes)
    diags = list(reading.diagnostics)
    skipped = tuple(sorted({p.source.id for p in reading.left_out} |
                           {s.id for s in reading.skills if s.has_errors}))
    has_errors = any(d.severity is Severity.ERROR for d in diags)
    has_warnings = any(d.severity is Severity.WARNING for d in diags)

    def result(ok: bool, published: tuple[str, ...], size: int) -> BuildResult:
        all_diags = tuple(sort_diagnostics(diags))
        return BuildResult(ok, out, reading, published, skipped, all_diags, size,
                           time.perf_counter() - started)

    if (has_errors or (strict and has_warnings)) and not keep_going:
        return result(False, (), 0)

    skills = [s for s in reading.skills if not s.has_errors]
    base_dir = base or (os.path.dirname(os.path.abspath(config.config_path)) if config.config_path
                        else os.getcwd())
    mtime, generated_at = source_date()
    staging = Staging(out)
    try:
        build_diags: list[Diagnostic] = []
        children = _children(skills)
        by_id = {s.id: s for s in skills}
        entries = []
        for skill in skills:
            files = _publish_files(skill, staging, build_diags)
            entries.append(skill_entry(skill, files, sha256_hex(skill.raw), children[skill.id], config, base_dir))
        entry_by_id = {e["id"]: e for e in entries}
        for entry in entries:
            skill = by_id[entry["id"]]
            folder = entry["urls"]["page"]
            subs = [(c, entry_by_id[c]["name"], entry_by_id[c]["description"]) for c in entry["children"]]
            xml = skill_content_xml(skill.name, skill.id, skill.body, absolute(config, folder),
                                    [f["path"] for f in entry["files"]], subs)
            staging.write_text(f"skills/{skill.id}/{XML_FILE}", xml)
            staging.write_text(f"skills/{skill.id}/{ENTRY_FILE}",
                               skill_entry_xml(skill.name, skill.description, absolute(config, entry["urls"]["skill_md"])))
        ordered = prompt_order(entries)
        staging.write_text(AVAILABLE_SKILLS_FILE, available_skills_xml(
            ordered, [absolute(config, e["urls"]["skill_md"]) for e in ordered], config.prompt_budget))
        _write_discovery_index(entries, staging, mtime, build_diags,
                               {s.id: s.source.display_path for s in skills})
        search = _search(skills, entries, staging)
        data = manifest(entries, config, len(skipped), generated_at, search)
        staging.write_json(MANIFEST_FILE, data)
        staging.write_json(SCHEMA_FILE, load_schema(SCHEMA_FILE))
        diags.extend(build_diags)
        if any(d.severity is Severity.ERROR for d in build_diags) and not keep_going:
            staging.discard()
            return result(False, (), 0)
        ctx = BuildContext(config, tuple(skills), data, entry_by_id, tuple(sort_diagnostics(diags)), staging.path)
        _write_pages(ctx)
        size = staging.size()
        staging.commit()
    except BaseException:
        staging.discard()
        raise
    return result(True, tuple(s.id for s in skills), size)

