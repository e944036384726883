"""Running a function over many items on every core, with ``concurrent.futures``.

A stage hands its workers what they need once, as a *context* given to each worker process
by the pool's initializer (inherited, not pickled, where processes are forked); the mapped
function then receives it as its first argument.  With one job everything runs in this
process, in order.  Results always come back in input order, so output never depends on the
number of jobs.
"""
from __future__ import annotations

import functools
import multiprocessing
import os
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, Callable, Generic, Sequence, TypeVar

C = TypeVar("C")
T = TypeVar("T")
R = TypeVar("R")

#: Below this many items starting worker processes costs more than it saves.
MIN_PARALLEL_ITEMS = 16

_context: Any = None  # in a worker process: the context its pool's initializer gave it


def default_jobs() -> int:
    """The number of cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def _start_worker(context: Any) -> None:
    global _context
    _context = context


def _call(func: Callable[[Any, T], R], item: T) -> R:
    return func(_context, item)


def _call_alone(func: Callable[..., R], args: tuple[Any, ...]) -> R:
    return func(*args)


def _pool_context() -> Any:
    """Fork where the platform has it (workers inherit the context without pickling it)."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


class Workers(Generic[C]):
    """Worker processes for one stage, sharing ``context``; use as a context manager.

    ``map(func, items)`` is ``[func(context, item) for item in items]``; ``submit(func, *args)``
    runs one piece of work of its own beside the map (its result is a Future).  With
    ``jobs`` <= 1 both run here, at once.
    """

    def __init__(self, jobs: int, context: C):
        self.jobs = jobs
        self.context = context
        self._pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> Workers[C]:
        if self.jobs > 1:
            self._pool = ProcessPoolExecutor(self.jobs, mp_context=_pool_context(), initializer=_start_worker,
                                             initargs=(self.context,))
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=exc_info[0] is not None)
            self._pool = None

    def map(self, func: Callable[[C, T], R], items: Sequence[T]) -> list[R]:
        """``func(context, item)`` for every item, in input order."""
        if self._pool is None or len(items) < MIN_PARALLEL_ITEMS:
            return [func(self.context, item) for item in items]
        chunk = max(1, len(items) // (self.jobs * 8))  # small enough that no process is left idle at the end
        return list(self._pool.map(functools.partial(_call, func), items, chunksize=chunk))

    def submit(self, func: Callable[..., R], *args: Any) -> Future[R]:
        """``func(*args)`` in a worker (or here, at once, with one job)."""
        if self._pool is not None:
            return self._pool.submit(_call_alone, func, args)
        done: Future[R] = Future()
        try:
            done.set_result(func(*args))
        except Exception as exc:  # raised by result(), as a pool's future would
            done.set_exception(exc)
        return done


def parallel_map(func: Callable[[C, T], R], context: C, items: Sequence[T], jobs: int) -> list[R]:
    """``[func(context, item) for item in items]`` on ``jobs`` processes (see :class:`Workers`)."""
    with Workers(jobs if len(items) >= MIN_PARALLEL_ITEMS else 1, context) as workers:
        return workers.map(func, items)
