"""Reading a file that may be hostile: never more than a limit, never waiting on a FIFO, and
no JSON decoded that would take many times its size in memory (standard library only)."""
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


#: A JSON file larger than this is refused when it holds more commas and opening brackets than one
#: per :data:`MIN_BYTES_PER_VALUE` bytes, before it is decoded.
DENSE_ABOVE_BYTES = 1024 * 1024
#: JSON's smallest values take a few bytes of text and tens of bytes of memory (``[],`` is 3 bytes
#: and an empty list about 60): 64 MiB of them, 65 KB gzipped on the wire, would decode into 1.6 GB.
#: skillsite's own catalog files have a comma or an opening bracket every 20 bytes or more.
MIN_BYTES_PER_VALUE = 8


def too_dense(body: bytes) -> str | None:
    """Why ``body``, a JSON text, holds too many values to decode for its size (see
    :data:`MIN_BYTES_PER_VALUE`); None when it does not.  A value is separated by a comma or starts
    a list or object: counting those bytes (inside strings too) bounds the values from above."""
    if len(body) <= DENSE_ABOVE_BYTES:
        return None
    marks = body.count(b",") + body.count(b"[") + body.count(b"{")
    if marks * MIN_BYTES_PER_VALUE <= len(body):
        return None
    return (f"has {marks:,} commas and opening brackets in {len(body):,} bytes, more than one per "
            f"{MIN_BYTES_PER_VALUE} bytes: decoding it could take {len(body) * 25 // 1024 ** 2:,} MiB of "
            f"memory, and no skillsite file is that dense")
