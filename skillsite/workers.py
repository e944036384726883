"""Running a function over many items on every core, with ``concurrent.futures``.

A stage hands its workers what they need once, as a *context* given to each worker process
by the pool's initializer (inherited, not pickled, where processes are forked); the mapped
function then receives it as its first argument.  With one job everything runs in this
process, in order.  Results always come back in input order, so output never depends on the
number of jobs.

Workers never outlive the build: each one asks the kernel to end it with the process that
started it (:func:`skillsite._compat.die_with_parent`), leaves Ctrl-C to that process, and a
stage left by an exception (a failure, Ctrl-C, SIGTERM) ends its workers at once rather than
waiting for the work in hand.
"""
from __future__ import annotations

import gc
import multiprocessing
from collections import deque
import os
import signal
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, Callable, Generic, Iterator, Sequence, TypeVar

from skillsite._compat import die_with_parent

C = TypeVar("C")
T = TypeVar("T")
R = TypeVar("R")

#: Below this many items starting worker processes costs more than it saves.
MIN_PARALLEL_ITEMS = 16
#: At most this many items a chunk: a chunk's results are held whole (twice while they are unpickled).
MAX_CHUNK_ITEMS = 64
#: Chunks in flight per worker: enough to keep every worker busy, few enough that results done
#: ahead of the caller never pile up.
CHUNKS_AHEAD = 4

_context: Any = None  # in a worker process: the context its pool's initializer gave it


def default_jobs() -> int:
    """The number of cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def _start_worker(context: Any, parent: int) -> None:
    """Set up a worker process: its context, an end tied to the build's (``parent``), and a
    garbage collector that leaves alone what the worker inherited."""
    global _context
    _context = context
    # A forked worker inherits the build's heap: every skill, entry and record read so far. Its
    # cyclic collector would walk all of it in every full collection (a worker allocates a lot:
    # rendering, auditing) and write to each object's header, copying the pages it shares with the build.
    # gc.freeze() moves what is there now to a permanent generation: the worker collects only
    # what it allocates itself (the use the gc module documents for processes forked without exec).
    gc.freeze()
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the build's to handle
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the build's own handler, inherited by fork


def _call_chunk(func: Callable[[Any, T], R], items: Sequence[T]) -> list[R]:
    return [func(_context, item) for item in items]


def _call_alone(func: Callable[..., R], args: tuple[Any, ...]) -> R:
    return func(_context, *args)


def _pool_context() -> Any:
    """Fork where the platform has it (workers inherit the context without pickling it)."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


class Workers(Generic[C]):
    """Worker processes for one stage, sharing ``context``; use as a context manager.

    ``map(func, items)`` is ``[func(context, item) for item in items]``; ``submit(func, *args)``
    runs ``func(context, *args)``, one piece of work of its own beside the map (its result is a
    Future).  With ``jobs`` <= 1 both run here, at once.  ``pieces``: how many pieces of work
    there are, when known: no more workers than that are started (each is forked with the
    caller's memory at hand).
    """

    def __init__(self, jobs: int, context: C, pieces: int | None = None):
        self.jobs = jobs if pieces is None else min(jobs, max(1, pieces))
        self.context = context
        self._pool: ProcessPoolExecutor | None = None
        self._others: set[Any] = set()  # child processes that are not this stage's workers

    def __enter__(self) -> Workers[C]:
        if self.jobs > 1:
            self._others = set(multiprocessing.active_children())
            self._pool = ProcessPoolExecutor(self.jobs, mp_context=_pool_context(), initializer=_start_worker,
                                             initargs=(self.context, os.getpid()))
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._pool is None:
            return
        ended = set(multiprocessing.active_children()) - self._others if exc_info[0] is not None else set()
        # A failure, Ctrl-C or SIGTERM: nobody wants the work in hand, so the workers end now.
        # Waiting for it is not only slow: a task that could not be sent (pickled) stays "in hand"
        # for ever, and the pool's shutdown would wait for it for ever.  Once its workers are gone,
        # the pool sees itself broken and its shutdown returns.  SIGKILL, not SIGTERM: SIGTERM was
        # seen to leave a worker alive for seconds (under CI's load), and nothing holds SIGKILL off.
        for worker in ended:
            worker.kill()
        self._pool.shutdown(wait=True, cancel_futures=exc_info[0] is not None)
        self._pool = None
        for worker in ended:  # the pool may return before it has reaped them all
            worker.join()

    def map(self, func: Callable[[C, T], R], items: Sequence[T]) -> list[R]:
        """``func(context, item)`` for every item, in input order."""
        return list(self.imap(func, items))

    def imap(self, func: Callable[[C, T], R], items: Sequence[T]) -> Iterator[R]:
        """:meth:`map`, each result given as soon as it and those before it are done: a caller
        that keeps only part of each result never holds all of them."""
        if self._pool is None or len(items) < MIN_PARALLEL_ITEMS:
            for item in items:
                yield func(self.context, item)
            return
        # small enough that no process is left idle at the end, and that a chunk's results are few
        size = max(1, min(MAX_CHUNK_ITEMS, len(items) // (self.jobs * 8)))
        chunks: deque[Future[list[R]]] = deque()
        for start in range(0, len(items), size):
            chunks.append(self._pool.submit(_call_chunk, func, items[start:start + size]))
            if len(chunks) >= self.jobs * CHUNKS_AHEAD:
                yield from chunks.popleft().result()  # a chunk's results are the caller's, not kept here
        while chunks:
            yield from chunks.popleft().result()

    def submit(self, func: Callable[..., R], *args: Any) -> Future[R]:
        """``func(context, *args)`` in a worker (or here, at once, with one job)."""
        if self._pool is not None:
            return self._pool.submit(_call_alone, func, args)
        done: Future[R] = Future()
        try:
            done.set_result(func(self.context, *args))
        except Exception as exc:  # raised by result(), as a pool's future would
            done.set_exception(exc)
        return done


def parallel_map(func: Callable[[C, T], R], context: C, items: Sequence[T], jobs: int) -> list[R]:
    """``[func(context, item) for item in items]`` on ``jobs`` processes (see :class:`Workers`)."""
    with Workers(jobs if len(items) >= MIN_PARALLEL_ITEMS else 1, context, pieces=len(items)) as workers:
        return workers.map(func, items)
