"""A git repository made by a test: files written, commits with fixed dates, tags, clones."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

from support import write_skill


def git_env(when: int) -> dict[str, str]:
    """An environment for git commands of a test: no GIT_* from outside, fixed names and dates."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    stamp = f"{1_700_000_000 + when * 3600} +0000"
    env.update({"GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.org", "GIT_COMMITTER_NAME": "Test",
                "GIT_COMMITTER_EMAIL": "test@example.org", "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp,
                "GIT_CONFIG_NOSYSTEM": "1", "HOME": os.environ.get("HOME", "/nonexistent")})
    return env


def skill_md(name: str, version: str | None, body: str = "Do the thing.", key: str = "version") -> str:
    """A SKILL.md with a version written at ``key`` (``version`` or ``metadata.version``)."""
    lines = ["---", f"name: {name}", f"description: {name} does one thing well, for tests."]
    if version is not None and key == "version":
        lines.append(f'version: "{version}"')
    elif version is not None:
        lines += ["metadata:", f'  version: "{version}"']
    return "\n".join([*lines, "---", "", f"# {name}", "", body, ""])


class GitRepo:
    """A repository in ``path``; each commit one hour after the last."""

    def __init__(self, path: Path):
        self.path = path
        self.clock = 0
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")
        self.git("config", "commit.gpgsign", "false")

    def git(self, *args: str) -> str:
        done = subprocess.run(["git", *args], cwd=self.path, env=git_env(self.clock), capture_output=True,
                              text=True, check=True)
        return done.stdout.strip()

    def write(self, rel: str, text: str) -> Path:
        path = self.path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def commit(self, message: str) -> str:
        """Commit everything; the new commit's id."""
        self.clock += 1
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")

    def show(self, commit: str, rel: str) -> bytes:
        return subprocess.run(["git", "show", f"{commit}:{rel}"], cwd=self.path, capture_output=True,
                              check=True).stdout


def two_skills_repo(path: Path, extra: dict[str, str] | None = None) -> GitRepo:
    """A repository at ``path`` holding two valid skills in skills/ (one bundling a reference)
    and the ``extra`` files (path -> text), committed: what the action's and the hook's tests run on."""
    repo = GitRepo(path)
    write_skill(repo.path / "skills", "deploy-preview",
                description="Deploy the current branch to a preview environment. Use when asked for a preview.")
    write_skill(repo.path / "skills", "code-review", body="# Review\n\nSee [the checklist](references/checklist.md).\n",
                description="Review a pull request against the team checklist. Use when asked for a review.")
    repo.write("skills/code-review/references/checklist.md", "- tests pass\n")
    for rel, text in (extra or {}).items():
        repo.write(rel, text)
    repo.commit("skills")
    return repo
