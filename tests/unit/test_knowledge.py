"""Knowledge documents: checked (SK218), published once, listed on load and on the page, verified."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillsite.config import SiteConfig
from skillsite.loader import Catalog, IntegrityError
from skillsite.publish.build import build
from skillsite.source.catalog import check_catalog
from skillsite.source.knowledge import document_title
from support import write_skill


def make_tree(root: Path) -> Path:
    src = root / "src"
    (src / "knowledge" / "runbooks").mkdir(parents=True)
    (src / "knowledge" / "runbooks" / "deploy.md").write_text("Intro line\n\n## Deploy <safely> & well\n", "utf-8")
    (src / "knowledge" / "glossary.txt").write_text("terms\n", "utf-8")
    write_skill(src, "ship", "name: ship\ndescription: Ship it. Use when testing.\n"
                             "knowledge: [runbooks/deploy.md, glossary.txt, ./notes/local.md]\n")
    (src / "ship" / "notes").mkdir()
    (src / "ship" / "notes" / "local.md").write_text("# Local notes\n", "utf-8")
    write_skill(src, "also", "name: also\ndescription: Shares a document. Use when testing.\n"
                             "knowledge: [runbooks/deploy.md]\n")
    return src


def test_documents_are_published_once_and_recorded(tmp_path: Path) -> None:
    src = make_tree(tmp_path)
    out = tmp_path / "_site"
    assert build([src], out).ok
    catalog = Catalog.open(out)
    records = catalog.entry("ship")["knowledge"]
    assert [(r["path"], r["title"], r["size"]) for r in records] == [
        ("runbooks/deploy.md", "Deploy <safely> & well", 38), ("glossary.txt", "glossary.txt", 6),
        ("skills/ship/notes/local.md", "Local notes", 14)]
    assert catalog.entry("also")["knowledge"] == records[:1]
    assert sorted(p.relative_to(out / "knowledge").as_posix() for p in (out / "knowledge").rglob("*")
                  if p.is_file()) == ["glossary.txt", "runbooks/deploy.md", "skills/ship/notes/local.md"]
    xml = catalog.load("ship").xml
    assert (f'<doc path="runbooks/deploy.md" title="Deploy &lt;safely&gt; &amp; well">'
            f'{out}{os.sep}knowledge/runbooks/deploy.md</doc>') in xml
    assert catalog.knowledge("glossary.txt") == b"terms\n"
    page = (out / "skills" / "ship" / "index.html").read_text("utf-8")
    assert '<a href="../../knowledge/runbooks/deploy.md">Deploy &lt;safely&gt; &amp; well</a>' in page


def test_a_tampered_document_raises_integrity_error(tmp_path: Path) -> None:
    src = make_tree(tmp_path)
    out = tmp_path / "_site"
    assert build([src], out).ok
    (out / "knowledge" / "glossary.txt").write_text("tampered\n", "utf-8")
    with pytest.raises(IntegrityError):
        Catalog.open(out).knowledge("glossary.txt")


def test_missing_and_escaping_documents_are_errors_with_their_line(tmp_path: Path) -> None:
    src = make_tree(tmp_path)
    outside = tmp_path / "secret.md"
    outside.write_text("# secret\n", "utf-8")
    (src / "knowledge" / "link.md").symlink_to(outside)
    write_skill(src, "bad", "name: bad\ndescription: Bad documents. Use when testing.\nknowledge:\n"
                            "  - missing.md\n  - ../secret.md\n  - link.md\n  - ./../../secret.md\n  - /etc/passwd\n")
    diags = [(d.line, d.message) for d in check_catalog([src]).diagnostics if d.code == "SK218"]
    assert [line for line, _ in diags] == [5, 6, 7, 8, 9]
    assert "does not exist" in diags[0][1] and "leaves its folder" in diags[1][1]
    assert "outside its folder" in diags[2][1] and "leaves its folder" in diags[3][1] and "relative" in diags[4][1]
    result = build([src], tmp_path / "_site")
    assert not result.ok and not (tmp_path / "_site").exists()


@pytest.mark.parametrize("inside", [False, True])
def test_the_trees_knowledge_folder_is_not_followed_out_of_it(tmp_path: Path, inside: bool) -> None:
    """knowledge/ linked out of the source was said not followed (SK002), then followed: a skill
    naming creds.txt published a file from outside the tree.  A link inside the tree is followed."""
    src, outside = tmp_path / "src", tmp_path / ("src/shared" if inside else "outside")
    src.mkdir()
    outside.mkdir()
    (outside / "creds.txt").write_text("SECRET=hunter2\n", "utf-8")
    (src / "knowledge").symlink_to(outside)
    write_skill(src, "t", "name: t\ndescription: Points into knowledge. Use when testing.\nknowledge: [creds.txt]\n")
    said = [d.message for d in check_catalog([src]).diagnostics if d.code == "SK218"]
    result = build([src], tmp_path / "_site")
    if inside:
        assert said == [] and result.ok
        assert (tmp_path / "_site" / "knowledge" / "creds.txt").read_text("utf-8") == "SECRET=hunter2\n"
    else:
        assert len(said) == 1 and "not a symbolic link out of it" in said[0]
        assert not result.ok and not (tmp_path / "_site").exists()


def test_knowledge_dir_comes_from_the_configuration(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n", "utf-8")
    write_skill(src, "one", "name: one\ndescription: One. Use when testing.\nknowledge: [a.md]\n")
    assert not build([src], tmp_path / "x").ok  # not in src/knowledge
    config = SiteConfig(knowledge_dir=str(tmp_path / "docs"))
    assert build([src], tmp_path / "_site", config).ok
    assert (tmp_path / "_site" / "knowledge" / "a.md").read_text("utf-8") == "# A\n"


def test_a_changed_document_is_republished_by_the_next_build(tmp_path: Path) -> None:
    src = make_tree(tmp_path)
    out, cache = tmp_path / "_site", tmp_path / "cache"
    assert build([src], out, cache_dir=cache).ok
    doc = src / "knowledge" / "glossary.txt"
    doc.write_text("more terms\n", "utf-8")
    os.utime(doc, ns=(doc.stat().st_mtime_ns + 5_000_000_000,) * 2)
    assert build([src], out, cache_dir=cache).ok
    assert Catalog.open(out).knowledge("glossary.txt") == b"more terms\n"


def test_titles_come_from_the_first_heading() -> None:
    assert document_title(b"text\n# First\n## Second\n", "a/b.md") == "First"
    assert document_title(b"no heading", "a/b.md") == "b.md"


def test_a_skill_s_own_document_must_be_a_file_it_publishes(tmp_path: Path) -> None:
    src = tmp_path / "src"
    folder = write_skill(src, "demo", "name: demo\ndescription: Demo. Use when testing.\n"
                                      "knowledge: [./secret/key.md]\n")
    (folder / "secret").mkdir()
    (folder / "secret" / "key.md").write_text("# TOPSECRET\n", "utf-8")
    diags = [d for d in check_catalog([src], exclude=["demo/secret"]).diagnostics if d.code == "SK218"]
    assert len(diags) == 1 and "not a file the skill publishes" in diags[0].message
    assert not build([src], tmp_path / "_site", SiteConfig(exclude=("demo/secret",))).ok
    assert not (tmp_path / "_site").exists()


def test_a_document_named_twice_is_listed_once_and_odd_entries_are_said_at_their_line(tmp_path: Path) -> None:
    """``sub/../d.md`` after ``d.md`` made two identical records (and two lines of skill.xml); it is
    a warning at its line, listed once.  An empty entry was "'knowledge' is empty" at the key's
    line, and ``./SKILL.md`` was "not a file the skill publishes"."""
    src = make_tree(tmp_path)
    write_skill(src, "twice", "name: twice\ndescription: Names a document twice. Use when testing.\nknowledge:\n"
                              "  - glossary.txt\n  - runbooks/../glossary.txt\n")
    out = tmp_path / "_site"
    result = build([src], out)
    said = [(d.line, d.severity.value, d.message) for d in result.diagnostics if d.code == "SK218"]
    assert said == [(6, "warning", "knowledge path 'runbooks/../glossary.txt' names the document 'glossary.txt' "
                                   "names; listed once")]
    assert [r["path"] for r in Catalog.open(out).entry("twice")["knowledge"]] == ["glossary.txt"]
    write_skill(src, "odd", "name: odd\ndescription: Odd documents. Use when testing.\nknowledge:\n"
                            "  - glossary.txt\n  - ''\n  - ./SKILL.md\n")
    said = [(d.code, d.line, d.message) for d in check_catalog([src]).diagnostics if d.path.endswith("odd/SKILL.md")]
    assert said == [("SK208", 6, "'knowledge[1]' is empty"),
                    ("SK218", 7, "knowledge document './SKILL.md' is the skill's own SKILL.md, which an agent reads "
                                 "first: no document")]


def test_a_title_is_the_heading_as_the_lazy_pattern_read_it_and_a_long_line_costs_one_read() -> None:
    """The heading's text was a lazy match before its closing marks, tried against every end of
    the line: '# a', 64,000 spaces and 'x' took seconds a document."""
    import random
    import re

    lazy = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.M)
    rng = random.Random(2)
    for _ in range(20_000):
        text = "".join(rng.choice(["#", " ", "\t", "a", "\n", "\r", "b"]) for _ in range(rng.randint(0, 14)))
        match = lazy.search(text)
        expected = " ".join((match.group(1).strip() if match else "").split())[:200] or "x.md"
        assert document_title(text.encode(), "d/x.md") == expected, repr(text)
    assert document_title(b"# a" + b" " * 64_000 + b"x\n", "d/x.md") == "a x"


def test_a_shared_document_cannot_take_the_place_of_a_skills_own(tmp_path: Path) -> None:
    """knowledge/skills/alpha/notes.md (shared) and alpha's ./notes.md were both published as
    knowledge/skills/alpha/notes.md: whichever skill sorted first won, with no word."""
    src = tmp_path / "src"
    (src / "knowledge" / "skills" / "alpha").mkdir(parents=True)
    (src / "knowledge" / "skills" / "alpha" / "notes.md").write_text("# impostor\n", "utf-8")
    write_skill(src, "alpha", "name: alpha\ndescription: Own notes. Use when testing.\nknowledge: [./notes.md]\n")
    (src / "alpha" / "notes.md").write_text("# Own notes\n", "utf-8")
    write_skill(src, "aaa", "name: aaa\ndescription: Shared notes. Use when testing.\n"
                            "knowledge: [skills/alpha/notes.md]\n")
    said = [(d.path.split("/src/")[-1], d.message) for d in check_catalog([src]).diagnostics if d.code == "SK218"]
    assert len(said) == 1 and said[0][0] == "aaa/SKILL.md" and "each skill's own documents" in said[0][1]
    assert build([src], tmp_path / "_site", keep_going=True).ok
    assert Catalog.open(tmp_path / "_site").knowledge("skills/alpha/notes.md") == b"# Own notes\n"


def test_a_body_links_to_the_shared_documents_its_skill_lists(tmp_path: Path) -> None:
    """A body's link to a shared document its skill lists, written as the source tree has it
    (``../knowledge/x.md``, in any spelling), was SK304 and a broken link on the page: it now links
    the catalog's copy.  A link to a document the skill does not list is still SK304, saying how
    to publish it."""
    import re

    src = make_tree(tmp_path)
    (src / "knowledge" / "other.md").write_text("# Other\n", "utf-8")
    ship = src / "ship" / "SKILL.md"
    ship.write_text(ship.read_text("utf-8") + "\nRead [the runbook](../knowledge/runbooks/deploy.md#steps), "
                    "[the same](./../knowledge/./runbooks/deploy.md) and [unlisted](../knowledge/other.md).\n", "utf-8")
    write_skill(src, "team/deep", "name: deep\ndescription: Deep down. Use when testing.\nknowledge: [glossary.txt]\n",
                body="See [terms](../../knowledge/glossary.txt).\n")
    unlisted = ["ship/SKILL.md SK304 link '../knowledge/other.md' leaves the skill folder; it is not published "
                "with the skill (a shared knowledge document is published when the skill lists it under 'knowledge')"]
    check = check_catalog([src], ignore=["SK219"])
    assert [f"{Path(d.path).relative_to(src).as_posix()} {d.code} {d.message}" for d in check.diagnostics
            if d.code.startswith("SK3")] == unlisted
    out = tmp_path / "_site"
    result = build([src], out)
    assert result.ok and [d.code for d in result.diagnostics if d.code.startswith("SK3")] == ["SK304"]
    linked = [("ship", "the runbook", "runbooks/deploy.md#steps"), ("ship", "the same", "runbooks/deploy.md"),
              ("team/deep", "terms", "glossary.txt")]
    for skill_id, text, document in linked:
        page = (out / "skills" / skill_id / "index.html").read_text("utf-8")
        href = re.search(rf'<a href="([^"]+)">{text}</a>', page).group(1)
        assert os.path.normpath(out / "skills" / skill_id / href) == os.path.normpath(out / "knowledge" / document)
    page = (out / "skills" / "ship" / "index.html").read_text("utf-8")
    assert re.search(r'<span class="broken-link"[^>]*>unlisted</span>', page)


def test_a_document_named_in_another_unicode_spelling_is_found(tmp_path: Path) -> None:
    """A file named on macOS is decomposed (NFD) and the same name typed in SKILL.md composed (NFC):
    the document was SK218 'does not exist'.  It is found, shared or the skill's own, and published
    under the path the skill wrote."""
    import unicodedata

    def nfd(text: str) -> str:
        return unicodedata.normalize("NFD", text)

    src = tmp_path / "src"
    (src / "knowledge" / nfd("Café")).mkdir(parents=True)
    (src / "knowledge" / nfd("Café") / nfd("Résumé.md")).write_text("# Shared\n", "utf-8")
    folder = write_skill(src, "menu", "name: menu\ndescription: Menus. Use when testing.\n"
                                      "knowledge: [Café/Résumé.md, ./Carte-é.md]\n")
    (folder / nfd("Carte-é.md")).write_text("# Own\n", "utf-8")
    assert [d for d in check_catalog([src]).diagnostics if d.code == "SK218"] == []
    out = tmp_path / "_site"
    assert build([src], out).ok
    catalog = Catalog.open(out)
    assert [r["path"] for r in catalog.entry("menu")["knowledge"]] == ["Café/Résumé.md", "skills/menu/Carte-é.md"]
    assert catalog.knowledge("Café/Résumé.md") == b"# Shared\n"
    assert catalog.knowledge("skills/menu/Carte-é.md") == b"# Own\n"


def test_a_folder_is_listed_once_however_many_documents_are_found_in_another_spelling(tmp_path: Path,
                                                                                       monkeypatch) -> None:
    """Each document named in another spelling than its file listed its whole folder again: a skill
    listing thousands of them made the check and the build cost the square of their number."""
    import unicodedata

    src = tmp_path / "src"
    folder = write_skill(src, "many", "name: many\ndescription: Many documents. Use when testing.\nknowledge:\n"
                         + "".join(f"  - ./d/é{i}.md\n" for i in range(200)))
    (folder / "d").mkdir()
    for i in range(200):
        (folder / "d" / unicodedata.normalize("NFD", f"é{i}.md")).write_text(f"# {i}\n", "utf-8")
    listed: list[str] = []
    real_listdir = os.listdir
    monkeypatch.setattr(os, "listdir", lambda path=".": listed.append(os.fspath(path)) or real_listdir(path))
    assert [d for d in check_catalog([src]).diagnostics if d.code == "SK218"] == []
    assert listed.count(str(folder / "d")) == 1
    listed.clear()
    assert build([src], tmp_path / "_site").ok
    assert listed.count(str(folder / "d")) == 2  # once by its check, once by publishing
    assert len(Catalog.open(tmp_path / "_site").entry("many")["knowledge"]) == 200
