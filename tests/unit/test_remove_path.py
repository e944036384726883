"""Removing a tree the build left behind (skillsite.folders.remove_path): folders whose owner
lacks permissions are given them back first, never through a symbolic link."""
from __future__ import annotations

import os
import stat
from pathlib import Path

from skillsite import folders
from skillsite.folders import remove_path


def test_a_tree_holding_a_folder_of_mode_000_is_removed(tmp_path: Path) -> None:
    top = tmp_path / "remains"
    (top / "locked" / "inner").mkdir(parents=True)
    (top / "locked" / "inner" / "file.txt").write_text("x")
    (top / "locked").chmod(0)
    remove_path(top)
    assert not os.path.lexists(top)


def test_a_folder_replaced_by_a_link_after_its_check_leaves_the_link_s_target_as_it_was(tmp_path: Path,
                                                                                       monkeypatch) -> None:
    """The race of a folder swapped for a link between the look at it (a folder of ours lacking
    permissions) and the change of its mode: the change must not reach the link's target."""
    parent, outside = tmp_path / "remains", tmp_path / "outside"
    (parent / "locked").mkdir(parents=True)
    (parent / "locked").chmod(0o500)
    outside.mkdir()
    outside.chmod(0o500)
    real_stat = os.stat

    def look_then_swap(path, *args, **kwargs):
        found = real_stat(path, *args, **kwargs)
        if path == "locked" and kwargs.get("dir_fd") is not None:
            os.rmdir(parent / "locked")
            os.symlink(outside, parent / "locked")
        return found

    monkeypatch.setattr(folders.os, "stat", look_then_swap)
    fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        assert folders._give_back(fd, "locked") is False
    finally:
        os.close(fd)
    monkeypatch.undo()
    assert stat.S_IMODE(os.stat(outside).st_mode) == 0o500
    assert os.path.islink(parent / "locked")
