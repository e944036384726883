"""How the look-alike descriptions check (SK219, ``similar_pairs``) grows with the catalog.

    python benchmarks/similar_pairs.py [--sizes 10000,30000,100000] [--keep DIR] [--uncapped]

Synthetic descriptions (benchmarks/synth.py, the corpus's vocabulary) of each size, checked
in this process: the seconds and the pairs found.  ``--uncapped`` also runs the check as it
was before terms of more than ``MAX_COMMON`` descriptions were left out (only 5 % of the
descriptions as the limit), side by side, for the pairs the limit leaves out and the time it
saves.  ``--keep DIR`` reuses (or leaves) the synthetic sources there.
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from machine import describe  # noqa: E402
from synth import generate  # noqa: E402
from skillsite.agent import budget  # noqa: E402

_DESCRIPTION = re.compile(r"^description:\s*(.*)$", re.M)


def descriptions(src: Path) -> list[dict[str, str]]:
    """id, name and description of every synthetic skill (their descriptions are one line)."""
    found = []
    for index, path in enumerate(sorted(src.glob("*/*/SKILL.md"))):
        match = _DESCRIPTION.search(path.read_text(encoding="utf-8", errors="replace"))
        text = match.group(1).strip().strip("'\"") if match else ""
        found.append({"id": f"s{index:06d}", "name": path.parent.name, "description": text or "none"})
    return found


def timed(entries: list[dict[str, str]], most: int) -> tuple[float, int]:
    """Seconds and pairs of one check with ``MAX_COMMON`` at ``most``."""
    kept = budget.MAX_COMMON
    budget.MAX_COMMON = most
    try:
        started = time.perf_counter()
        pairs = budget.similar_pairs(entries)
        return time.perf_counter() - started, len(pairs)
    finally:
        budget.MAX_COMMON = kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,30000,100000")
    parser.add_argument("--keep", type=Path, metavar="DIR")
    parser.add_argument("--uncapped", action="store_true")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    work = args.keep or Path(tempfile.mkdtemp(prefix="similar-pairs-"))
    src = work / f"synthetic-{max(sizes)}"
    if not src.is_dir():
        generate(src, max(sizes), files=False)
    every = descriptions(src)
    print(f"{describe()}\n`python benchmarks/similar_pairs.py --sizes {args.sizes}"
          f"{' --uncapped' if args.uncapped else ''}`\n")
    print(f"| skills | seconds (MAX_COMMON {budget.MAX_COMMON}) | pairs |"
          + (" seconds (5 % only) | pairs |" if args.uncapped else ""))
    print("|---:|---:|---:|" + ("---:|---:|" if args.uncapped else ""))
    for size in sizes:
        seconds, pairs = timed(every[:size], budget.MAX_COMMON)
        row = f"| {size:,} | {seconds:.1f} | {pairs:,} |"
        if args.uncapped:
            seconds, pairs = timed(every[:size], sys.maxsize)
            row += f" {seconds:.1f} | {pairs:,} |"
        print(row, flush=True)


if __name__ == "__main__":
    main()
