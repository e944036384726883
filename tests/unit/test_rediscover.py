"""Discovery patched from the paths a file watcher reported (``serve``, #47): equal to a walk
when only listed files changed, None (walk) for anything that may change the tree's shape."""
from __future__ import annotations

import os
import shutil
import time

import pytest

from support import EXAMPLES
from skillsite.audit import files as audit_files
from skillsite.publish.resident import Resident
from skillsite.publish.state import AuditListing
from skillsite.diagnostics import make
from skillsite.source.discover import Discovery, discover
from skillsite.source.rediscover import Places, as_reached, rediscover


@pytest.fixture
def tree(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(EXAMPLES, src)
    return src


def _write(path, text: str) -> str:
    """Write ``path`` (dated a minute ago, another size than before) and return it as a watcher names it."""
    path.write_text(text, encoding="utf-8")
    os.utime(path, (time.time() - 60, time.time() - 60))
    return os.path.realpath(path)


def test_listed_files_that_changed_are_read_again_and_equal_a_walk(tree):
    found = discover([tree])
    changed = [_write(tree / "code-review" / "SKILL.md", (tree / "code-review" / "SKILL.md").read_text() + "\nMore.\n"),
               _write(tree / "code-review" / "references" / "shell.md", "# Shorter\n"),
               os.path.realpath(tree / "code-review" / ".SKILL.md.swp")]  # an editor's file, gone again
    patched = rediscover(found, Places.of(found), [tree], changed)
    assert patched is not None and patched == discover([tree]) and patched != found
    unchanged = [s for s, before in zip(patched.sources, found.sources) if s.id != "code-review"]
    assert all(s is before for s, before in zip(unchanged, [s for s in found.sources if s.id != "code-review"]))


@pytest.mark.parametrize("change", ["new file", "removed file", "gitignore", "folder", "outside", "link", "unreadable",
                                    "skill moved away", "references moved away", "hard link", "linked folder"])
def test_anything_that_may_change_the_tree_s_shape_asks_for_a_walk(tree, tmp_path, change):
    """Each may change what a walk lists, or (a hard link; a folder linked inside a skill) change a
    listed file under a name the watcher does not report: serve published the other name's old
    content until the next walk."""
    skill = tree / "code-review"
    if change == "link":
        (skill / "linked.md").symlink_to(skill / "SKILL.md")
    if change == "hard link":
        os.link(skill / "references" / "shell.md", tree / "test-first" / "shell.md")
    if change == "linked folder":
        (skill / "docs").symlink_to("references", target_is_directory=True)
    found = discover([tree])
    if change == "unreadable":  # as discovery reports a file it could not stat
        found = Discovery(found.sources, (*found.diagnostics, make("SK006", "cannot read: denied", str(skill))))
    paths = {
        "new file": lambda: [_write(skill / "references" / "new.md", "new")],
        "removed file": lambda: [(skill / "references" / "shell.md").unlink()
                                 or os.path.realpath(skill / "references" / "shell.md")],
        "gitignore": lambda: [_write(skill / ".gitignore", "references/\n")],
        "folder": lambda: [(skill / "more").mkdir() or os.path.realpath(skill / "more")],
        "outside": lambda: [_write(tmp_path / "elsewhere.md", "x")],
        "link": lambda: [_write(skill / "SKILL.md", (skill / "SKILL.md").read_text() + "\nMore.\n")],
        "unreadable": lambda: [_write(skill / "SKILL.md", (skill / "SKILL.md").read_text() + "\nMore.\n")],
        # a watcher reports the folder moved, not the files it took with it (serve kept them)
        "skill moved away": lambda: [os.path.realpath(skill), skill.rename(tmp_path / "away")][:1],
        "references moved away": lambda: [os.path.realpath(skill / "references"),
                                          (skill / "references").rename(tmp_path / "refs")][:1],
        "hard link": lambda: [_write(skill / "references" / "shell.md", "# Both names\n")],
        "linked folder": lambda: [_write(skill / "references" / "shell.md", "# Both names\n")],
    }[change]()
    assert rediscover(found, Places.of(found), [tree], paths) is None


def test_reported_paths_are_taken_back_to_the_root_as_given(tmp_path, tree):
    through = tmp_path / "through-a-link"
    through.symlink_to(tree)
    real = os.path.realpath(tree / "code-review" / "SKILL.md")
    assert as_reached(real, [through]) == os.path.abspath(through / "code-review" / "SKILL.md")
    assert as_reached(str(tmp_path / "elsewhere"), [through]) is None


def test_a_resident_lists_again_only_the_skill_folders_under_a_reported_path(tree, monkeypatch):
    (tree / "house-style" / "node_modules").mkdir()
    (tree / "house-style" / "node_modules" / "index.js").write_text("x", encoding="utf-8")
    resident = Resident()
    listed: list[str] = []
    real_stamps = audit_files.audited_stamps
    monkeypatch.setattr("skillsite.publish.resident.audited_stamps",
                        lambda folder: listed.append(os.path.basename(folder)) or real_stamps(folder))
    with resident.building():
        found = resident.discover([tree], [])
        assert resident.listings(found, [tree]) == [AuditListing.of(s.dir) for s in found.sources]
    assert listed == ["house-style"]  # the others as discovery saw them whole: its listing, not a second walk
    changed = _write(tree / "release-manager" / "changelog" / "SKILL.md", "---\nname: changelog\n---\nx\n")
    resident.saw([changed])
    listed.clear()
    with resident.building():
        again = resident.discover([tree], [])
        assert resident.walks == 1 and again == discover([tree])
        assert resident.listings(again, [tree]) == [AuditListing.of(s.dir) for s in again.sources]
    # the changed skill and the skills above it (house-style's node_modules is watched too)
    assert sorted(listed) == ["changelog", "release-manager"]
    resident.saw([str(tree / "house-style" / "node_modules")])   # a change in it, as the watcher says it
    listed.clear()
    with resident.building():
        assert resident.discover([tree], []) == again and resident.walks == 1  # discovery never looks in it
        assert resident.listings(again, [tree]) == [AuditListing.of(s.dir) for s in again.sources]
    assert listed == ["house-style"]
    with resident.building():
        assert resident.discover([tree], []) == again and resident.walks == 2  # untold: walked
    resident.saw([changed])
    with pytest.raises(KeyboardInterrupt), resident.building():
        raise KeyboardInterrupt  # a build that raised midway: the next one walks, though told
    resident.saw([])
    with resident.building():
        assert resident.discover([tree], []) == again and resident.walks == 3
