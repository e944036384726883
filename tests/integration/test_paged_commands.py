"""A paged catalog's indexes give each skill's slash command (``"commands": "from-ids"``): its
id's, unless the row says another (a numbered one after a clash, or null: none), so a command is
found without fetching the pages.  Indexes of a catalog built before say no command: their pages
are read instead.  An index and an entry that give other commands are refused, whichever is read
first."""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from support import EXAMPLES, write_skill
from skillsite.agent.commands import command_name
from skillsite.config import SiteConfig
from skillsite.loader import Catalog, CatalogFormatError, NotFoundError
from skillsite.publish.build import build

#: Skills added to the example ones: two whose ids make one command (the larger id's is numbered),
#: and one a user cannot invoke (no command).
CLASHING = ("zz-clash", "zz_clash")  # after page 1, the root's
QUIET = "quiet-skill"


def read_json(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The example skills and those above, built whole and paged (pages of 3 entries)."""
    src = Path(shutil.copytree(EXAMPLES, tmp_path_factory.mktemp("src") / "skills"))
    for skill_id in CLASHING:
        write_skill(src, skill_id, name="zz-clash")
    write_skill(src, QUIET, f"name: {QUIET}\ndescription: Quiet. Use when testing.\nuser-invocable: false\n")
    built = {}
    for name, config in (("whole", SiteConfig()), ("paged", SiteConfig(shard_above=3))):
        out = tmp_path_factory.mktemp(name) / "_site"
        assert build([src], out, config).ok
        built[name] = out
    return built


def index_rows(site: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every index file of a paged site, and every row of them."""
    root = read_json(site / "skills.json")
    indexes = [read_json(site / record["index"]["url"]) for record in root["pages"]]
    return indexes, [row for index in indexes for row in index["skills"]]


def rewrite_indexes(site: Path, change: Any) -> None:
    """Each index of ``site`` given to ``change`` (which edits it in place), written again and
    pinned anew by the root, as a build would have written it."""
    root = read_json(site / "skills.json")
    for record in root["pages"]:
        index = read_json(site / record["index"]["url"])
        change(index)
        body = json.dumps(index, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        (site / record["index"]["url"]).write_bytes(body)
        record["index"].update(sha256=hashlib.sha256(body).hexdigest(), bytes=len(body))
    (site / "skills.json").write_text(json.dumps(root), "utf-8")


def test_each_index_row_gives_its_command_only_when_it_is_not_its_id_s(sites: dict[str, Path]) -> None:
    indexes, rows = index_rows(sites["paged"])
    assert {index["commands"] for index in indexes} == {"from-ids"}
    given = {row["id"]: row["command"] for row in rows if "command" in row}
    whole = {e["id"]: e.get("command") for e in read_json(sites["whole"] / "skills.json")["skills"]}
    assert given == {"zz_clash": "zz_clash_2", QUIET: None}
    assert all(whole[row["id"]] == command_name(row["id"]) for row in rows if "command" not in row)
    schema = read_json(sites["paged"] / "skills.schema.json")
    for index in indexes:
        jsonschema.Draft202012Validator({"$defs": schema["$defs"], "$ref": "#/$defs/index_file"}).validate(index)


def test_commands_and_a_slash_command_are_the_same_from_the_indexes_as_from_the_whole_manifest(
        sites: dict[str, Path], tmp_path: Path) -> None:
    whole, paged = Catalog.open(sites["whole"]), Catalog.open(sites["paged"])
    assert paged.commands() == whole.commands()
    assert ("zz_clash", "zz_clash_2") in paged.commands() and QUIET not in dict(paged.commands())
    for line in ("/zz_clash_2 now", "/zz_clash now", "/release_manager/changelog since v1.2"):
        assert Catalog.open(sites["paged"]).command_message(line) == whole.command_message(line)
    with pytest.raises(NotFoundError, match="did you mean /zz_clash"):
        Catalog.open(sites["paged"]).command_message("/zz_clasj")


def test_indexes_built_before_they_gave_commands_are_read_with_their_pages(sites: dict[str, Path],
                                                                           tmp_path: Path) -> None:
    site = Path(shutil.copytree(sites["paged"], tmp_path / "_site"))

    def as_before(index: dict[str, Any]) -> None:
        del index["commands"]
        for row in index["skills"]:
            row.pop("command", None)

    rewrite_indexes(site, as_before)
    whole = Catalog.open(sites["whole"])
    assert Catalog.open(site).commands() == whole.commands()
    assert Catalog.open(site).command_message("/zz_clash_2 now") == whole.command_message("/zz_clash_2 now")


@pytest.mark.parametrize("page_first", [False, True])
def test_an_index_and_an_entry_that_give_other_commands_are_refused(sites: dict[str, Path], tmp_path: Path,
                                                                    page_first: bool) -> None:
    """An index that says release-manager/changelog answers to /deploy: taken as it is, a prompt
    or a command would have answered for a skill whose entry says otherwise, depending on what
    was read first."""
    site = Path(shutil.copytree(sites["paged"], tmp_path / "_site"))

    def lying(index: dict[str, Any]) -> None:
        for row in index["skills"]:
            if row["id"] == "release-manager/changelog":
                row["command"] = "deploy"

    rewrite_indexes(site, lying)
    catalog = Catalog.open(site)
    if page_first:
        catalog.raw_entry("release-manager/changelog", with_page=True)  # its page read before its index
    with pytest.raises(CatalogFormatError, match="other (skills|slash commands)"):
        catalog.command_message("/deploy now")
