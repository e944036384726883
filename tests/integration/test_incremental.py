"""Parallel and incremental builds give exactly the output of a cold, serial build."""
from __future__ import annotations

import shutil

from support import EXAMPLES, tree_bytes
from skillsite.build import build


def test_output_does_not_depend_on_jobs(tmp_path):
    serial, parallel = tmp_path / "serial", tmp_path / "parallel"
    assert build([EXAMPLES], serial, jobs=1).ok
    assert build([EXAMPLES], parallel, jobs=4).ok
    assert tree_bytes(serial) == tree_bytes(parallel)


def test_incremental_rebuilds_equal_cold_builds(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(EXAMPLES, src)
    cache, out, cold = tmp_path / "cache", tmp_path / "site", tmp_path / "cold"

    assert build([src], out, cache_dir=cache).ok
    before = tree_bytes(out)
    assert build([src], out, cache_dir=cache).ok
    assert tree_bytes(out) == before

    skill = src / "code-review" / "SKILL.md"
    skill.write_text(skill.read_text().replace("Review a pull request", "Review a change request"))
    (src / "code-review" / "references" / "new-checklist.md").write_text("# New\n\n- [ ] check\n")
    (src / "test-first" / "references").joinpath("added.md").write_text("added\n")
    changed = build([src], out, cache_dir=cache)
    assert changed.ok
    assert build([src], cold).ok  # no cache at all
    assert tree_bytes(out) == tree_bytes(cold)
    assert b"Review a change request" in (out / "skills/code-review/index.html").read_bytes()


def test_hand_edited_output_is_never_reused(tmp_path):
    cache, out, cold = tmp_path / "cache", tmp_path / "site", tmp_path / "cold"
    assert build([EXAMPLES], out, cache_dir=cache).ok
    (out / "skills/code-review/SKILL.md").write_text("tampered")
    assert build([EXAMPLES], out, cache_dir=cache).ok
    assert build([EXAMPLES], cold).ok
    assert tree_bytes(out) == tree_bytes(cold)


def test_a_corrupt_cache_is_ignored(tmp_path):
    cache, out, cold = tmp_path / "cache", tmp_path / "site", tmp_path / "cold"
    assert build([EXAMPLES], out, cache_dir=cache).ok
    for f in cache.iterdir():
        f.write_bytes(b"not a pickle")
    assert build([EXAMPLES], out, cache_dir=cache).ok
    assert build([EXAMPLES], cold).ok
    assert tree_bytes(out) == tree_bytes(cold)


def test_a_no_op_rebuild_keeps_the_whole_cache(tmp_path):
    """After a no-op rebuild, changing one body re-renders that body only."""
    from skillsite import build as build_module

    src = tmp_path / "src"
    shutil.copytree(EXAMPLES, src)
    cache, out = tmp_path / "cache", tmp_path / "site"
    assert build([src], out, cache_dir=cache).ok
    assert "unchanged" in build([src], out, cache_dir=cache).stages
    skill = src / "test-first" / "SKILL.md"
    skill.write_text(skill.read_text() + "\nOne more line.\n")
    rendered = []
    original = build_module._render_one
    try:
        build_module._render_one = lambda item: rendered.append(item[0]) or original(item)
        assert build([src], out, cache_dir=cache, jobs=1).ok
    finally:
        build_module._render_one = original
    assert rendered == ["test-first"]
