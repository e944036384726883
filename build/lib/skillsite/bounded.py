"""Reading a file that may be hostile: never more than a limit, never waiting on a FIFO
(standard library only)."""
from __future__ import annotations

import os


def read_limited(path: str | os.PathLike[str], limit: int) -> tuple[bytes, int]:
    """Up to ``limit + 1`` bytes of a file (more than ``limit`` means too big), and its size.

    Read to its end, or past the limit, even if it grew since its size was taken.  Opened
    non-blocking, so a FIFO put in a file's place cannot hang the build.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        size = os.fstat(fd).st_size
        chunks = [os.read(fd, min(size, limit) + 1)]  # one more byte than expected: did it grow?
        total = len(chunks[0])
        while chunks[-1] and total <= limit and total != size:
            chunks.append(os.read(fd, limit + 1 - total))
            total += len(chunks[-1])
    finally:
        os.close(fd)
    return b"".join(chunks), max(size, total)
