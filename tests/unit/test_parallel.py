"""parallel_map keeps input order whatever the jobs; the collector settings are always restored."""
from __future__ import annotations

import gc
import os

import pytest

from skillsite.parallel import BATCH_GC_THRESHOLD, MIN_PARALLEL_ITEMS, batch_collection, parallel_map


def _square_and_pid(x: int) -> tuple[int, int]:
    return x * x, os.getpid()


def test_results_come_back_in_input_order_from_several_workers():
    items = list(range(MIN_PARALLEL_ITEMS * 4))
    results = parallel_map(_square_and_pid, items, jobs=2)
    assert [r for r, _ in results] == [x * x for x in items]
    assert os.getpid() not in {pid for _, pid in results}  # really ran in workers
    assert gc.get_freeze_count() == 0                        # the pre-fork freeze was undone


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
