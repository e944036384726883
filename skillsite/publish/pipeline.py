"""The work of a build that has work to do: read and check the skills, publish each of them
(and the search indexes beside them), write the catalog-wide files and the pages, commit the
staging folder, then keep the cache and the state for the next build.

:func:`skillsite.publish.build.build` calls :func:`read_and_publish` once its no-op check
found something changed.
"""
from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path

from typing import Any, Mapping, Sequence

from skillsite.cache import Cache, CacheNotSaved, Section, digest
from skillsite.config import template_dirs
from skillsite.diagnostics import Diagnostic, Severity, merge_diagnostics, printable, skill_at
from skillsite.models import CatalogReading, Skill
from skillsite.publish.audit_results import apply_audits, audit_published, blocking
from skillsite.publish.plan import BuildPlan, BuildResult, Stages, build_result, source_date
from skillsite.publish.copies import apply_copies, group_map, published_groups, said_as_published
from skillsite.publish.catalog_files import (keep_search, listing_budgets, publish_search, search_digests,
                                             search_key, search_section, write_catalog_files)
from skillsite.publish.knowledge import read_knowledge
from skillsite.publish.manifest import is_paged, manifest, reserved_names
from skillsite.publish.pages import write_site
from skillsite.publish.signing import keep_copy, pinned_skill_files, previous_folders, sign_staging, signing_hint
from skillsite.publish.skills import Publication, collect, plan_publishing, publish_all, unpublished_dependencies
from skillsite.publish.staging import (MarkerIdentity, Published, Recorded, Staging, marker_identity, mirror_output,
                                      records)
from skillsite.publish.stored_pages import StoredPages, entry_keys
from skillsite.publish.versions import CatalogReleases, PublishedVersions, VersionPublishing, pin_versions
from skillsite.source.dependencies import NO_ALIASES, Aliases
from skillsite.publish.state import BuildState, Inputs, save_state
from skillsite.publish.wellknown import discovery_index, skipped_by_installers
from skillsite.source.catalog import read_catalog
from skillsite.source.copies import COPY_CODE, CopySettings, name_claim_order, source_places
from skillsite.source.discover import Discovery
from skillsite.source.releases import SkillReleases, read_releases
from skillsite.workers import Workers

CACHE_FILE = "build-cache.sqlite"
#: In the cache folder: the catalog the last build replaced, one folder per output.
BACK_PREFIX = "previous-output-"


def read_and_publish(plan: BuildPlan, found: Discovery, state: BuildState | None, inputs: Inputs,
                     stage: Stages) -> BuildResult:
    """Read and check every discovered skill (from the cache where unchanged), then publish them."""
    config = plan.config
    cache = Cache(plan.cache_dir / CACHE_FILE if plan.cache_dir is not None else None, plan.scope, plan.resident)
    with stage("read"):
        reading = read_catalog(plan.sources, exclude=config.exclude, profile=config.profile, ignore=config.ignore,
                               max_bytes=config.max_bytes, jobs=plan.jobs, found=found, cache=cache,
                               knowledge_dir=plan.knowledge_dir, copies=CopySettings.of(config.copies))
        history = read_releases(reading, cache, exclude=config.exclude, max_bytes=config.max_bytes,
                                ignore=config.ignore)
    return _publish_reading(plan, history.reading, history.releases, state, inputs, cache, stage)


def _fails(diags: Sequence[Diagnostic], strict: bool) -> bool:
    return any(d.severity is Severity.ERROR or (strict and d.severity is Severity.WARNING) for d in diags)


def _goes_on(plan: BuildPlan, skills: Sequence[Skill]) -> bool:
    """Whether a reading with errors is published all the same: under ``keep_going``, when some
    skill is free of errors (or ``publish_empty``): a catalog of no skill published over the last
    one because of a mistyped or unreadable source would take every skill away."""
    return plan.keep_going and (bool(skills) or plan.publish_empty)


def _nothing_to_publish(plan: BuildPlan, skills: Sequence[Skill]) -> bool:
    """Whether no skill is left to publish, with no error saying why (SK013 ignored): a catalog
    of no skill is never published over the last one, but by ``serve`` (``publish_empty``)."""
    return not skills and not plan.publish_empty


def _erring(skills: Sequence[Skill], diags: Sequence[Diagnostic]) -> frozenset[str]:
    """The ids of the ``skills`` an error of ``diags`` is about: the skill whose folder is the
    nearest one holding the error's path (publishing's errors name a skill's SKILL.md or a file of
    it, as the audit's do; a nested skill's files are its own, not its parent's)."""
    errors = [diag for diag in diags if diag.severity is Severity.ERROR]
    if not errors:  # the usual build: no map of every skill's folder to make
        return frozenset()
    folders = _folders(skills)
    return frozenset(owner for diag in errors if (owner := skill_at(diag.path, folders)) is not None)


