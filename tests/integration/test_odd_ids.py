"""Ids as real folder names spell them ('@', '+', '%', a space, '#', '?', quotes, parentheses,
accents, other scripts), published whole and paged, served over HTTP on 127.0.0.1 by
``python -m http.server`` (which decodes URLs) and by a server that does not decode: every
skill, file and release loads through the loader, the CLI, ``skillsite install`` and
``skillsite mcp`` (the browser: ``browser/test_browser_odd_ids.py``), and every link each
published format holds names a published file (issue #46, item 1).
"""
from __future__ import annotations

import functools
import html
import json
import os
import re
import subprocess
import sys
import threading
import unicodedata
from dataclasses import replace
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest

from odd_ids import ODD_IDS, make_odd_ids
from site_links import SITE, broken_links
from skillsite.agent.manifest_pages import entry_url
from skillsite.agent.site_urls import url_of
from skillsite.config import SiteConfig
from skillsite.loader import Catalog, LoaderError
from skillsite.publish.build import build
from support import REPO, run_async_in_thread

CONFIG = SiteConfig(base_url=SITE)
LAYOUTS = {"whole": CONFIG, "paged": replace(CONFIG, shard_above=3)}
#: The id with an accent, as the build published it (its folder's NFC spelling).
ACCENTED = "repos/caf\u00e9/accented"
#: Ids whose every published URL is the path as written: a server that does not decode serves them.
PLAIN = {skill_id for skill_id, files in ODD_IDS.items()
         if url_of(skill_id) == skill_id and all(url_of(f) == f for f in files)}


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The odd-id repository built whole and paged (its releases from its git history)."""
    repo = make_odd_ids(tmp_path_factory.mktemp("odd") / "repo").path
    built = {}
    for layout, config in LAYOUTS.items():
        out = tmp_path_factory.mktemp(layout) / "_site"
        result = build([repo], out, config, base=str(repo))
        assert result.ok, [str(d) for d in result.diagnostics]
        built[layout] = out
    return built


def http_server(folder: Path) -> Iterator[str]:
    """``python -m http.server`` serving ``folder`` on 127.0.0.1: its base URL, while it runs."""
    proc = subprocess.Popen([sys.executable, "-u", "-m", "http.server", "0", "--bind", "127.0.0.1",
                             "--directory", str(folder)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline()  # type: ignore[union-attr]
        port = re.search(r"port (\d+)", line)
        assert port, line
        yield f"http://127.0.0.1:{port.group(1)}/"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


class _Undecoded(SimpleHTTPRequestHandler):
    """A static server that looks a URL's path up as written, without percent-decoding it."""

    def translate_path(self, path: str) -> str:
        path = path.split("?", 1)[0].split("#", 1)[0]
        return os.path.join(self.directory, *[part for part in path.split("/") if part not in ("", ".", "..")])

    def log_message(self, *args: Any) -> None:
        pass


def undecoded_server(folder: Path) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Undecoded, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module", params=list(LAYOUTS))
def served(request: pytest.FixtureRequest, sites: dict[str, Path]) -> Iterator[tuple[Path, str]]:
    """(site, base URL) of each layout, served by ``python -m http.server``."""
    site = sites[request.param]
    for base in http_server(site):
        yield site, base


def published_skill_folders(site: Path) -> set[str]:
    """The folders under ``skills/`` that hold a published SKILL.md (releases aside)."""
    return {p.parent.relative_to(site / "skills").as_posix() for p in site.glob("skills/**/SKILL.md")
            if "/versions/" not in p.relative_to(site).as_posix()}


def every_file(catalog: Catalog, skill_id: str, version: str | None = None) -> dict[str, bytes]:
    """SKILL.md and each bundled file of a skill (of a release), through the loader."""
    entry = catalog.manifest_entry(skill_id)
    files = {"SKILL.md": catalog.resource(skill_id, "SKILL.md", version)}
    return {**files, **{f.path: catalog.resource(skill_id, f.path, version) for f in entry.files}}


