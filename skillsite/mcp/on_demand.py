"""The server's per-skill prompts and ``skill://`` resources, given to the MCP SDK one at a time,
when a request first names one.

The SDK serves a prompt or resource only once it holds an object for it, and made at start-up
those were most of a big catalog's start-up (a pydantic model of each prompt's arguments, and one
resource object for each file: 72,736 for 20,000 user-invocable skills).  :class:`OnDemand` is server
middleware that answers the lists from the catalog instead (each entry as the SDK would list
it, ahead of the SDK's own: an :class:`~skillsite.mcp.unfolding.Unfolding`, each entry made
when a page of :mod:`skillsite.mcp.list_pages` first needs it) and, before ``prompts/get`` or
``resources/read`` of an entry of the catalog's reaches the SDK, gives it that entry's object:
the SDK reads, renders, words errors and shapes the answer for the protocol version as it did.
"""
from __future__ import annotations

import dataclasses
import itertools
from typing import Any, Callable, Iterable, Mapping

import anyio

from skillsite.mcp.unfolding import Unfolding


@dataclasses.dataclass(frozen=True)
class OnDemandList:
    """One list of entries made on demand: where a request names one, and what makes it."""

    list_method: str    # "prompts/list"
    key: str            # "prompts": the list in the list method's result
    get_method: str     # "prompts/get"
    field: str          # "name": what names an entry, in the list and in the get's params
    names: Callable[[str], bool]                   # whether a name is one of the entries made on demand
    listed: Callable[[], Iterable[dict[str, Any]]]  # each of them as the list gives it, in order
    make: Callable[[str], None]                    # gives the SDK the named entry's object (once)
    given: Callable[[str], bool]                   # whether ``make`` gave the SDK the named entry


class OnDemand:
    """Server middleware for :class:`OnDemandList` s: a list request gets every entry of the
    catalog's, then the SDK's own (less those it was given on demand), as an
    :class:`~skillsite.mcp.unfolding.Unfolding` (ListPages cuts it); a get request naming an
    entry of the catalog's has its object made first.  Placed inside ListPages, which pages
    what it answers; anything else goes on unchanged."""

    def __init__(self, *lists: OnDemandList) -> None:
        self.listing = {item.list_method: item for item in lists}
        self.getting = {item.get_method: item for item in lists}

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        wanted = self.getting.get(ctx.method)
        if wanted is not None:
            named = ctx.params.get(wanted.field) if isinstance(ctx.params, Mapping) else None
            # the catalog is read to find the entry off the event loop; the SDK's own objects are
            # added on it, as its handlers read them there (the entry is then found in memory)
            if isinstance(named, str) and await anyio.to_thread.run_sync(wanted.names, named):
                wanted.make(named)
            return await call_next(ctx)
        result = await call_next(ctx)
        listed = self.listing.get(ctx.method)
        if listed is None or not (isinstance(result, dict) and isinstance(result.get(listed.key), list)):
            return result
        own = [entry for entry in result[listed.key] if not made_on_demand(entry, listed)]
        return {**result, listed.key: Unfolding(itertools.chain(listed.listed(), own),
                                                remake=lambda: itertools.chain(listed.listed(), own))}


def made_on_demand(entry: Any, listed: OnDemandList) -> bool:
    """Whether an entry the SDK listed is one ``listed`` gave it (listed already, ahead of the SDK's)."""
    named = entry.get(listed.field) if isinstance(entry, dict) else None
    return isinstance(named, str) and listed.given(named)
