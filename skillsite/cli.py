"""The ``skillsite`` command line."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from skillsite import __version__
from skillsite.diagnostics import CODES, Diagnostic, format_github, format_json_report, format_text

FORMATS = ("text", "json", "github")


def _default_format() -> str:
    return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"


def _check_codes(codes: tuple[str, ...]) -> list[str]:
    wanted = [c.strip().upper() for item in codes for c in item.split(",") if c.strip()]
    unknown = [c for c in wanted if c not in CODES]
    if unknown:
        raise click.BadParameter(f"unknown code(s): {', '.join(unknown)}", param_hint="--ignore")
    return wanted


def emit_diagnostics(diags: list[Diagnostic], fmt: str, stream=None) -> None:
    """Print diagnostics as text or GitHub annotations."""
    stream = stream or sys.stdout
    render = format_github if fmt == "github" else format_text
    for d in diags:
        stream.write(render(d) + "\n")


def summary_line(summary: dict) -> str:
    """One line saying what was checked and what was found."""
    return (f"{summary['skills']} skills checked: {summary['valid']} valid, {summary['invalid']} invalid"
            f" ({summary['left_out']} left out); {summary['errors']} errors, {summary['warnings']} warnings,"
            f" {summary['infos']} notes")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="skillsite")
def main() -> None:
    """Validate, index and publish a tree of agent skills (SKILL.md folders)."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--profile", type=click.Choice(["default", "spec"]), default="default", show_default=True,
              help="spec: exactly the Agent Skills specification; default: plus extension keys.")
@click.option("--strict", is_flag=True, help="Warnings fail too (exit 1).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="Output format [default: text, or github when GITHUB_ACTIONS=true].")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip paths matching GLOB (repeatable).")
@click.option("--ignore", multiple=True, metavar="CODE", help="Silence a diagnostic code (repeatable).")
@click.option("--max-bytes", type=click.IntRange(min=1), default=1024 * 1024, show_default=True,
              help="SKILL.md files larger than this are errors.")
def validate(paths: tuple[Path, ...], profile: str, strict: bool, fmt: str | None, exclude: tuple[str, ...],
             ignore: tuple[str, ...], max_bytes: int) -> None:
    """Check every SKILL.md under PATHS (default: the current folder)."""
    from skillsite.pipeline import read_catalog

    fmt = fmt or _default_format()
    reading = read_catalog(paths or (Path("."),), exclude=exclude, profile=profile,
                           ignore=_check_codes(ignore), max_bytes=max_bytes)
    summary = reading.summary()
    diags = list(reading.diagnostics)
    if fmt == "json":
        click.echo(format_json_report(reading.verdicts(), diags, summary))
    else:
        emit_diagnostics(diags, fmt)
        click.echo(summary_line(summary))
    failed = summary["errors"] > 0 or (strict and summary["warnings"] > 0)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":  # pragma: no cover
    main()
