"""Fetching catalog files over HTTP(S) or from disk, within bounds.

Every request has a total deadline and a byte cap (also on what gzip inflates to); only
http and https URLs are fetched, redirects are followed only to URLs that pass the same
checks (hosts in ``allowed_hosts``, never from https down to http).
"""
from __future__ import annotations

import http.client
import os
import re
import socket
import stat
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from pathlib import Path
from typing import Any, Mapping, NamedTuple

from skillsite.agent.catalog_format import FORMAT_VERSION
from skillsite.agent.errors import FetchError, HTTPStatusError, RedirectError, TooLargeError

USER_AGENT = f"skillsite-loader/{FORMAT_VERSION}"
_CHUNK = 64 * 1024


#: An encoded dot or slash in a URL's path: servers decode and resolve them (``/live/%2E/`` is
#: ``/live/``), ``urljoin`` reads them as names, so the place a catalog's signed metadata is read
#: from, and its trust-on-first-use pin, would differ from the place the server serves.
_ENCODED_STEP = re.compile(r"%2[ef]", re.IGNORECASE)


def check_url(url: str, allowed_hosts: frozenset[str] | None, previous: str | None = None) -> None:
    """Refuse malformed and non-http(s) URLs, hosts outside ``allowed_hosts`` and https-to-http
    redirects; a refused redirect (``previous`` given) is a RedirectError naming both URLs."""
    error = RedirectError if previous else FetchError
    subject = f"redirect from {previous} to {url}" if previous else repr(url)
    try:
        parts = urllib.parse.urlsplit(url)
        host = (parts.hostname or "").lower()
    except ValueError as exc:
        raise error(f"refusing {subject}: not a valid URL ({exc})", url) from None
    if parts.scheme not in ("http", "https"):
        raise error(f"refusing {subject}: only http and https URLs are fetched", url)
    if not host or not host.isascii():
        raise error(f"refusing {subject}: {'a host that is not ASCII' if host else 'no host'}", url)
    if _ENCODED_STEP.search(parts.path):
        raise error(f"refusing {subject}: its path holds an encoded '.' or '/' (%2E, %2F), which a server may "
                    "read as a folder step and the loader as a name", url)
    if allowed_hosts is not None and host not in allowed_hosts:
        what = f"redirect from {previous} to" if previous else "URL"
        raise error(f"refusing {what} {url}: host {host!r} is not in allowed_hosts "
                    f"({', '.join(sorted(allowed_hosts))})", url)
    if previous and urllib.parse.urlsplit(previous).scheme == "https" and parts.scheme != "https":
        raise error(f"refusing redirect from {previous} to {url}: it downgrades https to http", url)


