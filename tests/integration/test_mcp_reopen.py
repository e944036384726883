"""``skillsite mcp`` opens its catalog again by itself: once the host publishes a new build, or
the signed metadata it opened expires, a request that fails for it is retried on the catalog
opened anew and the client is told the lists changed; when opening again fails, the error says
why and the build served stays.  A real server subprocess and the mcp package's own client, the
catalog served over HTTP on 127.0.0.1 (counting what the server asks of the host)."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp", reason="the MCP server is an optional extra: pip install 'skillsite[mcp]'")

from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from skillsite.agent.catalog_format import offered_to_model  # noqa: E402
from skillsite.agent.entry import ManifestEntry  # noqa: E402
from skillsite.mcp.skills import EXTENSION  # noqa: E402
from skillsite.publish.build import build  # noqa: E402
from support import EXAMPLES, REPO, CountingServer, run_async_in_thread  # noqa: E402

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)

CHANGED = "test-first"                    # a skill build B changes
TRIGGER = "house-style"                   # another: its first read meets the new build
B_LINE = "A line of build B."
NEW_SKILL = "only-in-b"                 # a skill build B adds
LIST_CHANGED = {"notifications/prompts/list_changed", "notifications/resources/list_changed"}


def text_of(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def is_error(result: Any) -> bool:
    return bool(getattr(result, "is_error", None) or getattr(result, "isError", None))


def method_of(message: Any) -> str | None:
    """The JSON-RPC method of a notification the client session surfaced."""
    root = getattr(message, "root", message)
    return getattr(root, "method", None)


class Session:
    """A client session with ``skillsite mcp --catalog URL --cache-dir CACHE``, the notifications
    it received kept in order."""

    def __init__(self, session: ClientSession, notified: list[str]) -> None:
        self.session, self.notified = session, notified

    async def call(self, tool: str, **arguments: Any) -> Any:
        return await self.session.call_tool(tool, arguments)

    async def raw(self, method: str, **params: Any) -> tuple[str, Any]:
        """A request the client has no method for (``skills/list``): ("ok", result) or ("error",
        (code, message))."""
        from mcp.shared.exceptions import MCPError
        from mcp.types import Request
        from pydantic import TypeAdapter

        try:
            request = Request[dict[str, Any], str](method=method, params=params)
            return "ok", await self.session.send_request(request, TypeAdapter(dict[str, Any]))
        except MCPError as exc:
            return "error", (exc.error.code, exc.error.message)

    async def changed(self) -> set[str]:
        """The list-changed notifications received since the last call (waiting a little for them)."""
        for _ in range(50):
            if LIST_CHANGED <= set(self.notified):
                break
            await anyio_sleep(0.05)
        found, self.notified[:] = set(self.notified) & LIST_CHANGED, []
        return found


async def anyio_sleep(seconds: float) -> None:
    import anyio

    await anyio.sleep(seconds)


def run(url: str, cache: Path, body) -> Any:
    """``body(Session)`` against ``skillsite mcp`` reading the catalog at ``url`` (the initialize
    result passed along), in a thread of its own."""
    params = StdioServerParameters(command=sys.executable, env={"PYTHONPATH": str(REPO), "PATH": os.environ["PATH"]},
                                   args=["-m", "skillsite", "mcp", "--catalog", url, "--cache-dir", str(cache)],
                                   cwd=str(REPO))

    async def session_run() -> Any:
        notified: list[str] = []

        async def handle(message: Any) -> None:
            method = method_of(message)
            if method is not None:
                notified.append(method)

        with open(os.devnull, "w") as devnull:
            async with stdio_client(params, errlog=devnull) as (read, write):
                async with ClientSession(read, write, message_handler=handle, extensions={EXTENSION: {}}) as session:
                    init = await session.initialize()
                    return await body(Session(session, notified), init)

    return run_async_in_thread(session_run, timeout=180)


@pytest.fixture
def builds(site: Path, tmp_path: Path) -> tuple[Path, Path]:
    """The example catalog (build A) and build B, whose test-first and house-style SKILL.md
    have one more line, and which has one more skill (NEW_SKILL)."""
    src = Path(shutil.copytree(EXAMPLES, tmp_path / "src"))
    for skill in (CHANGED, TRIGGER):
        skill_md = src / skill / "SKILL.md"
        skill_md.write_text(skill_md.read_text("utf-8") + f"\n{B_LINE}\n", "utf-8")
    fresh = src / NEW_SKILL / "SKILL.md"
    fresh.parent.mkdir()
    fresh.write_text(f"---\nname: {NEW_SKILL}\ndescription: A skill only build B has. Use to test.\n---\n{B_LINE}\n",
                     "utf-8")
    assert build([src], tmp_path / "b").ok
    return site, tmp_path / "b"


@pytest.fixture
def host(tmp_path: Path):
    """An empty folder served on 127.0.0.1 (an ETag per file), each request recorded."""
    root = tmp_path / "host"
    root.mkdir()
    served = CountingServer(root)
    yield served
    served.stop()


def publish(site: Path, host: CountingServer) -> None:
    """The host's folder made ``site``'s files (skills.json last, as a publisher's upload ends)."""
    for path in sorted(site.rglob("*"), key=lambda p: p.name == "skills.json"):
        if path.is_file():
            target = host.root / path.relative_to(site)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)


