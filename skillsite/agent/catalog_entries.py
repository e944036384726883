"""The entries of an open catalog, by id, fetched only as far as they are asked for.

A whole ``skills.json`` (format 1) holds them all.  The root of a paged one (format 2, see
:mod:`~skillsite.agent.manifest_pages`) holds page 1; an id elsewhere costs its page's index
(once) and its entry file, a name or a slash command every index, and the whole list every
page (fetched a few at a time).  Every file is fetched through the catalog's verified fetch: its
sha256 must be the one its parent names (the root for pages and indexes, an index for entry
files), else :class:`~skillsite.agent.errors.IntegrityError`.  Standard library only.
"""
from __future__ import annotations

import bisect
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from itertools import accumulate
from typing import Any, Callable, Iterable, TypeVar

from skillsite.agent.catalog_format import PAGED_FORMAT_VERSION
from skillsite.agent.entry import ManifestEntry, is_size
from skillsite.agent.errors import CatalogFormatError, FetchError, NotFoundError
from skillsite.agent.manifest_check import parse_entry_file, parse_index, parse_page
from skillsite.agent.manifest_pages import IndexRow, PageRecord, entry_url, find_page, page_records

#: Fetch a site file checked against a sha256: (site-relative URL, sha256, size or None, what it is) -> bytes.
VerifiedFetch = Callable[[str, str, "int | None", str], bytes]
#: Pages or indexes fetched at the same time.
PARALLEL_FETCHES = 8

T = TypeVar("T")
R = TypeVar("R")


