"""Two bundled files of one skill whose names differ only in case or Unicode form (``A.md`` and
``a.md``; ``Café.md`` composed and decomposed): a file system that ignores case and form (macOS,
Windows) holds one file for both, so an install there kept one, and the installed skill no longer
matched its manifest.  The build publishes the first of them (in code point order: decomposed
before composed) and leaves the other
out with a warning (SK022), in the current release and in past ones."""
from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from git_repo import GitRepo, skill_md
from skillsite.loader import Catalog
from skillsite.publish.build import build
from support import write_skill

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)

COMPOSED = unicodedata.normalize("NFC", "notes/Café.md")
DECOMPOSED = unicodedata.normalize("NFD", "notes/Café.md")


def _twins(folder: Path) -> None:
    """Files in ``folder`` that are two by two one file on macOS, and two that are not."""
    for path, text in (("A.md", "upper\n"), ("a.md", "lower\n"), (COMPOSED, "composed\n"), (DECOMPOSED, "decomposed\n"),
                       ("Dir/x.md", "x\n"), ("dir/y.md", "y\n")):
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text, encoding="utf-8")


def test_a_bundled_file_spelt_as_another_in_another_case_or_form_is_not_published(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "site"
    write_skill(src, "good", name="good", description="Say what good does. Use when asked.")
    _twins(src / "good")
    result = build([src], out)
    assert result.ok
    said = sorted(d.message for d in result.diagnostics if d.code == "SK022")
    assert said == ["bundled file 'a.md' is 'A.md' in another case or Unicode form, one file on macOS and Windows; "
                    "not published",
                    f"bundled file '{COMPOSED}' is '{DECOMPOSED}' in another case or Unicode form, one file on macOS "
                    "and Windows; not published"]
    catalog = Catalog.open(out)
    published = [f["path"] for f in catalog.entry("good")["files"]]
    assert published == ["A.md", "Dir/x.md", "dir/y.md", DECOMPOSED]  # folders are no files: both published
    assert not (out / "skills/good/a.md").exists() and not (out / "skills/good" / COMPOSED).exists()
    assert "a.md" not in (out / "skills/good/skill.xml").read_text(encoding="utf-8").replace("A.md", "")
    catalog.install("good", tmp_path / "installed")
    assert (tmp_path / "installed" / "A.md").read_text() == "upper\n"
    assert (tmp_path / "installed" / DECOMPOSED).read_text(encoding="utf-8") == "decomposed\n"


def test_a_past_release_leaves_out_the_same_twins(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("skills/a/SKILL.md", skill_md("a", "1.0.0"))
    _twins(repo.path / "skills/a")
    repo.commit("a 1.0.0, with twins")
    repo.write("skills/a/SKILL.md", skill_md("a", "2.0.0"))
    repo.commit("a 2.0.0")
    out = tmp_path / "site"
    assert build([repo.path / "skills"], out).ok
    versions = json.loads((out / "skills/a/versions.json").read_text(encoding="utf-8"))
    for release in ("1.0.0", "2.0.0"):
        files = [f["path"] for f in versions["releases"][release]["files"]]
        assert files == ["SKILL.md", "A.md", "Dir/x.md", "dir/y.md", DECOMPOSED], release
    assert not (out / "skills/a/versions/1.0.0/a.md").exists()
