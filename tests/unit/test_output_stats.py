"""The size and time of each written file are noted only while a staging folder is open, and a
commit takes exactly its own."""
from __future__ import annotations

from skillsite import output
from skillsite.output import Staging, tree_stats, write_file


def test_files_written_outside_a_staging_folder_are_not_noted(tmp_path):
    write_file(tmp_path / "page.html", b"<p>hi</p>")
    assert not output._PLACED


def test_a_commit_takes_its_own_notes_and_no_others(tmp_path):
    staging = Staging(tmp_path / "site")
    staging.write_bytes("a/b.txt", b"one")
    staging.write_text("index.html", "two")
    write_file(tmp_path / "elsewhere.txt", b"noted, but not this staging's")
    stats = staging.commit()
    assert stats == tree_stats(tmp_path / "site")
    assert sorted(stats) == [".skillsite-output", "a/b.txt", "index.html"]
    assert list(output._PLACED) == [str(tmp_path / "elsewhere.txt")]
    output._PLACED.clear()
    write_file(tmp_path / "after.txt", b"no staging open any more")
    assert not output._PLACED
