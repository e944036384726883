"""An installed skill's folder: its digests with skills installed inside it on their own, and
the copy that keeps those across a replacement (:mod:`skillsite.agent.installed`, ``install.carry_over``)."""
from __future__ import annotations

import os
from pathlib import Path

from skillsite.agent.install import carry_over
from skillsite.agent.installed import InstalledFolder, nested_digest
from skillsite.agent.lockfile import Lock, LockedFolders, LockedSkill


def _skill(folder: Path, text: str = "---\nname: x\n---\n") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    return folder


def test_a_folder_apart_is_left_out_of_the_nested_digest_only(tmp_path: Path) -> None:
    outer = _skill(tmp_path / "app")
    _skill(outer / "child", "child\n")
    before = nested_digest(outer)
    _skill(outer / "own-lib", "lib\n")
    held = InstalledFolder.at(outer, [outer / "own-lib"])
    assert held.nested == nested_digest(outer) != before
    assert held.nested_with_it == before and held.holds_nested(before) and held.holds_nested(held.nested)
    assert InstalledFolder.at(outer).nested_with_it == held.nested   # nothing apart: all of them
    assert held.same_files(InstalledFolder.at(outer)) and not held.holds_nested(None)


def test_locked_folders_name_the_other_locked_skills_in_a_folder(tmp_path: Path) -> None:
    lock_path = tmp_path / "skillsite-lock.json"
    skills = {sid: LockedSkill("c", None, "sha256:0", path, {}, None)
              for sid, path in (("app", "skills/app"), ("lib", "skills/app/deep/own-lib"), ("apps", "skills/apps"),
                                ("other", "skills/other"), ("b", "skills/app/b"), ("app-x", "skills/app-x/y"))}
    folders = LockedFolders(Lock(skills), lock_path)
    assert folders.inside("app", tmp_path / "skills" / "app") == {"b": "b", "lib": "deep/own-lib"}
    assert folders.inside("lib", tmp_path / "skills" / "app") == {"b": "b"}   # app is the folder itself
    assert folders.inside("x", tmp_path / "skills") == {
        "app": "app", "app-x": "app-x/y", "apps": "apps", "b": "app/b", "lib": "app/deep/own-lib", "other": "other"}


def test_carry_over_copies_what_the_new_files_leave_room_for(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    kept = _skill(old / "deep" / "own-lib", "lib\n")
    (kept / "scripts").mkdir()
    os.symlink("../SKILL.md", kept / "scripts" / "link")
    _skill(old / "clash", "lost\n")
    _skill(old / "under", "lost\n")
    new.mkdir()
    files = {"SKILL.md": b"new", "clash": b"a file where a folder was", "under/SKILL.md": b"the release's"}
    for rel, data in files.items():
        (new / rel).parent.mkdir(parents=True, exist_ok=True)
        (new / rel).write_bytes(data)
    carry_over(old, new, ["deep/own-lib", "clash", "under", "gone"], files)
    assert (new / "deep" / "own-lib" / "SKILL.md").read_text(encoding="utf-8") == "lib\n"
    assert os.readlink(new / "deep" / "own-lib" / "scripts" / "link") == "../SKILL.md"
    assert (new / "clash").read_bytes() == b"a file where a folder was"
    assert (new / "under" / "SKILL.md").read_bytes() == b"the release's"
    assert (old / "deep" / "own-lib" / "SKILL.md").is_file()   # copied, not moved
    assert not (new / "gone").exists()
