"""Fetching catalog files over HTTP(S) or from disk, within bounds.

Every request has a total deadline and a byte cap (also on what gzip inflates to); only
http and https URLs are fetched, redirects are followed only to URLs that pass the same
checks (hosts in ``allowed_hosts``, never from https down to http).
"""
from __future__ import annotations

import http.client
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


def check_url(url: str, allowed_hosts: frozenset[str] | None, previous: str | None = None) -> None:
    """Refuse non-http(s) URLs, hosts outside ``allowed_hosts`` and https-to-http redirects."""
    parts = urllib.parse.urlsplit(url)
    error = RedirectError if previous else FetchError
    if parts.scheme not in ("http", "https"):
        raise error(f"refusing {url!r}: only http and https URLs are fetched", url)
    host = (parts.hostname or "").lower()
    if not host:
        raise error(f"refusing {url!r}: no host", url)
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

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        try:
            check_url(newurl, self.allowed_hosts, previous=req.full_url)
        except FetchError:
            fp.close()
            raise
        return super().redirect_request(req, fp, code, msg, headers, newurl)


class Response(NamedTuple):
    """What a GET gave: the final URL (after redirects), 200 or 304, the body and its validators."""

    url: str
    status: int
    body: bytes
    etag: str | None
    last_modified: str | None


class Fetcher:
    """HTTP GET with a total deadline, a byte cap (also on gzip output) and guarded redirects."""

    def __init__(self, timeout: float, max_bytes: int, allowed_hosts: frozenset[str] | None) -> None:
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.allowed_hosts = allowed_hosts
        self._opener = urllib.request.build_opener(_RedirectGuard(allowed_hosts))

    def get(self, url: str, headers: Mapping[str, str] | None = None, limit: int | None = None) -> Response:
        """Fetch ``url``; raises FetchError (or a subclass) on any failure."""
        check_url(url, self.allowed_hosts)
        limit = self.max_bytes if limit is None else min(limit, self.max_bytes)
        deadline = time.monotonic() + self.timeout
        request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, "Accept-Encoding": "gzip",
                                                       **(headers or {})})
        try:
            response = self._opener.open(request, timeout=self.timeout)
        except urllib.error.HTTPError as exc:
            exc.close()
            if exc.code == 304:
                return Response(exc.url or url, 304, b"", exc.headers.get("ETag"), exc.headers.get("Last-Modified"))
            raise HTTPStatusError(exc.url or url, exc.code, str(exc.reason or "")) from None
        except FetchError:
            raise
        except urllib.error.URLError as exc:
            raise FetchError(f"cannot fetch {url}: {_reason(exc.reason)}", url, transient=True) from None
        except (OSError, http.client.HTTPException) as exc:
            raise FetchError(f"cannot fetch {url}: {_reason(exc)}", url, transient=True) from None
        with response:
            body = self._read(response, url, limit, deadline)
            return Response(response.geturl(), 200, body, response.headers.get("ETag"),
                            response.headers.get("Last-Modified"))

    def _read(self, response: Any, url: str, limit: int, deadline: float) -> bytes:
        """Read the body in chunks, enforcing the deadline and the byte cap as it goes."""
        declared = response.headers.get("Content-Length")
        if declared and declared.isdigit() and int(declared) > limit:
            raise TooLargeError(f"{url} is {int(declared):,} bytes, over the limit of {limit:,}", url)
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
            if declared and declared.isdigit() and received < int(declared):
                raise FetchError(f"cannot read {url}: connection closed after {received:,} of {int(declared):,} "
                                 "bytes (response truncated)", url, transient=True)
            if inflater is not None:
                out.append(inflater.flush())
        except FetchError:
            raise
        except zlib.error as exc:
            raise FetchError(f"{url}: bad gzip data ({exc})", url) from None
        except (OSError, http.client.HTTPException) as exc:
            raise FetchError(f"cannot read {url}: {_reason(exc)}", url, transient=True) from None
        return b"".join(out)

    def _next_chunk(self, response: Any, url: str, deadline: float) -> bytes:
        """The next piece of a response body (empty at its end), within the deadline."""
        if time.monotonic() > deadline:
            raise FetchError(f"{url} took longer than {self.timeout:g} s", url, transient=True)
        return response.read1(_CHUNK)


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
    """Read at most ``limit`` bytes of a local file; TooLargeError beyond."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except FileNotFoundError:
        raise FetchError(f"cannot read {path}: no such file", str(path)) from None
    except OSError as exc:
        raise FetchError(f"cannot read {path}: {exc.strerror or exc}", str(path)) from None
    if len(data) > limit:
        raise TooLargeError(f"{path} is over the limit of {limit:,} bytes", str(path))
    return data
