"""``skillsite mcp``: a published catalog as an MCP server over stdio.

Tools: ``search_skills``, ``load_skill``, ``read_skill_resource``, ``read_knowledge``; resources: the catalog
listing (``skillsite://catalog``, in pages of CATALOG_PAGE_BYTES, each naming the next) and the
prompt block (``skillsite://available_skills``);
prompts: every user-invocable skill under its slash command, with one optional ``task``
argument (clients offer them as slash commands).  ``resources/list`` and ``prompts/list`` are
answered in pages (:mod:`skillsite.mcp.list_pages`).  The server also speaks the MCP Skills
extension (``skills/list``, ``skills/get``, ``skill://`` resources; see
:mod:`skillsite.mcp.skills`), declared under ``capabilities.extensions``.  The prompts and the
``skill://`` resources are listed from the catalog and given to the SDK one at a time, when a
request names one (:mod:`skillsite.mcp.on_demand`): start-up does not grow with SDK objects.
Everything is served through :mod:`skillsite.loader`, so content is verified against the
manifest's digests before it reaches the client.  Given a way to open the catalog again, the
server does so when a request fails because the host published a new build or the signed
metadata expired, and retries it on the new build (:mod:`skillsite.mcp.reopening`); the client
is told its lists changed (:mod:`skillsite.mcp.list_changed`).

The ``mcp`` package is an optional extra (``pip install 'skillsite[mcp]'``), imported
only here and only when a server is built: ``MCPServer``, from LOWEST_MCP on (its server
middleware pages the lists; mcp 1.x has none).
"""
from __future__ import annotations

import dataclasses
import importlib.metadata
import json
import re
from typing import Any, Callable

from skillsite.agent.catalog_format import within_max_risk
from skillsite.agent.entry import ManifestEntry
from skillsite.loader import Catalog, LoaderError
from skillsite.mcp.cursors import OtherBuild, build_of, named_start_text, page_cursor
from skillsite.mcp.list_pages import ListPages, named_start, page_ends
from skillsite.mcp.on_demand import OnDemand
from skillsite.mcp.once import Once
from skillsite.mcp.reopening import Reopening, reopen_reason
from skillsite.mcp.served_entries import (MAX_PATH_BYTES, CheckedEntries, ServedEntries, bounded_text, served_entries,
                                          wire_text)
from skillsite.mcp.skills import PAGE_SIZE, SkillsIndex, error_message

#: The oldest mcp release the server runs on (the ``mcp`` extra's floor): mcp 1.x has no server
#: middleware, which pages the lists, and mcp 2.0.0 hid a resource's error behind "Error reading
#: resource URI" (a file that fails its digest, a skill above ``--max-risk``).
LOWEST_MCP = (2, 1)
INSTALL_HINT = (f"the MCP server needs the 'mcp' package, {'.'.join(map(str, LOWEST_MCP))} or later: "
                "pip install 'skillsite[mcp]'")
CATALOG_URI = "skillsite://catalog"
#: A later page of the catalog resource, by the offset of its first skill (each page's ``next``).
CATALOG_PAGE_URI = CATALOG_URI + "/page/{start}"
#: The most a page of the catalog resource holds of its skills, as JSON in UTF-8 (a page holds one
#: skill at least): some 600 skills of the example catalog's (about 440 bytes each), where a catalog
#: of 20,000 skills made one answer of 8.8 MB.
CATALOG_PAGE_BYTES = 256 * 1024
#: The most nested skill ids a skill of the catalog resource lists (its first ones; a build makes
#: no skill with more than a few), as many as MAX_TAGS.
MAX_CHILDREN = 64
PROMPT_URI = "skillsite://available_skills"


class MCPUnavailable(RuntimeError):
    """The optional ``mcp`` package is not installed, or older than LOWEST_MCP."""


def release(version: str) -> tuple[int, int] | None:
    """A version's major and minor release numbers ("2.1.0rc1" -> (2, 1)); None when it has none."""
    found = re.match(r"(\d+)\.(\d+)", version)
    return (int(found[1]), int(found[2])) if found else None


