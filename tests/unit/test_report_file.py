"""The ``--report`` file of ``validate`` and ``build``: a long list of diagnostics written whole,
and a write that fails midway (a full disk) leaves the previous report as it was."""
from __future__ import annotations

import builtins
import errno
import io
import json
from pathlib import Path

import pytest

from skillsite.cli.output import emit_diagnostics
from skillsite.diagnostics import MAX_LISTED, Diagnostic, Severity


LAST_REPORT = '{"diagnostics": [], "summary": {"errors": 0}}\n'


def many_diagnostics() -> list[Diagnostic]:
    """More diagnostics than a terminal lists, so they go to the report."""
    return [Diagnostic(f"s{n:03d}/SKILL.md", 4, 1, "SK207", Severity.WARNING, "unknown key 'author'")
            for n in range(MAX_LISTED + 1)]


@pytest.fixture
def last_report(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A report of an earlier run; from then on, every file opened for writing under tmp_path
    takes half of its first write before the disk is full (hooked where ``open`` and
    ``Path.write_text`` reach it: ``builtins.open`` and ``io.open``)."""
    report = tmp_path / "report.json"
    report.write_text(LAST_REPORT)
    real_open = io.open

    def half_then_full(file, mode="r", *args, **kwargs):
        handle = real_open(file, mode, *args, **kwargs)
        if str(file).startswith(str(tmp_path)) and set(mode) & set("wxa"):
            real_write = handle.write

            def write(text: str) -> int:
                real_write(text[: len(text) // 2])
                handle.flush()
                raise OSError(errno.ENOSPC, "No space left on device")

            handle.write = write
        return handle

    monkeypatch.setattr(builtins, "open", half_then_full)
    monkeypatch.setattr(io, "open", half_then_full)
    return report


def test_the_report_holds_every_diagnostic(tmp_path: Path) -> None:
    out = io.StringIO()
    emit_diagnostics(many_diagnostics(), "text", out, report=tmp_path / "reports" / "r.json", everything=False)
    assert f"all of them are in {tmp_path / 'reports' / 'r.json'}" in out.getvalue().splitlines()[0]
    assert len(json.loads((tmp_path / "reports" / "r.json").read_text())["diagnostics"]) == MAX_LISTED + 1


def test_a_report_that_fails_midway_leaves_the_last_one_whole(tmp_path: Path, last_report: Path) -> None:
    out = io.StringIO()
    emit_diagnostics(many_diagnostics(), "text", out, report=last_report, everything=False)
    assert last_report.read_text() == LAST_REPORT
    first = out.getvalue().splitlines()[0]
    assert f"no report file ({last_report}: No space left on device (ENOSPC))" in first, first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]  # no partial file beside it
