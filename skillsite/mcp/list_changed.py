"""Server middleware telling the client that the catalog served was opened anew (:class:`ListsChanged`).

Once :class:`~skillsite.mcp.reopening.Reopening` replaced the catalog's parts during a request,
the prompts and resources it lists are the new build's: the client is sent
``notifications/prompts/list_changed`` and ``notifications/resources/list_changed`` (on the
request's session, and on the server's subscription bus for ``subscriptions/listen`` streams),
and ``initialize`` declares ``listChanged`` for both.  A ``prompts/list`` or ``resources/list``
whose entries fail for a reason opening the catalog again cures is retried once on the new parts.
Importing this module needs the SDK.
"""
from __future__ import annotations

import logging
from typing import Any, Callable

import anyio
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import PromptsListChanged, ResourcesListChanged

from skillsite.loader import LoaderError, TrustError
from skillsite.mcp.list_pages import PAGED_LISTS
from skillsite.mcp.reopening import Reopening
from skillsite.mcp.served_entries import wire_text
from skillsite.mcp.skills import INTERNAL_ERROR

log = logging.getLogger(__name__)
#: The capabilities whose lists change when the catalog is opened anew.
CHANGING = ("prompts", "resources")
#: The requests answered, in part at least, from what the server read of the catalog already:
#: once its signed metadata expired, the catalog is opened again before they are.
FROM_MEMORY = frozenset({*PAGED_LISTS, "skills/list", "skills/get", "resources/read", "resources/directory/read",
                         "prompts/get"})


class ListsChanged:
    """Outermost server middleware over ``served``: each request that saw the parts replaced
    sends the list-changed notifications (``bus``: the server's subscription bus); the lists are
    retried once on the catalog opened anew; a loader error of a list is its error, worded by
    ``error_text``."""

    def __init__(self, served: Reopening[Any], bus: Any, error_text: Callable[[Exception], str] = str) -> None:
        self.served, self.bus, self.error_text = served, bus, error_text

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        before = self.served.generation
        try:
            result = await self._answer(ctx, call_next)
        finally:
            if self.served.generation != before and ctx.request_id is not None:
                await self._announce(ctx)
        if ctx.method == "initialize":
            declare_list_changed(result)
        return result

    async def _answer(self, ctx: Any, call_next: Any) -> Any:
        """The request's answer; a list whose entries fail is retried on the catalog opened anew.
        A loader error no part words (one met on the way to the SDK: a prompt or resource made
        when first named) is the request's error, worded by ``error_text``."""
        if ctx.method in FROM_MEMORY:   # opening the catalog again fetches it: off the event loop
            await anyio.to_thread.run_sync(self._still_signed)
        if ctx.method not in PAGED_LISTS:
            try:
                return await call_next(ctx)
            except LoaderError as exc:
                raise MCPError(INTERNAL_ERROR, wire_text(self.error_text(exc))) from None
        parts = self.served.current
        try:
            return await call_next(ctx)
        except LoaderError as exc:
            try:
                await anyio.to_thread.run_sync(self.served.recover, parts, exc)
            except LoaderError as failed:
                raise MCPError(INTERNAL_ERROR, wire_text(self.error_text(failed))) from None
        try:
            return await call_next(ctx)
        except LoaderError as exc:
            raise MCPError(INTERNAL_ERROR, wire_text(self.error_text(exc))) from None

    def _still_signed(self) -> None:
        """The catalog opened again once its signed metadata expired, before a request answered
        from what the server read already (its lists, a skill's entry): as a read of a file would
        be, it is refused when opening again fails."""
        parts = self.served.current
        try:
            try:
                parts.catalog.still_signed()
            except TrustError as exc:
                self.served.recover(parts, exc)
        except LoaderError as exc:
            raise MCPError(INTERNAL_ERROR, wire_text(self.error_text(exc))) from None

    async def _announce(self, ctx: Any) -> None:
        """The list-changed notifications, to the request's client and to listening streams."""
        try:
            await ctx.session.send_prompt_list_changed()
            await ctx.session.send_resource_list_changed()
            for event in (PromptsListChanged(), ResourcesListChanged()):
                await self.bus.publish(event)
        except Exception as exc:  # a client gone: its next request finds the new catalog all the same
            log.debug("skillsite mcp: the list-changed notifications were not sent: %s", exc)


def declare_list_changed(result: Any) -> None:
    """Declare ``listChanged`` for the prompts and resources of an ``initialize`` result (the SDK
    declares it only when given notification options, which ``MCPServer.run`` never passes)."""
    capabilities = result.get("capabilities") if isinstance(result, dict) else None
    if not isinstance(capabilities, dict):
        return
    for key in CHANGING:
        if isinstance(capabilities.get(key), dict):
            capabilities[key]["listChanged"] = True
