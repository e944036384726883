"""cache: JSON values in one sqlite file, keyed by digests, scoped, pruned to what a run used."""
from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from contextlib import closing

import pytest

from skillsite.cache import Cache, Section, digest
from skillsite.publish.resident import Resident


def test_values_come_back_in_the_next_run_and_unused_ones_go(tmp_path):
    path = tmp_path / "cache" / "c.sqlite"
    first = Cache(path, "scope")
    first.put(Section.HTML, "a", "<p>a</p>")
    first.put(Section.HTML, "b", {"nested": [1, 2.5, None, True]})
    first.save()
    second = Cache(path, "scope")
    assert second.get(Section.HTML, "a") == "<p>a</p>" and second.get(Section.HTML, "missing") is None
    assert (second.hits, second.misses) == (1, 1)
    second.save()                                  # "b" was not used this run
    third = Cache(path, "scope")
    assert third.get(Section.HTML, "a") == "<p>a</p>" and third.get(Section.HTML, "b") is None
    assert (tmp_path / "cache" / ".gitignore").read_text() == "*\n"


def test_values_kept_unread_stay_for_the_next_run(tmp_path):
    """``keep_many`` keeps values a run does not need without reading them (nor counting them)."""
    path = tmp_path / "c.sqlite"
    first = Cache(path, "scope")
    for key in "abc":
        first.put(Section.FILE_SHA, key, key.upper())
    first.save()
    second = Cache(path, "scope")
    second.keep_many(Section.FILE_SHA, ["a", "never-stored"])
    assert second._db is None and (second.hits, second.misses) == (0, 0)
    second.save()
    third = Cache(path, "scope")
    assert list(third.get_many(Section.FILE_SHA, "abc")) == ["A", None, None]


def test_a_run_that_stopped_early_keeps_what_it_did_not_use(tmp_path):
    path = tmp_path / "c.sqlite"
    first = Cache(path, "scope")
    first.put(Section.HTML, "a", "A")
    first.put(Section.HTML, "b", "B")
    first.save()
    stopped = Cache(path, "scope")
    stopped.put(Section.SKILLS, "c", "C")
    stopped.save(keep_unused=True)
    after = Cache(path, "scope")
    assert [after.get(Section.HTML, "a"), after.get(Section.HTML, "b"),
            after.get(Section.SKILLS, "c")] == ["A", "B", "C"]


def test_values_are_read_when_asked_for_and_in_each_process_of_their_own(tmp_path):
    """Nothing is read before a lookup (the file may hold a catalog's worth of bodies); a forked
    process opens its own connection and finds the same values."""
    path = tmp_path / "c.sqlite"
    first = Cache(path, "scope")
    first.put(Section.HTML, "a", "A")
    first.save()
    cache = Cache(path, "scope")
    assert cache._db is None
    assert cache.has(Section.HTML, "a") and cache.get(Section.HTML, "a") == "A"
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child answers through the pipe, then ends at once
        os.write(write, repr(cache.get(Section.HTML, "a")).encode())
        os._exit(0)
    os.close(write)
    assert os.read(read, 100) == b"'A'" and os.waitpid(pid, 0)[1] == 0
    os.close(read)


def test_a_file_damaged_during_a_run_is_a_note_not_an_error(tmp_path):
    path = tmp_path / "c.sqlite"
    first = Cache(path, "scope")
    first.put(Section.HTML, "a", "A")
    first.save()
    cache = Cache(path, "scope")
    path.write_bytes(b"not a database" * 1000)
    assert cache.get(Section.HTML, "a") is None and [n.code for n in cache.notes] == ["SK402"]
    cache.put(Section.HTML, "b", "B")
    cache.save()
    assert Cache(path, "scope").get(Section.HTML, "b") == "B"


