"""Publishing: ``skillsite build`` and ``skillsite serve``."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import click

from skillsite.arguments import LONGEST_WAIT, MAX_JOBS, ExistingPath, Seconds
from skillsite.cli.checking import load_site_config
from skillsite.cli.output import (budget_line, check_codes, default_format, emit_diagnostics, fail, nothing_found,
                                  report_file, severity_counts)
from skillsite.diagnostics import MAX_LISTED, Diagnostic, counted, describe_os_error
from skillsite.exit_codes import EXIT_BUSY, EXIT_ENVIRONMENT, EXIT_NO_SKILLS, EXIT_SKILLS, EXIT_USAGE

if TYPE_CHECKING:
    from skillsite.config import SiteConfig


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
        self.broken = False

    def start(self, stage: str) -> None:
        self._end_current()
        self.current, self.since = stage, self.clock()
        if self.tty:
            done = self.stages.index(stage) if stage in self.stages else 0
            bar = "#" * done + "-" * (len(self.stages) - done)
            self._write(f"\r\x1b[2Kbuilding [{bar}] {stage}…")

    def _end_current(self) -> None:
        if self.current and not self.tty and self.clock() - self.since >= self.SLOW:
            self._write(f"skillsite: {self.current} took {self.clock() - self.since:.1f} s\n")
        self.current = None

    def finish(self) -> None:
        self._end_current()
        if self.tty:
            self._write("\r\x1b[2K")

    def _write(self, text: str) -> None:
        """``text`` shown, while the stream takes it: progress that cannot be written (a full disk,
        a closed pipe) must not stop the build it reports on, which says so once it has published
        (a slow stage's line ended a build with no catalog)."""
        if self.broken:
            return
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):   # ValueError: the stream was closed
            self.broken = True


@click.command()
@click.argument("sources", nargs=-1, type=ExistingPath(file_okay=False, readable=False, path_type=Path))
# readable=False: an OUTPUT its owner cannot open (mode 000) is the build's to judge (--force replaces it, and
# without it the build says why not), not refused by click first.
@click.option("-o", "--output", "out", type=click.Path(readable=False, path_type=Path), default=Path("_site"),
              show_default=True, help="Output folder (replaced atomically).")
@click.option("--config", "config_file", type=ExistingPath(dir_okay=False, path_type=Path),
              help="Configuration file [default: ./skillsite.yml if present].")
@click.option("--strict", is_flag=True, default=None, help="Warnings fail the build too.")
@click.option("--keep-going", is_flag=True, help="Publish the skills without errors even when others have some.")
@click.option("--force", is_flag=True, help="Replace a non-empty output folder that skillsite did not write "
                                            "(and check every file kept, as --verify-output).")
@click.option("--verify-output", is_flag=True,
              help="Check every file kept from the last output (size and time) instead of trusting what the "
                   "last build recorded: for an output changed by hand.")
@click.option("--profile", type=click.Choice(["default", "spec"]), default=None, help="Validation profile.")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip paths matching GLOB (repeatable).")
@click.option("--ignore", multiple=True, metavar="CODE", help="Silence a diagnostic code (repeatable).")
@click.option("--base-url", default=None, callback=lambda ctx, param, value: http_url(value, param),
              help="Absolute URL the site is published at.")
@click.option("--title", default=None, help="Catalog title.")
@click.option("--templates", type=ExistingPath(file_okay=False), default=None,
              help="Folder of templates that replace the built-in ones of the same name.")
@click.option("--format", "fmt", type=click.Choice(["text", "github"]), default=None,
              help="Diagnostics format [default: text, or github when GITHUB_ACTIONS=true].")
@click.option("-j", "--jobs", type=click.IntRange(min=1, max=MAX_JOBS), default=None,
              help="Worker processes for parsing and rendering [default: number of cores].")
@click.option("--cache-dir", type=click.Path(file_okay=False, readable=False, path_type=Path), default=None,
              help="Incremental-build cache [default: .skillsite-cache beside the output].")
@click.option("--no-cache", is_flag=True, help="Build from scratch and keep no cache.")
@click.option("--quiet", "-q", is_flag=True, help="No progress output.")
@click.option("--wait/--no-wait", default=True, show_default=True,
              help="When another build is writing into the output's folder: wait for it, or exit 4 at once.")
@click.option("--all", "everything", is_flag=True,
              help=f"Print every diagnostic, even more than {MAX_LISTED} (else a summary per code).")
