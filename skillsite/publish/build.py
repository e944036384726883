"""``skillsite build``: read every skill, then publish the catalog atomically.

    discover -> (nothing changed? stop) -> read and check -> publish each skill (and the search
    indexes beside them) -> skills.json, discovery index, XML block -> pages -> commit

Nothing is written when the build fails (errors, or warnings under strict, without
``keep_going``): everything goes into a staging folder that replaces the output only at the
very end (:mod:`skillsite.publish.staging`).  With a cache folder, the rendered bodies and
file hashes of the last build are reused, unchanged output files stay in place, and a rebuild
with nothing changed stops after discovery (:mod:`skillsite.publish.state`).
"""
from __future__ import annotations

import datetime as _dt
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from skillsite.cache import Cache, code_scope
from skillsite.config import SiteConfig
from skillsite.diagnostics import Diagnostic, Severity, sort_diagnostics
from skillsite.models import CatalogReading, Skill
from skillsite.publish.catalog_files import make_search, search_entry, search_key, write_catalog_files
from skillsite.publish.manifest import manifest
from skillsite.publish.markdown import engine_version
from skillsite.publish.pages import write_site
from skillsite.publish.skills import Publication, collect, plan_publishing, publish_skill
from skillsite.publish.staging import Recorded, Staging, check_target
from skillsite.publish.state import BuildState, inputs_digest, load_state, output_digest, racy_since, save_state
from skillsite.publish.templates import template_dirs
from skillsite.publish.wellknown import discovery_index
from skillsite.source.catalog import read_catalog
from skillsite.source.discover import discover
from skillsite.workers import Workers, default_jobs

CACHE_FILE = "build-cache.sqlite"
#: The stages a build reports to its progress callback, in order.
STAGES = ("discover", "unchanged", "read", "skills", "manifest", "pages", "swap")


@dataclass(frozen=True)
class BuildResult:
    """What a build did: whether it published, what it published, and what it found.

    After a rebuild that found every input and the output as the last build left them,
    nothing was read: ``reading.skills`` is empty and the diagnostics are the last build's.
    """

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


class _Stages:
    """Times each stage of a build and tells a progress callback when one starts."""

    def __init__(self, progress: Callable[[str], None] | None):
        self.progress = progress
        self.started = time.perf_counter()
        self.started_ns = time.time_ns()
        self.seconds: dict[str, float] = {}

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        if self.progress:
            self.progress(name)
        started = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - started


@dataclass(frozen=True)
class _Plan:
    """How this build runs, and everything its output depends on besides the skills."""

    sources: tuple[Path, ...]
    out: Path
    config: SiteConfig
    keep_going: bool
    strict: bool
    base_dir: str            # the project folder: source paths are shown relative to it
    jobs: int
    cache_dir: Path | None
    scope: str               # skillsite's version and code, and the configuration

    def settings(self) -> list[Any]:
        """What the output depends on besides the skills and the templates."""
        return [self.scope, engine_version(), [os.path.abspath(s) for s in self.sources], self.keep_going,
                self.strict, self.base_dir, os.environ.get("SOURCE_DATE_EPOCH", "")]

    def template_stamps(self) -> list[tuple[str, int, int]]:
        return [(str(p), p.stat().st_size, p.stat().st_mtime_ns) for folder in template_dirs(self.config.templates)
                for p in sorted(folder.rglob("*")) if p.is_file()]


def build(sources: Sequence[Path | str], out: Path, config: SiteConfig = SiteConfig(), *,
          keep_going: bool = False, force: bool = False, strict: bool | None = None,
          base: str | None = None, jobs: int | None = None, cache_dir: Path | None = None,
          progress: Callable[[str], None] | None = None) -> BuildResult:
    """Read every skill under ``sources`` and publish the catalog into ``out``.

    ``jobs`` processes parse, check, render and write (default: every core); ``cache_dir``
    keeps work for the next build (None: no cache).  The output never depends on either.
    Raises :class:`~skillsite.publish.staging.OutputError` when ``out`` is not ours to replace.
    """
    stage = _Stages(progress)
    out = Path(out)
    check_target(out, force)
    plan = _Plan(tuple(Path(s) for s in sources), out, config, keep_going,
                 config.strict if strict is None else strict, base or _project_folder(config),
                 jobs or default_jobs(), cache_dir, code_scope(sorted(vars(config).items())))
    with stage("discover"):
        found = discover(plan.sources, config.exclude)
    state = load_state(cache_dir, plan.scope) if cache_dir is not None else None
    inputs = inputs_digest(found, plan.settings(), plan.template_stamps(), racy_since(stage.started_ns)) \
        if cache_dir is not None else ""
    if state is not None:
        with stage("unchanged"):
            unchanged = state.unchanged(inputs, out)
        if unchanged:
            reading = CatalogReading(found.sources, (), (), state.diagnostics)
            return _result(True, plan, reading, state.published, state.skipped, state.diagnostics,
                           state.output_bytes, stage)
    cache = Cache(cache_dir / CACHE_FILE if cache_dir is not None else None, plan.scope)
    with stage("read"):
        reading = read_catalog(plan.sources, exclude=config.exclude, profile=config.profile, ignore=config.ignore,
                               max_bytes=config.max_bytes, jobs=plan.jobs, found=found, cache=cache)
    return _publish_reading(plan, reading, state, inputs, cache, stage)


