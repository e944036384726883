"""``skillsite serve``'s watcher: what an idle serve costs and how soon it sees a save.

For each version of the code (``--code LABEL=FOLDER``, a checkout put first on PYTHONPATH;
default: this repository), it runs ``skillsite serve SOURCE --port 0`` in a fresh process
and, once the first build is served:

  settled      from "Serving" to the first second with under 5 % of a core used (what serve
               does before it watches: it makes ready the audit its first rebuild runs, and
               publishes once more with nothing changed, making what that rebuild would keep)
  idle CPU     CPU time of the serve's processes (watcher, server, file-event process) over
               ``--idle`` seconds with nothing changing, as a share of one core
  detected     from a save (one line appended to one SKILL.md) to serve printing
               "Change detected" (median of ``--edits`` saves, min-max)
  rebuilt      from the save to serve printing "Built ...": detection plus the whole rebuild
  rebuild      the rebuild alone, as serve prints it ("in X s")
  first        the first save's "reloaded" apart (it is in the others too): the first rebuild
               after serve's cold build pays for what that build did in worker processes
  reloaded     from the save until the served version (``/__skillsite/version``, which each
               page asks with the number it has, to reload when it changes) changes: the edit
               to the reloaded page of issue #47
  stop         from SIGINT to the process's exit (status 0, "Stopping." printed)
  removed      from SIGINT until serve's temporary folder is gone (after the exit, when a
               detached process removes it)

    python benchmarks/serve_watch.py SOURCE [--code before=/tmp/main --code after=.] [--idle 30] [--edits 3]

SOURCE is edited: use a copy (``cp -rL``).  Versions run one after the other, each with a
cold first build; the machine's load drifts, so compare rows of one run.
"""
from __future__ import annotations

import argparse
import os
import queue
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from code_versions import check_version, version_env  # noqa: E402
from machine import describe  # noqa: E402

from skillsite.publish.serve import VERSION_PATH  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
TICK = os.sysconf("SC_CLK_TCK")
BUILT = re.compile(r"^Built .* in ([0-9.]+) s$")
FIRST_BUILD_TIMEOUT = 1800.0
EDIT_TIMEOUT = 300.0
STOP_TIMEOUT = 1800.0  # until the temporary folder (two catalogs and a cache) is removed


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of ``pid`` and every process under it, now."""
    total = 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / TICK
        for task in os.listdir(f"/proc/{pid}/task"):
            for child in Path(f"/proc/{pid}/task/{task}/children").read_text().split():
                total += cpu_seconds(int(child))
    except OSError:  # ended meanwhile
        pass
    return total


class Lines:
    """The lines a process writes to stderr, each with the time it was read."""

    def __init__(self, stream) -> None:
        self.queue: queue.Queue[tuple[float, str]] = queue.Queue()
        self.all: list[str] = []
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream) -> None:
        for line in stream:
            self.queue.put((time.monotonic(), line.rstrip("\n")))
        self.queue.put((time.monotonic(), ""))

    def wait_for(self, test, timeout: float) -> tuple[float, str]:
        """The first line (and when it came) that passes ``test``; SystemExit after ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                when, line = self.queue.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise SystemExit("timed out; serve said:\n" + "\n".join(self.all[-20:])) from None
            self.all.append(line)
            if test(line):
                return when, line


def settle(pid: int) -> float:
    """Wait until the processes of ``pid`` use under 5 % of a core over a second (serve publishes
    its catalog once more after the first build, to prepare fast rebuilds); when that was."""
    deadline = time.monotonic() + FIRST_BUILD_TIMEOUT
    while time.monotonic() < deadline:
        before = cpu_seconds(pid)
        time.sleep(1.0)
        if cpu_seconds(pid) - before < 0.05:
            return time.monotonic() - 1.0
    raise SystemExit("serve never fell idle")


def edit(skill: Path) -> float:
    """Append a line to ``skill``; the time of the save."""
    with skill.open("a", encoding="utf-8") as handle:
        handle.write(f"\nA changed line {time.time_ns()}.\n")
    return time.monotonic()


class Reload:
    """Asks a serve for its version, waiting for one other than ``since`` as a served page does;
    :meth:`when` is the time the answer came."""

    def __init__(self, url: str, since: str) -> None:
        self.url, self.since = url, since
        self.answered = float("nan")
        self.thread = threading.Thread(target=self._ask, daemon=True)
        self.thread.start()

    def _ask(self) -> None:
        deadline = time.monotonic() + EDIT_TIMEOUT
        while time.monotonic() < deadline:
            if served_version(f"{self.url}?since={self.since}") != self.since:
                self.answered = time.monotonic()
                return

    def when(self) -> float:
        self.thread.join(EDIT_TIMEOUT)
        return self.answered


def served_version(url: str) -> str:
    """The build number a serve answers at ``url``."""
    with urllib.request.urlopen(url, timeout=EDIT_TIMEOUT) as response:
        return response.read().decode()


