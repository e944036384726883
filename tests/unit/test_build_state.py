"""The build state file: what a build leaves for the next one, saved whole or as the rows that
changed, and never trusted when it is damaged, foreign, or of another scope or output."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from skillsite.diagnostics import make
from skillsite.publish import state as state_module
from skillsite.publish.state import OLD_STATE_FILE, STATE_FILE, BuildState, load_state, save_state

OUT = Path("/srv/site")


def _state(outputs: dict[str, tuple[str, int, int]], back: dict[str, tuple[str, int, int]],
           scope: str = "scope") -> BuildState:
    return BuildState(scope, str(OUT), "inputs", outputs, back, ("a", "b"), ("c",),
                      (make("SK301", "body is long", "/src/a/SKILL.md", 10, 1),), 1234, ({"agent": "x", "fits": True},))


def _records(count: int, salt: str = "") -> dict[str, tuple[str, int, int]]:
    return {f"skills/s-{n}/index.html": (f"{salt}{n:064d}"[-64:], n, 10 ** 18 + n) for n in range(count)}


def _next(loaded: BuildState, changed: dict[str, tuple[str, int, int]], removed: tuple[str, ...] = ()) -> BuildState:
    """The state of the build after ``loaded``: its output becomes the back folder."""
    outputs = {rel: rec for rel, rec in {**loaded.outputs, **changed}.items() if rel not in removed}
    return _state(outputs, loaded.outputs)


def test_a_state_comes_back_as_saved_with_its_back_folder_s_differences(tmp_path):
    outputs = _records(50)
    back = {**_records(40), "skills/s-3/index.html": ("f" * 64, 3, 7), "gone.html": ("e" * 64, 1, 2)}
    saved = _state(outputs, back)
    save_state(tmp_path, saved)
    loaded = load_state(tmp_path, "scope", OUT)
    assert loaded == saved and loaded.outputs == outputs and loaded.back == back and loaded.generation


def test_the_state_a_process_saved_is_taken_while_the_file_holds_it(tmp_path):
    """``serve`` keeps the state its last build saved (#47): the next build takes it instead of
    reading the rows, unless another build saved since, or the scope or output differ."""
    saved = save_state(tmp_path, _state(_records(30), _records(5, "x")))
    loaded = load_state(tmp_path, "scope", OUT)
    assert saved == loaded and saved.generation == loaded.generation and saved.back == loaded.back
    assert load_state(tmp_path, "scope", OUT, saved) is saved
    assert load_state(tmp_path, "other", OUT, saved) is None
    assert load_state(tmp_path, "scope", Path("/srv/other"), saved) is None
    elsewhere = save_state(tmp_path, _state(_records(3), {}))  # another build saves meanwhile
    read = load_state(tmp_path, "scope", OUT, saved)
    assert read is not saved and read == elsewhere and read.generation == elsewhere.generation


def test_the_summary_is_the_state_but_its_records_and_reads_none_of_them(tmp_path):
    """What the check for a rebuild with nothing changed reads: the state's summary and
    diagnostics, never the records of the output's files (over a million at 100,000 skills)."""
    from skillsite.publish.state import load_summary

    saved = save_state(tmp_path, _state(_records(30), _records(5, "x")))
    assert load_summary(tmp_path, "scope", OUT) == saved.summary() == load_state(tmp_path, "scope", OUT).summary()
    assert load_summary(tmp_path, "scope", OUT, saved) == saved.summary()
    assert load_summary(tmp_path, "other", OUT) is None and load_summary(tmp_path, "scope", Path("/srv/x")) is None
    with sqlite3.connect(tmp_path / STATE_FILE) as db:
        db.execute("DROP TABLE outputs")  # a summary never looks at them; the whole state does
    assert load_summary(tmp_path, "scope", OUT) == saved.summary() and load_state(tmp_path, "scope", OUT) is None


def test_a_save_after_a_load_writes_the_rows_that_changed_and_gives_the_same_state(tmp_path, monkeypatch):
    save_state(tmp_path, _state(_records(30), {}))
    first = load_state(tmp_path, "scope", OUT)
    second = _next(first, {"skills/s-1/index.html": ("a" * 64, 9, 9), "new.html": ("b" * 64, 1, 1)},
                   removed=("skills/s-2/index.html",))
    written_whole = []
    monkeypatch.setattr(state_module, "_write_all", lambda *args: written_whole.append(args))
    save_state(tmp_path, second, first)
    assert written_whole == []
    loaded = load_state(tmp_path, "scope", OUT)
    assert loaded == second and loaded.back == first.outputs and loaded.generation != first.generation
    with sqlite3.connect(tmp_path / STATE_FILE) as db:  # the back folder: only where it differs
        assert sorted(db.execute("SELECT rel, key FROM back")) == [
            ("new.html", None), ("skills/s-1/index.html", "0" * 63 + "1"), ("skills/s-2/index.html", "0" * 63 + "2")]


def test_an_incremental_save_keeps_the_diagnostics_or_writes_the_new_ones(tmp_path):
    save_state(tmp_path, _state(_records(5), {}))
    first = load_state(tmp_path, "scope", OUT)
    same = _next(first, {})
    save_state(tmp_path, same, first)
    loaded = load_state(tmp_path, "scope", OUT)
    assert loaded.diagnostics == first.diagnostics
    other = replace(_next(loaded, {}), diagnostics=(make("SK302", "long body", "/src/b/SKILL.md", 3, 1),))
    save_state(tmp_path, other, loaded)
    assert load_state(tmp_path, "scope", OUT).diagnostics == other.diagnostics


def test_the_diagnostics_a_state_holds_are_made_only_for_a_rebuild_with_nothing_to_do(tmp_path, monkeypatch):
    """A rebuild with work to do loads the summary and the state and saves the next state
    without making a single diagnostic of the last build's (tens of thousands at 10,000 skills,
    which the collector would walk to the end of the build); the summary gives them when asked."""
    from skillsite.diagnostics import Diagnostic
    from skillsite.publish.state import load_summary

    many = tuple(make("SK303", f"link {n} points nowhere", f"/src/s-{n}/SKILL.md", n + 1, 3) for n in range(50))
    save_state(tmp_path, replace(_state(_records(5), {}), diagnostics=many))
    made = []
    real = Diagnostic.from_json.__func__
    monkeypatch.setattr(Diagnostic, "from_json", classmethod(lambda cls, data: made.append(1) or real(cls, data)))
    summary = load_summary(tmp_path, "scope", OUT)
    first = load_state(tmp_path, "scope", OUT)
    save_state(tmp_path, replace(_next(first, {"new.html": ("b" * 64, 1, 1)}), diagnostics=many), first)
    assert made == []
    assert load_state(tmp_path, "scope", OUT).diagnostics == many and tuple(summary.diagnostics) == many
    assert len(made) == 2 * len(many)


def test_a_process_that_saved_a_state_saves_the_next_one_without_writing_its_diagnostics_again(tmp_path,
                                                                                                 monkeypatch):
    """``serve`` keeps the state it saved: the next save compares that state's diagnostics as
    the file holds them, not as made again from its objects."""
    from skillsite.diagnostics import Diagnostic

    first = save_state(tmp_path, _state(_records(5), {}))
    assert first.diagnostics == _state({}, {}).diagnostics
    written = []
    real = Diagnostic.to_json
    monkeypatch.setattr(Diagnostic, "to_json", lambda self: written.append(1) or real(self))
    second = save_state(tmp_path, replace(_next(first, {"new.html": ("b" * 64, 1, 1)}), diagnostics=first.diagnostics),
                        first)
    assert written == [] and load_state(tmp_path, "scope", OUT) == second


def test_a_process_that_saved_a_state_takes_its_text_for_the_same_diagnostics_made_again(tmp_path, monkeypatch):
    """``serve``'s next build makes its diagnostics again, equal to the last ones as a rule: the
    save takes the text of the state it saved last instead of encoding them all again, and the
    file holds what encoding them would give.  When some differ (an edit changed a skill's),
    only those are encoded: the others are the objects the last save encoded, their texts kept."""
    from skillsite.diagnostics import Diagnostic

    many = tuple(make("SK303", f"link {n} points nowhere", f"/src/s-{n}/SKILL.md", n + 1, 3) for n in range(50))
    first = save_state(tmp_path, replace(_state(_records(5), {}), diagnostics=many))
    again = tuple(replace(d) for d in many)  # equal, not the same objects
    written = []
    real = Diagnostic.to_json
    monkeypatch.setattr(Diagnostic, "to_json", lambda self: written.append(1) or real(self))
    second = save_state(tmp_path, replace(_next(first, {"new.html": ("b" * 64, 1, 1)}), diagnostics=again), first)
    assert written == []
    assert second.diagnostics.text == first.diagnostics.text == json.dumps([real(d) for d in again])
    assert load_state(tmp_path, "scope", OUT) == second
    changed = (make("SK301", "body is 600 lines", "/src/s-0/SKILL.md", 10, 1), *again[1:])
    save_state(tmp_path, replace(_next(second, {}), diagnostics=changed), second)
    assert len(written) == 1  # the new one alone: the others are the very objects the last save encoded
    loaded = load_state(tmp_path, "scope", OUT).diagnostics
    assert loaded == changed and loaded.text == json.dumps([real(d) for d in changed])


def test_diagnostics_the_state_file_holds_damaged_mean_the_skills_are_read_again(tmp_path):
    """Nothing changed, but the last build's diagnostics cannot be read: the rebuild does not
    report them (nor fail), it reads the skills again."""
    from skillsite.publish.state import load_summary

    save_state(tmp_path, _state(_records(5), {}))
    for damaged in ("not json", '{"a": 1}', "[1, 2]", '[{"path": "x"}]'):
        with sqlite3.connect(tmp_path / STATE_FILE) as db:
            db.execute("UPDATE meta SET value = ? WHERE name = 'diagnostics'", (damaged,))
        summary = load_summary(tmp_path, "scope", OUT)
        assert summary is not None and summary.inputs == "inputs"
        assert summary.unchanged("inputs", OUT) is False


@pytest.mark.parametrize("key, value", [("output_marker", []), ("output_marker", [1, 2]), ("output_marker", "x"),
                                        ("back_marker", [1, 2, "3"]), ("recent", [1, 2]), ("published", [None])])
def test_a_summary_of_values_no_build_writes_is_no_state(tmp_path, key, value):
    """A hand-edited or damaged summary whose markers or lists are not what a build writes was an
    IndexError or TypeError traceback in the next build; the state is not used (as damage)."""
    from skillsite.publish.state import load_summary

    save_state(tmp_path, _state(_records(5), {}))
    with sqlite3.connect(tmp_path / STATE_FILE) as db:
        summary = json.loads(db.execute("SELECT value FROM meta WHERE name = 'summary'").fetchone()[0])
        db.execute("UPDATE meta SET value = ? WHERE name = 'summary'", (json.dumps({**summary, key: value}),))
    assert load_state(tmp_path, "scope", OUT) is None
    assert (load_summary(tmp_path, "scope", OUT) is None) is (key != "back_marker")  # the summary has no back folder


def test_an_incremental_save_records_any_back_folder(tmp_path):
    """The back folder is as a rule the loaded state's output; when it is not, its rows are still right."""
    save_state(tmp_path, _state(_records(30), _records(10)))
    first = load_state(tmp_path, "scope", OUT)
    back = {**_records(35, "z"), "skills/s-1/index.html": first.outputs["skills/s-1/index.html"]}
    second = _state({**first.outputs, "skills/s-4/index.html": ("a" * 64, 1, 1)}, back)
    save_state(tmp_path, second, first)
    assert load_state(tmp_path, "scope", OUT) == second


def test_a_file_saved_by_another_build_since_the_load_is_written_whole(tmp_path):
    """Two outputs share a cache folder: the rows are those of the state saved, not a mix."""
    save_state(tmp_path, _state(_records(20), {}))
    loaded = load_state(tmp_path, "scope", OUT)
    save_state(tmp_path, _state(_records(25, "x"), _records(5, "y")))  # another build saves meanwhile
    mine = _next(loaded, {"skills/s-0/index.html": ("c" * 64, 1, 1)})
    save_state(tmp_path, mine, loaded)
    assert load_state(tmp_path, "scope", OUT) == mine


@pytest.mark.parametrize("other", ["scope", "output", "format"])
def test_a_state_of_another_scope_output_or_format_is_no_state(tmp_path, other):
    save_state(tmp_path, _state(_records(3), {}))
    if other == "format":
        with sqlite3.connect(tmp_path / STATE_FILE) as db:
            db.execute("UPDATE meta SET value = 'skillsite-build-state 1' WHERE name = 'format'")
    scope, out = ("other", OUT) if other == "scope" else ("scope", Path("/srv/other")) if other == "output" \
        else ("scope", OUT)
    assert load_state(tmp_path, scope, out) is None


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty", "foreign", "folder"])
def test_a_damaged_or_foreign_file_is_no_state_and_the_next_save_replaces_it(tmp_path, damage):
    saved = _state(_records(300), _records(10))
    save_state(tmp_path, saved)
    previous = load_state(tmp_path, "scope", OUT)
    path = tmp_path / STATE_FILE
    if damage == "garbage":
        path.write_bytes(b"not a database" * 1000)
    elif damage == "truncated":
        path.write_bytes(path.read_bytes()[:5000])
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "foreign":
        path.unlink()
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE meta (name TEXT, other TEXT)")
            db.execute("CREATE TABLE outputs (x INTEGER)")
    else:
        path.unlink()
        path.mkdir()
    assert load_state(tmp_path, "scope", OUT) is None
    if damage == "folder":
        path.rmdir()
    mine = _next(saved, {"skills/s-1/index.html": ("a" * 64, 9, 9)})
    save_state(tmp_path, mine, previous)
    assert load_state(tmp_path, "scope", OUT) == mine


def test_a_save_removes_the_json_state_file_of_earlier_versions(tmp_path):
    (tmp_path / OLD_STATE_FILE).write_text(json.dumps({"format": "skillsite-build-state 7"}))
    save_state(tmp_path, _state(_records(2), {}))
    assert not (tmp_path / OLD_STATE_FILE).exists()


def test_a_save_killed_before_it_commits_leaves_the_previous_state(tmp_path, monkeypatch):
    """Killed inside its transaction (rows written, some of them already in the file: the
    transaction is larger than sqlite's page cache), a save leaves the state it replaced."""
    save_state(tmp_path, _state(_records(20_000), {}))
    first = load_state(tmp_path, "scope", OUT)
    second = _next(first, {rel: ("d" * 64, 1, 1) for rel in list(first.outputs)[::2]})
    real = state_module._write_changes

    def killed(*args):
        real(*args)
        os.kill(os.getpid(), signal.SIGKILL)

    pid = os.fork()
    if pid == 0:
        monkeypatch.setattr(state_module, "_write_changes", killed)
        save_state(tmp_path, second, first)
        os._exit(0)
    assert os.waitpid(pid, 0)[1] == signal.SIGKILL
    assert (tmp_path / f"{STATE_FILE}-journal").exists()
    assert load_state(tmp_path, "scope", OUT) == first
    save_state(tmp_path, second, first)
    assert load_state(tmp_path, "scope", OUT) == second


def test_an_output_is_as_recorded_when_it_holds_exactly_the_files_recorded_with_their_stamps(tmp_path):
    """What ``--verify-output`` checks (no build records a digest of its whole output for it any
    more): every file's size and time, no file missing, none added, nothing but regular files."""
    from skillsite.publish.state import output_as_recorded

    out = tmp_path / "site"
    (out / "skills" / "a").mkdir(parents=True)
    (out / "index.html").write_text("home")
    (out / "skills" / "a" / "odd name\n 1 2").write_text("x" * 10)

    def records() -> dict[str, tuple[str, int, int]]:
        return {rel: ("k" * 64, path.stat().st_size, path.stat().st_mtime_ns)
                for rel, path in (("index.html", out / "index.html"),
                                  ("skills/a/odd name\n 1 2", out / "skills" / "a" / "odd name\n 1 2"))}

    recorded = records()
    assert output_as_recorded(out, recorded)
    assert not output_as_recorded(tmp_path / "missing", recorded)
    (out / "extra.html").write_text("added")
    assert not output_as_recorded(out, recorded)
    (out / "extra.html").unlink()
    os.utime(out / "index.html", ns=(1, 1))
    assert not output_as_recorded(out, recorded) and output_as_recorded(out, records())
    (out / "index.html").write_text("home page")  # another size
    assert not output_as_recorded(out, records() | {"index.html": recorded["index.html"]})
    (out / "skills" / "a" / "odd name\n 1 2").unlink()
    (out / "skills" / "a" / "odd name\n 1 2").symlink_to(out / "index.html")  # not a regular file
    assert not output_as_recorded(out, recorded | {"index.html": records()["index.html"]})


def test_the_inputs_are_the_same_on_any_number_of_processes(tmp_path):
    """Every skill folder's audit listing is made on the build's processes: the inputs (their
    digest, and each settled listing) do not depend on how many."""
    from support import write_skill
    from skillsite.publish.state import read_inputs
    from skillsite.source.discover import discover

    for n in range(40):  # past the workers' threshold
        write_skill(tmp_path, f"s-{n:02d}", body=f"# Skill {n}\n")
        (tmp_path / f"s-{n:02d}" / "node_modules").mkdir()  # read by the audit, left out by discovery
        (tmp_path / f"s-{n:02d}" / "node_modules" / "x.js").write_text(f"// {n}\n")
    found = discover([tmp_path])
    since = 2 ** 62  # every stamp settled
    serial, parallel = (read_inputs(found, {}, [], since, jobs=jobs) for jobs in (1, 2))
    assert serial == parallel and serial.digest and len(serial.audit_listings) == 40
    os.utime(tmp_path / "s-07" / "node_modules" / "x.js", ns=(1, 1))
    assert read_inputs(found, {}, [], since, jobs=2).digest != serial.digest
