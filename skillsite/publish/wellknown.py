"""The Agent Skills discovery index (RFC v0.2): ``.well-known/agent-skills/index.json``,
and the legacy v0.1 index beside it: ``.well-known/skills/index.json``.

Installers such as ``npx skills add <site>`` read them.  In v0.2 a skill without bundled
files is listed as ``skill-md`` (its raw SKILL.md); one with files as a deterministic
``.tar.gz`` archive with ``SKILL.md`` at its root: members sorted, fixed times and owners, no
links, no ``./`` prefix, USTAR headers (which refuse a name too long instead of cutting it).
v0.1 lists each skill's ``files``, which older installers fetch one by one from
``.well-known/skills/<name>/<file>``: the same skills are listed, their files copied there,
but a skill with a file those installers cannot fetch: they join each path into the URL as
written, so a ``#``, ``?`` or ``%`` in it names another file (the `skills` installer then
installs the skill without it).
"""
from __future__ import annotations

import gzip
import io
import re
import tarfile
from typing import Any, Sequence

from skillsite.agent.entry import ManifestEntry
from skillsite.diagnostics import Diagnostic, Severity, make
from skillsite.source.versioning import canonical_version

INDEX_PATH = ".well-known/agent-skills/index.json"
LEGACY_DIR = ".well-known/skills"
LEGACY_INDEX_PATH = f"{LEGACY_DIR}/index.json"
ARCHIVE_DIR = ".well-known/agent-skills/archives"
DISCOVERY_SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
NAME_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
#: What a v0.1 reader cannot fetch in a file path it joins into a URL unencoded; and ``..``
#: anywhere in one, for which installers refuse the whole index (every skill of it lost).
LEGACY_UNFETCHABLE = re.compile(r"[#?%\\]|\.\.")
#: A fast level: archives are small text files, and a higher level takes three times the CPU
#: for about a seventh fewer bytes.
ARCHIVE_LEVEL = 2


def listable(name: str, description: str) -> bool:
    """Installers accept only specification names and descriptions up to 1,024 characters."""
    return bool(NAME_PATTERN.match(name)) and len(name) <= 64 and 0 < len(description) <= 1024


def archive_path(name: str) -> str:
    """The site path of the archive of the skill listed under ``name``."""
    return f"{ARCHIVE_DIR}/{name}.tar.gz"


def _member(name: str, size: int, mtime: int) -> tarfile.TarInfo:
    """A regular file's header: mode 0644, owner 0:0, no owner names."""
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.mode = size, mtime, 0o644
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info


def fits_ustar(name: str) -> bool:
    """Whether ``name`` fits a USTAR header: 100 bytes, or a prefix of up to 155 bytes and a
    name of up to 100 split at a '/' (tarfile refuses the others)."""
    raw = name.encode("utf-8", "surrogateescape")
    if len(raw) <= 100:
        return True
    cuts = [i for i, byte in enumerate(raw) if byte == ord("/")]
    return any(i <= 155 and len(raw) - i - 1 <= 100 for i in cuts)


def deterministic_tar_gz(members: Sequence[tuple[str, bytes]], mtime: int) -> bytes:
    """A .tar.gz of ``(archive path, content)`` pairs that depends only on them and ``mtime``.

    ValueError when a name does not fit a USTAR header.
    """
    out = io.BytesIO()
    # gzip's header holds 32 bits of time; 0 means "none" (for a SOURCE_DATE_EPOCH past 2106)
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, compresslevel=ARCHIVE_LEVEL,
                       mtime=mtime if mtime < 2 ** 32 else 0) as compressed:
        with tarfile.open(fileobj=compressed, mode="w", format=tarfile.USTAR_FORMAT) as tar:
            for name, data in sorted(members, key=lambda member: member[0]):
                tar.addfile(_member(name, len(data), mtime), io.BytesIO(data))
    return out.getvalue()


def discovery_entry(name: str, description: str, kind: str, url: str, sha256: str,
                    version: str | None = None) -> dict[str, str]:
    """One skill in the discovery index; ``sha256`` (hex) is the listed artifact's; ``version``
    (canonical) when the skill has a semantic version."""
    entry = {"name": name, "type": kind, "description": description, "url": url, "digest": "sha256:" + sha256}
    return entry if version is None else {**entry, "version": version}


def index_document(entries: list[dict[str, str]]) -> dict[str, Any]:
    return {"$schema": DISCOVERY_SCHEMA, "skills": entries}


