"""The ``skills.json`` manifest: one entry per published skill (a
:class:`~skillsite.agent.entry.ManifestEntry`, written with its ``to_json``), digests, counts,
site info.  Above ``shard_above`` skills it is published paged (:func:`paged_manifest_files`,
the layout :mod:`skillsite.agent.manifest_pages` describes)."""
from __future__ import annotations

import functools
import hashlib
import json
import os
from dataclasses import dataclass
from typing import Any, Generator, Iterable, Iterator, Protocol, Sequence
from urllib.parse import quote

from skillsite import __version__
from skillsite.config import SiteConfig
from skillsite.agent.catalog_format import (FORMAT, MANIFEST_NAME, PAGED_FORMAT_VERSION, WHOLE_FORMAT_VERSION,
                                           text_bytes)
from skillsite.agent.commands import command_name
from skillsite.agent.entry import (CODEX_POLICY, DEFAULT_VISIBILITY, HIDING_KEYS, NO_REQUIREMENTS, NO_TRIGGERS,
                                   PLATFORMS, DependencyRecord, EntryRequirements, EntrySize, EntrySource, EntryUrls,
                                   EntryWarning, FileRecord, KnowledgeRecord, ManifestEntry, ToolRecord, Triggers,
                                   Visibility, shared)
from skillsite.agent.manifest_pages import (COMMANDS_FROM_IDS, ENTRY_FILE as ENTRY_JSON, INDEX_FORMAT, PAGE_FORMAT,
                                            FileRef, PageRecord, entry_path, index_url, page_url)
from skillsite.agent.triggers import TRIGGER_KINDS
from skillsite.agent.skill_md import skill_body
from skillsite.agent.site_urls import SKILL_FOLDER_FILES, VERSIONS_FILE, VERSIONS_FOLDER, url_of
from skillsite.agent.spellings import one_spelling
from skillsite.models import Skill, read_skill_md
from skillsite.source.checks import estimate_tokens
from skillsite.source.versioning import canonical_version

SCHEMA_FILE = "skills.schema.json"
PAGE_FILE = "index.html"
XML_FILE = "skill.xml"
ENTRY_FILE = "entry.xml"
PROVIDER_INDEX_FILE = "index.json"   # the static provider layout's per-skill listing
#: What the catalog writes in every skill's folder (a paged catalog writes its entry file too), its
#: SKILL.md among them (a bundled folder so named, beside a skill.md, would need its place: SK021).
RESERVED_NAMES = SKILL_FOLDER_FILES - {ENTRY_JSON} | {"SKILL.md"}


@functools.lru_cache(maxsize=8)
def _spellings(names: frozenset[str]) -> frozenset[str]:
    return frozenset(map(one_spelling, names))


def _first_name(path: str) -> str:
    """The first name of ``path`` in :func:`~skillsite.agent.spellings.one_spelling`: a bundled
    ``Skill.md`` is the catalog's ``SKILL.md`` on macOS and Windows, and would be written over it."""
    first = path.split("/", 1)[0]
    return first if first.isascii() and first.islower() else one_spelling(first)


def is_versions_path(path: str) -> bool:
    """Whether a path in a versioned skill's folder is in the place of what the catalog writes
    there (its releases: ``versions.json``, ``versions/``), as a file or below a folder so named,
    in any case or Unicode form."""
    return _first_name(path) in (VERSIONS_FILE, VERSIONS_FOLDER)


def is_reserved_path(path: str, reserved: frozenset[str]) -> bool:
    """Whether a path in a skill's folder is in the place of a file the catalog writes there
    (:func:`reserved_names`), as that file or below a folder so named, in any case or Unicode form."""
    return _first_name(path) in _spellings(reserved)


def is_paged(skills: int, config: SiteConfig) -> bool:
    """Whether a catalog of ``skills`` published skills is published in pieces (``shard_above``)."""
    return skills > config.shard_above


def reserved_names(paged: bool) -> frozenset[str]:
    """Names in a skill's folder that the catalog writes itself (a paged one: its entry file too)."""
    return RESERVED_NAMES | {ENTRY_JSON} if paged else RESERVED_NAMES


