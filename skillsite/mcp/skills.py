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
makes that binding when the SDK has it.  Frontmatter is read by :mod:`skillsite.mcp.frontmatter`.
"""
from __future__ import annotations

import dataclasses
import json
import logging
import mimetypes
import re
import threading
import urllib.parse
from typing import Any, Callable, Generic, Iterator, NamedTuple, TypeVar

from skillsite.agent.catalog_format import offered_to_model, within_max_risk
from skillsite.agent.entry import ManifestEntry
from skillsite.agent.errors import LoaderError
from skillsite.agent.manifest_check import safe_relpath
from skillsite.agent.site_urls import path_of, url_of
from skillsite.loader import Catalog
from skillsite.mcp.frontmatter import FrontmatterError, frontmatter_object

EXTENSION = "io.modelcontextprotocol/skills"
MAX_FILES = 512
MAX_BYTES = 16 * 1024 * 1024
PAGE_SIZE = 8          # complete entries per skills/list page: at most 8 x 512 resources
TTL_MS = 300_000       # the catalog is read once at start: entries never change while serving
CACHE_SCOPE = "public"  # a published catalog is the same for everyone
LIMITS_META = "skillsite/limits"
OMITTED_META = "skillsite/omitted"
DIRECTORY_MIME = "inode/directory"
#: The longest text the server sends of a catalog's entries (a skill's name, description, tag or
#: slash command, the catalog's title): the specification's longest SKILL.md description, 1,024
#: characters.  A longer one goes out as its first 1,023 and "…" (:func:`bounded_text`).
MAX_TEXT = 1024
#: The most tags the server sends of a skill (its first ones): as many as the build's default
#: profile admits in a list (``skill.default.schema.json``).
MAX_TAGS = 64
#: The longest skill id, nested skill id or bundled file path the server takes, in UTF-8 bytes:
#: Linux's PATH_MAX.  A build lists every skill folder and reads every file at a path no longer
#: than that, so no catalog skillsite builds has a longer one.  An entry with a longer one is left
#: out (:func:`checked_entries`), not cut: a cut id or path would name no skill or file, and every
#: listing (the catalog resource, search results, resources/list's URIs) repeats them.
MAX_PATH_BYTES = 4096
#: How much of a left-out entry's id the log and the notes show (characters).
SHOWN_ID = 64
#: The longest frontmatter an entry carries, as compact JSON in UTF-8: nine times the longest of
#: the 1,119 SKILL.md of the shared corpus and the examples (1,794 bytes), where a SKILL.md may
#: be as large as the loader reads (64 MiB) and a skills/list page holds 8 entries.  A longer
#: one is given as its name and description only (:func:`bounded_frontmatter`).
MAX_FRONTMATTER_BYTES = 16 * 1024
#: The frontmatter keys an entry over MAX_FRONTMATTER_BYTES keeps (what a host lists a skill by).
SHORT_FRONTMATTER_KEYS = ("name", "description")
ELLIPSIS = "\u2026"
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

log = logging.getLogger(__name__)
T = TypeVar("T")


class SkillsError(Exception):
    """A request the extension refuses, with its JSON-RPC error code."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


class SkillFile(NamedTuple):
    """One file of a skill, as the manifest records it."""

    uri: str
    skill_id: str   # the skill whose folder holds it (a nested skill's file keeps its own skill)
    path: str       # relative to that folder; "SKILL.md" for the skill's SKILL.md
    sha256: str
    size: int


def skill_root(entry: ManifestEntry) -> str:
    """``skill://<skill path>``: the id, with the name appended when the id does not end with it."""
    path = entry.id if entry.id.rsplit("/", 1)[-1] == entry.name else f"{entry.id}/{entry.name}"
    return "skill://" + url_of(path)


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


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def wire_text(text: str) -> str:
    """``text`` as JSON-RPC in UTF-8 can carry it: each lone surrogate (a JSON escape such as
    ``\\udcff``, which a catalog may hold and no UTF-8 can) as U+FFFD, as the prompt block shows it.
    The SDK's writer fails on one, and the server with it, leaving the client waiting."""
    return _LONE_SURROGATE.sub("\ufffd", text)


