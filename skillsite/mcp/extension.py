"""The MCP Skills extension bound to the MCP SDK: :class:`SkillsExtension` serves a
:class:`~skillsite.mcp.skills.SkillsIndex` as ``skills/list``, ``skills/get``,
``resources/directory/read`` and ``skill://`` resources.

Importing this module needs the SDK: :func:`skillsite.mcp.server.skills_extension` imports it
only when a server is built.
"""
from __future__ import annotations

from typing import Any, Callable

import anyio
from mcp.server.extension import Extension, MethodBinding, ResourceBinding
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp.server.mcpserver.resources import FunctionResource
from mcp.shared.exceptions import MCPError
from mcp.types import RequestParams

from skillsite.agent.errors import LoaderError
from skillsite.mcp.skills import EXTENSION, INVALID_PARAMS, SkillsError, SkillsIndex, mime_type, wire_content


class ListParams(RequestParams):
    cursor: str | None = None


class GetParams(RequestParams):
    uri: str


class DirectoryParams(RequestParams):
    uri: str
    cursor: str | None = None


async def _call(fn: Callable[[], Any]) -> Any:
    """``fn`` in a worker thread (reads may fetch over the network); SkillsError as MCPError."""
    try:
        return await anyio.to_thread.run_sync(fn)
    except SkillsError as exc:
        raise MCPError(exc.code, str(exc)) from None


def _reader(index: SkillsIndex, uri: str) -> Callable[[], str | bytes]:
    """What ``resources/read`` of ``uri`` returns: the verified bytes, or the resource error."""
    def read() -> str | bytes:
        try:
            return wire_content(index.read(uri))
        except SkillsError as exc:
            raise ResourceNotFoundError(str(exc)) from None
        except LoaderError as exc:
            raise ResourceError(str(exc)) from None
    return read


class SkillsExtension(Extension):
    """skills/list, skills/get, resources/directory/read and the skill:// resources."""

    identifier = EXTENSION

    def __init__(self, index: SkillsIndex) -> None:
        super().__init__()
        self.index = index

    def settings(self) -> dict[str, Any]:
        return {"directoryRead": True}

    def declare_in_handshake(self, server: Any) -> None:
        """Declare the extension in the classic ``initialize`` result as well.

        The SDK drops ``capabilities.extensions`` from a 2025-11-25 ``initialize`` result (its
        schema has no such field) and declares extensions only in ``server/discover``.  The spec
        and its TypeScript SDK declare the extension under ``capabilities.extensions`` in
        ``initialize`` too, so it is put back, and also under ``capabilities.experimental``, which
        2025-11-25 clients (the Python SDK's among them) keep.
        """
        settings = self.settings()

        async def declare(ctx: Any, call_next: Any) -> Any:
            result = await call_next(ctx)
            if ctx.method == "initialize" and isinstance(result, dict) and isinstance(result.get("capabilities"), dict):
                capabilities = result["capabilities"]
                for key in ("extensions", "experimental"):
                    capabilities[key] = {**(capabilities.get(key) or {}), EXTENSION: dict(settings)}
            return result

        server.middleware.append(declare)

    def withhold_from_listing(self, server: Any) -> None:
        """Leave the files of skills above ``max_risk`` out of ``resources/list``.

        They stay registered, so that ``resources/read`` of one is the loader's error naming the
        risk rather than an unknown resource; only the listing, which would offer them, drops them.
        """
        withheld = self.index.withheld

        async def unlisted(ctx: Any, call_next: Any) -> Any:
            result = await call_next(ctx)
            listing = result.get("resources") if ctx.method == "resources/list" and isinstance(result, dict) else None
            if isinstance(listing, list):
                result["resources"] = [r for r in listing if not (isinstance(r, dict) and r.get("uri") in withheld)]
            return result

        server.middleware.append(unlisted)

    def resources(self) -> list[Any]:
        return [ResourceBinding(self._resource(uri, file)) for uri, file in self.index.files.items()]

    def _resource(self, uri: str, file: Any) -> Any:
        entry = self.index.by_id[file.skill_id]
        is_skill_md = uri in self.index.skills
        return FunctionResource(uri=uri, name=entry.name if is_skill_md else file.path.rsplit("/", 1)[-1],
                                description=entry.description if is_skill_md else None,
                                mime_type=mime_type(file.path), fn=_reader(self.index, uri))

    def methods(self) -> list[Any]:
        return [MethodBinding("skills/list", ListParams, self.list_skills),
                MethodBinding("skills/get", GetParams, self.get_skill),
                MethodBinding("resources/directory/read", DirectoryParams, self.read_directory)]

    async def list_skills(self, ctx: Any, params: ListParams) -> dict[str, Any]:
        return await _call(lambda: self.index.list_page(params.cursor))

    async def get_skill(self, ctx: Any, params: GetParams) -> dict[str, Any]:
        return await _call(lambda: self.index.get(params.uri))

    async def read_directory(self, ctx: Any, params: DirectoryParams) -> dict[str, Any]:
        if params.cursor is not None:
            raise MCPError(INVALID_PARAMS, "invalid resources/directory/read cursor")
        return {"resultType": "complete", "resources": await _call(lambda: self.index.directory(params.uri))}
