"""A value made once, when first asked for, whichever thread asks first: the MCP server's parts
(the checked entries, the file tables, the tools' and prompts' lists) are made lazily, so that
start-up reads nothing a first request does not need."""
from __future__ import annotations

import threading
from typing import Callable, Generic, TypeVar

T = TypeVar("T")


class Once(Generic[T]):
    """The value ``make()`` gives, made when first asked for and then kept, whichever thread asks
    first (the SDK answers some requests in worker threads, others in its event loop)."""

    def __init__(self, make: Callable[[], T]) -> None:
        self._make: Callable[[], T] | None = make
        self._value: T | None = None
        self._lock = threading.Lock()

    def __call__(self) -> T:
        if self._make is not None:
            with self._lock:
                if self._make is not None:
                    self._value, self._make = self._make(), None
        return self._value  # type: ignore[return-value]