# ---------------------------------------------------------------- the files


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_each_skill_is_published_once_under_its_id_as_written(sites: dict[str, Path], layout: str) -> None:
    site = sites[layout]
    assert published_skill_folders(site) == set(ODD_IDS)
    folders = {p.relative_to(site / "skills").as_posix() for p in (site / "skills").rglob("*") if p.is_dir()}
    assert not {f for f in folders if "%" in f and not f.startswith(("repos/100%", "repos/%40looks-encoded"))}
    entry_files = {p.parent.relative_to(site / "skills").as_posix() for p in site.glob("skills/**/entry.json")}
    assert entry_files == (set(ODD_IDS) if layout == "paged" else set())
    if layout == "paged":  # where the loader asks for each entry file, decoded, is where it is
        assert all((site / re.sub("%[0-9A-F]{2}", lambda m: bytes.fromhex(m.group()[1:]).decode("latin-1"),
                                  entry_url(i)).encode("latin-1").decode("utf-8")).is_file() for i in ODD_IDS)


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_every_link_of_every_published_format_names_a_published_file(sites: dict[str, Path], layout: str) -> None:
    assert broken_links(sites[layout]) == []


def test_the_legacy_discovery_index_leaves_out_skills_with_files_its_readers_cannot_fetch(
        sites: dict[str, Path]) -> None:
    legacy = json.loads((sites["whole"] / ".well-known/skills/index.json").read_text("utf-8"))
    current = json.loads((sites["whole"] / ".well-known/agent-skills/index.json").read_text("utf-8"))
    cannot = {skill_id.rsplit("/", 1)[-1] for skill_id, files in ODD_IDS.items()
              if any(c in f for f in files for c in "#?%")}
    assert cannot == {"percent-sign", "looks-encoded", "hash-sign", "question-mark"}
    assert {s["name"] for s in current["skills"]} == {i.rsplit("/", 1)[-1] for i in ODD_IDS}
    assert {s["name"] for s in legacy["skills"]} == {s["name"] for s in current["skills"]} - cannot


# ---------------------------------------------------------------- the loader


def test_the_loader_loads_every_skill_file_and_release(served: tuple[Path, str], tmp_path: Path) -> None:
    site, base = served
    catalog = Catalog.open(base + "skills.json", cache_dir=tmp_path / "cache")
    assert sorted(e.id for e in catalog.entries) == sorted(ODD_IDS)
    for skill_id, files in ODD_IDS.items():
        assert catalog.load(skill_id).id == skill_id
        current = every_file(catalog, skill_id)
        assert set(current) == {"SKILL.md", *files}
        assert all(data == (site / "skills" / skill_id / path).read_bytes() for path, data in current.items())
        assert catalog.versions(skill_id) == ["1.0.0", "1.1.0"]
        first = every_file(catalog, skill_id, "1.0.0")
        assert b"Release 1.0.0." in first["SKILL.md"] and b"release 1.0.0." in first[files[0]]
        assert b"release 1.1.0." in current[files[0]]


def test_a_server_that_does_not_decode_serves_the_ids_that_need_no_encoding(sites: dict[str, Path],
                                                                            tmp_path: Path) -> None:
    """Such a server can only find a file whose URL is its path as written: each skill whose URLs
    need no encoding loads whole; each other one is refused as not found, never answered with
    another file."""
    assert PLAIN == {"repos/elizaOS@eliza/skills/at-sign", "repos/a+b/plus-sign", "plain",
                     "repos/@looks-encoded/at-first"}
    for layout, site in sites.items():
        for base in undecoded_server(site):
            catalog = Catalog.open(base + "skills.json", cache_dir=tmp_path / layout)
            for skill_id in ODD_IDS:
                if skill_id in PLAIN:
                    assert set(every_file(catalog, skill_id)) == {"SKILL.md", *ODD_IDS[skill_id]}
                    assert b"Release 1.0.0." in catalog.resource(skill_id, "SKILL.md", "1.0.0")
                else:
                    with pytest.raises(LoaderError, match="404"):
                        every_file(catalog, skill_id)


# ---------------------------------------------------------------- the command line


