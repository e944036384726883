"""What the build state records of the report file a build wrote, and when a build trusts it:
the file's stamp, else (a stamp too recent) the sha256 of its bytes; the digest of the code and
of every field of every diagnostic, in order."""
from __future__ import annotations

import dataclasses
import hashlib
import os
import sqlite3
import time
from pathlib import Path

import pytest

from skillsite.cache import RACY_NS
from skillsite.cli.report import InBuildState, report_bytes, report_key, write_report
from skillsite.diagnostics import Diagnostic, Severity
from skillsite.publish.state import (STATE_FILE, BuildState, ReportRecord, file_stamp, record_report, recorded_report,
                                     save_state)

DIAGS = [Diagnostic("a/SKILL.md", 3, 1, "SK207", Severity.WARNING, "unknown key 'author'"),
         Diagnostic("b/SKILL.md", 0, 0, "SK101", Severity.ERROR, "no description")]


def record_of(path: Path, since: int, data: bytes | None = None, key: str = "k") -> ReportRecord:
    """A record of the file at ``path`` as it is now (its bytes' sha256: of ``data`` when given)."""
    data = path.read_bytes() if data is None else data
    return ReportRecord(os.path.abspath(path), key, hashlib.sha256(data).hexdigest(), file_stamp(os.lstat(path)),
                        since)


@pytest.fixture
def report(tmp_path: Path) -> Path:
    path = tmp_path / "report.json"
    path.write_bytes(b'{"diagnostics": []}\n')
    return path


def test_a_racy_stamp_is_checked_by_the_bytes(report: Path) -> None:
    """A record made right after the file was written (as every build's is) trusts only its bytes."""
    now = time.time_ns()
    assert record_of(report, now).holds(report, "k")
    assert not record_of(report, now, b"other bytes").holds(report, "k")


def test_a_settled_stamp_is_trusted_without_reading(report: Path) -> None:
    """Recorded well after the file last changed: the stamp is enough (the bytes are not read,
    as a record of other bytes shows)."""
    later = time.time_ns() + RACY_NS + 1_000_000_000
    assert record_of(report, later, b"other bytes").holds(report, "k")


@pytest.mark.parametrize("change", ["key", "path", "stamp", "link", "gone"])
def test_a_record_holds_only_for_its_key_path_and_file(report: Path, change: str) -> None:
    record = record_of(report, time.time_ns() + RACY_NS + 1_000_000_000)
    where = report
    if change == "path":
        where = report.with_name("other.json")
        os.link(report, where)  # the same file, by another name: another report
    elif change == "stamp":
        os.utime(report, ns=(0, 0))
    elif change == "link":
        moved = report.with_name("moved.json")
        os.replace(report, moved)
        os.symlink(moved, report)
    elif change == "gone":
        report.unlink()
    assert not record.holds(where, "other key" if change == "key" else "k")


def test_a_racy_record_settles_once_its_file_is_old_enough(report: Path) -> None:
    written = record_of(report, time.time_ns())
    assert written.racy and written.settled(time.time_ns()) is None
    later = time.time_ns() + RACY_NS + 1_000_000_000
    assert written.settled(later) == dataclasses.replace(written, since=later)
    assert written.settled(later).settled(later + 1) is None  # settled already: nothing to record


@pytest.mark.parametrize("field, value", [("path", "c/SKILL.md"), ("line", 4), ("col", 2), ("code", "SK208"),
                                          ("severity", Severity.INFO), ("message", "unknown key 'authors'")])
def test_every_field_of_every_diagnostic_is_in_the_key(field: str, value) -> None:
    changed = [dataclasses.replace(DIAGS[0], **{field: value}), DIAGS[1]]
    assert report_key(changed) != report_key(DIAGS) and report_bytes(changed) != report_bytes(DIAGS)


def test_the_order_of_the_diagnostics_is_in_the_key() -> None:
    assert report_key(DIAGS[::-1]) != report_key(DIAGS) and report_key(DIAGS) == report_key(list(DIAGS))


