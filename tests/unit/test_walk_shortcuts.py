"""The walk decides as git does and its shortcuts as the checks they stand in front of: what a
.gitignore ignores, as ``git ls-files --others --exclude-standard`` lists a tree
(:meth:`skillsite.source.ignore.Ignores.ignored`), and the first character before
:func:`~skillsite.agent.vcs_names.is_vcs_folder` (:func:`skillsite.source.discover.is_tool_folder`)."""
from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillsite.agent.vcs_names import VCS_FOLDERS, is_vcs_folder
from skillsite.source.discover import is_tool_folder
from skillsite.source.ignore import GITIGNORE, TOOL_FOLDERS, Ignores

#: Lines of .gitignore files: plain names, globs, anchored and folder rules, negations, comments.
LINES = ["*.log", "!keep.log", "build/", "/top", "a/**/b", "**/c", "d/*", "!d/e", "cache/", "!*/", "*", "#x",
         "", "x y", "\\#z", "[ab].md", "f?", "!f1", "**", "s/", "!s/t", "a/", "!a/b/", "a/**", "!a/s/", "!a/s/**",
         "!**/", "**/s/**", "*/*", "/*", "!/a", "a/*/", "!keep*", "!s", "s", "!build/",
         # several stars in a name, several **: matched by RE2 (skillsite.source.ignore._expression)
         "k*e*p*", "!*e*.l*g", "*.*d", "!S*L*.*d", "a/**/b/**/s", "**/a/**/c/**/e",
         # the folders inside a folder (pathspec alone reads a/**/ as a/: skillsite.source.ignore._as_git_reads)
         "a/**/", "!a/**/", "*/**/", "!**/s/**/", "a/**/b/", "s/**/ ", "/**/"]
FOLDERS = ["a", "b", "c", "d", "s", "build", "cache", "top", "x y"]
FILES = ["SKILL.md", "keep.log", "x.log", "f1", "fx", "a.md", "#z", "s", "e"]
SEEDS = range(150)


def random_tree(rng: random.Random, folder: Path, depth: int = 0) -> None:
    """Folders and files of the names above, some with a .gitignore of a few LINES."""
    folder.mkdir(exist_ok=True)
    for name in rng.sample(FILES, rng.randint(1, 3)):
        (folder / name).write_text("x", encoding="utf-8")
    if rng.random() < (0.9 if depth == 0 else 0.4):
        (folder / GITIGNORE).write_text("".join(rng.choice(LINES) + "\n" for _ in range(rng.randint(1, 4))),
                                        encoding="utf-8")
    for name in rng.sample(FOLDERS, rng.randint(0, 3) if depth < 3 else 0):
        if not (folder / name).is_file():
            random_tree(rng, folder / name, depth + 1)


def walked(root: Path) -> set[str]:
    """The files a walk keeps, as discovery walks: each folder's .gitignore joins the rules, and
    a folder the rules ignore is not walked into."""
    kept = set()

    def walk(folder: Path, rel: str, ignores: Ignores) -> None:
        if (folder / GITIGNORE).is_file():
            ignores = ignores.with_file(str(folder / GITIGNORE), rel)
        for name in sorted(os.listdir(folder)):
            path, inner = folder / name, f"{rel}/{name}" if rel else name
            if name == ".git" or ignores.ignored(inner, path.is_dir()):
                continue
            if path.is_dir():
                walk(path, inner, ignores)
            else:
                kept.add(inner)

    walk(root, "", Ignores())
    return kept


def git_lists(root: Path) -> set[str]:
    """The files git keeps: untracked and not ignored (no excludes file but the tree's own)."""
    listed = subprocess.run(["git", "-c", "core.excludesFile=", "ls-files", "--others", "--exclude-standard", "-z"],
                            cwd=root, capture_output=True, check=True).stdout.decode("utf-8")
    return {path for path in listed.split("\0") if path}


@pytest.mark.skipif(shutil.which("git") is None, reason="git missing")
def test_a_walk_keeps_the_files_git_keeps(tmp_path: Path) -> None:
    """Seeded trees, each a git repository: the walk keeps what git lists; git's whitelist idiom
    (``*``, ``!*/``: no folder ignored) is the first."""
    differ = []
    for seed in SEEDS:
        root = tmp_path / str(seed)
        if seed == 0:
            (root / "a" / "b").mkdir(parents=True)
            (root / GITIGNORE).write_text("*\n!*/\n!SKILL.md\n", encoding="utf-8")
            (root / "a" / "b" / "SKILL.md").write_text("x", encoding="utf-8")
            (root / "a" / "b" / "x.log").write_text("x", encoding="utf-8")
        else:
            random_tree(random.Random(seed), root)
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        if (ours := walked(root)) != (git := git_lists(root)):
            differ.append(f"seed {seed}: only the walk's {sorted(ours - git)}, only git's {sorted(git - ours)}")
    assert not differ, "\n".join(differ)


def test_every_spelling_of_a_version_control_folder_is_a_tool_folder() -> None:
    spellings = [*VCS_FOLDERS, "git~1", "GIT~1", ".GIT", ".Git", "_DARCS", ".g\u200cit", "\u200b.git", ".git.",
                 ".git ", ".git::$INDEX_ALLOCATION", ".\ufeffhg", ".ſvn", "\u212a"]
    for name in spellings:
        assert is_tool_folder(name) == (name in TOOL_FOLDERS or is_vcs_folder(name)), name
    assert all(is_tool_folder(name) for name in spellings[:-2])
    assert is_tool_folder(".ſvn") == is_vcs_folder(".ſvn")


@given(st.text(min_size=0, max_size=8))
def test_is_tool_folder_is_the_full_check(name: str) -> None:
    assert is_tool_folder(name) == (name in TOOL_FOLDERS or is_vcs_folder(name))


def test_each_version_control_name_spelled_with_any_first_character_is_told_apart() -> None:
    tails = sorted({name[1:] for name in (*VCS_FOLDERS, "git~1")})
    for code in range(0x250):
        for tail in tails:
            name = chr(code) + tail
            assert is_tool_folder(name) == (name in TOOL_FOLDERS or is_vcs_folder(name)), name
