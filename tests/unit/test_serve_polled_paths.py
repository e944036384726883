"""What ``skillsite serve`` polls outside its sources: git's refs, ignore rules above them, a
knowledge folder elsewhere, the configuration file."""
from __future__ import annotations

from pathlib import Path

import pytest

from skillsite.publish.serve_inputs import git_ref_paths, gitignores_above, outside_inputs

pytestmark = pytest.mark.each_python


def test_a_repository_s_head_branches_and_tags_are_polled_not_its_remotes(tmp_path: Path) -> None:
    (tmp_path / ".git/refs/heads").mkdir(parents=True)
    (tmp_path / "skills/deep").mkdir(parents=True)
    git = tmp_path / ".git"
    expected = [git / "HEAD", git / "packed-refs", git / "refs/heads", git / "refs/tags"]
    assert git_ref_paths(tmp_path / "skills/deep") == git_ref_paths(tmp_path) == expected
    assert git_ref_paths(tmp_path / "skills") == expected and git / "refs/remotes" not in expected
    assert git_ref_paths(Path("/")) == []


def test_a_worktree_s_own_head_and_its_common_folder_s_refs_are_polled(tmp_path: Path) -> None:
    main_git = tmp_path / "main/.git"
    (main_git / "worktrees/wt").mkdir(parents=True)
    (main_git / "worktrees/wt/commondir").write_text("../..\n", encoding="utf-8")
    (tmp_path / "wt").mkdir()
    (tmp_path / "wt/.git").write_text(f"gitdir: {main_git / 'worktrees/wt'}\n", encoding="utf-8")
    assert git_ref_paths(tmp_path / "wt") == [
        tmp_path / "wt/.git", main_git / "worktrees/wt/HEAD", main_git / "packed-refs", main_git / "refs/heads",
        main_git / "refs/tags"]


def test_the_ignore_files_above_a_source_are_those_up_to_its_repository_s_top(tmp_path: Path) -> None:
    (tmp_path / "repo/.git").mkdir(parents=True)
    (tmp_path / "repo/a/src").mkdir(parents=True)
    assert gitignores_above(tmp_path / "repo/a/src") == [tmp_path / "repo/a/.gitignore", tmp_path / "repo/.gitignore"]
    assert gitignores_above(tmp_path / "repo") == []          # its own .gitignore is in the source
    (tmp_path / "loose/src").mkdir(parents=True)
    assert gitignores_above(tmp_path / "loose/src") == []      # in no repository: no rules from above


def test_a_knowledge_folder_is_polled_only_outside_the_sources(tmp_path: Path) -> None:
    (tmp_path / "src/knowledge").mkdir(parents=True)
    config = [tmp_path / "skillsite.yml"]
    assert outside_inputs([tmp_path / "src"], None, config) == config   # the default one is in the source
    assert outside_inputs([tmp_path / "src"], str(tmp_path / "kb"), config) == [*config, tmp_path / "kb"]
