"""``skillsite verify``: a signed catalog checked whole, as an auditor or a mirror would.

First the signed metadata (:mod:`.trust`), against the trusted keys given, else against the key
the catalog names (which proves it consistent, not authentic); then every file that hangs from
it by digest: the files the targets pin, every page, index and entry file of a paged
``skills.json``, every skill's SKILL.md, bundled files, knowledge documents, ``versions.json``
and the files of each release, the discovery index's archives, and the legacy discovery index's
copies; then every other published file (pages, assets, XML fragments...) against the signed
lists of ``tuf/files/``, and, for a folder, any file there that no list names (under ``tuf/``
too: only the metadata files the accepted metadata names are exempt, :func:`metadata_paths`).
Every failure is listed, with the site path of the file.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from skillsite.agent.errors import LoaderError, NotFoundError, TrustError
from skillsite.agent.trust import TUF_DIR, SignedCatalog, verify_root_chain
from skillsite.agent.trust_keys import PublicKey
from skillsite.agent.site_urls import OUTPUT_MARKER, path_of, url_of

#: The signed lists of every published file's length and sha256 (skillsite.publish.signing).
FILE_LISTS = "tuf/files/"
#: The legacy discovery index's copies of skill files: checked against the signed lists of
#: :data:`FILE_LISTS` too, after the manifest entry they copy.  Of skills sharing a name the build
#: copies one, and nothing in the manifest says which: another skill's genuine files served in its
#: place would match an entry, and only the lists pin what the build wrote there.
LEGACY_COPIES = ".well-known/skills/"


@dataclass
class Report:
    """What a verification found: the accepted metadata, how many files were checked, the failures."""

    catalog: str
    signed: SignedCatalog | None = None
    checked: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)   # (site path, reason)
    seen: set[str] = field(default_factory=set)                      # the paths checked so far

    @property
    def ok(self) -> bool:
        return self.signed is not None and not self.failures

    def to_json(self) -> dict[str, Any]:
        signed = self.signed
        return {"catalog": self.catalog, "ok": self.ok, "files_checked": self.checked,
                "keys": [k.text for k in signed.keys] if signed else [],
                "version": signed.version if signed else None,
                "expires": signed.expires.isoformat().replace("+00:00", "Z") if signed else None,
                "root_version": signed.root_version if signed else None,
                "failures": [{"file": path, "reason": reason} for path, reason in self.failures]}


def named_keys(manifest: dict[str, Any], catalog: str) -> tuple[PublicKey, ...]:
    """The key a catalog's skills.json names (``signing.key``); TrustError when it names none."""
    hint = manifest.get("signing")
    if not isinstance(hint, dict) or not isinstance(hint.get("key"), str):
        raise TrustError("the catalog is not signed (skills.json has no 'signing' section)", catalog)
    return (PublicKey.from_text(hint["key"]),)


def refused(catalog: str, exc: Exception) -> Report:
    """The report of a catalog refused when opened."""
    return Report(catalog, failures=[(_file_of(exc), str(exc))])


def check_files(catalog: Any, folder: Path | None = None) -> Report:
    """Every file of an opened, signed catalog (a :class:`~skillsite.loader.Catalog` opened with
    ``max_risk="high"`` and its trusted keys), checked against what pins it; ``folder``: the
    site's folder, when it is one, whose every file must be listed."""
    report = Report(catalog.location, catalog.signed)
    _check_all(catalog, report)
    listed = _check_listed(catalog, report)
    if folder is not None:
        checked = {path_of(path) for path in report.seen}
        files, linked = site_contents(folder, metadata=True)
        for rel in sorted(set(files) - listed.keys() - checked - metadata_paths(catalog.signed)):
            report.checked += 1
            report.failures.append((rel, "it is published, but neither skills.json nor a signed list of "
                                         "tuf/files/ pins it"))
        for rel in linked:
            report.checked += 1
            report.failures.append((rel + "/", "a symlink to a folder: a host serves the files it leads to, "
                                               "which nothing pins"))
    return report


def _file_of(exc: Exception) -> str:
    """The metadata file a refusal names, else skills.json."""
    text = str(exc)
    for word in text.replace("(", " ").split():
        if word.startswith("tuf/"):
            return word.rstrip(":,;)")
    return "skills.json"


def _check(report: Report, path: str, check: Callable[[], Any]) -> None:
    report.checked += 1
    report.seen.add(path)
    try:
        check()
    except (LoaderError, OSError, ValueError) as exc:
        report.failures.append((path, str(exc)))


