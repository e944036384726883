"""The staging folder's bulk checks: one skill's files are taken as found only when every one of
them is exactly as the last build recorded it, in the back folder or in the published output."""
from __future__ import annotations

import os
from pathlib import Path

from skillsite.publish.staging import MARKER, MARKER_TEXT, Recorded, Staging, mirror_output, records

FILES = {"skills/a/SKILL.md": b"a skill\n", "skills/a/index.html": b"<p>a</p>\n"}


def _folder(path: Path, files: dict[str, bytes]) -> dict[str, Recorded]:
    """Write ``files`` under ``path`` as a catalog; their records (key: the content itself)."""
    records = {}
    for rel, data in files.items():
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / rel).write_bytes(data)
        st = os.lstat(path / rel)
        records[rel] = (data.decode(), st.st_size, st.st_mtime_ns)
    (path / MARKER).write_text(MARKER_TEXT)
    return records


def _keys() -> list[list[str]]:
    return [[rel, data.decode()] for rel, data in FILES.items()]


def test_files_intact_in_the_back_folder_are_all_taken_without_a_write(tmp_path):
    records = _folder(tmp_path / "back", FILES)
    inodes = {rel: os.lstat(tmp_path / "back" / rel).st_ino for rel in FILES}
    staging = Staging(tmp_path / "site", None, tmp_path / "back", records)
    assert staging.keep_all(_keys())
    assert staging.placed == {rel: data.decode() for rel, data in FILES.items()}
    assert staging.kept == set(FILES) and staging.written == set()
    assert {rel: os.lstat(tmp_path / "back" / rel).st_ino for rel in FILES} == inodes


def test_a_file_edited_in_the_back_folder_is_taken_from_the_output_or_not_at_all(tmp_path):
    records = _folder(tmp_path / "back", FILES)
    published = _folder(tmp_path / "site", FILES)
    edited = tmp_path / "back" / "skills/a/index.html"
    stamp = os.lstat(edited)
    edited.write_bytes(b"<p>b</p>\n")  # same size, same time: only the content differs...
    os.utime(edited, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1))  # ...and the time, by a nanosecond
    staging = Staging(tmp_path / "site", published, tmp_path / "back", records)
    assert staging.keep_all(_keys())
    assert edited.read_bytes() == FILES["skills/a/index.html"] and staging.written == {"skills/a/index.html"}

    os.unlink(tmp_path / "site" / "skills/a/SKILL.md")  # neither in the output...
    (tmp_path / "back" / "skills/a/SKILL.md").write_bytes(b"changed\n")  # ...nor intact in the back folder
    staging = Staging(tmp_path / "site", published, tmp_path / "back", records)
    assert not staging.keep_all(_keys())
    assert staging.placed == {} and staging.kept == set()


def test_a_file_written_after_it_was_kept_stays_written_and_its_key_stays_known(tmp_path):
    """What the commit stamps anew (written) and what it takes as found (kept) follow the last
    write, whatever order a build places a file in; a later record without a key keeps the key."""
    records = _folder(tmp_path / "back", FILES)
    staging = Staging(tmp_path / "site", None, tmp_path / "back", records)
    rel = "skills/a/index.html"
    assert staging.keep(rel, FILES[rel].decode()) and staging.kept == {rel}
    staging.write(rel, b"<p>new</p>\n", "new-key")
    staging.adopt([(rel, None, False, None)])
    assert staging.kept == set() and staging.written == {rel} and staging.placed == {rel: "new-key"}
    published = staging.commit()
    assert published[rel] == ("new-key", len(b"<p>new</p>\n"), os.lstat(tmp_path / "site" / rel).st_mtime_ns)


def test_a_trusted_back_folder_is_taken_as_recorded_and_its_records_pass_through_the_commit(tmp_path):
    """A rebuild trusts the back folder's records (#47): a skill's files found there under their
    keys are taken at once, and the commit gives each kept file's record as it is, for the next
    build's records: nothing is made again per file kept.  A file of the skill placed before
    (written) stays written, and the others are still taken."""
    records_before = _folder(tmp_path / "back", FILES)
    staging = Staging(tmp_path / "site", None, tmp_path / "back", records_before, trust_back=True)
    assert staging.keep_all(_keys())
    assert staging.kept == set(FILES) and staging.written == set()
    staging.write("skills/a/new.html", b"new\n", "new-key")
    published = staging.commit()
    assert all(published[rel] is records_before[rel] for rel in FILES)
    recorded = records(published)
    assert all(recorded[rel] is records_before[rel] for rel in FILES)
    stamp = os.lstat(tmp_path / "site" / "skills/a/new.html")
    assert recorded["skills/a/new.html"] == ("new-key", stamp.st_size, stamp.st_mtime_ns)
    assert recorded[MARKER][0] == "" and published[MARKER][0] is None
    assert (tmp_path / "site" / "skills/a/SKILL.md").read_bytes() == FILES["skills/a/SKILL.md"]

    back = tmp_path / "back-2"
    again = Staging(tmp_path / "out-2", None, back, _folder(back, FILES), trust_back=True)
    rel = "skills/a/index.html"
    again.write(rel, FILES[rel], FILES[rel].decode())
    assert again.keep_all(_keys())
    assert again.written == {rel} and again.kept == set(FILES) - {rel}