# readable=False (as for every path written, never read): a REPORT of mode 000 is replaced in one rename.
@click.option("--report", type=click.Path(dir_okay=False, readable=False, path_type=Path), default=None,
              help="Where the whole list goes when the output is summarised [default: diagnostics.json in the "
                   "cache folder].")
@click.option("--sign-key", type=ExistingPath(dir_okay=False, path_type=Path), default=None,
              help="Sign the catalog with this Ed25519 key (`skillsite keys new`) [default: the key text in "
                   "$SKILLSITE_SIGNING_KEY, if set].")
@click.option("--rotate-from", type=ExistingPath(dir_okay=False, path_type=Path), default=None,
              help="The key the catalog was signed with so far: hand trust over from it to --sign-key.")
@click.option("--expires", default=None, metavar="DURATION",
              help="How long the signatures hold (30d, 12h, 90s) [default: signing.expires, else 30d].")
def build(sources: tuple[Path, ...], out: Path, config_file: Path | None, strict: bool | None, keep_going: bool,
          force: bool, verify_output: bool, profile: str | None, exclude: tuple[str, ...], ignore: tuple[str, ...],
          base_url: str | None, title: str | None, templates: str | None, fmt: str | None, jobs: int | None,
          cache_dir: Path | None, no_cache: bool, quiet: bool, wait: bool, everything: bool,
          report: Path | None, sign_key: Path | None, rotate_from: Path | None, expires: str | None) -> None:
    """Validate the skills under SOURCES and publish the catalog into OUTPUT."""
    from skillsite.cache import CacheFolderUnusable, CacheNotSaved
    from skillsite.cli.report import InBuildState
    from skillsite.publish.build import STAGES, build as run_build
    from skillsite.publish.interrupt import builds_end_on_signals
    from skillsite.publish.lock import OutputBusy
    from skillsite.publish.plan import SourceDateError
    from skillsite.publish.signing import SigningError, duration_text
    from skillsite.publish.staging import OutputError
    from skillsite.publish.templates import TemplateProblem
    from skillsite.publish.views import human_bytes

    fmt = fmt or default_format()
    config = load_site_config(config_file)
    config = config.with_overrides(
        strict=strict, profile=profile, base_url=base_url, title=title, templates=templates,
        exclude=tuple(config.exclude) + exclude if exclude else None,
        ignore=tuple(config.ignore) + tuple(check_codes(ignore)) if ignore else None)
    roots = sources or tuple(Path(s) for s in config.sources) or (Path("."),)
    check_roots(roots, config if not sources else None)
    cache = None if no_cache else trusted_cache(cache_dir or out.absolute().parent / ".skillsite-cache",
                                                chosen=cache_dir is not None)
    signing = signing_or_exit(sign_key, rotate_from, expires, config)
    reporter = None if quiet else Progress(sys.stderr, STAGES)
    untouched = _untouched_output(out)
    try:
        with builds_end_on_signals():
            result = run_build(roots, out, config, keep_going=keep_going, force=force, jobs=jobs, cache_dir=cache,
                               progress=reporter.start if reporter else None, wait=wait,
                               on_wait=lambda text: click.echo(f"skillsite: {text}", err=True), signing=signing,
                               verify_output=verify_output or force)
    except SigningError as exc:
        fail(f"{exc}; {untouched}", EXIT_USAGE)
    except (OutputError, SourceDateError, TemplateProblem) as exc:
        fail(str(exc), EXIT_USAGE)
    except OutputBusy as exc:
        fail(str(exc), EXIT_BUSY)
    except CacheFolderUnusable as exc:
        fail(f"cannot use the cache folder {describe_os_error(exc)}; {untouched} (--no-cache builds without one)",
             EXIT_ENVIRONMENT)
    except CacheNotSaved as exc:
        fail(f"{describe_os_error(exc)}; the catalog was published into {out}, but the cache was not saved",
             EXIT_ENVIRONMENT)
    except OSError as exc:
        fail(f"{describe_os_error(exc)}; {untouched}", EXIT_ENVIRONMENT)
    finally:
        if reporter:
            reporter.finish()
    emit_diagnostics(list(result.diagnostics), fmt, everything=everything,
                     records=InBuildState(cache) if cache else None,
                     report=report or (cache / "diagnostics.json" if cache else report_file(None, "build.json")))
    counts = severity_counts(result.errors, result.warnings)
    if result.ok:
        click.echo(f"Built {counted(len(result.published), 'skill')} into {out} ({len(result.skipped):,} skipped; "
                   f"{counts}); "
                   f"{human_bytes(result.output_bytes)} in {result.seconds:.2f} s")
        if result.budget:
            click.echo(budget_line(result.budget))
        if signing is not None:
            click.echo(f"Signed with {signing.key.public.text} (tuf/; valid {duration_text(signing.expires)})")
    else:
        click.echo(f"Build failed: {counts}; {untouched} ({_failure_advice(result, config.strict, keep_going)})",
                   err=True)
    if nothing_found(result.diagnostics, len(result.reading.sources)):
        sys.exit(EXIT_NO_SKILLS)
    sys.exit(0 if result.ok and not (config.strict and result.warnings) else EXIT_SKILLS)