def page_size(config: SiteConfig, most: int) -> int:
    """Items on a page of a paged catalog: ``most``, or fewer when ``shard_above`` is lower (a
    piece never holds more than a catalog that is not cut into pieces)."""
    return max(1, min(most, config.shard_above))


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def folder_digest(files: Sequence[tuple[str, str]]) -> str:
    """``sha256:`` of the lines ``<sha256 hex>  <path>\\n`` of every file, sorted by path."""
    listing = "".join(f"{sha}  {path}\n" for path, sha in sorted(files))
    return "sha256:" + sha256_hex(listing.encode("utf-8"))


def canonical_json(data: Any) -> bytes:
    """Sorted keys, no spaces, UTF-8: the bytes that catalog digests are computed over."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def skill_dir_url(skill_id: str) -> str:
    """Site-relative, percent-encoded URL of a skill's folder (``skills/a/b/``)."""
    return url_of(f"skills/{skill_id}/")


def source_links(config: SiteConfig, source_path: str) -> tuple[str | None, str | None]:
    """Browse and edit URLs of a SKILL.md in the repository, when ``repo_url`` is configured."""
    if not config.repo_url or source_path.startswith("../"):
        return None, None
    repo = config.repo_url.rstrip("/")
    path = url_of(source_path)
    branch = quote(config.branch, safe="")  # one segment: a "/" in it is encoded
    return f"{repo}/blob/{branch}/{path}", f"{repo}/edit/{branch}/{path}"


def source_path(skill: Skill, base: str) -> str:
    """The SKILL.md path relative to the project folder (the config file's folder, or the cwd)."""
    root = os.path.relpath(os.path.abspath(skill.source.root), base).replace(os.sep, "/")
    return skill.source.rel_path if root == "." else f"{root}/{skill.source.rel_path}"


def skill_entry(skill: Skill, files: Sequence[FileRecord], skill_md_sha: str, children: Sequence[str],
                config: SiteConfig, base: str, *, command: str | None = None, conflicts: Sequence[str] = (),
                dependencies: Sequence[DependencyRecord] = (), knowledge: Sequence[dict[str, Any]] = (),
                interface: dict[str, Any] | None = None, skill_md: bytes | None = None) -> ManifestEntry:
    """The manifest entry of one skill (see ``skills.schema.json``); ``command`` (default: its
    own; none for a skill that says ``user-invocable: false``), ``conflicts`` (ids),
    ``dependencies`` (resolved) and ``knowledge`` (document records) are worked out over the
    whole catalog; ``interface`` is
    what Codex's agents/openai.yaml says to show; ``skill_md``: the SKILL.md's bytes, when read already."""
    folder = skill_dir_url(skill.id)
    path = source_path(skill, base)
    url, edit_url = source_links(config, path)
    req = skill.requirements
    return ManifestEntry(
        id=skill.id, name=skill.name, description=skill.description, version=skill.version,
        license=skill.license, compatibility=skill.compatibility, tags=tuple(skill.tags),
        allowed_tools=tuple(skill.allowed_tools), metadata=skill.metadata,
        tools=tuple(ToolRecord(t["name"], t["purpose"], t["required"]) for t in skill.tools),
        parameters=tuple(dict(p) for p in skill.parameters), examples=tuple(skill.examples),
        priority=skill.priority,
        visibility=shared(Visibility(skill.hidden, skill.user_invocable_only, skill.always, skill.user_invocable,
                                     hidden_by(skill)), DEFAULT_VISIBILITY),
        command=(command or command_name(skill.id)) if skill.user_invocable else None,
        triggers=skill_triggers(skill),
        conflicts=tuple(conflicts), dependencies=tuple(dependencies),
        knowledge=tuple(KnowledgeRecord(**k) for k in knowledge),
        interface=dict(interface) if interface else None,
        requirements=shared(EntryRequirements(tuple(req.bins), tuple(req.env),
                                              tuple(p for p in req.platforms if p in PLATFORMS)), NO_REQUIREMENTS),
        parent=skill.parent_id, children=tuple(children), files=tuple(files), sha256=skill_md_sha,
        digest=folder_digest([("SKILL.md", skill_md_sha)] + [(f.path, f.sha256) for f in files]),
        source=EntrySource(path, url, edit_url),
        urls=EntryUrls(page=folder, skill_md=folder + "SKILL.md", xml=folder + XML_FILE, files=folder),
        versions_url=folder + VERSIONS_FILE if canonical_version(skill.version) is not None else None,
        size=body_size(skill, skill_md), extra=dict(skill.extra),
        warnings=tuple(EntryWarning(d.code, d.severity.value, d.message, d.line)
                       for d in sorted(skill.diagnostics, key=lambda d: (d.line, d.col, d.code, d.message))))