def test_a_mirrored_catalog_is_hard_links_to_its_files_and_replaces_what_was_there(tmp_path):
    _folder(tmp_path / "site", FILES)
    _folder(tmp_path / "back", {"old/page.html": b"an older catalog\n"})
    assert mirror_output(tmp_path / "site", [*FILES, MARKER], tmp_path / "back")
    found = sorted(str(p.relative_to(tmp_path / "back")) for p in (tmp_path / "back").rglob("*") if p.is_file())
    assert found == sorted([*FILES, MARKER])
    for rel in [*FILES, MARKER]:
        assert os.stat(tmp_path / "back" / rel).st_ino == os.stat(tmp_path / "site" / rel).st_ino


def test_a_mirror_that_cannot_be_made_leaves_nothing(tmp_path):
    """A file gone (or a link refused: another file system, a full disk) leaves no half copy that a
    later build could take for the catalog."""
    _folder(tmp_path / "site", FILES)
    assert not mirror_output(tmp_path / "site", [*FILES, "skills/a/gone.md"], tmp_path / "back")
    assert not (tmp_path / "back").exists()


def test_links_in_place_are_taken_at_once_and_the_others_are_left_to_place(tmp_path):
    """A rebuild's links (the v0.1 index's second names of skill files) are taken in bulk where
    the back folder holds them untouched, without a journal line each; a link whose file changed,
    that is missing, or whose name a file placed before holds, is left to :meth:`link_all`."""
    links_files = {".well-known/skills/a/SKILL.md": b"a skill\n", ".well-known/skills/a/notes.md": b"old\n",
                   ".well-known/skills/b/SKILL.md": b"b skill\n"}
    records = _folder(tmp_path / "back", {**FILES, **links_files})
    staging = Staging(tmp_path / "site", None, tmp_path / "back", records)
    staging.write("skills/b/SKILL.md", b"b skill\n", "b skill\n")
    staging.take_journal()
    unchanged = (".well-known/skills/a/SKILL.md", "a skill\n", "skills/a/SKILL.md")
    changed = (".well-known/skills/a/notes.md", "new\n", "skills/a/notes.md")
    missing = (".well-known/skills/c/SKILL.md", "c skill\n", "skills/c/SKILL.md")
    twice = (".well-known/skills/a/SKILL.md", "a skill\n", "skills/a/SKILL.md")
    placed_before = ("skills/b/SKILL.md", "b skill\n", "skills/b/SKILL.md")
    rest = staging.keep_links_here([unchanged, changed, missing, twice, placed_before])
    assert rest == [changed, missing, twice, placed_before]
    assert staging.placed[unchanged[0]] == "a skill\n" and unchanged[0] in staging.kept
    assert staging.take_journal() == [] and staging.written == {"skills/b/SKILL.md"}
    assert changed[0] not in staging.placed and missing[0] not in staging.placed


def test_a_folder_spelt_another_way_is_told_by_device_and_inode(tmp_path: Path) -> None:
    """On a file system that ignores case (macOS, Windows) ``-o Skills --force`` replaced the source
    ``skills``: the checks compared real paths as text, and realpath keeps the case it is given.
    /proc/self/root spells every folder another way here, as such a file system does."""
    from skillsite.publish.staging import _chain_within

    folder = tmp_path / "skills" / "team"
    folder.mkdir(parents=True)
    elsewhere = Path("/proc/self/root") / folder.relative_to("/")
    assert _chain_within(elsewhere, tmp_path / "skills") == [elsewhere, elsewhere.parent]
    assert _chain_within(elsewhere.parent, folder) is None
    assert _chain_within(folder, tmp_path / "skills") == [folder, folder.parent]   # spelt alike: no stat


def test_a_new_file_is_never_written_through_what_an_earlier_catalog_left_at_its_name(tmp_path: Path) -> None:
    """On a file system that ignores case, the back folder's ``Notes.md`` (a hard link to the
    published output's file) is what ``notes.md`` opens: written through, it emptied the live
    catalog's file.  Here the earlier catalog's file sits at the new name itself, unrecorded, and
    the records are trusted (as a rebuild trusts them: the folder is not listed)."""
    records = _folder(tmp_path / "back", FILES)
    published = _folder(tmp_path / "site", FILES)
    live = tmp_path / "site" / "skills/a/notes.md"
    live.write_bytes(b"important notes\n")
    os.link(live, tmp_path / "back" / "skills/a/notes.md")
    staging = Staging(tmp_path / "site", published, tmp_path / "back", records, trust_back=True)
    staging.write("skills/a/notes.md", b"new\n")
    assert live.read_bytes() == b"important notes\n"
    assert (tmp_path / "back" / "skills/a/notes.md").read_bytes() == b"new\n"


def test_a_stale_name_that_now_answers_for_a_new_file_is_not_removed(tmp_path: Path) -> None:
    """The earlier catalog's ``Notes.md`` is stale, but on a file system that ignores case,
    unlinking it removed the new ``notes.md``: a stale name is removed only when spelt so."""
    from skillsite.publish.staging import _spelt_so

    (tmp_path / "notes.md").write_text("new")
    names: dict[Path, set[str]] = {}
    assert _spelt_so(tmp_path / "notes.md", names) and not _spelt_so(tmp_path / "Notes.md", names)
    assert not _spelt_so(tmp_path / "gone" / "x", names) and names[tmp_path] == {"notes.md"}
