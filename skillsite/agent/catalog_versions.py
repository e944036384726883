"""The releases of an open catalog's skills: each versions.json fetched once and checked, a
release chosen by a version range, its files fetched verified, what each release needs.  Part
of :class:`skillsite.loader.Catalog` (standard library only): it reads the catalog's entries and
fetches through its verified fetch."""
from __future__ import annotations

from typing import Any

from skillsite.agent.entry import ManifestEntry, is_hex_sha256, is_size
from skillsite.agent.catalog_format import above
from skillsite.agent.errors import UNAUDITED, CatalogFormatError, NotFoundError, RiskError
from skillsite.agent.install_plan import UNVERSIONED, Needs
from skillsite.agent.manifest_check import site_relative
from skillsite.agent.release_digest import release_digest
from skillsite.agent.semver import RangeError, max_satisfying, parse_version, satisfies
from skillsite.agent.site_urls import url_of
from skillsite.agent.versions import Release, VersionsFile, parse_dependencies, parse_versions


def canonical(version: str | None) -> str | None:
    """A manifest's version as written, made canonical; None when it is no semantic version."""
    parsed = parse_version(version) if version else None
    return None if parsed is None else str(parsed)


def current_digest(entry: ManifestEntry) -> str:
    """The release digest of a skill's current files (SKILL.md and its bundled files)."""
    return release_digest([("SKILL.md", entry.sha256)] + [(f.path, f.sha256) for f in entry.files])


class Histories:
    """Each skill's versions.json, fetched on first use and kept for the catalog's life."""

    def __init__(self, catalog: Any) -> None:  # the open skillsite.loader.Catalog
        self.catalog = catalog
        self._files: dict[str, VersionsFile | None] = {}

    def of(self, skill_id: str) -> VersionsFile | None:
        """The checked versions.json of a skill; None when it has none.  Verified against the
        sha256 its entry gives; a catalog built before entries gave one has it fetched unpinned."""
        if skill_id not in self._files:
            self._files[skill_id] = self._read(skill_id)
        return self._files[skill_id]

    def _read(self, skill_id: str) -> VersionsFile | None:
        catalog = self.catalog
        data = catalog._source.find(skill_id) or {}
        url = data.get("versions_url")
        if url is None:
            return None
        if not isinstance(url, str):
            raise CatalogFormatError(f"{catalog.location}: skill {skill_id} has a malformed versions_url")
        checked = url_of(site_relative(url, f"versions_url of {skill_id}"))
        sha, size = data.get("versions_sha256"), data.get("versions_bytes")
        if sha is None:
            body = catalog._files.unpinned(checked)
        elif is_hex_sha256(sha) and (size is None or is_size(size)):
            body = catalog._files.verified(checked, sha, size, f"versions.json of {skill_id} ({checked})")
        else:
            raise CatalogFormatError(f"{catalog.location}: skill {skill_id} has a malformed versions_sha256 "
                                     "or versions_bytes")
        return parse_versions(body, skill_id, catalog._files.url(checked))

    def digests(self, entry: ManifestEntry) -> dict[str, str]:
        """The digest of each release of a skill, by version; for a skill without releases, its
        current files' digest under its version ("" when it has none)."""
        history = self.of(entry.id)
        if history is not None:
            return {v: r.digest for v, r in history.releases.items()}
        return {canonical(entry.version) or UNVERSIONED: current_digest(entry)}

    def current_range(self, entry: ManifestEntry) -> str:
        """The range that stands for "the current version": the latest release, exactly, or any."""
        history = self.of(entry.id)
        return history.latest if history is not None else "*"

    def release_for(self, entry: ManifestEntry, wanted: str) -> Release | None:
        """The highest release of ``entry`` satisfying ``wanted``; None for the current files of a
        skill without releases whose version satisfies it.  NotFoundError when none does."""
        history = self.of(entry.id)
        try:
            if history is None:
                current = canonical(entry.version)
                if wanted.strip() in ("", "*", "x", "X") or (current and satisfies(current, wanted)):
                    return None
                published = f" ({current})" if current else ""
                raise NotFoundError(f"skill {entry.id} has no release matching {wanted!r}: the catalog publishes only "
                                    f"its current version{published}")
            best = max_satisfying(history.versions, wanted)
        except RangeError as exc:
            raise NotFoundError(f"{wanted!r} is not a version or a version range ({exc})") from None
        if best is None:
            raise NotFoundError(f"no release of {entry.id} satisfies {wanted!r}; its releases: "
                                f"{', '.join(history.versions)}")
        return self.usable(entry, history.releases[best])

    def usable(self, entry: ManifestEntry, release: Release) -> Release:
        """``release``, unless the audit rated it above the catalog's ``max_risk`` (RiskError): the
        current release is the skill (checked with its entry); a past one has its own rating, and
        one no audit rated passes only ``max_risk="high"``."""
        history = self.of(entry.id)
        if history is not None and release.version == history.latest:
            return release
        max_risk = self.catalog.max_risk
        if release.risk is None and max_risk != "high" or release.risk is not None and above(release.risk, max_risk):
            raise RiskError(f"{entry.id}@{release.version}", release.risk or UNAUDITED, max_risk)
        return release

    def release_file(self, entry: ManifestEntry, release: Release, path: str) -> bytes:
        """One file of a release, verified against the sha256 its file list gives."""
        record = next((f for f in release.files if f.path == path), None)
        if record is None:
            raise NotFoundError(f"release {release.version} of {entry.id} has no file {path!r}")
        rel = release.url + url_of(path)
        return self.catalog._files.verified(rel, record.sha256, record.size, f"{path} of {entry.id}@{release.version}")

    def needs(self, skill_id: str) -> dict[str, Needs] | None:
        """Every release of a skill and what it needs (for :func:`plan_install`); None when the
        catalog has no such skill.  A skill without releases is its current version."""
        catalog = self.catalog
        data = catalog._source.find(skill_id)
        if data is None:
            return None
        history = self.of(skill_id)
        if history is not None:
            return {v: tuple((d.id, d.range) for d in r.dependencies) for v, r in history.releases.items()}
        entry = catalog._source.checked(data)
        deps = parse_dependencies(data.get("dependencies", []), f"{catalog.location}: skill {skill_id}")
        return {canonical(entry.version) or UNVERSIONED: tuple((d.id, d.range) for d in deps)}
