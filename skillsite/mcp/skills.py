"""The MCP Skills extension (``io.modelcontextprotocol/skills``, SEP-2640) for ``skillsite mcp``.

Every file of every skill is a resource ``skill://<skill path>/<file>`` read with
``resources/read``; ``skills/list`` (paginated) and ``skills/get`` return skill entries
``{uri, frontmatter, resources: [{uri, digest, size}]}``; ``resources/directory/read`` lists a
directory of a skill (declared as ``directoryRead``).  The spec's text is
``specification/stable/skills.mdx`` in modelcontextprotocol/ext-skills.

Choices where the spec leaves room (see README):

- The skill path is the skill's id (``release-manager/changelog``), or ``<id>/<name>`` when the
  id's last folder is not the frontmatter name (the spec wants the name last), unless that is
  another skill's id: then the id, so that both are served.
- Digests and sizes come from the manifest; bytes go out only after ``Catalog`` verified them,
  so a tampered file is an error (-32603), never content.
- ``resources`` is complete: a skill's nested skills are part of its files, as the spec asks
  (SKILL.md first, then by URI).
- A skill over the limits (512 files, 16 MiB) is still listed, complete, with a
  ``_meta["skillsite/limits"]`` note (the ``io.modelcontextprotocol.skills/`` prefix is
  reserved for keys the extension defines).
- An entry whose id, a nested skill's id or a bundled file path is longer than 4,096 bytes
  (``MAX_PATH_BYTES``, longer than any a build makes) is not served at all (cut, it would name
  nothing): the log names it, and the first ``skills/list`` page's ``_meta["skillsite/limits"]``
  counts such entries.
- A listed skill whose SKILL.md fails verification is left out of its ``skills/list`` page and
  named, with the error, in the page's ``_meta["skillsite/omitted"]``; ``skills/get`` of it
  is an error (-32603).
- ``skills/list`` lists the skills offered to a model (not hidden, not user-invocable only);
  the others are a partial listing's unlisted skills: ``skills/get`` and ``resources/read``
  still serve them, as the spec requires for every skill a server serves.  A skill the audit
  rates above the catalog's ``max_risk`` is not listed either (the loader never offers it), nor
  are its files in ``resources/list``; ``skills/get`` and ``resources/read`` of it are errors
  naming the risk (-32603).
- ``frontmatter`` is the SKILL.md's YAML read as plain data (PyYAML's safe scalar rules, the
  build's bounds on nodes, depth and aliases, no tags constructed); a value JSON cannot hold
  (a date, ``.nan``, ``!!binary``) is kept as the text written.  A frontmatter longer than
  16 KiB as compact JSON (``MAX_FRONTMATTER_BYTES``) is given as its name and description only
  (each :func:`bounded_text`), with a ``_meta["skillsite/limits"]`` note: no value is cut
  inside it, and a page of 8 entries stays small (SKILL.md, read whole, has all of it).

The core (:class:`SkillsIndex`) needs no MCP SDK; :mod:`skillsite.mcp.extension` binds it to
``MCPServer(extensions=[...])``, and :func:`skillsite.mcp.server.skills_extension`
makes that binding when the SDK has it.  Frontmatter is read by :mod:`skillsite.mcp.frontmatter`, the
entries checked by :mod:`skillsite.mcp.served_entries`, the files tabled by :mod:`skillsite.mcp.file_tables`.
"""
from __future__ import annotations

import dataclasses
import json
import logging
import mimetypes
import urllib.parse
from typing import Any, Callable, Iterator, NamedTuple

