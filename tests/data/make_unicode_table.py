"""Write skillsite/search/data/unassigned.json: the code points Unicode had not yet assigned in the
version the lowest admitted Python knows, which search terms treat as spaces.

    python3.10 tests/data/make_unicode_table.py           # writes the table (run it on the lowest Python)
    python3.10 tests/data/make_unicode_table.py --check   # exit 1 when the table is stale

Which characters are letters, digits, marks and symbols, and how they lower-case, is what the
running Python's Unicode tables say: a letter or emoji assigned since Python 3.10's Unicode 13.0
("🫠", Vithkuqi) was a term on 3.11 and no term on 3.10, so the two built different catalogs.  For
every character assigned in 13.0 the tables of the later Pythons agree on all search reads
(``\\w``, the category's first letter, ``str.lower``, NFC).  The table is written as ranges
``[first, last]``, in order; ``tests/unit/test_search_unicode.py`` checks it on every Python.
"""
from __future__ import annotations

import argparse
import json
import sys
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from golden_file import write_or_check  # noqa: E402

TABLE = HERE.parents[1] / "skillsite" / "search" / "data" / "unassigned.json"


def unassigned_ranges() -> list[list[int]]:
    """The code points of category Cn (unassigned) in the running Python's tables, as ranges."""
    spans: list[list[int]] = []
    for cp in range(0x110000):
        if unicodedata.category(chr(cp)) != "Cn":
            continue
        if spans and spans[-1][1] == cp - 1:
            spans[-1][1] = cp
        else:
            spans.append([cp, cp])
    return spans


def table_text() -> str:
    """The table as written: the Unicode version it was made from, then its ranges, one per line."""
    rows = ",\n".join(f"  {json.dumps(span)}" for span in unassigned_ranges())
    return f'{{"unicode": {json.dumps(unicodedata.unidata_version)}, "unassigned": [\n{rows}\n]}}\n'


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the committed table is stale")
    args = parser.parse_args()
    write_or_check(TABLE, table_text(), args.check, "skillsite/search/data/unassigned.json",
                   f" (Unicode {unicodedata.unidata_version})")


if __name__ == "__main__":
    main()
