"""Ending a build at once when it is told to stop (SIGTERM, as CI runners send on cancel, or
Ctrl-C): its workers are ended and its staging folder removed, then the process exits with
128 + the signal's number.

The handler does the clean-up itself instead of raising an exception into whatever the build
was doing (a fork, a wait on a worker), which could print tracebacks; the output is never
touched, so it holds the previous catalog or the new one, complete.
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import threading

from skillsite.publish.staging import discard_open_staging


def end_builds_on_signals() -> None:
    """Install the handler for SIGTERM and SIGINT (from the main thread only)."""
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, _interrupted)


def _interrupted(signum: int, frame: object) -> None:
    workers = multiprocessing.active_children()
    for worker in workers:
        worker.terminate()
    for worker in workers:  # before the staging folder goes: none of them is still writing into it
        worker.join(10)
    discard_open_staging()
    os.write(2, f"\nskillsite: stopped by {signal.Signals(signum).name}\n".encode())
    os._exit(128 + signum)
