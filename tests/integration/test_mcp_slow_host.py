"""``skillsite mcp`` over a host slow to answer: the server goes on answering other requests
while one waits for the catalog's files.  Its own request handling (the lists it pages, the
prompts and resources it makes when first named, the catalog opened anew) read the catalog on
the event loop, so a page fetched for ``prompts/list`` held every other request until the host
answered, even ``tools/list``, which reads nothing of the catalog.  A paged catalog served on
127.0.0.1 holds chosen requests; the mcp package's own client is connected in-process."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Awaitable, Callable

import pytest

mcp = pytest.importorskip("mcp", reason="the MCP server is an optional extra: pip install 'skillsite[mcp]'")

import anyio  # noqa: E402
from mcp.client import Client  # noqa: E402
from skillsite.config import SiteConfig  # noqa: E402
from skillsite.loader import Catalog  # noqa: E402
from skillsite.mcp.server import build_server  # noqa: E402
from skillsite.publish.build import build  # noqa: E402
from support import EXAMPLES, CountingServer, run_async_in_thread  # noqa: E402

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)

#: How long the host holds a request when the test does not release it first.
HELD_SECONDS = 5


@pytest.fixture
def paged(tmp_path: Path):
    """The example catalog built paged (pages of 3 entries), served on 127.0.0.1."""
    out = tmp_path / "_site"
    assert build([EXAMPLES], out, SiteConfig(shard_above=3)).ok
    server = CountingServer(out)
    yield server
    server.stop()


def answered_while_held(paged: CountingServer, cache: Path, prefix: str,
                        request: Callable[[Any], Awaitable[Any]]) -> dict[str, Any]:
    """``request`` sent with the host holding the paths under ``prefix``, and tools/list once the host
    holds one: whether that was answered while it was still held, and the request's answer."""
    server = build_server(Catalog.open(paged.url, cache_dir=cache))
    out: dict[str, Any] = {}

    async def body() -> dict[str, Any]:
        async with Client(server) as client:
            held = paged.hold(prefix)
            held.seconds = HELD_SECONDS

            async def send() -> None:
                out["answer"] = await request(client)

            async with anyio.create_task_group() as group:
                group.start_soon(send)
                assert await anyio.to_thread.run_sync(held.reached.wait, 30), "the host was asked nothing held"
                await client.list_tools()
                out["tools while held"] = not held.released.is_set()
                held.release()
        return out

    return run_async_in_thread(body, timeout=120)


def test_tools_list_is_answered_while_prompts_list_waits_for_a_manifest_page(paged: CountingServer,
                                                                          tmp_path: Path) -> None:
    async def prompts(client: Any) -> list[str]:
        return [p.name for p in (await client.list_prompts()).prompts]

    out = answered_while_held(paged, tmp_path / "cache", "/manifest/pages/", prompts)
    assert out["tools while held"] is True
    assert len(out["answer"]) == 13 and "release_manager/changelog" in out["answer"]


def test_tools_list_is_answered_while_prompts_get_looks_for_the_prompt_in_the_manifest_indexes(paged: CountingServer,
                                                                            tmp_path: Path) -> None:
    async def prompt(client: Any) -> str:
        got = await client.get_prompt("release_manager/changelog", {"task": "since v1.2"})
        return got.messages[0].content.text

    out = answered_while_held(paged, tmp_path / "cache", "/manifest/index/", prompt)
    assert out["tools while held"] is True
    assert "since v1.2" in out["answer"]
