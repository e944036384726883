"""``skillsite build``: read every skill, then publish the catalog atomically.

    discover -> nothing changed? stop -> read and check -> publish each skill (and the search
    indexes beside them) -> skills.json, discovery index, XML block -> pages -> commit

This module runs the build up to the no-op check; :mod:`skillsite.publish.pipeline` does the
rest, when there is work to do.  Nothing is written when the build fails (errors, or warnings
under strict, without ``keep_going``): everything goes into a staging folder that replaces
the output only at the very end (:mod:`skillsite.publish.staging`).  With a cache folder,
checked skills, rendered bodies and file hashes of the last build are reused, unchanged
output files stay in place, and a rebuild with nothing changed stops after discovery
(:mod:`skillsite.publish.state`).
"""
from __future__ import annotations

import datetime as _dt
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from skillsite.cache import code_scope
from skillsite.config import SiteConfig, template_dirs
from skillsite.diagnostics import Diagnostic, Severity, sort_diagnostics
from skillsite.models import CatalogReading
from skillsite.publish.staging import check_target
from skillsite.publish.state import inputs_digest, library_stamps, load_state, racy_since
from skillsite.source.discover import discover
from skillsite.source.knowledge import default_knowledge_dir
from skillsite.workers import default_jobs

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
    budget: tuple[dict[str, Any], ...] = ()   # per agent listing: {agent, budget, listed, fit, first_cut}

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


class Stages:
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
class BuildPlan:
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
        """What the output depends on besides the skills and the templates (the Markdown engine
        by where it is installed: importing it would cost a rebuild with nothing to do)."""
        return [self.scope, library_stamps("markdown_it", "mdit_py_plugins"), [os.path.abspath(s) for s in self.sources],
                self.keep_going, self.strict, self.base_dir, os.environ.get("SOURCE_DATE_EPOCH", "")]

    @property
    def knowledge_dir(self) -> Path | None:
        """Where shared knowledge documents are (``knowledge_dir``, else ``knowledge/`` in the first source)."""
        return Path(self.config.knowledge_dir) if self.config.knowledge_dir else default_knowledge_dir(self.sources)

    def folder_stamps(self) -> list[tuple[str, int, int]]:
        """The size and time of every template and knowledge document: inputs besides the skills."""
        folders = template_dirs(self.config.templates) + ([self.knowledge_dir] if self.knowledge_dir else [])
        return [(str(p), p.stat().st_size, p.stat().st_mtime_ns) for folder in folders
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
    stage = Stages(progress)
    out = Path(out)
    check_target(out, force)
    plan = BuildPlan(tuple(Path(s) for s in sources), out, config, keep_going,
                 config.strict if strict is None else strict, base or _project_folder(config),
                 jobs or default_jobs(), cache_dir, code_scope(sorted(vars(config).items())))
    with stage("discover"):
        found = discover(plan.sources, config.exclude)
    state = load_state(cache_dir, plan.scope) if cache_dir is not None else None
    inputs = inputs_digest(found, plan.settings(), plan.folder_stamps(), racy_since(stage.started_ns)) \
        if cache_dir is not None else ""
    if state is not None:
        with stage("unchanged"):
            unchanged = state.unchanged(inputs, out)
        if unchanged:
            reading = CatalogReading(found.sources, (), (), state.diagnostics)
            return build_result(True, plan, reading, state.published, state.skipped, state.diagnostics,
                                state.output_bytes, stage, state.budget)
    # Reading and publishing load YAML, jsonschema, markdown-it and Jinja2: only now that there is work.
    from skillsite.publish.pipeline import read_and_publish

    return read_and_publish(plan, found, state, inputs, stage)


def _project_folder(config: SiteConfig) -> str:
    """The configuration file's folder, else the current folder."""
    return os.path.dirname(os.path.abspath(config.config_path)) if config.config_path else os.getcwd()


def build_result(ok: bool, plan: BuildPlan, reading: CatalogReading, published: tuple[str, ...],
                 skipped: tuple[str, ...], diags: Sequence[Diagnostic], output_bytes: int,
                 stage: Stages, budget: Sequence[dict[str, Any]] = ()) -> BuildResult:
    """What a build gives, its time taken from ``stage``."""
    return BuildResult(ok, plan.out, reading, published, skipped, tuple(sort_diagnostics(diags)), output_bytes,
                       time.perf_counter() - stage.started, dict(stage.seconds), tuple(budget))
