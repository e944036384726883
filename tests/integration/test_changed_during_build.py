"""A build keeps no skill's SKILL.md bytes after checking it: it reads the file again to
publish it, and a file that changed in between fails the build, never a wrong output."""
from __future__ import annotations

from pathlib import Path

import pytest

from support import tree_bytes, write_skill
from skillsite.models import SkillChanged, read_skill_md
from skillsite.publish.build import build
from skillsite.source.catalog import read_catalog

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)


def _edit_when(stage: str, skill_md: Path, text: str):
    """A progress callback that rewrites ``skill_md`` when the build starts ``stage``."""
    def progress(name: str) -> None:
        if name == stage:
            skill_md.write_text(text, encoding="utf-8")
    return progress


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_skill_md_changed_between_checking_and_publishing_fails_the_build(tmp_path: Path, jobs: int) -> None:
    src, out = tmp_path / "src", tmp_path / "site" / "out"
    for index in range(20):  # enough for the workers to run
        write_skill(src, f"skill-{index:02}")
    assert build([src], out, jobs=jobs).ok
    before = tree_bytes(out)
    skill_md = src / "skill-07" / "SKILL.md"
    same_size = skill_md.read_text(encoding="utf-8").replace("# Body", "# Bodx")
    result = build([src], out, jobs=jobs, progress=_edit_when("skills", skill_md, same_size))
    assert not result.ok
    changed = [d for d in result.diagnostics if d.code == "SK006"]
    assert len(changed) == 1 and changed[0].path.endswith("skill-07/SKILL.md")
    assert "changed during the build" in changed[0].message
    assert tree_bytes(out) == before  # the previous catalog stays, whole
    assert build([src], out, jobs=jobs).ok  # the next build publishes the file as it is now
    assert (out / "skills" / "skill-07" / "SKILL.md").read_text(encoding="utf-8") == same_size


def test_a_read_skill_keeps_its_sha256_and_size_not_its_bytes(tmp_path: Path) -> None:
    skill_md = write_skill(tmp_path, "alpha") / "SKILL.md"
    skill = read_catalog([tmp_path]).skills[0]
    assert not hasattr(skill, "raw")
    assert (skill.size, read_skill_md(skill)) == (skill_md.stat().st_size, skill_md.read_bytes())
    assert skill.body == "# Body\n"
    skill_md.write_bytes(skill_md.read_bytes() + b"more\n")
    with pytest.raises(SkillChanged, match="changed during the build"):
        skill.body


def test_a_body_rendered_from_bytes_changed_during_the_build_is_not_kept_as_the_checked_one_s(
        tmp_path: Path) -> None:
    """The failed build renders the new bytes of a SKILL.md that changed after its check: that
    HTML is not cached under the checked content's key, so the file edited back to that content
    shows its own body, not the one of the failed build."""
    src, out, cache = tmp_path / "src", tmp_path / "site" / "out", tmp_path / "cache"
    for index in range(3):
        write_skill(src, f"skill-{index:02}")
    skill_md = src / "skill-01" / "SKILL.md"
    checked = skill_md.read_text(encoding="utf-8")
    result = build([src], out, jobs=1, cache_dir=cache, keep_going=True,
                   progress=_edit_when("skills", skill_md, checked.replace("# Body", "# Bodx")))
    assert any(d.code == "SK006" for d in result.diagnostics)
    skill_md.write_text(checked, encoding="utf-8")
    assert build([src], out, jobs=1, cache_dir=cache).ok
    page = (out / "skills" / "skill-01" / "index.html").read_text(encoding="utf-8")
    assert 'id="body"' in page and "Bodx" not in page
