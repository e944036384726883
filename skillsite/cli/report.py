"""The report file of a long list of diagnostics (``--report``), left as it is when it holds
already what would be written (issue #47).

Indented JSON is encoded in pure Python (``indent`` turns off json's C encoder): on a large tree
the report took most of a rebuild with nothing changed.  The command keeps a record of the report
it wrote (:class:`~skillsite.publish.state.ReportRecord`: where, a digest of the code and of every
diagnostic, the sha256 of its bytes and the file's stamp): ``build`` in its build state,
``validate`` in its verdict cache (:class:`ReportRecords`: :class:`InBuildState`,
:class:`skillsite.cli.checking.InVerdictCache`).  A later run with the same digest
leaves a file of that stamp untouched, and writes any other.  The report's bytes are the same
either way.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import operator
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, Sequence

from skillsite.cache import code_scope
from skillsite.diagnostics import Diagnostic, count_by_severity, format_json_report
from skillsite.folders import write_bytes_atomically
from skillsite.publish.state import ReportRecord, file_stamp, record_report, recorded_report

#: Every field of a diagnostic, as a tuple (its severity a ``str``, written as its value).
_FIELDS = operator.attrgetter(*(field.name for field in dataclasses.fields(Diagnostic)))


def report_bytes(diags: Sequence[Diagnostic]) -> bytes:
    """The report file's bytes: the JSON report of ``--format json`` with no skills, and a newline."""
    return (format_json_report([], list(diags), count_by_severity(diags)) + "\n").encode("utf-8")


def report_key(diags: Sequence[Diagnostic]) -> str:
    """A digest of what decides :func:`report_bytes`: the code (:func:`~skillsite.cache.code_scope`)
    and every field of every diagnostic, in order (compact JSON, which the C encoder writes)."""
    hashed = hashlib.sha256(f"{code_scope()}\n".encode("utf-8"))
    hashed.update(json.dumps(list(map(_FIELDS, diags)), check_circular=False).encode("ascii"))
    return hashed.hexdigest()


class ReportRecords(Protocol):
    """Where a command keeps the record of the report it wrote last."""

    def recorded(self) -> ReportRecord | None:
        """The record kept, if any."""

    def record(self, record: ReportRecord | None) -> None:
        """Keep ``record`` (None: no file is known to hold a report); best effort."""


@dataclass(frozen=True)
class InBuildState:
    """``build``'s record: in the build state file in ``folder``, when there is one."""

    folder: Path

    def recorded(self) -> ReportRecord | None:
        return recorded_report(self.folder)

    def record(self, record: ReportRecord | None) -> None:
        record_report(self.folder, record)


def write_report(diags: Sequence[Diagnostic], report: Path, records: ReportRecords | None) -> None:
    """Write the report of ``diags`` at ``report`` (its folder made already), unless ``records``
    hold a record that the file holds it; record what was written there.  OSError when it cannot
    be written."""
    if records is None:
        write_bytes_atomically(report, report_bytes(diags))
        return
    key = report_key(diags)
    record = records.recorded()
    since = time.time_ns()  # before the file is read or written: a change from then on is racy
    if record is not None and record.holds(report, key):
        if (settled := record.settled(since)) is not None:
            records.record(settled)
        return
    data = report_bytes(diags)
    written = write_bytes_atomically(report, data)
    records.record(None if written is None else ReportRecord(
        os.path.abspath(report), key, hashlib.sha256(data).hexdigest(), file_stamp(written), since))
