"""What the commands print and how they exit: diagnostics, summaries (the exit statuses are
:mod:`skillsite.exit_codes`)."""
from __future__ import annotations

import codecs
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from skillsite.diagnostics import (CODES, MAX_LISTED, Diagnostic, Severity, counted, describe_os_error,
                                   format_github, format_text, summary_by_code)

if TYPE_CHECKING:  # the report's module is imported only when a report is written
    from skillsite.cli.report import ReportRecords

FORMATS = ("text", "json", "github")
#: Copies of a skill (SK229): one line for all of them, unless every diagnostic is asked for.
COPY_CODE = "SK229"


def fail(text: str, code: int) -> NoReturn:
    """End the command: one line ``skillsite: text`` on standard error, and exit status ``code``."""
    click.echo(f"skillsite: {text}", err=True)
    sys.exit(code)


def utf8_file_names_or_exit(code: int) -> None:
    """End the command with one line (exit ``code``) when this Python reads file names in another
    encoding than UTF-8 (a Latin-1 or ASCII locale with UTF-8 mode off): skill ids are folder
    names, which every catalog holds as UTF-8 text, so a build would publish other ids
    (``cafÃ©``), skip names as not UTF-8, or fail opening them."""
    encoding = codecs.lookup(sys.getfilesystemencoding()).name
    if encoding != "utf-8":
        fail(f"this locale has file names read as {encoding}, and skillsite reads them as UTF-8: set "
             "PYTHONUTF8=1, or a UTF-8 locale (LC_ALL=C.UTF-8)", code)


def default_format() -> str:
    return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"


def check_codes(codes: tuple[str, ...]) -> list[str]:
    wanted = [c.strip().upper() for item in codes for c in item.split(",") if c.strip()]
    unknown = [c for c in wanted if c not in CODES]
    if unknown:
        raise click.BadParameter(f"unknown code(s): {', '.join(unknown)}", param_hint="--ignore")
    return wanted


def emit_diagnostics(diags: list[Diagnostic], fmt: str, stream=None, *, report: Path | None = None,
                     everything: bool = True, records: ReportRecords | None = None) -> None:
    """Print diagnostics as text or GitHub annotations.  Text output of more than
    :data:`MAX_LISTED` (unless ``everything``) is summarised per code, the whole list written
    to ``report`` as JSON (left as it is when the command's ``records`` record that it holds that
    already: :func:`skillsite.cli.report.write_report`)."""
    stream = stream or sys.stdout
    copies = [] if everything else [d for d in diags if d.code == COPY_CODE]
    listed = [d for d in diags if d.code != COPY_CODE] if copies else diags
    if fmt == "text" and not everything and report is not None and len(listed) > MAX_LISTED:
        shown = _write_report(diags, report, records)
        stream.write("\n".join(summary_by_code(diags, shown)) + "\n")
        return
    render = format_github if fmt == "github" else format_text
    for d in listed:
        stream.write(render(d) + "\n")
    if copies:
        line = (f"{counted(len(copies), 'skill')} {'is a copy' if len(copies) == 1 else 'are copies'} of another, each "
                f"shown once as its group's canonical member ({COPY_CODE}; --all or --format json lists them)")
        stream.write((f"::notice title={COPY_CODE}::{line}" if fmt == "github" else f"info {line}") + "\n")


def _write_report(diags: list[Diagnostic], report: Path, records: ReportRecords | None = None) -> str:
    """Write the JSON report of ``diags`` beside ``report``, then rename it into place (a full disk or
    a kill leaves the previous report whole); how to name where it went (or why it is nowhere)."""
    from skillsite.cli.report import write_report
    from skillsite.folders import make_folders

    try:
        make_folders(report.parent)
    except OSError as exc:
        return f"no report file ({describe_os_error(exc)})"
    try:
        write_report(diags, report, records)
    except OSError as exc:  # named as the report, not as the hidden file written beside it
        return f"no report file ({describe_os_error(OSError(exc.errno, exc.strerror or str(exc), str(report)))})"
    return str(report)


def report_file(explicit: Path | None, name: str) -> Path:
    """Where a long list of diagnostics goes: ``--report``, else the user cache folder."""
    from skillsite.paths import user_cache_root

    return explicit or user_cache_root() / "reports" / name


def severity_counts(errors: int, warnings: int, infos: int | None = None) -> str:
    """``1 error, 2 warnings`` (and ``, 3 info``), named as the diagnostics name their severity."""
    counts = [counted(errors, "error"), counted(warnings, "warning")]
    return ", ".join(counts + ([counted(infos, "info")] if infos is not None else []))


def summary_line(summary: dict) -> str:
    """One line saying what was checked and what was found.  Of the invalid skills, those not read
    as skills at all (``left_out``) are counted apart, named by why: a build refuses every invalid
    skill (``--keep-going`` leaves each out), so "left out" would not set them apart."""
    unread = f" ({summary['left_out']:,} with no readable frontmatter or description)" if summary["left_out"] else ""
    return (f"{counted(summary['skills'], 'skill')} checked: {summary['valid']:,} valid, {summary['invalid']:,} "
            f"invalid{unread}; {severity_counts(summary['errors'], summary['warnings'], summary['infos'])}")


def budget_line(budget) -> str:
    """One line saying how many skills each agent's listing holds with full descriptions (and how many
    the catalog's listings withhold as above the default risk limit: no listing counts them)."""
    parts = [f"{b['agent']} ({b['budget']:,} chars) {b['fit']:,}" for b in budget]
    listed = budget[0]["listed"] if budget else 0
    withheld = budget[0].get("withheld", 0) if budget else 0
    above = f"; {withheld:,} rated above {budget[0].get('max_risk', 'medium')} risk withheld" if withheld else ""
    return f"Listing budgets (of {counted(listed, 'skill')} offered to models{above}): " + ", ".join(parts)


def nothing_found(diags, skills_found: int) -> bool:
    """Whether a source folder held no skill at all (SK013), or no source held any and no error
    says why (SK013 ignored: silencing it passes over an empty folder beside others, not an empty
    tree; a folder that cannot be listed is its own error, exit 1)."""
    return any(d.code == "SK013" for d in diags) or \
        (skills_found == 0 and not any(d.severity is Severity.ERROR for d in diags))
