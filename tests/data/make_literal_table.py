"""Write skillsite/audit/data/literal_table.json: the literals every declared audit pattern needs.

    python tests/data/make_literal_table.py           # writes the table
    python tests/data/make_literal_table.py --check   # exit 1 when the table is stale

Each pattern the one-pass search filters (every pattern but those on the text as written) is
derived by ``literal_derivation.derive`` (from the tree of Python's own regular-expression parser)
and written as ``(source, flags): (needs, starts)``: the sets of literals one of each of which
every match holds, the rarest first, and the literals every match starts with (None: not known).
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
from literal_derivation import derive  # noqa: E402

from skillsite.audit.rules import PATTERNS  # noqa: E402

TABLE = HERE.parents[1] / "skillsite" / "audit" / "data" / "literal_table.json"

def entries() -> dict[tuple[str, int], tuple[tuple[tuple[str, ...], ...], tuple[str, ...] | None]]:
    """The table: each filtered pattern's literals, by (source as compiled, flags)."""
    table = {}
    for each in PATTERNS:
        if each.prefiltered:
            found = derive(each.compiled_source, each.flags)
            starts = None if found.starts is None else tuple(sorted(found.starts))
            table[(each.compiled_source, int(each.flags))] = (tuple(tuple(sorted(group)) for group in found.needs), starts)
    return table


def render() -> str:
    """The text of literal_table.json: a list of ``[pattern source, flags, needs, starts]``, one
    pattern a line (sorted, so that a changed rule is a one-line diff)."""
    rows = [json.dumps([source, flags, needs, starts], ensure_ascii=False)
            for (source, flags), (needs, starts) in sorted(entries().items())]
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