def _sdk() -> tuple[type, type[Exception], type[Exception]]:
    """The server class, ToolError and ResourceError of the installed mcp SDK (MCPUnavailable when
    it is missing or older than LOWEST_MCP)."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ResourceError, ToolError
    except ImportError as exc:
        raise MCPUnavailable(f"{INSTALL_HINT} ({exc})") from None
    try:
        installed = importlib.metadata.version("mcp")
    except importlib.metadata.PackageNotFoundError:  # imported from a folder: its version unknown
        return MCPServer, ToolError, ResourceError
    number = release(installed)
    if number is not None and number < LOWEST_MCP:
        raise MCPUnavailable(f"{INSTALL_HINT} (mcp {installed} is installed)")
    return MCPServer, ToolError, ResourceError


def catalog_title(catalog: Catalog) -> str | None:
    """The catalog's ``site.title`` when it is text, :func:`bounded_text` (a catalog is untrusted:
    ``site`` may be anything)."""
    site = catalog.manifest.get("site")
    title = site.get("title") if isinstance(site, dict) else None
    return bounded_text(title) if isinstance(title, str) and title.strip() else None


def listed_skill(entry: ManifestEntry) -> dict[str, Any]:
    """One skill of the catalog resource: its first MAX_CHILDREN nested skill ids, and
    ``children_total`` when it has more (a catalog may give a skill any number)."""
    item: dict[str, Any] = {"id": entry.id, "name": entry.name, "description": entry.description,
                            "tags": list(entry.tags), "hidden": entry.visibility.hidden,
                            "children": list(entry.children[:MAX_CHILDREN])}
    if len(entry.children) > MAX_CHILDREN:
        item["children_total"] = len(entry.children)
    return item


class CatalogListing:
    """The catalog resource: every skill the server may serve (hidden ones flagged), in pages of
    at most CATALOG_PAGE_BYTES of skills; those the audit rates above ``max_risk`` are left out,
    as the loader never offers them, and counted in ``withheld``, as are those left out for an
    id or path over MAX_PATH_BYTES (``checked``: the server's :class:`ServedEntries`, else
    checked here).  Pages are cut once: a server that opens its catalog again makes another listing."""

    def __init__(self, catalog: Catalog, checked: CheckedEntries | ServedEntries | None = None,
                 page_bytes: int = CATALOG_PAGE_BYTES) -> None:
        entries, left_out = served_entries(catalog, checked).all()
        usable = [e for e in entries if within_max_risk(e, catalog.max_risk)]
        self.head = {"title": catalog_title(catalog), "location": catalog.location}
        self.withheld = {"above_max_risk": len(entries) - len(usable), "max_risk": catalog.max_risk,
                         "over_path_limit": sum(item.over_limits for item in left_out),
                         "max_path_bytes": MAX_PATH_BYTES}
        self.skills = [listed_skill(e) for e in usable]
        self.ends = page_ends(self.skills, page_bytes)  # page start -> end
        self.build = build_of(catalog)   # what each ``next`` names (:mod:`~skillsite.mcp.cursors`)

    def page(self, start: int = 0) -> dict[str, Any]:
        """The page starting at the ``start``-th skill (one a ``next`` gave; KeyError otherwise):
        ``total`` counts every skill of every page, ``next`` is the next page's URI (None: the last)."""
        end = self.ends[start]
        return {**self.head, "skills": self.skills[start:end], "withheld": self.withheld,
                "total": len(self.skills),
                "next": CATALOG_PAGE_URI.format(start=page_cursor(end, self.build)) if end < len(self.skills)
                else None}

    def page_at(self, start: str) -> dict[str, Any] | None:
        """The page a ``next`` URI's ``start`` names, or None when no page starts there
        (OtherBuild for a ``next`` of another build)."""
        named = named_start(named_start_text(start, self.build), self.ends)
        return self.page(named) if named is not None else None


