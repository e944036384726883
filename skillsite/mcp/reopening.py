"""The catalog ``skillsite mcp`` serves, opened again when a request shows the host moved on.

The server keeps the :class:`~skillsite.loader.Catalog` it opened, and every part made of it
(the checked entries, the extension's tables, the prompts, the catalog listing).  Once the host
publishes another build, each newly fetched piece fails the old digests; once a signed catalog's
metadata expires, every verified read is refused.  :class:`Reopening` holds the current parts:
a request that fails for one of those reasons has the catalog opened again with the server's
own arguments, every part made anew and swapped in at once, and is retried once on them.  The
host is asked only then (a failure), never on every request.  When opening again fails, the
request's error says why (:class:`ReopenError`) and the parts in use stay.
"""
from __future__ import annotations

import logging
import threading
from datetime import datetime, timezone
from typing import Callable, Generic, Protocol, TypeVar

from skillsite.loader import Catalog, FetchError, IntegrityError, LoaderError, NotFoundError, TrustError

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Why a catalog is opened again.
PUBLISHED_ANEW = "the catalog was published anew since this server opened it"
EXPIRED = "its signed metadata expired"


class HasCatalog(Protocol):
    """What parts made of one catalog have: the catalog."""

    @property
    def catalog(self) -> Catalog: ...


P = TypeVar("P", bound=HasCatalog)


class ReopenError(LoaderError):
    """A request failed for a reason opening the catalog again would cure, and opening it again
    failed: both are named (``failed``: the request's error; ``reopening``: the open's)."""

    def __init__(self, failed: LoaderError, why: str, reopening: Exception) -> None:
        first = str(failed).replace(": open the catalog again", "")  # what the server just tried
        reason = f"{why}, and opening it again failed" if why == PUBLISHED_ANEW else "opening it again failed"
        super().__init__(f"{first}; {reason}: {reopening}")
        self.failed, self.why, self.reopening = failed, why, reopening


def expired(catalog: Catalog) -> bool:
    """Whether the signed metadata ``catalog`` was opened with has expired (False: not signed)."""
    return catalog.signed is not None and catalog.signed.expires <= datetime.now(timezone.utc)


def reopen_reason(catalog: Catalog, exc: LoaderError) -> str | None:
    """Why opening ``catalog`` again may cure ``exc`` (PUBLISHED_ANEW, EXPIRED), None when it
    cannot: a piece that fails its digest while skills.json is the one opened is tampering, not a
    new build.  A skill or file the catalog does not know of, or one the host no longer has, may
    be the new build's doing too.  Asks the host for skills.json only after such a failure."""
    if isinstance(exc, TrustError) and expired(catalog):
        return EXPIRED
    if isinstance(exc, IntegrityError) and catalog.changed_since_open():
        return PUBLISHED_ANEW
    gone = isinstance(exc, FetchError) and not exc.transient  # a 404, say: not a host that is down
    if (isinstance(exc, NotFoundError) or gone) and catalog.changed_since_open(conditional=True):
        return PUBLISHED_ANEW  # asked with the cached copy's validators: a model's typos cost a 304 each
    return None


class Reopening(Generic[P]):
    """The parts the server serves now (:attr:`current`), replaced together when a request fails
    for a reason :func:`reopen_reason` gives.  ``reopen`` opens the catalog again and makes every
    part of it (a LoaderError when it cannot); without it, the parts never change.
    :attr:`generation` counts the replacements, so that the server can tell its client."""

    def __init__(self, parts: P, reopen: Callable[[], P] | None = None) -> None:
        self.current = parts
        self.generation = 0
        self._reopen = reopen
        self._lock = threading.Lock()

    def run(self, call: Callable[[P], T]) -> T:
        """``call`` on the current parts; when it fails for a reason opening the catalog again
        cures, once more on the parts opened anew (at most one reopening a call)."""
        parts = self.current
        try:
            return call(parts)
        except LoaderError as exc:
            fresh = self.recover(parts, exc)
        return call(fresh)

    def recover(self, parts: P, exc: LoaderError) -> P:
        """The parts to retry on after ``exc`` failed a request on ``parts``: those opened anew
        (by this request, or by another since ``parts`` were current).  Raises ``exc`` when
        opening again cannot cure it, ReopenError when opening again failed."""
        why = None if self._reopen is None else reopen_reason(parts.catalog, exc)
        if why is None:
            raise exc
        with self._lock:
            if self.current is not parts:  # another request opened it again meanwhile
                return self.current
            self.current = self._opened(exc, why)
            self.generation += 1
            return self.current

    def _opened(self, exc: LoaderError, why: str) -> P:
        """The parts of the catalog opened again; ReopenError (logged) when it cannot be."""
        assert self._reopen is not None
        log.info("skillsite mcp: %s: opening the catalog again", why)
        try:
            return self._reopen()
        except (LoaderError, OSError, ValueError) as failed:
            log.warning("skillsite mcp: opening the catalog again failed: %s", failed)
            raise ReopenError(exc, why, failed) from None
