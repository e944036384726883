"""The Agent Skills discovery index (RFC v0.2): ``.well-known/agent-skills/index.json``,
and the legacy v0.1 index beside it: ``.well-known/skills/index.json``.

Installers such as ``npx skills add <site>`` read them.  In v0.2 a skill without bundled
files is listed as ``skill-md`` (its raw SKILL.md); one with files as a deterministic
``.tar.gz`` archive with ``SKILL.md`` at its root: members sorted, fixed times and owners, no
links, no ``./`` prefix, USTAR headers.  A skill with a path too long for one (over 100 bytes, or
255 split at a '/') gets a ``.zip`` instead, made as deterministically (SK010, info): a pax header
would hold the path, but installers that read USTAR headers alone (``npx skills`` 1.7.4) would
install that file under its first 100 bytes; they read a zip's names whole.
v0.1 lists each skill's ``files``, which older installers fetch one by one from
``.well-known/skills/<name>/<file>``: the same skills are listed, their files copied there,
but a skill with a file those installers cannot fetch: they join each path into the URL as
written, so a ``#``, ``?`` or ``%`` in it names another file (the `skills` installer then
installs the skill without it).
"""
from __future__ import annotations

import calendar
import gzip
import io
import itertools
import re
import tarfile
import time
import zipfile
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from skillsite.agent.entry import ManifestEntry
from skillsite.agent.manifest_check import path_problem
from skillsite.diagnostics import Diagnostic, Severity, make
from skillsite.publish.composed_json import composed_json, row_json
from skillsite.source.versioning import canonical_version

INDEX_PATH = ".well-known/agent-skills/index.json"
LEGACY_DIR = ".well-known/skills"
LEGACY_INDEX_PATH = f"{LEGACY_DIR}/index.json"
ARCHIVE_DIR = ".well-known/agent-skills/archives"
DISCOVERY_SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
NAME_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
#: What a v0.1 reader cannot fetch in a file path it joins into a URL unencoded: '#', '?', '%', a
#: backslash, and what a WHATWG URL parser (Node's) drops: a tab or line end anywhere, a space or
#: control character ending the URL; and ``..`` anywhere in one, for which installers refuse the
#: whole index (every skill of it lost).
LEGACY_UNFETCHABLE = re.compile(r"[#?%\\\t\n\r]|\.\.|[\x00-\x20]\Z")
#: A fast level: archives are small text files, and a higher level takes three times the CPU
#: for about a seventh fewer bytes.
ARCHIVE_LEVEL = 2


#: How SK014 names a character of :data:`LEGACY_UNFETCHABLE` that a message cannot show as it is.
_UNSHOWN = {"\t": "a tab", "\n": "a line break", "\r": "a carriage return", "\\": "a backslash"}


def _unfetchable_part(path: str) -> str:
    """What of ``path`` an older installer cannot fetch (:data:`LEGACY_UNFETCHABLE`), as SK014 says it."""
    found = LEGACY_UNFETCHABLE.search(path)
    part = found.group() if found is not None else ""
    if len(part) == 1 and part <= " " and part not in _UNSHOWN:   # only at its end
        return "ends with a space or a control character"
    return f"holds {_UNSHOWN.get(part) or repr(part)}"


def listable(name: str, description: str) -> bool:
    """Installers accept only specification names and descriptions up to 1,024 characters; and a
    name the legacy copies and the archive cannot be named by (:func:`unwritable_name`) is not listed."""
    return specification_name(name, description) and unwritable_name(name) is None


def specification_name(name: str, description: str) -> bool:
    """Whether installers accept ``name`` and ``description``: a specification name, and 1 to 1,024 characters."""
    return bool(NAME_PATTERN.match(name)) and len(name) <= 64 and 0 < len(description) <= 1024


def unwritable_name(name: str) -> str | None:
    """Why no discovery path can be named by ``name`` (``.well-known/skills/aux/``,
    ``archives/con.tar.gz``, the folder installers install it to), or None: a Windows device name
    (:func:`~skillsite.agent.manifest_check.path_problem`; in a specification name, with any
    extension), which ``skillsite verify`` and the loader refuse in a path."""
    return path_problem(name)


def skipped_by_installers(diagnostics: Sequence[Diagnostic]) -> bool:
    """Whether installers that read YAML strictly skip a skill whose reading said ``diagnostics``
    (SK016): neither discovery index lists it, and it takes no name there from a later skill."""
    return any(d.code == "SK016" for d in diagnostics)


