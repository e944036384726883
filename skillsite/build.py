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
                                sha256_hex, skill_dir_url, skill_entry)
from skillsite.models import BuildContext, Skill
from skillsite.output import Staging, check_target, is_previous_output, tree_stats
from skillsite.parallel import Pending, batch_collection, default_jobs, in_background, parallel_map
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


# A bundled file's sha256 as found by a worker, for the parent's cache: (path, size, mtime_ns, sha).
_FileSha = tuple[str, int, int, str]


def _publish_files(skill: Skill, staging: Staging, diags: list[Diagnostic], cache: BuildCache | None
                   ) -> tuple[str, list[dict[str, Any]], list[_FileSha], dict[str, bytes]]:
    """Copy a skill's SKILL.md and bundled files under ``skills/<id>/``.

    Returns the SKILL.md's sha256, the bundled files' records, their shas for the cache, and
    the content of the files copied (up to 1 MiB each; for the skill's archive).

    A file whose content the cache knows (same path, size and modification time) and
    whose previous published copy is intact is kept from the previous output (see :meth:`Staging.reuse`).
    """
    folder = f"skills/{skill.id}/"
    raw_sha = sha256_hex(skill.raw)
    if not staging.reuse(folder + "SKILL.md", raw_sha):
        staging.write_bytes(folder + "SKILL.md", skill.raw, key=raw_sha)
    records, shas, contents = [], [], {}
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
                size, sha, content = staging.copy_hashing(f.abspath, rel)
                if content is not None:
                    contents[f.path] = content
        except OSError as exc:
            diags.append(make("SK006", f"cannot read bundled file '{f.path}': {exc.strerror or exc}",
                              skill.source.display_path))
            continue
        shas.append((str(f.abspath), *stamp, sha))
        records.append({"path": f.path, "bytes": size, "sha256": sha})
    return raw_sha, records, shas, contents


def _write_xml(skill: Skill, entry: dict[str, Any], subs: list[tuple[str, str, str]], config: SiteConfig,
               staging: Staging) -> None:
    """A skill's ``<skill_content>`` fragment and its tier-1 ``<skill>`` entry.

    Each fragment is keyed by everything it is made of, so an unchanged one is reused.
    """
    page_url = absolute(config, entry["urls"]["page"])
    files = [f["path"] for f in entry["files"]]
    staging.write_keyed(
        f"skills/{skill.id}/{XML_FILE}", digest(XML_FILE, skill.name, skill.id, entry["digest"], page_url, subs),
        lambda: skill_content_xml(skill.name, skill.id, skill.body, page_url, files, subs).encode("utf-8"))
    md_url = absolute(config, entry["urls"]["skill_md"])
    staging.write_keyed(
        f"skills/{skill.id}/{ENTRY_FILE}", digest(ENTRY_FILE, skill.name, skill.description, md_url),
        lambda: skill_entry_xml(skill.name, skill.description, md_url).encode("utf-8"))


def _write_catalog_xml(entries: Sequence[dict[str, Any]], config: SiteConfig, staging: Staging) -> None:
    """``available_skills.xml``: the catalog block of every published skill, in prompt order."""
    ordered = prompt_order(entries)
    staging.write_text(AVAILABLE_SKILLS_FILE, available_skills_xml(
        ordered, [absolute(config, e["urls"]["skill_md"]) for e in ordered], config.prompt_budget))


@dataclass
class _Publishing:
    """What publishing one skill needs; set before workers fork, so each inherits it."""

    skills: Sequence[Skill]
    staging: Staging
    config: SiteConfig
    base_dir: str
    children: dict[str, list[str]]
    html_keys: list[str]
    cache: BuildCache | None
    archive_names: list[str | None]   # per skill: the discovery archive it owns (None: none)
    mtime: int                        # of archive members (SOURCE_DATE_EPOCH)
    renderer: Any = None   # skillsite.render.MarkdownRenderer, made on first use

    def subs(self, skill_id: str) -> list[tuple[str, str, str]]:
        """The sub-skills of a skill as (id, name, description)."""
        children = self.children[skill_id]
        if not children:
            return []
        by_id = {s.id: s for s in self.skills if s.id in children}
        return [(c, by_id[c].name, by_id[c].description) for c in children]


