"""Click parameter types the commands share (``skillsite.cli``'s and ``skillsite audit``)."""
from __future__ import annotations

import math
import os
from typing import Any

import click

from skillsite.paths import is_symlink_loop


class ExistingPath(click.Path):
    """``click.Path(exists=True)`` that calls a path whose symlinks lead round in a circle a loop,
    and one beneath a folder that cannot be searched (mode 000) out of reach (click says of both
    that they do not exist)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(exists=True, **kwargs)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter:
            if is_symlink_loop(value):
                self.fail(f"{self.name.title()} {click.format_filename(value)!r} is a symlink loop (its links lead "
                          "round in a circle).", param, ctx)
            if not _out_of_reach(value):
                raise
            self.fail(f"{self.name.title()} {click.format_filename(value)!r} cannot be reached: a folder on its way "
                      "cannot be searched (permission denied).", param, ctx)


class Seconds(click.FloatRange):
    """A number of seconds from ``min`` to ``max``: click's FloatRange, refusing NaN as well (it
    compares with no bound, so the range alone takes it, and a timer given it never fires)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        seconds = super().convert(value, param, ctx)
        if math.isnan(seconds):
            self.fail(f"{value!r} is not a number of seconds.", param, ctx)
        return seconds


#: The most worker processes a command takes (``-j``): each one is forked with the build's memory
#: at hand, so a mistyped ``-j 100000`` would fork until the machine ran out of it.
MAX_JOBS = 256

#: The longest wait a command takes (``--timeout``, ``--interval``): a day; past it the system's
#: timers overflow, and no request or poll is meant to take longer.
LONGEST_WAIT = 86400.0


def _out_of_reach(path: Any) -> bool:
    """Whether looking ``path`` up is refused: it may exist, beneath a folder of mode 000."""
    try:
        os.stat(path)
    except PermissionError:
        return True
    except (OSError, ValueError):
        return False
    return False