def skill_triggers(skill: Skill) -> Triggers:
    """A skill's triggers as its manifest entry has them: every kind, those it does not declare empty."""
    return shared(Triggers(**{kind: tuple(skill.triggers.get(kind, ())) for kind in TRIGGER_KINDS}), NO_TRIGGERS)


def hidden_by(skill: Skill) -> str | None:
    """The frontmatter key that hid a hidden skill (the first of :data:`HIDING_KEYS` set true),
    else the Codex policy that did (:data:`CODEX_POLICY`)."""
    if not skill.hidden:
        return None
    return next((key for key in HIDING_KEYS if skill.frontmatter.get(key) is True), CODEX_POLICY)


def body_size(skill: Skill, skill_md: bytes | None = None) -> EntrySize:
    """SKILL.md's bytes (``skill_md``, else read again), and its body's characters, lines and
    estimated tokens."""
    raw = read_skill_md(skill) if skill_md is None else skill_md
    body = skill_body(raw)
    lines = body.count("\n") + (1 if body and not body.endswith("\n") else 0)
    return EntrySize(len(raw), len(body), lines, estimate_tokens(body))


def entries_json(entries: Sequence[ManifestEntry]) -> list[dict[str, Any]]:
    """The entries as ``skills.json`` holds them: made for the digest and the files that hold
    them, and dropped with those (never kept beside every entry for the whole build)."""
    return [e.to_json() for e in entries]


class CatalogDigest:
    """``skills.json``'s ``digest``: the sha256 of the canonical JSON of its list of skill
    entries, fed one entry at a time (so a paged catalog's entries are made JSON a page at a time)."""

    def __init__(self) -> None:
        self._sha = hashlib.sha256(b"[")
        self._empty = True

    def add(self, entries: Iterable[dict[str, Any]]) -> None:
        """The next entries, in the manifest's order."""
        self.add_canonical(canonical_entries(entries))

    def add_canonical(self, entries: bytes) -> None:
        """The next entries as :func:`canonical_entries` gives them (kept from an earlier build)."""
        if entries:
            self._sha.update(entries if self._empty else b"," + entries)
            self._empty = False

    @property
    def value(self) -> str:
        """``sha256:<hex>`` of every entry added so far."""
        sha = self._sha.copy()
        sha.update(b"]")
        return "sha256:" + sha.hexdigest()


def canonical_entries(entries: Iterable[dict[str, Any]]) -> bytes:
    """Entries as the catalog's digest reads them: the canonical JSON of each, comma-separated."""
    return b",".join(canonical_json(entry) for entry in entries)


def catalog_digest(entries: Iterable[dict[str, Any]]) -> str:
    """``skills.json``'s ``digest`` of its entries as JSON (:func:`entries_json`)."""
    digest = CatalogDigest()
    digest.add(entries)
    return digest.value


def manifest_bytes(data: dict[str, Any], entries: list[dict[str, Any]]) -> bytes:
    """``skills.json``'s bytes (:func:`manifest`'s object with ``entries``, its entries as
    JSON): compact JSON (programs read it) and a newline."""
    return compact_json({**data, "skills": entries})


