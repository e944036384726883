"""A folder named SKILL.md, beside a skill.md file: the skill is built from the file (SK001, SK021),
the folder's files are not published in the place of the published SKILL.md (SK009), and a
nested skill in such a folder would take that place (SK015).  Before, discovery took such a
folder for no skill at all; letting it be one must not make a build fail on the clash."""
from __future__ import annotations

import json
from pathlib import Path

from skillsite.loader import Catalog
from skillsite.publish.build import build
from support import write_skill


def test_a_skill_beside_a_folder_named_skill_md_is_published_without_that_folder(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "site"
    write_skill(src, "p").joinpath("SKILL.md").rename(src / "p" / "skill.md")
    (src / "p" / "SKILL.md").mkdir()
    (src / "p" / "SKILL.md" / "notes.md").write_text("notes\n")
    write_skill(src, "h").joinpath("SKILL.md").rename(src / "h" / "skill.md")
    write_skill(src, "h/SKILL.md", name="nested")
    result = build([src], out, keep_going=True)
    assert result.ok and list(result.published) == ["h", "p"] and list(result.skipped) == ["h/SKILL.md"]
    said = sorted((d.code, Path(d.path).relative_to(src).as_posix()) for d in result.diagnostics
                  if d.code in ("SK009", "SK015", "SK021"))
    assert said == [("SK009", "p/skill.md"), ("SK015", "h/SKILL.md/SKILL.md"), ("SK021", "h/SKILL.md"),
                    ("SK021", "p/SKILL.md")]
    manifest = json.loads((out / "skills.json").read_text(encoding="utf-8"))
    assert [(e["id"], e["files"]) for e in manifest["skills"]] == [("h", []), ("p", [])]
    assert Catalog.open(out).load("p").raw == (src / "p" / "skill.md").read_bytes()
