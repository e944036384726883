"""``skillsite mcp``: a published catalog as an MCP server over stdio.

Tools: ``search_skills``, ``load_skill``, ``read_skill_resource``; resources: the catalog
listing (``skillsite://catalog``) and the prompt block (``skillsite://available_skills``);
prompts: every user-invocable skill under its slash command, with one optional ``task``
argument (clients offer them as slash commands).  With mcp 2.2+ the server also speaks the MCP
Skills extension (``skills/list``, ``skills/get``, ``skill://`` resources; see
:mod:`skillsite.mcp.skills`), declared under ``capabilities.extensions``.
Everything is served through :mod:`skillsite.loader`, so content is verified against the
manifest's digests before it reaches the client.

The ``mcp`` package is an optional extra (``pip install 'skillsite[mcp]'``), imported
only here and only when a server is built.  Both SDK lines work: ``MCPServer`` (mcp 2.x)
and ``FastMCP`` (mcp 1.x).
"""
from __future__ import annotations

import base64
import json
from typing import Any

from skillsite.agent.entry import ManifestEntry
from skillsite.loader import Catalog, LoaderError
from skillsite.mcp.skills import PAGE_SIZE, SkillsIndex, well_formed_entries

INSTALL_HINT = "the MCP server needs the 'mcp' package: pip install 'skillsite[mcp]'"
CATALOG_URI = "skillsite://catalog"
PROMPT_URI = "skillsite://available_skills"
MAX_K = 50


class MCPUnavailable(RuntimeError):
    """The optional ``mcp`` package is not installed (or too old)."""


def _sdk() -> tuple[type, type[Exception]]:
    """The server class and ToolError of the installed mcp SDK."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
        return MCPServer, ToolError
    except ImportError:
        pass
    try:
        from mcp.server.fastmcp import FastMCP
        from mcp.server.fastmcp.exceptions import ToolError
        return FastMCP, ToolError
    except ImportError as exc:
        raise MCPUnavailable(f"{INSTALL_HINT} ({exc})") from None


def catalog_listing(catalog: Catalog) -> dict[str, Any]:
    """The compact JSON listing served as the catalog resource."""
    site = catalog.manifest.get("site") or {}
    return {
        "title": site.get("title"),
        "location": catalog.location,
        "skills": [{"id": e.id, "name": e.name, "description": e.description, "tags": list(e.tags),
                    "hidden": e.visibility.hidden, "children": list(e.children)}
                   for e in well_formed_entries(catalog)],
    }


def resource_text(data: bytes, path: str) -> str:
    """A bundled file as text; binary files come back base64-encoded, with a one-line header."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return f"[binary file {path}, {len(data)} bytes, base64]\n" + base64.b64encode(data).decode("ascii")


def skills_extension(catalog: Catalog, page_size: int = PAGE_SIZE) -> Any:
    """The MCP Skills extension for ``MCPServer(extensions=[...])`` (:mod:`skillsite.mcp.extension`);
    None when the installed MCP SDK has no extension API."""
    try:
        from skillsite.mcp.extension import SkillsExtension
    except ImportError:
        return None
    return SkillsExtension(SkillsIndex(catalog, page_size))


def build_server(catalog: Catalog) -> Any:
    """An MCP server (not yet running) exposing ``catalog``; with mcp 2.2+ it also speaks the
    MCP Skills extension (:mod:`skillsite.mcp.skills`)."""
    server_class, tool_error = _sdk()
    title = (catalog.manifest.get("site") or {}).get("title") or "skills"
    extension = skills_extension(catalog)
    options = {"extensions": [extension]} if extension is not None else {}
    server = server_class("skillsite", instructions=(
        f"Agent skills from the catalog '{title}'. Call search_skills to find a skill for the task, "
        "load_skill to read its instructions, and read_skill_resource for files it references."
        + (" Skills are also served through the MCP Skills extension (skills/list, skill:// resources)."
           if extension is not None else "")), **options)
    if extension is not None:
        extension.declare_in_handshake(server)
    _add_tools(server, catalog, tool_error)
    _add_resources(server, catalog)
    _add_prompts(server, catalog)
    return server


def _add_tools(server: Any, catalog: Catalog, tool_error: type[Exception]) -> None:
    """search_skills, load_skill and read_skill_resource; a loader error is the tool's error."""

    def guarded(call: Any) -> Any:
        try:
            return call()
        except LoaderError as exc:
            raise tool_error(str(exc)) from None

    @server.tool()
    def search_skills(query: str, k: int = 5, tags: list[str] | None = None) -> str:
        """Find skills for a task. Returns a JSON list of {id, name, description, score}, best first."""
        hits = guarded(lambda: catalog.search(query, k=max(1, min(int(k), MAX_K)), tags=tags or None,
                                              for_model=True))
        return json.dumps([{"id": h.id, "name": h.name, "description": h.description, "score": h.score}
                           for h in hits], ensure_ascii=False)

    @server.tool()
    def load_skill(skill: str) -> str:
        """Load a skill by id or name: its instructions in a <skill_content> block, with its files and sub-skills."""
        return guarded(lambda: catalog.load(skill).xml)

    @server.tool()
    def read_skill_resource(skill: str, path: str) -> str:
        """Read a file bundled with a skill (a path listed in its <skill_resources>, e.g. references/x.md)."""
        return resource_text(guarded(lambda: catalog.resource(skill, path)), path)


def _add_resources(server: Any, catalog: Catalog) -> None:
    """The catalog listing and the prompt block."""

    @server.resource(CATALOG_URI, name="catalog", description="Every skill in the catalog (JSON).",
                     mime_type="application/json")
    def catalog_resource() -> str:
        return json.dumps(catalog_listing(catalog), ensure_ascii=False)

    @server.resource(PROMPT_URI, name="available_skills", mime_type="application/xml",
                     description="The <available_skills> block of the skills eligible on this machine.")
    def prompt_resource() -> str:
        return catalog.prompt()


def slash_commands(catalog: Catalog) -> list[ManifestEntry]:
    """The manifest entries of the skills a user can invoke, by command."""
    entries = [e for e in well_formed_entries(catalog) if e.slash_command is not None]
    return sorted(entries, key=lambda e: e.slash_command or "")


def _add_prompts(server: Any, catalog: Catalog) -> None:
    """One prompt per user-invocable skill, named by its slash command."""
    for entry in slash_commands(catalog):
        _add_prompt(server, catalog, entry.slash_command or "", entry.description)


def _add_prompt(server: Any, catalog: Catalog, command: str, description: str) -> None:
    @server.prompt(name=command, description=description)
    def run_skill(task: str = "") -> str:
        """The skill's instructions, with the task the user typed after the command."""
        try:
            return catalog.command_message(f"/{command} {task}")
        except LoaderError as exc:
            raise ValueError(str(exc)) from None


def serve(catalog: Catalog) -> None:
    """Serve ``catalog`` over stdio until the client disconnects."""
    build_server(catalog).run("stdio")
