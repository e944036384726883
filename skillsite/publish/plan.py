"""What a build runs with and what it gives: its plan, its result, the timing of its stages.

Shared by :mod:`skillsite.publish.build` (up to the no-op check) and
:mod:`skillsite.publish.pipeline` (the rest).
"""
from __future__ import annotations

import datetime as _dt
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from skillsite.config import SiteConfig, template_dirs
from skillsite.diagnostics import Diagnostic, Severity, sort_diagnostics
from skillsite.models import CatalogReading, Stamp, stamp_of
from skillsite.publish.resident import Resident
from skillsite.publish.signing import Signing, signing_settings
from skillsite.publish.state import library_stamps
from skillsite.source.git_history import refs_state
from skillsite.source.knowledge import default_knowledge_dir

#: The stages a build reports to its progress callback, in order.  The catalog is in place once
#: "save" starts (the cache and the state of the build are saved then): ``serve`` reloads its
#: pages at that moment, not when the build returns.
STAGES = ("discover", "unchanged", "read", "skills", "manifest", "pages", "sign", "swap", "save")


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
    # per agent listing: {agent, budget, listed, fit, first_cut, withheld (above max_risk), max_risk}
    budget: tuple[dict[str, Any], ...] = ()

    @property
    def errors(self) -> int:
        return sum(d.severity is Severity.ERROR for d in self.diagnostics)

    @property
    def warnings(self) -> int:
        return sum(d.severity is Severity.WARNING for d in self.diagnostics)


#: The latest ``SOURCE_DATE_EPOCH`` a build takes: the latest time a tar header holds (eleven
#: octal digits, in 2242), which the skills' archives are stamped with.
MAX_SOURCE_DATE = 8 ** 11 - 1


class SourceDateError(ValueError):
    """``SOURCE_DATE_EPOCH`` is set to something that is no time a build can stamp (exit 2)."""


def source_date() -> tuple[int, str | None]:
    """``SOURCE_DATE_EPOCH`` as (seconds, ISO text); (0, None) when unset or empty.  Anything but
    a whole number of seconds from 0 to :data:`MAX_SOURCE_DATE` is refused (SourceDateError), as
    the reproducible-builds specification asks: a date silently taken as 0 is a wrong date."""
    raw = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not raw:
        return 0, None
    if not (raw.isascii() and raw.isdigit()) or int(raw) > MAX_SOURCE_DATE:
        raise SourceDateError(f"SOURCE_DATE_EPOCH must be a whole number of seconds since 1970, from 0 to "
                              f"{MAX_SOURCE_DATE}, not {raw[:40]!r}")
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
    signing: Signing | None = None   # the key and validity of a signed build
    verify_output: bool = False      # look at every kept file of the output, not trusting the records
    resident: Resident | None = None  # objects kept from earlier builds of this process (``serve``)
    force: bool = False              # replace whatever folder is at ``out`` (one this process cannot write too)
    publish_empty: bool = False      # with keep_going, publish a catalog of no skill (see :func:`build`)

    def settings(self) -> list[Any]:
        """What the output depends on besides the skills and the templates (the Markdown engine
        by where it is installed: importing it would cost a rebuild with nothing to do; each
        source's git HEAD and tags: its skills' releases)."""
        return [self.scope, library_stamps("markdown_it", "mdit_py_plugins"),
                [os.path.abspath(s) for s in self.sources], self.keep_going, self.strict, self.base_dir,
                os.environ.get("SOURCE_DATE_EPOCH", ""),
                [refs_state(s) for s in self.sources], signing_settings(self.signing)]

    @property
    def knowledge_dir(self) -> Path | None:
        """Where shared knowledge documents are (``knowledge_dir``, else ``knowledge/`` in the first source)."""
        return Path(self.config.knowledge_dir) if self.config.knowledge_dir else default_knowledge_dir(self.sources)

    def folder_stamps(self) -> list[tuple[str, Stamp]]:
        """The stamp of every template and knowledge document: inputs besides the skills (none of
        a folder beneath one that cannot be searched: its source's SK006 says so)."""
        folders = template_dirs(self.config.templates) + ([self.knowledge_dir] if self.knowledge_dir else [])
        return [(str(p), stamp_of(p.stat())) for folder in folders if os.path.isdir(folder)
                for p in sorted(folder.rglob("*")) if p.is_file()]


def build_result(ok: bool, plan: BuildPlan, reading: CatalogReading, published: tuple[str, ...],
                 skipped: tuple[str, ...], diags: Sequence[Diagnostic], output_bytes: int,
                 stage: Stages, budget: Sequence[dict[str, Any]] = (), *, ordered: bool = False) -> BuildResult:
    """What a build gives, its time taken from ``stage``; ``ordered``: ``diags`` are as
    :func:`~skillsite.diagnostics.sort_diagnostics` gives them already (not sorted again)."""
    return BuildResult(ok, plan.out, reading, published, skipped, tuple(diags if ordered else sort_diagnostics(diags)),
                       output_bytes, time.perf_counter() - stage.started, dict(stage.seconds), tuple(budget))
