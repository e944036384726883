"""Releases from git history: which versions a skill had, where their files are, and the
diagnostics SK221 (no history), SK222 (changed without a bump) and SK227 (not a version)."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from git_repo import GitRepo, skill_md
from skillsite.agent.release_digest import release_digest, release_digest_of_bytes
from skillsite.cache import Cache
from skillsite.source import releases as releases_module
from skillsite.source.catalog import read_catalog
from skillsite.source.releases import History, read_releases, version_line


def history_of(root: Path, cache: Cache | None = None) -> History:
    return read_releases(read_catalog([root]), cache)


def codes(history: History) -> list[str]:
    return [d.code for d in history.reading.diagnostics]


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    """Skill ``a``: 1.0 (two commits), a bump to 1.1.0 alone, then 2.0.0-rc.1 with a new file."""
    repo = GitRepo(tmp_path / "repo")
    repo.write("skills/a/SKILL.md", skill_md("a", "1.0"))
    repo.write("skills/a/ref.txt", "one\n")
    repo.commit("a 1.0")
    repo.write("skills/a/ref.txt", "one, fixed\n")
    repo.commit("a 1.0, fixed")  # 1.0 changed without a bump: the release is this commit's folder
    repo.write("skills/a/SKILL.md", skill_md("a", "1.1.0"))
    repo.commit("a 1.1.0: a bump, nothing else")
    repo.write("skills/a/SKILL.md", skill_md("a", "v2.0.0-rc.1", body="Do it the new way."))
    repo.write("skills/a/scripts/run.sh", "echo new\n")
    repo.commit("a 2.0.0-rc.1")
    return repo


def test_every_version_in_history_is_a_release_with_the_folder_of_its_last_commit(repo: GitRepo) -> None:
    history = history_of(repo.path / "skills")
    a = history.releases["a"]
    assert a.current == "2.0.0-rc.1"
    assert a.versions == ["1.0.0", "1.1.0", "2.0.0-rc.1"]
    log = repo.git("log", "--format=%H %cI").splitlines()  # newest first
    commits = [line.split()[0] for line in reversed(log)]
    first, second, third = a.releases
    assert (first.commit, first.date) == (commits[1], "2023-11-15T00:13:20+00:00")
    assert [f.path for f in first.files] == ["SKILL.md", "ref.txt"]
    assert repo.show(first.commit, "skills/a/ref.txt") == b"one, fixed\n"
    assert second.commit == commits[2]
    assert [f.path for f in second.files] == ["SKILL.md", "ref.txt"]
    assert third.commit == commits[3] and third.files is None  # the current one: the working tree's files
    assert codes(history) == []


def test_blob_ids_and_sizes_are_those_of_the_commit(repo: GitRepo) -> None:
    first = history_of(repo.path / "skills").releases["a"].releases[0]
    for f in first.files:
        data = repo.show(first.commit, f"skills/a/{f.path}")
        assert f.size == len(data)
        assert f.blob == repo.git("rev-parse", f"{first.commit}:skills/a/{f.path}")


def test_a_tag_marks_a_release_commit(repo: GitRepo) -> None:
    oldest = repo.git("rev-list", "--max-parents=0", "HEAD")
    repo.git("tag", "-a", "-m", "first release", "a--v1.0.0", oldest)
    first = history_of(repo.path / "skills").releases["a"].releases[0]
    assert first.version == "1.0.0" and first.commit == oldest
    assert first.date == "2023-11-14T23:13:20+00:00"


def test_a_tag_of_another_skill_or_no_version_is_ignored(repo: GitRepo) -> None:
    oldest = repo.git("rev-list", "--max-parents=0", "HEAD")
    repo.git("tag", "ab--v1.0.0", oldest)
    repo.git("tag", "a--vnext", oldest)
    first = history_of(repo.path / "skills").releases["a"].releases[0]
    assert first.commit != oldest


def test_a_change_without_a_bump_is_sk222_at_the_version_line(repo: GitRepo) -> None:
    repo.write("skills/a/scripts/run.sh", "echo newer\n")
    repo.commit("changed, not bumped")
    history = history_of(repo.path / "skills")
    (diag,) = history.reading.diagnostics
    assert (diag.code, diag.line, diag.col) == ("SK222", 4, 1)
    assert diag.path.endswith(os.path.join("skills", "a", "SKILL.md"))
    assert "v2.0.0-rc.1" in diag.message
    skill = history.reading.skills[0]
    assert [d.code for d in skill.diagnostics] == ["SK222"]


def test_an_uncommitted_change_is_sk222_and_the_current_release_has_no_commit(repo: GitRepo) -> None:
    repo.write("skills/a/ref.txt", "edited in the work tree\n")
    history = history_of(repo.path / "skills")
    assert codes(history) == ["SK222"]
    assert history.releases["a"].releases[-1].commit is None


def test_an_uncommitted_bump_is_a_new_release_without_commit_or_warning(repo: GitRepo) -> None:
    repo.write("skills/a/SKILL.md", skill_md("a", "2.0.0", body="Do it the new way, done."))
    history = history_of(repo.path / "skills")
    a = history.releases["a"]
    assert a.versions == ["1.0.0", "1.1.0", "2.0.0-rc.1", "2.0.0"]
    assert (a.releases[-1].commit, a.releases[-1].date) == (None, None)
    assert codes(history) == []


def test_metadata_version_and_an_unversioned_skill(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("s/spec/SKILL.md", skill_md("spec", "0.1.0", key="metadata"))
    repo.write("s/plain/SKILL.md", skill_md("plain", None).replace("does one thing well", "writes plain text"))
    repo.commit("two")
    repo.write("s/spec/SKILL.md", skill_md("spec", "0.2.0", key="metadata"))
    repo.commit("bump")
    history = history_of(repo.path / "s")
    assert list(history.releases) == ["spec"]
    assert history.releases["spec"].versions == ["0.1.0", "0.2.0"]


def test_an_invalid_version_is_sk227_and_has_no_release(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("s/a/SKILL.md", skill_md("a", "[Optional: e.g., 1.0, Date]"))
    repo.commit("odd version")
    history = history_of(repo.path / "s")
    assert history.releases == {}
    (diag,) = history.reading.diagnostics
    assert (diag.code, diag.line) == ("SK227", 4)
    assert "not a semantic version" in diag.message


def test_a_version_that_was_invalid_before_is_no_release(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("s/a/SKILL.md", skill_md("a", "draft"))
    repo.commit("draft")
    repo.write("s/a/SKILL.md", skill_md("a", "1.0.0"))
    repo.commit("first real")
    assert history_of(repo.path / "s").releases["a"].versions == ["1.0.0"]


def test_not_a_repository_is_sk221_once_per_root(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / "s" / name).mkdir(parents=True)
        (tmp_path / "s" / name / "SKILL.md").write_text(
            skill_md(name, "1.2").replace("does one thing well", f"handles {name * 3} requests"), encoding="utf-8")
    history = history_of(tmp_path / "s")
    (diag,) = history.reading.diagnostics
    assert diag.code == "SK221" and "not a git repository" in diag.message
    assert diag.path == str(tmp_path / "s")
    assert {sid: r.versions for sid, r in history.releases.items()} == {"a": ["1.2.0"], "b": ["1.2.0"]}
    assert history.releases["a"].releases[0].commit is None


def test_no_versioned_skill_runs_no_git_and_says_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "s" / "a").mkdir(parents=True)
    (tmp_path / "s" / "a" / "SKILL.md").write_text(skill_md("a", None), encoding="utf-8")
    monkeypatch.setattr(releases_module, "open_repository", _never)
    history = history_of(tmp_path / "s")
    assert history.releases == {} and codes(history) == []


def test_a_shallow_clone_is_sk221(repo: GitRepo, tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo.path}", str(clone)], check=True,
                   env={k: v for k, v in os.environ.items() if not k.startswith("GIT_")})
    history = history_of(clone / "skills")
    (diag,) = history.reading.diagnostics
    assert diag.code == "SK221" and "shallow clone" in diag.message
    assert history.releases["a"].versions == ["2.0.0-rc.1"]


def test_no_git_command_is_sk221_saying_so(repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "no-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    history = history_of(repo.path / "skills")
    (diag,) = history.reading.diagnostics
    assert diag.code == "SK221" and "git command is not installed" in diag.message


def test_git_variables_of_the_caller_do_not_leak(repo: GitRepo, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    other = GitRepo(tmp_path / "other")
    other.commit("empty")
    monkeypatch.setenv("GIT_DIR", str(other.path / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other.path))
    assert history_of(repo.path / "skills").releases["a"].versions == ["1.0.0", "1.1.0", "2.0.0-rc.1"]


def test_a_release_follows_symlinks_as_discovery_and_leaves_out_nested_skills_and_tool_folders(tmp_path: Path
                                                                                                ) -> None:
    """A symlink inside the folder is followed (discovery publishes the file under the link's
    name); one out of it is not (tests/integration/test_release_links.py has every kind)."""
    repo = GitRepo(tmp_path / "repo")
    repo.write("s/a/SKILL.md", skill_md("a", "1.0.0"))
    repo.write("s/a/docs/guide.md", "guide\n")
    repo.write("s/a/node_modules/x.js", "x\n")
    repo.write("s/a/inner/SKILL.md", skill_md("inner", None).replace("does one thing well", "is nested inside"))
    repo.write("s/a/inner/notes.md", "inner notes\n")
    (repo.path / "s/a/link.md").symlink_to("docs/guide.md")
    (repo.path / "s/a/out.md").symlink_to("../../README.md")
    repo.write("README.md", "the repository\n")
    repo.commit("1.0.0")
    repo.write("s/a/SKILL.md", skill_md("a", "1.1.0"))
    repo.commit("1.1.0")
    first = history_of(repo.path / "s").releases["a"].releases[0]
    assert [f.path for f in first.files] == ["SKILL.md", "docs/guide.md", "link.md"]
    assert first.files[1].blob == first.files[2].blob


def test_a_skill_md_over_the_size_limit_gives_no_release(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("s/a/SKILL.md", skill_md("a", "1.0.0", body="x" * 5000))
    repo.commit("big")
    repo.write("s/a/SKILL.md", skill_md("a", "1.1.0"))
    repo.commit("small")
    history = read_releases(read_catalog([repo.path / "s"]), None, max_bytes=2000)
    assert history.releases["a"].versions == ["1.1.0"]


def test_the_history_is_read_from_the_cache_when_head_is_unchanged(repo: GitRepo, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    cache_file = tmp_path / "cache.sqlite"
    cache = Cache(cache_file, "scope")
    first = history_of(repo.path / "skills", cache)
    cache.save()
    monkeypatch.setattr(releases_module, "first_parent_log", _never)
    monkeypatch.setattr(releases_module, "ObjectReader", _never)
    again = history_of(repo.path / "skills", Cache(cache_file, "scope"))
    assert again.releases == first.releases


def test_version_line_finds_the_key_in_the_frontmatter() -> None:
    assert version_line(b"---\nname: a\nmetadata:\n  version: '1'\n---\nversion: 2\n") == (4, 3)
    assert version_line(b"---\nname: a\n---\nversion: 2\n") == (1, 1)


def test_release_digest_is_the_sha256_of_a_sha256sum_listing() -> None:
    files = [("b.txt", b"bee\n"), ("SKILL.md", b"---\nname: a\n---\n")]
    listing = "".join(f"{hashlib.sha256(data).hexdigest()}  {path}\n" for path, data in sorted(files))
    expected = "sha256:" + hashlib.sha256(listing.encode()).hexdigest()
    assert release_digest_of_bytes(files) == expected
    assert release_digest((p, hashlib.sha256(d).hexdigest()) for p, d in reversed(files)) == expected


def _never(*args: object, **kwargs: object) -> None:
    raise AssertionError("not to be called")


def test_a_release_leaves_out_what_gitignore_files_ignore(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write(".gitignore", "*.log\n")
    repo.write("s/a/SKILL.md", skill_md("a", "1.0.0"))
    repo.write("s/a/.gitignore", "build/\n")
    repo.write("s/a/notes.md", "notes\n")
    repo.write("s/a/debug.log", "forced in\n")
    repo.write("s/a/build/out.txt", "forced in too\n")
    repo.git("add", "-f", "s/a/debug.log", "s/a/build/out.txt")
    repo.commit("1.0.0, with files git ignores")
    repo.write("s/a/SKILL.md", skill_md("a", "1.1.0"))
    repo.commit("1.1.0")
    first = history_of(repo.path / "s").releases["a"].releases[0]
    assert [f.path for f in first.files] == [".gitignore", "SKILL.md", "notes.md"]


def test_a_release_whose_gitignore_holds_lines_pathspec_cannot_read_keeps_its_other_rules(tmp_path: Path) -> None:
    """``!`` alone, a ``\\`` at the end and ``[z-a]`` match nothing (as in git); they stopped the
    history with a traceback (pathspec refuses them), a release's files being untrusted."""
    repo = GitRepo(tmp_path / "repo")
    repo.write("s/a/SKILL.md", skill_md("a", "1.0.0"))
    repo.write("s/a/.gitignore", "!\n\\\n[z-a]\nbuild/\n")
    repo.write("s/a/notes.md", "notes\n")
    repo.write("s/a/build/out.txt", "forced in\n")
    repo.git("add", "-f", "s/a/build/out.txt")
    repo.commit("1.0.0")
    repo.write("s/a/SKILL.md", skill_md("a", "1.1.0"))
    repo.commit("1.1.0")
    first = history_of(repo.path / "s").releases["a"].releases[0]
    assert [f.path for f in first.files] == [".gitignore", "SKILL.md", "notes.md"]


