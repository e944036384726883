"""What changed under the folders ``skillsite serve`` watches: file events, else polling.

:class:`EventWatcher` asks the operating system (``watchfiles``: the Rust ``notify`` crate,
inotify on Linux) and costs nothing while nothing changes.  It runs in a process of its own
(``main`` below), because notify reads events in a thread, and the process that rebuilds
forks build workers, which a thread's held locks could hang.  That process writes each batch
of changed paths to a pipe; the watcher reads it.  To know that every change made before
some instant has been reported, it creates a file in a folder of its own that is watched too
(events come in order): once that file is reported, so is everything before it.

:class:`PollingWatcher` stats every file under its paths at each look: what ``serve`` does
where file events are unavailable (the inotify watch limit is reached, ``watchfiles`` is
missing or fails), and for single files (an editor that saves by renaming replaces the
file that an event watch would follow).
"""
from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterable, Sequence

from skillsite.models import Stamp, stamp_of
from skillsite.source.discover import AUDIT_SKIPPED_DIRS
from skillsite.source.ignore import TOOL_FOLDERS

__all__ = ["SKIP_DIRS", "COLLAPSED_DIRS", "EventWatcher", "PollingWatcher", "WatchUnavailable", "reported_path",
           "watched_stamps"]

#: Not watched: a build reads nothing in them (``.git``: the audit skips it, discovery too; the
#: refs a build's releases depend on are polled by ``serve``).
SKIP_DIRS = AUDIT_SKIPPED_DIRS
#: Watched, but a change inside one is reported as the folder itself: no skill is discovered in a
#: tool's folder, yet the audit reads what it holds, and a ``.venv`` without its marker holds
#: skills; an install there makes thousands of events, which one path stands for.
COLLAPSED_DIRS = (TOOL_FOLDERS | {".venv"}) - SKIP_DIRS
STEP_MS = 50          # the event process looks for new events this often
DEBOUNCE_MS = 1600    # a batch closes after STEP_MS without events, or after this long
READY_SECONDS = 300.0  # longest wait for the event process to watch every folder
SYNC_SECONDS = 10.0   # longest wait for the sync file's event (then: assume a change)
# Records on the pipe, each ending with NUL: a kind byte, then its text.
READY, ERROR, PATH, BATCH_END = b"R", b"E", b"P", b"B"
# Starts the event process with this package importable, as it is here.
BOOT = ("import sys; root = sys.argv.pop(1); sys.path.insert(0, root) if root not in sys.path else None; "
        "from skillsite.publish.watch import main; sys.exit(main(sys.argv[1:]))")


class WatchUnavailable(Exception):
    """File events cannot be had (the message says why): poll instead."""


