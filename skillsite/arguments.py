"""Click parameter types the commands share (``skillsite.cli``'s and ``skillsite audit``)."""
from __future__ import annotations

from typing import Any

import click

from skillsite.paths import is_symlink_loop


class ExistingPath(click.Path):
    """``click.Path(exists=True)`` that calls a path whose symlinks lead round in a circle a loop
    (click says it "does not exist")."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(exists=True, **kwargs)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter:
            if not is_symlink_loop(value):
                raise
            self.fail(f"{self.name.title()} {click.format_filename(value)!r} is a symlink loop (its links lead "
                      "round in a circle).", param, ctx)
