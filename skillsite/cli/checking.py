"""Working on skills: ``skillsite validate`` and ``skillsite new``, and the configuration they read."""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from skillsite.arguments import MAX_JOBS, ExistingPath
from skillsite.cli.output import (FORMATS, check_codes, default_format, emit_diagnostics, nothing_found, report_file,
                                  summary_line)
from skillsite.diagnostics import MAX_LISTED, describe_os_error, format_json_report
from skillsite.exit_codes import EXIT_ENVIRONMENT, EXIT_NO_SKILLS, EXIT_SKILLS, EXIT_USAGE

if TYPE_CHECKING:  # imported where used: a command loads only what it needs
    from skillsite.cache import Cache
    from skillsite.config import SiteConfig
    from skillsite.publish.state import ReportRecord
    from skillsite.source.catalog import UnpublishedFiles


@click.command()
@click.argument("paths", nargs=-1, type=ExistingPath(readable=False, path_type=Path))
@click.option("--config", "config_file", type=ExistingPath(dir_okay=False, path_type=Path),
              help="Configuration file [default: ./skillsite.yml if present]: its sources, profile, exclude, "
                   "ignore, strict and knowledge_dir, as the build reads them.")
@click.option("--profile", type=click.Choice(["default", "spec"]), default=None,
              help="spec: exactly the Agent Skills specification; default: plus extension keys.")
@click.option("--strict", is_flag=True, default=None, help="Warnings fail too (exit 1).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="Output format [default: text, or github when GITHUB_ACTIONS=true].")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip paths matching GLOB (repeatable).")
@click.option("--ignore", multiple=True, metavar="CODE", help="Silence a diagnostic code (repeatable).")
@click.option("--max-bytes", type=click.IntRange(min=1), default=None,
              help="SKILL.md files larger than this are errors [default: the configuration's max_bytes, "
                   "else 1 MiB].")
@click.option("-j", "--jobs", type=click.IntRange(min=1, max=MAX_JOBS), default=None,
              help="Worker processes [default: number of cores].")
@click.option("--cache-dir", type=click.Path(file_okay=False, readable=False, path_type=Path), default=None,
              help="Where verdicts of unchanged skills are kept [default: the user cache folder].")
@click.option("--no-cache", is_flag=True, help="Read and check every skill; keep nothing.")
@click.option("--knowledge-dir", type=click.Path(file_okay=False, readable=False, path_type=Path), default=None,
              help="Folder of shared knowledge documents [default: knowledge_dir, else knowledge/ in the first "
                   "PATH or in the nearest folder above a single skill].")
@click.option("--all", "everything", is_flag=True,
              help=f"Print every diagnostic as text, even more than {MAX_LISTED} (else a summary per code).")
# readable=False (as for every path written, never read): a REPORT of mode 000 is replaced in one rename.
@click.option("--report", type=click.Path(dir_okay=False, readable=False, path_type=Path), default=None,
              help="Where the whole list goes when the text output is summarised [default: the user cache folder].")
def validate(paths: tuple[Path, ...], config_file: Path | None, profile: str | None, strict: bool | None,
             fmt: str | None, exclude: tuple[str, ...], ignore: tuple[str, ...], max_bytes: int | None,
             jobs: int | None,
             cache_dir: Path | None, no_cache: bool, knowledge_dir: Path | None, everything: bool,
             report: Path | None) -> None:
    """Check every SKILL.md under PATHS: folders, or SKILL.md files (default: the configuration's
    sources, else the current folder)."""
    from skillsite.cli.one_skill import reported, skill_folder, tree_of
    from skillsite.source.catalog import check_catalog
    from skillsite.source.copies import CopySettings
    from skillsite.source.knowledge import default_knowledge_dir
    from skillsite.workers import default_jobs

    fmt = fmt or default_format()
    config = load_site_config(config_file)
    profile = profile or config.profile
    strict = config.strict if strict is None else strict
    exclude = tuple(config.exclude) + exclude
    roots = tuple(dict.fromkeys(tree_of(p, config.sources) for p in paths)) \
        or tuple(Path(s) for s in config.sources) or (Path("."),)
    # a skill given alone finds knowledge/ above it, as a build of the whole tree would
    knowledge = knowledge_dir or (Path(config.knowledge_dir) if config.knowledge_dir else None) \
        or (default_knowledge_dir([skill_folder(paths[0])]) if paths else None)
    cache = None if no_cache else validate_cache(roots, exclude, profile, cache_dir)
    checked = check_catalog(roots, exclude=exclude, profile=profile,
                            ignore=tuple(config.ignore) + tuple(check_codes(ignore)),
                            max_bytes=max_bytes or config.max_bytes,
                            jobs=jobs or default_jobs(), cache=cache, knowledge_dir=knowledge,
                            copies=CopySettings.of(config.copies), unpublished=unpublished_files_of(config))
    checked = reported(checked, paths)
    if cache is not None:
        try:
            cache.save()
        except OSError as exc:  # the verdicts stand; only the next run's head start is lost
            click.echo(f"skillsite: warning: verdict cache not saved: {describe_os_error(exc)}", err=True)
    diags = list(checked.diagnostics)
    summary = checked.summary()
    if fmt == "json":
        click.echo(format_json_report(checked.verdicts(), diags, summary))
    else:
        emit_diagnostics(diags, fmt, everything=everything, report=report_file(report, "validate.json"),
                         records=None if cache is None else InVerdictCache(cache))
        click.echo(summary_line(summary))
    failed = summary["errors"] > 0 or (strict and summary["warnings"] > 0)
    sys.exit(EXIT_NO_SKILLS if nothing_found(diags, summary["skills"]) else EXIT_SKILLS if failed else 0)


