"""A skill whose folder holds symlinks, released from git history.  The build follows a symlink
whose target lies inside the skill folder (a file's under the link's name, a folder's files under
the link's folder), in the work tree; a past release's files came from git without its symlinks.
So a release published while current changed its files and digest once the next release came,
and ``outdated`` then called every install of it tampered.  Past releases now follow the same
symlinks, and leave out those that leave the folder, lead nowhere or go round a loop."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from git_repo import GitRepo, skill_md
from skillsite.publish.build import build

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)


def _release(repo: GitRepo, version: str) -> None:
    repo.write("skills/a/SKILL.md", skill_md("a", version))
    repo.commit(f"a {version}")


def _links(skill: Path) -> None:
    """Symlinks of each kind in ``skill``: to a file and a folder inside it (through another link
    too), out of it (a file of another skill, the repository's top), to nothing, round a loop."""
    (skill / "docs" / "deep").mkdir(parents=True)
    (skill / "docs" / "guide.md").write_text("the guide\n")
    (skill / "docs" / "deep" / "notes.md").write_text("deep notes\n")
    os.symlink("docs/guide.md", skill / "guide.md")
    os.symlink("docs", skill / "manual")
    os.symlink("../guide.md", skill / "docs" / "deep" / "up.md")
    os.symlink("manual/deep", skill / "shortcut")
    os.symlink("../b/secret.md", skill / "other.md")
    os.symlink("../../README.md", skill / "readme.md")
    os.symlink("missing.md", skill / "broken.md")
    os.symlink(".", skill / "docs" / "loop")
    os.symlink("../a/docs/guide.md", skill / "round.md")  # out of the folder and back in


def _releases(out: Path) -> dict[str, dict]:
    return json.loads((out / "skills/a/versions.json").read_text(encoding="utf-8"))["releases"]


def test_a_release_keeps_its_followed_symlinks_and_digest_when_it_is_past(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("README.md", "the repository\n")
    repo.write("skills/b/SKILL.md", skill_md("b", None))
    repo.write("skills/b/secret.md", "b's own\n")
    _links(repo.path / "skills/a")
    _release(repo, "1.0.0")
    out = tmp_path / "site"
    assert build([repo.path / "skills"], out, keep_going=True).ok
    current = _releases(out)["1.0.0"]
    paths = [f["path"] for f in current["files"]]
    assert paths == ["SKILL.md", "docs/deep/notes.md", "docs/deep/up.md", "docs/guide.md", "guide.md",
                     "manual/deep/notes.md", "manual/deep/up.md", "manual/guide.md", "round.md",
                     "shortcut/notes.md", "shortcut/up.md"]
    _release(repo, "2.0.0")
    assert build([repo.path / "skills"], out, keep_going=True).ok
    past = _releases(out)["1.0.0"]
    assert past["files"] == current["files"] and past["digest"] == current["digest"]
    assert (out / "skills/a/versions/1.0.0/manual/deep/up.md").read_text() == "the guide\n"