class CatalogEntries:
    """Entries (JSON objects) by id; ``by_id`` holds those known so far, in no order."""

    def __init__(self, manifest: dict[str, Any], fetch: VerifiedFetch, where: str) -> None:
        self.root: list[dict[str, Any]] = manifest["skills"]
        paged = manifest.get("format_version") == PAGED_FORMAT_VERSION
        self.records: tuple[PageRecord, ...] = page_records(manifest, where) if paged else ()
        self.by_id: dict[str, dict[str, Any]] = {e["id"]: e for e in self.root}
        self._fetch, self._where = fetch, where
        self._pages: dict[int, list[dict[str, Any]]] = {}
        self._indexes: dict[int, dict[str, IndexRow]] = {}
        self._all: list[dict[str, Any]] | None = None if self.records else self.root
        self._by_name: dict[str, list[str]] | None = None
        self._commands: list[tuple[str, str]] | None = None
        self._by_unicode: tuple[dict[str, list[str]], dict[str, list[str]]] | None = None
        self._checked: dict[str, ManifestEntry] = {}
        self._root_places: dict[str, int] | None = None
        self._page_ends: list[int] | None = None   # where each page's entries end, counted from the root's
        #: The root's ``counts.longest_path_bytes`` (None: a catalog built before it gave one).
        self.longest_path_bytes = _declared_longest(manifest)

    def __len__(self) -> int:
        return len(self.root) + sum(r.count for r in self.records)

    def checked(self, data: dict[str, Any]) -> ManifestEntry:
        """The typed entry of one of these JSON objects, parsed and checked once (CatalogFormatError)."""
        entry = self._checked.get(data["id"])
        if entry is None:
            try:
                entry = ManifestEntry.from_json(data)
            except CatalogFormatError as exc:
                raise CatalogFormatError(f"{self._where}: {exc}") from None
            self._checked[entry.id] = entry
        return entry

    def well_formed(self) -> list[ManifestEntry]:
        """Every entry that passes its check, typed, in manifest order (a malformed one cannot be used anyway)."""
        return self._passing(self.all())

    def known(self) -> list[ManifestEntry]:
        """The entries fetched so far that pass their check, typed, in manifest order (nothing is
        fetched: a whole ``skills.json`` knows every entry, a paged catalog those read so far)."""
        return self._passing(self.by_id[skill_id] for skill_id in sorted(self.by_id, key=self.order_key))

    def _passing(self, found: Iterable[dict[str, Any]]) -> list[ManifestEntry]:
        """The typed entries of those of ``found`` that pass their check."""
        entries = []
        for data in found:
            try:
                entries.append(self.checked(data))
            except CatalogFormatError:
                continue
        return entries

    def summary(self, skill_id: str) -> tuple[str, str]:
        """Name and description of any entry, checked to be strings when the catalog was opened:
        search results and sub-skill lists never fail on an entry malformed elsewhere."""
        data = self.find(skill_id)
        if data is None:
            raise NotFoundError(f"no skill {skill_id!r} in the catalog")
        return data["name"], data["description"]

    def lookup(self, id_or_name: str) -> ManifestEntry:
        """The typed entry of a skill, by id or else by (unique) name, as spelt, else in any other
        Unicode spelling (:meth:`spelt_otherwise`); NotFoundError when there is none."""
        data = self.find(id_or_name)
        if data is not None:
            return self.checked(data)
        ids = self.named(id_or_name) or self.spelt_otherwise(id_or_name, ambiguous_ids=False)
        data = self.find(ids[0]) if len(ids) == 1 else self._canonical_of(ids) if ids else None
        if data is not None:
            return self.checked(data)
        if len(ids) > 1:
            raise NotFoundError(f"name {id_or_name!r} is shared by skills {', '.join(ids)}; use an id")
        raise NotFoundError(f"no skill {id_or_name!r} in the catalog")

    def _canonical_of(self, ids: list[str]) -> dict[str, Any] | None:
        """The entry that the others of ``ids`` (one name's) are copies of, when they all are:
        a copy is offered and listed as its canonical member, so the name is that one's."""
        found = [self.find(skill_id) for skill_id in ids]
        copy_of = [_copy_of(data) for data in found]
        canonical = [data for data, of in zip(found, copy_of) if of is None]
        if len(canonical) != 1 or canonical[0] is None:
            return None
        return canonical[0] if all(of in (None, canonical[0]["id"]) for of in copy_of) else None

    def all(self) -> list[dict[str, Any]]:
        """Every entry, in manifest order (a paged catalog's pages fetched on first call)."""
        if self._all is None:
            missing = [r for r in self.records if r.page not in self._pages]
            for record, entries in zip(missing, _each(self._page, missing)):
                self._add_page(record, entries)
            self._all = self.root + [e for r in self.records for e in self._pages[r.page]]
        return self._all

    def at(self, index: int) -> dict[str, Any] | None:
        """The entry at ``index`` in manifest order (0 on), None past the last: a paged catalog
        fetches the page that holds it, once, so a reader going through the entries in order
        pays for the pages it reaches."""
        if self._all is not None or index < len(self.root):
            entries = self._all if self._all is not None else self.root
            return entries[index] if 0 <= index < len(entries) else None
        if self._page_ends is None:
            self._page_ends = list(accumulate((r.count for r in self.records), initial=len(self.root)))[1:]
        place = bisect.bisect_right(self._page_ends, index)
        if index < 0 or place >= len(self.records):
            return None
        record = self.records[place]
        return self._read_page(record)[index - (self._page_ends[place] - record.count)]

    def find(self, skill_id: str, *, with_page: bool = False) -> dict[str, Any] | None:
        """The entry of ``skill_id``, or None when the catalog has no such id; a paged catalog
        fetches the index of the page whose range holds it, then its entry file (offline, the
        page itself when the cache holds it: a session that read every page cached those).
        ``with_page``: the page itself, in one request, for a reader going through many entries
        in manifest order."""
        if skill_id in self.by_id or self._all is not None:
            return self.by_id.get(skill_id)
        if not isinstance(skill_id, str):
            return None
        record = find_page(self.records, skill_id)
        if record is None:
            return None
        if with_page:
            self._read_page(record)
            return self.by_id.get(skill_id)
        try:
            return self._from_entry_file(record, skill_id)
        except FetchError as exc:
            try:
                self._read_page(record)
            except FetchError as page_failed:
                raise _retryable_first(exc, page_failed) from None
            return self.by_id.get(skill_id)

    def order_key(self, skill_id: str) -> tuple[int, int | str]:
        """Where an id of the catalog comes in manifest order, as a sort key, with nothing fetched:
        the root's entries in their order, then a paged catalog's other entries by id (its pages
        hold ascending ids, each page's after the root's and the pages' before it)."""
        if self._root_places is None:
            self._root_places = {e["id"]: place for place, e in enumerate(self.root)}
        place = self._root_places.get(skill_id)
        return (0, place) if place is not None else (1, skill_id)

    def ids_under(self, prefix: str) -> list[str]:
        """The ids that begin with ``prefix``; a paged catalog reads the index of each page whose
        id range may hold one (its page when the index cannot be fetched, as :meth:`find`)."""
        found = [e["id"] for e in self.root if e["id"].startswith(prefix)]
        for record in self.records:  # ascending ranges: a page whose first id is past every id so begun is skipped
            if record.last >= prefix and (record.first < prefix or record.first.startswith(prefix)):
                found += [skill_id for skill_id in self._page_ids(record) if skill_id.startswith(prefix)]
        return found

    def _page_ids(self, record: PageRecord) -> list[str]:
        """The ids of a page, from the page when read, else from its index."""
        if record.page in self._pages:
            return [e["id"] for e in self._pages[record.page]]
        try:
            return list(self._index(record))
        except FetchError as exc:
            try:
                entries = self._read_page(record)
            except FetchError as page_failed:
                raise _retryable_first(exc, page_failed) from None
            return [e["id"] for e in entries]

    def _from_entry_file(self, record: PageRecord, skill_id: str) -> dict[str, Any] | None:
        """The entry of ``skill_id`` from its entry file, which the page's index pins (and whose
        command it gives, when it gives commands)."""
        row = self._index(record).get(skill_id)
        if row is None:
            return None
        where = f"the entry file of {skill_id}"
        data = parse_entry_file(self._fetch(entry_url(skill_id), row.sha256, None, where), skill_id, where)
        if row.command_known and data.get("command") != row.command:
            raise CatalogFormatError(f"{self._where}: {where} and the index of page {record.page} give other "
                                     "slash commands")
        self.by_id[skill_id] = data
        return data

    def commands(self) -> list[tuple[str, str]]:
        """(id, command) of each skill with a slash command (its entry names one), in manifest
        order: a paged catalog reads its indexes, and the pages of those that give no commands
        (built before indexes did)."""
        return list(self._command_pairs())

    def _command_pairs(self) -> list[tuple[str, str]]:
        """:meth:`commands`, worked out once (the catalog's own list: not to be changed)."""
        if self._commands is None and self._all is not None:
            self._commands = _commands_of(self._all)
        if self._commands is None:
            self._read_commands()
            found = _commands_of(self.root)
            for record in self.records:
                rows = self._indexes.get(record.page)
                found += ([(skill_id, row.command) for skill_id, row in rows.items() if row.command is not None]
                          if rows is not None and _gives_commands(rows) else _commands_of(self._pages[record.page]))
            self._commands = found  # only when whole: a fetch may fail, and be tried again
        return self._commands

    def _read_commands(self) -> None:
        """Every index not read yet, and the page of each that gives no commands or cannot be
        fetched (offline, the cache may hold the page: a session that read every page cached those)."""
        missing = [r for r in self.records if r.page not in self._indexes]
        for record, rows in zip(missing, _each(self._index_if_fetched, missing)):
            if rows is not None:
                self._add_index(record, rows)
        silent = [r for r in self.records if r.page not in self._pages
                  and not (r.page in self._indexes and _gives_commands(self._indexes[r.page]))]
        for record, entries in zip(silent, _each(self._page, silent)):
            self._add_page(record, entries)

    def _index_if_fetched(self, record: PageRecord) -> dict[str, IndexRow] | None:
        """A page's index, None when it cannot be fetched (its page is read instead)."""
        try:
            return self._fetch_index(record)
        except FetchError:
            return None

    def with_command(self, command: str) -> list[dict[str, Any]]:
        """The entries that name ``command`` as their slash command, in manifest order (a paged
        catalog reads its indexes, then those entries' files)."""
        found = (self.find(skill_id) for skill_id, named in self._command_pairs() if named == command)
        return [data for data in found if data is not None and data.get("command") == command]

    def named(self, name: str) -> list[str]:
        """The ids of the skills called ``name``, in manifest order (a paged catalog reads its indexes)."""
        if self._by_name is None:
            by_name: dict[str, list[str]] = {}
            for skill_id, skill_name in self._names():
                by_name.setdefault(skill_name, []).append(skill_id)
            self._by_name = by_name  # only when whole: a fetch of the indexes may fail, and be tried again
        return self._by_name.get(name, [])

    def spelt_otherwise(self, text: str, *, ambiguous_ids: bool = True) -> list[str]:
        """The ids of the skills whose id, else whose name, is ``text`` in another Unicode spelling
        (the same NFC: a folder named on macOS is spelt decomposed); each published id is itself
        exactly, so several ids of one NFC are refused (NotFoundError) unless ``ambiguous_ids``."""
        if self._by_unicode is None:
            ids: dict[str, list[str]] = {}
            names: dict[str, list[str]] = {}
            for skill_id, skill_name in self._names():
                ids.setdefault(unicodedata.normalize("NFC", skill_id), []).append(skill_id)
                names.setdefault(unicodedata.normalize("NFC", skill_name), []).append(skill_id)
            self._by_unicode = ids, names
        key = unicodedata.normalize("NFC", text)
        same_id = self._by_unicode[0].get(key, [])
        if len(same_id) > 1 and not ambiguous_ids:
            raise NotFoundError(f"{ascii(text)} is the Unicode text of several skills' ids "
                                f"({', '.join(ascii(i) for i in same_id)}); give one of them exactly")
        return same_id or self._by_unicode[1].get(key, [])

    def _names(self) -> list[tuple[str, str]]:
        """(id, name) of every skill, from the entries when all are known, else from the indexes."""
        if self._all is not None:
            return [(e["id"], e["name"]) for e in self._all]
        self._read_indexes()
        return [(e["id"], e["name"]) for e in self.root] + [
            (skill_id, row.name) for r in self.records for skill_id, row in self._indexes[r.page].items()]

    def _read_indexes(self) -> None:
        """Fetch every index not read yet (a few at a time)."""
        missing = [r for r in self.records if r.page not in self._indexes]
        for record, rows in zip(missing, _each(self._fetch_index, missing)):
            self._add_index(record, rows)

    def entry_files(self) -> list[tuple[str, str, str]]:
        """(id, site-relative URL, sha256) of every entry file, as the indexes pin them."""
        self._read_indexes()
        return [(skill_id, entry_url(skill_id), row.sha256) for r in self.records
                for skill_id, row in self._indexes[r.page].items()]

    def _read_page(self, record: PageRecord) -> list[dict[str, Any]]:
        """A page's entries, fetched and taken (:meth:`_add_page`) once."""
        if record.page not in self._pages:
            self._add_page(record, self._page(record))
        return self._pages[record.page]

    def _page(self, record: PageRecord) -> list[dict[str, Any]]:
        where = f"page {record.page} ({record.entries.url}) of {self._where}"
        return parse_page(self._fetch(record.entries.url, record.entries.sha256, record.entries.bytes, where),
                          record, where)

    def _index(self, record: PageRecord) -> dict[str, IndexRow]:
        """A page's index (id -> row), fetched once."""
        if record.page not in self._indexes:
            self._add_index(record, self._fetch_index(record))
        return self._indexes[record.page]

    def _add_index(self, record: PageRecord, rows: dict[str, IndexRow]) -> None:
        """Take a page's index; the page, when read, must hold the skills it lists."""
        if record.page in self._pages:
            self._same_skills(record, self._pages[record.page], rows)
        self._indexes[record.page] = rows

    def _same_skills(self, record: PageRecord, entries: list[dict[str, Any]], rows: dict[str, IndexRow]) -> None:
        """Refuse a page and its index that list other skills, or other names or commands (either
        would answer for a skill the other does not know of, depending on which was read first)."""
        if [(e["id"], e["name"]) for e in entries] != [(skill_id, row.name) for skill_id, row in rows.items()]:
            raise CatalogFormatError(f"{self._where}: page {record.page} and its index list other skills")
        if _gives_commands(rows):
            for entry in entries:
                if entry.get("command") != rows[entry["id"]].command:
                    raise CatalogFormatError(f"{self._where}: page {record.page} and its index give {entry['id']!r} "
                                             f"other slash commands ({entry.get('command')!r} and "
                                             f"{rows[entry['id']].command!r})")

    def _fetch_index(self, record: PageRecord) -> dict[str, IndexRow]:
        where = f"the index of page {record.page} ({record.index.url}) of {self._where}"
        return parse_index(self._fetch(record.index.url, record.index.sha256, record.index.bytes, where),
                           record, where)

    def _add_page(self, record: PageRecord, entries: list[dict[str, Any]]) -> None:
        """Take a page's entries; one already read from its entry file must be the same, and
        the page's index, when read, must list its skills."""
        if record.page in self._indexes:
            self._same_skills(record, entries, self._indexes[record.page])
        for entry in entries:
            known = self.by_id.setdefault(entry["id"], entry)
            if known is not entry and known != entry:
                raise CatalogFormatError(f"{self._where}: page {record.page} and the entry file of {entry['id']} "
                                         "disagree")
        self._pages[record.page] = entries