def _check_all(catalog: Any, report: Report) -> None:
    signed = catalog.signed
    _check(report, "tuf/ (every N.root.json)", lambda: verify_root_chain(_site_get(catalog), catalog.location))
    for path in sorted(signed.targets):
        _check(report, path, lambda path=path: signed.check(path, catalog.site_file(path)))
    entry_files: list[tuple[str, str, str]] = []
    _check(report, "manifest/index/", lambda: entry_files.extend(catalog.entry_files()))
    for skill_id, url, sha in entry_files:
        _check(report, url, lambda url=url, sha=sha, skill_id=skill_id: catalog.verified_file(
            url, sha, f"the entry file of {skill_id}"))
    entries: list[Any] = []
    _check(report, "manifest/pages/", lambda: entries.extend(catalog.entries))
    for entry in entries:
        _check_skill(catalog, entry, report)
    for record in {k.path: k for e in entries for k in e.knowledge}.values():
        _check(report, record.url, lambda record=record: catalog.knowledge(record.path))
    _check_discovery(catalog, entries, report)


def _site_get(catalog: Any) -> Callable[[str], bytes | None]:
    def get(path: str) -> bytes | None:
        try:
            return catalog.site_file(path)
        except NotFoundError:
            return None
    return get


def _check_skill(catalog: Any, entry: Any, report: Report) -> None:
    """A skill's SKILL.md and files, then each of its releases' files."""
    folder = entry.urls.files  # a URL: each path joined to it is encoded too ('50%25 off.md' is a file's name)
    for path in ("SKILL.md", *(f.path for f in entry.files)):
        _check(report, folder + url_of(path), lambda path=path: catalog.resource(entry.id, path))
    if entry.versions_url is None:
        return
    releases: dict[str, Any] = {}
    _check(report, entry.versions_url, lambda: releases.update(catalog.releases(entry.id)))
    for version, release in releases.items():
        for record in release.files:
            _check(report, release.url + url_of(record.path),
                   lambda record=record, version=version: catalog.resource(entry.id, record.path, version))


def _check_discovery(catalog: Any, entries: list[Any], report: Report) -> None:
    """The archives the (signed) discovery index pins, and the legacy index's copies of skill files."""
    index = ".well-known/agent-skills/index.json"
    for skill in _signed_index(catalog, index, report):
        if skill.get("type") == "archive":
            url, digest = skill.get("url"), skill.get("digest")
            if not (isinstance(url, str) and isinstance(digest, str)):
                report.failures.append((index, "an archive without a url or digest"))
                continue
            path = ".well-known/agent-skills/" + url
            _check(report, path, lambda path=path, digest=digest: _same_digest(catalog.site_file(path), digest))
    legacy = ".well-known/skills/index.json"
    by_name: dict[str, list[Any]] = {}
    for e in entries:
        by_name.setdefault(e.name, []).append(e)
    for skill in _signed_index(catalog, legacy, report):
        name, files = skill.get("name"), skill.get("files")
        if not (isinstance(name, str) and isinstance(files, list) and all(isinstance(f, str) for f in files)):
            report.failures.append((legacy, "a skill without a name or a list of files"))
            continue
        copies = {path: f".well-known/skills/{name}/{path}" for path in files}
        entry = _legacy_holder(catalog, copies, by_name.get(name, []))
        if entry is None:
            continue
        shas = {"SKILL.md": entry.sha256, **{f.path: f.sha256 for f in entry.files}}
        for path, copy in copies.items():
            _check(report, copy, lambda copy=copy, path=path: _same_digest(
                catalog.site_file(copy), "sha256:" + shas.get(path, "")))


def _legacy_holder(catalog: Any, copies: dict[str, str], named: list[Any]) -> Any | None:
    """The entry whose files the legacy index's ``copies`` (path in the skill -> site path) are, of
    the entries ``named`` so (in manifest order): the first whose every file they equal, else the
    first (whose digests then fail).  When skills share a name the build lists one of them by an
    order the manifest does not hold (source order, priority, ``copies.prefer``); which one it is,
    the signed lists of ``tuf/files/`` pin (:data:`LEGACY_COPIES`)."""
    if len(named) < 2:
        return named[0] if named else None
    shas: dict[str, str | None] = {}
    for path, copy in copies.items():
        try:
            shas[path] = hashlib.sha256(catalog.site_file(copy)).hexdigest()
        except (LoaderError, OSError):
            shas[path] = None
    for entry in named:
        held = {"SKILL.md": entry.sha256, **{f.path: f.sha256 for f in entry.files}}
        if all(held.get(path) == sha for path, sha in shas.items()):
            return entry
    return named[0]