def _about(skills: Sequence[Skill], diags: Sequence[Diagnostic], ids: frozenset[str]) -> list[Diagnostic]:
    """Those of ``diags`` about one of the skills ``ids`` (found among ``skills`` as :func:`_erring` finds them)."""
    folders = _folders(skills)
    return [diag for diag in diags if skill_at(diag.path, folders) in ids]


def _folders(skills: Sequence[Skill]) -> dict[str, str]:
    """Each skill's folder as diagnostics show it, to its id."""
    return {printable(os.path.dirname(s.source.display_path)): s.id for s in skills}


def _publish_reading(plan: BuildPlan, reading: CatalogReading, releases: dict[str, SkillReleases],
                     state: BuildState | None, inputs: Inputs, cache: Cache, stage: Stages) -> BuildResult:
    """Publish the skills of a reading (or nothing, when it failed), then keep the cache and state."""
    skipped = tuple(sorted({p.source.id for p in reading.left_out} | {s.id for s in reading.skills if s.has_errors}))
    skills = [s for s in reading.skills if not s.has_errors]
    if (_fails(reading.diagnostics, plan.strict) and not _goes_on(plan, skills)) or _nothing_to_publish(plan, skills):
        cache.save(keep_unused=True)  # the build after the fix needs what was checked and what was not
        return build_result(False, plan, reading, (), skipped, reading.diagnostics, 0, stage, ordered=True)
    diags = list(reading.diagnostics)
    erring = [s for s in reading.skills if s.has_errors]
    skills, published, failed = _publish_going_on(plan, skills, releases, len(skipped), state, cache, diags, stage,
                                                  inputs.audit_listings, reading.copies, dict(reading.aliases), erring)
    diags += [note for note in cache.notes if note not in diags]  # damage found while publishing (SK402)
    diags = _with_reading(reading, diags, skills if failed and published is not None else None)
    skipped = tuple(sorted({*skipped, *failed}))  # with the skills publishing found errors in
    ids = tuple(s.id for s in skills)
    if published is None:
        return build_result(False, plan, reading, (), skipped, diags, 0, stage, ordered=True)
    files, budget, back = published
    output_bytes = sum(map(itemgetter(1), files.values()))  # one C loop over every file of the output
    with stage("save"):  # the new catalog is in place: what follows is kept for the next build
        if plan.cache_dir is not None:
            # what the cache said of itself is this run's news only, never repeated by a no-op rebuild
            catalog_diags = tuple(d for d in diags if d not in cache.notes) if cache.notes else tuple(diags)
            try:
                cache.save()  # while the back folder is made (see back_catalog_meanwhile)
            except OSError as exc:
                raise CacheNotSaved(exc.errno, exc.strerror, exc.filename) from exc
            finally:
                replaced, back_marker = back.result()  # made, whatever happened to the cache
            kept = BuildState(plan.scope, str(plan.out.absolute()), inputs.digest, records(files),
                              replaced, ids, skipped, catalog_diags, output_bytes, budget,
                              output_marker=marker_identity(plan.out), back_marker=back_marker, recent=inputs.recent,
                              missing=reading.missing)
            try:
                saved = save_state(plan.cache_dir, kept, state)  # the rows that differ from the state this build loaded
            except OSError as exc:
                raise CacheNotSaved(exc.errno, exc.strerror, exc.filename) from exc
            if plan.resident is not None:
                plan.resident.saved_state = saved
    return build_result(True, plan, reading, ids, skipped, diags, output_bytes, stage, budget, ordered=True)


def _with_reading(reading: CatalogReading, diags: list[Diagnostic], published: Sequence[Skill] | None = None
                  ) -> list[Diagnostic]:
    """``diags`` (the reading's, then those publishing added: its passes only add to them or take
    back their own) sorted: publishing's merged into the reading's, which are sorted already.
    ``published``: the skills published when publishing left out some reading kept; what reading
    said of copies (SK229) is then what :func:`~skillsite.publish.copies.said_as_published` says
    of those published (nothing of one left out; each copy naming the member published first), in
    its place (still sorted)."""
    first = len(reading.diagnostics)
    said = reading.diagnostics if published is None else _copies_as_published(reading.diagnostics, published)
    return merge_diagnostics(said, diags[first:])


