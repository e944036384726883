"""Issue #30 from end to end, as a team and an agent meet it: skills versioned in a git
repository made here, built with ``skillsite build``, served over HTTP on 127.0.0.1, installed
with their dependencies by ``skillsite install``, then watched with ``skillsite outdated`` and
brought up to date with ``skillsite update`` as new releases are published."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support import CountingServer

GIT_ENV = {"GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "Test",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def git(repo: Path, *args: str, when: int = 0) -> None:
    date = f"2026-01-{1 + when:02d}T12:00:00Z"
    env = {**os.environ, **GIT_ENV, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def skillsite(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "skillsite", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def write_skill(repo: Path, name: str, version: str, body: str, depends: str = "") -> None:
    folder = repo / "skills" / name
    folder.mkdir(parents=True, exist_ok=True)
    meta = f"  version: \"{version}\"\n" + (f"  depends: \"{depends}\"\n" if depends else "")
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {name} does its job. Use when testing "
                                     f"releases.\nmetadata:\n{meta}---\n# {name}\n\n{body}\n", encoding="utf-8")


def commit(repo: Path, message: str, when: int) -> None:
    git(repo, "add", "-A", when=when)
    git(repo, "commit", "-q", "-m", message, when=when)


def sha256_lines(folder: Path, paths: list[str]) -> str:
    """The release digest as SPEC'd: sha256 over one "<sha256>  <path>" line per file, by path."""
    lines = "".join(f"{hashlib.sha256((folder / p).read_bytes()).hexdigest()}  {p}\n" for p in sorted(paths))
    return "sha256:" + hashlib.sha256(lines.encode("utf-8")).hexdigest()


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write_skill(repo, "base", "1.0.0", "First release.")
    commit(repo, "base 1.0.0", 0)
    write_skill(repo, "app", "0.1.0", "Uses base.", depends="base@^1.0")
    write_skill(repo, "base", "1.1.0", "Second release.")
    commit(repo, "base 1.1.0, app 0.1.0", 1)
    write_skill(repo, "base", "2.0.0", "Breaking release.")
    commit(repo, "base 2.0.0", 2)
    return repo


def build(repo: Path) -> None:
    result = skillsite("build", "skills", "-o", "site", "--cache-dir", ".cache", cwd=repo)
    assert result.returncode == 0, result.stdout + result.stderr


def test_releases_dependencies_install_outdated_update(repo: Path, tmp_path: Path) -> None:
    checked = skillsite("validate", "skills", cwd=repo)   # ^1.0 is met by a past release only: validate agrees
    assert checked.returncode == 0 and "SK224" not in checked.stdout, checked.stdout + checked.stderr
    build(repo)
    site = repo / "site"
    versions = json.loads((site / "skills/base/versions.json").read_text())
    assert versions["latest"] == "2.0.0" and versions["versions"] == ["1.0.0", "1.1.0", "2.0.0"]
    old = versions["releases"]["1.0.0"]
    folder = site / old["url"]
    assert "First release." in (folder / "SKILL.md").read_text()
    assert old["digest"] == sha256_lines(folder, [f["path"] for f in old["files"]])
    manifest = json.loads((site / "skills.json").read_text())
    app = next(e for e in manifest["skills"] if e["id"] == "app")
    assert app["dependencies"] == [{"name": "base", "id": "base", "version": "^1.0", "resolved": "1.1.0"}]
    assert app["versions_url"] == "skills/app/versions.json"
    app_versions = json.loads((site / app["versions_url"]).read_text())
    assert app_versions["releases"]["0.1.0"]["dependencies"] == app["dependencies"]

    server = CountingServer(site)
    agent = tmp_path / "agent"
    lock = agent / "skillsite-lock.json"
    try:
        result = skillsite("install", "app", "--catalog", server.url, "--dest", str(agent / "app"),
                           "--lock", str(lock), cwd=tmp_path)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "Second release." in (agent / "base/SKILL.md").read_text()   # ^1.0: 1.1.0, not 2.0.0
        locked = json.loads(lock.read_text())["skills"]
        assert locked["base"]["version"] == "1.1.0" and locked["app"]["dependencies"] == {"base": "^1.0"}
        assert lock.read_text() == json.dumps(json.loads(lock.read_text()), indent=2, sort_keys=True) + "\n"

        write_skill(repo, "base", "1.2.0", "A fix for the 1.x line.")   # newest 1.x, older than 2.0.0
        commit(repo, "base 1.2.0", 3)
        build(repo)
        result = skillsite("outdated", "--lock", str(lock), "--json", cwd=tmp_path)
        report = {row["id"]: row for row in json.loads(result.stdout)}
        assert report["base"]["status"] == "update-available", report    # in ^1.0 ...
        assert (report["base"]["wanted"], report["base"]["latest"]) == ("1.2.0", "2.0.0"), report  # ... 2.0.0 is not
        assert report["app"]["status"] == "up-to-date", report

        result = skillsite("update", "--lock", str(lock), cwd=tmp_path)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "A fix for the 1.x line." in (agent / "base/SKILL.md").read_text()
        assert json.loads(lock.read_text())["skills"]["base"]["version"] == "1.2.0"

        (agent / "app/SKILL.md").write_text("edited by hand\n")
        report = {row["id"]: row for row in json.loads(
            skillsite("outdated", "--lock", str(lock), "--json", cwd=tmp_path).stdout)}
        assert report["app"]["status"] == "modified", report

        write_skill(repo, "app", "0.2.0", "Moves to base 2.", depends="base@^2")   # 0.1.0 becomes a past release
        commit(repo, "app 0.2.0", 4)
        build(repo)
        past = json.loads((site / "skills/app/versions.json").read_text())["releases"]
        assert past["0.1.0"]["dependencies"] == [   # as 0.1.0 declared it, resolved over today's releases
            {"name": "base", "id": "base", "version": "^1.0", "resolved": "1.2.0"}]
        assert past["0.2.0"]["dependencies"] == [{"name": "base", "id": "base", "version": "^2", "resolved": "2.0.0"}]
    finally:
        server.stop()