def measure(label: str, code: Path, source: Path, skill: Path, idle: float, edits: int, work: Path) -> dict:
    """One serve of ``source`` by the code in ``code``: idle CPU, detection, rebuild, stop."""
    check_version(label, code, work)
    env = version_env(code, TMPDIR=str(work))
    proc = subprocess.Popen([sys.executable, "-m", "skillsite", "serve", str(source), "--port", "0"],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env, cwd=work)
    lines = Lines(proc.stderr)
    try:
        serving, line = lines.wait_for(lambda line: line.startswith("Serving "), FIRST_BUILD_TIMEOUT)
        version_url = urllib.parse.urljoin(line.split()[1], VERSION_PATH)
        time.sleep(3)  # the first build's workers are gone, the server process is up
        settled = settle(proc.pid) - serving
        before = cpu_seconds(proc.pid)
        time.sleep(idle)
        cpu = (cpu_seconds(proc.pid) - before) / idle
        detected, rebuilt, rebuild, reloaded = [], [], [], []
        for _ in range(edits):
            reload = Reload(version_url, served_version(version_url))
            time.sleep(0.2)  # the question is waiting at the server, as a page's is
            saved = edit(skill)
            seen, _ = lines.wait_for(lambda line: line.startswith("Change detected"), EDIT_TIMEOUT)
            done, line = lines.wait_for(lambda line: bool(BUILT.match(line)) or "build failed" in line, EDIT_TIMEOUT)
            detected.append(seen - saved)
            rebuilt.append(done - saved)
            match = BUILT.match(line)
            rebuild.append(float(match.group(1)) if match else float("nan"))
            reloaded.append(reload.when() - saved)
            time.sleep(2.5)
        asked = time.monotonic()
        proc.send_signal(signal.SIGINT)
        status = proc.wait(timeout=STOP_TIMEOUT)
        stopped = time.monotonic() - asked
        lines.wait_for(lambda line: line == "", 60)
        while any(work.glob("skillsite-serve-*")) and time.monotonic() - asked < STOP_TIMEOUT:
            time.sleep(0.05)
        removed = time.monotonic() - asked if not any(work.glob("skillsite-serve-*")) else float("nan")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    clean = status == 0 and "Stopping." in lines.all and not any("Traceback" in line for line in lines.all)
    notes = [line for line in lines.all if "polling" in line]
    return {"label": label, "settled": settled, "cpu": cpu, "detected": detected, "rebuilt": rebuilt, "rebuild": rebuild,
            "reloaded": reloaded,
            "stop": stopped, "removed": removed, "clean": clean, "notes": notes}


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f})"


def main() -> None:
    # the serve processes this starts get SIGINT's default action (and so stop on it) even when
    # this runs in the background of a non-interactive shell, which ignores SIGINT
    signal.signal(signal.SIGINT, signal.default_int_handler)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("--code", action="append", default=[], help="LABEL=FOLDER (repeatable)")
    parser.add_argument("--idle", type=float, default=30.0)
    parser.add_argument("--edits", type=int, default=3)
    parser.add_argument("--work", type=Path, default=None, help="folder for serve's temporary folders")
    args = parser.parse_args()
    source = args.source.resolve()
    skills = sorted(source.rglob("SKILL.md"))
    skill = skills[len(skills) // 2]
    files = sum(len(names) for _, _, names in os.walk(source))
    versions = [item.split("=", 1) for item in args.code] or [["this", str(REPO)]]
    rows = []
    with tempfile.TemporaryDirectory(prefix="serve-watch-", dir=args.work) as work:
        for label, code in versions:
            rows.append(measure(label, Path(code).resolve(), source, skill, args.idle, args.edits, Path(work)))
            print(rows[-1], file=sys.stderr, flush=True)  # kept if a later version fails
    print(f"\nmachine: {describe()}\ncommand: python benchmarks/serve_watch.py {' '.join(sys.argv[1:])}")
    print(f"\nskillsite serve {source}: {len(skills)} skills, {files} files; idle {args.idle:.0f} s, "
          f"{args.edits} saves (median (min-max), seconds)\n")
    print("| code | Serving -> idle | idle CPU (share of a core) | save -> detected | save -> built | rebuild | "
          "save -> reloaded | first save -> reloaded | Ctrl-C -> exit | Ctrl-C -> temporary folder gone | clean |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['label']} | {row['settled']:.1f} | {row['cpu']:.1%} | {spread(row['detected'])} | "
              f"{spread(row['rebuilt'])} | {spread(row['rebuild'])} | {spread(row['reloaded'])} | "
              f"{row['reloaded'][0]:.3f} | "
              f"{row['stop']:.2f} | "
              f"{row['removed']:.2f} | {'yes' if row['clean'] else 'NO'} |")
    for row in rows:
        for note in row["notes"]:
            print(f"{row['label']}: {note}")


if __name__ == "__main__":
    main()