def catalog_listing(catalog: Catalog, checked: CheckedEntries | ServedEntries | None = None) -> dict[str, Any]:
    """The catalog resource's first page (:class:`CatalogListing`)."""
    return CatalogListing(catalog, checked).page()


def skills_extension(catalog: Catalog, page_size: int = PAGE_SIZE,
                     checked: CheckedEntries | ServedEntries | None = None) -> Any:
    """The MCP Skills extension for ``MCPServer(extensions=[...])`` (:mod:`skillsite.mcp.extension`,
    which needs the SDK)."""
    from skillsite.mcp.extension import SkillsExtension

    return SkillsExtension(SkillsIndex(catalog, page_size, checked))


@dataclasses.dataclass(frozen=True)
class CatalogParts:
    """Everything the server makes of one opened catalog, replaced together when it is opened
    again (:class:`~skillsite.mcp.reopening.Reopening`): each entry checked once
    (:class:`ServedEntries`), the extension's index, the slash prompts, the catalog listing."""

    catalog: Catalog
    checked: ServedEntries
    index: SkillsIndex
    prompts: Any    # skillsite.mcp.tools.SlashPrompts (pydantic, which comes with the SDK)
    listing: Once[CatalogListing]


def catalog_parts(catalog: Catalog, reopens: bool = False,
                  error_text: Callable[[Exception], str] = str) -> CatalogParts:
    """The parts of ``catalog``, each made when a request first needs it: nothing is read yet
    (``reopens``: for a server that opens the catalog again, whose ``skills/list`` then fails
    for a skill that fails because of a new build, rather than leave it out; ``error_text``: how
    the index words a loader error it names)."""
    from skillsite.mcp.tools import SlashPrompts

    checked = ServedEntries(catalog)
    cures = (lambda exc: reopen_reason(catalog, exc) is not None) if reopens else (lambda exc: False)
    return CatalogParts(catalog, checked, SkillsIndex(catalog, PAGE_SIZE, checked, cures, error_text),
                        SlashPrompts(catalog, checked), Once(lambda: CatalogListing(catalog, checked)))


def build_server(catalog: Catalog, error_text: Callable[[Exception], str] = str,
                 reopen: Callable[[], Catalog] | None = None) -> Any:
    """An MCP server (not yet running) exposing ``catalog``, speaking the MCP Skills extension too
    (:mod:`skillsite.mcp.skills`); the prompts of its skills and their ``skill://`` files are
    listed from the catalog, and each given to the SDK only when a request names it
    (:mod:`skillsite.mcp.on_demand`).  ``error_text`` words a loader error
    for the tools' and the extension's answers (``skillsite mcp`` names its own flags).  Each entry is checked once,
    when a request first needs it (:class:`ServedEntries`, which logs each one left out), and
    every part serves those: start-up reads no entry (nor a paged catalog's pages).

    ``reopen`` opens the catalog again as it was opened (a LoaderError when it cannot): a request
    that fails because the host published a new build, or the signed metadata expired, is
    retried once on it, every part made anew, and the client is told the lists changed.
    Without it, the server serves ``catalog`` for good."""
    server_class, tool_error, resource_error = _sdk()
    from mcp.server.subscriptions import InMemorySubscriptionBus

    from skillsite.mcp.extension import SkillsExtension
    from skillsite.mcp.list_changed import ListsChanged
    from skillsite.mcp.tools import ServedPrompts, add_tools  # need pydantic, which comes with the SDK

    title = catalog_title(catalog) or "skills"
    served = Reopening(catalog_parts(catalog, reopen is not None, error_text),
                       None if reopen is None else lambda: catalog_parts(reopen(), True, error_text))
    extension = SkillsExtension(served.current.index, served, error_text)
    bus = InMemorySubscriptionBus()  # the list-changed events of subscriptions/listen streams
    server = server_class("skillsite", subscriptions=bus, instructions=(
        f"Agent skills from the catalog '{title}'. Call search_skills {{\"query\": ...}} to find a skill "
        "for the task, load_skill {\"skill\": <id or name>} to read its instructions, "
        "read_skill_resource {\"skill\": ..., \"path\": ...} for files it references, and read_knowledge "
        "{\"path\": ...} for the knowledge documents its <knowledge> block lists."
        " Skills are also served through the MCP Skills extension (skills/list, skill:// resources)."),
        extensions=[extension])
    server.middleware.append(ListsChanged(served, bus, error_text))  # retries the lists, tells of new ones
    pages = ListPages(lambda: build_of(served.current.catalog), version=lambda: served.generation)
    server.middleware.append(pages)  # pages what OnDemand lists
    server.middleware.append(OnDemand(ServedPrompts(server, served).on_demand(), extension.on_demand(server)))
    extension.declare_in_handshake(server)
    add_tools(server, catalog, tool_error, error_text, served=served)
    _add_resources(server, served, resource_error, error_text)
    return server