def skillsite(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "skillsite", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def test_show_search_and_install_take_every_id(served: tuple[Path, str], tmp_path: Path) -> None:
    site, base = served
    flags = ["--catalog", base + "skills.json", "--cache-dir", str(tmp_path / "cache")]
    for n, skill_id in enumerate(ODD_IDS):
        shown = skillsite("show", skill_id, *flags, "--format", "markdown", cwd=tmp_path)
        assert shown.returncode == 0 and shown.stdout.encode() == (site / "skills" / skill_id / "SKILL.md").read_bytes()
        found = skillsite("search", skill_id.rsplit("/", 1)[-1], *flags, "--json", cwd=tmp_path)
        assert found.returncode == 0 and skill_id in {hit["id"] for hit in json.loads(found.stdout)}, found.stderr
        dest, lock = tmp_path / f"dest{n}", tmp_path / f"lock{n}.json"
        done = skillsite("install", f"{skill_id}@1.0.0", *flags, "--dest", str(dest), "--lock", str(lock), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()) == sorted(
            ["SKILL.md", *ODD_IDS[skill_id]])
        assert b"Release 1.0.0." in (dest / "SKILL.md").read_bytes()
        assert json.loads(lock.read_text("utf-8"))["skills"][skill_id]["version"] == "1.0.0"
    whole_id = skillsite("install", "repos/elizaOS@eliza/skills/at-sign", *flags, "--dest", str(tmp_path / "at"),
                         "--lock", str(tmp_path / "at.json"), cwd=tmp_path)
    assert whole_id.returncode == 0 and b"Release 1.1.0." in (tmp_path / "at/SKILL.md").read_bytes()
    no_range = skillsite("install", "plain@", *flags, "--dest", str(tmp_path / "p"), cwd=tmp_path)
    assert no_range.returncode == 2 and "nothing after '@'" in no_range.stderr
    decomposed = unicodedata.normalize("NFD", ACCENTED)   # as a macOS folder or keyboard may spell it
    shown = skillsite("show", decomposed, *flags, "--format", "markdown", cwd=tmp_path)
    assert shown.returncode == 0 and shown.stdout.encode() == (site / "skills" / ACCENTED / "SKILL.md").read_bytes()


#: Ids holding '@', '+', '%' (one looking encoded), a space and an accent, as ``outdated`` and
#: ``update`` are given them: each as published, the accented one decomposed (a macOS shell's).
LOCKED = {skill_id: unicodedata.normalize("NFD", skill_id) for skill_id in (
    "repos/elizaOS@eliza/skills/at-sign", "repos/a+b/plus-sign", "repos/100%/percent-sign",
    "repos/%40looks-encoded/looks-encoded", "repos/with space/space", ACCENTED)}


def installed_at_first_release(catalog: Catalog, skill_ids: list[str], project: Path) -> Path:
    """The lock of ``skill_ids`` installed into ``project`` at 1.0.0, each range then widened to ^1."""
    lock = project / "skillsite-lock.json"
    for n, skill_id in enumerate(skill_ids):
        catalog.install(skill_id, project / f"skill{n}", version="1.0.0", lock=lock)
    data = json.loads(lock.read_text("utf-8"))
    for record in data["skills"].values():
        record["requested"] = "^1"
    lock.write_text(json.dumps(data), encoding="utf-8")
    return lock


def test_outdated_and_update_take_every_locked_id(served: tuple[Path, str], tmp_path: Path) -> None:
    """Each skill at 1.0.0: ``outdated ID`` says 1.1.0 is wanted and ``update ID`` (and the
    loader's ``update``) installs it, whatever the id holds and however its accent is spelt."""
    _, base = served
    cache = ["--cache-dir", str(tmp_path / "cache")]
    catalog = Catalog.open(base + "skills.json", cache_dir=tmp_path / "cache")
    lock = installed_at_first_release(catalog, list(LOCKED), tmp_path / "project")
    by_api = installed_at_first_release(catalog, [ACCENTED], tmp_path / "api")
    assert [p.id for p in catalog.update(LOCKED[ACCENTED], by_api)] == [ACCENTED]
    assert json.loads(by_api.read_text("utf-8"))["skills"][ACCENTED]["version"] == "1.1.0"
    assert unicodedata.normalize("NFC", LOCKED[ACCENTED]) == ACCENTED != LOCKED[ACCENTED]
    for skill_id, typed in LOCKED.items():
        checked = skillsite("outdated", typed, "--lock", str(lock), "--json", *cache, cwd=tmp_path)
        assert checked.returncode == 0, checked.stderr
        assert [(s["id"], s["status"], s["wanted"]) for s in json.loads(checked.stdout)] == [
            (skill_id, "update-available", "1.1.0")]
        updated = skillsite("update", typed, "--lock", str(lock), *cache, cwd=tmp_path)
        assert (updated.returncode, updated.stdout, updated.stderr) == (0, f"{skill_id}: 1.0.0 -> 1.1.0\n", "")
    locked = json.loads(lock.read_text("utf-8"))["skills"]
    assert {skill_id: record["version"] for skill_id, record in locked.items()} == dict.fromkeys(LOCKED, "1.1.0")
    again = skillsite("outdated", "--lock", str(lock), "--json", *cache, cwd=tmp_path)
    assert [s["status"] for s in json.loads(again.stdout)] == ["up-to-date"] * len(LOCKED), again.stderr


# ---------------------------------------------------------------- skillsite mcp


def test_mcp_lists_gets_and_reads_every_skill(served: tuple[Path, str], tmp_path: Path) -> None:
    pytest.importorskip("mcp", reason="the MCP server is an optional extra: pip install 'skillsite[mcp]'")
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp.types import Request
    from pydantic import TypeAdapter

    site, base = served
    params = StdioServerParameters(command=sys.executable, cwd=str(tmp_path), args=[
        "-m", "skillsite", "mcp", "--catalog", base + "skills.json", "--cache-dir", str(tmp_path / "cache")],
        env={"PYTHONPATH": str(REPO), "PATH": os.environ.get("PATH", "")})

    async def call(session: ClientSession, method: str, **args: Any) -> dict[str, Any]:
        request = Request[dict[str, Any], str](method=method, params=args)
        return await session.send_request(request, TypeAdapter(dict[str, Any]))

    async def session_run() -> dict[str, Any]:
        with open(os.devnull, "w") as devnull:
            async with stdio_client(params, errlog=devnull) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    listed, page = [], {"nextCursor": None}
                    while "nextCursor" in page:
                        cursor = page["nextCursor"]
                        page = await call(session, "skills/list", **({"cursor": cursor} if cursor else {}))
                        listed += page["skills"]
                    files = {}
                    for skill in listed:
                        got = await call(session, "skills/get", uri=skill["uri"])
                        for resource in got["skill"]["resources"]:
                            files[resource["uri"]] = (await session.read_resource(resource["uri"])).contents[0].text
                    loaded = {i: await session.call_tool("load_skill", {"skill": i}) for i in ODD_IDS}
                    spelt = unicodedata.normalize("NFD", ACCENTED)
                    loaded[spelt] = await session.call_tool("load_skill", {"skill": spelt})
                    return {"listed": listed, "files": files, "loaded": loaded}

    out = run_async_in_thread(session_run, timeout=180)
    assert sorted(s["uri"] for s in out["listed"]) == sorted(f"skill://{url_of(i)}/SKILL.md" for i in ODD_IDS)
    for skill_id, files in ODD_IDS.items():
        for path in ("SKILL.md", *files):
            uri = f"skill://{url_of(skill_id)}/{url_of(path)}"
            assert out["files"][uri].encode() == (site / "skills" / skill_id / path).read_bytes()
        text = "".join(block.text for block in out["loaded"][skill_id].content)
        assert "Release 1.1.0." in text and f'id="{html.escape(skill_id, quote=False)}"' in text
    decomposed = "".join(block.text for block in out["loaded"][unicodedata.normalize("NFD", ACCENTED)].content)
    assert f'id="{ACCENTED}"' in decomposed and "Release 1.1.0." in decomposed