@dataclass(frozen=True)
class _Published:
    """One published skill, as a worker reports it to the parent."""

    entry: dict[str, Any]
    html: str | None                                   # None: the cache holds it (under the skill's html key)
    diagnostics: list[Diagnostic]
    placed: list[tuple[str, str, tuple[int, int] | None]]   # what it wrote or kept (Staging.adopt)
    file_shas: list[_FileSha]
    archive_sha: str | None           # sha256 of the archive it made (None: none made, or one kept)


_PUBLISHING: _Publishing | None = None


def _render_one(item: tuple[str, str]) -> str:
    """The HTML of one body: ``(skill id, body)``."""
    assert _PUBLISHING is not None
    if _PUBLISHING.renderer is None:
        from skillsite.render import MarkdownRenderer

        _PUBLISHING.renderer = MarkdownRenderer(_link_targets(_PUBLISHING.skills))
    return _PUBLISHING.renderer.render(item[1], item[0])


def _publish_one(index: int) -> _Published:
    """Everything of skill ``index`` that depends on it alone: its files, manifest entry, XML
    fragments and rendered body (in a worker process, or here)."""
    job = _PUBLISHING
    assert job is not None
    skill = job.skills[index]
    diags: list[Diagnostic] = []
    with job.staging.recording() as placed:
        raw_sha, files, shas, contents = _publish_files(skill, job.staging, diags, job.cache)
        entry = skill_entry(skill, files, raw_sha, job.children[skill.id], job.config, job.base_dir)
        _write_xml(skill, entry, job.subs(skill.id), job.config, job.staging)
        archive_sha = _write_archive(skill, entry, contents, job.archive_names[index], job.mtime, job.staging)
    key = job.html_keys[index]
    cached = job.cache.get("html", key) is not None if job.cache else False
    html = None if cached else _render_one((skill.id, skill.body))
    return _Published(entry, html, diags, placed, shas, archive_sha)


def _archive_names(skills: Sequence[Skill]) -> list[str | None]:
    """Per skill, the name of the discovery archive it would own: installers accept only
    specification names, and the first skill with a name takes it (see _write_discovery_index)."""
    names: set[str] = set()
    owned: list[str | None] = []
    for skill in skills:
        name = skill.name if listable({"name": skill.name, "description": skill.description}) else None
        owned.append(name if name is not None and name not in names else None)
        if name is not None:
            names.add(name)
    return owned


def _archive_path(name: str) -> str:
    return f"{ARCHIVE_DIR}/{name}.tar.gz"


def _write_archive(skill: Skill, entry: dict[str, Any], contents: dict[str, bytes], name: str | None, mtime: int,
                   staging: Staging) -> str | None:
    """The skill's discovery archive when it owns one and has bundled files (every path fitting
    a tar header): kept from the previous output if unchanged, else made (from ``contents``, the
    files just copied, or their published copies); the sha256 of a made one."""
    if name is None or not entry["files"] or not all(fits_ustar(f["path"]) for f in entry["files"]):
        return None
    rel, key = _archive_path(name), digest("archive", entry["digest"], mtime)
    if staging.reuse(rel, key):
        return None
    folder = f"skills/{entry['id']}/"
    members: list[tuple[str, str | bytes]] = [("SKILL.md", skill.raw)] + [
        (f["path"], contents.get(f["path"]) or staging.current(folder + f["path"])) for f in entry["files"]]
    data = deterministic_tar_gz(members, mtime)
    staging.write_bytes(rel, data, key=key)
    return sha256_hex(data)


