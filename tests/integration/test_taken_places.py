"""A skill folder named like a file the catalog writes in its place (``skills/index.json``, a
page of the skill holding it) is an error of that skill (SK015), said by ``validate`` and
``build`` alike, not a failure of the machine: with --keep-going the others are published."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