from skillsite.agent.catalog_format import offered_to_model, within_max_risk
from skillsite.agent.entry import ManifestEntry
from skillsite.agent.errors import LoaderError
from skillsite.loader import Catalog
from skillsite.mcp.cursors import OtherBuild, build_of, named_start_text, page_cursor
from skillsite.mcp.file_tables import FileTables, SkillFile, canonical_uri
from skillsite.mcp.frontmatter import FrontmatterError, frontmatter_object
from skillsite.mcp.once import Once
from skillsite.mcp.unfolding import Unfolding
from skillsite.mcp.served_entries import (MAX_TEXT, CheckedEntries, ServedEntries, bounded_text, over_limits_note,
                                         served_entries, wire_text)

EXTENSION = "io.modelcontextprotocol/skills"
MAX_FILES = 512
MAX_BYTES = 16 * 1024 * 1024
PAGE_SIZE = 8          # complete entries per skills/list page: at most 8 x 512 resources
TTL_MS = 300_000       # entries change only when the server opens its catalog again (a new build)
CACHE_SCOPE = "public"  # a published catalog is the same for everyone
LIMITS_META = "skillsite/limits"
OMITTED_META = "skillsite/omitted"
DIRECTORY_MIME = "inode/directory"
#: The longest frontmatter an entry carries, as compact JSON in UTF-8: nine times the longest of
#: the 1,119 SKILL.md of the shared corpus and the examples (1,794 bytes), where a SKILL.md may
#: be as large as the loader reads (64 MiB) and a skills/list page holds 8 entries.  A longer
#: one is given as its name and description only (:func:`bounded_frontmatter`).
MAX_FRONTMATTER_BYTES = 16 * 1024
#: The frontmatter keys an entry over MAX_FRONTMATTER_BYTES keeps (what a host lists a skill by).
SHORT_FRONTMATTER_KEYS = ("name", "description")
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

log = logging.getLogger(__name__)


