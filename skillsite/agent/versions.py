"""A skill's ``versions.json``, read and checked: its releases, each with the files a loader
fetches and verifies (standard library only).

The file is untrusted like every catalog file: every path stays inside the site or the
release folder, every version is canonical, and each release's ``digest`` must be the
:func:`~skillsite.agent.release_digest.release_digest` of the ``files`` it lists (their bytes
are checked against those sha256 when fetched), so a release is one value from the file to
the lock.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from skillsite.agent.catalog_format import RISKS
from skillsite.agent.entry import is_hex_sha256, is_size
from skillsite.agent.errors import CatalogFormatError, IntegrityError, UnsafePathError
from skillsite.agent.manifest_check import decode_json, safe_relpath, site_relative
from skillsite.agent.release_digest import release_digest
from skillsite.agent.semver import RangeError, parse_range, parse_version, sort_versions
from skillsite.agent.site_urls import url_of
from skillsite.agent.xml_chars import xml_unkept

#: Published in a release folder beside the skill's files, but no part of its digest.
XML_FILE = "skill.xml"
DIGEST_PREFIX = "sha256:"


def is_release_digest(value: object) -> bool:
    """``sha256:`` and 64 lower-case hex digits, as a release digest is written."""
    return isinstance(value, str) and value.startswith(DIGEST_PREFIX) and is_hex_sha256(value[len(DIGEST_PREFIX):])


@dataclass(frozen=True)
class ReleaseFile:
    """One file of a release: its path in the skill folder, sha256 and size."""

    path: str
    sha256: str
    size: int | None = None


@dataclass(frozen=True)
class ReleaseDependency:
    """A dependency as the build resolved it for a release."""

    name: str          # as written in the frontmatter
    id: str            # the skill it names
    range: str         # the range as written ("*" when none)
    resolved: str | None  # the highest release in range when the catalog was built (None: it has no versions)


@dataclass(frozen=True)
class Release:
    """One release of a skill: its digest, folder URL (site-relative), files and the audit's
    rating of them (None: a catalog built before releases were audited)."""

    version: str
    digest: str
    url: str
    commit: str | None
    date: str | None
    dependencies: tuple[ReleaseDependency, ...]
    files: tuple[ReleaseFile, ...]
    risk: str | None = None

    @property
    def skill_files(self) -> tuple[ReleaseFile, ...]:
        """SKILL.md and the bundled files: what an install writes and the digest covers."""
        return tuple(f for f in self.files if f.path != XML_FILE)


@dataclass(frozen=True)
class VersionsFile:
    """``skills/<id>/versions.json``: the releases of one skill, oldest first."""

    skill_id: str
    latest: str
    versions: tuple[str, ...]
    releases: dict[str, Release]


def parse_versions(body: bytes, skill_id: str, where: str) -> VersionsFile:
    """The checked versions.json of ``skill_id``; CatalogFormatError (IntegrityError for a
    release whose digest is not that of its files) naming ``where``."""
    data = decode_json(body, where)
    if not isinstance(data, dict) or not isinstance(data.get("versions"), list) \
            or not isinstance(data.get("releases"), dict):
        raise CatalogFormatError(f"{where} is not a versions.json: it needs 'versions' (a list) and 'releases'")
    versions = [_canonical(v, where) for v in data["versions"]]
    if len(set(versions)) != len(versions):
        raise CatalogFormatError(f"{where}: a version is listed twice")
    latest = data.get("latest")
    if latest not in versions:
        raise CatalogFormatError(f"{where}: latest {latest!r} is not one of its versions")
    releases = {}
    for version in versions:
        if version not in data["releases"]:
            raise CatalogFormatError(f"{where}: version {version} has no release record")
        releases[version] = _release(version, data["releases"][version], f"{where}: release {version}")
    return VersionsFile(skill_id, latest, tuple(sort_versions(versions)), releases)


def _canonical(value: Any, where: str) -> str:
    """A version as versions.json must write it: canonical semver."""
    parsed = parse_version(value) if isinstance(value, str) else None
    if parsed is None or str(parsed) != value:
        raise CatalogFormatError(f"{where}: {value!r} is not a canonical semantic version")
    return value


def _release(version: str, data: Any, where: str) -> Release:
    """One release record, checked; its digest must be that of its files."""
    if not isinstance(data, dict) or not isinstance(data.get("url"), str) \
            or not isinstance(data.get("digest"), str):
        raise CatalogFormatError(f"{where} needs a 'digest' and a 'url'")
    url = url_of(site_relative(data["url"], f"{where} url"))  # checked, and encoded once as the build writes it
    if not url.endswith("/"):
        raise CatalogFormatError(f"{where}: url {data['url']!r} is not a folder (it must end with /)")
    files = _files(data.get("files"), where)
    digest = data["digest"]
    if not is_release_digest(digest):
        raise CatalogFormatError(f"{where}: digest {digest[:80]!r} is not sha256:<64 hex digits>")
    actual = release_digest((f.path, f.sha256) for f in files if f.path != XML_FILE)
    if actual != digest:
        raise IntegrityError(f"{where}: its digest {digest} is not the digest of the files it lists ({actual}); "
                             "refusing it", digest, actual)
    risk = data.get("risk")
    if risk is not None and risk not in RISKS:
        raise CatalogFormatError(f"{where}: risk {str(risk)[:20]!r} is not one of {', '.join(RISKS)}")
    return Release(version, digest, url, _optional_text(data, "commit", where), _optional_text(data, "date", where),
                   parse_dependencies(data.get("dependencies", []), where), files, risk)


def _files(value: Any, where: str) -> tuple[ReleaseFile, ...]:
    """The release's files: safe relative paths, each once, SKILL.md among them."""
    if not isinstance(value, list):
        raise CatalogFormatError(f"{where} has no 'files' list (a catalog built before releases listed files)")
    files = []
    for item in value:
        if not (isinstance(item, dict) and isinstance(item.get("path"), str) and is_hex_sha256(item.get("sha256"))
                and ("size" not in item or is_size(item["size"]))):
            raise CatalogFormatError(f"{where}: malformed files (each is {{path, sha256, size}})")
        try:
            path = safe_relpath(item["path"], "release file")
        except UnsafePathError as exc:
            raise CatalogFormatError(f"{where}: {exc}") from None
        if (char := xml_unkept(path)) is not None:  # the release's skill.xml would list a file that is not there
            raise CatalogFormatError(f"{where}: release file {path!r}, whose U+{ord(char):04X} its prompt fragment "
                                     "(skill.xml, XML 1.0) cannot hold as written")
        files.append(ReleaseFile(path, item["sha256"], item.get("size")))
    paths = [f.path for f in files]
    if len(set(paths)) != len(paths) or "SKILL.md" not in paths:
        raise CatalogFormatError(f"{where}: files must list SKILL.md, and no path twice")
    return tuple(files)


def parse_dependencies(value: Any, where: str) -> tuple[ReleaseDependency, ...]:
    """Resolved dependencies (of a release, or of a manifest entry), each range checked to parse."""
    if not isinstance(value, list):
        raise CatalogFormatError(f"{where}: 'dependencies' is not a list")
    out = []
    for item in value:
        keys = ("name", "id", "version")
        if not (isinstance(item, dict) and all(isinstance(item.get(k), str) for k in keys) and item["id"]
                and isinstance(item.get("resolved"), (str, type(None)))):
            raise CatalogFormatError(f"{where}: malformed dependencies (each is {{name, id, version, resolved}})")
        try:
            parse_range(item["version"])
        except RangeError as exc:
            raise CatalogFormatError(f"{where}: dependency {item['name']!r} has the range {item['version']!r}, "
                                     f"which does not parse ({exc})") from None
        out.append(ReleaseDependency(item["name"], item["id"], item["version"], item.get("resolved")))
    return tuple(out)


def _optional_text(data: dict[str, Any], key: str, where: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise CatalogFormatError(f"{where}: {key!r} is neither a string nor null")
    return value
