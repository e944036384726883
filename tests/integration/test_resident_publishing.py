"""What ``serve`` keeps of publishing between its builds (#47): each skill's link targets, the
catalog's link targets and slash commands, and each kept publication's entry sharing its skill's
values.  After an edit they do not depend on, they are taken again (not made); after one they
depend on, they are made again; the output is a cold build's either way."""
from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from support import EXAMPLES, append_line, tree_bytes
from skillsite import cache as cache_module
from skillsite.publish import skills
from skillsite.publish.build import build
from skillsite.publish.resident import Resident
from skillsite.source import catalog

#: What publishing keeps for the whole catalog, under one key each.
CATALOG_WIDE = (skills.LINK_TARGETS,)


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Resident, list[tuple[str, str]]]:
    """The example skills built once by a long-running process; then what publishing makes
    (section, key) is recorded, as is each skill whose stored entry is made to share its values."""
    src = tmp_path / "src"
    shutil.copytree(EXAMPLES, src)
    stamp = time.time() - 120
    for path in [src, *src.rglob("*")]:
        os.utime(path, (stamp, stamp), follow_symlinks=False)
    monkeypatch.setattr(catalog, "RACY_NS", 0)  # every SKILL.md's stamp trusted from the first build on
    resident = Resident()
    assert build([src], tmp_path / "site", cache_dir=tmp_path / "cache", resident=resident).ok
    made: list[tuple[str, str]] = []

    def recording(resident, section, key, source, inputs, make):
        return cache_module.kept_or_made(resident, section, key, source, inputs,
                                         lambda: made.append((section, key)) or make())

    def sharing(entry, skill):
        made.append(("sharing", skill.id))
        return real_sharing(entry, skill)
    real_sharing = skills.sharing_skill_values
    monkeypatch.setattr(skills, "kept_or_made", recording)
    monkeypatch.setattr(skills, "sharing_skill_values", sharing)
    return src, resident, made


def _rebuilt(tmp_path: Path, src: Path, resident: Resident, changed: list[Path] | None) -> None:
    """The long-running process's rebuild, told ``changed`` (None: unknown, the tree is walked)."""
    resident.saw(None if changed is None else [os.path.realpath(path) for path in changed])
    assert build([src], tmp_path / "site", cache_dir=tmp_path / "cache", resident=resident).ok


def _as_cold(tmp_path: Path, src: Path) -> None:
    """The rebuilt output is the one a cold build writes."""
    shutil.rmtree(tmp_path / "cold", ignore_errors=True)
    assert build([src], tmp_path / "cold").ok
    assert tree_bytes(tmp_path / "site") == tree_bytes(tmp_path / "cold")


def test_a_body_edit_makes_the_edited_skill_s_parts_only(served, tmp_path):
    src, resident, made = served
    edited = src / "test-first" / "SKILL.md"
    append_line(edited, "One more line.")
    _rebuilt(tmp_path, src, resident, [edited])
    assert [key for section, key in made if section == skills.LINKABLE] == ["test-first"]
    assert [key for section, key in made if section == "sharing"] == ["test-first"]  # the others' entries share already
    assert [section for section, _ in made if section in CATALOG_WIDE] == []
    _as_cold(tmp_path, src)


def test_a_new_bundled_file_a_body_links_to_makes_the_link_targets_again(served, tmp_path):
    """A link to a file of another skill is refused until the file is there: once it is, the
    catalog's link targets are made again, and the linking body is rendered again with the link."""
    src, resident, made = served
    linking = src / "test-first" / "SKILL.md"
    append_line(linking, "See [the later notes](../code-review/references/later.md).")
    _rebuilt(tmp_path, src, resident, [linking])
    page = (tmp_path / "site" / "skills" / "test-first" / "index.html").read_text("utf-8")
    assert 'href="../code-review/references/later.md"' not in page
    _as_cold(tmp_path, src)
    made.clear()
    (src / "code-review" / "references" / "later.md").write_text("# Later\n", encoding="utf-8")
    _rebuilt(tmp_path, src, resident, None)
    assert [section for section, _ in made if section in CATALOG_WIDE] == [skills.LINK_TARGETS]
    page = (tmp_path / "site" / "skills" / "test-first" / "index.html").read_text("utf-8")
    assert 'href="../code-review/references/later.md"' in page
    _as_cold(tmp_path, src)


def test_a_skill_no_longer_user_invocable_makes_the_commands_again(served, tmp_path):
    src, resident, made = served
    edited = src / "test-first" / "SKILL.md"
    edited.write_text(edited.read_text("utf-8").replace("---\n", "---\nuser-invocable: false\n", 1), "utf-8")
    assert command_of(tmp_path, "test-first") is not None
    _rebuilt(tmp_path, src, resident, [edited])
    assert command_of(tmp_path, "test-first") is None
    _as_cold(tmp_path, src)


def command_of(tmp_path, skill_id):
    """The slash command the published manifest gives a skill (None: not user-invocable)."""
    manifest = json.loads((tmp_path / "site" / "skills.json").read_text("utf-8"))
    return next(e for e in manifest["skills"] if e["id"] == skill_id).get("command")