@pytest.mark.parametrize("stored", ["1", "null", '"edited"', "{not json", b"\x00\x01"])
def test_a_value_that_does_not_match_its_checksum_is_a_note_and_missing(tmp_path, stored):
    """A value changed in the file (by hand, or a flipped bit sqlite does not see) is never given:
    the file is damaged (SK402), its values missing, and the save makes it anew."""
    path = tmp_path / "c.sqlite"
    _saved(path, Section.SKILLS, {"a": {"verdict": [1, 2]}, "b": "B"})
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE entries SET value = ? WHERE key = 'a'", (stored,))
    run = Cache(path, "scope")
    assert list(run.get_many(Section.SKILLS, ["b", "a"])) == [None, None]
    assert [n.code for n in run.notes] == ["SK402"] and "skills a does not match its checksum" in run.notes[0].message
    run.put(Section.SKILLS, "c", 3)
    run.save()
    again = Cache(path, "scope")
    assert [again.get(Section.SKILLS, key) for key in "abc"] == [None, None, 3] and not again.notes


def test_a_cache_in_an_existing_folder_leaves_that_folder_s_gitignore_alone(tmp_path):
    (tmp_path / ".gitignore").write_text("node_modules/\n")
    cache = Cache(tmp_path / "c.sqlite", "scope")
    cache.put(Section.SKILLS, "k", 1)
    cache.save()
    assert (tmp_path / ".gitignore").read_text() == "node_modules/\n"
    assert Cache(tmp_path / "c.sqlite", "scope").get(Section.SKILLS, "k") == 1


def test_another_scope_starts_empty_and_replaces_the_file_s_entries(tmp_path):
    path = tmp_path / "c.sqlite"
    old = Cache(path, "old")
    old.put(Section.SKILLS, "k", 1)
    old.save()
    new = Cache(path, "new")
    assert new.get(Section.SKILLS, "k") is None and not new.notes
    new.put(Section.SKILLS, "other", 2)
    new.save()
    assert Cache(path, "old").get(Section.SKILLS, "k") is None
    assert Cache(path, "new").get(Section.SKILLS, "other") == 2


def test_a_key_is_looked_up_in_an_index_of_keys_not_among_the_values(tmp_path):
    """Each lookup goes down an index holding the keys alone, then reads its one row: a table that
    is its own key's index compares the key with whole rows on the way down (a catalog's copy
    groups are one value of megabytes, read again for every small value stored beside it)."""
    path = tmp_path / "c.sqlite"
    _saved(path, Section.COPIES, {"groups": "x" * 4_000_000})
    with sqlite3.connect(path) as db:
        plan = db.execute("EXPLAIN QUERY PLAN SELECT key, value FROM entries WHERE section = ? AND key IN (?, ?)",
                          ("copy-difference", "a", "b")).fetchall()
        indexes = db.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'entries'").fetchall()
    assert len(indexes) == 1 and [row[-1] for row in plan] == [
        f"SEARCH entries USING INDEX {indexes[0][0]} (section=? AND key=?)"]


def test_an_earlier_version_s_file_is_made_anew_without_a_note(tmp_path):
    """A file of another format of the cache (an older skillsite's) is read as empty, said
    nothing of (a new version never reads an old one's entries: their scope is another), and
    made anew in this format by the save."""
    path = tmp_path / "c.sqlite"
    with sqlite3.connect(path) as db:  # as skillsite-cache 4 made it
        db.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("CREATE TABLE entries (section TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,"
                   " PRIMARY KEY (section, key)) WITHOUT ROWID")
        db.executemany("INSERT INTO meta VALUES (?, ?)", [("format", "skillsite-cache 4"), ("scope", "scope")])
        db.execute("INSERT INTO entries VALUES ('skills', 'old', '1')")
    db.close()
    run = Cache(path, "scope")
    assert run.get(Section.SKILLS, "old") is None and not run.notes
    run.put(Section.SKILLS, "new", 2)
    run.save()
    again = Cache(path, "scope")
    assert again.get(Section.SKILLS, "new") == 2 and again.get(Section.SKILLS, "old") is None and not again.notes
    with sqlite3.connect(path) as db:
        assert "WITHOUT ROWID" not in db.execute("SELECT sql FROM sqlite_master WHERE name = 'entries'").fetchone()[0]
    db.close()