def test_a_hand_made_tree_cannot_name_a_file_outside_the_folder(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("s/a/SKILL.md", skill_md("a", "1.0.0"))
    first = repo.commit("1.0.0")

    def mktree(*entries: tuple[str, str, str, str]) -> str:
        listing = "".join(f"{mode} {kind} {oid}\t{name}\n" for mode, kind, oid, name in entries)
        done = subprocess.run(["git", "mktree"], cwd=repo.path, input=listing, capture_output=True, text=True,
                              check=True)
        return done.stdout.strip()

    evil = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=repo.path, input="evil\n",
                          capture_output=True, text=True, check=True).stdout.strip()
    skill_md_blob = repo.git("rev-parse", f"{first}:s/a/SKILL.md")
    outside = mktree(("100644", "blob", evil, "x.txt"))
    folder = mktree(("100644", "blob", skill_md_blob, "SKILL.md"), ("040000", "tree", outside, ".."))
    root = mktree(("040000", "tree", mktree(("040000", "tree", folder, "a")), "s"))
    hostile = repo.git("commit-tree", root, "-p", first, "-m", "hostile")
    repo.git("update-ref", "HEAD", hostile)
    repo.write("s/a/SKILL.md", skill_md("a", "1.1.0"))
    repo.commit("1.1.0")
    release = history_of(repo.path / "s").releases["a"].releases[0]
    assert release.commit == hostile
    assert [f.path for f in release.files] == ["SKILL.md"]


