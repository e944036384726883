"""A skill whose id (its folder's path) holds a character XML 1.0 forbids (a control character,
U+FFFE, a byte that is not UTF-8) is not published: its skill.xml could only name it with U+FFFD
while skills.json holds the real id.  It is an error naming the folder (SK018; SK011 for a name
that is not UTF-8), never a traceback, and the others are published with --keep-going."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from skillsite.publish.build import build
from skillsite.source.catalog import read_catalog
from support import write_skill

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)

#: Folders (ids) skill.xml cannot hold, and how a diagnostic names each.
UNHELD = {"bell\x07": ("bell\\x07", "U+0007"), "team/esc\x1bape": ("team/esc\\x1bape", "U+001B"),
          "non\ufffechar": ("non\ufffechar", "U+FFFE"), "p/child\x01": ("p/child\\x01", "U+0001")}


def _tree(src: Path) -> None:
    for folder in [*UNHELD, "plain", "p", "p/ok", "tab\tid"]:
        write_skill(src, folder, name="x", description=f"Say what {folder!r} does. Use when asked.")


def _said(diagnostics) -> list[tuple[str, str, str]]:
    return sorted((d.severity.value, d.path.split("/src/")[-1], d.message) for d in diagnostics if d.code == "SK018")


def _expected() -> list[tuple[str, str, str]]:
    return sorted(("error", f"{shown}/SKILL.md", f"skill folder '{shown}' holds {char}, a character the skill's prompt "
                   "fragment (skill.xml, XML 1.0) cannot hold; not published: rename the folder")
                  for shown, char in UNHELD.values())


def test_a_skill_whose_id_xml_cannot_hold_is_an_error_and_every_artifact_agrees(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "site"
    _tree(src)
    assert _said(read_catalog([src]).diagnostics) == _expected()
    result = build([src], out, keep_going=True)
    assert result.ok and sorted(result.skipped) == sorted(UNHELD)
    assert _said(result.diagnostics) == _expected()
    manifest = json.loads((out / "skills.json").read_text(encoding="utf-8"))
    ids = [entry["id"] for entry in manifest["skills"]]
    assert ids == ["p", "p/ok", "plain", "tab\tid"]
    for entry in manifest["skills"]:  # each fragment names its skill and sub-skills as skills.json does
        fragment = ET.fromstring((out / "skills" / entry["id"] / "skill.xml").read_bytes())
        assert fragment.get("id") == entry["id"]
        assert [s.get("id") for s in fragment.iter("skill")] == entry["children"]
    assert manifest["skills"][0]["children"] == ["p/ok"]
    assert not any((out / "skills" / folder).exists() for folder in UNHELD)


def test_without_keep_going_the_build_fails_saying_so_with_no_traceback(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "site"
    write_skill(src, "esc\x1b[31mred", name="x")
    write_skill(src, "plain")
    run = subprocess.run([sys.executable, "-m", "skillsite", "build", str(src), "-o", str(out), "-j", "1"],
                         capture_output=True, text=True, timeout=300)
    said = run.stdout + run.stderr
    assert run.returncode == 1 and "Traceback" not in said and not out.exists()
    assert "error SK018 skill folder 'esc\\x1b[31mred' holds U+001B" in said and "\x1b" not in said


def test_a_source_root_that_is_a_skill_named_in_bytes_that_are_not_utf8_is_an_error(tmp_path: Path) -> None:
    """Given as ".", the root's id is its real folder's name, which no URL or JSON could hold."""
    folder = os.fsdecode(os.path.join(os.fsencode(tmp_path), b"bad\xff"))
    write_skill(Path(folder), ".", name="bad")
    write_skill(Path(folder), "nested", name="nested")
    for command in (["validate", "."], ["build", ".", "-o", str(tmp_path / "site"), "-j", "1"]):
        run = subprocess.run([sys.executable, "-m", "skillsite", *command], capture_output=True, text=True,
                             cwd=folder, timeout=300, env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")})
        said = run.stdout + run.stderr
        assert run.returncode == 1 and "Traceback" not in said, said
        assert (f"{tmp_path}/bad\\xff: error SK011 skill folder's name is not valid UTF-8 (a URL, an archive or a "
                "JSON manifest could not name it); not published: rename it") in said
    assert not (tmp_path / "site").exists()
