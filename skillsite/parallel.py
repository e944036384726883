"""Running one function over many items on every core, in input order; keeping the garbage
collector out of the way while doing so."""
from __future__ import annotations

import gc
import os
from contextlib import contextmanager
from typing import Callable, Iterator, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: Below this many items the cost of starting workers outweighs the gain.
MIN_PARALLEL_ITEMS = 48


def default_jobs() -> int:
    """The number of cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def parallel_map(func: Callable[[T], R], items: Sequence[T], jobs: int) -> list[R]:
    """``[func(x) for x in items]``, spread over ``jobs`` forked worker processes.

    Results come back in input order, so the output never depends on ``jobs``.  Falls back
    to a plain loop for one job, few items, or where ``fork`` is not available.
    """
    if jobs <= 1 or len(items) < MIN_PARALLEL_ITEMS:
        return [func(x) for x in items]
    import multiprocessing  # on first use: together they cost ~45 ms of start-up
    from concurrent.futures import ProcessPoolExecutor

    if "fork" not in multiprocessing.get_all_start_methods():
        return [func(x) for x in items]
    workers = min(jobs, len(items))
    chunk = max(1, len(items) // (workers * 8))
    # Objects that exist before the fork are left out of the workers' collections: walking
    # them would write to every page of the inherited heap and copy it into each worker.
    gc.freeze()
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork")) as pool:
            return list(pool.map(func, items, chunksize=chunk))
    finally:
        gc.unfreeze()


#: Collector thresholds while a build runs (CPython's default is (700, 10, 10)).
BATCH_GC_THRESHOLD = (100_000, 20, 20)


@contextmanager
def batch_collection() -> Iterator[None]:
    """Collect garbage less often for the duration (restored afterwards).

    A build allocates millions of short-lived objects (Markdown tokens, YAML nodes) next to a
    large, long-lived catalog; at CPython's default thresholds the collector keeps walking
    that catalog, which more than doubled the Markdown stage.  Reference counting frees
    nearly all of the garbage anyway (rendering the corpus leaves no cycles), so collecting
    rarely costs little memory.
    """
    old = gc.get_threshold()
    gc.set_threshold(*BATCH_GC_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*old)
