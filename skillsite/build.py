"""The build: one linear function that reads every skill, then writes every artifact atomically.

Order: read and validate everything first (nothing is written when the build fails),
then write into a staging folder beside the target and publish it only on success
(see :class:`skillsite.output.Staging`: a swap, or a patch of our own previous output).
"""
from __future__ import annotations

import datetime as _dt
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from skillsite import __version__
from skillsite.cache import BuildCache, code_scope, digest

from skillsite.config import SiteConfig
from skillsite.diagnostics import Diagnostic, Severity, make, sort_diagnostics
from skillsite.loader import available_skills_xml, prompt_order, skill_content_xml, skill_entry_xml
from skillsite.manifest import (ENTRY_FILE, RESERVED_NAMES, SCHEMA_FILE, XML_FILE, absolute, manifest,
                                sha256_hex, skill_entry)
from skillsite.models import BuildContext, Skill
from skillsite.output import Staging, check_target, is_previous_output, tree_stats
from skillsite.parallel import batch_collection, default_jobs, parallel_map
from skillsite.pipeline import CatalogReading, read_catalog
from skillsite.schema_check import load_schema
from skillsite.wellknown import (ARCHIVE_DIR, INDEX_PATH, deterministic_tar_gz, discovery_entry, fits_ustar,
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
    stages: dict[str, float] = field(default_factory=dict)  # seconds per stage

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


def _publish_files(skill: Skill, staging: Staging, diags: list[Diagnostic],
                   cache: BuildCache | None) -> tuple[str, list[dict[str, Any]]]:
    """Copy a skill's SKILL.md and bundled files under ``skills/<id>/``.

    Returns the SKILL.md's sha256 and the bundled files' records.

    A file whose content the cache knows (same path, size and modification time) and
    whose previous published copy is intact is kept from the previous output (see :meth:`Staging.reuse`).
    """
    folder = f"skills/{skill.id}/"
    raw_sha = sha256_hex(skill.raw)
    if not staging.reuse(folder + "SKILL.md", raw_sha):
        staging.write_bytes(folder + "SKILL.md", skill.raw, key=raw_sha)
    records = []
    for f in skill.source.files:
        if f.path in RESERVED_NAMES:
            diags.append(make("SK009", f"bundled file '{f.path}' has a name the catalog uses for its own "
                                       "pages; not published", skill.source.display_path))
            continue
        rel = folder + f.path
        try:
            # size and time as discovery saw them: a known file's previous copy is kept as it was then
            stamp = (f.bytes, f.mtime_ns)
            known = cache.file_sha(f.abspath, *stamp) if cache else None
            if known and staging.reuse(rel, known):
                size, sha = f.bytes, known
            else:
                stat = os.stat(f.abspath)  # before copying: a later change must not be recorded as this one
                stamp = (stat.st_size, stat.st_mtime_ns)
                size, sha = staging.copy_hashing(f.abspath, rel)
        except OSError as exc:
            diags.append(make("SK006", f"cannot read bundled file '{f.path}': {exc.strerror or exc}",
                              skill.source.display_path))
            continue
        if cache:
            cache.remember_file_sha(f.abspath, *stamp, sha)
        records.append({"path": f.path, "bytes": size, "sha256": sha})
    return raw_sha, records


def _write_xml(skills: Sequence[Skill], entry_by_id: dict[str, dict[str, Any]], config: SiteConfig,
               staging: Staging) -> None:
    """Per skill: the ``<skill_content>`` fragment and the tier-1 ``<skill>`` entry; then the catalog block.

    Each fragment is keyed by everything it is made of, so an unchanged one is reused.
    """
    for skill in skills:
        entry = entry_by_id[skill.id]
        subs = [(c, entry_by_id[c]["name"], entry_by_id[c]["description"]) for c in entry["children"]]
        page_url = absolute(config, entry["urls"]["page"])
        files = [f["path"] for f in entry["files"]]
        staging.write_keyed(
            f"skills/{skill.id}/{XML_FILE}", digest(XML_FILE, skill.name, skill.id, entry["digest"], page_url, subs),
            lambda: skill_content_xml(skill.name, skill.id, skill.body, page_url, files, subs).encode("utf-8"))
        md_url = absolute(config, entry["urls"]["skill_md"])
        staging.write_keyed(
            f"skills/{skill.id}/{ENTRY_FILE}", digest(ENTRY_FILE, skill.name, skill.description, md_url),
            lambda: skill_entry_xml(skill.name, skill.description, md_url).encode("utf-8"))
    ordered = prompt_order(entry_by_id[s.id] for s in skills)
    staging.write_text(AVAILABLE_SKILLS_FILE, available_skills_xml(
        ordered, [absolute(config, e["urls"]["skill_md"]) for e in ordered], config.prompt_budget))


def _make_archive(item: tuple[list[tuple[str, Path]], int]) -> bytes:
    return deterministic_tar_gz(item[0], item[1])


def _write_discovery_index(entries: Sequence[dict[str, Any]], staging: Staging, mtime: int,
                           diags: list[Diagnostic], paths: dict[str, str], jobs: int,
                           cache: BuildCache | None) -> None:
    """``.well-known/agent-skills/index.json`` with a raw SKILL.md or an archive per skill.

    Archives are made on every core; an archive of an unchanged folder is reused (with its
    sha256 from the cache, or read back).
    """
    listed: list[tuple[dict[str, Any], str, str, str]] = []  # entry, kind, artifact path, URL from the index
    names: set[str] = set()
    to_make: list[tuple[str, str, list[tuple[str, Path]]]] = []  # rel, key, members
    for entry in entries:
        if not listable(entry):
            continue
        if entry["name"] in names:
            diags.append(make("SK212", f"name '{entry['name']}' is already in the discovery index; "
                                       f"skill '{entry['id']}' is not listed there", paths[entry["id"]],
                              severity=Severity.INFO))
            continue
        names.add(entry["name"])
        folder = f"skills/{entry['id']}/"
        if not entry["files"]:
            listed.append((entry, "skill-md", folder + "SKILL.md", "../../" + entry["urls"]["skill_md"]))
            continue
        too_long = next((f["path"] for f in entry["files"] if not fits_ustar(f["path"])), None)
        if too_long is not None:
            diags.append(make("SK010", f"bundled file '{too_long}' has a path too long for a tar archive (USTAR: "
                                       "100 bytes, or 255 split at a '/'); skill not listed in the discovery index",
                              paths[entry["id"]]))
            continue
        rel = f"{ARCHIVE_DIR}/{entry['name']}.tar.gz"
        key = digest("archive", entry["digest"], mtime)
        if not staging.reuse(rel, key):
            members = [("SKILL.md", staging.current(folder + "SKILL.md"))] + [
                (f["path"], staging.current(folder + f["path"])) for f in entry["files"]]
            to_make.append((rel, key, members))
        listed.append((entry, "archive", rel, f"archives/{entry['name']}.tar.gz"))
    made = parallel_map(_make_archive, [(members, mtime) for _, _, members in to_make], jobs)
    shas: dict[str, str] = {}  # artifact path -> sha256
    for (rel, key, _), data in zip(to_make, made):
        staging.write_bytes(rel, data, key=key)
        shas[rel] = sha256_hex(data)
    index = []
    for entry, kind, rel, url in listed:
        if kind == "skill-md":
            sha = entry["sha256"]
        else:
            key = staging.keys[rel]
            sha = shas.get(rel) or (cache.get("archives", key) if cache else None) \
                or sha256_hex(staging.current(rel).read_bytes())
            if cache:
                cache.put("archives", key, sha)
        index.append(discovery_entry(entry["name"], entry["description"], kind, url, sha))
    staging.write_json(INDEX_PATH, index_document(index))


_RENDERER: Any = None  # set before workers fork, so each inherits it


def _render_one(item: tuple[str, str]) -> str:
    return _RENDERER.render(item[1], item[0])


def _render_bodies(skills: Sequence[Skill], entries: Sequence[dict[str, Any]], jobs: int,
                   cache: BuildCache | None) -> dict[str, str]:
    """Every skill body as safe HTML, on every core, reusing cached renderings of unchanged bodies."""
    global _RENDERER
    from skillsite.render import LinkTargets, MarkdownRenderer, engine_version

    targets = LinkTargets.from_entries(entries)
    context = digest(__version__, engine_version(), sorted(targets.skills), sorted(targets.files))
    keys = {s.id: digest(context, s.id, s.body) for s in skills}
    html: dict[str, str] = {}
    if cache:
        for s in skills:
            hit = cache.get("html", keys[s.id])
            if hit is not None:
                html[s.id] = hit
    todo = [(s.id, s.body) for s in skills if s.id not in html]
    if todo:
        _RENDERER = MarkdownRenderer(targets)
        try:
            for (skill_id, _), rendered in zip(todo, parallel_map(_render_one, todo, jobs)):
                html[skill_id] = rendered
                if cache:
                    cache.put("html", keys[skill_id], rendered)
        finally:
            _RENDERER = None
    return html


def _search(skills: Sequence[Skill], entries: Sequence[dict[str, Any]], staging: Staging,
            cache: BuildCache | None) -> dict[str, Any] | None:
    """The search stage: TF-IDF for skills.json, lunr index for the browser (see skillsite.index).

    Both depend only on the searchable fields, so a change to a body or a file reuses them.
    """
    from skillsite import index
    from skillsite.loader import SEARCH_VERSION, search_fields

    key = digest(__version__, SEARCH_VERSION, [(e["id"], search_fields(e), e["priority"]) for e in entries])
    cached = cache.get("search", key) if cache else None
    if cached is None:
        result = index.build_indexes(skills, entries)
        cached = (result.manifest_search, result.files)
        if cache:
            cache.put("search", key, cached)
    manifest_search, files = cached
    for rel, data in files.items():
        staging.write_keyed(rel, digest(key, rel), lambda: data)
    return manifest_search


def _write_pages(ctx: BuildContext) -> None:
    from skillsite import site

    site.write_site(ctx)


class _Stages:
    """Times each stage of the build and tells a progress callback when one starts."""

    def __init__(self, progress: Callable[[str], None] | None):
        self.progress = progress
        self.seconds: dict[str, float] = {}

    @contextmanager
    def __call__(self, name: str):
        if self.progress:
            self.progress(name)
        started = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - started


def _fingerprint(reading: CatalogReading, sources: Sequence[Path | str], config: SiteConfig, keep_going: bool,
                 strict: bool, base_dir: str) -> str:
    """Everything the output depends on: when it is unchanged, so is the output."""
    from skillsite.site import template_dirs

    templates = [(str(p), p.stat().st_size, p.stat().st_mtime_ns)
                 for folder in template_dirs(config.templates) for p in sorted(Path(folder).rglob("*")) if p.is_file()]
    files = [(s.id, [(f.path, f.bytes, f.mtime_ns) for f in s.files]) for s in reading.sources]
    return digest(cache_scope(config), [os.path.abspath(r) for r in sources], keep_going, strict, base_dir,
                  os.environ.get("SOURCE_DATE_EPOCH", ""), templates, reading.input_digest, files)


def cache_scope(config: SiteConfig) -> str:
    """What every cached result depends on besides its own inputs: skillsite and the configuration."""
    return code_scope(sorted(vars(config).items()))


def build(sources: Sequence[Path | str], out: Path, config: SiteConfig = SiteConfig(), *,
          keep_going: bool = False, force: bool = False, strict: bool | None = None,
          base: str | None = None, jobs: int | None = None, cache_dir: Path | None = None,
          progress: Callable[[str], None] | None = None) -> BuildResult:
    """Read every skill under ``sources`` and publish the catalog into ``out``.

    Nothing is written when the build fails (errors, or warnings under strict, without
    ``keep_going``); otherwise everything is written into a staging folder that replaces
    ``out`` only at the very end.  ``jobs`` processes parse, check and render (default:
    every core); ``cache_dir`` keeps work for the next build (None: no cache).  The
    output never depends on either.  Raises :class:`skillsite.output.OutputError` when
    ``out`` is not ours to replace.
    """
    with batch_collection():
        return _build(sources, out, config, keep_going=keep_going, force=force, strict=strict, base=base,
                      jobs=jobs, cache_dir=cache_dir, progress=progress)


def _build(sources: Sequence[Path | str], out: Path, config: SiteConfig, *, keep_going: bool, force: bool,
           strict: bool | None, base: str | None, jobs: int | None, cache_dir: Path | None,
           progress: Callable[[str], None] | None) -> BuildResult:
    started = time.perf_counter()
    stage = _Stages(progress)
    strict = config.strict if strict is None else strict
    jobs = jobs or default_jobs()
    out = Path(out)
    check_target(out, force)
    cache = BuildCache(cache_dir, cache_scope(config)) if cache_dir is not None else None
    with stage("read"):
        reading = read_catalog(sources, exclude=config.exclude, profile=config.profile, ignore=config.ignore,
                               max_bytes=config.max_bytes, jobs=jobs, cache=cache)
    diags = list(reading.diagnostics)
    skipped = tuple(sorted({p.source.id for p in reading.left_out} |
                           {s.id for s in reading.skills if s.has_errors}))
    has_errors = any(d.severity is Severity.ERROR for d in diags)
    has_warnings = any(d.severity is Severity.WARNING for d in diags)

    def result(ok: bool, published: tuple[str, ...], size: int) -> BuildResult:
        all_diags = tuple(sort_diagnostics(diags))
        return BuildResult(ok, out, reading, published, skipped, all_diags, size,
                           time.perf_counter() - started, dict(stage.seconds))

    if (has_errors or (strict and has_warnings)) and not keep_going:
        return result(False, (), 0)

    skills = [s for s in reading.skills if not s.has_errors]
    base_dir = base or (os.path.dirname(os.path.abspath(config.config_path)) if config.config_path
                        else os.getcwd())
    fingerprint = _fingerprint(reading, sources, config, keep_going, strict, base_dir) if cache else ""
    if cache and cache.get("outputs", "fingerprint") == fingerprint:
        with stage("unchanged"):
            previous = cache.get("outputs", "files")
            intact = is_previous_output(out) and previous == tree_stats(out)
        if intact:  # every input and the output are as the last build left them: nothing to do
            return result(True, tuple(s.id for s in skills), sum(size for size, _ in previous.values()))
    mtime, generated_at = source_date()
    staging = Staging(out, reuse=cache.get("outputs", "previous") if cache else None)
    try:
        build_diags: list[Diagnostic] = []
        with stage("files"):
            children = _children(skills)
            entries = []
            for skill in skills:
                raw_sha, files = _publish_files(skill, staging, build_diags, cache)
                entries.append(skill_entry(skill, files, raw_sha, children[skill.id], config, base_dir))
            entry_by_id = {e["id"]: e for e in entries}
        with stage("xml"):
            _write_xml(skills, entry_by_id, config, staging)
        with stage("discovery"):
            _write_discovery_index(entries, staging, mtime, build_diags,
                                   {s.id: s.source.display_path for s in skills}, jobs, cache)
        with stage("search"):
            search = _search(skills, entries, staging, cache)
        with stage("manifest"):
            data = manifest(entries, config, len(skipped), generated_at, search)
            staging.write_json(MANIFEST_FILE, data, compact=True)
            staging.write_json(SCHEMA_FILE, load_schema(SCHEMA_FILE))
        diags.extend(build_diags)
        if any(d.severity is Severity.ERROR for d in build_diags) and not keep_going:
            staging.discard()
            return result(False, (), 0)
        with stage("render"):
            body_html = _render_bodies(skills, entries, jobs, cache)
        with stage("pages"):
            ctx = BuildContext(config, tuple(skills), data, entry_by_id, tuple(sort_diagnostics(diags)),
                               staging.path, body_html, jobs, staging)
            _write_pages(ctx)
        with stage("swap"):
            published = staging.commit()
    except BaseException:
        staging.discard()
        raise
    if cache:
        cache.put("outputs", "previous", staging.published_keys(published))
        cache.put("outputs", "fingerprint", fingerprint)
        cache.put("outputs", "files", published)
        cache.save()
    return result(True, tuple(s.id for s in skills), sum(size for size, _ in published.values()))
