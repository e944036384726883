"""The ``skill://`` files the MCP Skills extension serves (:class:`FileTables`): each skill's root
URI and files, made an entry at a time as far as a request needs them, so that a first page or
a single read does not check every entry of a large catalog.  A module of its own, so that
:mod:`skillsite.mcp.skills` keeps one job: the extension's answers, built on these tables."""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable, Iterable, Iterator, NamedTuple

from skillsite.agent.catalog_format import within_max_risk
from skillsite.agent.entry import ManifestEntry
from skillsite.agent.errors import FetchError, LoaderError
from skillsite.agent.manifest_check import safe_relpath
from skillsite.agent.site_urls import path_of, url_of
from skillsite.loader import Catalog
from skillsite.mcp.served_entries import MAX_PATH_BYTES, LeftOut, ServedEntries

log = logging.getLogger(__name__)


class SkillFile(NamedTuple):
    """One file of a skill, as the manifest records it."""

    uri: str
    skill_id: str   # the skill whose folder holds it (a nested skill's file keeps its own skill)
    path: str       # relative to that folder; "SKILL.md" for the skill's SKILL.md
    sha256: str
    size: int


def skill_uri(path: str) -> str:
    """``skill://<path>``, the path percent-encoded once (:func:`~skillsite.agent.site_urls.url_of`)
    and an "@" in its first segment too: that segment is the URI's authority, where "@" ends a
    user name (a URL parser, JavaScript's among them, reads ``skill://@scope+tool/x`` as the host
    ``scope+tool``), as ":" would start a port (encoded already)."""
    head, slash, rest = url_of(path).partition("/")
    return "skill://" + head.replace("@", "%40") + slash + rest


def canonical_uri(uri: str) -> str:
    """A ``skill://`` URI as the server writes it (:func:`skill_uri`), however a client encoded its
    path (an "@" as it is or as %40, a letter percent-encoded or not); any other URI as it is."""
    return skill_uri(path_of(uri[len("skill://"):])) if uri.startswith("skill://") else uri


def skill_root(entry: ManifestEntry) -> str:
    """``skill://<skill path>``: the id, with the name appended when the id does not end with it."""
    path = entry.id if entry.id.rsplit("/", 1)[-1] == entry.name else f"{entry.id}/{entry.name}"
    return skill_uri(path)