class SkillsError(Exception):
    """A request the extension refuses, with its JSON-RPC error code."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def error_message(exc: Exception, error_text: Callable[[Exception], str] = str) -> str:
    """An error as the extension sends it, as the tools send theirs: a loader error worded by
    ``error_text`` (``skillsite mcp`` names its own flags), any other as it says, then
    :func:`wire_text` (a catalog path may hold a lone surrogate, which would kill the SDK's writer)."""
    return wire_text(error_text(exc) if isinstance(exc, LoaderError) else str(exc))


def mime_type(path: str) -> str:
    """The MIME type a file is listed with (SKILL.md is ``text/markdown``, as the spec asks)."""
    if path.rsplit("/", 1)[-1] == "SKILL.md":
        return "text/markdown"
    return mimetypes.guess_type(path)[0] or "application/octet-stream"


def wire_content(data: bytes) -> str | bytes:
    """Text when the bytes are UTF-8 (their encoding gives them back exactly), else bytes (a blob)."""
    if b"\x00" in data:
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


class Frontmatter(NamedTuple):
    """A skill's frontmatter as an entry carries it, and the note saying it was shortened (or None)."""

    data: dict[str, Any]
    note: dict[str, Any] | None = None


def json_bytes(value: Any) -> int:
    """The length of ``value`` as compact JSON in UTF-8."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass"))


def bounded_frontmatter(data: dict[str, Any]) -> Frontmatter:
    """``data`` whole when at most MAX_FRONTMATTER_BYTES as JSON; else only its name and
    description (text ones, :func:`bounded_text`) and a note: a SKILL.md may hold megabytes of
    YAML, which every page of skills/list would repeat, and a value cut inside would pass for
    the whole one."""
    size = json_bytes(data)
    if size <= MAX_FRONTMATTER_BYTES:
        return Frontmatter(data)
    short = {key: bounded_text(data[key]) for key in SHORT_FRONTMATTER_KEYS if isinstance(data.get(key), str)}
    return Frontmatter(short, {
        "frontmatterBytes": size, "maxFrontmatterBytes": MAX_FRONTMATTER_BYTES,
        "frontmatterNote": f"the frontmatter is {size:,} bytes as JSON, over the {MAX_FRONTMATTER_BYTES:,} an entry "
                           f"carries: only its name and description are given (each at most {MAX_TEXT:,} "
                           "characters); SKILL.md holds all of it"})


@dataclasses.dataclass(frozen=True)
class _Tables:
    """The whole tables (:meth:`SkillsIndex._make`, every entry checked): what the answers, each made
    from the entries it needs, are the same as."""

    by_id: dict[str, ManifestEntry]                 # skill id -> checked manifest entry
    limits_note: dict[str, Any] | None              # the first skills/list page's note of entries left out
    skills: dict[str, str]                          # SKILL.md URI -> skill id
    resources: dict[str, list[SkillFile]]           # skill id -> every file, nested skills' too
    files: dict[str, SkillFile]                     # resource URI -> file
    listed: list[str]                               # the SKILL.md URIs skills/list lists, in order
    withheld: frozenset[str]                        # the files of skills above max_risk


class SkillsIndex:
    """The skills of a :class:`~skillsite.loader.Catalog` as the extension serves them (``checked``:
    the server's :class:`ServedEntries`, or entries checked already).  Each answer checks the
    entries it needs (:class:`~skillsite.mcp.file_tables.FileTables`): a ``skills/list`` page those
    up to its last skill and the next, ``skills/get`` the skill's and those its path may be of, a
    directory read those whose files may be in it; the properties are the whole tables.
    ``error_text`` words a loader error a ``skills/list`` page names (:func:`error_message`)."""

    def __init__(self, catalog: Catalog, page_size: int = PAGE_SIZE,
                 checked: CheckedEntries | ServedEntries | None = None,
                 reopening_cures: Callable[[LoaderError], bool] = lambda exc: False,
                 error_text: Callable[[Exception], str] = str) -> None:
        if page_size < 1:
            raise ValueError("page_size must be positive")
        self.catalog = catalog
        self.reopening_cures = reopening_cures  # a skill that fails for it fails the page, not just itself
        self.error_text = error_text
        self.page_size = page_size
        self.build = build_of(catalog)   # what its cursors name (a reopened server's are another build's)
        self._served = served_entries(catalog, checked)
        self.file_tables = FileTables(catalog, self._served, reopening_cures)
        self._tables = Once(self._make)
        self._listed = Once(lambda: Unfolding(self._offered_skills(), remake=self._offered_skills))
        self._frontmatter: dict[str, Frontmatter] = {}   # by SKILL.md sha256, as entries carry it

    def _offered_skills(self) -> Iterator[str]:
        """The URI of each skill ``skills/list`` offers, in order."""
        return (uri for uri, skill_id in self.file_tables.new_skills() if self._offered(self._entry_of(skill_id)))

    @property
    def by_id(self) -> dict[str, ManifestEntry]:
        """Skill id -> checked manifest entry, of every entry served."""
        return self._tables().by_id

    @property
    def limits_note(self) -> dict[str, Any] | None:
        """What the first skills/list page says of the entries left out for an id or path too long."""
        return self._tables().limits_note

    @property
    def skills(self) -> dict[str, str]:
        """SKILL.md URI -> skill id."""
        return self._tables().skills

    @property
    def resources(self) -> dict[str, list[SkillFile]]:
        """Skill id -> every file, nested skills' too."""
        return self._tables().resources

    @property
    def files(self) -> dict[str, SkillFile]:
        """Resource URI -> file."""
        return self._tables().files

    @property
    def listed(self) -> list[str]:
        """The SKILL.md URIs ``skills/list`` lists, in order."""
        return self._tables().listed

    @property
    def withheld(self) -> frozenset[str]:
        """The files of skills above ``max_risk``: reading them is refused, so resources/list leaves them out."""
        return self._tables().withheld

    def _make(self) -> _Tables:
        self.file_tables.finish()
        entries, left_out = self._served.all()
        by_id = {e.id: e for e in entries}
        made = self.file_tables
        listed = [uri for uri, sid in made.skills.items() if self._offered(by_id[sid])]
        return _Tables(by_id, over_limits_note(left_out), made.skills, made.resources, made.files, listed,
                       frozenset(made.withheld))

    def _offered(self, entry: ManifestEntry) -> bool:
        """Whether ``skills/list`` lists the skill: offered to a model, and not above ``max_risk``."""
        return offered_to_model(entry) and within_max_risk(entry, self.catalog.max_risk)

    def _entry_of(self, skill_id: str) -> ManifestEntry:
        """The checked entry of a skill the tables hold (checked now if not yet)."""
        entry = self.file_tables.entry(skill_id)
        if entry is None:  # asked only of skills the tables hold, each a served entry
            raise KeyError(skill_id)
        return entry

    # -- entries

    def frontmatter(self, skill_id: str) -> Frontmatter:
        """The skill's frontmatter, read from its verified SKILL.md (once per digest), as
        :func:`bounded_frontmatter` gives it.  A SKILL.md that cannot be read is the loader's error
        (a server that opens its catalog again tells a new build from tampering by it).  A skill
        above ``max_risk`` is the loader's RiskError each time, as ``load`` checks it: the digest
        may be cached from another skill's SKILL.md, the same bytes."""
        entry = self.catalog._usable(self._entry_of(skill_id))
        if entry.sha256 not in self._frontmatter:
            try:
                data = frontmatter_object(self.catalog.load(skill_id).raw)
            except FrontmatterError as exc:
                raise SkillsError(INTERNAL_ERROR, f"skill {skill_id}: {exc}") from None
            self._frontmatter[entry.sha256] = bounded_frontmatter(data)
        return self._frontmatter[entry.sha256]

    def entry(self, uri: str) -> dict[str, Any]:
        """The Skill entry of the skill whose SKILL.md is at ``uri``."""
        skill_id = self.file_tables.skill_at(uri)
        files = None if skill_id is None else self.file_tables.files_of(skill_id)
        if skill_id is None or files is None:
            raise SkillsError(INVALID_PARAMS, f"No skill is served at {uri}")
        frontmatter = self.frontmatter(skill_id)
        skill: dict[str, Any] = {
            "uri": uri,
            "frontmatter": frontmatter.data,
            "resources": [{"uri": f.uri, "digest": f"sha256:{f.sha256}", "size": f.size} for f in files],
        }
        limits = {**_files_note(files), **(frontmatter.note or {})}
        if limits:
            skill["_meta"] = {LIMITS_META: limits}
        return skill

    def _start(self, cursor: str | None) -> int:
        """The offset a ``skills/list`` cursor names: one a page of this build gives, or
        ``str(offset)`` of a later page's first skill (a multiple of the page size, below the
        skills listed); a cursor of another build is refused (:mod:`~skillsite.mcp.cursors`)."""
        if cursor is None:
            return 0
        try:
            offset = _offset(named_start_text(cursor, self.build))
        except OtherBuild as exc:
            raise SkillsError(INVALID_PARAMS, f"invalid skills/list cursor {exc}") from None
        if offset is None or offset < self.page_size or offset % self.page_size or offset >= len(self.catalog) \
                or not self._listed().reaches(offset + 1):
            raise SkillsError(INVALID_PARAMS, f"invalid skills/list cursor {cursor[:40]!r}")
        return offset

    def list_page(self, cursor: str | None) -> dict[str, Any]:
        """One ``skills/list`` page; the cursor is the offset of the next listed skill.  The page
        checks the entries up to its last skill and the next one (for ``nextCursor``)."""
        start = self._start(cursor)
        end = start + self.page_size
        listed = self._listed()
        skills: list[dict[str, Any]] = []
        omitted: list[dict[str, str]] = []
        for uri in listed.between(start, end):
            try:
                skills.append(self.entry(uri))
            except (SkillsError, LoaderError) as exc:  # a SKILL.md that fails verification: said, not skipped
                if isinstance(exc, LoaderError) and not omitted and self.reopening_cures(exc):
                    raise  # a new build published (or the metadata expired): the server opens it and asks again
                log.warning("skills/list: leaving out %s: %s", uri, exc)
                omitted.append({"uri": uri, "error": error_message(exc, self.error_text)})
        result: dict[str, Any] = {"resultType": "complete", "skills": skills, "ttlMs": TTL_MS,
                                  "cacheScope": CACHE_SCOPE}
        meta: dict[str, Any] = {OMITTED_META: omitted} if omitted else {}
        limits_note = over_limits_note(list(self._served.refused().values())) if cursor is None else None
        if limits_note is not None:
            meta[LIMITS_META] = limits_note
        if meta:
            result["_meta"] = meta
        if listed.reaches(end + 1):
            result["nextCursor"] = page_cursor(end, self.build)
        return result

    def get(self, uri: str) -> dict[str, Any]:
        """The ``skills/get`` result (of the URI as the server writes it: :func:`canonical_uri`)."""
        return {"resultType": "complete", "skill": self.entry(canonical_uri(uri)), "ttlMs": TTL_MS,
                "cacheScope": CACHE_SCOPE}

    # -- files and directories

    def read(self, uri: str) -> bytes:
        """A file's bytes, verified by the catalog (LoaderError when they do not match)."""
        file = self.file_tables.file_at(uri)
        if file is None:
            raise SkillsError(INVALID_PARAMS, f"no skill file is served at {uri}")
        return self.catalog.resource(file.skill_id, file.path)

    def directory(self, uri: str) -> list[dict[str, Any]]:
        """The direct children of a skill's folder or subfolder, as Resource metadata (of the
        skills whose files may be there: :meth:`FileTables.around`)."""
        uri = canonical_uri(uri)
        around = [] if uri.endswith("/") else self.file_tables.around(uri)
        if not any(uri == root or uri.startswith(root + "/") for root, _ in around):
            raise SkillsError(INVALID_PARAMS, f"{uri} is not a directory resource")
        files: dict[str, SkillFile] = {}
        for _, found in around:  # a URI's file is the first skill's, as in the whole tables
            for file in found:
                files.setdefault(file.uri, file)
        children: dict[str, dict[str, Any]] = {}
        prefix = uri + "/"
        for file_uri, file in files.items():
            if not file_uri.startswith(prefix):
                continue
            head, _, rest = file_uri[len(prefix):].partition("/")
            child = prefix + head
            name = urllib.parse.unquote(head)
            if rest:
                children.setdefault(child, {"uri": child, "name": name, "mimeType": DIRECTORY_MIME})
            else:
                children[child] = {"uri": child, "name": name, "mimeType": mime_type(file.path)}
        if not children:
            raise SkillsError(INVALID_PARAMS, f"{uri} is not a directory resource")
        return [children[key] for key in sorted(children)]


def _offset(cursor: Any) -> int | None:
    """The number a cursor is, written as a page gives it (ASCII digits, no sign or leading zero,
    no longer than any offset of a catalog), else None."""
    if not (isinstance(cursor, str) and cursor.isascii() and cursor.isdigit() and len(cursor) <= 18):
        return None
    return int(cursor) if cursor == str(int(cursor)) else None


def _files_note(files: list[SkillFile]) -> dict[str, Any]:
    """What an entry's limits note says of a skill over the extension's limits on files ({} when within)."""
    total = sum(f.size for f in files)
    if len(files) <= MAX_FILES and total <= MAX_BYTES:
        return {}
    return {"files": len(files), "bytes": total, "maxFiles": MAX_FILES, "maxBytes": MAX_BYTES,
            "note": f"this skill has {len(files)} files and {total:,} bytes, over the extension's limits "
                    f"({MAX_FILES} files, {MAX_BYTES:,} bytes): a host need not load it; listed complete"}