def _copies_as_published(diags: Sequence[Diagnostic], published: Sequence[Skill]) -> list[Diagnostic]:
    """``diags`` with each SK229 replaced by what the ``published`` skill it is of says, or dropped."""
    said = {s.source.display_path: d for s in published for d in s.diagnostics if d.code == COPY_CODE}
    return [said[d.path] if d.code == COPY_CODE else d for d in diags if d.code != COPY_CODE or d.path in said]


@dataclass(frozen=True)
class Dropped:
    """Publishing under ``keep_going`` found errors in the skills ``ids`` (a finding ``audit.fail_on``
    blocks, a file no longer readable): its staging folder was discarded, for a catalog without them."""

    ids: frozenset[str]


def _publish_going_on(plan: BuildPlan, skills: list[Skill], releases: dict[str, SkillReleases], left_out: int,
                      state: BuildState | None, cache: Cache, diags: list[Diagnostic], stage: Stages,
                      audit_listings: Mapping[str, str], copies: Sequence[tuple[str, ...]],
                      aliases: Mapping[str, str], erring: Sequence[Skill] = ()
                      ) -> tuple[list[Skill], Committed | None, frozenset[str]]:
    """:func:`_publish`, again without the skills each pass found errors in, as those reading found
    errors in are left out (else ``--keep-going`` would publish a skill ``audit.fail_on`` blocks): the
    skills published, what was committed (None: nothing) and the ids of the skills left out for
    publishing's errors.  A pass keeps of the diagnostics before it only those of the skills it
    drops; each pass drops a skill at least, so there are at most as many passes as skills (two
    when no skill's errors come from another's absence; one more, writing nothing, when some skill
    needs one left out).  ``erring``: the skills reading left out for their errors (the items of
    those published are resolved among them too, as the catalog check resolved them)."""
    dropped: frozenset[str] = frozenset()
    gone = list(erring)
    while True:
        mark = len(diags)
        outcome = _publish(plan, skills, releases, left_out + len(dropped), state, cache, diags, stage,
                           audit_listings, copies, aliases, gone)
        if outcome is None:  # the skills this pass found errors in are left out too
            return skills, None, dropped | _erring(skills, diags[mark:])
        if not isinstance(outcome, Dropped):
            return skills, outcome, dropped
        diags[mark:] = _about(skills, diags[mark:], outcome.ids)  # the next pass says the rest again
        dropped |= outcome.ids
        gone += [s for s in skills if s.id in outcome.ids]
        skills = said_as_published([s for s in skills if s.id not in outcome.ids], copies)


