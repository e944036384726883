"""A repository's own configuration is untrusted input too (an unpacked archive brings its
``.git/config``): building or validating its skills runs no command that configuration names."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from git_repo import GitRepo, skill_md
from skillsite.cli import main
from skillsite.source.git_history import dirty_paths


def _restamped(repo: GitRepo) -> None:
    """Every file given a new time, as unpacking an archive does: git hashes each one again."""
    later = 1_800_000_000
    for folder, _, files in os.walk(repo.path / "skills"):
        for name in files:
            os.utime(os.path.join(folder, name), (later, later))


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[GitRepo, Path]:
    """A repository whose configuration puts a command in a clean filter for every file; the
    file the command would make."""
    repo = GitRepo(tmp_path / "repo")
    repo.write("skills/a/SKILL.md", skill_md("a", "1.0.0"))
    repo.commit("a 1.0.0")
    repo.write("skills/a/SKILL.md", skill_md("a", "1.1.0"))
    repo.commit("a 1.1.0")
    marker = tmp_path / "ran"
    repo.write(".gitattributes", "* filter=evil\n")
    repo.git("config", "filter.evil.clean", f"touch {marker}; cat")
    repo.git("config", "filter.evil.process", f"sh -c 'touch {marker}'")
    repo.git("config", "filter.evil.required", "true")
    _restamped(repo)
    return repo, marker


def test_a_build_runs_no_filter_the_repository_configures(hostile, tmp_path: Path) -> None:
    repo, marker = hostile
    result = CliRunner().invoke(main, ["build", str(repo.path / "skills"), "-o", str(tmp_path / "site"), "-q",
                                       "-j", "1", "--no-cache"])
    assert result.exit_code == 0, result.output
    assert not marker.exists()
    assert (tmp_path / "site" / "skills" / "a" / "versions" / "1.0.0").is_dir()  # the history was read


def test_the_dirty_check_still_sees_an_edit(hostile) -> None:
    repo, marker = hostile
    assert dirty_paths(str(repo.path), "skills/") == []
    repo.write("skills/a/SKILL.md", skill_md("a", "1.1.0", body="Edited."))
    assert dirty_paths(str(repo.path), "skills/") == ["skills/a/SKILL.md"]
    assert not marker.exists()


def test_git_lfs_s_own_filter_is_kept(tmp_path: Path) -> None:
    """LFS-tracked files hash through git-lfs, else every one looks modified when re-hashed."""
    from skillsite.source.git_history import _without_filters

    repo = GitRepo(tmp_path / "repo")
    repo.git("config", "filter.lfs.clean", "git-lfs clean -- %f")
    repo.git("config", "filter.lfs.process", "git-lfs filter-process")
    repo.git("config", "filter.lfs.required", "true")
    assert _without_filters(str(repo.path)) == []
    repo.git("config", "filter.lfs.clean", "git-lfs clean -- %f; touch x")
    assert _without_filters(str(repo.path)) == ["-c", "filter.lfs.clean=", "-c", "filter.lfs.process=",
                                                "-c", "filter.lfs.required=false"]


def test_a_cache_committed_to_the_repository_is_not_taken_as_the_builds_own_work(tmp_path: Path,
                                                                                  monkeypatch: pytest.MonkeyPatch):
    """A clone's committed .skillsite-cache was made elsewhere (committed past the .gitignore the
    build writes in it: as a hostile repository would): its rendered bodies (here, one changed by
    hand) must not reach the pages, and the build says why it does not use it."""
    import sqlite3
    import subprocess

    repo = GitRepo(tmp_path / "repo")
    repo.write("skills/a/SKILL.md", skill_md("a", "1.0.0", body="Do the honest thing."))
    monkeypatch.chdir(repo.path)
    assert CliRunner().invoke(main, ["build", "skills", "-o", "_site", "-q"]).exit_code == 0
    with sqlite3.connect(repo.path / ".skillsite-cache/build-cache.sqlite") as db:
        changed = db.execute("UPDATE entries SET value = replace(value, 'honest', 'POISONED') WHERE section = 'html'")
        assert changed.rowcount == 1
    repo.write(".gitignore", "_site/\n")
    repo.git("add", "-f", ".skillsite-cache")   # past the .gitignore the cache folder holds: on purpose
    repo.commit("skills, and a cache made elsewhere")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(repo.path), str(clone)], check=True, capture_output=True)
    monkeypatch.chdir(clone)
    done = CliRunner().invoke(main, ["build", "skills", "-o", "_site", "-q"])
    assert done.exit_code == 0, done.output
    page = (clone / "_site/skills/a/index.html").read_text("utf-8")
    assert "Do the honest thing." in page and "POISONED" not in page
    assert "holds files tracked by git" in done.output and "does not use it" in done.output
    assert subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True, text=True).stdout == ""
