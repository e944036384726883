"""``skillsite mcp``'s start-up reads no entry of the catalog: each is read and checked when a
request first needs it.  A paged catalog served over HTTP on 127.0.0.1 counts what is fetched,
and the mcp package's own client is connected to the server in-process."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp", reason="the MCP server is an optional extra: pip install 'skillsite[mcp]'")

from mcp.client import Client  # noqa: E402
from skillsite.config import SiteConfig  # noqa: E402
from skillsite.loader import Catalog  # noqa: E402
from skillsite.mcp.server import build_server  # noqa: E402
from skillsite.publish.build import build  # noqa: E402
from support import EXAMPLES, CountingServer, run_async_in_thread  # noqa: E402

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)

PAGES = [f"/manifest/pages/{n:04d}.json" for n in (2, 3, 4, 5)]  # the 13 example skills, 3 a page
INDEXES = [f"/manifest/index/{n:04d}.json" for n in (2, 3, 4, 5)]


@pytest.fixture(scope="module")
def paged(tmp_path_factory: pytest.TempPathFactory):
    """The example catalog built paged (pages of 3 entries), served on 127.0.0.1."""
    out = tmp_path_factory.mktemp("paged") / "_site"
    assert build([EXAMPLES], out, SiteConfig(shard_above=3)).ok
    server = CountingServer(out)
    yield server
    server.stop()


def test_start_up_and_loading_one_skill_fetch_no_manifest_page(paged: CountingServer, tmp_path: Path) -> None:
    """At start-up the server checked every entry, which fetched every page of a paged catalog
    (and parsed every entry of a whole one: some 1.3 s at 20,000 skills) before answering
    initialize.  Start-up fetches nothing past skills.json; loading one skill fetches its page's
    index, its entry file and its SKILL.md; prompts/list, in the order of the commands the indexes
    give, fetches the pages of the prompts it lists (here every page: every example skill is one), each once."""
    catalog = Catalog.open(paged.url, cache_dir=tmp_path / "cache")
    assert paged.take_paths() == ["/skills.json"]
    server = build_server(catalog)
    assert paged.take_paths() == []
    fetched: list[list[str]] = []

    async def body(server: Any) -> dict[str, Any]:
        async with Client(server) as client:
            init = client.server_info
            fetched.append(paged.take_paths())
            load = await client.call_tool("load_skill", {"skill": "sql-migration-review"})
            fetched.append(paged.take_paths())
            prompts = [p.name for p in (await client.list_prompts()).prompts]
            fetched.append(paged.take_paths())
            return {"init": init, "load": load, "prompts": prompts}

    out = run_async_in_thread(body, server, timeout=120)
    assert out["init"] is not None and out["init"].name == "skillsite"
    assert fetched[0] == []
    assert not out["load"].is_error and "<skill_content" in out["load"].content[0].text
    assert fetched[1] == ["/manifest/index/0004.json", "/skills/sql-migration-review/entry.json",
                          "/skills/sql-migration-review/SKILL.md"]
    assert len(out["prompts"]) == 13 and "release_manager/changelog" in out["prompts"]
    assert sorted(fetched[2]) == sorted([*INDEXES[:2], INDEXES[3], *PAGES])  # index 4: read for the load


def test_a_prompt_and_a_slash_command_fetch_the_indexes_and_one_entry_file_not_the_pages(
        paged: CountingServer, tmp_path: Path) -> None:
    """prompts/get and the loader's command_message looked for the skill answering a command in
    every entry: a paged catalog fetched every page (some 40 MB at 20,000 skills).  The indexes
    give each skill's command now (its id's unless the row says another), so they fetch the
    indexes, the entry file of that skill and its SKILL.md."""
    skill_files = ["/skills/release-manager/changelog/entry.json", "/skills/release-manager/changelog/SKILL.md"]
    catalog = Catalog.open(paged.url, cache_dir=tmp_path / "loader-cache")
    message = catalog.command_message("/release_manager/changelog since v1.2")
    by_loader = paged.take_paths()
    server = build_server(Catalog.open(paged.url, cache_dir=tmp_path / "server-cache"))
    paged.take_paths()

    async def body(server: Any) -> str:
        async with Client(server) as client:
            got = await client.get_prompt("release_manager/changelog", {"task": "since v1.2"})
            return got.messages[0].content.text

    prompt = run_async_in_thread(body, server, timeout=120)
    by_server = paged.take_paths()
    assert "Task: since v1.2" in message and "since v1.2" in prompt
    assert sorted(by_loader) == sorted(["/skills.json", *INDEXES, *skill_files]), by_loader
    assert sorted(by_server) == sorted([*INDEXES, *skill_files]), by_server


def test_the_files_resources_list_lists_fetch_the_pages_they_reach(paged: CountingServer, tmp_path: Path) -> None:
    """resources/list lists each skill's files in the catalog's order, making its tables an entry
    at a time; but each step read the catalog's whole list of entries: a paged catalog's every
    page, for its first file.  The first files (the root's skills') fetch no page, and going on
    fetches each page as its skills are reached, once."""
    import itertools

    from skillsite.mcp.skills import SkillsIndex

    index = SkillsIndex(Catalog.open(paged.url, cache_dir=tmp_path / "cache"))
    paged.take_paths()
    first = list(itertools.islice(index.file_tables.new_files(), 2))
    at_first = paged.take_paths()
    rest = list(index.file_tables.new_files())
    later = paged.take_paths()
    assert len(first) == 2 and rest[:2] == first and len(rest) > 20
    assert not [path for path in at_first if path.startswith("/manifest/pages/")], at_first
    assert sorted(path for path in later if path.startswith("/manifest/pages/")) == PAGES, later


def test_skills_get_a_directory_read_and_a_file_read_fetch_the_skill_s_entries_and_no_manifest_page(
        paged: CountingServer, tmp_path: Path) -> None:
    """skills/get, resources/directory/read and resources/read of one skill fetched every page of a
    paged catalog (the extension's tables took every entry, in the catalog's order).  They fetch
    the indexes of the pages holding the ids the skill may be, its entry file and those of its
    nested skills (release-manager's span two pages), and SKILL.md for its frontmatter: no page."""
    from mcp.types import Request
    from pydantic import TypeAdapter

    catalog = Catalog.open(paged.url, cache_dir=tmp_path / "cache")
    server = build_server(catalog)
    paged.take_paths()
    fetched: list[list[str]] = []

    async def ask(client: Client, method: str, uri: str) -> dict[str, Any]:
        request = Request[dict[str, Any], str](method=method, params={"uri": uri})
        return await client.session.send_request(request, TypeAdapter(dict[str, Any]))

    async def body(server: Any) -> dict[str, Any]:
        async with Client(server) as client:
            got = await ask(client, "skills/get", "skill://release-manager/SKILL.md")
            fetched.append(paged.take_paths())
            folder = await ask(client, "resources/directory/read", "skill://release-manager/version-bump")
            fetched.append(paged.take_paths())
            read = await client.read_resource("skill://test-first/SKILL.md")
            fetched.append(paged.take_paths())
            return {"got": got, "folder": folder, "read": read.contents[0].text}

    out = run_async_in_thread(body, server, timeout=120)
    resources = [r["uri"] for r in out["got"]["skill"]["resources"]]
    assert resources[0] == "skill://release-manager/SKILL.md"
    assert "skill://release-manager/version-bump/prerelease/SKILL.md" in resources
    assert sorted(fetched[0]) == ["/manifest/index/0003.json", "/manifest/index/0004.json",
                                  "/skills/release-manager/SKILL.md", "/skills/release-manager/changelog/entry.json",
                                  "/skills/release-manager/entry.json",
                                  "/skills/release-manager/version-bump/entry.json",
                                  "/skills/release-manager/version-bump/prerelease/entry.json"]
    assert "skill://release-manager/version-bump/prerelease" in [r["uri"] for r in out["folder"]["resources"]]
    assert fetched[1] == []
    assert out["read"].startswith("---") and not any(path.startswith("/manifest/pages/") for path in fetched[2])

def test_an_entry_over_the_limits_is_refused_when_named_before_any_listing(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Checked when first named, an entry whose bundled file path is over MAX_PATH_BYTES is refused
    by load_skill and left out of search results as when every entry was checked at start-up,
    and logged once."""
    site = tmp_path / "site"
    assert build([EXAMPLES], site).ok
    data = json.loads((site / "skills.json").read_text("utf-8"))
    entry = next(e for e in data["skills"] if e["id"] == "api-design-checklist")
    entry["files"].append({"path": "refs/" + "p" * 5000, "bytes": 1, "sha256": "0" * 64})
    (site / "skills.json").write_text(json.dumps(data), "utf-8")

    async def body(server: Any) -> dict[str, Any]:
        async with Client(server) as client:
            return {"load": await client.call_tool("load_skill", {"skill": "api-design-checklist"}),
                    "search": await client.call_tool("search_skills", {"query": "api design checklist", "k": 50})}

    out = run_async_in_thread(body, build_server(Catalog.open(str(site))), timeout=120)
    assert out["load"].is_error
    assert "skill 'api-design-checklist' is not served: its bundled file path 'refs/" in out["load"].content[0].text
    hits = json.loads(out["search"].content[0].text)
    assert hits and "api-design-checklist" not in {h["id"] for h in hits}
    logged = [r.getMessage() for r in caplog.records if "leaving out the manifest entry" in r.getMessage()]
    assert len(logged) == 1 and "'api-design-checklist': its bundled file path" in logged[0]


def test_a_search_fetches_its_hits_entries_and_no_manifest_page(paged: CountingServer, tmp_path: Path) -> None:
    """search_skills checked every entry for those over the limits, so its first call fetched every
    page of a paged catalog (85 requests and 26 MB at 20,000 skills, where the loader's search
    makes 5), and a page that could not be read failed every search with no reason given.  It
    checks its hits' entries: their indexes and entry files, no page."""
    catalog = Catalog.open(paged.url, cache_dir=tmp_path / "cache")
    server = build_server(catalog)
    paged.take_paths()

    async def body(server: Any) -> Any:
        async with Client(server) as client:
            return await client.call_tool("search_skills", {"query": "review a migration or a pull request", "k": 3})

    found = run_async_in_thread(body, server, timeout=120)
    hits = json.loads(found.content[0].text)
    assert not found.is_error and len(hits) == 3 and hits[0]["id"] == "sql-migration-review"
    fetched = paged.take_paths()
    assert fetched and not any(path.startswith("/manifest/pages/") for path in fetched)
    assert {path for path in fetched if path.endswith("/entry.json")} <= {f"/skills/{h['id']}/entry.json" for h in hits}


def test_a_catalog_page_that_cannot_be_read_is_the_catalog_resource_s_error_with_its_reason(
        tmp_path: Path) -> None:
    """Reading skillsite://catalog with a page whose bytes are not the ones the root pins said only
    "Error reading resource skillsite://catalog" and logged a traceback; it names the page."""
    site = tmp_path / "site"
    assert build([EXAMPLES], site, SiteConfig(shard_above=3)).ok
    page = site / "manifest/pages/0003.json"
    page.write_bytes(page.read_bytes().replace(b"}", b"} ", 1))

    async def body(server: Any) -> Any:
        async with Client(server) as client:
            try:
                await client.read_resource("skillsite://catalog")
            except Exception as exc:  # the client raises the server's error
                return exc
            return None

    error = run_async_in_thread(body, build_server(Catalog.open(str(site))), timeout=120)
    assert error is not None and "page 3" in str(error) and "sha256" in str(error), error
