"""The catalog's entries as the MCP server serves them: each checked once, when first needed
(:class:`ServedEntries`), its texts made what JSON-RPC in UTF-8 can carry (:func:`wire_text`,
:func:`bounded_text`), or left out (:class:`LeftOut`) when malformed or over the server's limits
on ids and paths (``MAX_PATH_BYTES``).  Every part of the server (the tools, the prompts, the
Skills extension) serves from one :class:`ServedEntries`, so the log names each entry once."""
from __future__ import annotations

import dataclasses
import logging
import re
import threading
from typing import Any, Iterable, NamedTuple

from skillsite.agent.catalog_format import text_bytes
from skillsite.agent.entry import ManifestEntry
from skillsite.agent.errors import LoaderError
from skillsite.agent.manifest_check import safe_relpath
from skillsite.loader import Catalog
from skillsite.mcp.once import Once

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
ELLIPSIS = "\u2026"

log = logging.getLogger(__name__)


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
    prompt runs by; :func:`~skillsite.mcp.tools.command_prompt` bounds the name it lists) whole.
    Its id and children are checked to hold no lone surrogate already."""
    tags = tuple(bounded_text(tag) for tag in entry.tags[:MAX_TAGS])
    texts = {"name": bounded_text(entry.name), "description": bounded_text(entry.description), "tags": tags,
             "command": None if entry.command is None else wire_text(entry.command)}
    same = all(texts[key] == getattr(entry, key) for key in texts)
    return entry if same else dataclasses.replace(entry, **texts)


class LeftOut(NamedTuple):
    """A catalog entry the server does not serve, and why (the reason bounded, for the log and notes)."""

    id: str                     # as the catalog has it, however long
    reason: str
    over_limits: bool = False   # an id or path over MAX_PATH_BYTES (else a malformed entry)

    @property
    def shown(self) -> str:
        """The id as the log and the notes show it: its first SHOWN_ID characters."""
        return bounded_text(self.id, SHOWN_ID)


def _too_long(what: str, text: str) -> str | None:
    """Why ``text`` (an id or path) is refused, or None when it is at most MAX_PATH_BYTES long."""
    size = text_bytes(text)
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
                    log.warning("leaving out the manifest entry %r: %s%s", checked.shown, checked.reason,
                                self._understated(checked))
                else:
                    checked = _wire_entry(checked)
                self._checked[raw_id] = checked
        return checked

    def _understated(self, left_out: LeftOut) -> str:
        """What the log adds of an entry over the limits when the root said none is (so the first
        skills/list page did not count it)."""
        longest = self.catalog.longest_path_bytes
        if not left_out.over_limits or longest is None or longest > MAX_PATH_BYTES:
            return ""
        return f" (skills.json says no id or path is over {longest:,} bytes: the counts of those left out miss it)"

    def _all(self) -> CheckedEntries:
        entries: list[ManifestEntry] = []
        left_out: list[LeftOut] = []
        for data in self.catalog.skills:
            checked = self.check(data)
            (left_out if isinstance(checked, LeftOut) else entries).append(checked)  # type: ignore[arg-type]
        return CheckedEntries(entries, left_out)

    def _refused(self) -> dict[str, LeftOut]:
        """The entries left out for an id or path over MAX_PATH_BYTES, by id: only those whose
        texts may be that long are checked (:func:`_may_be_over_limits`).  None when the root says
        none is (``counts.longest_path_bytes``, believed for this count; an entry served is still
        checked on its own when read): no page is read for it."""
        longest = self.catalog.longest_path_bytes
        if longest is not None and longest <= MAX_PATH_BYTES:
            return {}
        checked = [self.check(data) for data in self.catalog.skills if _may_be_over_limits(data)]
        return {item.id: item for item in checked if isinstance(item, LeftOut) and item.over_limits}

    def refused_of(self, ids: Iterable[str]) -> dict[str, LeftOut]:
        """Those of ``ids`` (a search's hits) left out for an id or path over MAX_PATH_BYTES, by
        id: each one's entry read (a paged catalog's index and entry file), not every page."""
        found = {}
        for skill_id in ids:
            data = self.catalog.raw_entry(skill_id)
            if data is not None and _may_be_over_limits(data):
                checked = self.check(data)
                if isinstance(checked, LeftOut) and checked.over_limits:
                    found[skill_id] = checked
        return found

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
