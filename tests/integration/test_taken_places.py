"""A skill folder named like a file the catalog writes in its place (``skills/index.json``, a
page of the skill holding it) is an error of that skill (SK015), said by ``validate`` and
``build`` alike, not a failure of the machine: with --keep-going the others are published."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from skillsite.publish.build import build
from skillsite.source.catalog import read_catalog


def _skill(folder: Path, name: str) -> None:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Say what {name} does. Use when asked.\n"
                                     "---\nBody.\n")


def _tree(src: Path) -> None:
    _skill(src / "index.json", "index-json")
    _skill(src / "tools", "tools")
    _skill(src / "tools" / "index.html", "inner")
    _skill(src / "plain", "plain")


def test_skills_in_the_catalog_s_places_are_errors_and_the_rest_is_published(tmp_path):
    src, out = tmp_path / "src", tmp_path / "site"
    _tree(src)
    taken = sorted((Path(d.path).parent.name, d.severity.value) for d in read_catalog([src]).diagnostics
                   if d.code == "SK015")
    assert taken == [("index.html", "error"), ("index.json", "error")]
    result = build([src], out, keep_going=True)
    assert result.ok and set(result.skipped) == {"index.json", "tools/index.html"}
    assert set(result.published) == {"tools", "plain"}
    assert json.loads((out / "skills" / "index.json").read_text()) == {"skills": ["plain", "tools"]}
    assert (out / "skills" / "tools" / "index.html").is_file()


def test_without_keep_going_the_build_stops_with_the_diagnostic_not_an_error_of_the_machine(tmp_path):
    src, out = tmp_path / "src", tmp_path / "site"
    _tree(src)
    run = subprocess.run([sys.executable, "-m", "skillsite", "build", str(src), "-o", str(out), "-j", "1"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 1, run.stderr
    assert run.stdout.count(" error SK015 ") + run.stderr.count(" error SK015 ") == 2
    assert "Traceback" not in run.stderr and not out.exists()


def test_a_nested_skill_in_the_place_of_its_versioned_holder_s_releases_is_an_error(tmp_path):
    """An old copy kept in ``versions/1.0.0/`` of a versioned skill: the build writes that
    skill's 1.0.0 release there, so the nested skill's files were overwritten silently (its
    manifest entry then named a SKILL.md the site did not hold)."""
    src, out = tmp_path / "src", tmp_path / "site"
    _skill(src / "p", "p")
    (src / "p" / "SKILL.md").write_text("---\nname: p\ndescription: Say what p does. Use when asked.\n"
                                        "version: 1.0.0\n---\nBody.\n")
    _skill(src / "p" / "versions" / "1.0.0", "old-p")
    _skill(src / "q" / "versions" / "1.0.0", "kept")   # q is no versioned skill: its place is free
    _skill(src / "q" / "deeper" / "index.html" / "x", "deep")   # below a folder named like q's page
    taken = sorted(Path(d.path).parent.relative_to(src).as_posix() for d in read_catalog([src]).diagnostics
                   if d.code == "SK015")
    assert taken == ["p/versions/1.0.0"]
    result = build([src], out, keep_going=True)
    assert result.ok and set(result.skipped) == {"p/versions/1.0.0"}
    assert b"Body." in (out / "skills" / "p" / "versions" / "1.0.0" / "SKILL.md").read_bytes()


@pytest.mark.parametrize("folder", ["index.html", "skill.xml", "entry.xml", "index.json", "versions.json", "versions"])
def test_a_bundled_folder_named_like_a_file_the_catalog_writes_is_not_published(tmp_path, folder):
    """A folder of bundled files named like the skill's page (or, in a versioned skill, its
    releases): the build stopped with 'Is a directory' (exit 3, as if the machine failed); it is
    SK009 as a file of that name is, and the rest is published."""
    src, out = tmp_path / "src", tmp_path / "site"
    _skill(src / "q", "q")
    (src / "q" / "SKILL.md").write_text("---\nname: q\ndescription: Say what q does. Use when asked.\n"
                                        "version: 2.0.0\n---\nBody.\n")
    (src / "q" / folder).mkdir()
    (src / "q" / folder / "notes.md").write_text("notes\n")
    result = build([src], out)
    assert result.ok and [d.message for d in result.diagnostics if d.code == "SK009"] == [
        f"bundled file '{folder}/notes.md' has a name the catalog uses for its own pages; not published"]
    entry = json.loads((out / "skills.json").read_text())["skills"][0]
    assert entry["files"] == [] and not (out / "skills" / "q" / folder / "notes.md").exists()


def test_ids_one_only_in_case_or_unicode_spelling_are_said_to_share_a_folder_there(tmp_path: Path) -> None:
    """Linux keeps ``Team/x``, ``team/x`` and an NFD ``café`` beside the NFC one apart; macOS and
    Windows hold one folder for each pair, so a copy of the catalog there loses a skill: each id
    after the first of its pair gets SK232 (a warning: both are still published)."""
    src = tmp_path / "src"
    for rel in ("Team/deploy", "team/deploy", "caf\u00e9/notes", "cafe\u0301/notes", "other/notes"):
        _skill(src / rel, rel.split("/")[-1])
    reading = read_catalog([src])
    said = sorted((d.path.split("/src/")[-1], d.message) for d in reading.diagnostics if d.code == "SK232")
    assert [path for path, _ in said] == ["caf\u00e9/notes/SKILL.md", "team/deploy/SKILL.md"]
    assert "differs from 'Team/deploy' only in case or Unicode spelling" in said[1][1]
    assert build([src], tmp_path / "site", keep_going=True).ok
