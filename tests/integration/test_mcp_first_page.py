"""``skillsite mcp``'s first page of ``prompts/list`` and ``resources/list`` checks the entries
it shows, not the whole catalog's, and an entry that fails its check is still never listed:
driven by the mcp package's own client connected to the server in-process.  Each malformed entry
is logged when it is checked (once), which shows which entries a request checked."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp", reason="the MCP server is an optional extra: pip install 'skillsite[mcp]'")

from mcp.client import Client  # noqa: E402
from skillsite.loader import Catalog  # noqa: E402
from skillsite.mcp.server import build_server  # noqa: E402
from support import grown_catalog as grow, run_async_in_thread  # noqa: E402

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)

SKILLS = 1_500  # generated skills: each list needs 3 pages at least (docs/agents.md: 256 KiB a page)
EARLY, LATE = 5, 1_490  # the generated skills made malformed: on the first page of each list, and on the last
LEFT_OUT = "leaving out the manifest entry"


def grown_catalog(site: Path, tmp_path: Path) -> Path:
    """The example catalog with SKILLS more user-invocable skills (copies of test-first under their
    own ids and commands, after the example's in both lists), two of them malformed."""
    return grow(site, tmp_path / "site", SKILLS, frozenset({EARLY, LATE}))


def logged(caplog: pytest.LogCaptureFixture, number: int) -> int:
    """How many times the malformed entry gen-<number> was logged as left out."""
    return sum(LEFT_OUT in r.getMessage() and f"'gen-{number:05d}'" in r.getMessage() for r in caplog.records)


def test_the_first_page_checks_its_own_entries_and_a_later_malformed_one_is_refused_on_its_page(
        site: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The first page of either list checked every entry of the catalog before answering (what a
    catalog of 20,000 paid for on its first page).  Now it checks those it shows and the next: the malformed
    entry on the first page is checked (logged) and not listed, the one on the last page is not
    checked yet; following the pages to the end checks it, once, and it is in no page either."""
    big = grown_catalog(site, tmp_path)
    seen: dict[str, Any] = {}

    async def every_page(list_page: Any, key: str) -> list[list[str]]:
        """The names (prompts) or URIs (resources) of every page, following nextCursor (50 pages at most)."""
        pages = [await list_page(cursor=None)]
        while pages[-1].next_cursor is not None and len(pages) < 50:
            pages.append(await list_page(cursor=pages[-1].next_cursor))
        field = "name" if key == "prompts" else "uri"
        return [[str(getattr(item, field)) for item in getattr(page, key)] for page in pages]

    async def body(server: Any) -> None:
        async with Client(server) as client:
            first_prompts = (await client.list_prompts()).prompts
            seen["after first prompts page"] = (logged(caplog, EARLY), logged(caplog, LATE))
            first_resources = (await client.list_resources()).resources
            seen["after first resources page"] = (logged(caplog, EARLY), logged(caplog, LATE))
            seen["first pages"] = ([p.name for p in first_prompts], [str(r.uri) for r in first_resources])
            seen["prompts"] = await every_page(client.list_prompts, "prompts")
            seen["resources"] = await every_page(client.list_resources, "resources")
            seen["after every page"] = (logged(caplog, EARLY), logged(caplog, LATE))

    run_async_in_thread(body, build_server(Catalog.open(str(big))), timeout=300)
    assert seen["after first prompts page"] == (1, 0)
    assert seen["after first resources page"] == (1, 0)
    prompts, resources = seen["first pages"]
    assert "gen_00004" in prompts and "gen_00006" in prompts and "gen_00005" not in prompts
    assert "skill://gen-00004/SKILL.md" in resources and not any(u.startswith("skill://gen-00005/") for u in resources)
    assert len(seen["prompts"]) >= 3 and len(seen["resources"]) >= 3
    assert seen["after every page"] == (1, 1)
    listed_prompts = [name for page in seen["prompts"] for name in page]
    listed_uris = [uri for page in seen["resources"] for uri in page]
    assert "gen_01489" in seen["prompts"][-1] and "gen_01491" in seen["prompts"][-1]
    assert len(listed_prompts) == len(set(listed_prompts)) == 13 + SKILLS - 2
    assert not {"gen_00005", "gen_01490"} & set(listed_prompts)
    assert "skill://gen-01489/SKILL.md" in listed_uris
    assert not any(uri.startswith(("skill://gen-00005/", "skill://gen-01490/")) for uri in listed_uris)


def test_a_malformed_entry_named_before_any_listing_is_refused_and_no_other_entry_is_checked(
        site: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """prompts/get and resources/read before any listing checked every entry (a read made the
    whole extension's tables; a get's loader parsed every entry for its command).  Each checks
    the entries it may name now: a malformed one's prompt and SKILL.md are still refused, the
    other malformed entry is not checked (not logged), and a well-formed neighbour is served."""
    big = grown_catalog(site, tmp_path)

    async def body(server: Any) -> dict[str, Any]:
        refused: dict[str, Any] = {}
        async with Client(server) as client:
            for what, ask in (("get", lambda: client.get_prompt(f"gen_{LATE:05d}", {"task": "t"})),
                              ("read", lambda: client.read_resource(f"skill://gen-{LATE:05d}/SKILL.md"))):
                try:
                    await ask()
                except Exception as exc:  # the client raises the server's error
                    refused[what] = str(exc)
            served = await client.read_resource(f"skill://gen-{LATE - 1:05d}/SKILL.md")
            refused["served"] = served.contents[0].text[:3]
            refused["logged"] = (logged(caplog, EARLY), logged(caplog, LATE))
        return refused

    out = run_async_in_thread(body, build_server(Catalog.open(str(big))), timeout=300)
    assert set(out) == {"get", "read", "served", "logged"} and out["served"] == "---"
    assert out["logged"] == (0, 1)
