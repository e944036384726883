"""Publishing each versioned skill's releases: ``skills/<id>/versions/<version>/`` (the
release's SKILL.md, bundled files and ``skill.xml``) and ``skills/<id>/versions.json``, whose
sha256 and size the skill's manifest entry then records (:func:`pin_versions`): the entry vouches
for versions.json, and versions.json for each release's files.

The current version's folder holds the files published as the skill itself (hard links: the
same bytes); a past release's files are read from git (:mod:`skillsite.source.releases`), by
one ``git cat-file --batch`` process per repository.  A past release's file is kept in place
when the output holds the same blob already and the cache knows its sha256, so a rebuild reads
from git only what changed.  A release's dependencies: the current one's as its manifest entry
resolved them; a past one's as its own SKILL.md declared them, resolved over today's catalog
(:func:`~skillsite.source.dependencies.release_dependencies`).  Each release is rated by the
audit (``risk``): the current one as the skill is; a past one by the audit of its published
files (cached by its digest), ``audit.ignore`` applied, so that an agent gates every release as
it gates the skill.  A past release's ``skill.xml`` is what the loader's ``load(id, version)``
gives: the release's body and files, the skill's name, sub-skills and knowledge documents as
published today.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from skillsite.agent.entry import ManifestEntry
from skillsite.agent.prompt_xml import skill_content_xml
from skillsite.agent.skill_md import skill_body
from skillsite.agent.release_digest import release_digest
from skillsite.audit.model import Finding, risk_of
from skillsite.cache import Cache, KeptObjects, Section, digest, kept_or_made
from skillsite.config import SiteConfig
from skillsite.models import Skill
from skillsite.publish.audit_results import audit_release, suppressed
from skillsite.publish.bundled_names import left_out
from skillsite.publish.manifest import VERSIONS_FILE, VERSIONS_FOLDER, XML_FILE, absolute, indented_json, skill_dir_url
from skillsite.publish.staging import Staging
from skillsite.source.dependencies import CatalogNames, copy_aliases, declared_dependencies, release_dependencies
from skillsite.source.frontmatter import parse_frontmatter_text
from skillsite.source.frontmatter_yaml import FrontmatterError
from skillsite.source.git_history import ObjectReader, GitError
from skillsite.source.parse import decode_skill_md, split_frontmatter
from skillsite.source.discover import SKILL_FILES
from skillsite.source.releases import Release, SkillReleases
from skillsite.workers import parallel_map

#: A past release's bundled file bigger than this is not published (it is read whole from git).
MAX_RELEASE_FILE_BYTES = 256 << 20



@dataclass(frozen=True)
class CatalogReleases:
    """What a past release's dependencies are resolved over: the catalog's skills, the groups of
    copies published (standing member first: a name only copies share stands for the first), and
    each versioned skill's releases (canonical versions) by id."""

    skills: Sequence[Skill] = ()
    groups: Sequence[tuple[str, ...]] = ()
    releases: Mapping[str, Sequence[str]] = dataclasses.field(default_factory=dict)

    @functools.cached_property
    def names(self) -> CatalogNames:
        """The catalog's names, indexed when a past release first has dependencies to resolve:
        most rebuilds publish no past release, and the index holds a list per name."""
        named = [(skill.id, skill.name) for skill in self.skills]
        return CatalogNames.of(named, copy_aliases(named, self.groups))


def versions_url(skill_id: str) -> str:
    """Site-relative URL of a skill's ``versions.json``."""
    return skill_dir_url(skill_id) + VERSIONS_FILE


def release_url(skill_id: str, version: str) -> str:
    """Site-relative URL of one release's folder."""
    return f"{skill_dir_url(skill_id)}{VERSIONS_FOLDER}/{version}/"


@dataclass(frozen=True)
class PublishedRelease:
    """One release of a skill, its files published: their records, its dependencies and its digest."""

    release: Release
    files: list[dict[str, Any]]
    needs: list[dict[str, Any]]
    digest: str


