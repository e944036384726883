"""Which install folders are one (skillsite.agent.install._folder_keys): an install refuses to
put two skills of a closure into one folder."""
from __future__ import annotations

import os
from pathlib import Path

from skillsite.agent.install import _folder_keys


def shared(first: Path, second: Path) -> bool:
    return bool(set(_folder_keys(first)) & set(_folder_keys(second)))


def test_one_folder_on_disk_under_two_names_is_one(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    os.symlink(tmp_path / "lib", tmp_path / "alias")
    assert shared(tmp_path / "lib", tmp_path / "alias")


def test_names_that_differ_only_in_case_or_unicode_form_are_one_there_or_not(tmp_path: Path) -> None:
    assert shared(tmp_path / "Team-Lib", tmp_path / "team-lib")
    assert shared(tmp_path / "caf\u00e9", tmp_path / "cafe\u0301")


def test_two_folders_are_two(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "app").mkdir()
    assert not shared(tmp_path / "lib", tmp_path / "app")
    assert not shared(tmp_path / "lib", tmp_path / "missing")


def test_without_any_spelling_only_the_path_or_the_folder_on_disk_counts(tmp_path: Path) -> None:
    """What a lock records is compared so: its folder, however it is spelt to reach it."""
    def same(first: Path, second: Path) -> bool:
        return bool(set(_folder_keys(first, any_spelling=False)) & set(_folder_keys(second, any_spelling=False)))

    (tmp_path / "lib").mkdir()
    (tmp_path / "x").mkdir()
    os.symlink(tmp_path / "lib", tmp_path / "alias")
    assert same(tmp_path / "lib", tmp_path / "alias") and same(tmp_path / "x" / ".." / "lib", tmp_path / "lib")
    assert same(tmp_path / "new", tmp_path / "new") and not same(tmp_path / "Team-Lib", tmp_path / "team-lib")


def test_a_clash_says_why_two_paths_are_one_folder(tmp_path: Path) -> None:
    from skillsite.agent.install import _why_one_folder

    assert _why_one_folder(tmp_path / "lib", tmp_path / "lib") == ""
    assert _why_one_folder(tmp_path / "Lib", tmp_path / "lib").startswith(" (names that differ only in case")
    assert _why_one_folder(tmp_path / "real", tmp_path / "alias") == f" (it is {tmp_path / 'real'} on disk)"
