"""The output lock: one build per output folder, whatever its siblings do; the lock file goes
with the build that held it, and a waiter never holds the lock of a file removed meanwhile."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest

from skillsite.publish.lock import OutputBusy, cache_lock, lock_path, output_lock
from support import REPO


def test_builds_of_one_output_exclude_each_other_and_siblings_do_not(tmp_path):
    with output_lock(tmp_path / "site"):
        with pytest.raises(OutputBusy, match=f"writing into {tmp_path}"):
            with output_lock(tmp_path / "site", wait=False):
                pass
        with output_lock(tmp_path / "other", wait=False):  # a sibling output: its own lock
            assert lock_path(tmp_path / "other").exists()
        assert not lock_path(tmp_path / "other").exists()
    assert list(tmp_path.iterdir()) == []


def test_waiters_take_turns_one_at_a_time(tmp_path):
    """Each holder removes the lock file when done; every waiter still gets the lock alone."""
    inside, most, told = [], [0], []

    def hold() -> None:
        with output_lock(tmp_path / "site", on_wait=told.append):
            inside.append(1)
            most[0] = max(most[0], len(inside))
            time.sleep(0.05)
            inside.pop()

    threads = [threading.Thread(target=hold) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most == [1] and told and not lock_path(tmp_path / "site").exists()


def test_a_symlink_in_the_lock_file_s_place_is_not_followed(tmp_path):
    (tmp_path / "elsewhere").write_text("not a lock\n")
    os.symlink(tmp_path / "elsewhere", lock_path(tmp_path / "site"))
    with pytest.raises(OSError):
        with output_lock(tmp_path / "site"):
            pass
    assert (tmp_path / "elsewhere").read_text() == "not a lock\n"


def test_a_build_waits_for_its_cache_folder_not_for_a_sibling_output(tmp_path):
    """Sibling outputs build side by side, unless they share a cache folder (each build rewrites
    the cache file and the build state)."""
    from support import EXAMPLES
    from skillsite.publish.build import build

    shared = tmp_path / "cache"
    shared.mkdir()
    with output_lock(tmp_path / "a"), cache_lock(shared):
        with pytest.raises(OutputBusy, match="using the cache"):
            build([EXAMPLES], tmp_path / "b", cache_dir=shared, wait=False, jobs=1)
        assert build([EXAMPLES], tmp_path / "b", cache_dir=tmp_path / "own-cache", wait=False, jobs=1).ok
    assert not (tmp_path / "b").joinpath("..", ".b.lock").exists()


def test_an_output_name_too_long_for_its_lock_file_locks_a_digest_of_it(tmp_path):
    out = tmp_path / ("é" * 125)  # 250 bytes: a name the file system takes, not with ".lock" around it
    assert len(lock_path(out).name) < 64 and lock_path(tmp_path / ("é" * 124)).name == f".{'é' * 124}.lock"
    with output_lock(out):
        with pytest.raises(OutputBusy):
            with output_lock(out, wait=False):
                pass


#: Run in a process of its own (signal handlers run in the main thread, which a test under
#: pytest-xdist is not in): SIGTERM sent from inside the lock file's creation, handled as the
#: build's handler does it (the held lock files removed), but without ending the process.
SIGNAL_WHILE_LOCKING = """
import os, signal, sys
from pathlib import Path
from skillsite.publish import lock

out = Path(sys.argv[1]) / "site"
seen = []
real_open = os.open

def open_then_signal(*args, **kwargs):
    fd = real_open(*args, **kwargs)
    os.kill(os.getpid(), signal.SIGTERM)  # arrives while the file exists and is not yet recorded
    return fd

def interrupted(*_):
    lock.remove_held_lock_files()
    seen.append(lock.lock_path(out).exists())

signal.signal(signal.SIGTERM, interrupted)
lock.os.open = open_then_signal
with lock.output_lock(out):
    lock.os.open = real_open
    print(seen)
print(sorted(p.name for p in Path(sys.argv[1]).iterdir()))
"""


def test_a_signal_while_the_lock_file_is_made_comes_once_it_is_recorded(tmp_path):
    """A build told to stop (SIGTERM) removes the lock files it holds (skillsite.publish.interrupt):
    a signal that came while its lock file was being made waits until the file is recorded as
    held, so none stays behind (a build ended in between left one)."""
    done = subprocess.run([sys.executable, "-c", SIGNAL_WHILE_LOCKING, str(tmp_path)], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    # the handler ran once the file was recorded, found it held and removed it; nothing is left
    assert done.stdout.splitlines() == ["[False]", "[]"]