def _link_targets(skills: Sequence[Skill]) -> Any:
    """What bodies may link to: every published skill and its bundled files (reserved names aside)."""
    from skillsite.render import LinkTargets

    return LinkTargets(frozenset(s.id for s in skills),
                       frozenset(f"{s.id}/{f.path}" for s in skills for f in s.source.files
                                 if f.path not in RESERVED_NAMES))


def _publish_skills(skills: Sequence[Skill], staging: Staging, config: SiteConfig, base_dir: str, mtime: int,
                    jobs: int, cache: BuildCache | None
                    ) -> tuple[list[dict[str, Any]], dict[str, str], dict[str, str], list[Diagnostic]]:
    """Every skill's files, manifest entry, XML fragments, discovery archive and rendered body,
    on every core: the entries (in ``skills`` order), the bodies' HTML by id, the made
    archives' sha256 by site path, and the diagnostics.

    A skill whose rendered body the cache holds is published here: it has little left to do
    (its unchanged files are kept), and a worker would only send the cached HTML back.
    """
    global _PUBLISHING
    from skillsite.render import engine_version

    targets = _link_targets(skills)
    context = digest(__version__, engine_version(), sorted(targets.skills), sorted(targets.files))
    keys = [digest(context, s.id, s.body) for s in skills]
    known = [bool(cache) and cache.old["html"].get(k) is not None for k in keys] if cache else [False] * len(skills)
    _PUBLISHING = _Publishing(skills, staging, config, base_dir, _children(skills), keys, cache,
                              _archive_names(skills), mtime)
    try:
        heavy = [i for i in range(len(skills)) if not known[i]]
        results: list[_Published | None] = [None] * len(skills)
        for i, done in zip(heavy, parallel_map(_publish_one, heavy, jobs)):
            results[i] = done
        for i in range(len(skills)):
            if known[i]:
                results[i] = _publish_one(i)
    finally:
        _PUBLISHING = None
    entries, html, archive_shas, diags = [], {}, {}, []
    for skill, key, done in zip(skills, keys, results):
        assert done is not None
        for rel, content_key, kept in done.placed:
            staging.adopt(rel, content_key, kept)
        if cache:
            for path, size, mtime_ns, sha in done.file_shas:
                cache.remember_file_sha(path, size, mtime_ns, sha)
            if done.html is None:
                html[skill.id] = cache.get("html", key)
            else:
                cache.put("html", key, done.html)
        if done.html is not None:
            html[skill.id] = done.html
        if done.archive_sha is not None:
            archive_shas[_archive_path(done.entry["name"])] = done.archive_sha
        entries.append(done.entry)
        diags += done.diagnostics
    return entries, html, archive_shas, diags


def _write_discovery_index(entries: Sequence[dict[str, Any]], made: dict[str, str], staging: Staging,
                           diags: list[Diagnostic], paths: dict[str, str], cache: BuildCache | None) -> None:
    """``.well-known/agent-skills/index.json``: a raw SKILL.md or an archive per skill (archives
    were made or kept by :func:`_write_archive`; ``made`` has the sha256 of those made)."""
    index = []
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
        if not entry["files"]:
            index.append(discovery_entry(entry["name"], entry["description"], "skill-md",
                                         "../../" + entry["urls"]["skill_md"], entry["sha256"]))
            continue
        too_long = next((f["path"] for f in entry["files"] if not fits_ustar(f["path"])), None)
        if too_long is not None:
            diags.append(make("SK010", f"bundled file '{too_long}' has a path too long for a tar archive (USTAR: "
                                       "100 bytes, or 255 split at a '/'); skill not listed in the discovery index",
                              paths[entry["id"]]))
            continue
        rel = _archive_path(entry["name"])
        key = staging.keys[rel]
        sha = made.get(rel) or (cache.get("archives", key) if cache else None) \
            or sha256_hex(staging.current(rel).read_bytes())
        if cache:
            cache.put("archives", key, sha)
        index.append(discovery_entry(entry["name"], entry["description"], "archive",
                                     f"archives/{entry['name']}.tar.gz", sha))
    staging.write_json(INDEX_PATH, index_document(index))


