"""A knowledge document whose path holds a character XML 1.0 forbids (a control character, U+FFFE)
used to be published, its skill.xml listing it as ``<doc path="a\\ufffdb.md">``: an agent calling
``knowledge(path)`` with the path the fragment gives found nothing.  The build now refuses it
(SK218 at the line declaring it, never a traceback; with --keep-going the other skills and their
documents are published, each fragment naming its documents as skills.json does), and the loader
refuses a foreign catalog's record naming one (CatalogFormatError naming it escaped).  Real
folders; the catalogs are served by a real HTTP server on 127.0.0.1."""
from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Iterator

import pytest

from skillsite.loader import Catalog, CatalogFormatError
from skillsite.publish.build import build
from skillsite.source.catalog import read_catalog
from support import serve_folder, served_edited_catalog, write_skill

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)

#: Declared paths skill.xml cannot hold (as YAML writes them), how a diagnostic names each, its character.
UNHELD = [('"a\\x07b.md"', "'a\\x07b.md'", "U+0007"), ('"./own\\x1bx.md"', "'./own\\x1bx.md'", "U+001B"),
          ('"non\\ufffechar.md"', "'non\\ufffechar.md'", "U+FFFE")]
#: What skill.xml holds as written (a tab in an attribute is written &#9;).
HELD = ["plain.md", "tab\tdoc.md", "./notes.md"]


def _tree(src: Path) -> None:
    """``bad`` declares every unheld document (lines 5 to 7 of its SKILL.md); ``good`` the held ones."""
    (src / "knowledge").mkdir(parents=True)
    for name in ("a\x07b.md", "non\ufffechar.md", "plain.md", "tab\tdoc.md"):
        (src / "knowledge" / name).write_text(f"# {name!r}\n", encoding="utf-8")
    declared = "".join(f"  - {yaml}\n" for yaml, _, _ in UNHELD)
    write_skill(src, "bad", f"name: bad\ndescription: Bad documents. Use when testing.\nknowledge:\n{declared}")
    (src / "bad" / "own\x1bx.md").write_text("# own\n", encoding="utf-8")
    write_skill(src, "good", "name: good\ndescription: Good documents. Use when testing.\n"
                             "knowledge: [plain.md, \"tab\\tdoc.md\", ./notes.md]\n")
    (src / "good" / "notes.md").write_text("# notes\n", encoding="utf-8")


def _said(diagnostics) -> list[tuple[str, str, int, str]]:
    return [(d.severity.value, d.path.split("/src/")[-1], d.line, d.message) for d in diagnostics if d.code == "SK218"]


def _expected() -> list[tuple[str, str, int, str]]:
    return [("error", "bad/SKILL.md", line, f"knowledge path {shown} holds {char}, a character the skill's prompt "
             "fragment (skill.xml, XML 1.0) cannot hold; rename the document")
            for line, (_, shown, char) in enumerate(UNHELD, start=5)]


def test_a_document_skill_xml_cannot_name_is_refused_and_every_fragment_names_what_knowledge_finds(
        tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "site"
    _tree(src)
    assert _said(read_catalog([src]).diagnostics) == _expected()
    result = build([src], out, keep_going=True)
    assert result.ok and list(result.skipped) == ["bad"] and _said(result.diagnostics) == _expected()
    published = sorted(p.relative_to(out / "knowledge").as_posix() for p in (out / "knowledge").rglob("*")
                       if p.is_file())
    assert published == ["plain.md", "skills/good/notes.md", "tab\tdoc.md"]
    base, stop = serve_folder(out)
    try:
        catalog = Catalog.open(f"{base}/skills.json", cache_dir=tmp_path / "cache")
        fragment = ET.fromstring(catalog.load("good").xml)
        paths = [doc.get("path") for doc in fragment.iter("doc")]
        assert paths == [k["path"] for k in catalog.entry("good")["knowledge"]]
        assert paths == ["plain.md", "tab\tdoc.md", "skills/good/notes.md"]
        assert [catalog.knowledge(path) for path in paths] == [b"# 'plain.md'\n", b"# 'tab\\tdoc.md'\n", b"# notes\n"]
    finally:
        stop()


def test_without_keep_going_the_build_fails_naming_the_document_with_no_traceback(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "site"
    _tree(src)
    run = subprocess.run([sys.executable, "-m", "skillsite", "build", str(src), "-o", str(out), "-j", "1"],
                         capture_output=True, text=True, timeout=300)
    said = run.stdout + run.stderr
    assert run.returncode == 1 and "Traceback" not in said and not out.exists(), said
    assert ("bad/SKILL.md:6:5: error SK218 knowledge path './own\\x1bx.md' holds U+001B, a character the skill's "
            "prompt fragment (skill.xml, XML 1.0) cannot hold; rename the document") in said
    assert "\x1b" not in said and "\x07" not in said


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A catalog whose skill ``doc`` points to ``runbook.md``, and ``other`` to nothing."""
    src, site = tmp_path_factory.mktemp("src"), tmp_path_factory.mktemp("built") / "site"
    (src / "knowledge").mkdir()
    (src / "knowledge" / "runbook.md").write_text("# Runbook\n", encoding="utf-8")
    write_skill(src, "doc", "name: doc\ndescription: Has a document. Use when testing.\nknowledge: [runbook.md]\n")
    write_skill(src, "other")
    assert build([src], site).ok
    return site


def _served(built: Path, tmp_path: Path, path: str) -> Iterator[Catalog]:
    """The catalog with the record of ``doc``'s document naming ``path``, as a hostile host could
    write it, served on 127.0.0.1 and opened by the loader."""

    def edit(manifest: dict) -> None:
        next(entry for entry in manifest["skills"] if entry["id"] == "doc")["knowledge"][0]["path"] = path

    return served_edited_catalog(built, tmp_path, edit)


@pytest.mark.parametrize("path, message", [
    ("a\x07b.md", r"skill \(doc\) has a knowledge path 'a\\x07b\.md', whose U\+0007 its prompt fragment "
                  r"\(skill\.xml, XML 1\.0\) cannot hold as written$"),
    ("esc\x1b[2J.md", r"skill \(doc\) has a knowledge path 'esc\\x1b\[2J\.md', whose U\+001B"),
    ("non\uffff.md", r"skill \(doc\) has a knowledge path 'non\\uffff\.md', whose U\+FFFF"),
    ("lone\udcff.md", r"skill \(doc\) has a knowledge path 'lone\\udcff\.md', which is not valid Unicode text "
                      r"\(a lone surrogate\)"),
], ids=["bel", "escape", "noncharacter", "surrogate"])
def test_a_record_naming_a_document_skill_xml_cannot_name_is_refused(built: Path, tmp_path: Path, path: str,
                                                                    message: str) -> None:
    for catalog in _served(built, tmp_path, path):
        with pytest.raises(CatalogFormatError, match=message):
            catalog.load("doc")
        with pytest.raises(CatalogFormatError, match=message):
            catalog.knowledge(path)
        assert catalog.load("other").id == "other"  # the others load as before


def test_a_record_the_fragment_holds_loads_and_knowledge_finds_what_it_names(built: Path, tmp_path: Path) -> None:
    for catalog in _served(built, tmp_path, "tab\tbook.md"):
        paths = [doc.get("path") for doc in ET.fromstring(catalog.load("doc").xml).iter("doc")]
        assert paths == ["tab\tbook.md"]
        assert catalog.knowledge(paths[0]) == b"# Runbook\n"  # the record's URL is still the built one's