def discovery_index(entries: Sequence[ManifestEntry], archives: dict[str, str], shown: dict[str, str],
                    refused: frozenset[str] = frozenset()
                    ) -> tuple[dict[str, Any], list[Diagnostic], frozenset[str]]:
    """The discovery index of the published ``entries`` (``archives``: site path -> sha256 of each
    archive made; ``shown``: each skill's SKILL.md path as diagnostics show it; ``refused``: the
    ids of skills whose SKILL.md installers skip, which SK016 named), the notes on skills it
    cannot list (a name listed already: SK212, a path too long for tar: SK010, a file the legacy
    index cannot offer: SK014), and the ids of the skills it lists (``npx skills add --skill NAME``
    installs those, and only those, by their names)."""
    listed: list[dict[str, str]] = []
    listed_ids: set[str] = set()
    diags: list[Diagnostic] = []
    names: set[str] = set()
    for entry in entries:
        if not listable(entry.name, entry.description) or entry.visibility.copy_of is not None or entry.id in refused:
            continue  # a copy of another skill is listed as that one
        if entry.name in names:
            diags.append(make("SK212", f"name '{entry.name}' is already in the discovery index; skill "
                                       f"'{entry.id}' is not listed there", shown[entry.id],
                              severity=Severity.INFO))
            continue
        names.add(entry.name)
        too_long = next((f.path for f in entry.files if not fits_ustar(f.path)), None)
        if too_long is not None:
            diags.append(make("SK010", f"bundled file '{too_long}' has a path too long for a tar archive (USTAR: "
                                       "100 bytes, or 255 split at a '/'); skill not listed in the discovery index",
                              shown[entry.id]))
            continue
        listed_ids.add(entry.id)
        if entry.files:
            listed.append(discovery_entry(entry.name, entry.description, "archive",
                                          f"archives/{entry.name}.tar.gz", archives[archive_path(entry.name)],
                                          canonical_version(entry.version)))
        else:
            listed.append(discovery_entry(entry.name, entry.description, "skill-md",
                                          "../../" + entry.urls.skill_md, entry.sha256,
                                         canonical_version(entry.version)))
        unfetchable = legacy_unfetchable(entry)
        if unfetchable is not None:
            diags.append(make("SK014", f"bundled file '{unfetchable}' holds '#', '?', '%', '\\' or '..', which older "
                                       "installers cannot fetch: skill listed in .well-known/agent-skills only, not in "
                                       "the legacy .well-known/skills index", shown[entry.id]))
    return index_document(listed), diags, frozenset(listed_ids)


def legacy_unfetchable(entry: ManifestEntry) -> str | None:
    """The first bundled file of ``entry`` a v0.1 reader cannot fetch, or None."""
    return next((f.path for f in entry.files if LEGACY_UNFETCHABLE.search(f.path)), None)


def legacy_index(entries: Sequence[ManifestEntry], listed: dict[str, Any]) -> dict[str, Any]:
    """The v0.1 index of the skills the v0.2 index lists: ``{"skills": [{name, description, files}]}``."""
    by_name = listed_entries(entries)
    return {"skills": [{"name": name, "description": by_name[name].description,
                        "files": ["SKILL.md", *(f.path for f in by_name[name].files)]}
                       for name in (skill["name"] for skill in listed["skills"])
                       if name in by_name and legacy_unfetchable(by_name[name]) is None]}


def legacy_files(entries: Sequence[ManifestEntry], legacy: dict[str, Any]) -> list[tuple[str, str, str]]:
    """Every file the v0.1 index lists: ``(site path under .well-known/skills, sha256, published path)``."""
    by_name = listed_entries(entries)
    copies = []
    for skill in legacy["skills"]:
        entry = by_name[skill["name"]]
        shas = {"SKILL.md": entry.sha256, **{f.path: f.sha256 for f in entry.files}}
        for path in skill["files"]:
            copies.append((f"{LEGACY_DIR}/{skill['name']}/{path}", shas[path], f"skills/{entry.id}/{path}"))
    return copies


def listed_entries(entries: Sequence[ManifestEntry]) -> dict[str, ManifestEntry]:
    """The entry each name of the discovery index stands for: the first listable one that is no copy of another."""
    by_name: dict[str, ManifestEntry] = {}
    for entry in entries:
        if listable(entry.name, entry.description) and entry.visibility.copy_of is None:
            by_name.setdefault(entry.name, entry)
    return by_name