def watched_stamps(paths: Iterable[Path], ignore: Sequence[Path] = ()) -> tuple[tuple[str, Stamp], ...]:
    """(path, stamp) of every file under ``paths`` but ``ignore``, sorted: any edit changes it."""
    ignored = {os.path.abspath(p) for p in ignore}
    found: list[tuple[str, Stamp]] = []
    for base in paths:
        if base.is_file():
            st = base.stat()
            found.append((str(base), stamp_of(st)))
            continue
        for folder, dirs, files in os.walk(os.path.abspath(base)):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and os.path.join(folder, d) not in ignored)
            for name in files:
                path = os.path.join(folder, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                found.append((path, stamp_of(st)))
    return tuple(sorted(found))


class PollingWatcher:
    """Compares the stamps of every file under ``paths`` with the last look's."""

    def __init__(self, paths: Sequence[Path], ignore: Sequence[Path] = ()):
        self.paths = list(paths)
        self.ignore = list(ignore)
        self.seen = watched_stamps(self.paths, self.ignore)
        self.changed: set[str] = set()  # the files that changed, were added or went, since taken

    def look(self) -> bool:
        """Whether a file changed since the last look."""
        now = watched_stamps(self.paths, self.ignore)
        if now == self.seen:
            return False
        roots = sorted((os.path.abspath(p) for p in self.paths), key=len, reverse=True)
        self.changed.update(reported_path(path, roots) for path, *_ in set(now).symmetric_difference(self.seen))
        self.seen = now
        return True

    def take_paths(self) -> set[str] | None:
        """The paths that changed since the last call (as the walk reached them)."""
        paths, self.changed = self.changed, set()
        return paths

    def wait(self, timeout: float) -> bool:
        """Sleep ``timeout`` seconds, then look."""
        time.sleep(timeout)
        return self.look()

    def close(self) -> None:
        """Nothing to release."""


class EventWatcher:
    """File events under ``folders`` (but ``ignore``), from a process running ``watchfiles``.

    ``sync_folder`` must be a folder of this watcher's own, outside ``folders``'s watched
    files.  Raises :class:`WatchUnavailable` when events cannot be had.
    """

    def __init__(self, folders: Sequence[Path], ignore: Sequence[Path], sync_folder: Path):
        if os.name == "nt":  # pragma: no cover - select() cannot wait on a pipe there
            raise WatchUnavailable("this platform cannot wait on a pipe")
        sync_folder.mkdir(parents=True, exist_ok=True)
        self.sync_folder = Path(os.path.realpath(sync_folder))  # as events name it (macOS: /private/tmp)
        self.syncs = 0
        self.buffer = b""
        self.batch: list[str] = []
        self.seen_sync: set[str] = set()
        self.changed = False
        self.paths: set[str] | None = set()  # the paths reported since taken (None: some went unseen)
        args = ["--sync", str(sync_folder)] + [f"--ignore={p}" for p in ignore] + ["--"] + [str(f) for f in folders]
        try:
            self.process = subprocess.Popen([sys.executable, "-c", BOOT, _package_root(), *args],
                                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                            stderr=subprocess.DEVNULL)
        except OSError as exc:
            raise WatchUnavailable(f"cannot start the file-event process: {exc}") from None
        try:
            self._expect_ready()
        except BaseException:
            self.close()
            raise

    def _expect_ready(self) -> None:
        deadline = time.monotonic() + READY_SECONDS
        while True:
            record = self._next_record(deadline)
            if record is None:
                raise WatchUnavailable(f"the file-event process did not start within {READY_SECONDS:.0f} s")
            if record[:1] == READY:
                return
            if record[:1] == ERROR:
                raise WatchUnavailable(os.fsdecode(record[1:]))

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for a batch of changes; True when one came.

        Batches that are already complete come with it: a burst gives one rebuild."""
        deadline = time.monotonic() + timeout
        while self._take_batch(deadline):
            if self.changed:
                while self._take_batch(time.monotonic()):
                    pass
                self.changed = False
                return True
        return False

    def look(self) -> bool:
        """Whether anything changed since the last look: every change made before this call counts."""
        self.syncs += 1
        token = self.sync_folder / str(self.syncs)
        token.touch()
        (self.sync_folder / str(self.syncs - 1)).unlink(missing_ok=True)
        deadline = time.monotonic() + SYNC_SECONDS
        self.seen_sync = set()
        while str(token) not in self.seen_sync:
            if not self._take_batch(deadline):
                self.paths = None  # which paths changed is not known either
                return True  # the sync event is late or lost: a rebuild is the safe answer
        changed, self.changed = self.changed, False
        return changed

    def _take_batch(self, deadline: float) -> bool:
        """Read one whole batch (False when none came before ``deadline``); note what it holds."""
        while True:
            record = self._next_record(deadline)
            if record is None:
                return False
            kind, text = record[:1], os.fsdecode(record[1:])
            if kind == PATH:
                self.batch.append(text)
            elif kind == BATCH_END:
                self._note(self.batch)
                self.batch = []
                return True
            elif kind == ERROR:
                raise WatchUnavailable(text)

    def _note(self, paths: list[str]) -> None:
        own = str(self.sync_folder) + os.sep
        self.seen_sync = {p for p in paths if p.startswith(own)}
        if len(self.seen_sync) < len(paths):
            self.changed = True
            if self.paths is not None:
                self.paths.update(p for p in paths if not p.startswith(own))

    def take_paths(self) -> set[str] | None:
        """The paths reported since the last call (real paths); None when some change may have gone unreported."""
        paths, self.paths = self.paths, set()
        return paths

    def _next_record(self, deadline: float) -> bytes | None:
        """The next record from the pipe, waiting until ``deadline`` (None when it passed)."""
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if not select.select([self.process.stdout], [], [], max(0.0, left))[0]:
                return None
            chunk = os.read(self.process.stdout.fileno(), 65536)
            if not chunk:
                raise WatchUnavailable(f"the file-event process ended (exit status {self.process.wait()})")
            self.buffer += chunk
        record, _, self.buffer = self.buffer.partition(b"\0")
        return record

    def close(self) -> None:
        """End the event process."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:  # pragma: no cover - it ignores SIGTERM only if stuck
                self.process.kill()
                self.process.wait()
        self.process.stdout.close()


def _package_root() -> str:
    """The folder that holds the ``skillsite`` package this process runs."""
    return str(Path(__file__).resolve().parents[2])


# ------------------------------------------------------------------ the event process


class _ParentGone:
    """``watchfiles``'s stop event: set once the process that started this one has ended."""

    def __init__(self) -> None:
        self.parent = os.getppid()

    def is_set(self) -> bool:
        return os.getppid() != self.parent


def _below_root(path: str, roots: Sequence[str]) -> list[str]:
    """The names of ``path`` below the deepest of ``roots`` holding it (all of them for none)."""
    root = next((r for r in roots if path.startswith(r + os.sep)), None)
    return (path[len(root) + 1:] if root else path).split(os.sep)


def reported_path(path: str, roots: Sequence[str]) -> str:
    """How a change at ``path`` is reported: as the first folder of :data:`COLLAPSED_DIRS` on
    its way from the root that holds it (``roots``: longest first), else as itself."""
    names = _below_root(path, roots)
    cut = next((n for n, name in enumerate(names[:-1]) if name in COLLAPSED_DIRS), None)
    return path if cut is None else path[:len(path) - len(os.sep.join(names[cut + 1:])) - 1]


class _Relevant:
    """``watchfiles``'s filter: the sync folder's files, and every path but ignored ones and
    those inside a folder named in ``SKIP_DIRS`` (below a watched folder)."""

    def __init__(self, roots: Sequence[str], ignore: Sequence[str], sync: str):
        self.roots = sorted((r.rstrip(os.sep) for r in roots), key=len, reverse=True)
        self.ignore = [p + os.sep for p in ignore]
        self.sync = sync + os.sep

    def __call__(self, change: object, path: str) -> bool:
        if path.startswith(self.sync):
            return True
        if path.startswith(tuple(self.ignore)):
            return False
        return not SKIP_DIRS.intersection(_below_root(path, self.roots))


def main(argv: Sequence[str]) -> int:
    """Watch the folders in ``argv``, writing each batch of changed paths to stdout (see the records)."""
    import argparse

    parser = argparse.ArgumentParser(prog="skillsite-watch")
    parser.add_argument("--sync", required=True)
    parser.add_argument("--ignore", action="append", default=[])
    parser.add_argument("folders", nargs="+")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is serve's, which then ends this process
    out = sys.stdout.buffer
    roots = [os.path.realpath(f) for f in args.folders]  # events name real paths (FSEvents does)
    sync = os.path.realpath(args.sync)
    longest_first = sorted((r.rstrip(os.sep) for r in roots), key=len, reverse=True)
    try:
        from watchfiles import watch

        batches = watch(*roots, sync, watch_filter=_Relevant(roots, [os.path.realpath(p) for p in args.ignore], sync),
                        debounce=DEBOUNCE_MS, step=STEP_MS, rust_timeout=2 * STEP_MS, yield_on_timeout=True,
                        stop_event=_ParentGone(), raise_interrupt=False, ignore_permission_denied=False)
        ready = False
        for changes in batches:
            if not ready:
                out.write(READY + b"\0")
                ready = True
            if changes:
                paths = sorted({reported_path(path, longest_first) for _, path in changes})
                out.write(b"".join(PATH + os.fsencode(path) + b"\0" for path in paths) + BATCH_END + b"\0")
            out.flush()
    except BrokenPipeError:  # serve ended
        return 0
    except Exception as exc:  # noqa: BLE001 - any failure means "poll instead", said in one line
        out.write(ERROR + os.fsencode(_one_line(exc)) + b"\0")
        out.flush()
        return 1
    return 0


def _one_line(exc: Exception) -> str:
    """A failure of ``watchfiles`` in words, on one line."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    if "watch limit" in text:
        return f"the operating system's file watch limit is reached ({_inotify_limit()})"
    if isinstance(exc, ImportError):
        return f"watchfiles is not installed ({text})"
    return text[:300]


def _inotify_limit() -> str:
    try:
        limit = Path("/proc/sys/fs/inotify/max_user_watches").read_text().strip()
    except OSError:
        return "raise it to watch more folders"
    return f"fs.inotify.max_user_watches = {limit}: raise it to watch more folders"
