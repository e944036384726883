"""workers: a stage's function over many items on every core, results in input order."""
from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
import time

import pytest

from skillsite.workers import CHUNKS_AHEAD, MAX_CHUNK_ITEMS, MIN_PARALLEL_ITEMS, Workers, parallel_map


def tagged(context: str, item: int) -> tuple[str, int, int]:
    return context, item * item, os.getpid()


def fails_on_seven(context: None, item: int) -> int:
    if item == 7:
        raise ValueError(f"item {item}")
    return item


def test_results_come_back_in_input_order_from_worker_processes():
    items = list(range(200))
    results = parallel_map(tagged, "ctx", items, jobs=3)
    assert [(c, square) for c, square, _ in results] == [("ctx", i * i) for i in items]
    assert os.getpid() not in {pid for _, _, pid in results}  # computed by the workers


def collector_view(context: list[object], item: int) -> tuple[bool, int, int]:
    """In a worker: whether the inherited context is frozen, and whether a cycle made here is collected."""
    cycle: list[object] = []
    cycle.append(cycle)
    del cycle
    return gc.is_tracked(context), gc.get_freeze_count(), gc.collect()


def test_a_worker_s_collector_leaves_what_it_inherited_and_collects_its_own():
    """The build's heap, inherited by a forked worker, is frozen there (gc.freeze): the worker's
    full collections walk only what it allocates, and do not copy the pages it shares."""
    inherited = [object() for _ in range(1_000)]
    views = parallel_map(collector_view, inherited, range(MIN_PARALLEL_ITEMS), jobs=2)
    assert all(tracked and frozen >= len(inherited) and collected >= 1 for tracked, frozen, collected in views)
    assert gc.get_freeze_count() == 0   # the build's own collector is left as it is


def test_one_job_or_few_items_run_here():
    assert {pid for _, _, pid in parallel_map(tagged, "x", range(50), jobs=1)} == {os.getpid()}
    few = range(MIN_PARALLEL_ITEMS - 1)
    assert {pid for _, _, pid in parallel_map(tagged, "x", few, jobs=4)} == {os.getpid()}


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_error_in_a_worker_or_here_reaches_the_caller(jobs):
    with pytest.raises(ValueError, match="item 7"):
        parallel_map(fails_on_seven, None, range(40), jobs)


@pytest.mark.parametrize("jobs", [1, 2])
def test_work_submitted_beside_a_map_gives_its_own_result(jobs):
    with Workers(jobs, "ctx") as workers:
        beside = workers.submit(tagged, 3)
        mapped = workers.map(tagged, list(range(40)))
        failing = workers.submit(fails_on_seven, 7)
    assert beside.result()[:2] == ("ctx", 9) and [square for _, square, _ in mapped] == [i * i for i in range(40)]
    with pytest.raises(ValueError):
        failing.result()


def test_each_worker_gets_the_context_once_and_keeps_what_it_makes():
    """The context reaches a worker through the pool's initializer; what a worker adds to its
    own copy (a renderer made on first use, say) stays in that worker."""
    seen = parallel_map(_count_calls, {"calls": 0}, range(60), jobs=2)
    by_worker: dict[int, list[int]] = {}
    for pid, calls in seen:
        by_worker.setdefault(pid, []).append(calls)
    assert sum(len(v) for v in by_worker.values()) == 60
    assert all(calls == sorted(calls) and calls[0] == 1 for calls in by_worker.values())


def _count_calls(context: dict, item: int) -> tuple[int, int]:
    context["calls"] += 1
    return os.getpid(), context["calls"]


@pytest.mark.parametrize("jobs", [1, 2])
def test_imap_gives_the_results_of_map_one_by_one(jobs):
    with Workers(jobs, "ctx") as workers:
        results = workers.imap(tagged, list(range(40)))
        first = next(results)
        rest = list(results)
    assert [square for _, square, _ in [first, *rest]] == [i * i for i in range(40)]


def touch(folder: str, item: int) -> int:
    with open(os.path.join(folder, str(item)), "w"):
        return item


def test_imap_works_ahead_of_its_caller_by_a_few_small_chunks_only(tmp_path):
    """A caller slower than the workers never has every result done and waiting for it."""
    items = list(range(2000))
    ahead = 2 * CHUNKS_AHEAD * MAX_CHUNK_ITEMS
    with Workers(2, str(tmp_path)) as workers:
        results = workers.imap(touch, items)
        assert next(results) == 0
        time.sleep(1.5)  # time enough for the workers to do everything they were given
        assert 0 < len(os.listdir(tmp_path)) <= ahead < len(items)
        assert [0, *results] == items
    assert len(os.listdir(tmp_path)) == len(items)


#: Run in a process of its own: a stage whose tasks cannot be sent to its workers (a lambda does
#: not pickle).  Python's pool keeps such a task "in hand" for ever, and used to wait for it.
UNSENDABLE = textwrap.dedent("""
    import multiprocessing
    from skillsite.workers import Workers

    def call(context, item):
        return item()

    if __name__ == "__main__":
        for _ in range(10):  # the pool's wait for it was a race: it hung in about half the runs
            try:
                with Workers(2, None) as workers:
                    list(workers.imap(call, [lambda: 1] * 40))
            except Exception as exc:
                print("raised", type(exc).__name__)
            print("workers left", len(multiprocessing.active_children()))
""")


def test_a_task_that_cannot_reach_the_workers_fails_the_stage_and_ends_them(tmp_path):
    script = tmp_path / "unsendable.py"
    script.write_text(UNSENDABLE)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["raised PicklingError", "workers left 0"] * 10


def _processes_beside(context: None, item: int) -> int:
    """How many processes the parent of this worker has started and not yet reaped (Linux)."""
    parent = os.getppid()
    with open(f"/proc/{parent}/task/{parent}/children", encoding="ascii") as children:
        return len(children.read().split())


def test_no_more_workers_are_started_than_items_to_work_on():
    """-j 400 forked 400 processes for 14 skills (each with the build's memory at hand): a map
    starts at most one worker an item.  (Beside those this process had started already: under
    pytest-xdist, a worker that ran the browser tests has a driver of its own.)"""
    with open(f"/proc/{os.getpid()}/task/{os.getpid()}/children", encoding="ascii") as children:
        before = len(children.read().split())
    most = max(parallel_map(_processes_beside, None, list(range(MIN_PARALLEL_ITEMS)), 64))
    assert most <= before + MIN_PARALLEL_ITEMS


def test_jobs_past_the_most_a_command_takes_are_a_usage_error(tmp_path):
    from click.testing import CliRunner

    from skillsite.arguments import MAX_JOBS
    from skillsite.cli import main

    for command in (["build", str(tmp_path), "-o", str(tmp_path / "out")], ["validate", str(tmp_path)],
                    ["audit", str(tmp_path)]):
        result = CliRunner().invoke(main, [*command, "-j", str(MAX_JOBS + 1)])
        assert result.exit_code == 2 and f"{MAX_JOBS + 1} is not in the range 1<=x<={MAX_JOBS}" in result.output
