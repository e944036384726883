"""interrupt: SIGTERM and SIGINT end a build; a process forked from it is not the build."""
from __future__ import annotations

import os
import signal
import tempfile
from pathlib import Path

from skillsite.publish import staging
from skillsite.publish.interrupt import builds_end_on_signals


def test_a_worker_forked_with_the_build_s_handler_ends_quietly_and_leaves_the_staging_folder(tmp_path):
    """A worker told to end between its fork and its own set-up runs the build's handler: it
    must end at once, printing nothing and removing nothing of the build's."""
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    staging._OPEN.add(folder)
    read, write = os.pipe()
    try:
        with builds_end_on_signals():
            pid = os.fork()
            if pid == 0:  # the "worker": its stderr goes to the pipe
                os.dup2(write, 2)
                os.kill(os.getpid(), signal.SIGTERM)
                os._exit(0)  # not reached: the handler ends the process
            os.close(write)
            _, status = os.waitpid(pid, 0)
        said = os.read(read, 1000)
    finally:
        staging._OPEN.discard(folder)
        os.close(read)
    assert os.waitstatus_to_exitcode(status) == 128 + signal.SIGTERM
    assert said == b"" and folder.is_dir()