def manifest_fetches(host: CountingServer) -> int:
    return host.take_paths().count("/skills.json")


def test_a_build_published_while_the_server_runs_is_served_without_a_restart(
        builds: tuple[Path, Path], host: CountingServer, tmp_path: Path) -> None:
    """Each file of a new build failed the digests of the catalog the server opened, and the
    error said to restart it.  The server opens the catalog again, answers the request from the
    new build and tells the client its prompts and resources changed; what the SDK was given of
    the old one (a skill:// resource, a prompt) reads the new one too.  A file changed in place,
    skills.json the one opened, is still refused as tampering, without opening anything again;
    the host is asked for skills.json only when a digest fails, not on every request."""
    a, b = builds
    publish(a, host)
    command = next(e["command"] for e in json.loads((a / "skills.json").read_bytes())["skills"] if e["id"] == CHANGED)
    tampered = host.root / "skills/code-review/SKILL.md"

    async def body(s: Session, init: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"init": init.capabilities, "opened": manifest_fetches(host)}
        out["before"] = [await s.call("load_skill", skill=CHANGED),
                         await s.session.read_resource(f"skill://{CHANGED}/SKILL.md"),
                         await s.session.get_prompt(command)]
        out["asked_before"] = manifest_fetches(host)
        tampered.write_text(tampered.read_text("utf-8") + "\nchanged in place\n", "utf-8")
        out["in_place"] = await s.call("load_skill", skill="code-review")
        out["asked_in_place"] = manifest_fetches(host)
        out["changed_in_place"] = await s.changed()
        publish(b, host)
        out["trigger"] = await s.call("load_skill", skill=TRIGGER)   # read first after the upload
        out["after"] = [await s.call("load_skill", skill=CHANGED),
                        await s.session.read_resource(f"skill://{CHANGED}/SKILL.md"),
                        await s.session.get_prompt(command), await s.call("load_skill", skill="code-review")]
        out["changed"] = await s.changed()
        out["asked_after"] = manifest_fetches(host)
        out["later"] = [await s.call("search_skills", query="failing test first"),
                        await s.call("load_skill", skill=CHANGED)]
        out["asked_later"] = manifest_fetches(host)
        return out

    out = run(host.url, tmp_path / "cache", body)
    assert out["init"].prompts.list_changed and out["init"].resources.list_changed
    load, resource, prompt = out["before"]
    assert not is_error(load) and B_LINE not in text_of(load) and B_LINE not in prompt.messages[0].content.text
    # nothing but a digest that failed sends the server to skills.json again
    assert out["opened"] == 1 and out["asked_before"] == 0
    assert is_error(out["in_place"]) and "refusing it" in text_of(out["in_place"])
    assert "published anew" not in text_of(out["in_place"]) and out["changed_in_place"] == set()
    assert out["asked_in_place"] == 1   # the one look at skills.json, unchanged: nothing opened again
    assert not is_error(out["trigger"]) and B_LINE in text_of(out["trigger"]), text_of(out["trigger"])
    load, resource, prompt, other = out["after"]
    assert not is_error(load) and B_LINE in text_of(load), text_of(load)
    assert B_LINE in resource.contents[0].text
    assert B_LINE in prompt.messages[0].content.text
    assert not is_error(other) and "changed in place" not in text_of(other)
    assert out["changed"] == LIST_CHANGED
    assert out["asked_after"] == 2   # the look that found it changed, and the open
    assert not any(is_error(r) for r in out["later"]) and out["asked_later"] == 0
    assert B_LINE in text_of(out["later"][1])


