"""A foreign catalog whose entry names its id, a bundled file, a sub-skill or a release's file with
a character skill.xml cannot hold as written (a control character, U+FFFE, a lone surrogate, a
carriage return in a file name): ``load`` used to render that name as U+FFFD, a skill or file the
catalog does not have.  The loader refuses the entry (CatalogFormatError, naming the value escaped);
a name the fragment does hold (a tab in an id) still loads, its fragment naming it as skills.json does.
Served by a real HTTP server on 127.0.0.1; the catalogs are built, then edited by hand as a hostile
host would."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from skillsite.loader import Catalog, CatalogFormatError
from skillsite.publish.build import build
from support import served_edited_catalog, write_skill
from versioned_site import FakeRelease, served_site

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)

Edit = Callable[[dict[str, dict[str, Any]]], None]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A catalog of ``bell`` (two bundled files), ``p`` and its sub-skill ``p/c``, and ``tab\\tid``."""
    src, site = tmp_path_factory.mktemp("src"), tmp_path_factory.mktemp("built") / "site"
    for folder in ("bell", "p", "p/c", "tab\tid"):
        write_skill(src, folder, name=folder.replace("/", "-").replace("\t", "-"))
    (src / "bell" / "ok.sh").write_text("echo ok\n")
    (src / "bell" / "run.sh").write_text("echo run\n")
    assert build([src], site).ok
    return site


def _served(built: Path, tmp_path: Path, edit: Edit) -> Iterator[Catalog]:
    """The catalog with its entries (by id) edited, served on 127.0.0.1, opened by the loader."""
    return served_edited_catalog(built, tmp_path, lambda manifest: edit({e["id"]: e for e in manifest["skills"]}))


def _renamed(old: str, new: str) -> Edit:
    def edit(entries: dict[str, dict[str, Any]]) -> None:
        entries[old]["id"] = new
        parent = entries.get(old.rsplit("/", 1)[0]) if "/" in old else None
        if parent is not None:
            parent["children"] = [new if child == old else child for child in parent["children"]]
    return edit


def _file_named(path: str) -> Edit:
    def edit(entries: dict[str, dict[str, Any]]) -> None:
        entries["bell"]["files"][0]["path"] = path
    return edit


def _child_named(child: str) -> Edit:
    def edit(entries: dict[str, dict[str, Any]]) -> None:
        entries["p"]["children"] = [child]
    return edit


@pytest.mark.parametrize("edit, load, message", [
    (_renamed("bell", "bell\x07"), "bell\x07", r"skill has the id 'bell\\x07', whose U\+0007 its prompt fragment "
                                                 r"\(skill\.xml, XML 1\.0\) cannot hold as written$"),
    (_renamed("bell", "bell\x1b[2J"), "bell", r"skill has the id 'bell\\x1b\[2J', whose U\+001B"),
    (_renamed("bell", "bell\ufffe"), "bell\ufffe", r"skill has the id 'bell\\ufffe', whose U\+FFFE"),
    (_renamed("bell", "bell\udcff"), "bell\udcff", r"skill has the id 'bell\\udcff', which is not valid Unicode "
                                                     r"text \(a lone surrogate\)"),
    (_file_named("sc\x1bript.sh"), "bell", r"skill \(bell\) has a file path 'sc\\x1bript.sh', whose U\+001B"),
    (_file_named("line\rfeed.txt"), "bell", r"skill \(bell\) has a file path 'line\\rfeed.txt', whose U\+000D"),
    (_renamed("p/c", "p/c\x01"), "p", r"skill \(p\) has a child id 'p/c\\x01', whose U\+0001"),
    (_child_named("p/\x1b"), "p", r"skill \(p\) has a child id 'p/\\x1b', whose U\+001B"),
], ids=["bel-id", "escape-id-by-name", "noncharacter-id", "surrogate-id", "escape-file", "cr-file", "child",
        "child-unknown"])
def test_an_entry_naming_what_skill_xml_cannot_hold_is_refused(built: Path, tmp_path: Path, edit: Edit, load: str,
                                                              message: str) -> None:
    for catalog in _served(built, tmp_path, edit):
        with pytest.raises(CatalogFormatError, match=message):
            catalog.load(load)
        assert "\ufffd" not in catalog.load("tab\tid").xml  # the others load as before


def test_an_id_the_fragment_holds_loads_and_its_fragment_names_it_as_skills_json_does(built: Path,
                                                                                      tmp_path: Path) -> None:
    for catalog in _served(built, tmp_path, lambda entries: None):
        for skill_id in ("tab\tid", "p", "bell"):
            content = catalog.load(skill_id)
            fragment = ET.fromstring(content.xml)
            assert fragment.get("id") == skill_id == content.id
            assert [f.text for f in fragment.iter("file")] == [f.path for f in catalog.manifest_entry(skill_id).files]
            assert [s.get("id") for s in fragment.iter("skill")] == list(catalog.manifest_entry(skill_id).children)


def test_a_release_listing_a_file_skill_xml_cannot_hold_is_refused(tmp_path: Path) -> None:
    skills = {"v": [FakeRelease("1.0.0", files={"sc\x1bript.sh": "echo hi\n"}), FakeRelease("2.0.0")]}
    with served_site(tmp_path / "catalog", skills) as server:
        catalog = Catalog.open(f"{server.url}skills.json", cache_dir=tmp_path / "cache")
        with pytest.raises(CatalogFormatError, match=r"release file 'sc\\x1bript.sh', whose U\+001B its prompt "
                                                     r"fragment \(skill\.xml, XML 1\.0\) cannot hold as written"):
            catalog.load("v", "1.0.0")
        assert catalog.load("v").body.startswith("# v 2.0.0")  # the current files need no versions.json
