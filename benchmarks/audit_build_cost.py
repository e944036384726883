"""What the audit adds to a cold ``skillsite build`` (issue 21's target: under 20%).

Builds the corpus with this tree in turn as ``skillsite build`` does (``--no-cache --keep-going``,
every core, ``sync`` before each build), and the same command with the audit step left out (a
benchmark-only stand-in for ``audit_published`` that finds nothing), and prints the wall time
of each run, the medians and the difference.  Both run the same code but for the audit, so the
difference is the audit's own cost.  As in ``build_speed.py``, it first waits until creating
files is fast again after earlier deletions, and deletes no output until the end (each build
writes a folder of its own).

Run:  python benchmarks/audit_build_cost.py [--runs 3] [--corpus ../shared/corpus] [--settle SECONDS]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_speed import SLOW_CREATE_US, TRASH, file_creation_us  # noqa: E402
from machine import describe  # noqa: E402

REPO = Path(__file__).resolve().parents[1]

# ``skillsite build`` with the audit step replaced by one that audits nothing (every skill: no findings).
# The stand-in takes whatever arguments the pipeline gives the step (they grew once: the audit
# listings), and a step that is no longer there stops the benchmark instead of being silently kept.
WITHOUT_AUDIT = """
import sys
import skillsite.publish.pipeline as pipeline
from skillsite.cli import entry
if not hasattr(pipeline, "audit_published"):
    sys.exit("skillsite.publish.pipeline.audit_published, the audit step left out, is gone")
pipeline.audit_published = lambda *given: {}
sys.argv[0] = "skillsite"
entry()
"""
COMMANDS = {"with the audit (skillsite build)": ["-m", "skillsite"],
            "the same build, audit left out": ["-c", WITHOUT_AUDIT]}


def timed_build(command: list[str], corpus: Path, out: Path) -> float:
    """Seconds of one cold build of ``corpus`` into the new folder ``out``."""
    os.sync()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, *command, "build", str(corpus), "-o", str(out), "--no-cache",
                           "--keep-going"], cwd=REPO, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if "Built" not in done.stdout:
        raise SystemExit(f"build failed:\n{done.stdout}\n{done.stderr}")
    return seconds


def wait_for_fast_file_creation(folder: Path, limit: float = 360) -> None:
    """Wait (up to ``limit`` seconds) until the file system creates files at its settled speed."""
    waited = 0.0
    while file_creation_us(folder, 500) > SLOW_CREATE_US and waited < limit:
        time.sleep(15)
        waited += 15
    if waited:
        print(f"waited {waited:.0f} s for the file system to settle after earlier deletions", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpus")
    parser.add_argument("--settle", type=float, default=360, metavar="SECONDS",
                        help="wait up to this long while creating a file is slow (after earlier deletions; default 360)")
    args = parser.parse_args()
    print(f"machine: {describe()}\ncommand: python {' '.join(sys.argv)}\n")
    with tempfile.TemporaryDirectory(prefix="skillsite-audit-cost-") as tmp:
        TRASH.folder = Path(tmp) / "trash"  # the probes of file creation go with the rest, not to the shared trash
        wait_for_fast_file_creation(Path(tmp), args.settle)
        times: dict[str, list[float]] = {label: [] for label in COMMANDS}
        for run in range(args.runs):
            for index, (label, command) in enumerate(COMMANDS.items()):  # alternating: load drifts hit both
                times[label].append(timed_build(command, args.corpus, Path(tmp) / f"out-{run}-{index}"))
    print("| build | median | runs |\n|---|---:|---|")
    for label, values in times.items():
        print(f"| {label} | {statistics.median(values):.2f} s | {', '.join(f'{v:.2f}' for v in values)} |")
    with_audit, without = (statistics.median(values) for values in times.values())
    print(f"\nthe audit adds {with_audit - without:.2f} s = {100 * (with_audit - without) / without:.0f}% "
          "to a cold build (target: under 20%)")


if __name__ == "__main__":
    main()