def _publish(plan: BuildPlan, skills: list[Skill], releases: dict[str, SkillReleases], left_out: int,
             state: BuildState | None, cache: Cache, diags: list[Diagnostic], stage: Stages,
             audit_listings: Mapping[str, str], copies: Sequence[tuple[str, ...]] = (),
             aliases: Aliases = NO_ALIASES, gone: Sequence[Skill] = ()) -> Committed | Dropped | None:
    """Write the catalog of ``skills`` into a staging folder and commit it: the output's files
    (content key, size and mtime), how it fits agents' listings and what the back folder now
    holds (:func:`back_catalog`); None when
    publishing found errors (under ``keep_going``: when every skill has one, as when reading
    found them); under ``keep_going``, :class:`Dropped` when it found some in some skills and
    committed nothing.  ``diags`` gets the build's own diagnostics; ``audit_listings``:
    see :class:`~skillsite.publish.state.Inputs`; ``copies``: the groups of copies, canonical first;
    ``aliases``: the names only copies share, each -> the copy dependencies on it need (as the
    reading resolved them).  A skill needing one left out (under ``keep_going``; ``gone``: those
    left out so far) is refused before anything is written."""
    config = plan.config
    needs = unpublished_dependencies(skills, config.ignore, aliases, gone)
    if needs:  # left out as well, with those that need it: the next pass publishes the rest
        diags += needs
        failed = _erring(skills, needs)
        return Dropped(failed) if _goes_on(plan, [s for s in skills if s.id not in failed]) else None
    mtime, generated_at = source_date()
    back = back_folder(plan)
    trust_output = state is not None and not plan.verify_output and state.trusts_output(plan.out)
    staging = Staging(plan.out, state.outputs if state else None, back, state.back if state else None,
                      digests=plan.signing is not None, trust_output=trust_output,
                      trust_back=state is not None and not plan.verify_output and state.trusts_back(back))
    try:
        with stage("skills"):
            versions_of = {skill_id: r.versions for skill_id, r in releases.items()}
            groups = published_groups(copies, (s.id for s in skills))
            claims = _name_claims(plan, skills)
            publication, search, audits = _publish_skills(plan, skills, versions_of, staging, mtime, cache,
                                                          audit_listings, group_map(groups), aliases, claims)
            versions = _publish_versions(plan, skills, publication, releases, versions_of, staging, cache, audits,
                                         groups)
        with stage("manifest"):
            apply_copies(publication.entries, groups,
                         lambda entry: staging.current(f"skills/{entry.id}/SKILL.md").read_bytes(), cache)
            discovery, index_diags, discovered = discovery_index(publication.entries, publication.archives,
                                                     {s.id: s.source.display_path for s in skills},
                                                     strictly_refused(skills), publication.listings, claims)
            audit_diags = apply_audits(publication.entries, audits, config,
                                       {s.id: s.source.display_path for s in skills}, cache.resident)
            audit_diags += [d for s in skills if s.id in versions for version, found in versions[s.id].findings.items()
                            for d in blocking(found, config, os.path.dirname(s.source.display_path),
                                              f" (in release {version})")]
            own = publication.diagnostics + index_diags + audit_diags
            diags += own
            failed = _erring(skills, own)
            if _fails(diags, plan.strict) and not _goes_on(plan, [s for s in skills if s.id not in failed]):
                staging.discard()
                return None
            if failed:  # under keep_going, with others to publish: they are published without these
                staging.discard()
                return Dropped(failed)
            section = search_section(staging, publication.entries, search, cache.resident)
            data = manifest(publication.entries, config, left_out, generated_at, section,
                            signing=signing_hint(plan.signing))
            keys = entry_keys(publication.keys, publication.entries, audits, cache.resident)
            stored = StoredPages(cache, staging, keys) if is_paged(len(publication.entries), config) else None
            data["digest"], links = write_catalog_files(staging, config, data, discovery, stored)
            del discovery  # written; the pages need none of it, and it grows with the catalog
            budget = listing_budgets(data["skills"], config)
        with stage("pages"):
            write_site(config, staging, data, publication.html, publication.html_keys, template_dirs(config.templates),
                       plan.jobs, {sid: v.document for sid, v in versions.items()},
                       {entry.id: key for entry, key in zip(publication.entries, keys)}, discovered, links,
                       cache.resident)
        if plan.signing is not None:
            with stage("sign"):
                sign_staging(staging, plan.signing, previous_folders(plan.out, plan.cache_dir, plan.signing),
                             pinned_skill_files(publication.entries))
        with stage("swap"):
            files = staging.commit()
    except BaseException as exc:
        staging.discard(failed_writing=isinstance(exc, OSError))
        raise
    if plan.signing is not None and plan.cache_dir is not None:
        keep_copy(plan.out, plan.cache_dir, plan.signing.key.public)
    return files, budget, back_catalog_meanwhile(plan.out, back, state, trust_output, files)


#: The records of the catalog in the back folder and its marker when trusted (see :class:`BuildState`).
BackFolder = tuple[dict[str, Recorded], MarkerIdentity | None]
#: What :func:`_publish` gives for a catalog it committed: the output's files, the listing budgets, the back
#: folder (once made: :func:`back_catalog_meanwhile`).
Committed = tuple[dict[str, Published], tuple[dict[str, Any], ...], "Future[BackFolder]"]


def back_catalog_meanwhile(out: Path, back: Path | None, state: BuildState | None, trusted_output: bool,
                           files: dict[str, Published]) -> Future[BackFolder]:
    """:func:`back_catalog`, made on a thread of its own while the caller saves the cache: after a
    first build it links every file of the output into the back folder, and those links, like the
    cache's writes, wait on the kernel without holding the interpreter.  The caller takes the
    result before the state is saved (it records the back folder), under the build's locks."""
    if back is None:  # nothing to make
        done: Future[BackFolder] = Future()
        done.set_result(({}, None))
        return done
    making = ThreadPoolExecutor(1, thread_name_prefix="skillsite-back-folder")
    try:
        return making.submit(back_catalog, out, back, state, trusted_output, files)
    finally:
        making.shutdown(wait=False)  # the thread ends once the back folder is made


def back_catalog(out: Path, back: Path | None, state: BuildState | None, trusted_output: bool,
                 files: dict[str, Published]) -> BackFolder:
    """What the back folder holds after a commit, for the next build to patch: the catalog just
    replaced, as ``state`` recorded it (its marker too, when the output's was trusted).  When no
    records are known (a first build, or one after a changed configuration or skillsite version),
    a copy of the new catalog made of hard links to its files takes its place: the next build
    then writes only what changed, instead of placing every file again."""
    if back is None:  # the catalog replaced is gone: a back folder left from earlier builds holds an older one
        return {}, None
    replaced = state.outputs if state is not None else {}
    if not replaced:
        if mirror_output(out, files, back):
            return records(files), marker_identity(back)
        return {}, None
    marker = state.output_marker if trusted_output and state is not None else None
    return replaced, marker if marker is not None and marker_identity(back) == marker else None