def bounded_text(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` as :func:`wire_text`, and when longer than ``limit`` characters cut to ``limit - 1``
    and "…": a catalog may say anything, and every listing would repeat it whole.  The cut is
    between code points, so a character outside the BMP (two UTF-16 units) stays whole; a lone
    surrogate, whole or cut, goes out as U+FFFD."""
    return wire_text(text) if len(text) <= limit else wire_text(text[:limit - 1]) + ELLIPSIS


def _wire_entry(entry: ManifestEntry) -> ManifestEntry:
    """``entry`` with the texts the server sends of it made :func:`wire_text`: its name,
    description and first MAX_TAGS tags :func:`bounded_text` too, and its command (which the
    prompt runs by; :func:`~skillsite.mcp.tools.add_prompt` bounds the name it lists) whole.
    Its id and children are checked to hold no lone surrogate already."""
    tags = tuple(bounded_text(tag) for tag in entry.tags[:MAX_TAGS])
    texts = {"name": bounded_text(entry.name), "description": bounded_text(entry.description), "tags": tags,
             "command": None if entry.command is None else wire_text(entry.command)}
    same = all(texts[key] == getattr(entry, key) for key in texts)
    return entry if same else dataclasses.replace(entry, **texts)


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


class LeftOut(NamedTuple):
    """A catalog entry the server does not serve, and why (the reason bounded, for the log and notes)."""

    id: str                     # as the catalog has it, however long
    reason: str
    over_limits: bool = False   # an id or path over MAX_PATH_BYTES (else a malformed entry)

    @property
    def shown(self) -> str:
        """The id as the log and the notes show it: its first SHOWN_ID characters."""
        return bounded_text(self.id, SHOWN_ID)


def _byte_length(text: str) -> int:
    """``text``'s length in UTF-8 (a lone surrogate counted as the three bytes it escapes to)."""
    return len(text.encode("utf-8", "surrogatepass"))


def _too_long(what: str, text: str) -> str | None:
    """Why ``text`` (an id or path) is refused, or None when it is at most MAX_PATH_BYTES long."""
    size = _byte_length(text)
    if size <= MAX_PATH_BYTES:
        return None
    shown = "" if what == "its id" else f" {bounded_text(text, SHOWN_ID)!r}"
    return f"{what}{shown} is {size:,} bytes, over the {MAX_PATH_BYTES:,} a path of a built catalog can have"


def path_over_limits(entry: ManifestEntry) -> str | None:
    """Why ``entry`` is over the server's limits on ids and paths (MAX_PATH_BYTES), or None."""
    reasons = (_too_long("its id", entry.id), *(_too_long("its nested skill id", c) for c in entry.children),
               *(_too_long("its bundled file path", f.path) for f in entry.files))
    return next((reason for reason in reasons if reason is not None), None)


def _checked(catalog: Catalog, data: Any) -> ManifestEntry | LeftOut:
    """One manifest entry checked (an id over MAX_PATH_BYTES before anything else reads it), or
    what leaves it out."""
    raw_id = data["id"]  # text: the catalog's entries are checked to have one on reading
    if (reason := _too_long("its id", raw_id)) is not None:
        return LeftOut(raw_id, reason, True)
    try:
        entry = catalog.manifest_entry(raw_id)
        safe_relpath(entry.id, "skill id")
    except LoaderError as exc:
        return LeftOut(raw_id, bounded_text(str(exc)))
    reason = path_over_limits(entry)
    return entry if reason is None else LeftOut(entry.id, reason, True)


class CheckedEntries(NamedTuple):
    """What :func:`checked_entries` found: the entries served, and those left out."""

    entries: list[ManifestEntry]
    left_out: list[LeftOut]


class Once(Generic[T]):
    """The value ``make()`` gives, made when first asked for and then kept, whichever thread asks
    first (the SDK answers some requests in worker threads, others in its event loop)."""

    def __init__(self, make: Callable[[], T]) -> None:
        self._make: Callable[[], T] | None = make
        self._value: T | None = None
        self._lock = threading.Lock()

    def __call__(self) -> T:
        if self._make is not None:
            with self._lock:
                if self._make is not None:
                    self._value, self._make = self._make(), None
        return self._value  # type: ignore[return-value]


def _may_be_over_limits(data: dict[str, Any]) -> bool:
    """Whether an entry (unchecked JSON) has an id, nested skill id or bundled file path that may
    be over MAX_PATH_BYTES: one of more than a quarter of that many characters (a character is
    at most 4 bytes in UTF-8).  Any other entry is served or malformed, never over the limits."""
    longest = MAX_PATH_BYTES // 4
    children, files = data.get("children"), data.get("files")
    texts = [data["id"], *(children if isinstance(children, list) else ()),
             *(f.get("path") for f in (files if isinstance(files, list) else ()) if isinstance(f, dict))]
    return any(isinstance(text, str) and len(text) > longest for text in texts)


class ServedEntries:
    """The catalog's entries as the server serves them, each checked (:func:`_checked`) when first
    needed and then kept: a request naming one skill checks that one, a listing every entry
    (:meth:`all`), so start-up checks none.  Each entry left out is logged once, when checked."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._checked: dict[str, ManifestEntry | LeftOut] = {}   # by the id the catalog gives
        self._lock = threading.RLock()
        self.all = Once(self._all)
        self.refused = Once(self._refused)

    def check(self, data: Any) -> ManifestEntry | LeftOut:
        """One manifest entry (its JSON), checked once: served, its texts :func:`wire_text`, or left out."""
        raw_id = data["id"]  # text, unique: the catalog's entries are checked to have one on reading
        with self._lock:
            checked = self._checked.get(raw_id)
            if checked is None:
                checked = _checked(self.catalog, data)
                if isinstance(checked, LeftOut):
                    log.warning("leaving out the manifest entry %r: %s", checked.shown, checked.reason)
                else:
                    checked = _wire_entry(checked)
                self._checked[raw_id] = checked
        return checked

    def _all(self) -> CheckedEntries:
        entries: list[ManifestEntry] = []
        left_out: list[LeftOut] = []
        for data in self.catalog.skills:
            checked = self.check(data)
            (left_out if isinstance(checked, LeftOut) else entries).append(checked)  # type: ignore[arg-type]
        return CheckedEntries(entries, left_out)

    def _refused(self) -> dict[str, LeftOut]:
        """The entries left out for an id or path over MAX_PATH_BYTES, by id: only those whose
        texts may be that long are checked (:func:`_may_be_over_limits`)."""
        checked = [self.check(data) for data in self.catalog.skills if _may_be_over_limits(data)]
        return {item.id: item for item in checked if isinstance(item, LeftOut) and item.over_limits}

    def over_limits(self, id_or_name: str) -> LeftOut | None:
        """Why the skill ``id_or_name`` names is not served for an id or path over MAX_PATH_BYTES,
        or None; LoaderError when the catalog has no such skill or its entry is malformed."""
        checked = self.check(self.catalog.entry(id_or_name))
        return checked if isinstance(checked, LeftOut) and checked.over_limits else None


def served_entries(catalog: Catalog, checked: CheckedEntries | ServedEntries | None) -> ServedEntries:
    """``checked`` when a server's :class:`ServedEntries`, else ones for ``catalog`` (holding ``checked``
    when given: every entry checked already)."""
    if isinstance(checked, ServedEntries):
        return checked
    served = ServedEntries(catalog)
    if checked is not None:
        served.all = Once(lambda: checked)
        served._checked.update((item.id, item) for item in [*checked.entries, *checked.left_out])
    return served


def checked_entries(catalog: Catalog) -> CheckedEntries:
    """The catalog's entries that pass their check, whose id is a safe path and whose ids and
    paths are at most MAX_PATH_BYTES long, their texts :func:`wire_text`; and those left out,
    each with a warning in the log: a malformed or oversized entry spoils only itself.  A server
    checks each entry once, when first needed (:class:`ServedEntries`), and every part serves
    the result, so the log names each entry once."""
    return ServedEntries(catalog).all()


def over_limits_note(left_out: list[LeftOut]) -> dict[str, Any] | None:
    """What a listing says of the entries left out for an id or path over MAX_PATH_BYTES (None
    when there are none): how many, the limit, and the first one."""
    over = [item for item in left_out if item.over_limits]
    if not over:
        return None
    return {"leftOut": len(over), "maxPathBytes": MAX_PATH_BYTES,
            "note": f"{len(over):,} catalog entries left out: an id, nested skill id or bundled file path longer "
                    f"than {MAX_PATH_BYTES:,} bytes (the first: {over[0].shown!r}, {over[0].reason})"}


class FileTables:
    """What :class:`SkillsIndex` serves, made an entry at a time in the catalog's order, as far
    as a reader asks (:meth:`new_files`): ``resources/list`` lists each skill's files as it
    reaches the skill, so its first page checks the entries it shows, not every entry.  A
    skill's files need the entries of its nested skills, and its path the entry whose id it may
    be: those are checked when needed, out of turn (each entry once: :class:`ServedEntries` keeps
    them, and each skill's outcome is kept).  A file or SKILL.md asked for by URI is found the
    same way (:meth:`file_at`, :meth:`skill_at`).  Made whole (:meth:`finish`), the tables are
    what one pass over every entry makes."""

    def __init__(self, catalog: Catalog, served: ServedEntries) -> None:
        self.catalog = catalog
        self.served = served
        self.skills: dict[str, str] = {}                 # SKILL.md URI -> skill id (the first skill's)
        self.resources: dict[str, list[SkillFile]] = {}  # skill id -> every file, nested skills' too
        self.files: dict[str, SkillFile] = {}            # resource URI -> file (the first skill's)
        self.withheld: set[str] = set()                  # the files of skills above max_risk
        self._order: list[str] = []                      # the files' URIs, as made
        self._done = 0                                   # the entries made, of the catalog's
        self._outcomes: dict[str, tuple[str, list[SkillFile]] | None] = {}
        self._ids = Once(lambda: {data["id"]: (place, data) for place, data in enumerate(catalog.skills)})
        self._lock = threading.RLock()

    def entry(self, skill_id: str) -> ManifestEntry | None:
        """The entry served under ``skill_id`` (checked now if not yet), None when none is."""
        found = self._ids().get(skill_id)
        checked = None if found is None else self.served.check(found[1])
        return checked if isinstance(checked, ManifestEntry) else None

    def _root(self, entry: ManifestEntry) -> str:
        """``skill://<skill path>``: :func:`skill_root`, unless its appended path is another
        skill's own (``toolsx`` named ``toolkit`` beside the skill ``toolsx/toolkit``): then the
        id, so that neither hides the other."""
        root = skill_root(entry)
        if root != "skill://" + url_of(entry.id) and self.entry(f"{entry.id}/{entry.name}") is not None:
            log.warning("skills extension: skill %s (named %s) is served at its id: %s is another skill's path",
                        entry.id, entry.name, root)
            root = "skill://" + url_of(entry.id)
        return root

    def _outcome(self, data: dict[str, Any]) -> tuple[str, list[SkillFile]] | None:
        """A served skill's root and files (SKILL.md first, then by URI), once; None for an entry
        left out, or a skill whose files cannot be served (logged)."""
        raw_id = data["id"]
        if raw_id not in self._outcomes:
            entry = self.served.check(data)
            self._outcomes[raw_id] = None if isinstance(entry, LeftOut) else self._files_of(entry)
        return self._outcomes[raw_id]

    def _files_of(self, entry: ManifestEntry) -> tuple[str, list[SkillFile]] | None:
        root = self._root(entry)
        try:
            found = _collect(self.entry, entry, root, set())
        except (LoaderError, ValueError) as exc:
            log.warning("skills extension: leaving out skill %s: %s", entry.id, exc)
            return None
        return root, sorted(found, key=lambda f: (f.uri != root + "/SKILL.md", f.uri))

    def _step(self) -> bool:
        """Make the next entry's part of the tables; False when every entry is made."""
        with self._lock:
            skills = self.catalog.skills
            if self._done >= len(skills):
                return False
            data = skills[self._done]
            outcome = self._outcome(data)
            if outcome is not None:
                root, found = outcome
                self.skills.setdefault(root + "/SKILL.md", data["id"])
                self.resources[data["id"]] = found
                for file in found:
                    if file.uri not in self.files:
                        self._add(file)
            self._done += 1
            return True

    def _add(self, file: SkillFile) -> None:
        """A file the tables did not hold (withheld first: a reader in another thread may list it
        as soon as it is in the order)."""
        owner = self.entry(file.skill_id)
        if owner is None or not within_max_risk(owner, self.catalog.max_risk):
            self.withheld.add(file.uri)
        self.files[file.uri] = file
        self._order.append(file.uri)

    def new_files(self) -> Iterator[str]:
        """Every file's URI, in the tables' order, each made when the reader gets to it."""
        index = 0
        while index < len(self._order) or self._step():
            if index < len(self._order):
                yield self._order[index]
                index += 1

    def finish(self) -> None:
        """Make the tables whole."""
        while self._step():
            pass

    def skill_at(self, uri: str) -> str | None:
        """The skill whose SKILL.md ``uri`` is in the whole tables (:attr:`skills`), made only as
        far as needed (:meth:`_later_owners`)."""
        with self._lock:
            if uri in self.skills or not (uri.startswith("skill://") and uri.endswith("/SKILL.md")):
                return self.skills.get(uri)
            for data, (root, _) in self._later_owners(uri[len("skill://"):-len("/SKILL.md")]):
                if root + "/SKILL.md" == uri:
                    return data["id"]
            return None

    def file_at(self, uri: str) -> SkillFile | None:
        """The file at ``uri`` in the whole tables (:attr:`files`), made only as far as needed
        (:meth:`_later_owners`): reading one file checks the few entries it may be of."""
        with self._lock:
            if uri in self.files or not uri.startswith("skill://"):
                return self.files.get(uri)
            for _, (_, found) in self._later_owners(uri[len("skill://"):]):
                file = next((file for file in found if file.uri == uri), None)
                if file is not None:
                    return file
            return None

    def _later_owners(self, url_path: str) -> Iterator[tuple[dict[str, Any], tuple[str, list[SkillFile]]]]:
        """The skills not made yet (their entries and outcomes) whose files may be under
        ``url_path``, in the catalog's order: a skill's files are under its path, which begins
        with its id, so those whose id is the path or begins it (each outcome made out of turn).
        The first that has a file is the one the whole tables would keep."""
        path, ids = path_of(url_path), self._ids()  # an id is at most MAX_PATH_BYTES long, or left out
        prefixes = [path[:end] for end in range(min(len(path), MAX_PATH_BYTES), 0, -1)
                    if end == len(path) or path[end] == "/"]
        later = sorted(found for found in map(ids.get, prefixes) if found is not None and found[0] >= self._done)
        for _, data in later:
            outcome = self._outcome(data)
            if outcome is not None:
                yield data, outcome


@dataclasses.dataclass(frozen=True)
class _Tables:
    """What :class:`SkillsIndex` serves from, made from every checked entry (:meth:`SkillsIndex._make`)."""

    by_id: dict[str, ManifestEntry]                 # skill id -> checked manifest entry
    limits_note: dict[str, Any] | None              # the first skills/list page's note of entries left out
    skills: dict[str, str]                          # SKILL.md URI -> skill id
    resources: dict[str, list[SkillFile]]           # skill id -> every file, nested skills' too
    files: dict[str, SkillFile]                     # resource URI -> file
    listed: list[str]                               # the SKILL.md URIs skills/list lists, in order
    withheld: frozenset[str]                        # the files of skills above max_risk
    cursors: frozenset[str]                         # the offset of each later skills/list page, as text


class SkillsIndex:
    """The skills of a :class:`~skillsite.loader.Catalog` as the extension serves them, its tables
    made when a request first needs them (``checked``: the server's :class:`ServedEntries`, or
    entries checked already)."""

    def __init__(self, catalog: Catalog, page_size: int = PAGE_SIZE,
                 checked: CheckedEntries | ServedEntries | None = None) -> None:
        if page_size < 1:
            raise ValueError("page_size must be positive")
        self.catalog = catalog
        self.page_size = page_size
        self._served = served_entries(catalog, checked)
        self.file_tables = FileTables(catalog, self._served)
        self._tables = Once(self._make)
        self._frontmatter: dict[str, Frontmatter] = {}   # by SKILL.md sha256, as entries carry it

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
        cursors = frozenset(str(offset) for offset in range(self.page_size, len(listed), self.page_size))
        return _Tables(by_id, over_limits_note(left_out), made.skills, made.resources, made.files, listed,
                       frozenset(made.withheld), cursors)

    def _offered(self, entry: ManifestEntry) -> bool:
        """Whether ``skills/list`` lists the skill: offered to a model, and not above ``max_risk``."""
        return offered_to_model(entry) and within_max_risk(entry, self.catalog.max_risk)

    # -- entries

    def frontmatter(self, skill_id: str) -> Frontmatter:
        """The skill's frontmatter, read from its verified SKILL.md (once per digest), as
        :func:`bounded_frontmatter` gives it."""
        entry = self.by_id[skill_id]
        if entry.sha256 not in self._frontmatter:
            try:
                data = frontmatter_object(self.catalog.load(skill_id).raw)
            except FrontmatterError as exc:
                raise SkillsError(INTERNAL_ERROR, f"skill {skill_id}: {exc}") from None
            except LoaderError as exc:
                raise SkillsError(INTERNAL_ERROR, str(exc)) from None
            self._frontmatter[entry.sha256] = bounded_frontmatter(data)
        return self._frontmatter[entry.sha256]

    def entry(self, uri: str) -> dict[str, Any]:
        """The Skill entry of the skill whose SKILL.md is at ``uri``."""
        skill_id = self.skills.get(uri)
        if skill_id is None:
            raise SkillsError(INVALID_PARAMS, f"No skill is served at {uri}")
        files = self.resources[skill_id]
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

    def list_page(self, cursor: str | None) -> dict[str, Any]:
        """One ``skills/list`` page; the cursor is the offset of the next listed skill."""
        start = 0
        if cursor is not None:
            if cursor not in self._tables().cursors:  # only those this server gives: str(offset), ASCII digits
                raise SkillsError(INVALID_PARAMS, f"invalid skills/list cursor {cursor[:40]!r}")
            start = int(cursor)
        end = start + self.page_size
        skills, omitted = [], []
        for uri in self.listed[start:end]:
            try:
                skills.append(self.entry(uri))
            except SkillsError as exc:  # a SKILL.md that fails verification: said, not skipped silently
                log.warning("skills/list: leaving out %s: %s", uri, exc)
                omitted.append({"uri": uri, "error": str(exc)})
        result: dict[str, Any] = {"resultType": "complete", "skills": skills, "ttlMs": TTL_MS,
                                  "cacheScope": CACHE_SCOPE}
        meta: dict[str, Any] = {OMITTED_META: omitted} if omitted else {}
        if cursor is None and self.limits_note is not None:
            meta[LIMITS_META] = self.limits_note
        if meta:
            result["_meta"] = meta
        if end < len(self.listed):
            result["nextCursor"] = str(end)
        return result

    def get(self, uri: str) -> dict[str, Any]:
        """The ``skills/get`` result."""
        return {"resultType": "complete", "skill": self.entry(uri), "ttlMs": TTL_MS, "cacheScope": CACHE_SCOPE}

    # -- files and directories

    def read(self, uri: str) -> bytes:
        """A file's bytes, verified by the catalog (LoaderError when they do not match)."""
        file = self.file_tables.file_at(uri)
        if file is None:
            raise SkillsError(INVALID_PARAMS, f"no skill file is served at {uri}")
        return self.catalog.resource(file.skill_id, file.path)

    def directory(self, uri: str) -> list[dict[str, Any]]:
        """The direct children of a skill's folder or subfolder, as Resource metadata."""
        roots = {skill_uri.removesuffix("/SKILL.md") for skill_uri in self.skills}
        if uri.endswith("/") or not any(uri == root or uri.startswith(root + "/") for root in roots):
            raise SkillsError(INVALID_PARAMS, f"{uri} is not a directory resource")
        children: dict[str, dict[str, Any]] = {}
        prefix = uri + "/"
        for file_uri, file in self.files.items():
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


def _collect(served: Callable[[str], ManifestEntry | None], entry: ManifestEntry, base: str,
             seen: set[str]) -> list[SkillFile]:
    """SKILL.md, the bundled files and, under their folders, the nested skills' files (``served``:
    the entry served under an id, None when none is)."""
    seen.add(entry.id)
    size = entry.size.bytes if entry.size is not None else None
    files = [SkillFile(base + "/SKILL.md", entry.id, "SKILL.md", entry.sha256, _size(size))]
    for record in entry.files:
        path = safe_relpath(record.path, "file path")
        files.append(SkillFile(f"{base}/{url_of(path)}", entry.id, path, record.sha256, _size(record.bytes)))
    for child_id in entry.children:
        if child_id in seen or not child_id.startswith(entry.id + "/"):
            continue
        child = served(child_id)
        if child is not None:
            files += _collect(served, child, f"{base}/{url_of(child_id[len(entry.id) + 1:])}", seen)
    return files


def _files_note(files: list[SkillFile]) -> dict[str, Any]:
    """What an entry's limits note says of a skill over the extension's limits on files ({} when within)."""
    total = sum(f.size for f in files)
    if len(files) <= MAX_FILES and total <= MAX_BYTES:
        return {}
    return {"files": len(files), "bytes": total, "maxFiles": MAX_FILES, "maxBytes": MAX_BYTES,
            "note": f"this skill has {len(files)} files and {total:,} bytes, over the extension's limits "
                    f"({MAX_FILES} files, {MAX_BYTES:,} bytes): a host need not load it; listed complete"}


def _size(value: int | None) -> int:
    if value is None:
        raise ValueError("the manifest records no size for a file")
    return value
