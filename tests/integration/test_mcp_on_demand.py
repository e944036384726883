"""``skillsite mcp`` gives the MCP SDK a skill's prompt or ``skill://`` file only when a request
names it, driven by the mcp package's own client connected to the server in-process."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp", reason="the MCP server is an optional extra: pip install 'skillsite[mcp]'")

from mcp.client import Client  # noqa: E402
from skillsite.loader import Catalog  # noqa: E402
from skillsite.mcp.server import CATALOG_URI, PROMPT_URI, build_server  # noqa: E402
from support import run_async_in_thread  # noqa: E402

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)

ROLLBACK = "skill://release-manager/references/rollback.md"


async def held(server: Any) -> tuple[list[str], list[str]]:
    """The prompts and resources the SDK holds an object for (MCPServer's own listing of them)."""
    return [p.name for p in await server.list_prompts()], [str(r.uri) for r in await server.list_resources()]


async def session(server: Any) -> dict[str, Any]:
    """What the SDK holds before a request, after the lists, and after a prompts/get and a resources/read."""
    out = {"start": await held(server)}
    async with Client(server) as client:
        out["prompts"] = [p.name for p in (await client.list_prompts()).prompts]
        out["resources"] = [str(r.uri) for r in (await client.list_resources()).resources]
        out["listed"] = await held(server)
        out["get"] = (await client.get_prompt("release_manager/changelog", {"task": "since v1.2"})).messages
        out["read"] = (await client.read_resource(ROLLBACK)).contents
        out["asked"] = await held(server)
    return out


def test_no_skill_prompt_or_file_is_an_sdk_object_until_a_request_names_it(site: Path) -> None:
    """A catalog of 20,000 user-invocable skills took 40 s and more to start: the server made an SDK
    prompt (a pydantic model of its arguments) for each skill and a resource for each of its
    files before answering anything.  The SDK holds none before a request: the lists come from
    the catalog, and prompts/get or resources/read makes the one object it names."""
    server = build_server(Catalog.open(str(site)))
    out = run_async_in_thread(session, server, timeout=120)
    assert out["start"] == ([], [CATALOG_URI, PROMPT_URI])
    assert len(out["prompts"]) == 13 and "release_manager/changelog" in out["prompts"]
    assert ROLLBACK in out["resources"] and len(out["resources"]) > 13
    assert out["listed"] == out["start"]  # listing made nothing
    assert out["get"][0].content.text.endswith("\n\nTask: since v1.2")
    assert out["read"][0].text == (site / "skills/release-manager/references/rollback.md").read_text("utf-8")
    assert out["asked"] == (["release_manager/changelog"], [CATALOG_URI, PROMPT_URI, ROLLBACK])
