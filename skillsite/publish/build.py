"""``skillsite build``: read every skill, then publish the catalog atomically.

    discover -> nothing changed? stop -> read and check -> publish each skill (and the search
    indexes beside them) -> skills.json, discovery index, XML block -> pages -> sign -> commit

This module runs the build up to the no-op check; :mod:`skillsite.publish.pipeline` does the
rest, when there is work to do.  Nothing is written when the build fails (errors, or warnings
under strict, without ``keep_going``, or with it but no skill free of errors to publish):
everything goes into a staging folder that replaces the output only at the very end
(:mod:`skillsite.publish.staging`).  With a cache folder, checked skills, rendered bodies and
file hashes of the last build are reused, unchanged output files stay in place, and a rebuild
with nothing changed stops after discovery (:mod:`skillsite.publish.state`).
"""
from __future__ import annotations

import dataclasses
import os
from contextlib import ExitStack, nullcontext
from pathlib import Path
from typing import Callable, Sequence

from skillsite.cache import code_scope, prepare_cache_folder
from skillsite.config import SiteConfig
from skillsite.models import CatalogReading
from skillsite.publish.lock import cache_lock, output_lock
from skillsite.publish.plan import STAGES, BuildPlan, BuildResult, Stages, build_result, source_date
from skillsite.publish.resident import Resident
from skillsite.publish.signing import Signing, resign_due
from skillsite.publish.staging import (check_cache_outside, check_inputs_kept, check_outside_skills, check_target,
                                       clear_remains)
from skillsite.publish.state import NO_INPUTS, load_state, load_summary, racy_since, read_inputs, settle_inputs
from skillsite.source.discover import discover
from skillsite.source.ignore import repository_folder
from skillsite.source.knowledge import default_knowledge_dir
from skillsite.workers import default_jobs

__all__ = ["STAGES", "BuildResult", "build"]


def build(sources: Sequence[Path | str], out: Path, config: SiteConfig = SiteConfig(), *,
          keep_going: bool = False, force: bool = False, strict: bool | None = None,
          base: str | None = None, jobs: int | None = None, cache_dir: Path | None = None,
          progress: Callable[[str], None] | None = None, wait: bool = True,
          on_wait: Callable[[str], None] | None = None, always_publish: bool = False,
          signing: Signing | None = None, verify_output: bool = False,
          resident: Resident | None = None, publish_empty: bool = False) -> BuildResult:
    """Read every skill under ``sources`` and publish the catalog into ``out``.

    ``jobs`` processes parse, check, render and write (default: every core); ``cache_dir``
    keeps work for the next build (None: no cache).  The output never depends on either.
    One build at a time writes ``out`` (and uses ``cache_dir``): another one waits (``on_wait`` is told
    why), or with ``wait`` false raises :class:`~skillsite.publish.lock.OutputBusy`.
    ``always_publish``: publish even when nothing changed since the last build (``serve`` does, once).
    ``signing``: sign the catalog (TUF metadata in ``tuf/``: :mod:`skillsite.publish.signing`).
    A rebuild trusts what the last build recorded of the output it keeps (while the output's
    marker file is the one it wrote): ``verify_output`` looks at every kept file (the command
    line's ``--force`` asks for it too; ``serve`` replaces its own folder with ``force`` and
    trusts its records).  ``resident``: what a long-running process keeps between its builds
    (``serve``: :mod:`skillsite.publish.resident`), which a rebuild takes instead of finding it again.
    ``keep_going`` publishes the skills without errors, found while reading or while publishing
    (an ``audit.fail_on`` finding); when there is none (no skill found, or
    every one has errors) the build fails as without it and the output is left as it was: a
    mistyped or unreadable source would otherwise replace a published catalog with an empty one.
    ``publish_empty``: publish that catalog of no skill all the same (``serve`` does: its catalog
    is a preview of the sources as they are).
    An ``out`` that is a symbolic link is built where it leads (the link stays).
    Raises :class:`~skillsite.publish.staging.OutputError` when ``out`` is not ours to replace,
    :class:`~skillsite.publish.plan.SourceDateError` for a ``SOURCE_DATE_EPOCH`` that is no date,
    and OSError (naming the path) when the output or the cache cannot be written.
    """
    stage = Stages(progress)
    out = Path(os.path.realpath(out)) if os.path.islink(out) else Path(out)  # a link (to a web root): its target
    check_outside_skills(out, [Path(s) for s in sources])  # before the lock file is made beside the output
    check_cache_outside(out, cache_dir)
    source_date()  # SourceDateError now, before anything is written
    with resident.building() if resident is not None else nullcontext(), output_lock(out, wait, on_wait), \
            ExitStack() as held:
        clear_remains(out)
        check_inputs_kept(out, _inputs(sources, config))
        check_target(out, force)
        if cache_dir is not None:
            prepare_cache_folder(cache_dir)
            held.enter_context(cache_lock(cache_dir, wait, on_wait))
        plan = BuildPlan(tuple(Path(s) for s in sources), out, config, keep_going,
                         config.strict if strict is None else strict, base or _project_folder(config, sources),
                         jobs or default_jobs(), cache_dir, code_scope(sorted(vars(config).items())), signing,
                         verify_output, resident, force, publish_empty)
        return _build(plan, stage, always_publish)