def test_a_file_name_with_a_newline_cannot_forge_another_releases_digest(tmp_path: Path) -> None:
    """The build publishes names holding a newline; unescaped, the listing of one such file
    equals that of two other files, so a catalog could swap a release's files under the same
    digest.  Lines are escaped as GNU sha256sum writes them (a leading backslash, \\\\ \\n \\r)."""
    one, two = hashlib.sha256(b"1").hexdigest(), hashlib.sha256(b"2").hexdigest()
    assert release_digest([("a", one), ("b", two)]) != release_digest([(f"a\n{two}  b", one)])
    files = [("SKILL.md", b"x"), ("we\nird.md", b"1"), ("back\\slash.md", b"2"), ("cr\r.md", b"3")]
    for name, data in files:
        (tmp_path / name).write_bytes(data)
    if shutil.which("sha256sum"):
        listing = subprocess.run(["sha256sum", "--", *sorted(name for name, _ in files)], cwd=tmp_path,
                                 capture_output=True, check=True).stdout
        assert release_digest_of_bytes(files) == "sha256:" + hashlib.sha256(listing).hexdigest()


def test_a_file_name_holding_the_log_separator_cannot_forge_a_commit(tmp_path: Path) -> None:
    """The history is read from ``git log --format=%x01...``: a file named with a \\x01 followed
    by a commit id and date must not become a commit of its own (here one naming the 1.0.0
    commit's id again as the last commit of 1.0.0, ahead of the real one's files)."""
    repo = GitRepo(tmp_path / "repo")
    repo.write("s/a/SKILL.md", skill_md("a", "1.0.0"))
    repo.write("s/a/notes.md", "1.0.0 notes\n")
    first = repo.commit("1.0.0")
    repo.write("s/a/notes.md", "changed after 1.0.0, not released\n")
    repo.commit("notes")
    repo.write("s/a/SKILL.md", skill_md("a", "1.1.0"))
    repo.write(f"s/a/x\x01{first} 2001-01-01T00:00:00+00:00", "forged\n")
    repo.write("s/a/zz.md", "after the forged name\n")
    repo.commit("1.1.0")
    old = history_of(repo.path / "s").releases["a"].releases[0]
    assert old.version == "1.0.0" and old.date != "2001-01-01T00:00:00+00:00"
    assert old.commit != first      # the last commit carrying 1.0.0 is the "notes" one