def test_opening_again_that_fails_says_why_and_keeps_the_build_served(
        builds: tuple[Path, Path], host: CountingServer, tmp_path: Path) -> None:
    """The host half-way through an upload: build B's files, and a skills.json cut short.  The
    request that meets a file of B says the catalog was published anew and that opening it again
    failed, with the reason, and no traceback; build A's other files are still served, and once
    the upload is whole the next request is answered from B."""
    a, b = builds
    publish(a, host)

    async def body(s: Session, init: Any) -> dict[str, Any]:
        out = {"before": await s.call("load_skill", skill="code-review")}
        publish(b, host)
        whole = (b / "skills.json").read_bytes()
        (host.root / "skills.json").write_bytes(whole[: len(whole) // 2])
        out["half"] = await s.call("load_skill", skill=TRIGGER)
        out["other"] = await s.call("load_skill", skill="api-design-checklist")  # the same file in both builds
        out["changed_half"] = await s.changed()
        (host.root / "skills.json").write_bytes(whole)
        out["whole"] = await s.call("load_skill", skill=TRIGGER)
        out["changed"] = await s.changed()
        return out

    out = run(host.url, tmp_path / "cache", body)
    assert not is_error(out["before"])
    half = text_of(out["half"])
    assert is_error(out["half"]) and "larger than the" in half and "refusing it; " in half, half
    assert "published anew since this server opened it, and opening it again failed: " in half, half
    assert "skills.json" in half.split("opening it again failed: ", 1)[1], half
    assert "Traceback" not in half and "restart" not in half
    assert out["changed_half"] == set()
    assert not is_error(out["other"]), text_of(out["other"])
    assert not is_error(out["whole"]) and B_LINE in text_of(out["whole"]), text_of(out["whole"])
    assert out["changed"] == LIST_CHANGED


def test_signed_metadata_that_expired_is_fetched_anew_once_re_signed(site: Path, host: CountingServer,
                                                                    tmp_path: Path) -> None:
    """A signed catalog kept open refuses every read once its metadata expires, and the server
    said to restart it (its in-memory search went on answering).  It opens the catalog again:
    while the host still serves the expired metadata, the error names the expiry and that
    opening again failed; once the host serves a re-signed build, the same requests are answered."""
    pytest.importorskip("cryptography", reason="signing needs the 'trust' extra")
    from skillsite.publish.signing import Signing, SigningKey, new_key_file

    new_key_file(tmp_path / "key.pem")
    key = SigningKey.from_file(tmp_path / "key.pem")
    short = tmp_path / "short"
    assert build([EXAMPLES], short, signing=Signing(key, expires=timedelta(seconds=8)), cache_dir=None).ok
    publish(short, host)
    expires = time.time() + 8

    async def body(s: Session, init: Any) -> dict[str, Any]:
        reads = [("load_skill", {"skill": "code-review"}), ("search_skills", {"query": "review"})]
        out = {"before": [await s.call(tool, **arguments) for tool, arguments in reads]}
        await anyio_sleep(max(0.0, expires - time.time()) + 1.0)
        out["lists_expired"] = [await s.raw("prompts/list"), await s.raw("skills/list"),
                                await s.raw("resources/read", uri="skillsite://catalog")]
        out["expired"] = [await s.call(tool, **arguments) for tool, arguments in reads]
        out["changed_expired"] = await s.changed()
        resigned = tmp_path / "resigned"
        assert build([EXAMPLES], resigned, signing=Signing(key, expires=timedelta(days=1)), cache_dir=None).ok
        publish(resigned, host)
        out["lists_after"] = [await s.raw("prompts/list"), await s.raw("skills/list")]
        out["after"] = [await s.call("search_skills", query="review"), await s.call("load_skill", skill="code-review")]
        out["changed"] = await s.changed()
        return out

    out = run(host.url, tmp_path / "cache", body)
    assert not any(is_error(r) for r in out["before"]), [text_of(r) for r in out["before"]]
    for refused in out["expired"]:
        text = text_of(refused)
        assert is_error(refused) and "expired at" in text and "opening it again failed: " in text, text
        assert "expired" in text.split("opening it again failed: ", 1)[1] and "Traceback" not in text, text
    for kind, refused in out["lists_expired"]:  # answered from memory before, expired or not
        assert kind == "error" and "expired at" in refused[1] and "opening it again failed: " in refused[1], refused
    assert out["changed_expired"] == set()
    assert [kind for kind, _ in out["lists_after"]] == ["ok", "ok"] and out["lists_after"][1][1]["skills"]
    search, load = out["after"]
    assert not is_error(search) and "code-review" in [hit["id"] for hit in json.loads(text_of(search))]
    assert not is_error(load) and text_of(load).startswith('<skill_content name="code-review"'), text_of(load)
    assert out["changed"] == LIST_CHANGED


def test_a_skill_only_the_new_build_has_is_served_without_a_restart(
        builds: tuple[Path, Path], host: CountingServer, tmp_path: Path) -> None:
    """The first request after a publish may name a skill only the new build has: it was "no
    such skill" until some digest failed.  The server looks at skills.json once, opens the new
    build and answers; a name no build has is still not found, each asking the host once."""
    a, b = builds
    publish(a, host)

    async def body(s: Session, init: Any) -> dict[str, Any]:
        out = {"before": await s.call("load_skill", skill=NEW_SKILL), "asked_before": manifest_fetches(host)}
        publish(b, host)
        out["after"] = await s.call("load_skill", skill=NEW_SKILL)
        out["changed"] = await s.changed()
        out["asked_after"] = manifest_fetches(host)
        out["nowhere"] = await s.call("load_skill", skill="in-no-build")
        out["asked_nowhere"] = manifest_fetches(host)
        return out

    out = run(host.url, tmp_path / "cache", body)
    assert is_error(out["before"]) and NEW_SKILL in text_of(out["before"]), text_of(out["before"])
    assert out["asked_before"] == 2   # the open, and the look that found skills.json unchanged
    assert not is_error(out["after"]) and B_LINE in text_of(out["after"]), text_of(out["after"])
    assert out["changed"] == LIST_CHANGED and out["asked_after"] == 2   # the look, and the open
    assert is_error(out["nowhere"]) and out["asked_nowhere"] == 1


def test_a_list_page_of_the_build_before_a_reopening_is_refused_not_skipped_into_the_new_one(
        builds: tuple[Path, Path], host: CountingServer, tmp_path: Path) -> None:
    """skills/list's cursor was the offset of the next page's first skill.  Asked for once the
    server had opened build B (one skill more, sorting among A's), it named another place in B's
    list: a client following it skipped or repeated skills.  The cursor names its build now: one
    of build A is refused as such (-32602), and listing again from the first page gives B's
    skills, each once."""
    a, b = builds
    publish(a, host)

    async def body(s: Session, init: Any) -> dict[str, Any]:
        kind, first = await s.raw("skills/list")
        assert kind == "ok" and "nextCursor" in first, first
        out: dict[str, Any] = {"same_build": await s.raw("skills/list", cursor=first["nextCursor"])}
        publish(b, host)
        out["load"] = await s.call("load_skill", skill=NEW_SKILL)   # opens build B
        out["old_cursor"] = await s.raw("skills/list", cursor=first["nextCursor"])
        out["listed_again"] = await every_skill(s)
        return out

    out = run(host.url, tmp_path / "cache", body)
    assert out["same_build"][0] == "ok" and out["same_build"][1]["skills"], out["same_build"]
    assert not is_error(out["load"]), text_of(out["load"])
    kind, refused = out["old_cursor"]
    assert kind == "error" and refused[0] == -32602 and "another build of the catalog" in refused[1], refused
    again = out["listed_again"]["skills"]
    b_skills = [f"skill://{e['id']}/SKILL.md" for e in json.loads((b / "skills.json").read_bytes())["skills"]
                if offered_to_model(ManifestEntry.from_json(e))]
    assert again == b_skills and f"skill://{NEW_SKILL}/SKILL.md" in again


def paged_builds(tmp_path: Path) -> tuple[Path, Path]:
    """The example catalog with its manifest paged (three entries a page), and build B of it
    (test-first changed)."""
    from skillsite.config import SiteConfig

    src = Path(shutil.copytree(EXAMPLES, tmp_path / "paged-src"))
    assert build([src], tmp_path / "paged-a", SiteConfig(shard_above=3), cache_dir=None).ok
    skill_md = src / CHANGED / "SKILL.md"
    skill_md.write_text(skill_md.read_text("utf-8") + f"\n{B_LINE}\n", "utf-8")
    assert build([src], tmp_path / "paged-b", SiteConfig(shard_above=3), cache_dir=None).ok
    return tmp_path / "paged-a", tmp_path / "paged-b"


async def every_skill(s: Session) -> dict[str, list]:
    """Every page of skills/list: the skills' URIs, and the ``_meta`` of each page that has one."""
    found: dict[str, list] = {"skills": [], "meta": []}
    params: dict[str, Any] = {}
    while True:
        kind, page = await s.raw("skills/list", **params)
        assert kind == "ok", page
        found["skills"] += [skill["uri"] for skill in page["skills"]]
        found["meta"] += [page["_meta"]] if "_meta" in page else []
        if "nextCursor" not in page:
            return found
        params = {"cursor": page["nextCursor"]}


def listed_counts(found: dict[str, Any]) -> dict[str, int]:
    return {key: len(value) for key, value in found.items() if isinstance(value, list)}


def test_a_skill_whose_nested_skill_meets_the_new_build_is_served_from_it_not_left_out(
        host: CountingServer, tmp_path: Path) -> None:
    """skills/get of a skill whose nested skill is on a page not read yet, once the host published
    build B (that nested skill changed, its parent's pieces the same): the nested skill's index
    failed build A's digest, and the extension's tables left the parent out for the server's life
    ("No skill is served"), with no new build opened.  Now that failure opens build B, and the
    request is answered from it."""
    from skillsite.config import SiteConfig

    src = Path(shutil.copytree(EXAMPLES, tmp_path / "nested-src"))
    a, b = tmp_path / "nested-a", tmp_path / "nested-b"
    assert build([src], a, SiteConfig(shard_above=3), cache_dir=None).ok
    nested_md = src / "release-manager" / "version-bump" / "SKILL.md"
    nested_md.write_text(nested_md.read_text("utf-8") + f"\n{B_LINE}\n", "utf-8")
    assert build([src], b, SiteConfig(shard_above=3), cache_dir=None).ok
    for same in ("manifest/index/0003.json", "skills/release-manager/entry.json"):  # the parent's pieces
        assert (a / same).read_bytes() == (b / same).read_bytes(), same
    assert (a / "manifest/index/0004.json").read_bytes() != (b / "manifest/index/0004.json").read_bytes()
    publish(a, host)

    async def body(s: Session, init: Any) -> dict[str, Any]:
        publish(b, host)
        return {"get": await s.raw("skills/get", uri="skill://release-manager/SKILL.md"), "changed": await s.changed()}

    out = run(host.url, tmp_path / "cache", body)
    kind, got = out["get"]
    assert kind == "ok", got
    digests = {resource["uri"]: resource["digest"] for resource in got["skill"]["resources"]}
    b_digest = hashlib.sha256(nested_md.read_bytes()).hexdigest()
    assert digests["skill://release-manager/version-bump/SKILL.md"] == f"sha256:{b_digest}", digests
    assert out["changed"] == LIST_CHANGED


def test_the_lists_follow_a_new_build_and_one_that_failed_is_answered_once_it_can_be(
        host: CountingServer, tmp_path: Path) -> None:
    """A paged catalog, its host half-way through an upload (build B's pages, skills.json cut
    short).  prompts/list and resources/list fail, rightly; before, the listing that failed was
    taken for a list's end, and both lists were empty for as long as the server ran.  skills/list
    left every skill out ("refusing it") instead of opening the new build; its first page, whose
    pages build B did not change, is build A's, and the next fails.  Once the upload is
    whole, each list is the new build's, whole; an error met on the way to the SDK (prompts/get)
    is a JSON-RPC error with its reason, not code 0."""
    a, b = paged_builds(tmp_path)
    publish(a, host)
    command = next(e["command"] for e in json.loads((a / "skills.json").read_bytes())["skills"] if "command" in e)

    async def lists(s: Session, init: Any) -> dict[str, Any]:
        return {"prompts": (await s.session.list_prompts()).prompts,
                "resources": (await s.session.list_resources()).resources}

    before = listed_counts(run(host.url, tmp_path / "first-cache", lists))  # build A's lists, whole

    async def body(s: Session, init: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"load": await s.call("load_skill", skill="code-review")}  # nothing listed yet
        publish(b, host)
        whole = (b / "skills.json").read_bytes()
        (host.root / "skills.json").write_bytes(whole[: len(whole) // 2])
        first = await s.raw("skills/list")  # its pages and the root's entries: build B changed none of them
        out["first_skills"] = first
        out["during"] = [await s.raw("prompts/list"), await s.raw("resources/list"),
                         await s.raw("skills/list", cursor=first[1].get("nextCursor")),
                         await s.raw("prompts/get", name=command)]
        (host.root / "skills.json").write_bytes(whole)
        out["after"] = {"prompts": (await s.session.list_prompts()).prompts,
                        "resources": (await s.session.list_resources()).resources,
                        "skills": (await s.raw("skills/list"))[1]["skills"]}
        out["changed"] = await s.changed()
        return out

    out = run(host.url, tmp_path / "cache", body)
    kind, first = out["first_skills"]
    assert kind == "ok" and len(first["skills"]) == 8 and "nextCursor" in first, out["first_skills"]
    for kind, (code, message) in out["during"]:
        assert kind == "error" and code == -32603 and "opening it again failed" in message, (kind, code, message)
    after = listed_counts(out["after"])
    assert before["prompts"] > 0 and after["prompts"] == before["prompts"], (before, after)
    assert after["resources"] == before["resources"] > after["skills"] > 0, (before, after)
    assert out["changed"] == LIST_CHANGED


def test_unsigned_lists_of_a_new_build_and_a_typo_that_costs_a_304(
        builds: tuple[Path, Path], host: CountingServer, tmp_path: Path) -> None:
    """skills/list of a catalog in one file, once the host published build B: every skill was
    left out with "refusing it", page after page, and no list_changed sent.  A name no build has
    asks the host whether skills.json changed with the cached copy's validators: a 304, not the
    whole file each time."""
    a, b = builds
    publish(a, host)

    async def listing(s: Session, init: Any) -> dict[str, list]:
        return await every_skill(s)

    before = run(host.url, tmp_path / "first-cache", listing)  # build A's skills/list, whole

    async def body(s: Session, init: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"load": await s.call("load_skill", skill="code-review")}  # nothing listed yet
        publish(b, host)
        host.take()
        out["after"] = await every_skill(s)
        out["changed"] = await s.changed()
        host.take()
        out["typos"] = [await s.call("load_skill", skill=f"no-such-skill-{n}") for n in range(3)]
        out["asked"] = host.take()
        return out

    out = run(host.url, tmp_path / "cache", body)
    after = out["after"]
    assert before["skills"] and not before["meta"] and not after["meta"], after["meta"]
    assert [uri for uri in after["skills"] if uri not in before["skills"]] == [f"skill://{NEW_SKILL}/SKILL.md"]
    assert out["changed"] == LIST_CHANGED
    assert all(is_error(typo) for typo in out["typos"])
    assert out["asked"] == [("/skills.json", 304)] * 3, out["asked"]
