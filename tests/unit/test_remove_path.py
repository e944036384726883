"""Removing a tree the build left behind (skillsite.folders.remove_path): folders whose owner
lacks permissions are given them back first, never through a symbolic link."""
from __future__ import annotations

import os
import stat
from pathlib import Path

from skillsite import folders
from skillsite.folders import remove_path, same_place


def test_a_tree_holding_a_folder_of_mode_000_is_removed(tmp_path: Path) -> None:
    top = tmp_path / "remains"
    (top / "locked" / "inner").mkdir(parents=True)
    (top / "locked" / "inner" / "file.txt").write_text("x")
    (top / "locked").chmod(0)
    remove_path(top)
    assert not os.path.lexists(top)


def given_back(parent: Path, name: str) -> bool:
    """What ``_give_back`` answers for ``parent/name``, asked through a descriptor of ``parent``."""
    fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        return folders._give_back(fd, name)
    finally:
        os.close(fd)


def swap_for_a_link_after_the_look(monkeypatch, parent: Path, outside: Path) -> None:
    """From now on, the look at ``parent/locked`` (its ``stat`` through a descriptor) is followed by
    that folder's replacement with a link to ``outside``."""
    real_stat = os.stat

    def look_then_swap(path, *args, **kwargs):
        found = real_stat(path, *args, **kwargs)
        if path == "locked" and kwargs.get("dir_fd") is not None:
            os.rmdir(parent / "locked")
            os.symlink(outside, parent / "locked")
        return found

    monkeypatch.setattr(folders.os, "stat", look_then_swap)


def test_a_folder_replaced_by_a_link_after_its_check_leaves_the_link_s_target_as_it_was(tmp_path: Path,
                                                                                       monkeypatch) -> None:
    """The race of a folder swapped for a link between the look at it (a folder of ours lacking
    permissions) and the change of its mode: the change must not reach the link's target."""
    parent, outside = tmp_path / "remains", tmp_path / "outside"
    (parent / "locked").mkdir(parents=True)
    (parent / "locked").chmod(0o500)
    outside.mkdir()
    outside.chmod(0o500)
    swap_for_a_link_after_the_look(monkeypatch, parent, outside)
    assert given_back(parent, "locked") is False
    monkeypatch.undo()
    assert stat.S_IMODE(os.stat(outside).st_mode) == 0o500
    assert os.path.islink(parent / "locked")


def test_a_folder_is_given_back_where_no_mode_changes_without_following_links(tmp_path: Path, monkeypatch) -> None:
    """Where ``fchmodat`` refuses ``AT_SYMLINK_NOFOLLOW`` (glibc before 2.32, or no /proc
    mounted: Python raises ValueError, as ``unshare -m`` with /proc unmounted shows), a folder
    its owner can read is still given back its permissions, through a descriptor opened without
    following links (none was: a read-only folder stayed, and the tree with it)."""
    parent = tmp_path / "remains"
    (parent / "locked").mkdir(parents=True)
    (parent / "locked").chmod(0o500)
    real_chmod = os.chmod

    def no_nofollow(path, mode, *, dir_fd=None, follow_symlinks=True):
        if dir_fd is not None and not follow_symlinks:
            raise ValueError("chmod: cannot use dir_fd and follow_symlinks together")
        return real_chmod(path, mode, dir_fd=dir_fd, follow_symlinks=follow_symlinks)

    monkeypatch.setattr(folders.os, "chmod", no_nofollow)
    assert given_back(parent, "locked") is True
    assert stat.S_IMODE(os.stat(parent / "locked").st_mode) == 0o700
    (parent / "locked").chmod(0o500)
    outside = tmp_path / "outside"
    outside.mkdir()
    outside.chmod(0o500)
    swap_for_a_link_after_the_look(monkeypatch, parent, outside)   # a link in its place is never followed
    assert given_back(parent, "locked") is False
    monkeypatch.undo()
    assert stat.S_IMODE(os.stat(outside).st_mode) == 0o500


def test_one_folder_spelt_two_ways_is_one_place(tmp_path: Path) -> None:
    """A file system that ignores case spells one folder many ways; /proc/self/root does here."""
    (tmp_path / "skills" / "main").mkdir(parents=True)
    other = Path("/proc/self/root") / (tmp_path / "skills" / "main").relative_to("/")
    assert same_place(tmp_path / "skills" / "main", other)
    assert same_place(tmp_path / "new", tmp_path / "new")              # spelt alike, not there yet
    assert not same_place(tmp_path / "skills", tmp_path / "skills" / "main")
    assert not same_place(tmp_path / "a", tmp_path / "b")              # neither there


def test_a_sibling_of_a_folder_with_a_long_name_has_a_name_the_file_system_takes(tmp_path: Path) -> None:
    """``.<name>.tmp-<12 digits>`` beside a folder of 240 bytes was 258 bytes: installing such a
    skill (a dependency is named after its id) failed with "File name too long"."""
    from skillsite.agent.install_staging import staging_folder

    for name in ("a" * 240, "é" * 127, "b" * 255):
        target = tmp_path / name
        target.mkdir()
        for kind in ("tmp", "old"):
            sibling = folders.sibling_name(target, kind)
            assert len(os.fsencode(sibling.name)) <= 255 and sibling.name.startswith(".")
            sibling.mkdir()
            sibling.name.encode("utf-8")   # cut at a character, never inside one
        with staging_folder(target) as staged:
            assert staged.is_dir() and staged.parent == tmp_path
