"""A skill installers skip (SK016) takes no place in the discovery indexes: a later skill of the
same name is listed instead, in the v0.2 index (with its archive) and in the v0.1 index alike,
and its copies under ``.well-known/skills`` are sandboxed by ``_headers``."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillsite.config import SiteConfig
from skillsite.publish.build import build
from skillsite.publish.resident import Resident
from support import write_skill

#: An unquoted ': ' in the description: a YAML error for installers that read strictly (SK016).
REFUSED = "name: tool\ndescription: Does things: many of them. Use when testing.\n"
LISTED = "name: tool\ndescription: Does other things well. Use when testing.\n"


def two_of_one_name(src: Path, refused_has_files: bool) -> None:
    """``a`` (refused by installers) and ``b`` (fine, with a script and an HTML page), both named tool."""
    a = write_skill(src, "a", REFUSED)
    if refused_has_files:
        (a / "notes.md").write_text("A's notes.\n", encoding="utf-8")
    b = write_skill(src, "b", LISTED, body="# B\n\nRun scripts/run.sh; see page.html.\n")
    (b / "scripts").mkdir()
    (b / "scripts/run.sh").write_text("echo hi\n", encoding="utf-8")
    (b / "page.html").write_text("<p>B's page</p>\n", encoding="utf-8")


def listed(out: Path) -> tuple[list[dict], list[dict]]:
    """The v0.2 index's rows and the v0.1 index's."""
    v02 = json.loads((out / ".well-known/agent-skills/index.json").read_text("utf-8"))["skills"]
    v01 = json.loads((out / ".well-known/skills/index.json").read_text("utf-8"))["skills"]
    return v02, v01


@pytest.mark.parametrize("refused_has_files", [False, True])
def test_a_skill_installers_skip_leaves_its_name_to_the_next_one(tmp_path: Path, refused_has_files: bool) -> None:
    two_of_one_name(tmp_path / "src", refused_has_files)
    out = tmp_path / "_site"
    result = build([tmp_path / "src"], out, SiteConfig(), cache_dir=tmp_path / "cache")
    assert result.ok
    assert [d.code for d in result.diagnostics if d.code.startswith("SK0")] == ["SK016"]
    assert not any("already in the discovery index" in d.message for d in result.diagnostics)
    v02, v01 = listed(out)
    assert [(row["name"], row["type"]) for row in v02] == [("tool", "archive")]
    assert [row["description"] for row in v01] == ["Does other things well. Use when testing."]
    assert sorted(v01[0]["files"]) == ["SKILL.md", "page.html", "scripts/run.sh"]
    assert (out / ".well-known/skills/tool/page.html").read_bytes() == (tmp_path / "src/b/page.html").read_bytes()
    assert (out / ".well-known/skills/tool/SKILL.md").read_bytes() == (tmp_path / "src/b/SKILL.md").read_bytes()
    assert "/.well-known/skills/tool/page.html\n" in (out / "_headers").read_text("utf-8")
    assert not (out / ".well-known/skills/tool/notes.md").exists()


def test_fixing_the_refused_skill_gives_it_its_name_back(tmp_path: Path) -> None:
    """Rebuilt inside one process (as ``serve`` does) after ``a`` is fixed, ``a`` takes the name
    (it comes first) and ``b`` is told it is not listed (SK212); the catalog equals a cold build's."""
    src = tmp_path / "src"
    two_of_one_name(src, refused_has_files=False)
    resident = Resident()
    out = tmp_path / "_site"
    assert build([src], out, SiteConfig(), cache_dir=tmp_path / "cache", resident=resident).ok
    (src / "a/SKILL.md").write_text(f"---\n{LISTED.replace('other', 'its')}---\n# A\n", encoding="utf-8")
    resident.saw([str((src / "a/SKILL.md").resolve())])
    result = build([src], out, SiteConfig(), cache_dir=tmp_path / "cache", resident=resident)
    assert result.ok and [Path(d.path).relative_to(src).as_posix() for d in result.diagnostics
                          if "already in the discovery index" in d.message] == [
        "b/SKILL.md"]
    v02, v01 = listed(out)
    assert [(row["name"], row["type"]) for row in v02] == [("tool", "skill-md")]
    assert [row["files"] for row in v01] == [["SKILL.md"]]
    assert not (out / ".well-known/agent-skills/archives/tool.tar.gz").exists()
    cold = tmp_path / "cold"
    assert build([src], cold, SiteConfig()).ok
    assert files_of(out) == files_of(cold)


def files_of(root: Path) -> dict[str, bytes]:
    """Every file of a catalog, by its path."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


#: (A name ending with a space is not published at all since 34ac8c3: SK020, as Windows drops the space.)
UNFETCHABLE = {"tab\tname.md": "holds a tab", "line\nbreak.md": "holds a line break", "and-then..md": "holds '..'",
               "50%.md": "holds '%'"}


def test_sk014_names_what_of_the_file_name_an_older_installer_cannot_fetch(tmp_path: Path) -> None:
    """It said every name held "'#', '?', '%', '\\' or '..'", also for a tab, which it holds none of."""
    for number, name in enumerate(UNFETCHABLE):
        skill = write_skill(tmp_path / "src", f"skill-{number}", description=f"Does thing {number}. Use when testing.")
        (skill / "references").mkdir()
        (skill / "references" / name).write_text("More.\n")
    result = build([tmp_path / "src"], tmp_path / "site")
    said = {Path(d.path).parent.name: d.message for d in result.diagnostics if d.code == "SK014"}
    assert [f"{says}, which older installers cannot fetch" in said[f"skill-{number}"]
            for number, says in enumerate(UNFETCHABLE.values())] == [True] * len(UNFETCHABLE), said
