"""``skillsite mcp``'s ``resources/list`` and ``prompts/list`` in pages, each naming the next by
``nextCursor``, followed by the mcp package's own client over stdio."""
from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp", reason="the MCP server is an optional extra: pip install 'skillsite[mcp]'")
anyio = pytest.importorskip("anyio")

from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from mcp.types import PaginatedRequestParams  # noqa: E402
from support import REPO, run_async_in_thread  # noqa: E402

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)

LIST_PAGE_BYTES = 256 * 1024  # the most of a page of resources/list or prompts/list as JSON (docs/agents.md)
SKILLS = 1_500  # generated skills: each list needs 3 pages at least
RISKY = range(50, SKILLS, 100)  # of them, those rated high: above the default --max-risk, in no list


async def session_run(catalog: Path, body: Any) -> Any:
    """``body(session)`` with a client session of ``skillsite mcp`` serving ``catalog``."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "skillsite", "mcp", "--catalog", str(catalog)],
                                   env={"PYTHONPATH": str(REPO), "PATH": os.environ.get("PATH", "")}, cwd=str(REPO))
    with open(os.devnull, "w", encoding="utf-8") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                with anyio.fail_after(120):  # a server that died mid-answer leaves the client waiting
                    await session.initialize()
                    return await body(session)


async def every_page(list_page: Any) -> list[Any]:
    """Every page of a list, following ``nextCursor`` from the first page (at most 200)."""
    pages = [await list_page(None)]
    while pages[-1].next_cursor is not None and len(pages) < 200:
        pages.append(await list_page(PaginatedRequestParams(cursor=pages[-1].next_cursor)))
    return pages


async def refused(list_page: Any, cursor: str) -> str | None:
    """The error a list gives for ``cursor``, None when it answers."""
    try:
        await list_page(PaginatedRequestParams(cursor=cursor))
    except Exception as exc:  # the client raises the server's error
        return f"{getattr(getattr(exc, 'error', None), 'code', None)} {exc}"
    return None


def grown_catalog(site: Path, tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """The example catalog with SKILLS more user-invocable skills, copies of release-manager
    under their own ids and slash commands, without its nested skills (each a prompt, its files
    resources), those in RISKY rated high."""
    big = tmp_path / "site"
    shutil.copytree(site, big)
    data = json.loads((big / "skills.json").read_text("utf-8"))
    model = next(e for e in data["skills"] if e["id"] == "release-manager")
    for i in range(SKILLS):
        data["skills"].append({**model, "id": f"gen-{i:05d}", "name": f"gen-{i:05d}", "command": f"gen_{i:05d}",
                               "children": [], "audit": {**model["audit"], "risk": "high" if i in RISKY else "low"}})
    (big / "skills.json").write_text(json.dumps(data), "utf-8")
    return big, model


def test_resources_and_prompts_are_listed_in_pages_following_the_cursor(site: Path, tmp_path: Path) -> None:
    """resources/list and prompts/list were one answer each, with no bound (20.1 MB and 9.8 MB at
    20,000 skills): the SDK ignores the cursor for both.  Each is cut into pages of at most
    LIST_PAGE_BYTES, each naming the next by ``nextCursor`` (absent on the last); following it,
    the client lists every resource and prompt exactly once, but those of skills above
    --max-risk; a cursor no page gave is -32602."""
    async def small(session: ClientSession) -> dict[str, Any]:
        return {"resources": await every_page(lambda p: session.list_resources(params=p)),
                "prompts": await every_page(lambda p: session.list_prompts(params=p))}

    async def body(session: ClientSession) -> dict[str, Any]:
        resources = await every_page(lambda p: session.list_resources(params=p))
        prompts = await every_page(lambda p: session.list_prompts(params=p))
        return {"resources": resources, "prompts": prompts,
                "bad": [await refused(lambda p: session.list_resources(params=p), "7"),
                        await refused(lambda p: session.list_prompts(params=p), "not a cursor")]}

    example = run_async_in_thread(session_run, site, small, timeout=300)
    assert [len(example["resources"]), len(example["prompts"])] == [1, 1]  # a small catalog: one page each
    big, model = grown_catalog(site, tmp_path)
    out = run_async_in_thread(session_run, big, body, timeout=600)

    for pages, key in ((out["resources"], "resources"), (out["prompts"], "prompts")):
        assert len(pages) >= 3 and pages[-1].next_cursor is None
        sizes = [len(json.dumps(page.model_dump(by_alias=True, mode="json", exclude_none=True)[key]).encode())
                 for page in pages]
        assert max(sizes) <= LIST_PAGE_BYTES and min(sizes[:-1]) > LIST_PAGE_BYTES // 2, sizes
    uris = [r.uri for page in out["resources"] for r in page.resources]
    assert len(uris) == len(set(uris))
    nested = tuple(f"skill://{child}/" for child in model["children"])  # their files: no nested skills copied
    model_uris = [r.uri for r in example["resources"][0].resources
                  if r.uri.startswith("skill://release-manager/") and not r.uri.startswith(nested)]
    generated = {uri.replace("skill://release-manager/", f"skill://gen-{i:05d}/", 1)
                 for i in range(SKILLS) if i not in RISKY for uri in model_uris}
    assert len(model_uris) > 1 and set(uris) == {r.uri for r in example["resources"][0].resources} | generated
    names = [p.name for page in out["prompts"] for p in page.prompts]
    commands = {f"gen_{i:05d}" for i in range(SKILLS) if i not in RISKY}
    assert names == sorted({p.name for p in example["prompts"][0].prompts} | commands)
    assert model["command"] in names
    assert all(reason is not None and reason.startswith("-32602 ") for reason in out["bad"]), out["bad"]
