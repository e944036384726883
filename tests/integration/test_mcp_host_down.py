"""A paged catalog's host that cannot give a piece for now (HTTP 503) fails the MCP request that
needs it, and the skill is served once the host gives it again: the Skills extension's file
tables do not drop a skill for the server's life because one of its nested skills' entries
could not be fetched at that moment.  The mcp package's own client, connected to the server
in-process; the catalog served over HTTP on 127.0.0.1."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp", reason="the MCP server is an optional extra: pip install 'skillsite[mcp]'")

from mcp.client import Client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402
from mcp.types import Request  # noqa: E402
from pydantic import TypeAdapter  # noqa: E402
from skillsite.config import SiteConfig  # noqa: E402
from skillsite.loader import Catalog  # noqa: E402
from skillsite.mcp.server import build_server  # noqa: E402
from skillsite.publish.build import build  # noqa: E402
from support import EXAMPLES, CountingServer, run_async_in_thread  # noqa: E402

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)

PARENT = "skill://release-manager/SKILL.md"
NESTED = "skill://release-manager/version-bump/SKILL.md"
#: The nested skill's entry file and its page (the page after its parent's, in pages of three):
#: the two places a paged catalog's reader finds that entry.
ENTRY_FILE = "/skills/release-manager/version-bump/entry.json"
DOWN = {ENTRY_FILE, "/manifest/pages/0004.json"}


async def ask(client: Client, method: str, **params: Any) -> dict[str, Any]:
    """The result of an extension request (MCPError for an error answer)."""
    request = Request[dict[str, Any], str](method=method, params=params)
    return await client.session.send_request(request, TypeAdapter(dict[str, Any]))


async def every_resource(client: Client) -> list[str]:
    """The URIs of every resources/list page, following nextCursor (50 pages at most)."""
    pages = [await client.list_resources(cursor=None)]
    while pages[-1].next_cursor is not None and len(pages) < 50:
        pages.append(await client.list_resources(cursor=pages[-1].next_cursor))
    return [str(resource.uri) for page in pages for resource in page.resources]


@pytest.fixture
def host(tmp_path: Path):
    """The example catalog, its manifest paged (three entries a page), served on 127.0.0.1."""
    built = tmp_path / "host"
    assert build([EXAMPLES], built, SiteConfig(shard_above=3), cache_dir=None).ok
    served = CountingServer(built)
    yield served
    served.stop()


@pytest.mark.parametrize("entry_file", ["down", "missing"])
def test_a_nested_skill_the_host_cannot_give_for_now_fails_the_request_and_is_served_once_it_can(
        host: CountingServer, entry_file: str, tmp_path: Path) -> None:
    """Before, the 503 of a nested skill's entry (its entry file, and its page read instead) left
    its parent out of the tables for good: skills/get said "No skill is served" and resources/list
    never listed the parent's files, even once the host answered again.  Now the request fails
    with the host's answer, and the same requests serve the skill once the host gives it.  So
    too when the entry file is missing (404) and only its page is down (503): the reader raised
    the 404, which is for good, and the parent was left out as before."""
    assert all((host.root / path.lstrip("/")).is_file() for path in DOWN)
    host.unavailable |= DOWN
    if entry_file == "missing":
        (host.root / ENTRY_FILE.lstrip("/")).unlink()
        host.unavailable.discard(ENTRY_FILE)
    out: dict[str, Any] = {}

    async def body(server: Any) -> None:
        async with Client(server) as client:
            for what, request in (("get", ask(client, "skills/get", uri=PARENT)), ("list", every_resource(client))):
                with pytest.raises(MCPError) as down:
                    await request
                out[what] = str(down.value)
            out["refused"] = {path for path, code in host.take() if code == 503}
            host.unavailable.clear()
            got = await ask(client, "skills/get", uri=PARENT)
            out["resources"] = [resource["uri"] for resource in got["skill"]["resources"]]
            out["listed"] = await every_resource(client)

    catalog = Catalog.open(host.url + "skills.json", cache_dir=tmp_path / "cache")
    run_async_in_thread(body, build_server(catalog), timeout=120)
    assert "HTTP 503" in out["get"] and "HTTP 503" in out["list"], out
    assert out["refused"] == (DOWN if entry_file == "down" else DOWN - {ENTRY_FILE})
    assert out["resources"][0] == PARENT and NESTED in out["resources"]
    assert PARENT in out["listed"] and NESTED in out["listed"]
    assert len(out["listed"]) == len(set(out["listed"]))
