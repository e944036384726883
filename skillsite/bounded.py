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


#: The most memory a JSON file from a catalog's host may take once decoded, as :func:`too_dense`
#: estimates it: JSON's smallest values take a few bytes of text and tens of bytes of memory
#: (``[],`` is 3 bytes, an empty list about 64), so 64 MiB of them, 65 KB gzipped on the wire,
#: decode into 1.6 GB.  skillsite's own files take a few times their size (a 2.5 MB skills.json
#: of the shared corpus about 20 MB; one of 2,000 skills with hundreds of keywords each, 20 MB,
#: about 160 MB).
MAX_DECODED_BYTES = 512 * 1024 * 1024
#: What :func:`too_dense` counts for a value after a comma (a string, a number: its object and
#: the list slot or dict entry pointing at it) and for a list or object (its own object, with the
#: first slots or entries it holds).
VALUE_BYTES = 64
CONTAINER_BYTES = 200


def too_dense(body: bytes) -> str | None:
    """Why ``body``, a JSON text, would take too much memory decoded (more than
    :data:`MAX_DECODED_BYTES`); None when it would not.  Counted before decoding, from the commas
    that separate values and the brackets that open lists and objects (those inside strings too:
    it is an estimate from above)."""
    values, containers = body.count(b","), body.count(b"[") + body.count(b"{")
    estimate = values * VALUE_BYTES + containers * CONTAINER_BYTES
    if estimate <= MAX_DECODED_BYTES:
        return None
    return (f"would take about {estimate // 1024 ** 2:,} MiB of memory decoded ({values:,} commas and "
            f"{containers:,} opening brackets in {len(body):,} bytes), over the {MAX_DECODED_BYTES // 1024 ** 2:,} "
            f"MiB a catalog file may take")