def check_roots(roots: Sequence[Path], config: SiteConfig | None) -> None:
    """Exit 2 unless every source folder exists, naming where it was given: on the command line,
    or (``config``) by the configuration's ``sources``."""
    for root in roots:
        if root.is_dir():
            continue
        if config is not None and config.config_path:
            fail(f"{config.config_path}: 'sources' names {root}, which is no folder", EXIT_USAGE)
        raise click.BadParameter(f"source folder {root} does not exist", param_hint="SOURCES")


def _untouched_output(out: Path) -> str:
    """What a failed build did to the output (it never touches it), said truly of one not there before."""
    return f"{out} was left as it was" if os.path.lexists(out) else f"{out} was not created"


def http_url(value: str | None, param: click.Parameter) -> str | None:
    """``--base-url``: an http:// or https:// URL (as the configuration's ``base_url``)."""
    from skillsite.config import base_url_problem

    if value and (problem := base_url_problem(value)):
        raise click.BadParameter(problem, param=param)
    return value


def signing_or_exit(sign_key: Path | None, rotate_from: Path | None, expires: str | None, config):
    """The build's :class:`~skillsite.publish.signing.Signing` (None: unsigned); exit 2 saying why it
    cannot be had (never showing the key)."""
    from skillsite.publish.signing import SigningError, signing_of

    try:
        return signing_of(sign_key, rotate_from, expires, config.signing, dict(os.environ))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--expires") from None
    except SigningError as exc:
        fail(str(exc), EXIT_USAGE)


#: Why a build under --keep-going with no skill free of errors published nothing.
NO_EMPTY_CATALOG = "--keep-going publishes no catalog without a skill"


def _failure_advice(result, strict: bool, keep_going: bool) -> str:
    """What to do about a build that published nothing: --keep-going is offered only when some
    skill is free of errors (it publishes those; with none it publishes nothing either)."""
    refused = f"; {NO_EMPTY_CATALOG}" if keep_going else ""
    if not result.reading.sources:
        return f"no skill to publish: check the source paths{refused}"
    skipped = frozenset(result.skipped)  # with the skills whose errors publishing found
    others = any(not skill.has_errors and skill.id not in skipped for skill in result.reading.skills)
    if nothing_found(result.diagnostics, len(result.reading.sources)):
        if others:
            return "a source folder holds no skill: check its path, or pass --keep-going to publish the others"
        return f"a source folder holds no skill and every other has errors: check its path, fix them{refused}"
    if strict and not result.errors:
        return "--strict makes warnings fail: fix them, or leave out --strict"
    if others:
        return "fix the errors, or pass --keep-going to publish the other skills"
    return f"every skill has errors: fix them{refused}"


def trusted_cache(folder: Path, chosen: bool = False) -> Path | None:
    """The cache folder, or None (said) when git tracks files in it, or cannot tell whether it
    does (git missing, or refusing the repository): a cache committed to a repository was made
    elsewhere, and its rendered pages and audit results would be taken as this build's own work.
    None too for the default cache folder when it is a symbolic link (``chosen``: given with
    --cache-dir, the user's own choice): a link committed there would take the build's cache,
    back folder and reports to wherever it points, outside the repository."""
    from skillsite.source.git_history import GitError, tracks_files_in

    if not chosen and folder.is_symlink():
        click.echo(f"skillsite: warning: {folder} is a symbolic link: the build would write its cache wherever a "
                   "repository points it, so it does not use it (remove the link, or give --cache-dir the folder "
                   "you mean)", err=True)
        return None
    try:
        if not tracks_files_in(folder):
            return folder
        why = "holds files tracked by git"
    except GitError as exc:
        why = f"may hold files tracked by git, and git cannot tell ({exc})"
    click.echo(f"skillsite: warning: {folder} {why}; a cache made elsewhere could hold any page or audit result, so "
               "the build does not use it (add it to .gitignore, or give --cache-dir a folder outside the "
               "repository)", err=True)
    return None