def _inputs(sources: Sequence[Path | str], config: SiteConfig) -> list[tuple[str, Path]]:
    """The folders a build reads, and what each is: an output may not be or hold one."""
    inputs = [("source folder", Path(s)) for s in sources]
    if config.templates:
        inputs.append(("templates folder", Path(config.templates)))
    knowledge = Path(config.knowledge_dir) if config.knowledge_dir else default_knowledge_dir(sources)
    if knowledge is not None:
        inputs.append(("knowledge folder", knowledge))
    if config.config_path:
        inputs.append(("folder of the configuration", Path(config.config_path).parent))
    try:
        inputs.append(("current folder", Path.cwd()))
    except OSError:  # the current folder was deleted: nothing there to keep
        pass
    return inputs


def _build(plan: BuildPlan, stage: Stages, always_publish: bool = False) -> BuildResult:
    """The build, under the output's lock: stops after discovery when nothing changed (unless
    ``always_publish``)."""
    resident = plan.resident
    with stage("discover"):
        found = resident.discover(plan.sources, plan.config.exclude) if resident is not None \
            else discover(plan.sources, plan.config.exclude)
    saved = resident.saved_state if resident is not None else None
    summary = load_summary(plan.cache_dir, plan.scope, plan.out, saved) if plan.cache_dir is not None else None
    inputs = read_inputs(found, plan.settings(), plan.folder_stamps(), racy_since(stage.started_ns),
                         resident.listings(found, plan.sources) if resident is not None else None, plan.jobs,
                         resident.input_parts if resident is not None else None) \
        if plan.cache_dir is not None else NO_INPUTS
    # the records of the last build's output (over a million files at 100,000 skills): read only
    # when there is work to do, or first when every output file is to be checked against them
    state = load_state(plan.cache_dir, plan.scope, plan.out, saved) \
        if summary is not None and plan.verify_output else None
    if summary is not None and not always_publish:
        with stage("unchanged"):
            unchanged = summary.unchanged(inputs.digest_with(summary.recent), plan.out, plan.verify_output,
                                          state.outputs if state is not None else None) and not (
                plan.signing is not None and resign_due(plan.out, plan.signing, plan.cache_dir))
        if unchanged:
            if inputs.digest and inputs.recent != summary.recent and plan.cache_dir is not None:
                settle_inputs(plan.cache_dir, plan.scope, plan.out, summary.inputs, inputs)
                # serve's copy of the state, likewise (the file's generation is the same)
                if resident is not None and saved is not None and saved.inputs == summary.inputs:
                    resident.saved_state = dataclasses.replace(saved, inputs=inputs.digest, recent=inputs.recent)
            diagnostics = tuple(summary.diagnostics)  # sorted when saved (a state of other code is of another scope)
            reading = CatalogReading(found.sources, (), (), diagnostics)
            return build_result(True, plan, reading, summary.published, summary.skipped, diagnostics,
                                summary.output_bytes, stage, summary.budget, ordered=True)
    if summary is not None and not plan.verify_output:
        state = load_state(plan.cache_dir, plan.scope, plan.out, saved)
    # Reading and publishing load YAML, jsonschema, markdown-it and Jinja2: only now that there is work.
    from skillsite.publish.pipeline import read_and_publish

    return read_and_publish(plan, found, state, inputs, stage)


def _project_folder(config: SiteConfig, sources: Sequence[str | os.PathLike[str]]) -> str:
    """What source paths are shown relative to: the configuration file's folder; else the top of
    the git work tree holding the first source (what ``repo_url``'s links are relative to, wherever
    the build runs from); else the current folder."""
    if config.config_path:
        return os.path.dirname(os.path.abspath(config.config_path))
    top = repository_folder(Path(os.path.abspath(sources[0]))) if sources else None
    return str(top) if top is not None else os.getcwd()


