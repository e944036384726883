"""``serve``'s rebuilds in memory (#47) keep each unchanged skill's part of the catalog-wide files
(its rows of the discovery indexes, the copies of its files the v0.1 index lists) and compose the
files again from those parts: what an edit changes shows exactly as a cold build writes it."""
from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

from support import EXAMPLES, append_line, tree_bytes
from skillsite.publish import wellknown
from skillsite.publish.build import build
from skillsite.publish.manifest import indented_json
from skillsite.publish.resident import Resident

#: The catalog-wide files composed of rows (each must be its whole document's indented JSON).
COMPOSED = (".well-known/agent-skills/index.json", ".well-known/skills/index.json", "skills/index.json",
            ".claude-plugin/marketplace.json")


def _aged(path: Path) -> None:
    stamp = time.time() - 60
    os.utime(path, (stamp, stamp))


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    _aged(path)


def _new_file(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    _aged(path)


def _age_tree(tree: Path) -> None:
    for path in [tree, *tree.rglob("*")]:
        _aged(path)


def test_a_resident_rebuild_lists_anew_only_the_skills_an_edit_changed(tmp_path, monkeypatch):
    """After each edit of a file, told by the file watcher, only the edited skill's listing and
    discovery row are made again (a new file makes the build walk the tree), and the output (the
    composed files included) is a cold build's: a body edit (a new SKILL.md digest), a
    description edit, a new bundled file (a new archive, a new copy in the v0.1 index), a file the
    v0.1 index cannot offer (SK014: out of it), a name another skill has (SK212: out of both
    indexes) and that name given back; the indexes say so."""
    src, cache, out = tmp_path / "src", tmp_path / "cache", tmp_path / "site"
    shutil.copytree(EXAMPLES, src)
    _age_tree(src)
    resident = Resident()
    assert build([src], out, cache_dir=cache, resident=resident).ok
    listed, rows = [], []
    real_of, real_row = wellknown.EntryListing.of.__func__, wellknown.discovery_row
    monkeypatch.setattr(wellknown.EntryListing, "of", classmethod(
        lambda cls, entry, archive: listed.append(entry.id) or real_of(cls, entry, archive)))
    monkeypatch.setattr(wellknown, "discovery_row", lambda entry, archive: rows.append(entry.id)
                        or real_row(entry, archive))
    test_first, code_review = src / "test-first" / "SKILL.md", src / "code-review" / "SKILL.md"
    unfetchable = src / "code-review" / "references" / "odd#name.md"
    edits = [  # (the file, the edit, what the v0.2 and the v0.1 index then list: name -> description)
        (test_first, lambda: append_line(test_first, "One more line."), lambda new, old: True),
        (code_review, lambda: _replace(code_review, "description: ", "description: Now reworded. "),
         lambda new, old: new["code-review"].startswith("Now reworded. ") and old["code-review"] == new["code-review"]),
        (unfetchable.with_name("added.md"), lambda: _new_file(unfetchable.with_name("added.md"), "added\n"),
         lambda new, old: "code-review" in old),
        (unfetchable, lambda: _new_file(unfetchable, "odd\n"), lambda new, old: "code-review" in set(new) - set(old)),
        (test_first, lambda: _replace(test_first, "name: test-first", "name: house-style"),
         lambda new, old: "test-first" not in {*new, *old} and "house-style" in old),
        (test_first, lambda: _replace(test_first, "name: house-style", "name: test-first"),
         lambda new, old: "test-first" in new and "test-first" in old),
    ]
    for number, (changed, edit, listed_now) in enumerate(edits):
        in_place = changed.exists()  # else the tree is walked again: every skill is a new object
        edit()
        listed.clear()
        rows.clear()
        resident.saw([os.path.realpath(changed)])
        result = build([src], out, cache_dir=cache, resident=resident)
        assert result.ok, result.diagnostics
        edited = changed.relative_to(src).parts[0]
        if in_place:
            assert listed == [edited], number
            assert set(rows) <= {edited}, number
        cold = tmp_path / f"cold-{number}"
        assert build([src], cold).ok
        assert tree_bytes(out) == tree_bytes(cold), number
        for rel in COMPOSED:
            data = (out / rel).read_bytes()
            assert data == indented_json(json.loads(data)), rel
        new, old = ({skill["name"]: skill["description"] for skill in json.loads((out / rel).read_bytes())["skills"]}
                    for rel in COMPOSED[:2])
        assert listed_now(new, old), number


def test_a_rebuild_in_a_fresh_process_lists_anew_only_the_edited_skill(tmp_path, monkeypatch):
    """Each skill's listing and discovery rows are kept with its publication in the cache: a
    rebuild with no objects kept from the last one (a new process) encodes the rows of the edited
    skill alone, and writes the discovery indexes as a cold build does."""
    src, cache, out = tmp_path / "src", tmp_path / "cache", tmp_path / "site"
    shutil.copytree(EXAMPLES, src)
    _age_tree(src)
    assert build([src], out, cache_dir=cache, jobs=1).ok
    rows: list[str] = []
    real_row = wellknown.discovery_row
    monkeypatch.setattr(wellknown, "discovery_row", lambda entry, archive: rows.append(entry.id)
                        or real_row(entry, archive))
    _replace(src / "code-review" / "SKILL.md", "description: ", "description: Now reworded. ")
    assert build([src], out, cache_dir=cache, jobs=1).ok
    assert rows == ["code-review"]
    assert build([src], tmp_path / "cold").ok
    assert tree_bytes(out) == tree_bytes(tmp_path / "cold")
    index = json.loads((out / COMPOSED[0]).read_bytes())
    assert {s["name"]: s["description"] for s in index["skills"]}["code-review"].startswith("Now reworded. ")
