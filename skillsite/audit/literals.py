"""The literals every match of an audit pattern must contain, as the one-pass search looks for them.

What each declared pattern needs is derived from the pattern's parse tree at development time
(``tests/data/literal_derivation.py``, after ripgrep's literal extraction and YARA's atoms) and
written by ``tests/data/make_literal_table.py`` into ``data/literal_table.json``; this module
only reads that table, so the audit needs no private part of ``re`` at run time.  The
tests regenerate the table and fail when it is stale, and check every entry against generated
matches of its pattern and every match in the fixtures.

The table holds each pattern's *line reach* on either side of its literals as well
(``tests/data/line_reach.py``): how many boundaries between lines holding text one match can cross
before the start of a literal of its first set, and after it, which say how many such lines before
and after a literal's a long document is searched on (:meth:`~skillsite.audit.text.Document.windows`).
A command's word mostly starts its matches, and its arguments, which may run on over lines, follow:
such a pattern reaches no line before its literal.

A pattern the table does not hold (a rule added without regenerating it, a gate made in a test)
needs nothing known: it is searched for in every text, which is slower but finds the same; its
reach is not known either.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from importlib.resources import files

from skillsite.audit.prefilter import Needs

__all__ = ["Literals", "Needs", "literals_of"]


@dataclass(frozen=True)
class Literals:
    """What every match of a pattern holds, in the lower-cased folded text
    (:attr:`~skillsite.audit.text.Document.scanned`): one literal of each set of ``needs`` (the
    rarest set first; none: nothing usable is known), and, at its very start, one of ``starts``
    (None: not known); and how many boundaries between lines holding text it can cross ``before``
    the start of a literal of the first set of ``needs`` and ``after`` it (None: no bound, or not
    known; with no needs, what the whole match can cross, on either side)."""

    needs: Needs = ()
    starts: frozenset[str] | None = None
    before: int | None = None
    after: int | None = None


Row = tuple[list[list[str]], "list[str] | None", "int | None", "int | None"]


def _read_table() -> dict[tuple[str, int], Row]:
    """(pattern source, flags) -> (needs, starts, before, after), as the generated table gives them."""
    rows = json.loads(files("skillsite.audit").joinpath("data", "literal_table.json").read_text(encoding="utf-8"))
    return {(source, flags): (needs, starts, before, after) for source, flags, needs, starts, before, after in rows}


TABLE = _read_table()


def literals_of(source: str, flags: int) -> Literals:
    """The :class:`Literals` of the pattern ``source`` compiled with ``flags``, from the table
    (none known for a pattern it does not hold)."""
    entry = TABLE.get((source, flags))
    if entry is None:
        return Literals()
    needs, starts, before, after = entry
    return Literals(tuple(map(frozenset, needs)), None if starts is None else frozenset(starts), before, after)