def archive_suffix(paths: Iterable[str]) -> str:
    """The kind of discovery archive of a skill with bundled ``paths``: ``.tar.gz`` when each fits
    a USTAR header, else ``.zip`` (see the module's docstring)."""
    return ".tar.gz" if all(fits_ustar(path) for path in paths) else ".zip"


def archive_path(name: str, paths: Iterable[str] = ()) -> str:
    """The site path of the archive of the skill listed under ``name`` with bundled ``paths``."""
    return f"{ARCHIVE_DIR}/{name}{archive_suffix(paths)}"


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


def deterministic_archive(members: Sequence[tuple[str, bytes]], mtime: int) -> bytes:
    """The discovery archive of ``(archive path, content)`` pairs: of the kind
    :func:`archive_suffix` names for their paths."""
    if archive_suffix(name for name, _ in members) == ".tar.gz":
        return deterministic_tar_gz(members, mtime)
    return deterministic_zip(members, mtime)


def deterministic_tar_gz(members: Sequence[tuple[str, bytes]], mtime: int) -> bytes:
    """A .tar.gz of ``(archive path, content)`` pairs that depends only on them and ``mtime``.

    ValueError when a name does not fit a USTAR header.
    """
    out = io.BytesIO()
    # gzip's header holds 32 bits of time; 0 means "none" (for a SOURCE_DATE_EPOCH past 2106)
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, compresslevel=ARCHIVE_LEVEL,
                       mtime=mtime if mtime < 2 ** 32 else 0) as compressed:
        # names in utf-8 (what fits_ustar counts), whatever the platform's file system encoding is
        with tarfile.open(fileobj=compressed, mode="w", format=tarfile.USTAR_FORMAT, encoding="utf-8") as tar:
            for name, data in sorted(members, key=lambda member: member[0]):
                tar.addfile(_member(name, len(data), mtime), io.BytesIO(data))
    return out.getvalue()


#: The first and last times a zip header holds: MS-DOS dates count years from 1980 in 7 bits.
ZIP_FIRST, ZIP_LAST = calendar.timegm((1980, 1, 1, 0, 0, 0)), calendar.timegm((2107, 12, 31, 23, 59, 58))


def zip_date_time(mtime: int) -> tuple[int, int, int, int, int, int]:
    """``mtime`` (seconds since 1970) as a zip header's date and time, in UTC (a zip holds no time
    zone: the builder's own would make the bytes depend on it).  A time before 1980 or after 2107
    cannot be written: it is clamped to the nearest one that can (a SOURCE_DATE_EPOCH of 0 is
    1980-01-01); the seconds are even ones, as a zip holds them."""
    year, month, day, hour, minute, second = time.gmtime(min(max(mtime, ZIP_FIRST), ZIP_LAST))[:6]
    return year, month, day, hour, minute, second - second % 2