def _add_resources(server: Any, served: Reopening[CatalogParts], resource_error: type[Exception],
                   error_text: Callable[[Exception], str]) -> None:
    """The catalog listing and the prompt block, both of the entries the server serves (a
    malformed entry or one over MAX_PATH_BYTES is in neither), of the catalog served now; a loader
    error is the read's error, with its reason (the SDK's ``ResourceError``, whose message
    reaches the client)."""

    def read(call: Callable[[CatalogParts], Any]) -> Any:
        """``call`` on the parts served now (once more on the catalog opened anew, when that cures
        its failure); a loader error as the read's error."""
        try:
            return served.run(call)
        except LoaderError as exc:
            raise resource_error(error_message(exc, error_text)) from None

    def read_listing() -> CatalogListing:  # made at the first read of each catalog served
        return read(lambda parts: parts.listing())

    @server.resource(CATALOG_URI, name="catalog", mime_type="application/json",
                     description="Every skill in the catalog (JSON), in pages: \"next\" is the next page's URI.")
    def catalog_resource() -> str:
        return wire_text(json.dumps(read_listing().page(), ensure_ascii=False))  # the location too

    @server.resource(CATALOG_PAGE_URI, name="catalog_page", mime_type="application/json",
                     description="A later page of skillsite://catalog, as its \"next\" names it.")
    def catalog_page(start: str) -> str:
        try:
            page = read_listing().page_at(start)
        except OtherBuild as exc:
            raise resource_error(f"no page of {CATALOG_URI} at {exc}") from None
        if page is None:
            raise resource_error(f"no page of {CATALOG_URI} starts at {bounded_text(start, 40)!r}: "
                                 "read the pages from skillsite://catalog on, by their \"next\"")
        return wire_text(json.dumps(page, ensure_ascii=False))

    @server.resource(PROMPT_URI, name="available_skills", mime_type="application/xml",
                     description="The <available_skills> block of the skills eligible on this machine.")
    def prompt_resource() -> str:
        return read(lambda parts: parts.catalog.prompt(entries=parts.checked.all().entries))


def slash_commands(catalog: Catalog, checked: CheckedEntries | ServedEntries | None = None) -> list[ManifestEntry]:
    """The manifest entries of the skills a user can invoke, by command (none the audit rates
    above ``max_risk``: the loader would refuse them), of ``checked`` (else checked here)."""
    entries = [e for e in served_entries(catalog, checked).all().entries
               if e.slash_command is not None and within_max_risk(e, catalog.max_risk)]
    return sorted(entries, key=lambda e: e.slash_command or "")


def serve(catalog: Catalog, error_text: Callable[[Exception], str] = str,
          reopen: Callable[[], Catalog] | None = None) -> None:
    """Serve ``catalog`` over stdio until the client disconnects (opened again by ``reopen``, when
    given, once a request shows the host published a new build or the signed metadata expired)."""
    build_server(catalog, error_text, reopen).run("stdio")
