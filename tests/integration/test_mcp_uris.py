"""``skill://`` URIs of skills whose folder names hold "@" (``@scope+tool``, as npm scopes are
named), read the way an MCP client written in JavaScript reads them: the first segment of a
``skill://`` URI is its authority, where a bare "@" ends a user name, so the server writes it
%40, and takes a URI however a client spelt its path."""
from __future__ import annotations

from pathlib import Path

import pytest

from support import run_node, write_skill
from skillsite.publish.build import build

pytest.importorskip("mcp")  # the mcp extra (.ci/run installs it)

from test_mcp_skills import skillsite_mcp  # noqa: E402

#: What WHATWG's URL parser (Node's, a browser's) makes of each URI: its href.
JS_HREFS = "const uris = JSON.parse(require('fs').readFileSync(0, 'utf8')); " \
           "console.log(JSON.stringify(uris.map(u => new URL(u).href)));"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("uris") / "src"
    write_skill(src, "@scope+tool", name="scope-tool")
    write_skill(src, "tools/owner@repo", name="owner-repo")
    (src / "@scope+tool" / "references").mkdir()
    (src / "@scope+tool" / "references" / "a@b.md").write_text("# Notes\n", encoding="utf-8")
    out = src.parent / "site"
    assert build([src], out).ok
    return out


def test_an_at_sign_in_the_first_segment_is_written_so_a_javascript_client_keeps_the_uri(site: Path) -> None:
    with skillsite_mcp(site) as server:
        server.initialize()
        uris = {s["uri"] for s in server.all_skills()}
        files = [r["uri"] for s in server.all_skills() for r in s["resources"]]
        assert uris == {"skill://%40scope+tool/scope-tool/SKILL.md", "skill://tools/owner@repo/owner-repo/SKILL.md"}
        assert run_node("-e", JS_HREFS, stdin=files) == files   # parsed and written back unchanged
        for uri in files:
            assert server.read_bytes(uri)


@pytest.mark.parametrize("spelt", ["skill://@scope+tool/scope-tool/SKILL.md",
                                   "skill://%40scope%2Btool/scope-tool/SKILL.md",
                                   "skill://%40scope+tool/scope%2Dtool/SKILL.md"])
def test_a_uri_is_taken_however_a_client_encoded_its_path(site: Path, spelt: str) -> None:
    with skillsite_mcp(site) as server:
        server.initialize()
        skill = server.result("skills/get", uri=spelt)["skill"]
        assert skill["uri"] == "skill://%40scope+tool/scope-tool/SKILL.md"
        assert server.read_bytes(spelt) == server.read_bytes(skill["uri"])
        notes = spelt.replace("SKILL.md", "references/a@b.md")
        assert server.read_bytes(notes) == b"# Notes\n"
        listing = server.result("resources/directory/read", uri=spelt.rsplit("/", 1)[0])["resources"]
        assert [r["uri"] for r in listing] == ["skill://%40scope+tool/scope-tool/SKILL.md",
                                               "skill://%40scope+tool/scope-tool/references"]
