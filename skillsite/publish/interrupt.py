"""Ending a build at once when it is told to stop (SIGTERM, as CI runners send on cancel, or
Ctrl-C): its workers are ended, its staging folder and lock file removed, then the process exits with
128 + the signal's number.

The handler does the clean-up itself instead of raising an exception into whatever the build
was doing (a fork, a wait on a worker), which could print tracebacks; the output is never
touched, so it holds the previous catalog or the new one, complete.  A process that builds among
other work (``serve``) gives its own ending: what else to stop, and the exit status.
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from contextlib import contextmanager
from typing import Callable, Iterator

from skillsite.publish.lock import remove_held_lock_files
from skillsite.publish.staging import discard_open_staging

_SIGNALS = (signal.SIGTERM, signal.SIGINT)
#: The process whose build the handler ends (a worker forked a moment ago still has the handler).
_build_pid = 0
#: What the process does once the build is ended, given the signal: its exit status (None: say
#: "stopped by" the signal, and exit with 128 + its number).
_ending: Callable[[int], int] | None = None


@contextmanager
def builds_end_on_signals(ending: Callable[[int], int] | None = None) -> Iterator[None]:
    """Within the block, SIGTERM and SIGINT end the build at once (main thread only), then the
    process (``ending``: what else it stops first, and its exit status); the previous handlers
    come back after it (the command line may run inside another program)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    global _build_pid, _ending
    _build_pid, _ending = os.getpid(), ending
    previous = {signum: signal.signal(signum, _interrupted) for signum in _SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _interrupted(signum: int, frame: object) -> None:
    if os.getpid() != _build_pid:  # a worker told to end before it set up its own handlers
        os._exit(128 + signum)
    workers = multiprocessing.active_children()
    for worker in workers:
        worker.terminate()
    for worker in workers:  # before the staging folder goes: none of them is still writing into it
        worker.join(10)
    discard_open_staging()
    remove_held_lock_files()
    if _ending is not None:
        os._exit(_ending(signum))
    os.write(2, f"\nskillsite: stopped by {signal.Signals(signum).name}\n".encode())
    os._exit(128 + signum)
