"""The ``skillsite`` command line."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from skillsite import __version__
from skillsite.diagnostics import (CODES, MAX_LISTED, Diagnostic, counted, describe_os_error, format_github,
                                   format_json_report, format_text, summary_by_code)

if TYPE_CHECKING:  # imported where used: a command loads only what it needs
    from skillsite.cache import Cache
    from skillsite.config import SiteConfig

FORMATS = ("text", "json", "github")
#: Exit statuses: 0 clean; 1 problems in the skills (or warnings under --strict).
#: Copies of a skill (SK229): one line for all of them, unless every diagnostic is asked for.
COPY_CODE = "SK229"
EXIT_SKILLS = 1
EXIT_USAGE = 2        # a bad command line, configuration or output folder
EXIT_ENVIRONMENT = 3  # the machine refused: no space, a read-only or forbidden folder, a name too long
EXIT_BUSY = 4         # another build is writing into the output's folder (--no-wait)
EXIT_NO_SKILLS = 5    # a source folder holds no SKILL.md at all (SK013): a typo, or an empty tree


def _default_format() -> str:
    return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"


def _check_codes(codes: tuple[str, ...]) -> list[str]:
    wanted = [c.strip().upper() for item in codes for c in item.split(",") if c.strip()]
    unknown = [c for c in wanted if c not in CODES]
    if unknown:
        raise click.BadParameter(f"unknown code(s): {', '.join(unknown)}", param_hint="--ignore")
    return wanted


def emit_diagnostics(diags: list[Diagnostic], fmt: str, stream=None, *, report: Path | None = None,
                     everything: bool = True) -> None:
    """Print diagnostics as text or GitHub annotations.  Text output of more than
    :data:`MAX_LISTED` (unless ``everything``) is summarised per code, the whole list written
    to ``report`` as JSON."""
    stream = stream or sys.stdout
    copies = [] if everything else [d for d in diags if d.code == COPY_CODE]
    listed = [d for d in diags if d.code != COPY_CODE] if copies else diags
    if fmt == "text" and not everything and report is not None and len(listed) > MAX_LISTED:
        shown = _write_report(diags, report)
        stream.write("\n".join(summary_by_code(diags, shown)) + "\n")
        return
    render = format_github if fmt == "github" else format_text
    for d in listed:
        stream.write(render(d) + "\n")
    if copies:
        line = (f"{counted(len(copies), 'skill')} {'is a copy' if len(copies) == 1 else 'are copies'} of another, each "
                f"shown once as its group's canonical member ({COPY_CODE}; --all or --format json lists them)")
        stream.write((f"::notice title={COPY_CODE}::{line}" if fmt == "github" else f"info {line}") + "\n")


def _write_report(diags: list[Diagnostic], report: Path) -> str:
    """Write the JSON report of ``diags``; how to name where it went (or why it is nowhere)."""
    from skillsite.diagnostics import count_by_severity

    try:
        report.parent.mkdir(parents=True, exist_ok=True)
        report.write_text(format_json_report([], diags, count_by_severity(diags)) + "\n", encoding="utf-8")
    except OSError as exc:
        return f"no report file ({describe_os_error(exc)})"
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
    """One line saying what was checked and what was found."""
    return (f"{counted(summary['skills'], 'skill')} checked: {summary['valid']:,} valid, {summary['invalid']:,} "
            f"invalid ({summary['left_out']:,} left out); "
            f"{severity_counts(summary['errors'], summary['warnings'], summary['infos'])}")


def budget_line(budget) -> str:
    """One line saying how many skills each agent's listing holds with full descriptions."""
    parts = [f"{b['agent']} ({b['budget']:,} chars) {b['fit']:,}" for b in budget]
    listed = budget[0]["listed"] if budget else 0
    return f"Listing budgets (of {counted(listed, 'skill')} offered to models): " + ", ".join(parts)


def entry() -> None:
    """The console script (and ``python -m skillsite``)."""
    main()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="skillsite")
