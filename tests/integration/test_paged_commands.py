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

from support import EXAMPLES, CountingServer, write_skill
from skillsite.agent.commands import command_name
from skillsite.config import SiteConfig
from skillsite.loader import Catalog, CatalogFormatError, NotFoundError
from skillsite.publish.build import build

#: Skills added to the example ones: two whose ids make one command (the larger id's is numbered),
#: and one a user cannot invoke (no command).
CLASHING = ("zz-clash", "zz_clash")  # after page 1, the root's
QUIET = "quiet-skill"
ACCENTED = "zz-café"   # an id outside ASCII: its row says its command


def read_json(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The example skills and those above, built whole and paged (pages of 3 entries)."""
    src = Path(shutil.copytree(EXAMPLES, tmp_path_factory.mktemp("src") / "skills"))
    for skill_id in CLASHING:
        write_skill(src, skill_id, name="zz-clash")
    write_skill(src, QUIET, f"name: {QUIET}\ndescription: Quiet. Use when testing.\nuser-invocable: false\n")
    write_skill(src, ACCENTED)
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
    assert given == {"zz_clash": "zz_clash_2", QUIET: None, ACCENTED: "zz_café"}
    assert all(whole[row["id"]] == command_name(row["id"]) and row["id"].isascii() for row in rows
               if "command" not in row)
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


def test_an_index_that_leaves_an_accented_id_s_command_to_be_made_is_read_with_its_page(
        sites: dict[str, Path], tmp_path: Path) -> None:
    """What Python makes of a letter outside ASCII (str.lower, \\w) follows its Unicode tables,
    which differ between versions: a command made of such an id by a reader on another Python
    than the build's may not be the build's (a Kawi letter, Unicode 15: a loader on Python 3.12
    refused a skill a 3.11 build published).  Such a row says its command; one that does not
    is not taken as its id's: its index gives no commands, and its page is read."""
    site = Path(shutil.copytree(sites["paged"], tmp_path / "_site"))

    def silent_on_accents(index: dict[str, Any]) -> None:
        for row in index["skills"]:
            if not row["id"].isascii():
                row.pop("command")

    rewrite_indexes(site, silent_on_accents)
    whole = Catalog.open(sites["whole"])
    assert Catalog.open(site).commands() == whole.commands()
    assert Catalog.open(site).command_message("/zz_café now") == whole.command_message("/zz_café now")


def test_commands_are_found_offline_in_the_pages_a_session_cached(sites: dict[str, Path], tmp_path: Path) -> None:
    """A session read every page (cached), and the host went away: a command was refused for an
    index never fetched, where the cached pages hold every command."""
    host = CountingServer(sites["paged"])
    try:
        online = Catalog.open(host.url, cache_dir=tmp_path / "cache")
        assert len(online.skills) > 10 and online.load("zz_clash").id == "zz_clash"
    finally:
        host.stop()
    with pytest.warns(UserWarning):
        offline = Catalog.open(host.url, cache_dir=tmp_path / "cache")
    assert offline.status == "offline"
    whole = Catalog.open(sites["whole"])
    assert offline.commands() == whole.commands()
    assert offline.command_message("/zz_clash_2 now") == whole.command_message("/zz_clash_2 now")


def test_the_closest_commands_that_answer_are_offered_for_a_typo(sites: dict[str, Path], tmp_path: Path) -> None:
    """The hint took the three commands closest to a typo, then dropped those no skill answers
    to (entries of a catalog built before user-invocable: false removed their command): a
    command that answers, a little further, was not offered."""
    site = Path(shutil.copytree(sites["whole"], tmp_path / "_site"))
    data = read_json(site / "skills.json")
    data["skills"][0]["command"] = "changelo"
    for entry, command in zip(data["skills"][1:4], ("changelogga", "changeloggb", "changeloggc")):
        entry["command"], entry["visibility"]["user_invocable"] = command, False
    (site / "skills.json").write_text(json.dumps(data), "utf-8")
    with pytest.raises(NotFoundError, match=r"did you mean /changelo\?"):
        Catalog.open(site).command_message("/changelogg now")
    catalog = Catalog.open(site)
    catalog.commands().clear()   # a copy: the catalog's own list stays whole
    assert catalog.command_message("/changelo now").endswith("Task: now")


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
    with pytest.raises(CatalogFormatError, match="give .*other slash commands"):
        catalog.command_message("/deploy now")
