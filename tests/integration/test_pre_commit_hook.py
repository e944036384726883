"""The ``skillsite-validate`` hook of ``.pre-commit-hooks.yaml``, run by the real pre-commit
(``pre-commit try-repo``: it installs this repository's committed state, with its uncommitted
changes to tracked files, into a hook environment with pip) on a throwaway repository."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from git_repo import GitRepo, git_env, two_skills_repo
from support import REPO, write_skill

PRE_COMMIT = Path(sys.executable).with_name("pre-commit")


def try_repo(repo: GitRepo, *args: str) -> subprocess.CompletedProcess[str]:
    """``pre-commit try-repo <this repository> skillsite-validate`` in ``repo``."""
    env = git_env(repo.clock)
    env.pop("GITHUB_ACTIONS", None)  # validate's text output, as on a developer's machine
    env.update(PRE_COMMIT_COLOR="never", PATH=f"{PRE_COMMIT.parent}{os.pathsep}{env['PATH']}")
    started = time.monotonic()
    done = subprocess.run([str(PRE_COMMIT), "try-repo", str(REPO), "skillsite-validate", *args], cwd=repo.path,
                          env=env, capture_output=True, text=True, timeout=900)
    print(f"pre-commit try-repo {' '.join(args)}: {time.monotonic() - started:.1f} s")
    return done


@pytest.fixture
def skills_repo(tmp_path: Path) -> GitRepo:
    """A repository with two valid skills, one bundling a reference, committed."""
    return two_skills_repo(tmp_path / "repo", {"README.md": "Our skills.\n"})


needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git missing")


@needs_git
def test_the_hook_passes_a_clean_tree_and_fails_a_broken_skill(skills_repo: GitRepo):
    clean = try_repo(skills_repo, "--all-files")
    assert clean.returncode == 0 and "skillsite validate" in clean.stdout, clean.stdout + clean.stderr
    assert "Passed" in clean.stdout

    write_skill(skills_repo.path / "skills", "broken", frontmatter="name: broken\n")  # no description
    skills_repo.commit("a broken skill")
    broken = try_repo(skills_repo, "--all-files")
    assert broken.returncode == 1 and "Failed" in broken.stdout, broken.stdout + broken.stderr
    assert "skills/broken/SKILL.md:1:1: error SK201" in broken.stdout
    assert "3 skills checked: 2 valid, 1 invalid" in broken.stdout


@needs_git
def test_a_commit_that_only_deletes_a_skill_another_needs_is_stopped(tmp_path: Path):
    """pre-commit names no deleted file, so a hook run by file names would be skipped: this one
    runs on every commit, and sees the dependency the deletion broke."""
    repo = two_skills_repo(tmp_path / "repo")
    write_skill(repo.path / "skills", "deploy-preview",
                frontmatter="name: deploy-preview\ndescription: Deploy a preview. Use when asked for a preview.\n"
                            "depends: [code-review]\n")
    repo.commit("deploy-preview needs code-review")
    repo.git("rm", "-q", "-r", "skills/code-review")
    done = try_repo(repo)  # the staged change: one deletion
    assert done.returncode == 1 and "Failed" in done.stdout, done.stdout + done.stderr
    assert "error SK223" in done.stdout and "code-review" in done.stdout


def test_the_hook_runs_on_every_commit_over_the_whole_tree():
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    hook = next(h for h in hooks if h["id"] == "skillsite-validate")
    assert hook["entry"] == "skillsite validate" and hook["pass_filenames"] is False
    assert hook["always_run"] is True and "files" not in hook


def test_the_configuration_in_the_docs_names_the_hook():
    text = (REPO / "docs/publishing.md").read_text(encoding="utf-8")
    config = next(yaml.safe_load(block.split("```", 1)[0]) for block in text.split("```yaml\n")[1:]
                  if block.startswith("repos:"))
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert [h["id"] for h in config["repos"][0]["hooks"]] == [h["id"] for h in hooks]