def main() -> None:
    """Validate, index and publish a tree of agent skills (SKILL.md folders)."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--config", "config_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Configuration file [default: ./skillsite.yml if present]: its sources, profile, exclude, "
                   "ignore, strict and knowledge_dir, as the build reads them.")
@click.option("--profile", type=click.Choice(["default", "spec"]), default=None,
              help="spec: exactly the Agent Skills specification; default: plus extension keys.")
@click.option("--strict", is_flag=True, default=None, help="Warnings fail too (exit 1).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="Output format [default: text, or github when GITHUB_ACTIONS=true].")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip paths matching GLOB (repeatable).")
@click.option("--ignore", multiple=True, metavar="CODE", help="Silence a diagnostic code (repeatable).")
@click.option("--max-bytes", type=click.IntRange(min=1), default=1024 * 1024, show_default=True,
              help="SKILL.md files larger than this are errors.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Worker processes [default: number of cores].")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where verdicts of unchanged skills are kept [default: the user cache folder].")
@click.option("--no-cache", is_flag=True, help="Read and check every skill; keep nothing.")
@click.option("--knowledge-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder of shared knowledge documents [default: knowledge_dir, else knowledge/ in the first "
                   "PATH or in the nearest folder above a single skill].")
@click.option("--all", "everything", is_flag=True,
              help=f"Print every diagnostic as text, even more than {MAX_LISTED} (else a summary per code).")
@click.option("--report", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where the whole list goes when the text output is summarised [default: the user cache folder].")
def validate(paths: tuple[Path, ...], config_file: Path | None, profile: str | None, strict: bool | None,
             fmt: str | None, exclude: tuple[str, ...], ignore: tuple[str, ...], max_bytes: int, jobs: int | None,
             cache_dir: Path | None, no_cache: bool, knowledge_dir: Path | None, everything: bool,
             report: Path | None) -> None:
    """Check every SKILL.md under PATHS: folders, or SKILL.md files (default: the configuration's
    sources, else the current folder)."""
    from skillsite.source.catalog import check_catalog
    from skillsite.source.copies import CopySettings
    from skillsite.workers import default_jobs

    fmt = fmt or _default_format()
    config = load_site_config(config_file)
    profile = profile or config.profile
    strict = config.strict if strict is None else strict
    exclude = tuple(config.exclude) + exclude
    roots = tuple(_skill_folder(p) for p in paths) or tuple(Path(s) for s in config.sources) or (Path("."),)
    knowledge = knowledge_dir or (Path(config.knowledge_dir) if config.knowledge_dir else None)
    cache = None if no_cache else validate_cache(roots, exclude, profile, cache_dir)
    checked = check_catalog(roots, exclude=exclude, profile=profile,
                            ignore=tuple(config.ignore) + tuple(_check_codes(ignore)), max_bytes=max_bytes,
                            jobs=jobs or default_jobs(), cache=cache, knowledge_dir=knowledge,
                            copies=CopySettings.of(config.copies))
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
        emit_diagnostics(diags, fmt, everything=everything, report=report_file(report, "validate.json"))
        click.echo(summary_line(summary))
    failed = summary["errors"] > 0 or (strict and summary["warnings"] > 0)
    sys.exit(EXIT_NO_SKILLS if nothing_found(diags) else EXIT_SKILLS if failed else 0)


def _skill_folder(path: Path) -> Path:
    """A PATH of validate as a folder to search: a SKILL.md file stands for its skill's folder."""
    if path.is_dir():
        return path
    if path.name in ("SKILL.md", "skill.md"):
        return path.parent
    raise click.BadParameter(f"{path} is a file but not a SKILL.md: give a folder or a SKILL.md",
                             param_hint="PATHS")


@main.command()
@click.argument("name")
@click.option("--dir", "parent", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
              show_default=True, help="Folder to create the skill in (the skill is DIR/NAME/SKILL.md).")
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


def validate_cache(roots: tuple[Path, ...], exclude: tuple[str, ...], profile: str, cache_dir: Path | None) -> Cache:
    """The verdict cache of ``skillsite validate``: one file per tree and profile."""
    from skillsite.cache import Cache, code_scope, digest
    from skillsite.paths import user_cache_root

    folder = cache_dir or user_cache_root() / "validate"
    tree = digest([os.path.abspath(r) for r in roots], exclude, profile)
    return Cache(folder / f"{tree[:24]}.sqlite", code_scope())


def load_site_config(config_file: Path | None) -> SiteConfig:
    """The configuration from ``--config`` or ``./skillsite.yml``; exits 2 on a bad file."""
    from skillsite.config import ConfigError, SiteConfig, find_config, load_config

    path = config_file or find_config(Path("."))
    if path is None:
        return SiteConfig()
    try:
        return load_config(path)
    except ConfigError as exc:
        emit_diagnostics(exc.diagnostics, _default_format(), sys.stderr)
        sys.exit(2)


class Progress:
    """Build progress: one line redrawn in place on a terminal; plain lines for slow stages in logs."""

    SLOW = 1.0  # seconds; in logs only stages slower than this get a line

    def __init__(self, stream, stages: tuple[str, ...]) -> None:
        import time

        self.stages = stages
        self.stream = stream
        self.tty = stream.isatty()
        self.clock = time.perf_counter
        self.current: str | None = None
        self.since = self.clock()

    def start(self, stage: str) -> None:
        self._end_current()
        self.current, self.since = stage, self.clock()
        if self.tty:
            done = self.stages.index(stage) if stage in self.stages else 0
            bar = "#" * done + "-" * (len(self.stages) - done)
            self.stream.write(f"\r\x1b[2Kbuilding [{bar}] {stage}…")
            self.stream.flush()

    def _end_current(self) -> None:
        if self.current and not self.tty and self.clock() - self.since >= self.SLOW:
            self.stream.write(f"skillsite: {self.current} took {self.clock() - self.since:.1f} s\n")
        self.current = None

    def finish(self) -> None:
        self._end_current()
        if self.tty:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()


@main.command()
@click.argument("sources", nargs=-1, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("-o", "--output", "out", type=click.Path(path_type=Path), default=Path("_site"), show_default=True,
              help="Output folder (replaced atomically).")
@click.option("--config", "config_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Configuration file [default: ./skillsite.yml if present].")
@click.option("--strict", is_flag=True, default=None, help="Warnings fail the build too.")
@click.option("--keep-going", is_flag=True, help="Publish the skills without errors even when others have some.")
@click.option("--force", is_flag=True, help="Replace a non-empty output folder that skillsite did not write.")
@click.option("--profile", type=click.Choice(["default", "spec"]), default=None, help="Validation profile.")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip paths matching GLOB (repeatable).")
@click.option("--ignore", multiple=True, metavar="CODE", help="Silence a diagnostic code (repeatable).")
@click.option("--base-url", default=None, help="Absolute URL the site is published at.")
@click.option("--title", default=None, help="Catalog title.")
@click.option("--templates", type=click.Path(exists=True, file_okay=False), default=None,
              help="Folder of templates that replace the built-in ones of the same name.")
@click.option("--format", "fmt", type=click.Choice(["text", "github"]), default=None,
              help="Diagnostics format [default: text, or github when GITHUB_ACTIONS=true].")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Worker processes for parsing and rendering [default: number of cores].")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Incremental-build cache [default: .skillsite-cache beside the output].")
