"""What one hostile body costs the page renderer: each Markdown construct of
``hostile_input.MARKDOWN`` repeated to ``--size`` characters (default 1 MiB, the most a SKILL.md
may hold), rendered by ``MarkdownRenderer`` in a fresh process: its seconds, its peak memory
(the process's, imports included) and the HTML it writes.  ``hostile_input.py`` asks whether a
cost grows faster than the body; this asks how much one body of the largest size costs, which
the renderer's budgets (blocks, list lines, link and emphasis tries, table cells, link
characters) bound.

Side by side (``--code LABEL=FOLDER``, once or more: checkouts of the versions to compare), each
construct is rendered by every version in turn.  Rows are sorted by the last version's seconds.

    python benchmarks/render_cost.py [--size 1048576] [--code before=DIR --code after=.] [--only UNIT]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from code_versions import check_version, in_turns, run_in_version  # noqa: E402
from hostile_input import MARKDOWN  # noqa: E402
from machine import describe  # noqa: E402

REPO = Path(__file__).resolve().parents[1]

#: Run by each version in a process of its own, ``unit`` and ``size`` assigned first.
RENDER_ONE = """
import json, resource, time
from skillsite.publish.markdown import LinkTargets, MarkdownRenderer
renderer = MarkdownRenderer(LinkTargets(frozenset({"s"}), frozenset()))
body = unit * (size // len(unit))
started = time.perf_counter()
html = renderer.render(body, "s")
seconds = time.perf_counter() - started
print(json.dumps([seconds, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, len(html) / 2**20]))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=1 << 20, help="characters of each body")
    parser.add_argument("--code", action="append", default=[], metavar="LABEL=FOLDER",
                        help="a version to compare (default: this checkout)")
    parser.add_argument("--only", action="append", default=[], metavar="UNIT", help="render only this construct")
    args = parser.parse_args()
    codes = dict(code.split("=", 1) for code in args.code) or {"this": str(REPO)}
    units = args.only or list(MARKDOWN)
    print(f"machine: {describe()}")
    print(f"command: python benchmarks/render_cost.py --size {args.size}"
          + "".join(f" --code {code}" for code in args.code) + "".join(f" --only {u!r}" for u in args.only))
    rows: dict[str, dict[str, list[float]]] = {unit: {} for unit in units}
    with tempfile.TemporaryDirectory() as scratch:
        for label, folder in codes.items():  # started outside any checkout: each imports its own skillsite
            check_version(label, Path(folder), Path(scratch))
        for number, unit in enumerate(units):
            for label, folder in in_turns(codes, number):
                rows[unit][label] = json.loads(run_in_version(f"{label} rendering {unit!r}", Path(folder), RENDER_ONE,
                                                              Path(scratch), unit=unit, size=args.size))
    last = list(codes)[-1]
    print(f"\n{len(units)} bodies of {args.size:,} characters, one render each in a fresh process\n")
    print("| construct repeated | " + " | ".join(f"{label}: s, peak MB, HTML MB" for label in codes) + " |")
    print("|---|" + "---:|" * len(codes))
    for unit in sorted(units, key=lambda u: -rows[u][last][0]):
        measured = (rows[unit][label] for label in codes)
        cells = (f"{seconds:.2f}, {peak:.0f}, {html:.1f}" for seconds, peak, html in measured)
        print(f"| {unit!r} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
