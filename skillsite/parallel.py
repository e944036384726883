"""Running one function over many items on every core, in input order; keeping the garbage
collector out of the way while doing so."""
from __future__ import annotations

import gc
import os
import pickle
import signal
import threading
from contextlib import contextmanager
from typing import Any, BinaryIO, Callable, Generic, Iterator, NamedTuple, Sequence, TypeVar, cast

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


# What every forked map worker sends back when it ends, besides its results: (take, merge)
# pairs registered by gather_from_workers.
_GATHERED: list[tuple[Callable[[], Any], Callable[[Any], None]]] = []


def gather_from_workers(take: Callable[[], Any], merge: Callable[[Any], None]) -> None:
    """Have each worker of :func:`parallel_map` send ``take()`` to this process when it has no
    chunk left, for ``merge`` here (before the map returns): for a record a process keeps of
    what it did (say, the files it wrote).  ``take`` returns the record and empties it; it is
    also called right after the fork, so that a worker sends only what it added."""
    _GATHERED.append((take, merge))


def parallel_map(func: Callable[[T], R], items: Sequence[T], jobs: int) -> list[R]:
    """``[func(x) for x in items]``, spread over ``jobs`` processes: this one and ``jobs - 1``
    forked children, which take chunks of items from a shared queue until none are left.

    Results come back in input order, so the output never depends on ``jobs``; an exception
    raised by ``func`` in any process is raised here (after every child has ended).  Falls
    back to a plain loop for one job, few items, or where ``fork`` is not available.

    Plain ``fork`` and pipes rather than a process pool: a pool costs about 50 ms of imports
    and set-up and leaves this process idle while its workers run.  The queue is a pipe
    holding one 4-byte chunk number per chunk; a read of 4 bytes from a pipe takes exactly
    one number, so every chunk goes to one process, and a process that is slowed down (by
    other load on the machine) simply takes fewer chunks.

    A child sends each chunk's results as soon as they are made, and a thread here takes
    them in meanwhile: pickling and unpickling them overlap the work instead of following
    it (sent at the end, a child's results for the corpus took 60 ms with one core idle).
    """
    if jobs <= 1 or len(items) < MIN_PARALLEL_ITEMS or not hasattr(os, "fork"):
        return [func(x) for x in items]
    workers = min(jobs, len(items))
    size = _chunk_size(len(items), jobs)  # chunk c is items[c * size:(c + 1) * size]
    queue_r, queue_w = os.pipe()
    try:
        os.write(queue_w, b"".join(c.to_bytes(_RECORD, "little") for c in range(-(-len(items) // size))))
    finally:
        os.close(queue_w)  # once the numbers are taken, reads find the end of the pipe
    # Objects that exist before the fork are left out of the collections: walking them would
    # write to every page of the inherited heap and copy it into each child.
    gc.freeze()
    children: list[_Child] = []
    done: list[tuple[int, list[R]]] = []
    try:
        try:
            for _ in range(1, workers):
                children.append(_fork_child(func, items, size, queue_r))
            for child in children:  # only once every child is forked: a thread must never be forked
                child.start()
            done = _take_chunks(func, items, size, queue_r)
        finally:
            while os.read(queue_r, 4096):  # after a failure here: leave the children nothing more to do
                pass
            for child in children:  # always reap every child
                child.finish()
        for child in children:
            if child.error is not None:
                raise child.error
            done += child.chunks
        for child in children:
            for (_, merge), record in zip(_GATHERED, child.gathered):
                merge(record)
    finally:
        gc.unfreeze()
        os.close(queue_r)
    results: list[Any] = [None] * len(items)
    for chunk, outcome in done:
        results[chunk * size:(chunk + 1) * size] = outcome
    return results


def _chunk_size(count: int, jobs: int) -> int:
    """Items per chunk in :func:`parallel_map` (about eight chunks per process)."""
    return max(1, count // (min(jobs, count) * 8))


class _Beside(NamedTuple):
    """The item of :func:`parallel_map_beside`'s map that stands for its ``also[index]`` work."""

    index: int


def parallel_map_beside(func: Callable[[T], R], items: Sequence[T], jobs: int,
                        also: Sequence[Callable[[], Any]]) -> tuple[list[R], list[Any]]:
    """:func:`parallel_map`, and each of ``also`` (pieces of work of their own) as one more item
    of the same map, each at the start of a chunk of its own, first in the queue: whichever
    processes are free first take them, so none runs alone at the end.  Returns the results
    and what each of ``also`` returned."""
    if not also:
        return parallel_map(func, items, jobs), []
    size = _chunk_size(len(items) + len(also), jobs)  # as parallel_map cuts the mixed list
    mixed: list[Any] = list(items)
    beside: list[int] = []  # where each of also is in the map
    for index in range(len(also)):  # also[k] opens chunk k
        beside.append(min(index * size, len(mixed)))
        mixed.insert(beside[-1], _Beside(index))

    def run(item: Any) -> Any:
        return also[item.index]() if type(item) is _Beside else func(item)

    done = parallel_map(run, mixed, jobs)
    taken = set(beside)
    return [r for i, r in enumerate(done) if i not in taken], [done[i] for i in beside]


_RECORD = 4  # bytes per chunk number in the queue pipe


def _take_chunks(func: Callable[[T], R], items: Sequence[T], size: int, queue_fd: int,
                 send: Callable[[tuple[int, list[R]]], None] | None = None) -> list[tuple[int, list[R]]]:
    """Map ``func`` over the chunks this process takes from the queue: (chunk, results) pairs,
    kept, or handed to ``send`` as each chunk is done."""
    done: list[tuple[int, list[R]]] = []
    while True:
        record = os.read(queue_fd, _RECORD)
        if not record:
            return done
        chunk = int.from_bytes(record, "little")
        outcome = (chunk, [func(x) for x in items[chunk * size:(chunk + 1) * size]])
        if send is None:
            done.append(outcome)
        else:
            send(outcome)


class _Child:
    """A forked worker and the thread that takes in what it sends: length-prefixed pickles of
    (True, (chunk, results)) per chunk, then of (None, what it gathered) (see
    :func:`gather_from_workers`), or of (False, exception) once."""

    def __init__(self, pid: int, fd: int):
        self.pid = pid
        self.fd = fd
        self.chunks: list[tuple[int, Any]] = []
        self.gathered: list[Any] = []
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._receive, name=f"skillsite-worker-{pid}", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def _receive(self) -> None:
        # Big raw reads: the thread needs the interpreter lock after each read, which the busy
        # main thread gives up only every few milliseconds; small reads would leave the child
        # blocked on a full pipe.
        pending = bytearray()
        try:
            while block := os.read(self.fd, _PIPE_SIZE):
                pending += block
                while len(pending) >= _LENGTH:
                    end = _LENGTH + int.from_bytes(pending[:_LENGTH], "little")
                    if len(pending) < end:
                        break
                    ok, value = pickle.loads(memoryview(pending)[_LENGTH:end])
                    del pending[:end]
                    if ok:
                        self.chunks.append(value)
                    elif ok is None:
                        self.gathered = value
                    else:
                        self.error = value
                        return
        except BaseException as exc:  # noqa: BLE001 - a damaged stream: raised by the caller of finish
            self.error = exc

    def finish(self) -> None:
        """Wait for the child's last message and reap it."""
        if self.thread.ident is not None:  # started
            self.thread.join()
        os.close(self.fd)
        _, status = os.waitpid(self.pid, 0)
        if self.error is None and status != 0:
            self.error = _ended(self.pid, status)[1]


_LENGTH = 8             # bytes of the length before each message a child sends
_PIPE_SIZE = 1 << 20    # what a child's pipe may hold (Linux allows an unprivileged process 1 MiB)


def _send(fd: int, value: Any) -> None:
    _send_bytes(fd, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))


def _send_bytes(fd: int, payload: bytes) -> None:
    """``payload`` after its length (written apart: a chunk's results can be a hundred MB)."""
    for part in (len(payload).to_bytes(_LENGTH, "little"), payload):
        view = memoryview(part)
        while view:
            view = view[os.write(fd, view):]


def _fork_child(func: Callable[[T], R], items: Sequence[T], size: int, queue_fd: int) -> _Child:
    """Start a child that takes chunks from the queue and sends each chunk's results, pickled,
    through a pipe as it goes (or the exception it met); the parent's thread reads them."""
    read_fd, write_fd = os.pipe()
    try:
        import fcntl  # POSIX only; children are forked only where fork exists

        fcntl.fcntl(write_fd, fcntl.F_SETPIPE_SZ, _PIPE_SIZE)
    except (ImportError, AttributeError, OSError):  # not Linux, or a lower limit: the pipe keeps its size
        pass
    pid = os.fork()
    if pid == 0:  # the child: never returns
        status = 1
        try:
            os.close(read_fd)
            try:
                for take, _ in _GATHERED:
                    take()  # what the parent had recorded before the fork: not this worker's
                _take_chunks(func, items, size, queue_fd, lambda outcome: _send(write_fd, (True, outcome)))
                if _GATHERED:
                    _send(write_fd, (None, [take() for take, _ in _GATHERED]))
                status = 0
            except BaseException as exc:  # noqa: BLE001 - handed to the parent, which raises it
                _send_bytes(write_fd, _pickled_error(exc))
        finally:
            os._exit(status)
    os.close(write_fd)
    return _Child(pid, read_fd)


def _pickled_error(exc: BaseException) -> bytes:
    try:
        return pickle.dumps((False, exc), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # an exception that cannot be pickled still reaches the parent as text
        return pickle.dumps((False, RuntimeError(f"{type(exc).__name__}: {exc}")))


class Pending(Generic[R]):
    """The result of :func:`in_background`: ``result()`` waits for it (or raises its error);
    ``part(i)`` waits only for the ``i``-th value of a result sent in parts."""

    def __init__(self, pid: int = 0, fd: int = -1, value: Any = None, parts: int = 1):
        self._pid, self._parts = pid, parts
        self._pipe: BinaryIO | None = os.fdopen(fd, "rb") if pid else None
        self._values: list[Any] = [] if pid else ([value] if parts == 1 else list(value))

    def part(self, index: int) -> Any:
        while len(self._values) <= index:
            assert self._pipe is not None
            try:
                ok, value = pickle.load(self._pipe)
            except (EOFError, pickle.UnpicklingError):
                ok, value = _ended(*self._reap())
            if not ok:
                self._reap()
                raise value
            self._values.append(value)
        if len(self._values) == self._parts and self._pid:
            self._reap()
        return self._values[index]

    def result(self) -> R:
        if self._parts == 1:
            return cast(R, self.part(0))
        return cast(R, tuple(self.part(i) for i in range(self._parts)))

    def _reap(self) -> tuple[int, int]:
        pid, self._pid = self._pid, 0
        if self._pipe is not None:
            self._pipe.close()
            self._pipe = None
        return pid, (os.waitpid(pid, 0)[1] if pid else 0)

    def abandon(self) -> None:
        """Stop waiting: the child is killed and reaped (after a failure elsewhere, or when the
        rest of its result is not needed)."""
        if self._pid:
            try:
                os.kill(self._pid, signal.SIGKILL)
            except ProcessLookupError:  # pragma: no cover - already gone
                pass
            self._reap()


def in_background(func: Callable[[], R], jobs: int, parts: int = 1, yielding: bool = False) -> Pending[R]:
    """``func()`` computed by a forked child while this process goes on (with ``jobs`` > 1 and
    ``fork``); otherwise computed here, now.  Either way the same value: the child sends it back
    pickled, or the exception it raised, which :meth:`Pending.result` raises.  With ``parts``
    > 1, ``func`` returns that many values, sent one after the other: the first can be used
    before the others arrive (and the others abandoned).

    For work that can overlap other work of a build: on two cores, a stage that runs in one
    process leaves the other core idle unless something else is running.  A ``yielding`` child
    runs at the lowest priority: it takes only the time the build's other processes leave.
    """
    if jobs <= 1 or not hasattr(os, "fork"):
        return Pending(value=func(), parts=parts)
    read_fd, write_fd = os.pipe()
    gc.freeze()  # as in parallel_map: the child's collections leave the inherited heap alone
    try:
        pid = os.fork()
    except BaseException:
        gc.unfreeze()
        os.close(read_fd)
        os.close(write_fd)
        raise
    if pid:
        gc.unfreeze()
    else:  # the child: never returns
        status = 1
        try:
            os.close(read_fd)
            if yielding and hasattr(os, "nice"):
                os.nice(19)
            with os.fdopen(write_fd, "wb") as out:
                try:
                    value = func()
                    for part in ((value,) if parts == 1 else value):
                        pickle.dump((True, part), out, protocol=pickle.HIGHEST_PROTOCOL)
                        out.flush()
                    status = 0
                except BaseException as exc:  # noqa: BLE001 - handed to the parent, which raises it
                    out.write(_pickled_error(exc))
        finally:
            os._exit(status)
    os.close(write_fd)
    return Pending(pid, read_fd, parts=parts)


def _ended(pid: int, status: int) -> tuple[bool, BaseException]:
    return False, ChildProcessError(f"worker process {pid} ended without results (wait status {status})")


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
