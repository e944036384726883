"""``skillsite audit``: the command line over :func:`skillsite.audit.report.audit_paths`."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from skillsite.arguments import MAX_JOBS, ExistingPath
from skillsite.exit_codes import EXIT_ENVIRONMENT, EXIT_SKILLS, EXIT_USAGE

if TYPE_CHECKING:
    from skillsite.config import SiteConfig

LEVELS = ("low", "medium", "high")


def _site_config(path: Path | None) -> SiteConfig:
    """The configuration at ``path`` (none: the defaults), read as validate and build read it; a
    bad one is said on standard error, as they say it, and is exit 2."""
    from skillsite.config import ConfigError, SiteConfig, load_config
    from skillsite.diagnostics import format_text

    if path is None:
        return SiteConfig()
    try:
        return load_config(path)
    except ConfigError as exc:
        for diagnostic in exc.diagnostics:
            click.echo(format_text(diagnostic), err=True)
        sys.exit(EXIT_USAGE)


def _write_report(output: Path, text: str) -> None:
    """Write the report beside ``output``, then rename it into place: a full disk or a folder that
    cannot be written leaves no partial report, and ends the command with exit 3."""
    from skillsite.diagnostics import describe_os_error
    from skillsite.folders import write_text_atomically

    try:
        write_text_atomically(output, text)
    except OSError as exc:
        cause = describe_os_error(OSError(exc.errno, exc.strerror))  # the report's name, not the partial file's
        click.echo(f"skillsite: cannot write the report {output}: {cause}", err=True)
        sys.exit(EXIT_ENVIRONMENT)


@click.command("audit")
@click.argument("paths", nargs=-1, type=ExistingPath(file_okay=False, readable=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github", "sarif"]), default=None,
              help="Output format [default: text, or github when GITHUB_ACTIONS=true].")
@click.option("--fail-on", type=click.Choice(LEVELS), default="high", show_default=True,
              help="Exit 1 when a finding at or above this severity remains after suppressions.")
@click.option("--config", "config_file", type=ExistingPath(dir_okay=False, path_type=Path),
              default=None, help="skillsite.yml to read sources, exclude and audit.ignore from "
                                 "[default: ./skillsite.yml].")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip paths matching GLOB (repeatable).")
# readable=False (as for every path written, never read): an OUTPUT of mode 000 is replaced in one rename.
@click.option("-o", "--output", type=click.Path(dir_okay=False, readable=False, path_type=Path), default=None,
              help="Write the report to this file instead of standard output.")
@click.option("-j", "--jobs", type=click.IntRange(min=1, max=MAX_JOBS), default=None,
              help="Worker processes [default: number of cores].")
def audit(paths: tuple[Path, ...], fmt: str | None, fail_on: str, config_file: Path | None,
          exclude: tuple[str, ...], output: Path | None, jobs: int | None) -> None:
    """Find malicious and risky content in the skills under PATHS (default: the configuration's
    sources, else the current folder).

    Nothing in the skills is run.  Exit 0 when no finding reaches --fail-on, 1 when one does,
    2 on a usage or configuration error, 3 when the report cannot be written (nothing partial is
    left).
    """
    from skillsite.audit.formats import render
    from skillsite.audit.report import audit_paths
    from skillsite.audit.suppress import entry_lines, malformed_findings, suppression_entries
    from skillsite.config import find_config
    from skillsite.workers import default_jobs

    fmt = fmt or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    config = config_file or find_config(Path("."))
    site = _site_config(config)
    suppressions, messages = suppression_entries(site.audit or None)
    shown_config = config.as_posix() if config is not None else "skillsite.yml"
    lines = entry_lines(str(config)) if config is not None and (suppressions or messages) else []
    roots = list(paths) or [Path(source) for source in site.sources] or [Path(".")]
    report = audit_paths(roots, suppressions, (*site.exclude, *exclude), jobs or default_jobs(), shown_config,
                         lines)
    if messages:
        report = type(report)(report.skills, malformed_findings(messages, shown_config, lines) + report.problems,
                              report.config_path)
    text = render(report, fmt)
    if output is not None:
        _write_report(output, text)
    else:
        click.echo(text, nl=False)
    sys.exit(EXIT_SKILLS if report.fails(fail_on) else 0)