def _search_entry(skill: Skill) -> dict[str, Any]:
    """What search reads of a skill's manifest entry (see :func:`skillsite.manifest.skill_entry`):
    known before its files are published, so the indexes are made meanwhile."""
    return {"id": skill.id, "name": skill.name, "description": skill.description, "tags": list(skill.tags),
            "tools": [dict(t) for t in skill.tools], "priority": skill.priority,
            "urls": {"page": skill_dir_url(skill.id)}}


def _search_key(entries: Sequence[dict[str, Any]]) -> str:
    """What the search indexes are made of: only the searchable fields, so a change to a body or
    a file reuses them."""
    from skillsite.loader import SEARCH_VERSION, search_fields

    return digest(__version__, SEARCH_VERSION, [(e["id"], search_fields(e), e["priority"]) for e in entries])


def _build_search(entries: Sequence[dict[str, Any]]) -> tuple[tuple[Any, dict[str, bytes]], float]:
    """TF-IDF for skills.json and the lunr files for the browser (see skillsite.index), and the
    seconds it took (in a background process, or here)."""
    from skillsite import index

    started = time.perf_counter()
    result = index.build_indexes((), entries)
    return (result.manifest_search, result.files), time.perf_counter() - started


def _write_search(key: str, files: dict[str, bytes], staging: Staging) -> None:
    for rel, data in files.items():
        staging.write_keyed(rel, digest(key, rel), lambda: data)


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
    pending: list[Pending[Any]] = []
    try:
        with stage("skills"):  # files, manifest entries, XML fragments, archives and rendered bodies
            # the search indexes depend on frontmatter only: a background process makes them meanwhile
            search_entries = [_search_entry(s) for s in skills]
            search_key = _search_key(search_entries)
            cached_search = cache.get("search", search_key) if cache else None
            search = None if cached_search is not None else in_background(lambda: _build_search(search_entries),
                                                                           jobs)
            if search is not None:
                pending.append(search)
            entries, body_html, archives, build_diags = _publish_skills(skills, staging, config, base_dir, mtime,
                                                                        jobs, cache)
            entry_by_id = {e["id"]: e for e in entries}
            _write_catalog_xml(entries, config, staging)
            _write_discovery_index(entries, archives, staging, build_diags,
                                   {s.id: s.source.display_path for s in skills}, cache)
        diags.extend(build_diags)
        if any(d.severity is Severity.ERROR for d in build_diags) and not keep_going:
            for task in pending:
                task.abandon()
            staging.discard()
            return result(False, (), 0)
        data = manifest(entries, config, len(skipped), generated_at, None)
        with stage("pages"):
            ctx = BuildContext(config, tuple(skills), data, entry_by_id, tuple(sort_diagnostics(diags)),
                               staging.path, body_html, jobs, staging)
            _write_pages(ctx)
        with stage("search"):
            if search is not None:
                cached_search, stage.seconds["search, in the background"] = search.result()
                if cache:
                    cache.put("search", search_key, cached_search)
            data["search"], search_files = cached_search
            _write_search(search_key, search_files, staging)
        with stage("manifest"):
            staging.write_json(MANIFEST_FILE, data, compact=True)
            staging.write_json(SCHEMA_FILE, load_schema(SCHEMA_FILE))
        with stage("swap"):
            published = staging.commit()
    except BaseException:
        for task in pending:
            task.abandon()
        staging.discard()
        raise
    if cache:
        cache.put("outputs", "previous", staging.published_keys(published))
        cache.put("outputs", "fingerprint", fingerprint)
        cache.put("outputs", "files", published)
        cache.save()
    return result(True, tuple(s.id for s in skills), sum(size for size, _ in published.values()))
