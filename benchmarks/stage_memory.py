"""Where a cold build spends its time and memory, stage by stage (issue #29).

One cold build (a fresh output and cache folder, in this process) of SRC, as ``skillsite build
--keep-going`` builds it (a skill with errors is left out, the others published: the shared
corpus has skills without frontmatter); for each stage the build reports (discover, read,
skills, manifest, pages, swap) it prints:

  wall s        seconds from the stage's start to the next one's
  CPU s         CPU seconds of this process and of its finished workers in that time
  build MB      peak RSS of this process in the stage: VmHWM, reset at each stage's start
                through /proc/self/clear_refs (Linux)
  worker MB     the largest RSS of any worker process in the stage, read from /proc every
                0.2 s (a forked worker counts the pages it shares with this process)

Memory is what this script is for: time on a shared machine varies, compare runs side by side.

    python benchmarks/stage_memory.py SRC [--jobs N] [--keep DIR]
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path

from skillsite.publish.build import build

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import describe  # noqa: E402


def status_mb(pid: int | str, field: str) -> int:
    """A ``VmHWM`` or ``VmRSS`` line of /proc/PID/status, in MB (0 when the process is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) // 1024
    except (OSError, ValueError):
        pass
    return 0


def children(pid: int) -> list[int]:
    """The processes started by ``pid`` (its workers)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


def cpu_seconds() -> float:
    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


class StageMeter:
    """Wall, CPU and peak memory of each stage, as the build's progress callback names them."""

    def __init__(self) -> None:
        self.rows: dict[str, list[float]] = {}
        self.stage = "start"
        self.started, self.cpu, self.worker_peak = time.perf_counter(), cpu_seconds(), 0
        self.done = threading.Event()
        self.sampler = threading.Thread(target=self._sample_workers, daemon=True)

    def _sample_workers(self) -> None:
        while not self.done.wait(0.2):
            for pid in children(os.getpid()):
                self.worker_peak = max(self.worker_peak, status_mb(pid, "VmRSS"))

    def progress(self, stage: str) -> None:
        """Close the current stage's row and start ``stage``'s."""
        now, cpu = time.perf_counter(), cpu_seconds()
        self.rows[self.stage] = [now - self.started, cpu - self.cpu, status_mb("self", "VmHWM"), self.worker_peak]
        try:
            Path("/proc/self/clear_refs").write_text("5")  # VmHWM starts again from VmRSS
        except OSError:
            pass
        self.stage, self.started, self.cpu, self.worker_peak = stage, now, cpu, 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("src", type=Path)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--keep", type=Path, help="build into DIR/out with the cache in DIR/cache, kept")
    args = parser.parse_args()
    print(f"machine: {describe()}")
    print(f"command: python benchmarks/stage_memory.py {' '.join(sys.argv[1:])}\n")
    with tempfile.TemporaryDirectory(prefix="stage-memory-") as scratch:
        work = args.keep or Path(scratch)
        meter = StageMeter()
        meter.sampler.start()
        started = time.perf_counter()
        result = build([args.src], work / "out", cache_dir=work / "cache", keep_going=True, jobs=args.jobs,
                       progress=meter.progress)
        meter.progress("end")
        meter.done.set()
        total = time.perf_counter() - started
    print(f"{len(result.published)} skills published, ok={result.ok}, {total:.1f} s "
          f"({len(result.skipped)} left out with errors)\n")
    print("| stage | wall s | CPU s | build MB | worker MB |")
    print("|---|---:|---:|---:|---:|")
    for stage, (wall, cpu, build_mb, worker_mb) in meter.rows.items():
        if stage != "start":
            print(f"| {stage} | {wall:.1f} | {cpu:.1f} | {build_mb:,} | {worker_mb:,} |")


if __name__ == "__main__":
    main()