def test_a_note_stays_beside_the_entries_of_its_scope(tmp_path):
    """A note (``validate``'s record of its report) is kept in the saved file through the saves of
    its scope, and goes with the entries when another scope's run saves; a file not saved yet, of
    another scope or damaged holds none."""
    path = tmp_path / "c.sqlite"
    first = Cache(path, "scope")
    first.set_note("report", "kept")                 # no file yet: nothing kept, none made
    assert first.note("report") is None and not path.exists()
    first.save()
    first.set_note("report", "kept")
    assert first.note("report") == "kept" and Cache(path, "other").note("report") is None
    Cache(path, "scope").save()
    assert Cache(path, "scope").note("report") == "kept"
    Cache(path, "scope").set_note("report", None)
    assert Cache(path, "scope").note("report") is None
    first.set_note("report", "kept")
    Cache(path, "other").save()
    assert Cache(path, "other").note("report") is None and Cache(path, "scope").note("report") is None
    path.write_bytes(b"not a database at all")
    assert Cache(path, "scope").note("report") is None


def test_a_cache_without_a_file_keeps_nothing(tmp_path):
    cache = Cache(None, "scope")
    cache.put(Section.SKILLS, "k", 1)
    assert cache.get(Section.SKILLS, "k") == 1      # within the run
    cache.save()
    assert list(tmp_path.iterdir()) == []


