"""parallel_map keeps input order whatever the jobs; the collector settings are always restored."""
from __future__ import annotations

import gc
import os
import time

import pytest

from skillsite.parallel import BATCH_GC_THRESHOLD, MIN_PARALLEL_ITEMS, batch_collection, parallel_map


_THIS_PROCESS = os.getpid()


def _square_and_pid(x: int) -> tuple[int, int]:
    time.sleep(0.002)  # slow enough that the child gets to take chunks too
    return x * x, os.getpid()


def test_results_come_back_in_input_order_from_several_workers():
    items = list(range(MIN_PARALLEL_ITEMS * 4))
    results = parallel_map(_square_and_pid, items, jobs=2)
    assert [r for r, _ in results] == [x * x for x in items]
    pids = [pid for _, pid in results]
    assert len(set(pids)) == 2 and os.getpid() in pids      # this process and one forked child
    assert gc.get_freeze_count() == 0                        # the pre-fork freeze was undone


def _big_result(x: int) -> bytes:
    return bytes([x % 251]) * 60_000 + x.to_bytes(4, "little")


def test_results_bigger_than_a_pipe_holds_arrive_whole_chunk_by_chunk():
    # 12 MB in all, sent by the child chunk by chunk while this process works
    items = list(range(200))
    assert parallel_map(_big_result, items, jobs=2) == [_big_result(x) for x in items]
    assert parallel_map(_big_result, items, jobs=3) == [_big_result(x) for x in items]


def _fail_on(x: int) -> int:
    if x == 7:
        raise ValueError(f"bad item {x}")
    return x


def _die_in_a_child(x: int) -> int:
    time.sleep(0.002)
    if os.getpid() != _THIS_PROCESS:
        os._exit(3)
    return x


@pytest.mark.parametrize("jobs", [2, 3])
def test_an_error_in_a_child_or_here_is_raised_after_every_child_ended(jobs):
    items = list(range(MIN_PARALLEL_ITEMS * 2))
    with pytest.raises(ValueError, match="bad item 7"):
        parallel_map(_fail_on, items, jobs)
    with pytest.raises(ValueError, match="bad item 7"):
        parallel_map(_fail_on, [7] + items[1:], jobs)  # the first chunk: taken here first
    with pytest.raises(ChildProcessError):
        parallel_map(_die_in_a_child, items, jobs)
    assert gc.get_freeze_count() == 0


def test_few_items_or_one_job_run_in_this_process():
    assert {pid for _, pid in parallel_map(_square_and_pid, [1, 2, 3], jobs=4)} == {os.getpid()}
    assert {pid for _, pid in parallel_map(_square_and_pid, list(range(100)), jobs=1)} == {os.getpid()}


def test_batch_collection_restores_the_thresholds_even_after_an_error():
    before = gc.get_threshold()
    with pytest.raises(RuntimeError):
        with batch_collection():
            assert gc.get_threshold() == BATCH_GC_THRESHOLD
            raise RuntimeError("boom")
    assert gc.get_threshold() == before


def _pid_and(value: int) -> tuple[int, int]:
    return os.getpid(), value


def _raise_here() -> None:
    raise KeyError("from the background")


def test_in_background_computes_in_a_child_and_gives_the_same_value_on_one_job():
    from skillsite.parallel import in_background

    pending = in_background(lambda: _pid_and(42), jobs=2)
    pid, value = pending.result()
    assert value == 42 and pid != os.getpid()
    assert pending.result() == (pid, 42)                     # asked again: the same value
    assert in_background(lambda: _pid_and(42), jobs=1).result() == (os.getpid(), 42)
    assert gc.get_freeze_count() == 0


def test_in_background_raises_the_child_s_error_and_can_be_abandoned():
    from skillsite.parallel import in_background

    with pytest.raises(KeyError, match="from the background"):
        in_background(_raise_here, jobs=2).result()
    with pytest.raises(ChildProcessError):
        in_background(lambda: os._exit(4), jobs=2).result()
    pending = in_background(lambda: time.sleep(30), jobs=2)
    started = time.monotonic()
    pending.abandon()
    assert time.monotonic() - started < 5


def _two_parts() -> tuple[int, list[int]]:
    return os.getpid(), list(range(200_000))  # the second part fills the pipe: the child waits to send it


def test_a_result_in_parts_can_be_used_part_by_part_and_the_rest_abandoned():
    from skillsite.parallel import in_background

    pending = in_background(_two_parts, jobs=2, parts=2)
    pid = pending.part(0)
    assert pid != os.getpid()
    started = time.monotonic()
    pending.abandon()                                        # the child, blocked on a full pipe, is killed
    assert time.monotonic() - started < 5
    whole = in_background(_two_parts, jobs=2, parts=2).result()
    assert whole[1] == list(range(200_000))
    assert in_background(_two_parts, jobs=1, parts=2).part(0) == os.getpid()


def test_parallel_map_beside_runs_the_extra_work_once_and_keeps_the_results_in_order():
    from skillsite.parallel import parallel_map_beside

    items = list(range(MIN_PARALLEL_ITEMS * 2))
    for jobs in (1, 2):
        results, extra = parallel_map_beside(_square_and_pid, items, jobs, [lambda: ("extra", os.getpid())])
        assert [r for r, _ in results] == [x * x for x in items]
        assert [e[0] for e in extra] == ["extra"]
    assert parallel_map_beside(_square_and_pid, [3], 2, []) == ([(9, os.getpid())], [])


def test_each_piece_of_extra_work_opens_a_chunk_of_its_own():
    """Two pieces of extra work go to two processes when two are free, not one after the other
    (a map of fewer items than MIN_PARALLEL_ITEMS runs in one process)."""
    from skillsite.parallel import parallel_map_beside

    def slow_pid() -> int:
        time.sleep(0.3)
        return os.getpid()

    for count in (MIN_PARALLEL_ITEMS, 500):
        items = list(range(count))
        results, extra = parallel_map_beside(_square_and_pid, items, 2, [slow_pid, slow_pid, lambda: "third"])
        assert [r for r, _ in results] == [x * x for x in items]
        assert len(set(extra[:2])) == 2 and extra[2] == "third"


_SEEN: list[int] = []


def _note_and_square(x: int) -> int:
    _SEEN.append(x)
    time.sleep(0.002)
    return x * x


def test_what_workers_gather_reaches_this_process_once():
    from skillsite import parallel

    merged: list[int] = []

    def take() -> list[int]:
        taken = list(_SEEN)
        _SEEN.clear()
        return taken

    _SEEN[:] = [-1]  # recorded here before the map: a worker must not send it back
    parallel.gather_from_workers(take, merged.extend)
    try:
        items = list(range(MIN_PARALLEL_ITEMS * 4))
        assert parallel_map(_note_and_square, items, jobs=3) == [x * x for x in items]
    finally:
        parallel._GATHERED.remove((take, merged.extend))
    assert merged  # the workers did some of the items
    assert sorted(merged + _SEEN) == [-1] + items
