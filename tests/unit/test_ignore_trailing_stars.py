"""A .gitignore line ending in ``/**/`` (``a/**/``) means the folders inside ``a``, at any depth,
not ``a`` (pathspec alone reads it as ``a/``).  The answers below are git's
(``git ls-files --others --exclude-standard`` over TREE, git 2.39); tests/unit/test_walk_shortcuts.py
also compares such lines with git on seeded trees."""
from __future__ import annotations

import pytest

from skillsite.source.ignore import Ignores, rules_of

#: The files of the tree each example ignores from.
TREE = ["a/f", "a/x/f", "a/x/y/f", "a/x/b/f", "a/b/f", "a/b/c/f", "b/a/x/f", "b/f", "x/f", "x/y/f", "f"]

#: .gitignore lines (at the tree's top) -> the files git lists.
GIT_KEEPS = [
    (["a/**/"], ["a/f", "b/a/x/f", "b/f", "f", "x/f", "x/y/f"]),
    (["a/**/   "], ["a/f", "b/a/x/f", "b/f", "f", "x/f", "x/y/f"]),
    (["a/**/**/"], ["a/f", "b/a/x/f", "b/f", "f", "x/f", "x/y/f"]),
    (["*/**/"], ["a/f", "b/f", "f", "x/f"]),
    (["**/a/**/"], ["a/f", "b/f", "f", "x/f", "x/y/f"]),
    (["**/"], ["f"]),
    (["/**/"], ["f"]),
    (["a/**/b/"], ["a/f", "a/x/f", "a/x/y/f", "b/a/x/f", "b/f", "f", "x/f", "x/y/f"]),
    (["a/**//"], TREE),
    (["a/**/", "!a/x/"], ["a/f", "a/x/f", "b/a/x/f", "b/f", "f", "x/f", "x/y/f"]),
    (["a/*", "!a/**/"], [path for path in TREE if path != "a/f"]),
    (["**/", "!a/", "!a/**/"], ["a/b/c/f", "a/b/f", "a/f", "a/x/b/f", "a/x/f", "a/x/y/f", "f"]),
    (["a/**", "!a/**/"], ["b/a/x/f", "b/f", "f", "x/f", "x/y/f"]),
]


def kept(lines: list[str]) -> list[str]:
    """The files of TREE a walk keeps under a top .gitignore of ``lines``: a file is kept when
    neither it nor a folder above it is ignored, each folder decided as the walk decides it (its
    parent not ignored, else the walk would not be in it)."""
    ignores = Ignores((("", "", rules_of("".join(line + "\n" for line in lines))),))

    def left_out(path: str) -> bool:
        parts = path.split("/")
        folders = ["/".join(parts[:depth]) for depth in range(1, len(parts))]
        return any(ignores.ignored(folder, True) for folder in folders) or ignores.ignored(path, False)

    return sorted(path for path in TREE if not left_out(path))


@pytest.mark.parametrize(("lines", "git_keeps"), GIT_KEEPS, ids=[" ".join(lines) for lines, _ in GIT_KEEPS])
def test_a_line_ending_in_stars_and_a_slash_ignores_what_git_ignores(lines: list[str], git_keeps: list[str]) -> None:
    assert kept(lines) == sorted(git_keeps)
