"""``resources/list`` and ``prompts/list`` in pages, each naming the next by ``nextCursor``.

The MCP SDK answers both with every entry at once and ignores the cursor: a catalog of 20,000
skills made answers of 20.1 MB and 9.8 MB.  :class:`ListPages` is server middleware
that asks for the whole list once per protocol version (the catalog's entries, from
:mod:`skillsite.mcp.on_demand`, then the SDK's own), cuts it into pages of at most
LIST_PAGE_BYTES of entries and answers each request with the page its cursor names.  The
catalog's entries come as an :class:`~skillsite.mcp.unfolding.Unfolding`, each made (its entry
checked) when a page first needs it: a page is cut when first asked for, so the first page
costs what its entries do, not what the catalog's do.  The lists are cut once for each catalog
served: they change only when the server opens its catalog again (a new ``version``).
"""
from __future__ import annotations

import dataclasses
import json
from typing import Any, Callable, Container, Mapping

import anyio

from skillsite.mcp.cursors import OtherBuild, named_start_text, names_a_build, page_cursor
from skillsite.mcp.served_entries import bounded_text
from skillsite.mcp.skills import INVALID_PARAMS
from skillsite.mcp.unfolding import Unfolding

#: The most one page of resources/list or prompts/list holds of its entries, as JSON in UTF-8 (a
#: page holds one entry at least): some 1,500 resources or 600 prompts of the example catalog's.
LIST_PAGE_BYTES = 256 * 1024
#: The methods paged, each with the key of its entries in the result.
PAGED_LISTS = {"resources/list": "resources", "prompts/list": "prompts"}


def entry_bytes(entry: Any) -> int:
    """What ``entry`` adds to a page: its JSON in UTF-8 and a separator."""
    return len(json.dumps(entry, ensure_ascii=False).encode("utf-8", "surrogatepass")) + 2


def page_ends(entries: list[Any], limit: int) -> dict[int, int]:
    """Each page's start and end: a page takes entries in order while they stay within ``limit``
    bytes, and at least one; an empty list is one empty page."""
    starts, used = [0], 0
    for index, entry in enumerate(entries):
        size = entry_bytes(entry)
        if used and used + size > limit:
            starts.append(index)
            used = 0
        used += size
    return dict(zip(starts, [*starts[1:], len(entries)]))


def named_start(given: Any, starts: Container[int]) -> int | None:
    """The page start ``given`` names: the decimal text of one of ``starts``, written as a
    page's link gave it (no sign, no leading zero); None for anything else."""
    named = isinstance(given, str) and given.isascii() and given.isdigit() and given == str(int(given))
    return int(given) if named and int(given) in starts else None


class CutList:
    """One list as the SDK gave it (``result``, its entries under ``key`` as ``entries``), cut
    into pages of at most ``page_bytes`` of entries as they are asked for: a page takes entries
    in order while they stay within the limit, and at least one (an empty list is one empty page).
    Its cursors name ``build``, the build of the catalog it lists (:mod:`~skillsite.mcp.cursors`)."""

    def __init__(self, key: str, result: dict[str, Any], entries: Unfolding[Any], page_bytes: int,
                 build: str) -> None:
        self.key, self.result, self.entries, self.page_bytes = key, result, entries, page_bytes
        self.build = build
        self.ends: dict[int, int] = {}   # page start -> end, of the pages cut so far
        self.starts = {0}                # the first page's and each one a nextCursor named

    def page(self, start: int) -> dict[str, Any]:
        """The page starting at entry ``start`` (0 or a start :meth:`start_at` gave), with
        ``nextCursor`` naming the next (none on the last)."""
        end = self.ends.get(start)
        if end is None:
            end = self.ends[start] = self._end(start)
        page = {**self.result, self.key: self.entries.between(start, end)}
        page.pop("nextCursor", None)
        if self.entries.reaches(end + 1):
            page["nextCursor"] = page_cursor(end, self.build)
            self.starts.add(end)
        return page

    def _end(self, start: int) -> int:
        """Where the page starting at ``start`` ends."""
        end, used = start, 0
        while self.entries.reaches(end + 1):
            size = entry_bytes(self.entries[end])
            if used and used + size > self.page_bytes:
                break
            used, end = used + size, end + 1
        return end

    def start_at(self, cursor: Any) -> int | None:
        """The page start a cursor names (one a ``nextCursor`` gave), None for any other;
        OtherBuild for one of another build.  A cursor naming this build names a start of this
        very list even when the list was cut anew since (a server that opened its catalog again
        and found the same build): the pages are cut from the first up to it."""
        start = named_start_text(cursor, self.build)
        found = named_start(start, self.starts)
        return self._cut_to(start) if found is None and names_a_build(cursor) else found

    def _cut_to(self, start: str) -> int | None:
        """The page start ``start`` (digits, as a page writes them) when the pages cut from the
        first reach it, else None."""
        if start != str(int(start)):
            return None
        target, at = int(start), 0
        while at < target and self.entries.reaches(at + 1):
            end = self.ends.get(at)
            if end is None:
                end = self.ends[at] = self._end(at)
            at = end
        if at != target or not self.entries.reaches(at + 1):
            return None
        self.starts.add(at)
        return at