@dataclass(frozen=True)
class InVerdictCache:
    """Where ``validate`` records the report it wrote last (a
    :class:`~skillsite.cli.report.ReportRecords`): a note in its verdict cache file, once saved,
    so that a run with the same diagnostics leaves the file as it is."""

    cache: Cache

    def recorded(self) -> ReportRecord | None:
        from skillsite.publish.state import ReportRecord

        text = self.cache.note("report")
        try:
            return None if text is None else ReportRecord.from_json(text)
        except (ValueError, KeyError, TypeError):
            return None

    def record(self, record: ReportRecord | None) -> None:
        self.cache.set_note("report", None if record is None else record.to_json())


@click.command()
@click.argument("name")
# readable=False: the skill is made in DIR, which must be written and searched, never listed (mode 0300 serves).
@click.option("--dir", "parent", type=click.Path(file_okay=False, readable=False, path_type=Path),
              default=Path("."), show_default=True,
              help="Folder to create the skill in (the skill is DIR/NAME/SKILL.md).")
def new(name: str, parent: Path) -> None:
    """Create a skill called NAME: a SKILL.md that validates under the specification, to fill in."""
    from skillsite.source.scaffold import ScaffoldError, create_skill

    try:
        path = create_skill(parent, name)
    except ScaffoldError as exc:
        click.echo(f"skillsite new: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    except OSError as exc:
        click.echo(f"skillsite new: {describe_os_error(exc)}", err=True)
        sys.exit(EXIT_ENVIRONMENT)
    click.echo(f"Created {path}: describe the skill, write its steps, then run skillsite validate {path}")


def unpublished_files_of(config: SiteConfig) -> UnpublishedFiles:
    """What a build with ``config`` says of the bundled files it does not publish (SK009, SK017,
    SK020, SK022), for validate to say too: a gate on ``validate --strict`` must fail where the build would."""
    from skillsite.publish.bundled_names import unpublished_files
    from skillsite.publish.manifest import is_paged

    return lambda skills: unpublished_files(skills, is_paged(len(skills), config))


def validate_cache(roots: tuple[Path, ...], exclude: tuple[str, ...], profile: str,
                   cache_dir: Path | None) -> Cache | None:
    """The verdict cache of ``skillsite validate``: one file per tree and profile.  None, said in a
    warning, when its folder cannot be looked into (mode 000): the cache only saves time, so the
    skills are checked without it, as they are when it cannot be saved."""
    from skillsite.cache import Cache, code_scope, digest
    from skillsite.paths import user_cache_root

    folder = cache_dir or user_cache_root() / "validate"
    tree = digest([os.path.abspath(r) for r in roots], exclude, profile)
    try:
        return Cache(folder / f"{tree[:24]}.sqlite", code_scope())
    except OSError as exc:
        cause = describe_os_error(OSError(exc.errno, exc.strerror or str(exc), str(folder)))
        click.echo(f"skillsite: warning: cannot use the cache folder {cause}; every skill is checked without it",
                   err=True)
        return None


def load_site_config(config_file: Path | None) -> SiteConfig:
    """The configuration from ``--config`` or ``./skillsite.yml``; exits 2 on a bad file."""
    from skillsite.config import ConfigError, SiteConfig, find_config, load_config

    path = config_file or find_config(Path("."))
    if path is None:
        return SiteConfig()
    try:
        return load_config(path)
    except ConfigError as exc:
        emit_diagnostics(exc.diagnostics, default_format(), sys.stderr)
        sys.exit(EXIT_USAGE)
