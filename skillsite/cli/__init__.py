"""The ``skillsite`` command line: one module per group of commands.

``checking`` (validate, new), ``building`` (build, serve), ``reading`` (the commands that read a
published catalog), ``installing`` (install, outdated, update), ``signing`` (keys, verify);
``audit`` lives in :mod:`skillsite.audit.command`; ``output`` is what they print and how they exit.
"""
from __future__ import annotations

import signal

import click

from skillsite import __version__
from skillsite.audit.command import audit
from skillsite.cli.building import build, serve
from skillsite.cli.checking import new, validate
from skillsite.cli.installing import install, install_spec, outdated, update
from skillsite.cli.output import utf8_file_names_or_exit
from skillsite.cli.reading import budget, mcp, prompt, search, show, status, tool
from skillsite.cli.signing import keys, verify
from skillsite.cli.streams import prepared_streams
from skillsite.exit_codes import EXIT_ENVIRONMENT

__all__ = ["entry", "install_spec", "main"]


class _Commands(click.Group):
    """The commands, each stopped by Ctrl-C as a build is stopped by it wherever it is (reading
    the configuration, fetching a catalog): one line and exit 130 (128 + SIGINT), not click's
    "Aborted!" and exit 1.  (A build's own handler ends it first once it runs:
    :mod:`skillsite.publish.interrupt`; ``serve`` ends its serving itself.)"""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo(f"\nskillsite: stopped by {signal.Signals.SIGINT.name}", err=True)
            ctx.exit(128 + signal.SIGINT)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="skillsite")
def main() -> None:
    """Validate, index and publish a tree of agent skills (SKILL.md folders)."""
    utf8_file_names_or_exit(EXIT_ENVIRONMENT)


for command in (validate, new, build, serve, audit, keys, verify, search, show, prompt, tool, budget, status,
                install, outdated, update, mcp):
    main.add_command(command)


def entry() -> None:
    """The console script (and ``python -m skillsite``): standard output that is closed, full or
    cannot encode a name is one line on standard error (:mod:`skillsite.cli.streams`)."""
    with prepared_streams(EXIT_ENVIRONMENT):
        main()