class _RedirectGuard(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only to an http(s) URL that passes :func:`check_url`."""

    def __init__(self, allowed_hosts: frozenset[str] | None) -> None:
        self.allowed_hosts = allowed_hosts

    def http_error_302(self, req, fp, code, msg, headers):  # type: ignore[no-untyped-def]
        """Check the Location first: urllib refuses other schemes itself, but with an HTTPError
        that names the wrong URLs, and fails on malformed ones with a ValueError."""
        location = headers.get("Location") or headers.get("URI")
        if location:
            try:
                check_url(_joined(req.full_url, location), self.allowed_hosts, previous=req.full_url)
            except FetchError:
                fp.close()
                raise
        return super().http_error_302(req, fp, code, msg, headers)

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        try:
            check_url(newurl, self.allowed_hosts, previous=req.full_url)
        except FetchError:
            fp.close()
            raise
        # a 308 keeps the method as a 307 does; Python 3.10's urllib refuses to follow it
        return super().redirect_request(req, fp, 307 if code == 308 else code, msg, headers, newurl)


def _joined(base: str, location: str) -> str:
    """``location`` resolved against ``base``; left as it is when it cannot be parsed (check_url says so)."""
    try:
        return urllib.parse.urljoin(base, location)
    except ValueError:
        return location


class _Deadline:
    """The total time one request may take.  When it is up, every connection the request opened
    is shut down, which ends a read in progress: a server sending a byte at a time cannot
    stretch a request past it.  Sockets are watched through duplicates, closed by :meth:`close`."""

    def __init__(self, seconds: float) -> None:
        self.at = time.monotonic() + seconds
        self._fired = False
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    @property
    def expired(self) -> bool:
        return self._fired or time.monotonic() >= self.at

    def watch(self, sock: socket.socket) -> socket.socket:
        """``sock``, to be shut down when the deadline passes (at once if it has); the duplicate
        comes from its descriptor, as TLS sockets refuse ``dup()``."""
        with self._lock:
            self._sockets.append(socket.fromfd(sock.fileno(), sock.family, sock.type, sock.proto))
            if self._fired:
                _shut_down(self._sockets[-1])
        return sock

    def _expire(self) -> None:
        with self._lock:
            self._fired = True
            for sock in self._sockets:
                _shut_down(sock)

    def close(self) -> None:
        """Stop the timer and let go of the duplicates; the connections are closed by their owners."""
        self._timer.cancel()
        with self._lock:
            for sock in self._sockets:
                sock.close()
            self._sockets.clear()


def _shut_down(sock: socket.socket) -> None:
    """End both directions of a connection (a read blocked on it returns), ignoring one already gone."""
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


class _DeadlineHandler(urllib.request.AbstractHTTPHandler):
    """Opens connections whose sockets a :class:`_Deadline` watches: from creation (so a TLS
    handshake is covered too) and again after ``connect``, should http.client's creation hook go."""

    def __init__(self, deadline: _Deadline) -> None:
        super().__init__()
        self.deadline = deadline

    def do_open(self, http_class, req, **http_conn_args):  # type: ignore[no-untyped-def]
        deadline = self.deadline

        class Watched(http_class):  # type: ignore[misc, valid-type]
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                create = getattr(self, "_create_connection", socket.create_connection)
                self._create_connection = lambda *a, **k: deadline.watch(create(*a, **k))

            def connect(self) -> None:
                super().connect()
                deadline.watch(self.sock)

        return super().do_open(Watched, req, **http_conn_args)


# The http handler and, where Python has ssl, the https one, under a deadline.
_HANDLERS = tuple(type(f"_Deadline{base.__name__}", (_DeadlineHandler, base), {})
                  for base in (urllib.request.HTTPHandler, getattr(urllib.request, "HTTPSHandler", None)) if base)


class Response(NamedTuple):
    """What a GET gave: the final URL (after redirects), 200 or 304, the body and its validators,
    and the headers that say whether and how it may be kept (``Date``, ``Cache-Control``)."""

    url: str
    status: int
    body: bytes
    etag: str | None
    last_modified: str | None
    date: str | None = None
    cache_control: str | None = None


def _response(url: str, status: int, body: bytes, headers: Any) -> Response:
    return Response(url, status, body, headers.get("ETag"), headers.get("Last-Modified"), headers.get("Date"),
                    headers.get("Cache-Control"))


class Fetcher:
    """HTTP GET with a total deadline, a byte cap (also on gzip output) and guarded redirects."""

    def __init__(self, timeout: float, max_bytes: int, allowed_hosts: frozenset[str] | None) -> None:
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.allowed_hosts = allowed_hosts

    def get(self, url: str, headers: Mapping[str, str] | None = None, limit: int | None = None) -> Response:
        """Fetch ``url``; raises FetchError (or a subclass) on any failure."""
        check_url(url, self.allowed_hosts)
        limit = self.max_bytes if limit is None else min(limit, self.max_bytes)
        request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, "Accept-Encoding": "gzip",
                                                       **(headers or {})})
        deadline = _Deadline(self.timeout)
        try:
            return self._get(request, url, limit, deadline)
        finally:
            deadline.close()

    def _get(self, request: urllib.request.Request, url: str, limit: int, deadline: _Deadline) -> Response:
        """One GET, redirects included, within ``deadline``."""
        opener = urllib.request.build_opener(_RedirectGuard(self.allowed_hosts), *(h(deadline) for h in _HANDLERS))
        try:
            response = opener.open(request, timeout=self.timeout)
        except urllib.error.HTTPError as exc:
            exc.close()
            if exc.code == 304:
                return _response(exc.url or url, 304, b"", exc.headers)
            raise HTTPStatusError(exc.url or url, exc.code, str(exc.reason or "")) from None
        except FetchError:
            raise
        except urllib.error.URLError as exc:
            raise self._failure(f"cannot fetch {url}", url, exc.reason, deadline) from None
        except (OSError, http.client.HTTPException, ValueError) as exc:
            raise self._failure(f"cannot fetch {url}", url, exc, deadline) from None
        with response:
            body = self._read(response, url, limit, deadline)
            return _response(response.geturl(), 200, body, response.headers)

    def _failure(self, what: str, url: str, exc: object, deadline: _Deadline) -> FetchError:
        """The FetchError for a failed request: a timeout once the deadline has passed (its
        shutting the connection down is what failed), else the failure in a few words."""
        if deadline.expired:
            return self._timed_out(url)
        return FetchError(f"{what}: {_reason(exc)}", url, transient=not isinstance(exc, ValueError))

    def _timed_out(self, url: str) -> FetchError:
        return FetchError(f"{url} took longer than {self.timeout:g} s", url, transient=True)

    def _read(self, response: Any, url: str, limit: int, deadline: _Deadline) -> bytes:
        """Read the body in chunks, enforcing the deadline and the byte cap as it goes."""
        declared = _declared_length(response, url, limit)
        gzipped = response.headers.get("Content-Encoding", "").lower() == "gzip"
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS) if gzipped else None
        out: list[bytes] = []
        size = received = 0
        try:
            while chunk := self._next_chunk(response, url, deadline):
                received += len(chunk)
                piece = _inflate(inflater, chunk, limit - size, url) if inflater else chunk
                out.append(piece)
                size += len(piece)
                if size > limit:
                    raise TooLargeError(f"{url} is over the limit of {limit:,} bytes", url)
            if deadline.expired:
                raise self._timed_out(url)
            if declared is not None and received < declared:
                raise FetchError(f"cannot read {url}: connection closed after {received:,} of {declared:,} "
                                 "bytes (response truncated)", url, transient=True)
            if inflater is not None:
                out.append(inflater.flush())
        except FetchError:
            raise
        except zlib.error as exc:
            raise FetchError(f"{url}: bad gzip data ({exc})", url) from None
        except (OSError, http.client.HTTPException) as exc:
            raise self._failure(f"cannot read {url}", url, exc, deadline) from None
        return b"".join(out)

    def _next_chunk(self, response: Any, url: str, deadline: _Deadline) -> bytes:
        """The next piece of a response body (empty at its end), within the deadline."""
        if deadline.expired:
            raise self._timed_out(url)
        return response.read1(_CHUNK)


