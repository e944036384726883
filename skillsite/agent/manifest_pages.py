"""A paged catalog (``format_version`` 2): where its pieces are and how the root names them.

Above ``shard_above`` skills the build publishes ``skills.json`` as a root that holds the
catalog's metadata and the entries of page 1, and lists the other pages in ``pages``; each
page is two files, named with their sha256 and size in the root:

- ``manifest/pages/NNNN.json``: the page's entries, whole (what ``Catalog.entries`` reads);
- ``manifest/index/NNNN.json``: one row per skill of the page, ``{id, name, sha256}``, where
  ``sha256`` is that of the skill's entry file ``skills/<id>/entry.json`` (its manifest entry
  alone, what ``Catalog.load`` reads).  An index that says ``"commands": "from-ids"`` gives
  each skill's slash command too: the row's ``command`` (null: none), else, for an ASCII id,
  the id made a command (:func:`~skillsite.agent.commands.command_name`), so a command is found
  without the pages, and most rows stay as small as before.  (A letter outside ASCII is made
  one by Python's Unicode tables, which differ between versions: such a row always says it.)

Pages hold the skills in the manifest's order (ascending id), so the root's ``first`` and
``last`` id of each page say which page holds an id without fetching anything.  Trust goes
from the root down: the root's digests vouch for pages and indexes, an index's for entry files,
and an entry's for everything of its skill (SKILL.md, bundled files, knowledge documents and,
through ``versions_sha256``, its versions.json, which vouches for each release's files).  The
root's ``search`` section vouches for the sharded search index's meta file, which names the
digests of its chunks and cards (:mod:`skillsite.search.shard_format`).
Standard library only: shared by the build and the loader.
"""
from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from typing import Any, NamedTuple, Sequence

from skillsite.agent.entry import is_hex_sha256, is_size
from skillsite.agent.errors import CatalogFormatError
from skillsite.agent.site_urls import url_of

PAGE_FORMAT = "skillsite-catalog-page"
INDEX_FORMAT = "skillsite-catalog-index"
#: An index's ``commands``: its rows give each skill's command, its id's unless the row says one.
COMMANDS_FROM_IDS = "from-ids"
PAGES_DIR = "manifest/pages"
INDEX_DIR = "manifest/index"
ENTRY_FILE = "entry.json"
class IndexRow(NamedTuple):
    """A skill's row in its page's index, as read."""

    name: str
    sha256: str             # of its entry file
    command: str | None     # its slash command (None: none, or not known)
    command_known: bool     # False: an index built before indexes gave commands (its page gives them)


#: Entries on a page, on average (fewer when ``shard_above`` is lower): about 500 KB of JSON a
#: page.  A bigger catalog gets bigger pages (:func:`entries_per_page`), up to MAX_PAGE_SIZE on
#: average; a page of a build of this package may hold half as many again, as its entries' ids
#: cut it (:func:`skillsite.publish.manifest.page_bounds`), never more than ``shard_above``.
PAGE_SIZE = 250
MAX_PAGE_SIZE = 1000
#: Entries in the root (page 1): few, so that opening a catalog of any size costs little (the
#: root also lists every other page).
ROOT_PAGE_SIZE = 25


def entries_per_page(skills: int) -> int:
    """Entries on each page of a catalog of ``skills``: PAGE_SIZE, or about the square root of
    three times the catalog (in steps of 50, at most MAX_PAGE_SIZE) when that is more.

    An agent that loads one skill reads the root's list of pages (about 360 bytes a page) and
    one page's index (about 130 bytes a skill); pages of about sqrt(3 n) skills keep the sum of
    the two near its least (at 100,000 skills: 500 a page, about 130 KB, instead of about 175 KB
    with 250 a page)."""
    balanced = math.isqrt(3 * skills) // 50 * 50
    return min(MAX_PAGE_SIZE, max(PAGE_SIZE, balanced))


def page_url(number: int) -> str:
    """Site-relative URL of page ``number``'s entries (page 1 is the root's own)."""
    return f"{PAGES_DIR}/{number:04d}.json"


def index_url(number: int) -> str:
    """Site-relative URL of page ``number``'s index of entry files."""
    return f"{INDEX_DIR}/{number:04d}.json"


def entry_path(skill_id: str) -> str:
    """Site path of a skill's entry file, in its folder: ``skills/<id>/entry.json``."""
    return f"skills/{skill_id}/{ENTRY_FILE}"


def entry_url(skill_id: str) -> str:
    """Site-relative URL of a skill's entry file (:func:`entry_path`, percent-encoded)."""
    return url_of(entry_path(skill_id))


@dataclass(frozen=True)
class FileRef:
    """A file of a paged catalog as the root names it: URL, sha256 and size."""

    url: str
    sha256: str
    bytes: int

    @classmethod
    def from_json(cls, data: Any, what: str) -> FileRef:
        if not (isinstance(data, dict) and isinstance(data.get("url"), str) and is_hex_sha256(data.get("sha256"))
                and is_size(data.get("bytes"))):
            raise CatalogFormatError(f"{what} is not an object with url, sha256 and bytes")
        return cls(data["url"], data["sha256"], data["bytes"])

    def to_json(self) -> dict[str, Any]:
        return {"url": self.url, "sha256": self.sha256, "bytes": self.bytes}


@dataclass(frozen=True)
class PageRecord:
    """One page of a paged catalog, as the root lists it: its number, files, count and id range."""

    page: int
    entries: FileRef
    index: FileRef
    count: int
    first: str
    last: str

    @classmethod
    def from_json(cls, data: Any, what: str) -> PageRecord:
        if not isinstance(data, dict):
            raise CatalogFormatError(f"{what} is not an object")
        page, count = data.get("page"), data.get("count")
        first, last = data.get("first"), data.get("last")
        if not (is_size(page) and is_size(count) and count > 0 and isinstance(first, str)
                and isinstance(last, str) and first <= last):
            raise CatalogFormatError(f"{what} needs a page number, a positive count and its first <= last id")
        return cls(page, FileRef.from_json(data.get("entries"), f"{what}.entries"),
                   FileRef.from_json(data.get("index"), f"{what}.index"), count, first, last)

    def to_json(self) -> dict[str, Any]:
        return {"page": self.page, "count": self.count, "first": self.first, "last": self.last,
                "entries": self.entries.to_json(), "index": self.index.to_json()}


def page_records(data: dict[str, Any], where: str) -> tuple[PageRecord, ...]:
    """The root's ``pages``, checked: numbered 2, 3, ... and holding ascending, disjoint id
    ranges after the root's own entries (so one lookup by id finds one page)."""
    pages = data.get("pages")
    if not isinstance(pages, list):
        raise CatalogFormatError(f"{where}: 'pages' is not a list (format_version 2 needs one)")
    records = tuple(PageRecord.from_json(item, f"{where}: pages[{i}]") for i, item in enumerate(pages))
    before = max((e["id"] for e in data["skills"]), default="")
    for number, record in enumerate(records, start=2):
        if record.page != number:
            raise CatalogFormatError(f"{where}: pages[{number - 2}] is page {record.page}, expected {number}")
        if record.first <= before:
            raise CatalogFormatError(f"{where}: page {number} starts at {record.first!r}, not after {before!r}; "
                                     "pages must hold ascending ids")
        before = record.last
    return records


def find_page(records: Sequence[PageRecord], skill_id: str) -> PageRecord | None:
    """The page whose id range holds ``skill_id`` (the skill is there or nowhere), or None."""
    at = bisect.bisect_right([r.first for r in records], skill_id) - 1
    if at >= 0 and skill_id <= records[at].last:
        return records[at]
    return None