@dataclass(frozen=True)
class PublishedVersions:
    """What publishing a skill's releases gave: its ``versions.json`` document, the sha256 and
    size of the file as published, and each past release's findings (by version)."""

    skill_id: str
    document: dict[str, Any]
    sha256: str
    size: int
    findings: Mapping[str, tuple[Finding, ...]] = dataclasses.field(default_factory=dict)


#: Where a long-running process's resident objects keep each versioned skill's pinned entry (by its id).
PINNED_ENTRY = "pinned entry"


def pin_versions(entries: list[ManifestEntry], versions: Mapping[str, PublishedVersions],
                 resident: KeptObjects | None = None) -> None:
    """Give each versioned skill's entry the sha256 and size of its published versions.json
    (entries are frozen: each is replaced in ``entries``; in a long-running process, by the one
    the last build made of this very entry and an equal pin), so that the entry, and every file
    keyed by it, changes whenever versions.json does."""
    for index, entry in enumerate(entries):
        published = versions.get(entry.id)
        if published is not None:
            pin = (published.sha256, published.size)
            entries[index] = kept_or_made(resident, PINNED_ENTRY, entry.id, entry, pin, lambda entry=entry, pin=pin:
                                          dataclasses.replace(entry, versions_sha256=pin[0], versions_bytes=pin[1]))