def _signed_index(catalog: Any, index: str, report: Report) -> list[dict[str, Any]]:
    """The skills a discovery index the signed targets pin lists: none when they do not pin it
    or it fails their check (reported with the targets: nothing it says is followed); a failure
    of its own when it is not such an index."""
    if index not in catalog.signed.targets:
        return []
    try:
        data = catalog.site_file(index)
        catalog.signed.check(index, data)
    except (LoaderError, OSError, ValueError):
        return []
    try:
        skills = json.loads(data)["skills"]
    except (ValueError, TypeError, KeyError) as exc:
        report.failures.append((index, f"not a discovery index: {exc}"))
        return []
    if not (isinstance(skills, list) and all(isinstance(skill, dict) for skill in skills)):
        report.failures.append((index, "not a discovery index: its skills are not a list of objects"))
        return []
    return skills


def _same_digest(data: bytes, digest: str) -> None:
    actual = "sha256:" + hashlib.sha256(data).hexdigest()
    if actual != digest:
        raise ValueError(f"its digest is {actual}, the signed index says {digest}")


def _check_listed(catalog: Any, report: Report) -> dict[str, Any]:
    """The files the signed lists of ``tuf/files/`` name, each checked that was not already
    (a list that does not match its signed digest failed above and names nothing here)."""
    listed: dict[str, Any] = {}
    signed = catalog.signed
    for path in sorted(p for p in signed.targets if p.startswith(FILE_LISTS)):
        try:
            data = catalog.site_file(path)
            signed.check(path, data)
        except (LoaderError, OSError, ValueError):
            continue
        listed.update(json.loads(data)["files"])
    for rel, info in sorted(listed.items()):
        if rel.startswith(LEGACY_COPIES) or (rel not in report.seen and url_of(rel) not in report.seen):
            _check(report, rel, lambda rel=rel, info=info: _same_file(catalog.site_file(rel), info))
    return listed


def _same_file(data: bytes, info: dict[str, Any]) -> None:
    sha = hashlib.sha256(data).hexdigest()
    if len(data) != info["length"] or sha != info["hashes"]["sha256"]:
        raise ValueError(f"{len(data)} bytes with sha256 {sha}; the signed list says {info['length']} "
                         f"bytes with sha256 {info['hashes']['sha256']}")


def is_listed(rel: str) -> bool:
    """Whether the signed file lists cover a published file: all but ``tuf/`` (the signed
    metadata, which signs the rest) and the output's marker file."""
    return not rel.startswith(TUF_DIR) and rel != OUTPUT_MARKER


def metadata_paths(signed: SignedCatalog) -> set[str]:
    """The site paths of the signed metadata a signed build writes under ``tuf/``
    (:mod:`skillsite.publish.signing`), as the accepted metadata names them: ``root.json`` and
    the chain of roots up to the accepted one, ``timestamp.json``, the snapshot and targets of the
    versions it names, and the lists of ``tuf/files/`` the targets pin.  Any other file under
    ``tuf/`` (a page, a script) is published, pinned by nothing, as any other extra file is."""
    names = {"root.json", "timestamp.json", f"{signed.snapshot_version}.snapshot.json",
             f"{signed.version}.targets.json", *(f"{n}.root.json" for n in range(1, signed.root_version + 1))}
    return {TUF_DIR + name for name in names} | {p for p in signed.targets if p.startswith(FILE_LISTS)}


def site_contents(folder: Path, metadata: bool = False) -> tuple[list[str], list[str]]:
    """One walk of a site folder: the site paths of its files that the signed file lists cover
    (:func:`is_listed`; with ``metadata``, those under ``tuf/`` too), and those of its symlinks
    to folders (which the walk does not enter)."""
    files, linked = [], []
    for parent, folders, names in os.walk(folder):
        rel_parent = Path(parent).relative_to(folder).as_posix()
        prefix = "" if rel_parent == "." else rel_parent + "/"
        files += [prefix + name for name in names
                  if is_listed(prefix + name) or metadata and prefix + name != OUTPUT_MARKER]
        linked += [prefix + name for name in folders if os.path.islink(os.path.join(parent, name))]
    return files, sorted(linked)


def published_files(folder: Path) -> list[str]:
    """The site paths of a site folder's files that the signed file lists cover (:func:`is_listed`)."""
    return site_contents(folder)[0]