@click.option("--no-cache", is_flag=True, help="Build from scratch and keep no cache.")
@click.option("--quiet", "-q", is_flag=True, help="No progress output.")
@click.option("--wait/--no-wait", default=True, show_default=True,
              help="When another build is writing into the output's folder: wait for it, or exit 4 at once.")
@click.option("--all", "everything", is_flag=True,
              help=f"Print every diagnostic, even more than {MAX_LISTED} (else a summary per code).")
@click.option("--report", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where the whole list goes when the output is summarised [default: diagnostics.json in the "
                   "cache folder].")
@click.option("--sign-key", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="Sign the catalog with this Ed25519 key (`skillsite keys new`) [default: the key text in "
                   "$SKILLSITE_SIGNING_KEY, if set].")
@click.option("--rotate-from", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="The key the catalog was signed with so far: hand trust over from it to --sign-key.")
@click.option("--expires", default=None, metavar="DURATION",
              help="How long the signatures hold (30d, 12h, 90s) [default: signing.expires, else 30d].")
def build(sources: tuple[Path, ...], out: Path, config_file: Path | None, strict: bool | None, keep_going: bool,
          force: bool, profile: str | None, exclude: tuple[str, ...], ignore: tuple[str, ...],
          base_url: str | None, title: str | None, templates: str | None, fmt: str | None, jobs: int | None,
          cache_dir: Path | None, no_cache: bool, quiet: bool, wait: bool, everything: bool,
          report: Path | None, sign_key: Path | None, rotate_from: Path | None, expires: str | None) -> None:
    """Validate the skills under SOURCES and publish the catalog into OUTPUT."""
    from skillsite.cache import CacheNotSaved
    from skillsite.publish.build import STAGES, build as run_build
    from skillsite.publish.interrupt import builds_end_on_signals
    from skillsite.publish.lock import OutputBusy
    from skillsite.publish.signing import SigningError, duration_text
    from skillsite.publish.staging import OutputError
    from skillsite.publish.views import human_bytes

    fmt = fmt or _default_format()
    config = load_site_config(config_file)
    config = config.with_overrides(
        strict=strict, profile=profile, base_url=base_url, title=title, templates=templates,
        exclude=tuple(config.exclude) + exclude if exclude else None,
        ignore=tuple(config.ignore) + tuple(_check_codes(ignore)) if ignore else None)
    roots = sources or tuple(Path(s) for s in config.sources) or (Path("."),)
    for root in roots:
        if not root.is_dir():
            raise click.BadParameter(f"source folder {root} does not exist", param_hint="SOURCES")
    cache = None if no_cache else (cache_dir or out.absolute().parent / ".skillsite-cache")
    signing = signing_or_exit(sign_key, rotate_from, expires, config)
    reporter = None if quiet else Progress(sys.stderr, STAGES)
    try:
        with builds_end_on_signals():
            result = run_build(roots, out, config, keep_going=keep_going, force=force, jobs=jobs, cache_dir=cache,
                               progress=reporter.start if reporter else None, wait=wait,
                               on_wait=lambda text: click.echo(f"skillsite: {text}", err=True), signing=signing)
    except SigningError as exc:
        click.echo(f"skillsite: {exc}; {out} was left as it was", err=True)
        sys.exit(EXIT_USAGE)
    except OutputError as exc:
        click.echo(f"skillsite: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    except OutputBusy as exc:
        click.echo(f"skillsite: {exc}", err=True)
        sys.exit(EXIT_BUSY)
    except CacheNotSaved as exc:
        click.echo(f"skillsite: {describe_os_error(exc)}; the catalog was published into {out}, "
                   "but the cache was not saved", err=True)
        sys.exit(EXIT_ENVIRONMENT)
    except OSError as exc:
        click.echo(f"skillsite: {describe_os_error(exc)}; {out} was left as it was", err=True)
        sys.exit(EXIT_ENVIRONMENT)
    finally:
        if reporter:
            reporter.finish()
    emit_diagnostics(list(result.diagnostics), fmt, everything=everything,
                     report=report or (cache / "diagnostics.json" if cache else report_file(None, "build.json")))
    counts = severity_counts(result.errors, result.warnings)
    if result.ok:
        click.echo(f"Built {counted(len(result.published), 'skill')} into {out} ({len(result.skipped)} skipped; "
                   f"{counts}); "
                   f"{human_bytes(result.output_bytes)} in {result.seconds:.2f} s")
        if result.budget:
            click.echo(budget_line(result.budget))
        if signing is not None:
            click.echo(f"Signed with {signing.key.public.text} (tuf/; valid {duration_text(signing.expires)})")
    else:
        click.echo(f"Build failed: {counts}; {out} was left as it was ({_failure_advice(result, config.strict)})",
                   err=True)
    if nothing_found(result.diagnostics):
        sys.exit(EXIT_NO_SKILLS)
    sys.exit(0 if result.ok and not (config.strict and result.warnings) else EXIT_SKILLS)


def signing_or_exit(sign_key: Path | None, rotate_from: Path | None, expires: str | None, config):
    """The build's :class:`~skillsite.publish.signing.Signing` (None: unsigned); exit 2 saying why it
    cannot be had (never showing the key)."""
    from skillsite.publish.signing import SigningError, signing_of

    try:
        return signing_of(sign_key, rotate_from, expires, config.signing, dict(os.environ))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--expires") from None
    except SigningError as exc:
        click.echo(f"skillsite: {exc}", err=True)
        sys.exit(EXIT_USAGE)


def _failure_advice(result, strict: bool) -> str:
    """What to do about a build that published nothing."""
    if nothing_found(result.diagnostics):
        return "no skill to publish"
    if strict and not result.errors:
        return "--strict makes warnings fail: fix them, or leave out --strict"
    return "fix the errors, or pass --keep-going to publish the other skills"


def nothing_found(diags) -> bool:
    """Whether a source folder held no skill at all (SK013)."""
    return any(d.code == "SK013" for d in diags)



@main.command()
@click.argument("sources", nargs=-1, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--config", "config_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Configuration file [default: ./skillsite.yml if present].")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("-p", "--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port to listen on (0: any free port).")
@click.option("--templates", "templates_dir", type=click.Path(exists=True, file_okay=False, path_type=Path),
              default=None, help="Folder of template overrides (watched too).")
@click.option("--title", default=None, help="Catalog title.")
@click.option("--open", "open_browser", is_flag=True, help="Open the catalog in a web browser.")
@click.option("--interval", type=click.FloatRange(min=0.05), default=0.5, show_default=True,
              help="Seconds between checks for changed files.")
def serve(sources: tuple[Path, ...], config_file: Path | None, host: str, port: int, templates_dir: Path | None,
          title: str | None, open_browser: bool, interval: float) -> None:
    """Build the catalog, serve it locally and rebuild when SOURCES or templates change."""
    from skillsite.publish.serve import DevServer
    from skillsite.config import builtin_templates

    config = load_site_config(config_file)
    config = config.with_overrides(title=title, templates=str(templates_dir) if templates_dir else None,
                                   base_url="")
    roots = sources or tuple(Path(s) for s in config.sources) or (Path("."),)
    for root in roots:
        if not root.is_dir():
            raise click.BadParameter(f"source folder {root} does not exist", param_hint="SOURCES")
    watch = [builtin_templates()] + ([Path(config.templates)] if config.templates else [])
    if config.config_path:
        watch.append(Path(config.config_path))
    try:
        server = DevServer(roots, config, host, port, watch=watch, echo=lambda text: click.echo(text, err=True))
    except OSError as exc:
        click.echo(f"skillsite serve: cannot listen on {host}:{port}: {exc.strerror or exc}", err=True)
        sys.exit(2)
    server.start()
    click.echo(f"Serving {server.url} (Ctrl-C to stop); watching {', '.join(str(r) for r in roots)}", err=True)
    if open_browser:
        import webbrowser
        webbrowser.open(server.url)
    server.run(interval)


# ---------------------------------------------------------------- catalog consumers: search, show, prompt, mcp


def _catalog_options(default: str | None, *, with_catalog: bool = True):
    """The options of a command that reads published catalogs (``--catalog`` defaulting to ``default``)."""
    def decorate(func):
        func = click.option("--allowed-host", "allowed_hosts", multiple=True, metavar="HOST",
                            help="Only contact these hosts, redirects included (repeatable).")(func)
        func = click.option("--timeout", type=click.FloatRange(min=0.1), default=10.0, show_default=True,
                            help="Seconds allowed for each request.")(func)
        func = click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                            help="Cache of remote catalogs [default: the user cache folder].")(func)
        if with_catalog:
            where = "" if default else " [default: the one the lock records]"
            func = click.option("--catalog", "source", default=default, show_default=default is not None,
                                metavar="PATH_OR_URL",
                                help=f"Built site folder, path to its skills.json, or http(s) URL of one.{where}")(func)
        # kept in the context (not a parameter of every command): only open_catalog_or_exit reads them
        func = click.option("--trusted-key", "trusted_keys", multiple=True, metavar="KEY", expose_value=False,
                            callback=lambda ctx, _param, value: ctx.meta.__setitem__("trusted_keys", value),
                            help="Refuse the catalog unless it is signed by KEY (ed25519:<base64>; repeatable) "
                                 "[default: $SKILLSITE_TRUSTED_KEYS, comma-separated].")(func)
        func = click.option("--max-risk", type=click.Choice(["none", "low", "medium", "high"]), default="medium",
                            show_default=True, expose_value=False, is_eager=True,
                            callback=lambda ctx, _param, value: ctx.meta.__setitem__("max_risk", value),
                            help="Highest audit risk of a skill to load or offer (high: every skill).")(func)
        return func
    return decorate


#: The options every command that reads a published catalog takes.
catalog_options = _catalog_options("_site")


def open_catalog_or_exit(source: str, cache_dir: Path | None, timeout: float, allowed_hosts: tuple[str, ...]):
    """Open a catalog; loader warnings go to stderr, loader errors exit 1 with one line."""
    import warnings

    from skillsite.loader import Catalog, LoaderError, LoaderWarning

    meta = click.get_current_context().meta
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", LoaderWarning)
        try:
            catalog = Catalog.open(source, cache_dir=cache_dir, timeout=timeout, allowed_hosts=allowed_hosts or None,
                                   max_risk=meta.get("max_risk", "medium"), trusted_keys=meta.get("trusted_keys") or None)
        except LoaderError as exc:
            click.echo(f"skillsite: {loader_error_text(exc)}", err=True)
            sys.exit(1)
        except ValueError as exc:  # a trusted key that is no key
            raise click.BadParameter(str(exc), param_hint="--trusted-key / $SKILLSITE_TRUSTED_KEYS") from None
    for warning in caught:
        click.echo(f"skillsite: warning: {warning.message}", err=True)
    return catalog


def loader_error_text(exc: Exception) -> str:
    """A loader error as a command-line user reads it: a RiskError names ``--max-risk``, the
    flag they type (the Python API's own message names ``max_risk=``)."""
    from skillsite.loader import RiskError

    if isinstance(exc, RiskError):
        return (f"skill {exc.skill_id} is rated {exc.risk} risk by the catalog's audit, above --max-risk "
                f"{exc.max_risk}; pass --max-risk {exc.risk} to use it anyway")
    return _printable(str(exc).replace("pass overwrite=True", "pass --overwrite"))


def _printable(text: str) -> str:
    """``text`` with control characters written as ``\\xNN``: a catalog's or lock's text in an
    error (an id holding a newline or an escape sequence) stays one line and never reaches the
    terminal raw."""
    return "".join(f"\\x{ord(c):02x}" if ord(c) < 0x20 or 0x7f <= ord(c) < 0xa0 else c for c in text)


@main.command()
@click.argument("query")
@catalog_options
@click.option("-k", "k", type=click.IntRange(min=1), default=5, show_default=True, help="How many results.")
@click.option("--tag", "tags", multiple=True, metavar="TAG", help="Only skills with this tag (repeatable: all of them).")
@click.option("--json", "as_json", is_flag=True,
              help='Print [{"id", "name", "description", "score"}, ...] ("copies": N for a skill published N times).')
@click.option("--all-copies", is_flag=True, help="Every copy of a skill at its own place (else one result a group).")
def search(query: str, source: str, cache_dir: Path | None, timeout: float, allowed_hosts: tuple[str, ...], k: int,
           tags: tuple[str, ...], as_json: bool, all_copies: bool) -> None:
    """Search a built catalog for QUERY; best matches first (ranked exactly as skillsite.loader ranks)."""
    import json

    from skillsite.loader import LoaderError, one_line

    catalog = open_catalog_or_exit(source, cache_dir, timeout, allowed_hosts)
    try:
        results = catalog.search(query, k=k, tags=list(tags) or None, copies=all_copies)
    except LoaderError as exc:
        click.echo(f"skillsite: {loader_error_text(exc)}", err=True)
        sys.exit(1)
    if as_json:
        click.echo(json.dumps([result_json(r) for r in results], ensure_ascii=False, indent=2))
        return
    if not results:
        click.echo(f"No skills match {query!r}.", err=True)
        return
    for rank, r in enumerate(results, 1):
        copies = f"  ({r.copies} copies)" if r.copies > 1 else ""
        click.echo(f"{rank:>2}. {r.name}  [{r.id}]  {r.score:.3f}{copies}\n    {one_line(r.description, 100)}")


def result_json(result) -> dict:
    """A search result as ``--json`` prints it (``copies`` only for a skill published more than once)."""
    data = {"id": result.id, "name": result.name, "description": result.description, "score": result.score}
    return {**data, "copies": result.copies} if result.copies > 1 else data


@main.command()
@click.argument("skill_id", metavar="ID")
@catalog_options
@click.option("--format", "fmt", type=click.Choice(["xml", "markdown"]), default="xml", show_default=True,
              help="xml: the <skill_content> block an agent receives; markdown: the SKILL.md as published.")
def show(skill_id: str, source: str, cache_dir: Path | None, timeout: float, allowed_hosts: tuple[str, ...],
         fmt: str) -> None:
    """Print one skill (by id or name) from a published catalog, verified against its digest."""
    from skillsite.loader import LoaderError

    catalog = open_catalog_or_exit(source, cache_dir, timeout, allowed_hosts)
    try:
        skill = catalog.load(skill_id)
    except LoaderError as exc:
        click.echo(f"skillsite: {loader_error_text(exc)}", err=True)
        sys.exit(1)
    text = skill.xml if fmt == "xml" else skill.raw.decode("utf-8", errors="replace").lstrip("\ufeff")
    click.echo(text, nl=not text.endswith("\n"))


@main.command()
@catalog_options
@click.option("--budget", type=click.IntRange(min=39), default=30000, show_default=True,
              help="Maximum size of the block, in characters.")
@click.option("--triggers", is_flag=True, help="List each skill's trigger phrases in its entry.")
def prompt(source: str, cache_dir: Path | None, timeout: float, allowed_hosts: tuple[str, ...],
           budget: int, triggers: bool) -> None:
    """Print the <available_skills> block of the skills eligible on this machine."""
    catalog = open_catalog_or_exit(source, cache_dir, timeout, allowed_hosts)
    click.echo(catalog.prompt(budget=budget, triggers=triggers), nl=False)


@main.command()
@catalog_options
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of {id, name, state, reasons}.")
@click.option("--active", multiple=True, metavar="ID", help="A skill (id or name) the runtime has on "
                                                          "(repeatable): its conflicting skills become ineligible.")
def status(source: str, cache_dir: Path | None, timeout: float, allowed_hosts: tuple[str, ...], as_json: bool,
           active: tuple[str, ...]) -> None:
    """Say which skills are offered to a model on this machine, and why the others are not."""
    import json

    catalog = open_catalog_or_exit(source, cache_dir, timeout, allowed_hosts)
    statuses = catalog.skill_status(active=[active_id(catalog, item) for item in active])
    if as_json:
        click.echo(json.dumps([s.to_json() for s in statuses], ensure_ascii=False, indent=2))
        return
    for s in statuses:
        click.echo(f"{s.state:<10} {s.id}" + (f": {'; '.join(s.reasons)}" if s.reasons else ""))
    counts = {state: sum(s.state == state for s in statuses) for state in ("eligible", "ineligible", "hidden",
                                                                          "user-only")}
    click.echo(", ".join(f"{n} {state}" for state, n in counts.items()))


def active_id(catalog, id_or_name: str) -> str:
    """The id of a skill named by ``--active``; a usage error (exit 2) naming it, with the
    closest ids and names, when the catalog has no such skill."""
    import difflib

    from skillsite.loader import LoaderError

    try:
        return catalog.manifest_entry(id_or_name).id
    except LoaderError as exc:
        known = sorted({e["id"] for e in catalog.skills} | {e["name"] for e in catalog.skills})
        close = difflib.get_close_matches(id_or_name, known, n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise click.BadParameter(f"{exc}{hint}", param_hint="'--active'") from None


@main.command()
@catalog_options
@click.option("--style", type=click.Choice(["openai", "anthropic", "mcp"]), default="openai", show_default=True,
              help="The runtime's tool format.")
@click.option("--budget", type=click.IntRange(min=39), default=30000, show_default=True,
              help="Maximum size of the skill listing in the tool's description, in characters.")
def tool(source: str, cache_dir: Path | None, timeout: float, allowed_hosts: tuple[str, ...], style: str,
         budget: int) -> None:
    """Print the function-calling `skill` tool (JSON) for the skills offered to a model on this machine."""
    import json

    catalog = open_catalog_or_exit(source, cache_dir, timeout, allowed_hosts)
    click.echo(json.dumps(catalog.skill_tool(style=style, budget=budget), ensure_ascii=False, indent=2))


@main.command()
@click.argument("path", required=False, type=click.Path(exists=True, file_okay=False, path_type=Path))
@catalog_options
@click.option("--json", "as_json", is_flag=True, help="Print {budgets: [...], similar: [...]} as JSON.")
def budget(path: Path | None, source: str, cache_dir: Path | None, timeout: float, allowed_hosts: tuple[str, ...],
           as_json: bool) -> None:
    """How many skills fit each agent's skill listing with full descriptions, which get cut, and
    which skills a model could not tell apart (of a published catalog, or of the skills under PATH)."""
    import json

    from skillsite.agent.budget import budget_fits, similar_pairs

    entries, locations = _listing_entries(path, source, cache_dir, timeout, allowed_hosts)
    fits = budget_fits(entries, locations)
    similar = similar_pairs(entries)
    if as_json:
        click.echo(json.dumps({"budgets": [f.to_json() for f in fits],
                               "similar": [{"score": s, "skills": [a, b]} for s, a, b in similar]}, indent=2))
        return
    for f in fits:
        cut = f" (first cut: {', '.join(f.cut[:3])}{', ...' if len(f.cut) > 3 else ''})" if f.cut else ""
        click.echo(f"{f.agent:<22} {f.budget:>7,} chars: {len(f.fit):>5,} of {f.listed:,} skills fit, "
                   f"{len(f.cut):,} cut{cut}")
    for score, a, b in similar:
        click.echo(f"similar descriptions ({score:.2f}): {a}  ~  {b}")


def _listing_entries(path: Path | None, source: str, cache_dir: Path | None, timeout: float,
                     allowed_hosts: tuple[str, ...]) -> tuple[list[dict], dict[str, str]]:
    """Manifest-like entries (and SKILL.md locations) of the skills under ``path``, or of a catalog."""
    if path is None:
        catalog = open_catalog_or_exit(source, cache_dir, timeout, allowed_hosts)
        return catalog.skills, {e["id"]: catalog.skill_location(e["id"]) for e in catalog.skills}
    from skillsite.source.catalog import read_catalog

    skills = [s for s in read_catalog([path]).skills if not s.has_errors]
    entries = [{"id": s.id, "name": s.name, "description": s.description, "priority": s.priority,
                "visibility": {"hidden": s.hidden, "user_invocable_only": s.user_invocable_only, "always": s.always}}
               for s in skills]
    return entries, {s.id: str(s.source.skill_md) for s in skills}


@main.command()
@catalog_options
def mcp(source: str, cache_dir: Path | None, timeout: float, allowed_hosts: tuple[str, ...]) -> None:
    """Serve a published catalog to agents over MCP (stdio): search_skills, load_skill, read_skill_resource."""
    from skillsite.mcp.server import MCPUnavailable, serve

    catalog = open_catalog_or_exit(source, cache_dir, timeout, allowed_hosts)
    try:
        serve(catalog, loader_error_text)
    except MCPUnavailable as exc:
        click.echo(f"skillsite: {exc}", err=True)
        sys.exit(2)


# ---------------------------------------------------------------- installs: install, outdated, update

def _version_text(locked) -> str:
    """A locked skill's version as the install commands print it."""
    return locked.version or "unversioned"


def lock_option(func):
    """The ``--lock`` option of the commands that install skills or read what was installed."""
    return click.option("--lock", "lock_file", type=click.Path(dir_okay=False, path_type=Path),
                        default=Path("skillsite-lock.json"), show_default=True,
                        help="The lock file: what was installed where, at which version and digest.")(func)


def try_loader(call, what: str = "skillsite"):
    """``(call(), 0)``, or ``(None, exit status)`` after printing a loader error as one line:
    3 when the machine refused a write (InstallError), 2 for an unusable lock file, else 1.
    Loader warnings go to stderr either way."""
    import warnings

    from skillsite.loader import InstallError, LoaderError, LoaderWarning, LockFileError

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", LoaderWarning)
        try:
            return call(), 0
        except LoaderError as exc:
            click.echo(f"{what}: {loader_error_text(exc)}", err=True)
            return None, EXIT_ENVIRONMENT if isinstance(exc, InstallError) else EXIT_USAGE if isinstance(
                exc, LockFileError) else 1
        finally:
            for warning in caught:
                click.echo(f"{what}: warning: {warning.message}", err=True)


def run_loader(call, what: str = "skillsite"):
    """``call()``, exiting as :func:`try_loader` says when it raises a loader error."""
    result, code = try_loader(call, what)
    if code:
        sys.exit(code)
    return result


def read_lock_or_exit(lock_file: Path):
    """The lock file, or exit 2 saying why it cannot be used."""
    from skillsite.agent.lockfile import read_lock

    return run_loader(lambda: read_lock(lock_file))


def install_spec(spec: str, catalog) -> tuple[str, str | None]:
    """The id and range ``skillsite install`` is asked for: ``spec`` whole when the catalog holds
    a skill of that id or name (ids are folder paths, and real ones hold '@': ``owner@repo/x``),
    else split at its last '@' (``owner@repo/x@^1.2``); BadParameter for a range that does not parse."""
    from skillsite.agent.semver import RangeError, parse_range

    head, at, range_text = spec.rpartition("@")
    if not at or spec in catalog or "/" in range_text:
        return spec, None
    try:
        if not range_text.strip():
            raise RangeError(f"nothing after '@' (write `{head}` or `{head}@RANGE`)")
        parse_range(range_text)
    except RangeError as exc:
        raise click.BadParameter(f"skill {spec!r}: {exc}", param_hint="ID[@RANGE]") from None
    return head, range_text


@main.command()
@click.argument("spec", metavar="ID[@RANGE]")
@_catalog_options("_site")
@click.option("--dest", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="The skill's own folder; each skill it needs goes beside it, in a folder named after it.")
@lock_option
@click.option("--overwrite", is_flag=True, help="Replace an existing DEST, and dependency folders holding other files.")
def install(spec: str, source: str, cache_dir: Path | None, timeout: float, allowed_hosts: tuple[str, ...],
            dest: Path, lock_file: Path, overwrite: bool) -> None:
    """Install skill ID (the highest release in RANGE, e.g. changelog@^1.2; default: the current
    version) into DEST, after the skills it needs, verified, and record them in the lock file."""
    from skillsite.agent.lockfile import resolve_locked_path

    before = read_lock_or_exit(lock_file)
    catalog = open_catalog_or_exit(source, cache_dir, timeout, allowed_hosts)
    skill_id, wanted = run_loader(lambda: install_spec(spec, catalog))
    run_loader(lambda: catalog.install(skill_id, dest, overwrite, version=wanted, lock=lock_file))
    after = read_lock_or_exit(lock_file)
    for sid, locked in sorted(after.skills.items()):
        if before.skills.get(sid) != locked:
            where = resolve_locked_path(locked.path, lock_file)
            click.echo(_printable(f"installed {sid}{'@' + locked.version if locked.version else ''} into {where}"))
    click.echo(f"recorded in {lock_file}")


@main.command()
@lock_option
@_catalog_options(None)
@click.option("--json", "as_json", is_flag=True,
              help="Print a JSON list of {id, status, version, wanted, latest, ranges, detail}.")
def outdated(lock_file: Path, source: str | None, cache_dir: Path | None, timeout: float,
             allowed_hosts: tuple[str, ...], as_json: bool) -> None:
    """Say, for each skill of the lock file, whether its catalog has an update within the locked
    ranges, a newer release outside them, the same version with another digest (tampered), or
    whether its installed files were modified.  Exit 1 when a skill is tampered."""
    import json

    from skillsite.agent.outdated import PROBLEMS

    lock = read_lock_or_exit(lock_file)
    states = [_locked_state(lock, lock_file, sid, source, cache_dir, timeout, allowed_hosts, {})
              for sid in sorted(lock.skills)]
    if as_json:
        click.echo(json.dumps([s.to_json() for s in states], ensure_ascii=False, indent=2))
    elif not states:
        click.echo(f"{lock_file} holds no skills.")
    else:
        rows = [("ID", "LOCKED", "WANTED", "LATEST", "STATUS")] + [
            (s.id, s.version or "-", s.wanted or "-", s.latest or "-", s.status) for s in states]
        rows = [tuple(_printable(cell) for cell in row) for row in rows]
        widths = [max(len(row[i]) for row in rows) for i in range(4)]
        for row in rows:
            click.echo("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[4])
        for s in states:
            if s.detail and s.status not in ("up-to-date",):
                click.echo(_printable(f"{s.id}: {s.status}: {s.detail}"))
    sys.exit(1 if any(s.status in PROBLEMS for s in states) else 0)


def _locked_state(lock, lock_file: Path, skill_id: str, source: str | None, cache_dir: Path | None, timeout: float,
                  allowed_hosts: tuple[str, ...], opened: dict):
    """The :class:`~skillsite.agent.outdated.SkillState` of one locked skill (its catalog opened once)."""
    from skillsite.agent.installed import installed_digest
    from skillsite.agent.lockfile import resolve_locked_path, resolve_source
    from skillsite.agent.outdated import locked_asks, skill_state
    from skillsite.loader import NotFoundError

    locked = lock.skills[skill_id]
    where = source or resolve_source(locked.source, lock_file)
    if where not in opened:
        opened[where] = open_catalog_or_exit(where, cache_dir, timeout, allowed_hosts)

    def published():
        try:
            return opened[where].release_digests(skill_id)
        except NotFoundError:
            return None

    digests = run_loader(published)
    installed = installed_digest(resolve_locked_path(locked.path, lock_file))
    return skill_state(skill_id, locked, locked_asks(lock, skill_id), digests, installed)


@main.command()
@click.argument("skill_id", metavar="[ID]", required=False)
@lock_option
@_catalog_options(None, with_catalog=False)
@click.option("--overwrite", is_flag=True, help="Replace installed files that were changed locally.")
def update(skill_id: str | None, lock_file: Path, cache_dir: Path | None, timeout: float,
           allowed_hosts: tuple[str, ...], overwrite: bool) -> None:
    """Re-install ID (default: every skill installed by name) and the skills it needs at the highest
    releases the locked ranges allow, from the catalogs the lock records; a release whose
    digest changed under the same version (tampered) is refused.  The lock keeps its ranges."""
    from skillsite.agent.lockfile import resolve_source

    lock = read_lock_or_exit(lock_file)
    if skill_id is not None and skill_id not in lock.skills:
        raise click.BadParameter(f"{lock_file} holds no skill {skill_id!r}", param_hint="ID")
    named = sorted(sid for sid, locked in lock.skills.items() if locked.requested)
    targets = [skill_id] if skill_id else named or sorted(lock.skills)
    failed = False
    for target in targets:
        before = read_lock_or_exit(lock_file)
        catalog = open_catalog_or_exit(resolve_source(lock.skills[target].source, lock_file), cache_dir, timeout,
                                       allowed_hosts)
        _, code = try_loader(lambda: catalog.update(target, lock_file, overwrite=overwrite), "skillsite update")
        if code == EXIT_ENVIRONMENT:
            sys.exit(code)
        failed = failed or bool(code)
        after = read_lock_or_exit(lock_file)
        changed = [sid for sid in sorted(after.skills) if after.skills[sid] != before.skills.get(sid)]
        for sid in changed:
            old = before.skills.get(sid)
            click.echo(_printable(f"{sid}: {_version_text(old)} -> {_version_text(after.skills[sid])}" if old else
                                  f"{sid}: installed {_version_text(after.skills[sid])}"))
        if not code and target not in changed:
            click.echo(_printable(f"{target}: {_version_text(after.skills[target])}, up to date"))
    sys.exit(1 if failed else 0)


# ---------------------------------------------------------------- signed catalogs: keys, verify


@main.group()
def keys() -> None:
    """Make and show the Ed25519 keys that sign a catalog (`skillsite build --sign-key`)."""


@keys.command("new")
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Where to write the private key (PEM, readable by you alone); an existing file is never replaced.")
def keys_new(out: Path) -> None:
    """Make a signing key; print its public key (ed25519:<base64>) as the last line."""
    from skillsite.publish.signing import SigningError, new_key_file

    try:
        public = new_key_file(out)
    except FileExistsError:
        click.echo(f"skillsite: {out} exists; refusing to replace a key (choose another file)", err=True)
        sys.exit(EXIT_USAGE)
    except SigningError as exc:
        click.echo(f"skillsite: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    except OSError as exc:
        click.echo(f"skillsite: {describe_os_error(exc)}", err=True)
        sys.exit(EXIT_ENVIRONMENT)
    click.echo(f"Wrote the private key to {out} (mode 0600): keep it secret, e.g. as a CI secret for "
               "$SKILLSITE_SIGNING_KEY. Agents pin the public key:")
    click.echo(public.text)


@keys.command("public")
@click.argument("key_file", metavar="FILE", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def keys_public(key_file: Path) -> None:
    """Print the public key (ed25519:<base64>) of the private key in FILE."""
    from skillsite.publish.signing import SigningError, SigningKey

    try:
        click.echo(SigningKey.from_file(key_file).public.text)
    except SigningError as exc:
        click.echo(f"skillsite: {exc}", err=True)
        sys.exit(EXIT_USAGE)


@main.command()
@click.argument("source", metavar="CATALOG")
@click.option("--trusted-key", "trusted_keys", multiple=True, metavar="KEY",
              help="The key the catalog must be signed by (repeatable) [default: $SKILLSITE_TRUSTED_KEYS; "
                   "else the key the catalog names, which proves it consistent, not authentic].")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=10.0, show_default=True,
              help="Seconds allowed for each request.")
def verify(source: str, trusted_keys: tuple[str, ...], as_json: bool, timeout: float) -> None:
    """Check a signed catalog (a site folder or its URL) whole: its signed metadata, then every
    file and release against the digests that pin them. Exit 0 when all hold, 1 otherwise."""
    import json
    import tempfile

    from skillsite.agent.trust_keys import keys_from_environment, read_keys
    from skillsite.agent.verify import check_files, named_keys, refused
    from skillsite.loader import Catalog, LoaderError

    try:
        keys = read_keys(trusted_keys) if trusted_keys else keys_from_environment()
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--trusted-key") from None
    with tempfile.TemporaryDirectory(prefix="skillsite-verify-") as cache:  # never the user's trust records
        try:
            if not keys:
                unchecked = Catalog.open(source, cache_dir=cache, timeout=timeout, trusted_keys=())
                keys = named_keys(unchecked.manifest, unchecked.location)
            catalog = Catalog.open(source, cache_dir=cache, timeout=timeout, max_risk="high",
                                   trusted_keys=[k.text for k in keys])
            report = check_files(catalog)
        except (LoaderError, ValueError) as exc:
            report = refused(str(source), exc)
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=1, ensure_ascii=False))
    else:
        for line in verify_lines(report):
            click.echo(_printable(line))
    sys.exit(0 if report.ok else 1)


def verify_lines(report) -> list[str]:
    """``skillsite verify``'s report for people."""
    lines = [f"catalog: {report.catalog}"]
    if report.signed is not None:
        signed = report.signed
        lines += [f"key: {', '.join(k.text for k in signed.keys)}", f"version: {signed.version}",
                  f"expires: {signed.expires.isoformat().replace('+00:00', 'Z')}", f"root version: {signed.root_version}"]
    lines += [f"FAILED {path}: {reason}" for path, reason in report.failures]
    lines.append(f"{counted(report.checked, 'file')} checked: " + ("all hold" if report.ok else
                                                                  f"{counted(len(report.failures), 'failure')}"))
    return lines


from skillsite.audit.command import audit as audit_command  # noqa: E402  (its body lives in skillsite.audit)

main.add_command(audit_command)


if __name__ == "__main__":  # pragma: no cover
    main()
