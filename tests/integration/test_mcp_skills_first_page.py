"""The MCP Skills extension of ``skillsite mcp`` checks the entries an answer needs, not the whole
catalog's: a ``skills/list`` page those it lists (and the next), ``skills/get`` and a directory
read those of the skill named; an entry that fails its check is still never listed or served.
Driven by the mcp package's own client connected to the server in-process.  Each malformed entry
is logged when it is checked (once), which shows which entries a request checked."""
from __future__ import annotations

import json
import shutil
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
from skillsite.mcp.skills import LIMITS_META, PAGE_SIZE  # noqa: E402
from skillsite.publish.build import build  # noqa: E402
from support import EXAMPLES, CountingServer, grown_catalog as grow, run_async_in_thread, write_skill  # noqa: E402

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)

SKILLS = 200  # generated skills, after the example's: some 26 pages of skills/list
LATE = 190    # the generated skill made malformed, near the last page
EARLY = "code-review"  # the example's skill made malformed: on the first page
LEFT_OUT = "leaving out the manifest entry"


def grown_catalog(site: Path, tmp_path: Path) -> Path:
    """The example catalog with SKILLS more skills (copies of test-first under their own ids, each
    with its files), EARLY and gen-<LATE> malformed."""
    big = grow(site, tmp_path / "site", SKILLS, frozenset({LATE}), with_files=True)
    data = json.loads((big / "skills.json").read_text("utf-8"))
    next(e for e in data["skills"] if e["id"] == EARLY)["files"] = "oops"
    (big / "skills.json").write_text(json.dumps(data), "utf-8")
    return big


def logged(caplog: pytest.LogCaptureFixture) -> tuple[int, int]:
    """How many times EARLY and gen-<LATE> were logged as left out."""
    said = [r.getMessage() for r in caplog.records if LEFT_OUT in r.getMessage()]
    return sum(f"'{EARLY}'" in m for m in said), sum(f"'gen-{LATE:05d}'" in m for m in said)


async def ask(client: Client, method: str, **params: Any) -> dict[str, Any]:
    """The result of an extension request (MCPError for an error answer)."""
    request = Request[dict[str, Any], str](method=method, params=params)
    return await client.session.send_request(request, TypeAdapter(dict[str, Any]))