def test_setting_an_earlier_version_again_with_other_files_is_sk222(repo: GitRepo) -> None:
    """Going back to 1.1.0 after 2.0.0-rc.1 republishes 1.1.0 with other files (a release must
    never change under its version); going back to exactly the files 1.1.0 had is no change."""
    repo.write("skills/a/SKILL.md", skill_md("a", "1.1.0"))
    repo.commit("back to 1.1.0, keeping scripts/run.sh")
    history = history_of(repo.path / "skills")
    assert codes(history) == ["SK222"] and "1.1.0" in history.reading.diagnostics[0].message
    repo.git("reset", "-q", "--hard", "HEAD~1")
    repo.write("skills/a/SKILL.md", skill_md("a", "1.1.0"))
    (repo.path / "skills/a/scripts/run.sh").unlink()
    repo.commit("back to exactly 1.1.0")
    assert codes(history_of(repo.path / "skills")) == []


def test_sk221_says_why_git_failed_not_its_last_hint_line() -> None:
    """git ends some errors with hint lines: the reason is its fatal:/error: line (a repository
    owned by another user gave 'no release history: \\tgit config --global --add safe.directory ...')."""
    from skillsite.source.git_history import failure_reason

    stderr = (b"fatal: detected dubious ownership in repository at '/srv/skills'\n"
              b"To add an exception for this directory, call:\n\n"
              b"\tgit config --global --add safe.directory /srv/skills\n")
    assert failure_reason(stderr, "rev-parse", 128) \
        == "fatal: detected dubious ownership in repository at '/srv/skills'"
    assert failure_reason(b"warning: x\nsomething odd\n", "log", 1) == "something odd"
    assert failure_reason(b"", "log", 1) == "git log failed (exit 1)"
