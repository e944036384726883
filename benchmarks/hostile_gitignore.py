"""A hostile .gitignore line against a hostile file name: how the walk's time grows with the name.

pathspec turns each ``*`` of a name's glob into ``[^/]*``, and ``re`` backtracks: a line with
several stars in one name (``a*c*c*c*c*b``) and a file named ``a`` and many ``c`` (no ``b``) make
it try every way of placing the stars, time growing with the name's length to the power of the
stars.  Both come from the tree being published (untrusted).  For each line and name length this
prints the seconds of one answer by pathspec's own expression (``re``) and by the walk's
(:class:`skillsite.source.ignore.Ignores`, which compiles such an expression with RE2: linear
time), the same answer checked.  A case ``re`` would take longer than ``--limit`` seconds over
(its time at half the length times the growth from a quarter to a half: over the limit) is
not run.

Run:  python benchmarks/hostile_gitignore.py [--limit 20]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from machine import describe  # noqa: E402

from skillsite.source.ignore import Ignores, rules_of  # noqa: E402

#: (.gitignore line, the repeated letter of the name that starts with "a" and never ends in "b")
LINES = [("a*c*b", "c"), ("a*c*c*b", "c"), ("a*c*c*c*c*b", "c"), ("a" + "*c" * 12 + "*b", "c"),
         ("**/a/**/a/**/b", "a/")]
LENGTHS = [10, 20, 40, 80, 160, 320, 2000]


def seconds(work) -> tuple[float, object]:
    started = time.perf_counter()
    answer = work()
    return time.perf_counter() - started, answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=float, default=20.0, help="seconds over which a re case is skipped")
    args = parser.parse_args()
    print(f"machine: {describe()}")
    print(f"command: python benchmarks/hostile_gitignore.py --limit {args.limit}\n")
    print("| line | name length | re (pathspec's expression) | the walk | same answer |")
    print("|---|---:|---:|---:|---|")
    for line, letter in LINES:
        spec = rules_of(line + "\n")
        walk = Ignores((("", "", spec),))
        regex = spec.patterns[0].regex
        times: list[float] = []
        for length in LENGTHS:
            name = "a" + letter * ((length - 1) // len(letter))
            walk_time, walked = seconds(lambda: walk.ignored(name, False))
            guess = times[-1] * times[-1] / times[-2] if len(times) >= 2 and times[-2] > 0 else 0.0
            if guess > args.limit:
                print(f"| `{line}` | {len(name):,} | not run (over {args.limit:g} s) | {walk_time:.5f} s | |")
                times.append(guess)
                continue
            re_time, found = seconds(lambda: regex.search(name) is not None)
            times.append(re_time)
            print(f"| `{line}` | {len(name):,} | {re_time:.5f} s | {walk_time:.5f} s | {found == walked} |")


if __name__ == "__main__":
    main()