class FileTables:
    """What :class:`~skillsite.mcp.skills.SkillsIndex` serves, made an entry at a time in the catalog's order, as far
    as a reader asks (:meth:`new_files`): ``resources/list`` lists each skill's files as it
    reaches the skill, so its first page checks the entries it shows, not every entry.  A
    skill's files need the entries of its nested skills, and its path the entry whose id it may
    be: those are checked when needed, out of turn (each entry once: :class:`ServedEntries` keeps
    them, and each skill's outcome is kept).  A file or SKILL.md asked for by URI is found the
    same way (:meth:`file_at`, :meth:`skill_at`, :meth:`files_of`, :meth:`around`), each entry by its
    id through the catalog (:meth:`~skillsite.loader.Catalog.raw_entry`: a paged catalog fetches
    the page's index and the entry file, not the pages), in the catalog's order
    (:meth:`~skillsite.loader.Catalog.order_key`).  Made whole (:meth:`finish`), the tables are
    what one pass over every entry makes."""

    def __init__(self, catalog: Catalog, served: ServedEntries,
                 reopening_cures: Callable[[LoaderError], bool] = lambda exc: False) -> None:
        self.catalog = catalog
        self.served = served
        self.reopening_cures = reopening_cures  # a skill that fails for it fails the request, not just itself
        self.skills: dict[str, str] = {}                 # SKILL.md URI -> skill id (the first skill's)
        self.resources: dict[str, list[SkillFile]] = {}  # skill id -> every file, nested skills' too
        self.files: dict[str, SkillFile] = {}            # resource URI -> file (the first skill's)
        self.withheld: set[str] = set()                  # the files of skills above max_risk
        self._order: list[str] = []                      # the files' URIs, as made
        self._skill_order: list[str] = []                # the SKILL.md URIs of :attr:`skills`, as made
        self._done = 0                                   # the entries made, of the catalog's
        self._made: set[str] = set()                     # their ids
        self._outcomes: dict[str, tuple[str, list[SkillFile]] | None] = {}
        self._lock = threading.RLock()

    def entry(self, skill_id: str) -> ManifestEntry | None:
        """The entry served under ``skill_id`` (checked now if not yet), None when none is."""
        data = self.catalog.raw_entry(skill_id)
        checked = None if data is None else self.served.check(data)
        return checked if isinstance(checked, ManifestEntry) else None

    def _root(self, entry: ManifestEntry) -> str:
        """``skill://<skill path>``: :func:`skill_root`, unless its appended path is another
        skill's own (``toolsx`` named ``toolkit`` beside the skill ``toolsx/toolkit``): then the
        id, so that neither hides the other."""
        root = skill_root(entry)
        if root != skill_uri(entry.id) and self.entry(f"{entry.id}/{entry.name}") is not None:
            log.warning("skills extension: skill %s (named %s) is served at its id: %s is another skill's path",
                        entry.id, entry.name, root)
            root = skill_uri(entry.id)
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
        """The skill's root and files, None when they cannot be served (logged, and kept so).  A
        failure that may pass is the request's error, and nothing is kept: a host down for now
        (a transient FetchError), or a new build that opening the catalog again would serve."""
        root = self._root(entry)
        try:
            found = _collect(self.entry, entry, root, set())
        except (LoaderError, ValueError) as exc:
            if isinstance(exc, LoaderError) and (_passing(exc) or self.reopening_cures(exc)):
                raise
            log.warning("skills extension: leaving out skill %s: %s", entry.id, exc)
            return None
        return root, sorted(found, key=lambda f: (f.uri != root + "/SKILL.md", f.uri))

    def _step(self) -> bool:
        """Make the next entry's part of the tables; False when every entry is made."""
        with self._lock:
            data = self.catalog.entry_at(self._done)   # a paged catalog's pages fetched as reached
            if data is None:
                return False
            outcome = self._outcome(data)
            if outcome is not None:
                root, found = outcome
                if root + "/SKILL.md" not in self.skills:
                    self.skills[root + "/SKILL.md"] = data["id"]
                    self._skill_order.append(root + "/SKILL.md")
                self.resources[data["id"]] = found
                for file in found:
                    if file.uri not in self.files:
                        self._add(file)
            self._made.add(data["id"])
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
        return self._as_made(self._order)

    def new_skills(self) -> Iterator[tuple[str, str]]:
        """Every SKILL.md URI of :attr:`skills` and its skill's id, in the tables' order, each made
        when the reader gets to it (``skills/list`` pages list them)."""
        return ((uri, self.skills[uri]) for uri in self._as_made(self._skill_order))

    def _as_made(self, order: list[str]) -> Iterator[str]:
        """The URIs of ``order`` (one of the tables' orders, growing as entries are made), the
        tables' next entries made as the reader gets past those made."""
        index = 0
        while index < len(order) or self._step():
            if index < len(order):
                yield order[index]
                index += 1

    def files_of(self, skill_id: str) -> list[SkillFile] | None:
        """The files of the skill served under ``skill_id`` (:attr:`resources`: its own and its
        nested skills', SKILL.md first), made now if not yet; None when it has none served."""
        with self._lock:
            data = self.catalog.raw_entry(skill_id)
            outcome = None if data is None else self._outcome(data)
            return None if outcome is None else outcome[1]

    def around(self, uri: str) -> list[tuple[str, list[SkillFile]]]:
        """The root and files of each skill whose root or files may be ``uri`` or under it, in
        the catalog's order (as the whole tables take them: a URI's file is the first one's).  A
        skill's files are under its root, which begins with its id: so the skills whose id is the
        path ``uri`` names or begins it, and those whose id is under that path."""
        if not uri.startswith("skill://"):
            return []
        path = path_of(uri[len("skill://"):])  # any spelling of the path decodes to the same one
        with self._lock:
            found = self._in_order({*_prefixes(path), *self.catalog.ids_under(path + "/")})
            outcomes = (self._outcome(data) for data in found)
            return [outcome for outcome in outcomes if outcome is not None]

    def _in_order(self, ids: Iterable[str]) -> list[dict[str, Any]]:
        """The entries of those of ``ids`` the catalog has, in its order."""
        found = [(skill_id, self.catalog.raw_entry(skill_id)) for skill_id in set(ids)]
        return [data for skill_id, data in sorted(found, key=lambda pair: self.catalog.order_key(pair[0]))
                if data is not None]

    def finish(self) -> None:
        """Make the tables whole."""
        while self._step():
            pass

    def skill_at(self, uri: str) -> str | None:
        """The skill whose SKILL.md ``uri`` is in the whole tables (:attr:`skills`), made only as
        far as needed (:meth:`_later_owners`)."""
        uri = canonical_uri(uri)
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
        uri = canonical_uri(uri)
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
        later = self._in_order(i for i in _prefixes(path_of(url_path)) if i not in self._made)
        for data in later:
            outcome = self._outcome(data)
            if outcome is not None:
                yield data, outcome