def _project_folder(config: SiteConfig) -> str:
    """The configuration file's folder, else the current folder."""
    return os.path.dirname(os.path.abspath(config.config_path)) if config.config_path else os.getcwd()


def _fails(diags: Sequence[Diagnostic], strict: bool) -> bool:
    return any(d.severity is Severity.ERROR or (strict and d.severity is Severity.WARNING) for d in diags)


def _publish_reading(plan: _Plan, reading: CatalogReading, state: BuildState | None, inputs: str, cache: Cache,
                     stage: _Stages) -> BuildResult:
    """Publish the skills of a reading (or nothing, when it failed), then keep the cache and state."""
    skipped = tuple(sorted({p.source.id for p in reading.left_out} | {s.id for s in reading.skills if s.has_errors}))
    if _fails(reading.diagnostics, plan.strict) and not plan.keep_going:
        cache.save()  # what was checked stays useful for the build after the fix
        return _result(False, plan, reading, (), skipped, reading.diagnostics, 0, stage)
    skills = [s for s in reading.skills if not s.has_errors]
    diags = list(reading.diagnostics)
    published = _publish(plan, skills, len(skipped), state.outputs if state else None, cache, diags, stage)
    ids = tuple(s.id for s in skills)
    if published is None:
        return _result(False, plan, reading, (), skipped, diags, 0, stage)
    files, records = published
    output_bytes = sum(size for size, _ in files.values())
    if plan.cache_dir is not None:
        cache.save()
        save_state(plan.cache_dir, BuildState(plan.scope, inputs, output_digest(files), records, ids, skipped,
                                              tuple(sort_diagnostics(diags)), output_bytes))
    return _result(True, plan, reading, ids, skipped, diags, output_bytes, stage)


def _publish(plan: _Plan, skills: list[Skill], left_out: int, previous: dict[str, Recorded] | None,
             cache: Cache, diags: list[Diagnostic], stage: _Stages
             ) -> tuple[dict[str, tuple[int, int]], dict[str, Recorded]] | None:
    """Write the catalog of ``skills`` into a staging folder and commit it: the output's files
    (size and mtime) and the record of its keyed ones; None when publishing found errors
    (``diags`` gets the build's own diagnostics)."""
    config = plan.config
    mtime, generated_at = source_date()
    staging = Staging(plan.out, previous)
    try:
        with stage("skills"):
            publication, search = _publish_skills(plan, skills, staging, mtime, cache)
        with stage("manifest"):
            discovery, index_diags = discovery_index(publication.entries, publication.archives,
                                                     {s.id: s.source.display_path for s in skills})
            diags += publication.diagnostics + index_diags
            if _fails(publication.diagnostics, False) and not plan.keep_going:
                staging.discard()
                return None
            data = manifest(publication.entries, config, left_out, generated_at, search["section"])
            write_catalog_files(staging, config, data, discovery, search)
        with stage("pages"):
            write_site(config, staging, data, publication.html, publication.html_keys, template_dirs(config.templates),
                       plan.jobs)
        with stage("swap"):
            files = staging.commit()
    except BaseException:
        staging.discard()
        raise
    return files, staging.records(files)


def _publish_skills(plan: _Plan, skills: list[Skill], staging: Staging, mtime: int, cache: Cache
                    ) -> tuple[Publication, dict[str, Any]]:
    """Every skill published on every core, and the search indexes made beside them (unless the
    cache holds them: they depend on the skills' frontmatter only)."""
    job, html_keys = plan_publishing(skills, staging, plan.config, plan.base_dir, mtime, cache)
    search_entries = [search_entry(s) for s in skills]
    key = search_key(search_entries)
    search = cache.get("search", key)
    with Workers(plan.jobs, job) as workers:
        searching = workers.submit(make_search, search_entries, key) if search is None else None
        publication = collect(job, html_keys, workers.map(publish_skill, range(len(skills))), cache)
    if searching is not None:
        search = searching.result()
        cache.put("search", key, search)
    return publication, search


def _result(ok: bool, plan: _Plan, reading: CatalogReading, published: tuple[str, ...], skipped: tuple[str, ...],
            diags: Sequence[Diagnostic], output_bytes: int, stage: _Stages) -> BuildResult:
    return BuildResult(ok, plan.out, reading, published, skipped, tuple(sort_diagnostics(diags)), output_bytes,
                       time.perf_counter() - stage.started, dict(stage.seconds))