def compact_json(data: Any) -> bytes:
    """Compact JSON and a newline, as ``skills.json`` is written (programs read it)."""
    return (json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


@dataclass(frozen=True)
class MadePage:
    """A page of a paged ``skills.json`` after the root, as made: its record in the root, the
    site path and sha256 of each of its skills' entry files, and its entries as the catalog's
    digest reads them (:func:`canonical_entries`)."""

    record: PageRecord
    entry_files: tuple[tuple[str, str], ...]
    canonical: bytes

    def files(self) -> list[tuple[str, str]]:
        """Every file of the page, (site path, sha256): its entry files, the page and its index."""
        return [*self.entry_files, (self.record.entries.url, self.record.entries.sha256),
                (self.record.index.url, self.record.index.sha256)]

    def to_json(self) -> dict[str, Any]:
        return {"record": self.record.to_json(), "entry_files": [list(f) for f in self.entry_files],
                "canonical": self.canonical.decode("utf-8")}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MadePage:
        return cls(PageRecord.from_json(data["record"], "a stored page"),
                   tuple((rel, sha) for rel, sha in data["entry_files"]), data["canonical"].encode("utf-8"))


class PageStore(Protocol):
    """Pages made by an earlier build, by the position of their entries in the manifest."""

    def taken(self, number: int, start: int, stop: int) -> MadePage | None:
        """Page ``number`` (entries ``start:stop``) as an earlier build made it, its files taken
        as they are; None when it must be made."""

    def made(self, number: int, start: int, stop: int, page: MadePage) -> None:
        """Page ``number`` was made (its files yielded): keep it for the next build."""


def page_bounds(ids: Sequence[str], start: int, size: int, most: int | None = None) -> Iterator[tuple[int, int]]:
    """The ``(start, stop)`` of each page of the entries of ``ids`` from ``start`` on: pages of
    ``size`` entries when ``most`` is None or ``size``; else pages that end where their content
    says, as a content-defined chunker cuts a file.  A page holds ``size // 2`` entries at least
    and ``most`` at the most; in between it ends after an id whose hash is a multiple of
    ``size`` while it holds fewer than ``size`` entries, of ``size // 8`` once it holds more
    (FastCDC's normalised chunking: pages near ``size``, few cut at ``most``).  A skill added or
    removed then changes its own page alone (now and then the next too), not every page after
    it, and the build writes those again, not all of them (nor must a static host upload them,
    or an agent's cache fetch them again)."""
    most = size if most is None else most
    least = size if most <= size else max(1, size // 2)
    before, after = size, max(1, size // 8)   # a cut: 1 in ``size`` ids below ``size`` entries, 8 in it above
    begin = start
    for index in range(start, len(ids)):
        length = index + 1 - begin
        if length >= most or length >= least and _id_hash(ids[index]) % (before if length < size else after) == 0:
            yield begin, index + 1
            begin = index + 1
    if begin < len(ids):
        yield begin, len(ids)


def _id_hash(skill_id: str) -> int:
    """A skill id's hash for :func:`page_bounds`: the same in every process and Python version."""
    return int.from_bytes(hashlib.sha256(skill_id.encode("utf-8", "surrogatepass")).digest()[:8], "big")


def paged_manifest_files(data: dict[str, Any], entries: Sequence[ManifestEntry], size: int, root_size: int,
                         digest: CatalogDigest, store: PageStore | None = None,
                         most: int | None = None) -> Iterator[tuple[str, bytes]]:
    """A paged ``skills.json`` (:func:`manifest`'s object and its typed entries): (site path,
    bytes) of every entry file, then of each page (:func:`page_bounds`: ``size`` entries, or
    about as many, up to ``most``, where the entries' ids say) and its index, and last of
    the root (page 1, of ``root_size`` entries), which names them all.  The entries are made JSON
    a page at a time, fed to ``digest`` on the way: the root gets its value.  A page that
    ``store`` holds is taken from it, its files not yielded."""
    ids = [e.id for e in entries]
    if any(a >= b for a, b in zip(ids, ids[1:])):
        raise ValueError("a paged catalog needs its skills in ascending id order (lookups bisect the pages)")
    first = entries_json(entries[:root_size])
    digest.add(first)
    records = []
    for number, (start, stop) in enumerate(page_bounds(ids, root_size, size, most), start=2):
        page = store.taken(number, start, stop) if store is not None else None
        if page is None:
            page = yield from _page_files(number, entries_json(entries[start:stop]))
            if store is not None:
                store.made(number, start, stop, page)
        digest.add_canonical(page.canonical)
        records.append(page.record)
    for entry in first:
        yield entry_path(entry["id"]), compact_json(entry)
    yield MANIFEST_NAME, compact_json(paged_root({**data, "digest": digest.value}, first, records))


def _page_files(number: int, entries: list[dict[str, Any]]) -> Generator[tuple[str, bytes], None, MadePage]:
    """The entry files of a page's skills, the page and its index (yielded); what was made (returned)."""
    rows, entry_files = [], []
    for entry in entries:
        body = compact_json(entry)
        rel = entry_path(entry["id"])
        yield rel, body
        entry_files.append((rel, sha256_hex(body)))
        rows.append(index_row(entry, entry_files[-1][1]))
    page = compact_json({"format": PAGE_FORMAT, "format_version": PAGED_FORMAT_VERSION, "page": number,
                         "skills": entries})
    index = compact_json({"format": INDEX_FORMAT, "format_version": PAGED_FORMAT_VERSION, "page": number,
                          "commands": COMMANDS_FROM_IDS, "skills": rows})
    yield page_url(number), page
    yield index_url(number), index
    record = PageRecord(number, FileRef(page_url(number), sha256_hex(page), len(page)),
                        FileRef(index_url(number), sha256_hex(index), len(index)), len(rows), rows[0]["id"],
                        rows[-1]["id"])
    return MadePage(record, tuple(entry_files), canonical_entries(entries))


def index_row(entry: dict[str, Any], entry_sha256: str) -> dict[str, Any]:
    """A skill's row in its page's index: id, name, the sha256 of its entry file, and its
    command unless that is its id's and the id is ASCII
    (:data:`~skillsite.agent.manifest_pages.COMMANDS_FROM_IDS`: what another Python makes of a
    letter outside ASCII may differ, as its Unicode version does)."""
    row = {"id": entry["id"], "name": entry["name"], "sha256": entry_sha256}
    command = entry.get("command")
    if command != command_name(entry["id"]) or not entry["id"].isascii():
        row["command"] = command
    return row


def paged_root(data: dict[str, Any], first: list[dict[str, Any]], records: list[PageRecord]) -> dict[str, Any]:
    """The root of a paged ``skills.json``: the whole manifest's keys, the entries of page 1 and
    the list of the other pages (before ``search``, the biggest value, kept where it was)."""
    root = {key: value for key, value in data.items() if key not in ("skills", "search")}
    return {**root, "format_version": PAGED_FORMAT_VERSION, "skills": first,
            "pages": [r.to_json() for r in records], "search": data["search"]}


def indented_json(data: Any) -> bytes:
    """JSON for people to read (the schema, the discovery indexes, the provider listings)."""
    return (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def manifest(entries: Sequence[ManifestEntry], config: SiteConfig, left_out: int,
             generated_at: str | None, search: dict[str, Any] | None, digest: str | None = None,
             signing: dict[str, Any] | None = None) -> dict[str, Any]:
    """The whole ``skills.json`` object, its ``skills`` typed (:func:`manifest_bytes` writes it);
    ``digest``: the :func:`catalog_digest` of the entries (None: set once they are written);
    ``signing``: where a signed catalog's metadata is and its key (a signed build only)."""
    skills = list(entries)
    vis = [e.visibility for e in skills]
    signed = {} if signing is None else {"signing": signing}
    return {
        "$schema": SCHEMA_FILE,
        "format": FORMAT,
        "format_version": WHOLE_FORMAT_VERSION,
        "generator": {"name": "skillsite", "version": __version__},
        "generated_at": generated_at,
        "site": {"title": config.title, "description": config.description, "base_url": config.base_url,
                 "repo_url": config.repo_url, "branch": config.branch},
        **signed,
        "digest": digest,
        "counts": {
            "skills": len(skills),
            "visible": sum(not v.hidden and not v.user_invocable_only for v in vis),
            "hidden": sum(v.hidden for v in vis),
            "user_invocable_only": sum(v.user_invocable_only for v in vis),
            "always": sum(v.always for v in vis),
            "left_out": left_out,
            "files": sum(len(e.files) for e in skills),
            "warnings": sum(len(e.warnings) for e in skills),
            "longest_path_bytes": longest_path_bytes(skills),
        },
        "skills": skills,
        "search": search,
    }


def longest_path_bytes(entries: Sequence[ManifestEntry]) -> int:
    """``counts.longest_path_bytes``: the longest id, nested skill id or bundled file path of any
    entry, in UTF-8 bytes.  A reader with a limit on those (``skillsite mcp``'s) learns from the
    root that no entry is over it, without reading every page."""
    return max((text_bytes(text) for e in entries for text in (e.id, *e.children, *(f.path for f in e.files))),
               default=0)


def absolute(config: SiteConfig, rel_url: str) -> str:
    """A site-relative URL made absolute when ``base_url`` is configured."""
    if not config.base_url:
        return rel_url
    return config.base_url.rstrip("/") + "/" + rel_url
