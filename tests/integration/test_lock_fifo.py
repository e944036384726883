"""A named pipe where a build's lock file goes (``.<output>.lock``, which a tarball of a pull
request can hold) hung the build in ``open`` with SIGTERM and SIGINT held (only SIGKILL ended
it); now it is refused at once, by name, as a lock that is a symlink is (exit 3)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support import write_skill


def test_a_named_pipe_as_the_lock_file_is_refused_at_once(tmp_path: Path) -> None:
    write_skill(tmp_path / "skills", "hello", "name: hello\ndescription: Say hello to the user. Use when greeting.\n")
    os.mkfifo(tmp_path / "._site.lock")
    try:
        done = subprocess.run([sys.executable, "-m", "skillsite", "build", "skills", "-o", "_site", "-q"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:  # pragma: no cover - the fault itself: subprocess.run killed it
        raise AssertionError("the build hung opening the named pipe") from None
    assert done.returncode == 3, done.stderr
    assert done.stderr == (f"skillsite: {tmp_path / '._site.lock'}: not a regular file, so it cannot be the lock "
                           "of a build; remove it; _site was not created\n")
    assert not (tmp_path / "_site").exists() and (tmp_path / "._site.lock").is_fifo()