def _show_served(diags: list[Diagnostic], folder: Path, everything: bool) -> None:
    """A served build's diagnostics on standard error, as ``build`` prints them: past 200, a
    summary per code, the whole list in ``diagnostics.json`` in serve's temporary ``folder``
    (a catalog of thousands of warnings would print them all again at each save)."""
    emit_diagnostics(diags, "text", sys.stderr, report=folder / "diagnostics.json", everything=everything)
    sys.stderr.flush()


@click.command()
@click.argument("sources", nargs=-1, type=ExistingPath(file_okay=False, readable=False, path_type=Path))
@click.option("--config", "config_file", type=ExistingPath(dir_okay=False, path_type=Path),
              help="Configuration file [default: ./skillsite.yml if present].")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--allowed-host", "allowed_hosts", multiple=True, metavar="NAME",
              help="Also answer requests for host NAME (repeatable); by default only localhost, IP addresses and "
                   "--host are answered, against DNS rebinding.")
@click.option("-p", "--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port to listen on (0: any free port).")
@click.option("--templates", "templates_dir", type=ExistingPath(file_okay=False, path_type=Path),
              default=None, help="Folder of template overrides (watched too).")
@click.option("--title", default=None, help="Catalog title.")
@click.option("--open", "open_browser", is_flag=True, help="Open the catalog in a web browser.")
@click.option("--interval", type=Seconds(min=0.05, max=LONGEST_WAIT), default=0.5, show_default=True,
              help="Seconds between checks for changed files.")
@click.option("--all", "everything", is_flag=True,
              help="Print every diagnostic of each build, even more than 200 (else a summary per code).")
def serve(sources: tuple[Path, ...], config_file: Path | None, host: str, allowed_hosts: tuple[str, ...], port: int,
          templates_dir: Path | None, title: str | None, open_browser: bool, interval: float, everything: bool
          ) -> None:
    """Build the catalog, serve it locally and rebuild when SOURCES or templates change.

    Exit 2 when it cannot listen on --host and --port (taken, or no address of this machine),
    3 when the machine refuses its temporary folder.
    """
    from skillsite.config import CONFIG_NAMES, SiteConfig, builtin_templates, find_config, load_config
    from skillsite.publish.serve import CannotListen, DevServer, address_text

    def overridden(loaded: SiteConfig) -> SiteConfig:
        return loaded.with_overrides(title=title, templates=str(templates_dir) if templates_dir else None, base_url="")

    config = overridden(load_site_config(config_file))

    def configure() -> SiteConfig:  # the file as it is now, after an edit (or as found now: made, or removed)
        path = config_file or find_config(Path("."))
        return overridden(load_config(path) if path is not None else SiteConfig())

    def places(loaded: SiteConfig) -> tuple[list[Path], list[Path]]:  # what a configuration has built and watched
        roots = sources or tuple(Path(s) for s in loaded.sources) or (Path("."),)
        return list(roots), [builtin_templates()] + ([Path(loaded.templates)] if loaded.templates else [])

    roots, watch = places(config)
    check_roots(roots, config if not sources else None)
    config_paths = [config_file] if config_file else [Path(name) for name in CONFIG_NAMES]
    try:
        server = DevServer(roots, config, host, port, watch=watch, echo=lambda text: click.echo(text, err=True),
                           configure=configure, config_paths=config_paths, places=places,
                           show=lambda diags: _show_served(diags, server.tmp, everything), allowed_hosts=allowed_hosts)
    except CannotListen as exc:
        click.echo(f"skillsite serve: cannot listen on {address_text(host, port)}: {exc.strerror or exc}", err=True)
        sys.exit(EXIT_USAGE)
    except OSError as exc:  # its temporary folder: the machine's to fix
        fail(f"serve cannot make its temporary folder: {describe_os_error(exc)}", EXIT_ENVIRONMENT)
    try:
        server.start()
    except KeyboardInterrupt:   # before the first build, or between it and serving: as in run()
        click.echo("Stopping.", err=True)
        server.stop(wait=False)
        sys.exit(0)
    click.echo(f"Serving {server.url} (Ctrl-C to stop); watching {', '.join(str(r) for r in roots)}", err=True)
    if open_browser:
        import webbrowser
        webbrowser.open(server.url)
    server.run(interval)
