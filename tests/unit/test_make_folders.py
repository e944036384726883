"""Making a folder and its parents (skillsite.folders.make_folders): pathlib's calls and errors,
without pathlib's recursion (one call per missing folder)."""
from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from skillsite.folders import make_folders


def test_a_folder_twelve_hundred_levels_deep_is_made(tmp_path: Path) -> None:
    """A hand-edited lock's path of 1,200 folders raised RecursionError through pathlib's mkdir."""
    deep = tmp_path.joinpath(*["d"] * 1_200)
    make_folders(deep)
    assert deep.is_dir()
    for level in range(1_200, 0, -1):   # deepest first: pytest's clean-up recurses once per level too
        tmp_path.joinpath(*["d"] * level).rmdir()


def test_a_path_too_long_makes_nothing_and_names_itself(tmp_path: Path) -> None:
    """As pathlib: the first mkdir, of the whole path, fails at once; no parent is made first."""
    deep = tmp_path.joinpath(*["a" * 200] * 40)
    with pytest.raises(OSError) as raised:
        make_folders(deep)
    assert raised.value.errno == errno.ENAMETOOLONG and raised.value.filename == str(deep)
    assert os.listdir(tmp_path) == []


def test_a_file_in_the_way_is_named(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(NotADirectoryError):
        make_folders(tmp_path / "f" / "g" / "h")
    make_folders(tmp_path / "a" / "b")
    make_folders(tmp_path / "a" / "b")   # there already: nothing to do
    assert (tmp_path / "a" / "b").is_dir()
