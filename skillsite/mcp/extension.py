"""The MCP Skills extension bound to the MCP SDK: :class:`SkillsExtension` serves a
:class:`~skillsite.mcp.skills.SkillsIndex` as ``skills/list``, ``skills/get``,
``resources/directory/read`` and ``skill://`` resources, each file's resource made when first read.

Importing this module needs the SDK: :func:`skillsite.mcp.server.skills_extension` imports it
only when a server is built.
"""
from __future__ import annotations

import threading
from typing import Any, Callable, Iterator, NamedTuple, TypeVar

import anyio
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp.server.mcpserver.resources import FunctionResource
from mcp.shared.exceptions import MCPError
from mcp.types import RequestParams

from skillsite.agent.errors import LoaderError
from skillsite.loader import Catalog
from skillsite.mcp.on_demand import OnDemandList
from skillsite.mcp.reopening import Reopening
from skillsite.mcp.skills import (EXTENSION, INTERNAL_ERROR, INVALID_PARAMS, SkillsError, SkillsIndex, error_message,
                                  mime_type, wire_content)
from skillsite.mcp.unfolding import Unfolding

T = TypeVar("T")


class Indexed(NamedTuple):
    """The parts an extension over one fixed index has (:class:`Reopening` holds them)."""

    catalog: Catalog
    index: SkillsIndex


class ListParams(RequestParams):
    cursor: str | None = None


class GetParams(RequestParams):
    uri: str


class DirectoryParams(RequestParams):
    uri: str
    cursor: str | None = None


async def _call(fn: Callable[[], Any], error_text: Callable[[Exception], str]) -> Any:
    """``fn`` in a worker thread (reads may fetch over the network); SkillsError as MCPError, a
    loader error (a SKILL.md that fails verification) as an internal error with its reason
    (each :func:`~skillsite.mcp.skills.error_message`)."""
    try:
        return await anyio.to_thread.run_sync(fn)
    except SkillsError as exc:
        raise MCPError(exc.code, error_message(exc)) from None
    except LoaderError as exc:
        raise MCPError(INTERNAL_ERROR, error_message(exc, error_text)) from None


def _reader(served: Reopening[Any], uri: str, error_text: Callable[[Exception], str]) -> Callable[[], str | bytes]:
    """What ``resources/read`` of ``uri`` returns: the verified bytes of the catalog served when
    it is read (the SDK keeps the resource past a reopening), or the resource error."""
    def read() -> str | bytes:
        try:
            return wire_content(served.run(lambda parts: parts.index.read(uri)))
        except SkillsError as exc:
            raise ResourceNotFoundError(error_message(exc)) from None
        except LoaderError as exc:
            raise ResourceError(error_message(exc, error_text)) from None
    return read


