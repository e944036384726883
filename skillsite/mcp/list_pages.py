"""``resources/list`` and ``prompts/list`` in pages, each naming the next by ``nextCursor``.

The MCP SDK answers both with every entry at once and ignores the cursor: a catalog of 20,000
skills made answers of 20.1 MB and 9.8 MB.  :class:`ListPages` is server middleware
that asks for the whole list once per protocol version (the catalog's entries, from
:mod:`skillsite.mcp.on_demand`, then the SDK's own), cuts it into pages of at most
LIST_PAGE_BYTES of entries and answers each request with the page its cursor names.  The lists
are cut once: the server's resources and prompts do not change while it serves.
"""
from __future__ import annotations

import dataclasses
import json
from typing import Any, Mapping

from skillsite.mcp.skills import INVALID_PARAMS, bounded_text

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


def named_start(given: Any, ends: Mapping[int, int]) -> int | None:
    """The page start ``given`` names: the decimal text of one of ``ends``' starts, written as a
    page's link gave it (no sign, no leading zero); None for anything else."""
    named = isinstance(given, str) and given.isascii() and given.isdigit() and given == str(int(given))
    return int(given) if named and int(given) in ends else None


@dataclasses.dataclass(frozen=True)
class CutList:
    """One list as the SDK gave it (``result``, every entry under ``key``) and its pages."""

    key: str
    result: dict[str, Any]
    ends: dict[int, int]

    def page(self, start: int) -> dict[str, Any]:
        """The page starting at entry ``start``, with ``nextCursor`` naming the next (none on the last)."""
        end, entries = self.ends[start], self.result[self.key]
        page = {**self.result, self.key: entries[start:end]}
        page.pop("nextCursor", None)
        if end < len(entries):
            page["nextCursor"] = str(end)
        return page

    def start_at(self, cursor: Any) -> int | None:
        """The page start a cursor names (one a ``nextCursor`` gave), None for any other."""
        return named_start(cursor, self.ends)


class ListPages:
    """Server middleware answering resources/list and prompts/list a page at a time; any other
    request goes on unchanged.  Placed outside the middleware that filters resources/list, it
    pages what that leaves.  The SDK is asked once per method and protocol version (the wire
    shape of a result depends on the version) and never sees the cursor."""

    def __init__(self, page_bytes: int = LIST_PAGE_BYTES) -> None:
        self.page_bytes = page_bytes
        self.cut: dict[tuple[str, str], CutList] = {}

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        key = PAGED_LISTS.get(ctx.method)
        if key is None or not isinstance(ctx.params, (Mapping, type(None))):
            return await call_next(ctx)  # malformed params: the SDK's error
        params = dict(ctx.params or {})
        cursor = params.pop("cursor", None)
        listed = self.cut.get((ctx.method, str(ctx.protocol_version)))
        if listed is None:
            result = await call_next(dataclasses.replace(ctx, params=params))  # the whole list
            if not (isinstance(result, dict) and isinstance(result.get(key), list)):
                return result  # no list to cut: passed on as it is
            listed = CutList(key, result, page_ends(result[key], self.page_bytes))
            self.cut[(ctx.method, str(ctx.protocol_version))] = listed
        start = 0 if cursor is None else listed.start_at(cursor)
        if start is None:
            from mcp.shared.exceptions import MCPError

            raise MCPError(INVALID_PARAMS, f"invalid {ctx.method} cursor {bounded_text(str(cursor), 40)!r}: "
                                           "list from the first page on, by each page's nextCursor")
        return listed.page(start)