def _retryable_first(first: FetchError, then: FetchError) -> FetchError:
    """Of two fetches that failed for one answer (a file, then the page that holds it too), the
    error to raise: a transient one when either is, since asking again may answer (a reader that
    keeps what failed for good, as the MCP server keeps a skill it leaves out, tells by it), else
    the first."""
    return then if then.transient and not first.transient else first


def _declared_longest(manifest: dict[str, Any]) -> int | None:
    """The root's ``counts.longest_path_bytes``, None when it gives none or not a byte count (a
    count the build wrote, which only spares a reader from reading every entry to learn it)."""
    counts = manifest.get("counts")
    longest = counts.get("longest_path_bytes") if isinstance(counts, dict) else None
    return longest if is_size(longest) else None


def _each(func: Callable[[T], R], items: list[T]) -> Iterable[R]:
    """``func`` of each item, in order, a few at a time (pages are fetched over the network)."""
    if len(items) <= 1:
        return [func(item) for item in items]
    with ThreadPoolExecutor(max_workers=min(PARALLEL_FETCHES, len(items))) as pool:
        return list(pool.map(func, items))


def _gives_commands(rows: dict[str, IndexRow]) -> bool:
    """Whether an index (its rows; an index has some) gives its skills' commands."""
    return next(iter(rows.values())).command_known


def _commands_of(entries: Iterable[dict[str, Any]]) -> list[tuple[str, str]]:
    """(id, command) of each of ``entries`` (unchecked JSON) that names a slash command, in order."""
    return [(e["id"], e["command"]) for e in entries if isinstance(e.get("command"), str)]


def _copy_of(data: dict[str, Any] | None) -> str | None:
    """The id an entry (unchecked JSON) says it is a copy of, or None."""
    visibility = data.get("visibility") if isinstance(data, dict) else None
    copy_of = visibility.get("copy_of") if isinstance(visibility, dict) else None
    return copy_of if isinstance(copy_of, str) else None