def deterministic_zip(members: Sequence[tuple[str, bytes]], mtime: int) -> bytes:
    """A .zip of ``(archive path, content)`` pairs that depends only on them and ``mtime`` (and
    zlib's deflate, as the .tar.gz's gzip does): members sorted, deflated at :data:`ARCHIVE_LEVEL`,
    each a regular file of mode 0644 made on Unix, the date and time of :func:`zip_date_time`; no
    comment, no extra fields, no data descriptors (the file is written in memory: it can seek);
    names in utf-8, flagged so when not ASCII (zipfile's own rule)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, mode="w") as archive:
        for name, data in sorted(members, key=lambda member: member[0]):
            info = zipfile.ZipInfo(name, zip_date_time(mtime))
            info.create_system = 3                      # Unix: else zipfile takes the platform's (0 on Windows)
            info.external_attr = 0o100644 << 16         # a regular file, rw-r--r--
            # a ZipInfo given takes no compression from the ZipFile: both are given here
            archive.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED, compresslevel=ARCHIVE_LEVEL)
    return out.getvalue()


def discovery_entry(name: str, description: str, kind: str, url: str, sha256: str,
                    version: str | None = None) -> dict[str, str]:
    """One skill in the discovery index; ``sha256`` (hex) is the listed artifact's; ``version``
    (canonical) when the skill has a semantic version."""
    entry = {"name": name, "type": kind, "description": description, "url": url, "digest": "sha256:" + sha256}
    return entry if version is None else {**entry, "version": version}


def index_document(entries: list[Any]) -> dict[str, Any]:
    """The v0.2 index of its rows (:func:`~skillsite.publish.composed_json.composed_json`'s document)."""
    return {"$schema": DISCOVERY_SCHEMA, "skills": entries}


def legacy_document(entries: list[Any]) -> dict[str, Any]:
    """The v0.1 index of its rows: ``{"skills": [{name, description, files}]}``."""
    return {"skills": entries}


#: A file the v0.1 index lists: (site path under .well-known/skills, sha256, published path).
LegacyCopy = tuple[str, str, str]


@dataclass(frozen=True, slots=True)
class EntryListing:
    """What the discovery indexes make of one entry, whatever the other entries are: made when
    its skill is published and kept with its publication in the cache (#47: a rebuild takes the
    unchanged skills' rows as they were, instead of encoding every row again).  ``legacy``: its
    row of the v0.1 index and the copies of its files there (None: not listable); ``row``: its
    row of the v0.2 index, naming the archive whose sha256 is ``archive`` (None: its SKILL.md)."""

    listable: bool
    too_long: str | None        # its first bundled path too long for a USTAR header (SK010: a .zip)
    unfetchable: str | None     # its first bundled path a v0.1 reader cannot fetch (SK014)
    legacy: tuple[str, tuple[LegacyCopy, ...]] | None
    archive: str | None = None
    row: str | None = None

    @classmethod
    def of(cls, entry: ManifestEntry, archive: str | None) -> EntryListing:
        """The listing of ``entry``, its v0.2 row naming ``archive`` (see :func:`discovery_row`)."""
        if not listable(entry.name, entry.description):
            return cls(False, None, None, None, archive)
        paths = ["SKILL.md", *(f.path for f in entry.files)]
        shas = {"SKILL.md": entry.sha256, **{f.path: f.sha256 for f in entry.files}}
        copies = tuple((f"{LEGACY_DIR}/{entry.name}/{path}", shas[path], f"skills/{entry.id}/{path}")
                       for path in paths)
        return cls(True, next((f.path for f in entry.files if not fits_ustar(f.path)), None),
                   legacy_unfetchable(entry),
                   (row_json({"name": entry.name, "description": entry.description, "files": paths}), copies),
                   archive, row_json(discovery_row(entry, archive)))

    def to_json(self) -> list[Any]:
        return [self.listable, self.too_long, self.unfetchable, self.legacy, self.archive, self.row]

    @classmethod
    def from_json(cls, value: list[Any]) -> EntryListing:
        listable, too_long, unfetchable, legacy, archive, row = value
        if legacy is not None:
            legacy = (legacy[0], tuple((site, sha, published) for site, sha, published in legacy[1]))
        return cls(listable, too_long, unfetchable, legacy, archive, row)


@dataclass(frozen=True)
class DiscoveryIndexes:
    """The v0.2 index's rows, the v0.1 index's and the copies of skill files the v0.1 index lists
    (:func:`~skillsite.publish.composed_json.row_json` each, kept by ``serve`` with each entry)."""

    rows: list[str]
    legacy_rows: list[str]
    legacy_copies: list[LegacyCopy]

    def index_json(self) -> bytes:
        """``.well-known/agent-skills/index.json``'s bytes."""
        return composed_json(index_document, self.rows)

    def legacy_json(self) -> bytes:
        """``.well-known/skills/index.json``'s bytes."""
        return composed_json(legacy_document, self.legacy_rows)


def discovery_index(entries: Sequence[ManifestEntry], archives: dict[str, str], shown: dict[str, str],
                    refused: frozenset[str] = frozenset(), listings: Sequence[EntryListing | None] = (),
                    claims: Sequence[int] | None = None) -> tuple[DiscoveryIndexes, list[Diagnostic], frozenset[str]]:
    """The discovery indexes of the published ``entries`` (``archives``: site path -> sha256 of each
    archive made; ``shown``: each skill's SKILL.md path as diagnostics show it; ``refused``: the
    ids of skills whose SKILL.md installers skip, which SK016 named), the notes on skills it
    cannot list (a name listed already: SK212, a file the legacy index cannot offer: SK014) or
    lists with a .zip (a path too long for a tar header: SK010), and the ids of the skills it lists
    (``npx skills add --skill NAME`` installs those, and only those, by their names).  Under each
    name, the first entry in ``claims`` order (their positions,
    :func:`~skillsite.source.copies.name_claim_order`; None: theirs) that is no copy and no refused
    one takes it, in both indexes (the v0.1 one leaves it out when it has a file a v0.1 reader
    cannot fetch); the rows are in the entries' order.
    ``listings``: each entry's :class:`EntryListing` as its publication holds it (None, or none
    given: made here), its row taken when it names the archive listed under its name: only a
    changed skill's rows are encoded."""
    made = list(itertools.islice(itertools.chain(listings, itertools.repeat(None)), len(entries)))
    listed: dict[int, EntryListing] = {}          # the listed entries' listings, by position
    diags: list[Diagnostic] = []
    names: set[str] = set()                       # the names the v0.2 index has taken
    for at in claims if claims is not None else range(len(entries)):
        entry = entries[at]
        if entry.visibility.copy_of is not None:  # a copy of another skill is listed as that one
            continue
        if entry.id in refused:
            continue
        if specification_name(entry.name, entry.description) and (why := unwritable_name(entry.name)) is not None:
            diags.append(make("SK024", f"name {why}, which no Windows file system holds as a path: skill not listed in "
                                       ".well-known/agent-skills or .well-known/skills, whose paths are named by it",
                              shown[entry.id]))
            continue
        listing = made[at] if made[at] is not None else EntryListing.of(entry, _archive(entry, archives))
        if not listing.listable:
            continue
        if entry.name in names:
            diags.append(make("SK212", f"name '{entry.name}' is already in the discovery index; skill "
                                       f"'{entry.id}' is not listed there", shown[entry.id],
                              severity=Severity.INFO))
            continue
        names.add(entry.name)
        if listing.too_long is not None:
            diags.append(make("SK010", f"bundled file '{listing.too_long}' has a path too long for a tar header "
                                       "(USTAR: 100 bytes, or 255 split at a '/'): the skill's discovery archive is a "
                                       ".zip, not a .tar.gz", shown[entry.id]))
        listed[at] = listing
        if listing.unfetchable is not None:
            file, part = listing.unfetchable, _unfetchable_part(listing.unfetchable)
            diags.append(make("SK014", f"bundled file '{file}' {part}, which older installers cannot fetch: skill "
                                       "listed in .well-known/agent-skills only, not in the legacy .well-known/skills "
                                       "index", shown[entry.id]))
    return _indexes(entries, archives, listed), diags, frozenset(entries[at].id for at in listed)


def _indexes(entries: Sequence[ManifestEntry], archives: dict[str, str], listed: dict[int, EntryListing]
             ) -> DiscoveryIndexes:
    """The indexes listing the entries at the positions of ``listed`` (with their listings), in
    the entries' order; a row naming another archive than the one listed under its name (made
    under a name it did not own) made again."""
    rows: list[str] = []
    legacy: list[tuple[str, tuple[LegacyCopy, ...]]] = []
    for at in sorted(listed):
        listing, archive = listed[at], _archive(entries[at], archives)
        rows.append(listing.row if listing.archive == archive else EntryListing.of(entries[at], archive).row)
        if listing.unfetchable is None:
            legacy.append(listing.legacy)
    return DiscoveryIndexes(rows, [row for row, _ in legacy], [copy for _, copies in legacy for copy in copies])


def _archive(entry: ManifestEntry, archives: dict[str, str]) -> str | None:
    """The sha256 of the archive the v0.2 index lists for ``entry`` (``archives``: see
    :func:`discovery_index`): the one made under its name when it has bundled files, else none."""
    return archives.get(archive_path(entry.name, (f.path for f in entry.files))) if entry.files else None


def discovery_row(entry: ManifestEntry, archive: str | None) -> dict[str, str]:
    """A listed entry's row of the v0.2 index: its archive (``archive``: its sha256) when it has
    bundled files, else its SKILL.md."""
    version = canonical_version(entry.version)
    if archive is not None:
        url = f"archives/{entry.name}{archive_suffix(f.path for f in entry.files)}"
        return discovery_entry(entry.name, entry.description, "archive", url, archive, version)
    return discovery_entry(entry.name, entry.description, "skill-md", "../../" + entry.urls.skill_md,
                           entry.sha256, version)


def legacy_unfetchable(entry: ManifestEntry) -> str | None:
    """The first bundled file of ``entry`` a v0.1 reader cannot fetch, or None."""
    return next((f.path for f in entry.files if LEGACY_UNFETCHABLE.search(f.path)), None)


def listable_originals(entries: Sequence[ManifestEntry]) -> list[ManifestEntry]:
    """The entries the v0.1 index could list under their names: listable, and no copy of another
    (which one it lists also depends on what installers skip, which a manifest does not say)."""
    return [e for e in entries if listable(e.name, e.description) and e.visibility.copy_of is None]