def test_an_unwritable_folder_is_an_error_naming_it(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    cache = Cache(blocker / "c.sqlite", "scope")   # its folder is a file
    cache.put(Section.SKILLS, "k", 1)
    with pytest.raises(OSError) as caught:
        cache.save()
    assert caught.value.filename == str(blocker)
    assert blocker.read_text() == "x"


def test_digests_tell_kinds_and_groupings_apart_and_last_across_processes():
    assert digest("a", "b") != digest("ab") != digest(["a", "b"])
    assert digest(1) != digest("1") and digest(None) != digest("null") and digest(True) != digest(1)
    assert digest({"a": 1}) == digest({"a": 1})
    script = "from skillsite.cache import digest; print(digest('x', [1, 2], {'k': (3, 4)}, frozenset({'q', 'p'})))"
    runs = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")}
    assert runs == {digest("x", [1, 2], {"k": (3, 4)}, frozenset({"q", "p"})) + "\n"}


# ---- what a run adds is held in memory only up to SPILL_BYTES


def test_values_past_the_spill_size_wait_in_a_side_file_and_reach_the_cache(tmp_path, monkeypatch):
    monkeypatch.setattr("skillsite.cache.SPILL_BYTES", 100)
    path = tmp_path / "c.sqlite"
    run = Cache(path, "scope")
    for n in range(50):
        run.put(Section.HTML, f"k{n}", f"<p>{n}</p>" * 5)
    assert len(run._added) < 10                               # the rest went to the side file ...
    side = list(tmp_path.glob("c.sqlite.pending-*"))
    assert len(side) == 1 and run.has(Section.HTML, "k0")    # ... where this run still finds them
    assert run.get(Section.HTML, "k3") == "<p>3</p>" * 5
    run.put(Section.HTML, "k3", "replaced")                    # the newest value wins
    assert run.get(Section.HTML, "k3") == "replaced"
    run.save()
    assert not side[0].exists()
    again = Cache(path, "scope")
    assert [again.get(Section.HTML, f"k{n}") for n in (0, 3, 49)] == ["<p>0</p>" * 5, "replaced", "<p>49</p>" * 5]


def test_a_run_without_a_cache_folder_spills_to_a_temporary_file_it_removes(tmp_path, monkeypatch):
    monkeypatch.setattr("skillsite.cache.SPILL_BYTES", 100)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    run = Cache(None, "scope")
    for n in range(20):
        run.put(Section.HTML, f"k{n}", "x" * 40)
    assert run.get(Section.HTML, "k1") == "x" * 40 and len(list(tmp_path.iterdir())) == 1
    run.save()
    assert list(tmp_path.iterdir()) == []


def test_a_killed_runs_side_file_is_removed_by_the_next_run(tmp_path):
    path = tmp_path / "c.sqlite"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    abandoned = tmp_path / f"c.sqlite.pending-{dead.stdout.strip()}-abc"
    abandoned.write_bytes(b"left by a build that was killed")
    mine = tmp_path / f"c.sqlite.pending-{os.getpid()}-abc"   # a run of a live process keeps its own
    mine.write_bytes(b"in use")
    Cache(path, "scope")
    assert not abandoned.exists() and mine.exists()


# ---- many keys looked up at once


def _saved(path, section, values):
    run = Cache(path, "scope")
    for key, value in values.items():
        run.put(section, key, value)
    run.save()


def test_many_keys_come_back_in_order_counted_and_kept_as_one_by_one(tmp_path, monkeypatch):
    monkeypatch.setattr("skillsite.cache.LOOKUP_CHUNK", 2)
    monkeypatch.setattr("skillsite.cache.LOOKUP_WINDOW", 3)
    path = tmp_path / "c.sqlite"
    _saved(path, Section.AUDIT, {f"k{n}": [n] for n in range(8)})
    run = Cache(path, "scope")
    run.put(Section.AUDIT, "new", "added in this run")
    keys = ["k1", None, "missing", "k7", "new", "k1", "k0", "k5"]
    assert list(run.get_many(Section.AUDIT, keys)) == [[1], None, None, [7], "added in this run", [1], [0], [5]]
    assert (run.hits, run.misses) == (6, 1)                    # a key None is neither
    assert list(run.has_many(Section.AUDIT, ["k2", None, "missing", "new"])) == [True, False, False, True]
    assert (run.hits, run.misses) == (8, 2)
    assert list(run.get_many(Section.SKILLS, ["k1"])) == [None]   # another section's keys are not found
    run.save()
    again = Cache(path, "scope")
    assert [again.get(Section.AUDIT, f"k{n}") for n in range(8)] == [[0], [1], [2], None, None, [5], None, [7]]


def test_many_keys_are_asked_of_the_file_a_chunk_at_a_time(tmp_path, monkeypatch):
    monkeypatch.setattr("skillsite.cache.LOOKUP_CHUNK", 4)
    path = tmp_path / "c.sqlite"
    _saved(path, Section.FILE_SHA, {f"k{n}": f"sha{n}" for n in range(10)})
    run = Cache(path, "scope")
    assert run.has(Section.FILE_SHA, "k0")
    queries = []
    run._db.set_trace_callback(queries.append)
    assert list(run.get_many(Section.FILE_SHA, (f"k{n}" for n in range(10)))) == [f"sha{n}" for n in range(10)]
    assert len(queries) == 3


def test_many_keys_find_what_this_run_spilled_to_its_side_file(tmp_path, monkeypatch):
    monkeypatch.setattr("skillsite.cache.SPILL_BYTES", 100)
    run = Cache(tmp_path / "c.sqlite", "scope")
    for n in range(30):
        run.put(Section.HTML, f"k{n}", f"<p>{n}</p>" * 5)
    run.put(Section.HTML, "k0", "replaced")
    assert run._pending.path is not None and list(run.get_many(Section.HTML, ["k0", "k1", "k29", "x"])) == [
        "replaced", "<p>1</p>" * 5, "<p>29</p>" * 5, None]
    assert list(run.has_many(Section.HTML, ["k0", "k1", "x"])) == [True, True, False]


def test_a_run_remembers_only_the_names_it_found_in_the_file(tmp_path, monkeypatch):
    """What a run added is saved whatever it remembers: a cold build of a big catalog holds no
    name of the millions it added, and the save still keeps them and drops what went unused."""
    monkeypatch.setattr("skillsite.cache.SPILL_BYTES", 100)
    path = tmp_path / "c.sqlite"
    _saved(path, Section.SKILLS, {"old": 1, "unused": 2})
    run = Cache(path, "scope")
    for n in range(20):
        run.put(Section.HTML, f"k{n}", f"<p>{n}</p>" * 5)
    assert list(run.get_many(Section.HTML, ["k0", "k19"])) == ["<p>0</p>" * 5, "<p>19</p>" * 5]
    assert run.get(Section.SKILLS, "old") == 1
    assert run._used == {("skills", "old")} and run._pending.path is not None
    run.save()
    again = Cache(path, "scope")
    assert list(again.get_many(Section.HTML, ["k0", "k19"])) == ["<p>0</p>" * 5, "<p>19</p>" * 5]
    assert again.get(Section.SKILLS, "old") == 1 and again.get(Section.SKILLS, "unused") is None


def test_many_keys_in_a_damaged_or_foreign_file_are_missing_with_a_note(tmp_path, monkeypatch):
    monkeypatch.setattr("skillsite.cache.LOOKUP_CHUNK", 2)
    path = tmp_path / "c.sqlite"
    _saved(path, Section.SKILLS, {"a": 1, "b": 2, "c": 3})
    assert list(Cache(path, "other").get_many(Section.SKILLS, ["a", "b", "c"])) == [None, None, None]
    run = Cache(path, "scope")
    path.write_bytes(b"not a database" * 1000)
    assert list(run.get_many(Section.SKILLS, ["a", "b", "c"])) == [None, None, None]
    assert list(run.has_many(Section.SKILLS, ["a"])) == [False]
    assert [n.code for n in run.notes] == ["SK402"] and run.misses == 4
    run.put(Section.SKILLS, "d", 4)
    run.save()
    assert Cache(path, "scope").get(Section.SKILLS, "d") == 4


def test_the_spill_size_counts_the_memory_a_value_takes_not_its_characters(tmp_path, monkeypatch):
    """A string with one character past U+FFFF takes four bytes a character: a rendered body
    with an emoji counts four times its length."""
    monkeypatch.setattr("skillsite.cache.SPILL_BYTES", 1100)
    wide, narrow = Cache(tmp_path / "wide.sqlite", "scope"), Cache(tmp_path / "narrow.sqlite", "scope")
    for n in range(3):
        wide.put(Section.HTML, f"k{n}", "\N{ROCKET}" + "x" * 299)
        narrow.put(Section.HTML, f"k{n}", "y" + "x" * 299)
    assert len(narrow._added) == 3 and narrow._pending.path is None  # about 1050 bytes: all held
    assert len(wide._added) < 3 and wide._pending.path is not None        # about 1250 bytes each: spilled
    assert wide.get(Section.HTML, "k0") == "\N{ROCKET}" + "x" * 299


def test_a_resident_keeps_made_objects_between_runs_without_reading_them_again(tmp_path, monkeypatch):
    """``serve`` keeps what each build made of the cache (#47): the next run takes the same
    object, neither reading its value nor making it again; the file still keeps it."""
    path = tmp_path / "c.sqlite"
    _saved(path, Section.PUBLICATION, {"a": [1, 2], "b": [3]})
    made: list[list[int]] = []

    def make(value):
        made.append(value)
        return tuple(value)

    resident = Resident()
    first = Cache(path, "scope", resident)
    objects = list(first.made_many(Section.PUBLICATION, ["a", None, "b", "gone"], make))
    assert objects == [(1, 2), None, (3,), None] and made == [[1, 2], [3]]
    assert first.has_many(Section.PUBLICATION, ["a"]) and next(first.has_many(Section.HTML, ["a"])) is False
    first.save()
    asked: list[list[str]] = []
    real_stored = Cache._stored
    monkeypatch.setattr(Cache, "_stored", lambda self, section, keys, values: asked.append(keys)
                        or real_stored(self, section, keys, values))
    second = Cache(path, "scope", resident)
    again = list(second.made_many(Section.PUBLICATION, ["b", "a"], make))
    assert again == [(3,), (1, 2)] and again[1] is objects[0] and len(made) == 2
    assert list(second.has_many(Section.PUBLICATION, ["a", "c"])) == [True, False]
    assert [keys for keys in asked if keys] == [["c"]] and (second.hits, second.misses) == (3, 1)
    second.save()
    assert Cache(path, "scope").get(Section.PUBLICATION, "a") == [1, 2]  # kept in the file: it was used


def test_a_resident_drops_what_a_run_did_not_use_and_everything_of_another_scope(tmp_path):
    path = tmp_path / "c.sqlite"
    _saved(path, Section.SKILLS, {"a": "A", "b": "B"})
    resident = Resident()
    first = Cache(path, "scope", resident)
    assert list(first.made_many(Section.SKILLS, ["a", "b"], str.lower)) == ["a", "b"]
    first.save(keep_unused=True)
    second = Cache(path, "scope", resident)
    assert list(second.made_many(Section.SKILLS, ["a"], str.lower)) == ["a"]  # "b" not used
    second.save(keep_unused=True)
    third = Cache(path, "scope", resident)
    assert resident.take(Section.SKILLS.value, "b") is None and resident.take(Section.SKILLS.value, "a") == "a"
    third.save(keep_unused=True)
    other = Cache(path, "another scope", resident)
    assert resident.take(Section.SKILLS.value, "a") is None
    assert list(other.made_many(Section.SKILLS, ["a"], str.lower)) == [None]  # the file is of the first scope


def test_a_resident_s_save_drops_the_unused_of_the_names_its_last_save_left_while_the_file_holds_that_save(
        tmp_path):
    """``serve``'s saves (#47) do not list the file: the names it held after the last save are
    kept, and the next save drops those not used this run.  An entry written behind that save's
    back stays (trusted, as the stamps of the output are); once another run saved the file, the
    next save lists it again."""
    path = tmp_path / "c.sqlite"
    _saved(path, Section.SKILLS, {"a": "A", "b": "B"})
    resident = Resident()
    first = Cache(path, "scope", resident)
    assert list(first.made_many(Section.SKILLS, ["a", "b"], str.lower)) == ["a", "b"]
    first.put(Section.HTML, "c", "C")
    first.save()
    assert resident.saved_names.names == {("skills", "a"), ("skills", "b"), ("html", "c")}
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("INSERT INTO entries VALUES ('skills', 'stray', '\"S\"', 0)")
    second = Cache(path, "scope", resident)
    assert list(second.made_many(Section.SKILLS, ["a"], str.lower)) == ["a"]  # "b" and "c" not used
    second.save()
    assert _names(path) == {("skills", "a"), ("skills", "stray")}
    Cache(path, "scope").save(keep_unused=True)  # another run saved: the names kept are not the file's
    third = Cache(path, "scope", resident)
    assert list(third.made_many(Section.SKILLS, ["a"], str.lower)) == ["a"]
    third.save()
    assert _names(path) == {("skills", "a")}
    Cache(path, "another scope", resident).save()
    assert _names(path) == set() and resident.saved_names.names == set()


def _names(path):
    with closing(sqlite3.connect(path)) as db:
        return set(db.execute("SELECT section, key FROM entries"))


def test_a_resident_lets_go_of_what_a_build_did_not_take_again_when_the_build_ends():
    """Between builds, ``serve`` holds only what the last build took or made: the objects of the
    builds before that it did not take again are let go when it ends, not kept (beside it, for
    the garbage collector to walk) until the next build starts."""
    import weakref

    class Made:
        """An object made of a cached value."""

    resident, old, new = Resident(), Made(), Made()
    with resident.building():
        resident.begin("scope")
        resident.keep("section", "old", old)
    with resident.building():
        resident.begin("scope")
        resident.keep("section", "new", new)
    gone, kept = weakref.ref(old), weakref.ref(new)
    del old, new
    assert gone() is None and kept() is not None
    resident.begin("scope")
    assert resident.take("section", "new") is kept() and resident.take("section", "old") is None


def test_a_relative_xdg_cache_home_is_ignored_as_the_xdg_spec_says(tmp_path, monkeypatch):
    """A relative $XDG_CACHE_HOME would put the user cache wherever the command runs: ignored, as unset."""
    from skillsite.paths import user_cache_root

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for relative in ("cache", "./cache", "../cache"):
        monkeypatch.setenv("XDG_CACHE_HOME", relative)
        assert user_cache_root() == tmp_path / "home" / ".cache" / "skillsite"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert user_cache_root() == tmp_path / "xdg" / "skillsite"


def test_a_string_put_in_this_run_comes_back_as_it_is_not_through_json(tmp_path, monkeypatch):
    """A rendered body the pages read back is the string put, not made JSON and read again: a
    cold build puts and reads every body once; the save makes it JSON, once."""
    cache = Cache(tmp_path / "cache.sqlite", "scope")
    body = "<p>\N{ROCKET} body</p>"
    cache.put(Section.HTML, "body", body)
    cache.put(Section.AUDIT, "findings", [{"code": "X1"}])

    def no_json(text):
        raise AssertionError(f"decoded {text!r}")
    monkeypatch.setattr("skillsite.cache.json.loads", no_json)
    assert cache.get(Section.HTML, "body") is body
    assert list(cache.made_many(Section.HTML, ["body", None, "other"], str.upper)) == [body.upper(), None, None]
    monkeypatch.undo()
    assert cache.get(Section.AUDIT, "findings") == [{"code": "X1"}]
    cache.save()
    assert Cache(tmp_path / "cache.sqlite", "scope").get(Section.HTML, "body") == body
