"""Write skillsite/audit/data/literal_table.json: the literals every declared audit pattern needs.

    python tests/data/make_literal_table.py           # writes the table
    python tests/data/make_literal_table.py --check   # exit 1 when the table is stale

Each pattern the one-pass search filters (every pattern but those on the text as written) is
derived by ``literal_derivation.derive`` (from the tree of Python's own regular-expression parser)
and written as ``(source, flags): (needs, starts, before, after)``: the sets of literals one of each of
which every match holds, the rarest first (by estimate, or by the counts of ``literal_counts.json``:
``literal_derivation.measured_anchor``), the literals every match starts with (None: not known),
and how many boundaries between lines holding text one match crosses before the start of a literal
of the first set and after it (``line_reach.sides``; None: no bound), which its gate's windows read
around each occurrence of those literals.
The output is deterministic (patterns in order of source and flags, literals sorted), so a
change of rule shows as a diff of the table; ``tests/unit/test_audit_literals.py`` regenerates it
and fails when it differs from the committed file.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

from golden_file import write_or_check  # noqa: E402
from line_reach import Sides, line_reach, sides  # noqa: E402
from literal_derivation import derive  # noqa: E402

from skillsite.audit.declare import Pattern  # noqa: E402
from skillsite.audit.letters import ascii_reading  # noqa: E402
from skillsite.audit.rules import PATTERNS  # noqa: E402

TABLE = HERE.parents[1] / "skillsite" / "audit" / "data" / "literal_table.json"

Entry = tuple[tuple[tuple[str, ...], ...], "tuple[str, ...] | None", "int | None", "int | None"]


def entries() -> dict[tuple[str, int], Entry]:
    """The table: each filtered pattern's literals and reach on either side of them, by (source as compiled, flags)."""
    table = {}
    for each in PATTERNS:
        if each.prefiltered:
            found = derive(each.compiled_source, each.flags)
            starts = None if found.starts is None else tuple(sorted(found.starts))
            table[(each.compiled_source, int(each.flags))] = (tuple(tuple(sorted(group)) for group in found.needs),
                                                              starts, *gate_sides(each))
    return table


def gate_sides(each: Pattern) -> Sides:
    """How many boundaries between lines holding text one match of the pattern crosses before the
    start of a literal of its first set of needs (what its gate's windows are built around) and
    after it; where no such literal can be placed in every match (or it needs none: a gate then
    scans around its words), the reach of what its gate runs (:func:`gate_reach`) on both sides.

    Only the pattern's own matches count: the gate reports exactly what ``finditer`` finds in any
    part of the text (a window) it scans, the open-ended run it passes over and the branches it
    looks for inside one included, so a window needs to hold each match, not each run."""
    needs = derive(each.compiled_source, each.flags).needs
    found = sides(each.compiled_source, each.flags, needs[0]) if needs else None
    if found is None:
        reach = gate_reach(each)
        return reach, reach
    return found


def gate_reach(each: Pattern) -> int | None:
    """The line reach of what the pattern's gate runs: the pattern, the open-ended run it passes
    over (a branch of the pattern the gate compiles: :func:`skillsite.audit.text.make_gate`) and
    the branches looked for inside that run (None: one of them has no bound)."""
    sources = [each.compiled_source]
    if each.hopeless:
        sources.append("(?:{})(?:{})".format(*each.hopeless))
    if each.beside:
        sources.append(ascii_reading(each.beside) if each.folds else each.beside)
    reaches = [line_reach(source, each.flags) for source in sources]
    return None if None in reaches else max(reaches)  # type: ignore[type-var]


def render() -> str:
    """The text of literal_table.json: a list of ``[pattern source, flags, needs, starts, before,
    after]``, one pattern a line (sorted, so that a changed rule is a one-line diff)."""
    rows = [json.dumps([source, flags, needs, starts, before, after], ensure_ascii=False)
            for (source, flags), (needs, starts, before, after) in sorted(entries().items())]
    return "[\n" + ",\n".join(rows) + "\n]\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the committed table is stale")
    args = parser.parse_args()
    text = render()
    write_or_check(TABLE, text, args.check, str(TABLE.relative_to(HERE.parents[1])),
                   f": {text.count(chr(10)) - 2} patterns")


if __name__ == "__main__":
    main()
