"""A stopped ``serve`` ends at once: its temporary folder is removed by a detached process that
holds the folder's claim until it is done and removes the claim file last, so a removal cut
short is finished by the next serve."""
from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

from skillsite.publish.lock import claim
from skillsite.publish.serve import IN_USE, SERVE_PREFIX, remove_abandoned_folders, remove_after_exit


def _serve_folder(parent: Path, files: int) -> Path:
    folder = parent / f"{SERVE_PREFIX}test"
    for i in range(files):
        sub = folder / "site" / f"skills-{i // 500}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"{i}.html").write_text("<p>a page</p>\n")
    return folder


def _claim_is_held(path: Path) -> bool | None:
    """Whether another process holds the claim file's lock; None when the file is gone."""
    try:
        fd = os.open(path, os.O_RDWR)  # never created again here
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def test_the_folder_goes_after_the_call_returns_its_claim_held_and_its_claim_file_last(tmp_path: Path) -> None:
    folder = _serve_folder(tmp_path, 4000)
    fd = claim(folder / IN_USE)
    assert fd is not None
    remove_after_exit(folder, fd)
    looks = []
    deadline = time.monotonic() + 120
    while folder.exists() and time.monotonic() < deadline:
        held = _claim_is_held(folder / IN_USE)
        try:
            rest = [p.name for p in folder.iterdir()] if held is not None else []
        except FileNotFoundError:  # the folder went between the two looks: what the test waits for
            break
        looks.append((held, rest))
    assert not folder.exists()
    assert all(held in (True, None) for held, _ in looks)        # never free while the folder is there
    assert all(held is not None or rest == [] for held, rest in looks)  # nothing left once the claim file went
    assert any(held for held, _ in looks)                         # it was seen at work, not already gone


def test_a_removal_cut_short_is_finished_by_the_next_serve(tmp_path: Path) -> None:
    folder = _serve_folder(tmp_path, 10)
    (folder / IN_USE).write_text("")         # what a remover killed midway leaves: an unclaimed claim file
    other = tmp_path / f"{SERVE_PREFIX}running"
    other.mkdir()
    fd = claim(other / IN_USE)               # a serve that still runs
    remove_abandoned_folders(tmp_path)
    assert not folder.exists() and other.exists()
    os.close(fd)