class ListPages:
    """Server middleware answering resources/list and prompts/list a page at a time; any other
    request goes on unchanged.  Placed outside the middleware that filters resources/list, it
    pages what that leaves.  The SDK is asked once per method, protocol version (the wire
    shape of a result depends on the version) and ``version()`` of the catalog served, and
    never sees the cursor.  Cursors name ``build()``, the build of the catalog served: one of
    an older build is refused as such."""

    def __init__(self, build: Callable[[], str], page_bytes: int = LIST_PAGE_BYTES,
                 version: Callable[[], int] = lambda: 0) -> None:
        self.page_bytes = page_bytes
        self.build, self.version = build, version
        self.cut: dict[tuple[str, str], CutList] = {}
        self._cut_of = version()

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        key = PAGED_LISTS.get(ctx.method)
        if key is None or not isinstance(ctx.params, (Mapping, type(None))):
            return await call_next(ctx)  # malformed params: the SDK's error
        params = dict(ctx.params or {})
        cursor = params.pop("cursor", None)
        if self._cut_of != self.version():  # the catalog was opened anew: its lists are cut anew
            self.cut, self._cut_of = {}, self.version()
        listed = self.cut.get((ctx.method, str(ctx.protocol_version)))
        if listed is None:
            # the build asked of, named before it is read: should the catalog be opened anew
            # meanwhile, the list's cursors name the build it may be of, which the next request
            # refuses, and the list is not kept in place of the new build's
            build, version = self.build(), self._cut_of
            result = await call_next(dataclasses.replace(ctx, params=params))  # the whole list
            if not (isinstance(result, dict) and isinstance(result.get(key), (list, Unfolding))):
                return result  # no list to cut: passed on as it is
            entries = result[key] if isinstance(result[key], Unfolding) else Unfolding(result[key])
            listed = CutList(key, result, entries, self.page_bytes, build)
            if version == self._cut_of == self.version():
                self.cut[(ctx.method, str(ctx.protocol_version))] = listed
        # the entries are read as pages are cut (a paged catalog's manifest pages fetched, up to
        # a cursor's page too): off the event loop, which goes on answering other requests meanwhile
        start = 0 if cursor is None else await anyio.to_thread.run_sync(_start, listed, cursor, ctx.method)
        return await anyio.to_thread.run_sync(listed.page, start)


def _start(listed: CutList, cursor: Any, method: str) -> int:
    """The page start ``cursor`` names in ``listed``; the request's error when it names none."""
    from mcp.shared.exceptions import MCPError

    try:
        start = listed.start_at(cursor)
    except OtherBuild as exc:
        raise MCPError(INVALID_PARAMS, f"invalid {method} cursor {exc}") from None
    if start is None:
        raise MCPError(INVALID_PARAMS, f"invalid {method} cursor {bounded_text(str(cursor), 40)!r}: "
                                       "list from the first page on, by each page's nextCursor")
    return start