def _declared_length(response: Any, url: str, limit: int) -> int | None:
    """The Content-Length a response declares (None without one): ASCII digits only, as HTTP
    says; FetchError for anything else, TooLargeError above ``limit``."""
    value = response.headers.get("Content-Length")
    if not value:
        return None
    digits = value.strip(" \t")
    if not (digits.isascii() and digits.isdigit()):
        raise FetchError(f"{url}: malformed Content-Length {value[:40]!r}", url)
    digits = digits.lstrip("0") or "0"
    if len(digits) > len(str(limit)) or int(digits) > limit:
        size = f"{int(digits):,}" if len(digits) <= 30 else f"a {len(digits)}-digit number of"
        raise TooLargeError(f"{url} is {size} bytes, over the limit of {limit:,}", url)
    return int(digits)


def _inflate(inflater: Any, chunk: bytes, room: int, url: str) -> bytes:
    """Inflate a gzip chunk, refusing output beyond ``room`` bytes."""
    data = inflater.decompress(chunk, max(room, 0) + 1)
    if inflater.unconsumed_tail or len(data) > room:
        raise TooLargeError(f"{url} inflates to more than the limit", url)
    return data


def _reason(exc: object) -> str:
    """A network failure in a few words."""
    if isinstance(exc, TimeoutError):  # socket.timeout is TimeoutError since Python 3.10
        return "timed out"
    if isinstance(exc, http.client.IncompleteRead):
        return f"connection closed after {len(exc.partial):,} bytes (response truncated)"
    return str(getattr(exc, "strerror", None) or exc) or type(exc).__name__


def read_local(path: Path, limit: int) -> bytes:
    """Read at most ``limit`` bytes of a local file; TooLargeError beyond; FetchError for what is
    no regular file (a named pipe would block the read forever, a device never end)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # opening a pipe must not wait for a writer
        with open(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise FetchError(f"cannot read {path}: not a regular file", str(path))
            data = handle.read(limit + 1)
    except FileNotFoundError:
        raise FetchError(f"cannot read {path}: no such file", str(path)) from None
    except OSError as exc:
        raise FetchError(f"cannot read {path}: {exc.strerror or exc}", str(path)) from None
    if len(data) > limit:
        raise TooLargeError(f"{path} is over the limit of {limit:,} bytes", str(path))
    return data