def state_folder(tmp_path: Path) -> Path:
    """A folder holding a build state file (of nothing published)."""
    folder = tmp_path / "cache"
    save_state(folder, BuildState("scope", str(tmp_path / "out"), "inputs", {}, {}, (), (), (), 0))
    return folder


def test_write_report_writes_records_and_then_keeps_the_file(tmp_path: Path) -> None:
    folder = state_folder(tmp_path)
    report = tmp_path / "report.json"
    write_report(DIAGS, report, InBuildState(folder))
    assert report.read_bytes() == report_bytes(DIAGS)
    record = recorded_report(folder)
    assert record == ReportRecord(str(report), report_key(DIAGS), hashlib.sha256(report_bytes(DIAGS)).hexdigest(),
                                  file_stamp(os.lstat(report)), record.since) and record.racy
    written = os.lstat(report)
    write_report(DIAGS, report, InBuildState(folder))
    assert file_stamp(os.lstat(report)) == file_stamp(written)
    write_report(DIAGS[:1], report, InBuildState(folder))  # other diagnostics: written, and recorded
    assert report.read_bytes() == report_bytes(DIAGS[:1]) and recorded_report(folder).key == report_key(DIAGS[:1])


def test_no_state_file_no_record(tmp_path: Path) -> None:
    """Without a state file (no build saved one) the report is written every time, and no file is made."""
    folder = tmp_path / "cache"
    folder.mkdir()
    report = tmp_path / "report.json"
    write_report(DIAGS, report, InBuildState(folder))
    assert report.read_bytes() == report_bytes(DIAGS) and sorted(os.listdir(folder)) == []
    assert recorded_report(folder) is None


@pytest.mark.parametrize("value", ["{", '{"path": "x"}', '{"path": "x", "key": "k", "sha256": "s", "stamp": [1, 2], '
                                   '"since": 0}', "[]",
                                   '{"path": "x", "key": "k", "sha256": "s", "stamp": [1, 2, 3, 4, 5], "since": 1e400}',
                                   '{"path": "x", "key": "k", "sha256": "s", "stamp": [Infinity, 2, 3, 4, 5], '
                                   '"since": 0}'])
def test_a_damaged_record_is_no_record(tmp_path: Path, value: str) -> None:
    folder = state_folder(tmp_path)
    with sqlite3.connect(folder / STATE_FILE) as db:
        db.execute("INSERT OR REPLACE INTO meta VALUES ('report', ?)", (value,))
    assert recorded_report(folder) is None
    report = tmp_path / "report.json"
    write_report(DIAGS, report, InBuildState(folder))
    assert report.read_bytes() == report_bytes(DIAGS) and recorded_report(folder) is not None


def test_a_record_is_removed_when_none_is_known(tmp_path: Path, report: Path) -> None:
    folder = state_folder(tmp_path)
    record_report(folder, record_of(report, 0))
    assert recorded_report(folder) == record_of(report, 0)
    record_report(folder, None)
    assert recorded_report(folder) is None


@pytest.mark.parametrize("since", ["1e400", "Infinity", "-Infinity"])
def test_a_record_of_an_infinite_number_is_no_record_in_validate_s_cache_either(tmp_path: Path, since: str) -> None:
    """json reads ``1e400`` and ``Infinity`` as infinite floats, which no int holds (OverflowError,
    not the ValueError a damaged record is): such a record is none, in a build state or a verdict
    cache, and the report is written."""
    from skillsite.cache import Cache
    from skillsite.cli.checking import InVerdictCache

    text = f'{{"path": "x", "key": "k", "sha256": "s", "stamp": [1, 2, 3, 4, 5], "since": {since}}}'
    with pytest.raises(ValueError):
        ReportRecord.from_json(text)
    cache = Cache(tmp_path / "verdicts.sqlite", "scope")
    cache.save()
    cache.set_note("report", text)
    report = tmp_path / "report.json"
    write_report(DIAGS, report, InVerdictCache(cache))
    assert report.read_bytes() == report_bytes(DIAGS)
    assert InVerdictCache(cache).recorded() == ReportRecord.from_json(cache.note("report"))
