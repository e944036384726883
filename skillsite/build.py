"""The build: one linear function that reads every skill, then writes every artifact atomically.

Order: read and validate everything first (nothing is written when the build fails),
then write into a staging folder beside the target and publish it only on success
(see :class:`skillsite.output.Staging`: a swap, or a patch of our own previous output).

A rebuild with nothing changed stops after discovery: the state file beside the cache
(:func:`quick_fingerprint`) says what the last build read and wrote, and its result.
What such a check needs is imported here; parsing, rendering and publishing only when
there is work to do.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from skillsite.cache import (PAGES_CACHE_FILE, RACY_NS, SECTIONS, BuildCache, code_scope, digest, load_signed,
                             save_signed)
from skillsite.config import SiteConfig, template_dirs
from skillsite.diagnostics import Diagnostic, Severity, sort_diagnostics
from skillsite.discover import Discovery, discover
from skillsite.models import BuildContext, CatalogReading
from skillsite.output import Snapshot, Staging, check_target, is_previous_output, snapshot
from skillsite.parallel import batch_collection, default_jobs, in_background

if TYPE_CHECKING:
    from skillsite.parallel import Pending

MANIFEST_FILE = "skills.json"
STATE_FILE = "build-state.pickle"
OUTPUTS_FILE = "build-outputs.pickle"  # what the last build published, for a rebuild to patch it
_STATE_HEADER = ("skillsite-build-state", 4)
#: The cache sections every stage but the pages fills: saved while the pages are made. The
#: pages' own section is a small file of its own, saved at the end.
_EARLY_SECTIONS = tuple(name for name in SECTIONS if name != "pages")


@dataclass(frozen=True)
class BuildResult:
    """What a build did: whether it published, what it published, and what it found.

    ``reading`` holds the parsed skills, except after a rebuild that found every input and
    the output as the last build left them: nothing is parsed then, and ``reading.skills``
    is empty (the diagnostics are the last build's).
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


def _write_pages(ctx: BuildContext, also: Sequence[Callable[[], Any]] = ()) -> list[Any]:
    from skillsite import site

    return site.write_site(ctx, also)


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


def _template_stamps(config: SiteConfig) -> list[tuple[str, int, int]]:
    return [(str(p), p.stat().st_size, p.stat().st_mtime_ns)
            for folder in template_dirs(config.templates) for p in sorted(Path(folder).rglob("*")) if p.is_file()]


def _settings(sources: Sequence[Path | str], scope: str, config: SiteConfig, keep_going: bool, strict: bool,
              base_dir: str) -> list[Any]:
    """What the output depends on besides the skills: skillsite and the configuration (``scope``,
    see :func:`cache_scope`), the templates, the Markdown parser, where and how the build runs."""
    from skillsite.render import engine_version

    return [scope, engine_version(), [os.path.abspath(r) for r in sources], keep_going, strict,
            base_dir, os.environ.get("SOURCE_DATE_EPOCH", ""), _template_stamps(config)]


def quick_fingerprint(found: Discovery, settings: list[Any]) -> str:
    """A digest of every input as discovery saw it, without reading any: where each skill is,
    and its SKILL.md's and bundled files' sizes and modification times."""
    inputs = [(s.id, s.display_path, s.rel_path, str(s.root), str(s.dir), s.parent_id, s.stamp,
               [(f.path, f.abspath, f.bytes, f.mtime_ns) for f in s.files]) for s in found.sources]
    return digest(settings, inputs, found.diagnostics)


#: More inputs than this written within the racy window: the next build reads everything
#: rather than hashing them one by one.
MAX_RACY_INPUTS = 64


def _racy_inputs(found: Discovery, reading: CatalogReading, settings: list[Any], published: set[str],
                 cache: BuildCache, cutoff: int) -> list[tuple[str, str]] | None:
    """What the next quick check must read to trust the stamps of inputs written after ``cutoff``
    (a later change within the file system's timestamp granularity would keep the stamp):
    their paths and the sha256 of the content this build used; None when one cannot be vouched
    for (a template, an unread file) or there are too many."""
    if any(mtime >= cutoff for _, _, mtime in settings[-1]):
        return None
    raw = {s.id: s.raw for s in reading.skills} | {p.source.id: p.raw for p in reading.left_out}
    racy: list[tuple[str, str]] = []
    for src in found.sources:
        if src.stamp[1] >= cutoff:
            if src.id not in raw:
                return None
            racy.append((str(src.skill_md), hashlib.sha256(raw[src.id]).hexdigest()))
        if src.id not in published:
            continue  # a bundled file of a skill left out changes nothing
        for f in src.files:
            if f.mtime_ns >= cutoff:
                sha = cache.file_sha(f.abspath, f.bytes, f.mtime_ns)
                if sha is None:
                    return None
                racy.append((f.abspath, sha))
        if len(racy) > MAX_RACY_INPUTS:
            return None
    return racy


def _unchanged_since(racy: list[tuple[str, str]]) -> bool:
    """Every racy input still holds the content the last build used."""
    for path, sha in racy:
        content = hashlib.sha256()
        try:
            with open(path, "rb") as handle:
                while chunk := handle.read(1 << 20):
                    content.update(chunk)
        except OSError:
            return False
        if content.hexdigest() != sha:
            return False
    return True


def _fingerprint(reading: CatalogReading, settings: list[Any]) -> str:
    """Everything the output depends on, by content: when it is unchanged, so is the output."""
    files = [(s.id, [(f.path, f.bytes, f.mtime_ns) for f in s.files]) for s in reading.sources]
    return digest(settings, reading.input_digest, files)


def cache_scope(config: SiteConfig) -> str:
    """What every cached result depends on besides its own inputs: skillsite and the configuration."""
    return code_scope(sorted(vars(config).items()))


def _digest_stats(files: dict[str, tuple[int, int]]) -> str:
    return digest(sorted(files.items()))


def _output_snapshot(out: Path) -> tuple[str, Snapshot]:
    """The output as the build found it, with a digest of every file's size and time (none
    when it holds anything but folders and regular files: skillsite never publishes that)."""
    found = snapshot(out)
    return ("" if found.irregular else _digest_stats(found.stats)), found


def _load_state(cache_dir: Path, scope: str, name: str = STATE_FILE) -> dict[str, Any] | None:
    state = load_signed(cache_dir / name)
    if isinstance(state, dict) and state.get("header") == _STATE_HEADER and state.get("scope") == scope:
        return state
    return None


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
    started, started_ns = time.perf_counter(), time.time_ns()
    stage = _Stages(progress)
    strict = config.strict if strict is None else strict
    jobs = jobs or default_jobs()
    out = Path(out)
    check_target(out, force)
    base_dir = base or (os.path.dirname(os.path.abspath(config.config_path)) if config.config_path
                        else os.getcwd())
    scope = cache_scope(config)
    state = _load_state(cache_dir, scope) if cache_dir is not None else None
    # A process of its own lists the output's files while this one lists the sources: for the
    # no-op check, and for a rebuild's check that the files it keeps are as it left them.
    output_files = None
    if cache_dir is not None and is_previous_output(out):  # its digest first, then the whole listing
        output_files = in_background(lambda: _output_snapshot(out), jobs, parts=2)
    settings: list[Any] = []
    quick, same = "", False
    try:
        with stage("discover"):
            found = discover(sources, config.exclude)
        if cache_dir is not None:
            settings = _settings(sources, scope, config, keep_going, strict, base_dir)
            quick = quick_fingerprint(found, settings)
        same = state is not None and state["quick"] == quick and _unchanged_since(state["racy"])
    except BaseException:
        if output_files is not None:
            output_files.abandon()
        raise
    if state is not None and output_files is not None and same:
        with stage("unchanged"):
            tree = output_files.part(0)
            intact = bool(tree) and state["tree"] == tree
        if intact:  # every input and the output are as the last build left them: nothing to do
            output_files.abandon()
            reading = CatalogReading(found.sources, (), (), state["diagnostics"])
            return BuildResult(True, out, reading, state["published"], state["skipped"], state["diagnostics"],
                               state["bytes"], time.perf_counter() - started, dict(stage.seconds))
    current: Snapshot | None = output_files.part(1) if output_files is not None else None
    from skillsite.pipeline import read_catalog

    cache = BuildCache(cache_dir, scope, sections=_EARLY_SECTIONS) if cache_dir is not None else None
    outputs = (_load_state(cache_dir, scope, OUTPUTS_FILE) if cache_dir is not None else None) or {}
    with stage("read"):
        reading = read_catalog(sources, exclude=config.exclude, profile=config.profile, ignore=config.ignore,
                               max_bytes=config.max_bytes, jobs=jobs, cache=cache, found=found)
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
    ids = tuple(s.id for s in skills)

    fingerprint = _fingerprint(reading, settings) if cache else ""

    def remember(files: dict[str, tuple[int, int]]) -> None:
        """The state the next build's quick check compares with (an input too recent to trust
        its stamp leaves the quick check out)."""
        assert cache_dir is not None and cache is not None
        racy = _racy_inputs(found, reading, settings, set(ids), cache, started_ns - RACY_NS)
        save_signed(cache_dir / STATE_FILE, {
            "header": _STATE_HEADER, "scope": scope, "quick": quick if racy is not None else None,
            "racy": racy or [], "fingerprint": fingerprint, "tree": _digest_stats(files), "bytes": sum(size for size, _ in files.values()),
            "diagnostics": tuple(sort_diagnostics(diags)), "published": ids, "skipped": skipped})

    if cache and outputs.get("fingerprint") == fingerprint:
        with stage("unchanged"):
            previous = outputs["files"]
            intact = current is not None and not current.irregular and previous == current.stats
        if intact:  # the inputs' content and the output are as the last build left them
            if state is not None and state.get("fingerprint") == fingerprint:
                diags = list(state["diagnostics"])  # the publishing diagnostics too
            remember(previous)
            return result(True, ids, sum(size for size, _ in previous.values()))
    done = _publish(skills, skipped, diags, out, config, base_dir, jobs, cache, keep_going, stage, current,
                    outputs.get("previous"))
    if done is None:
        return result(False, (), 0)
    published, previous_keys = done
    if cache_dir is not None:
        with stage("cache"):
            save_signed(cache_dir / OUTPUTS_FILE, {"header": _STATE_HEADER, "scope": scope, "fingerprint": fingerprint,
                                                   "files": published, "previous": previous_keys})
            remember(published)
    return result(True, ids, sum(size for size, _ in published.values()))


def _save_cache(cache: BuildCache, jobs: int) -> Pending[None]:
    """``cache.save()`` by a process of its own, at the lowest priority (it takes the time the
    build's other processes leave), unless it only writes a small delta."""
    return in_background(cache.save, 1 if cache.saves_little() else jobs, yielding=True)


def _publish(skills: list[Any], skipped: tuple[str, ...], diags: list[Diagnostic], out: Path, config: SiteConfig,
             base_dir: str, jobs: int, cache: BuildCache | None, keep_going: bool, stage: _Stages,
             current: Snapshot | None, previous: dict[str, tuple[str, int, int]] | None
             ) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[str, int, int]]] | None:
    """Write the catalog of ``skills`` and swap it in: the size and mtime of every published
    file and the content key of every keyed one (see :meth:`Staging.published_keys`), or None
    when publishing found errors (``diags`` gets the build's own diagnostics).  ``previous``:
    what the last build recorded so (None: nothing is kept from it).  The cache is saved by a
    background process while the pages are made (their own small section while the output is
    swapped in)."""
    from skillsite import publish
    from skillsite.manifest import DIGEST_PLACEHOLDER, SCHEMA_FILE, catalog_digest, manifest, manifest_bytes
    from skillsite.schema_check import load_schema

    mtime, generated_at = source_date()
    staging = Staging(out, reuse=previous if cache else None, current=current)
    pending: list[Pending[Any]] = []
    try:
        with stage("skills"):  # files, manifest entries, XML fragments, archives and rendered bodies
            # the search indexes depend on frontmatter only: they are made meanwhile, by whichever process
            # is free (and their key too, unless the cache may hold them)
            search_entries = [publish.search_entry(s) for s in skills]
            search_key = publish.search_key(search_entries) if cache and cache.holds("search") else ""
            cached_search = cache.get("search", search_key) if search_key else None

            def make_search() -> tuple[str, Any]:
                return search_key or publish.search_key(search_entries), publish.build_search(search_entries)

            published_skills = publish.publish_skills(skills, staging, config, base_dir, mtime, jobs, cache,
                                                      also=make_search if cached_search is None else None)
            entries, body_html, archives, build_diags = published_skills[:4]
            entry_by_id = {e["id"]: e for e in entries}
            publish.write_catalog_xml(entries, config, staging)
            discovery = publish.discovery_index(entries, archives, staging, build_diags,
                                                {s.id: s.source.display_path for s in skills}, cache)
        diags.extend(build_diags)
        if any(d.severity is Severity.ERROR for d in build_diags) and not keep_going:
            staging.discard()
            return None
        with stage("search"):
            if cached_search is None:
                search_key, (cached_search, stage.seconds["search, beside the skills"]) = published_skills.also
                if cache:
                    cache.put("search", search_key, cached_search)
            search_section, search_files = cached_search
            publish.write_search(search_key, search_files, staging)
        # the pages show none of the digest, the skill entries or the search section: skills.json
        # (and the discovery index) is written beside them, and its digest worked out meanwhile,
        # by whichever processes are free first; the digest is written into the file once both are done
        data = manifest(entries, config, len(skipped), generated_at, search_section, digest=DIGEST_PLACEHOLDER)

        def work_out_digest() -> tuple[str, float]:
            started = time.perf_counter()
            return catalog_digest(entries), time.perf_counter() - started

        def write_manifest() -> tuple[int, float]:
            started = time.perf_counter()
            payload, digest_at = manifest_bytes(data)
            staging.write_bytes(MANIFEST_FILE, payload)
            staging.write_json(SCHEMA_FILE, load_schema(SCHEMA_FILE))
            publish.write_discovery_index(discovery, staging)
            return digest_at, time.perf_counter() - started

        pages_cache = None
        if cache:  # every cached result but the pages' is in: a process of its own saves them meanwhile
            pending.append(_save_cache(cache, jobs))
            pages_cache = BuildCache(cache.folder, cache.scope, PAGES_CACHE_FILE, sections=("pages",))
        with stage("pages"):
            ctx = BuildContext(config, tuple(skills), data, entry_by_id, tuple(sort_diagnostics(diags)),
                               staging.path, body_html, jobs, staging, published_skills.keys, pages_cache)
            (data["digest"], digest_seconds), (digest_at, write_seconds) = _write_pages(
                ctx, also=[work_out_digest, write_manifest])
            staging.overwrite(MANIFEST_FILE, digest_at, data["digest"].encode("ascii"))
            stage.seconds["manifest, beside the pages"] = digest_seconds + write_seconds
        if pages_cache:
            pending.append(_save_cache(pages_cache, jobs))
        with stage("swap"):
            published = staging.commit()
        with stage("cache"):
            for task in pending:
                task.result()
    except BaseException:
        for task in pending:
            task.abandon()
        staging.discard()
        raise
    return published, staging.published_keys(published)
