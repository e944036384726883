"""A list made an item at a time, only as far as a reader asks (:class:`Unfolding`).

``resources/list`` and ``prompts/list`` are answered a page at a time (:mod:`skillsite.mcp.list_pages`),
and each entry of them is a catalog entry checked before it is listed: made as an unfolding, the
first page checks the entries it shows (and the one after, for its ``nextCursor``), not the
whole catalog's.
"""
from __future__ import annotations

import itertools
import threading
from typing import Callable, Generic, Iterable, Iterator, TypeVar

T = TypeVar("T")


class Unfolding(Generic[T]):
    """The items of ``items`` (an iterable read once, in order), each made when a reader first
    asks for it or a later one, then kept; several readers, in any threads, see the same list.

    An item that fails to be made (a page of the catalog that cannot be fetched) is the reader's
    error, not the list's end: a generator that raised is finished, so the list is read again
    from ``remake()`` past the items already made, at the next reader's request.  Without
    ``remake``, every later reader gets the failure again."""

    def __init__(self, items: Iterable[T], remake: Callable[[], Iterable[T]] | None = None) -> None:
        self._source: Iterator[T] | None = iter(items)
        self._remake = remake
        self._failed: BaseException | None = None
        self._made: list[T] = []
        self._lock = threading.RLock()

    def reaches(self, count: int) -> bool:
        """Whether the list holds ``count`` items at least (making them, as far as that)."""
        with self._lock:
            if self._failed is not None:
                self._resume()
            while len(self._made) < count and self._source is not None:
                try:
                    self._made.append(next(self._source))
                except StopIteration:
                    self._source = None
                except Exception as exc:
                    self._failed = exc
                    raise
            return len(self._made) >= count

    def _resume(self) -> None:
        """After a failure: the source read again past the items made (the failure raised again
        when there is no ``remake``, or when reading again fails)."""
        if self._remake is None:
            raise self._failed  # type: ignore[misc]
        source = iter(self._remake())
        for _ in itertools.islice(source, len(self._made)):
            pass
        self._source, self._failed = source, None

    def __getitem__(self, index: int) -> T:
        """The item at ``index`` (0 or more; IndexError past the end)."""
        if index < 0 or not self.reaches(index + 1):
            raise IndexError(index)
        return self._made[index]

    def between(self, start: int, end: int) -> list[T]:
        """The items from ``start`` up to ``end`` (fewer at the end of the list)."""
        self.reaches(end)
        return self._made[start:end]

    def __iter__(self) -> Iterator[T]:
        index = 0
        while self.reaches(index + 1):
            yield self._made[index]
            index += 1