def test_a_skills_list_page_checks_the_entries_it_lists(site: Path, tmp_path: Path,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    """The first skills/list page checked every entry of the catalog and made every skill's files
    (what a catalog of 20,000 paid for on its first page).  Now it checks those up to its last
    skill and the next: the malformed entry it reaches is logged and not listed, the one near the
    last page is not checked yet.  A later page's cursor is still taken before the pages up to it
    were asked for, and following the pages to the end checks the late one, once, listed nowhere."""
    big = grown_catalog(site, tmp_path)
    seen: dict[str, Any] = {}

    async def body(server: Any) -> None:
        async with Client(server) as client:
            first = await ask(client, "skills/list")
            seen["after the first page"] = logged(caplog)
            seen["first"] = [skill["uri"] for skill in first["skills"]]
            seen["jumped"] = await ask(client, "skills/list", cursor=str(5 * PAGE_SIZE))
            seen["after a jump"] = logged(caplog)
            pages = [first]
            while "nextCursor" in pages[-1] and len(pages) < 100:
                pages.append(await ask(client, "skills/list", cursor=pages[-1]["nextCursor"]))
            seen["pages"] = pages
            seen["after every page"] = logged(caplog)

    run_async_in_thread(body, build_server(Catalog.open(str(big))), timeout=300)
    assert seen["after the first page"] == (1, 0)
    assert len(seen["first"]) == PAGE_SIZE and "skill://api-design-checklist/SKILL.md" in seen["first"]
    assert not any(uri.startswith(f"skill://{EARLY}/") for uri in seen["first"])
    assert seen["after a jump"] == (1, 0)
    assert seen["jumped"] == seen["pages"][5]
    assert seen["after every page"] == (1, 1)
    listed = [skill["uri"] for page in seen["pages"] for skill in page["skills"]]
    assert len(listed) == len(set(listed)) == 9 + SKILLS - 1  # 10 of the example's offered, less EARLY
    assert f"skill://gen-{LATE - 1:05d}/SKILL.md" in listed and f"skill://gen-{LATE:05d}/SKILL.md" not in listed


def test_get_and_a_directory_read_check_the_entries_of_the_skill_they_name(
        site: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """skills/get and resources/directory/read before any listing made the whole tables (every
    entry checked).  Each checks the entries the skill it names may be: a late skill is served
    and its folder listed, the malformed late one is refused by both (checked, logged once), and
    the malformed entry early in the catalog is not checked."""
    big = grown_catalog(site, tmp_path)

    async def body(server: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with Client(server) as client:
            got = await ask(client, "skills/get", uri=f"skill://gen-{LATE - 1:05d}/SKILL.md")
            out["got"] = got["skill"]["frontmatter"]["name"], [r["uri"] for r in got["skill"]["resources"]]
            folder = await ask(client, "resources/directory/read", uri=f"skill://gen-{LATE - 1:05d}")
            out["folder"] = [r["uri"] for r in folder["resources"]]
            for what, method, uri in (("get", "skills/get", f"skill://gen-{LATE:05d}/SKILL.md"),
                                      ("directory", "resources/directory/read", f"skill://gen-{LATE:05d}")):
                with pytest.raises(MCPError) as refused:
                    await ask(client, method, uri=uri)
                out[what] = str(refused.value)
            out["logged"] = logged(caplog)
        return out

    out = run_async_in_thread(body, build_server(Catalog.open(str(big))), timeout=300)
    name, resources = out["got"]
    assert name == "test-first" and resources[0] == f"skill://gen-{LATE - 1:05d}/SKILL.md" and len(resources) > 1
    assert f"skill://gen-{LATE - 1:05d}/SKILL.md" in out["folder"] and f"skill://gen-{LATE - 1:05d}/references" \
        in out["folder"]
    assert out["get"] == f"No skill is served at skill://gen-{LATE:05d}/SKILL.md"
    assert out["directory"] == f"skill://gen-{LATE:05d} is not a directory resource"
    assert out["logged"] == (0, 1)


def test_the_first_skills_list_page_of_a_paged_catalog_fetches_the_pages_it_lists(tmp_path: Path) -> None:
    """The first skills/list page counts the entries left out for an id or path over 4,096 bytes,
    and did so by reading every entry: of a paged catalog, every page.  The root now says how long
    its longest id or path is (``counts.longest_path_bytes``, in UTF-8 bytes: an accented id and
    file name count twice per letter), so the page fetches the pages of the skills it lists."""
    src = Path(shutil.copytree(EXAMPLES, tmp_path / "src"))
    for number in range(60):
        write_skill(src, f"zz-{number:03d}")
    accented = write_skill(src, "zz-\u00e9t\u00e9", name="zz-ete")
    (accented / "references").mkdir()
    (accented / "references" / ("\u00e9" * 100 + ".md")).write_text("# Notes\n", "utf-8")
    site = tmp_path / "site"
    assert build([src], site, SiteConfig(shard_above=3), cache_dir=None).ok
    root = json.loads((site / "skills.json").read_text("utf-8"))
    assert root["counts"]["longest_path_bytes"] == len("references/".encode() + ("\u00e9" * 100 + ".md").encode())
    host = CountingServer(site)

    async def body(server: Any) -> tuple[dict[str, Any], list[str]]:
        async with Client(server) as client:
            host.take()
            return await ask(client, "skills/list"), [path for path, _ in host.take()]

    try:
        catalog = Catalog.open(host.url + "skills.json", cache_dir=tmp_path / "cache")
        first, fetched = run_async_in_thread(body, build_server(catalog), timeout=120)
    finally:
        host.stop()
    pages = [path for path in fetched if path.startswith("/manifest/pages/")]
    assert len(first["skills"]) == PAGE_SIZE and "nextCursor" in first and LIMITS_META not in first.get("_meta", {})
    assert len(root["pages"]) > 20 and 0 < len(pages) <= 3, fetched