def _passing(exc: LoaderError) -> bool:
    """Whether ``exc`` may pass if asked again: a fetch that failed for now (connection, timeout,
    HTTP 5xx/408/429)."""
    return isinstance(exc, FetchError) and exc.transient


def _prefixes(path: str) -> list[str]:
    """The ids a skill holding ``path`` (its root, or a file under it) may have: ``path`` and each
    of its beginnings up to a "/" (an id is at most MAX_PATH_BYTES long, or left out)."""
    return [path[:end] for end in range(min(len(path), MAX_PATH_BYTES), 0, -1) if end == len(path) or path[end] == "/"]


def _collect(served: Callable[[str], ManifestEntry | None], entry: ManifestEntry, base: str,
             seen: set[str]) -> list[SkillFile]:
    """SKILL.md, the bundled files and, under their folders, the nested skills' files (``served``:
    the entry served under an id, None when none is), each skill's before those nested in it, in
    the order of its children: walked with a stack of its own, as a chain of nested skills in an
    untrusted catalog may be longer than Python's recursion allows."""
    files = _own_files(entry, base)
    seen.add(entry.id)
    stack = [(entry, base, iter(entry.children))]
    while stack:
        parent, parent_base, children = stack[-1]
        child_id = next(children, None)
        if child_id is None:
            stack.pop()
            continue
        if child_id in seen or not child_id.startswith(parent.id + "/"):
            continue
        child = served(child_id)
        if child is not None:
            child_base = f"{parent_base}/{url_of(child_id[len(parent.id) + 1:])}"
            seen.add(child.id)
            files += _own_files(child, child_base)
            stack.append((child, child_base, iter(child.children)))
    return files


def _own_files(entry: ManifestEntry, base: str) -> list[SkillFile]:
    """A skill's SKILL.md and bundled files under ``base``, without its nested skills'."""
    size = entry.size.bytes if entry.size is not None else None
    files = [SkillFile(base + "/SKILL.md", entry.id, "SKILL.md", entry.sha256, _size(size))]
    for record in entry.files:
        path = safe_relpath(record.path, "file path")
        files.append(SkillFile(f"{base}/{url_of(path)}", entry.id, path, record.sha256, _size(record.bytes)))
    return files


def _size(value: int | None) -> int:
    if value is None:
        raise ValueError("the manifest records no size for a file")
    return value