class SkillsExtension(Extension):
    """skills/list, skills/get, resources/directory/read and the skill:// resources (the SDK is
    given each of those only when read: :meth:`on_demand`).  Each request reads the index of the
    catalog served now (``served``: parts with an ``index``, replaced when the catalog is opened
    again; default: ``index``, for good).  ``error_text`` words a loader error, as for the tools."""

    identifier = EXTENSION

    def __init__(self, index: SkillsIndex, served: Reopening[Any] | None = None,
                 error_text: Callable[[Exception], str] = str) -> None:
        super().__init__()
        self.error_text = error_text
        self.served: Reopening[Any] = served if served is not None else Reopening(Indexed(index.catalog, index))
        self._listed: tuple[SkillsIndex, Unfolding[dict[str, Any]]] | None = None
        self._lock = threading.Lock()

    @property
    def index(self) -> SkillsIndex:
        """The index of the catalog served now."""
        return self.served.current.index

    def _run(self, call: Callable[[SkillsIndex], T]) -> T:
        """``call`` on the current index, once more on the catalog opened anew when that cures its failure."""
        return self.served.run(lambda parts: call(parts.index))

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

    def on_demand(self, server: Any) -> OnDemandList:
        """The ``skill://`` files in ``resources/list``, and each given to ``server`` as a resource
        when ``resources/read`` first names it (:mod:`skillsite.mcp.on_demand`), rather than a
        resource object for each file at start-up (72,736 for a catalog of 20,000 skills).

        The files of skills above ``max_risk`` are left out of the listing, which would offer
        them, but made when read, so that reading one is the loader's error naming the risk
        rather than an unknown resource.
        """
        made: set[str] = set()

        def make(uri: str) -> None:
            if uri not in made:
                server.add_resource(self._resource(uri))
                made.add(uri)

        return OnDemandList("resources/list", "resources", "resources/read", "uri", self.serves, self.listed, make,
                            made.__contains__)

    def serves(self, uri: str) -> bool:
        """Whether ``uri`` is a skill's file (the entries it may be of are checked, for a ``skill://`` URI)."""
        return uri.startswith("skill://") and self._run(lambda index: index.file_tables.file_at(uri)) is not None

    def listed(self) -> Unfolding[dict[str, Any]]:
        """Every ``skill://`` file but those of skills above ``max_risk``, as ``resources/list``
        gives it (as the SDK lists the resource :meth:`_resource` makes, in JSON), each made when
        a page first needs it (:class:`~skillsite.mcp.file_tables.FileTables`); made once for each
        catalog served."""
        index = self.index
        with self._lock:
            if self._listed is None or self._listed[0] is not index:
                self._listed = (index, Unfolding(self._files(index), remake=lambda: self._files(index)))
            return self._listed[1]

    def _files(self, index: SkillsIndex) -> Iterator[dict[str, Any]]:
        """Each ``skill://`` file :meth:`listed` gives, in order."""
        tables = index.file_tables
        return (self._listing(index, uri) for uri in tables.new_files() if uri not in tables.withheld)

    @staticmethod
    def _described(index: SkillsIndex, uri: str) -> tuple[str, str | None, str]:
        """A file's name, description and path (of a file the tables hold): a SKILL.md's name and
        description are its skill's, another file's its own name and none."""
        tables = index.file_tables
        file = tables.file_at(uri)
        if file is None:  # asked only of files listed or served
            raise KeyError(uri)
        entry = tables.entry(file.skill_id) if tables.skill_at(uri) is not None else None
        if entry is not None:  # the SDK names a resource without a name by its URI
            return entry.name or uri, entry.description, file.path
        return file.path.rsplit("/", 1)[-1], None, file.path

    def _listing(self, index: SkillsIndex, uri: str) -> dict[str, Any]:
        name, description, path = self._described(index, uri)
        return {"name": name, "uri": uri, **({} if description is None else {"description": description}),
                "mimeType": mime_type(path)}

    def _resource(self, uri: str) -> Any:
        name, description, path = self._run(lambda index: self._described(index, uri))
        return FunctionResource(uri=uri, name=name, description=description, mime_type=mime_type(path),
                                fn=_reader(self.served, uri, self.error_text))

    def methods(self) -> list[Any]:
        return [MethodBinding("skills/list", ListParams, self.list_skills),
                MethodBinding("skills/get", GetParams, self.get_skill),
                MethodBinding("resources/directory/read", DirectoryParams, self.read_directory)]

    async def list_skills(self, ctx: Any, params: ListParams) -> dict[str, Any]:
        return await _call(lambda: self._run(lambda index: index.list_page(params.cursor)), self.error_text)

    async def get_skill(self, ctx: Any, params: GetParams) -> dict[str, Any]:
        return await _call(lambda: self._run(lambda index: index.get(params.uri)), self.error_text)

    async def read_directory(self, ctx: Any, params: DirectoryParams) -> dict[str, Any]:
        if params.cursor is not None:
            raise MCPError(INVALID_PARAMS, "invalid resources/directory/read cursor")
        found = await _call(lambda: self._run(lambda index: index.directory(params.uri)), self.error_text)
        return {"resultType": "complete", "resources": found}
