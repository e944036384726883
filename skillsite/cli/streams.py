"""The standard streams a command writes to, made safe to write: any text can be printed (a
character the stream's encoding lacks is escaped), and a stream that is closed or cannot take
more (a full disk) ends the command with one line on standard error, never a traceback.
"""
from __future__ import annotations

import codecs
import errno
import io
import os
import sys
from contextlib import contextmanager
from typing import Iterator

from skillsite.diagnostics import describe_os_error, escaped_code
from skillsite.exit_codes import EXIT_BROKEN_PIPE

__all__ = ["EXIT_BROKEN_PIPE", "ClosedStream", "prepared_streams"]


class ClosedStream(io.TextIOBase):
    """Standard output when the process was started with it closed: writing to it fails as
    writing to a closed file descriptor does (EBADF)."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "standard output is closed")


#: The error handler of the standard streams (:func:`_escaping`).
SHOWN_ESCAPES = "skillsite-shown"


def _shown_escapes(error: UnicodeError) -> tuple[str, int]:
    """What an output stream cannot encode, as a backslash escape; a byte of a file name that is
    not UTF-8 (read back as a lone surrogate, U+DC80 to U+DCFF) as that byte, ``\\xff``, as
    diagnostics name it (:func:`skillsite.source.discover.shown_name`), not as ``\\udcff``."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    unencodable = error.object[error.start:error.end]
    return "".join(escaped_code(_byte_of_name(ord(c))) for c in unencodable), error.end


def _byte_of_name(code: int) -> int:
    """The byte a lone surrogate of a file name stands for (U+DCFF: 0xff); any other code as it is."""
    return code - 0xDC00 if 0xDC80 <= code <= 0xDCFF else code


codecs.register_error(SHOWN_ESCAPES, _shown_escapes)


def _escaping(stream: object) -> None:
    """Let ``stream`` print any text: what its encoding cannot hold comes as a backslash escape."""
    if isinstance(stream, io.TextIOWrapper):
        stream.reconfigure(errors=SHOWN_ESCAPES)


def _silenced_stdout() -> None:
    """Point standard output at the null device, so that what is still buffered in it flushes
    without error when the interpreter exits."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.__stdout__.fileno() if sys.__stdout__ is not None else 1)
        os.close(null)
    except (OSError, ValueError):
        pass


@contextmanager
def prepared_streams(fail_code: int) -> Iterator[None]:
    """Run a command with safe standard streams; a failure to write standard output (or any
    error of the machine the command left unsaid) ends it with ``skillsite: <cause>`` on
    standard error and exit status ``fail_code`` (a gone reader: :data:`EXIT_BROKEN_PIPE`, quietly)."""
    if sys.stdout is None:
        sys.stdout = ClosedStream()
    _escaping(sys.stdout)
    _escaping(sys.stderr)
    try:
        try:
            yield
        finally:
            sys.stdout.flush()  # here, even after sys.exit: a full disk is said now, not at exit
    except OSError as exc:
        _silenced_stdout()
        if exc.errno == errno.EPIPE:
            sys.exit(EXIT_BROKEN_PIPE)
        if sys.stderr is not None:  # an error naming no file is the stream's own
            cause = describe_os_error(exc)
            try:
                print(f"skillsite: {cause if exc.filename else f'cannot write to standard output: {cause}'}",
                      file=sys.stderr)
            except OSError:  # standard error cannot take it either: the exit status alone says it
                pass
        sys.exit(fail_code)