class VersionPublishing:
    """Publishes the releases of the versioned skills into the staging folder."""

    def __init__(self, staging: Staging, config: SiteConfig, cache: Cache, reserved: frozenset[str],
                 catalog: CatalogReleases = CatalogReleases(), audits: Mapping[str, Sequence[dict[str, Any]]] = {},
                 jobs: int = 1):
        self.staging, self.config, self.cache, self.reserved = staging, config, cache, reserved
        self.catalog = catalog
        self.audits = audits   # each skill's own findings (its current files), by id
        self.jobs = jobs       # processes the past releases' audits run on
        self.readers: dict[str, ObjectReader] = {}
        self.entries: dict[str, ManifestEntry] = {}   # every skill's, by id (for sub-skills' names)

    def publish(self, skills: Sequence[Skill], entries: Sequence[ManifestEntry],
                history: dict[str, SkillReleases]) -> dict[str, PublishedVersions]:
        """Every versioned skill's releases and ``versions.json``, by skill id: every release's
        files first, then the past releases' audits the cache lacks, on every core."""
        self.entries = {entry.id: entry for entry in entries} if history else {}
        try:
            published = {skill.id: self._releases(skill, entry, history[skill.id])
                         for skill, entry in zip(skills, entries) if skill.id in history}
        finally:
            for reader in self.readers.values():
                reader.close()
        past = self._past_audits(published)
        return {skill.id: self._versions_file(skill, history[skill.id], published[skill.id], past)
                for skill in skills if skill.id in history}

    def _releases(self, skill: Skill, entry: ManifestEntry, releases: SkillReleases) -> list[PublishedRelease]:
        """Each release of a skill, its files published."""
        published = []
        for release in releases.releases:
            if release.files is None:
                files = self._current(skill, entry, release.version)
                needs = [d.to_json() for d in entry.dependencies]
            else:
                files, main_blob = self._past(skill, entry, release, releases.top or "")
                needs = self._past_dependencies(releases.top or "", main_blob)
            published.append(PublishedRelease(release, files, needs,
                                              release_digest((f["path"], f["sha256"]) for f in files)))
        return published

    def _past_audits(self, published: Mapping[str, Sequence[PublishedRelease]]
                     ) -> dict[tuple[str, str], list[dict[str, Any]]]:
        """The findings of every past release's files as published, by (skill id, version): from
        the cache (they depend on its files alone, which its digest names), else audited now."""
        past = {(skill_id, r.release.version): r
                for skill_id, releases in published.items() for r in releases if r.release.files is not None}
        keys = {at: digest("release audit", at[0], r.digest) for at, r in past.items()}
        found = {at: self.cache.get(Section.AUDIT, key) for at, key in keys.items()}
        missing = [at for at, raw in found.items() if raw is None]
        tasks = [(str(self.staging.current(f"skills/{skill_id}/{VERSIONS_FOLDER}/{version}")),
                  [f["path"] for f in past[skill_id, version].files]) for skill_id, version in missing]
        for at, raw in zip(missing, parallel_map(_audit_release, None, tasks, self.jobs)):
            self.cache.put(Section.AUDIT, keys[at], raw)
            found[at] = raw
        return {at: raw for at, raw in found.items() if raw is not None}

    def _versions_file(self, skill: Skill, releases: SkillReleases, published: Sequence[PublishedRelease],
                       past: Mapping[tuple[str, str], list[dict[str, Any]]]) -> PublishedVersions:
        """A skill's ``versions.json``, each release rated by its findings, ``audit.ignore`` applied."""
        records, past_findings = {}, {}
        for r in published:
            version = r.release.version
            raw = self.audits.get(skill.id, []) if r.release.files is None else past[skill.id, version]
            findings = suppressed(skill.id, skill.source.display_path, raw, self.config)
            if r.release.files is not None:
                past_findings[version] = findings
            records[version] = {
                "digest": r.digest, "url": release_url(skill.id, version), "commit": r.release.commit,
                "date": r.release.date, "dependencies": r.needs, "files": r.files, "risk": risk_of(findings)}
        document = {"latest": releases.current, "versions": releases.versions, "releases": records}
        data = indented_json(document)
        sha = hashlib.sha256(data).hexdigest()
        self.staging.write_keyed(f"skills/{skill.id}/{VERSIONS_FILE}", sha, lambda: data)
        return PublishedVersions(skill.id, document, sha, len(data), past_findings)

    def _current(self, skill: Skill, entry: ManifestEntry, version: str) -> list[dict[str, Any]]:
        """The current release: the files published as the skill, a second time (hard links)."""
        folder = f"skills/{skill.id}/"
        into = f"{folder}{VERSIONS_FOLDER}/{version}/"
        files = [{"path": "SKILL.md", "sha256": entry.sha256, "size": skill.size}]
        self._link(folder + "SKILL.md", into + "SKILL.md", entry.sha256)
        for f in entry.files:
            self._link(folder + f.path, into + f.path, f.sha256)
            files.append({"path": f.path, "sha256": f.sha256, "size": f.bytes})
        xml_key = self.staging.placed.get(folder + XML_FILE)
        if xml_key is not None:
            self._link(folder + XML_FILE, into + XML_FILE, xml_key)
        return files

    def _link(self, published: str, rel: str, key: str) -> None:
        if not self.staging.keep(rel, key):
            self.staging.link(published, rel, key)

    def _past(self, skill: Skill, entry: ManifestEntry, release: Release, top: str
              ) -> tuple[list[dict[str, Any]], str]:
        """A past release: its files from git (kept in place when the output holds them already),
        and its SKILL.md's blob."""
        into = f"skills/{skill.id}/{VERSIONS_FOLDER}/{release.version}/"
        files, main_blob = [], ""
        names = {f.path for f in release.files or ()}
        main = next(name for name in (*SKILL_FILES, "") if name in names or not name)  # SKILL.md wins, as in discovery
        refused = left_out(sorted(names - {main}), self.reserved, versioned=True)
        for f in release.files or ():
            path = "SKILL.md" if f.path == main else f.path
            if f.path == main:
                main_blob = f.blob
            elif path in refused:
                continue  # not published, as the current release's file is not (SK009, SK017, SK020, SK022)
            sha = self._blob_file(top, f.blob, into + path)
            if sha is not None:
                files.append({"path": path, "sha256": sha, "size": f.size})
        files.sort(key=lambda f: (f["path"] != "SKILL.md", f["path"]))
        self._release_xml(skill, entry, release.version, top, main_blob,
                          [f["path"] for f in files if f["path"] != "SKILL.md"])
        return files, main_blob

    def _past_dependencies(self, top: str, main_blob: str) -> list[dict[str, Any]]:
        """What a past release's SKILL.md declares (read once per blob), resolved over today's catalog."""
        key = f"release-depends:{self.config.profile}:{main_blob}"
        items = self.cache.get(Section.HISTORY, key)
        if items is None:
            items = _declared(self._read(top, main_blob, self.config.max_bytes) or b"", self.config.profile)
            self.cache.put(Section.HISTORY, key, items)
        return [d.to_json() for d in release_dependencies(items, self.catalog.names, self.catalog.releases)]

    def _blob_file(self, top: str, blob: str, rel: str) -> str | None:
        """Publish a git blob as ``rel``: its sha256 (None when it cannot be read or is too big)."""
        key = f"git-blob:{blob}"
        sha = self.cache.get(Section.HISTORY, key)
        if sha is not None and self.staging.keep(rel, key):
            return sha
        data = self._read(top, blob, MAX_RELEASE_FILE_BYTES)
        if data is None:
            return None
        sha = hashlib.sha256(data).hexdigest()
        self.cache.put(Section.HISTORY, key, sha)
        self.staging.write(rel, data, key)
        return sha

    def _read(self, top: str, blob: str, limit: int) -> bytes | None:
        if top not in self.readers:
            self.readers[top] = ObjectReader(top)
        try:
            return self.readers[top].read(blob, limit)
        except GitError:
            return None

    def _release_xml(self, skill: Skill, entry: ManifestEntry, version: str, top: str, main_blob: str,
                     paths: list[str]) -> None:
        """The release's ``<skill_content>`` fragment, as the loader's ``load(id, version=...)``
        gives it: the body of its own SKILL.md and its files, read from the release's folder (the
        skill's own folder holds the current files, which a past release may not have, or have
        otherwise); the skill's name, sub-skills and knowledge documents, as the catalog
        publishes them today."""
        into = f"skills/{skill.id}/{VERSIONS_FOLDER}/{version}/"
        page_url = absolute(self.config, release_url(skill.id, version))
        subs = [(c, self.entries[c].name, self.entries[c].description) for c in entry.children if c in self.entries]
        docs = [(k.path, k.title, absolute(self.config, k.url)) for k in entry.knowledge]
        key = digest("release-xml", skill.id, skill.name, main_blob, page_url, paths, subs, docs)
        if self.staging.keep(into + XML_FILE, key):
            return
        body = skill_body(self._read(top, main_blob, self.config.max_bytes) or b"")
        self.staging.write(into + XML_FILE,
                           skill_content_xml(skill.name, skill.id, body, page_url, paths, subs, docs).encode("utf-8"),
                           key)


def _audit_release(_: None, task: tuple[str, list[str]]) -> list[dict[str, Any]]:
    """:func:`~skillsite.publish.audit_results.audit_release` of (folder, paths), in a worker."""
    folder, paths = task
    return audit_release(Path(folder), paths)


def _declared(raw: bytes, profile: str) -> list[str]:
    """The dependency items a release's SKILL.md declares (none when its frontmatter cannot be
    read): under the ``spec`` profile only ``metadata.depends``, as for the current version."""
    try:
        split = split_frontmatter(decode_skill_md(raw))
        if split is None:
            return []
        data, _, _ = parse_frontmatter_text(split[0], "SKILL.md", 1)
    except FrontmatterError:
        return []
    if not isinstance(data, dict):
        return []
    if profile == "spec":
        data = {key: value for key, value in data.items() if key != "depends"}
    return [item for item, _, _ in declared_dependencies(data, {})]