def strictly_refused(skills: list[Skill]) -> frozenset[str]:
    """The ids of the skills installers that read YAML strictly skip (SK016)."""
    return frozenset(s.id for s in skills if skipped_by_installers(s.diagnostics))


def back_folder(plan: BuildPlan) -> Path | None:
    """Where the catalog a build replaces waits for the next build: in the cache folder, when it
    is on the output's file system (one exchange swaps the two folders); else None.  None too for
    an output folder this process cannot write, replaced under ``force``: a folder moved to another
    parent must be writable (its ``..`` changes), one beside it need not be."""
    out = plan.out.absolute()
    if plan.cache_dir is None or (plan.force and os.path.isdir(out) and not os.access(out, os.W_OK)):
        return None
    try:
        if os.stat(plan.cache_dir).st_dev != os.stat(out.parent).st_dev:
            return None
    except OSError:
        return None
    return plan.cache_dir / f"{BACK_PREFIX}{digest(str(out))[:12]}"


def _publish_versions(plan: BuildPlan, skills: list[Skill], publication: Publication,
                      releases: dict[str, SkillReleases], versions_of: dict[str, list[str]], staging: Staging,
                      cache: Cache, audits: Mapping[str, Sequence[dict[str, Any]]], groups: Sequence[tuple[str, ...]]
                      ) -> dict[str, PublishedVersions]:
    """Every versioned skill's releases, beside the skill itself (see :mod:`skillsite.publish.versions`;
    ``audits``: each skill's findings); each one's entry in ``publication`` then records its
    versions.json's sha256 and size.  Past releases are resolved over the catalog published, so a
    name only copies share stands for the first published copy of ``groups`` (the published
    groups, standing member first), not for the reading's alias: that may be a copy left out
    (the skills needing it now are left out with it), and a past release is not left out."""
    reserved = reserved_names(is_paged(len(skills), plan.config))
    catalog = CatalogReleases(skills, groups, versions_of)
    versions = VersionPublishing(staging, plan.config, cache, reserved, catalog, audits, plan.jobs).publish(
        skills, publication.entries, releases)
    staging.take_journal()  # written here, not by a worker
    pin_versions(publication.entries, versions, cache.resident)
    return versions


def _name_claims(plan: BuildPlan, skills: Sequence[Skill]) -> list[int]:
    """The skills' positions in the order they take a name two of them use in the discovery
    indexes (:func:`~skillsite.source.copies.name_claim_order`: as a group's canonical member is
    chosen, by source order, priority, then ``copies.prefer``)."""
    places = source_places(plan.sources, (s.source.root for s in skills))
    return name_claim_order([(s.id, places[s.source.root], s.priority) for s in skills],
                            CopySettings.of(plan.config.copies).prefer)


def _publish_skills(plan: BuildPlan, skills: list[Skill], releases: dict[str, list[str]], staging: Staging,
                    mtime: int, cache: Cache, audit_listings: Mapping[str, str],
                    copies: Mapping[str, tuple[str, int]], aliases: Mapping[str, str], claims: Sequence[int]
                    ) -> tuple[Publication, dict[str, Any], dict[str, tuple[dict[str, Any], ...]]]:
    """Every skill published on every core, and the search indexes made and written beside them
    (unless the output holds them as the cache describes them: they depend on the skills'
    frontmatter only); then every skill audited (unless the cache holds its findings: they
    depend on its files only).  ``aliases``: see :func:`_publish`; ``claims``: :func:`_name_claims`."""
    knowledge = read_knowledge(skills, plan.knowledge_dir)
    knowledge.write(staging)
    key = search_key(search_digests(skills, copies, cache.resident), plan.config.shard_above)
    search = keep_search(staging, cache.get(Section.SEARCH, key))
    staging.take_journal()  # placed here, not by a worker: nothing for the workers to report
    job, bodies = plan_publishing(skills, staging, plan.config, plan.base_dir, mtime, cache, knowledge.records,
                                     releases, copies, aliases, knowledge.links, claims)
    with Workers(plan.jobs, job, pieces=len(skills)) as workers:
        searching = workers.submit(publish_search, key) if search is None else None
        publication = collect(job, bodies, publish_all(job, bodies, workers, cache), cache)
        audits = audit_published(workers, skills, publication.entries, cache, audit_listings)
    if searching is not None:
        search, placed = searching.result()
        staging.adopt(placed)
        cache.put(Section.SEARCH, key, search)
    return publication, search, audits
