"""What trusting the last build's records saves a rebuild (issue #47): side by side, one
changed SKILL.md and no change at all, rebuilt trusting the records of the output (the default)
and with ``--verify-output`` (every kept file looked at: what every rebuild did before).

    python benchmarks/rebuild_trust.py [--skills 10000] [--repeat 3] [--jobs 2] [--work DIR]

A synthetic catalog (benchmarks/synth.py) is built cold once; then each round, for each way in
alternating order: one untimed rebuild after an edit (a build leaves its state as its way does:
one that verifies records no back folder to trust), one timed after another edit, and one timed
with nothing changed; each in a fresh process (``skillsite build`` as CI runs it).  Medians of
``--repeat`` rounds.
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
from machine import describe  # noqa: E402
from synth import generate  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def timed_build(src: Path, out: Path, cache: Path, jobs: int, verify: bool) -> float:
    """Seconds of one ``skillsite build`` in a fresh process."""
    command = [sys.executable, "-m", "skillsite", "build", str(src), "-o", str(out), "--cache-dir", str(cache),
               "-q", "-j", str(jobs), "--keep-going", *(["--verify-output"] if verify else [])]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(f"the build failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return seconds


def edit(src: Path, number: int) -> None:
    """One more line in one skill's SKILL.md (another skill each time), dated a minute ago."""
    skill = sorted(src.glob("group-*/syn-*/SKILL.md"))[number]
    skill.write_text(skill.read_text(encoding="utf-8") + f"\nEdit number {number}.\n", encoding="utf-8")
    stamp = time.time() - 60
    os.utime(skill, (stamp, stamp))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temporary one)")
    args = parser.parse_args()
    print(f"machine: {describe()}")
    print(f"command: python benchmarks/rebuild_trust.py {' '.join(sys.argv[1:])}\n")
    with tempfile.TemporaryDirectory(prefix="rebuild-trust-", dir=args.work) as tmp:
        work = Path(tmp)
        src = generate(work / "src", args.skills)
        out, cache = work / "site", work / "cache"
        cold = timed_build(src, out, cache, args.jobs, False)
        times: dict[tuple[str, bool], list[float]] = {}
        edits = iter(range(10**6))
        for round_ in range(args.repeat):
            for verify in ((False, True) if round_ % 2 == 0 else (True, False)):
                edit(src, next(edits))
                timed_build(src, out, cache, args.jobs, verify)
                edit(src, next(edits))
                times.setdefault(("one change", verify), []).append(timed_build(src, out, cache, args.jobs, verify))
                times.setdefault(("no change", verify), []).append(timed_build(src, out, cache, args.jobs, verify))
        files = sum(len(names) for _, _, names in os.walk(out))
        print(f"{args.skills:,} synthetic skills, {files:,} files in the output; cold build {cold:.1f} s "
              f"(-j {args.jobs}); medians of {args.repeat}, alternated\n")
        print("| rebuild | trusting the records | --verify-output | saved |\n|---|---:|---:|---:|")
        for kind in ("one change", "no change"):
            trusted, verified = (statistics.median(times[(kind, v)]) for v in (False, True))
            print(f"| {kind} | {trusted:.2f} s | {verified:.2f} s | {verified - trusted:.2f} s "
                  f"({(verified - trusted) / verified:.0%}) |")


if __name__ == "__main__":
    main()
