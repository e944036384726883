"""skillsite.loader against hostile HTTP servers on 127.0.0.1: answers http.server cannot send
(a byte at a time, odd headers, odd redirects) come from a raw TCP server, and every one ends
in the loader's own errors, within the request's total timeout."""
from __future__ import annotations

import socket
import threading
import time
from pathlib import Path
from typing import Callable

import pytest

from skillsite.agent.fetch import Fetcher
from skillsite.loader import Catalog, FetchError, RedirectError, TooLargeError

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)

Script = Callable[[socket.socket, threading.Event], None]
TRICKLE_SECONDS = 10.0


class RawServer:
    """Answers each connection on 127.0.0.1 with ``script(conn, stopped)`` after reading the request."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.stopped = threading.Event()
        self.cut_short = threading.Event()   # a client hung up while a script was still sending
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.1)
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def url(self, path: str = "/skills.json") -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}{path}"

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(5)
        self.listener.close()

    def _accept(self) -> None:
        while not self.stopped.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.settimeout(TRICKLE_SECONDS + 5)
                conn.recv(65536)
                self.script(conn, self.stopped)
            except OSError:
                self.cut_short.set()


@pytest.fixture
def serve():
    servers: list[RawServer] = []

    def start(script: Script) -> RawServer:
        servers.append(RawServer(script))
        return servers[-1]
    yield start
    for server in servers:
        server.stop()


def trickle(head: bytes, filler: bytes = b"a") -> Script:
    """Send ``head``, then ``filler`` one byte every 0.2 s for TRICKLE_SECONDS."""
    def script(conn: socket.socket, stopped: threading.Event) -> None:
        conn.sendall(head)
        end = time.monotonic() + TRICKLE_SECONDS
        while time.monotonic() < end and not stopped.wait(0.2):
            conn.sendall(filler)
    return script


def answer(raw: bytes) -> Script:
    return lambda conn, stopped: conn.sendall(raw)


def redirect_to(location: bytes) -> Script:
    return answer(b"HTTP/1.1 302 Found\r\nLocation: " + location + b"\r\nContent-Length: 0\r\n\r\n")


# ---- bug 6: the timeout bounds a request as a whole


@pytest.mark.parametrize("head, filler", [
    (b"", b"H"),                                                                # the status line
    (b"HTTP/1.1 200 OK\r\nX-Pad: ", b"a"),                                     # a header
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", b"0"),          # a chunk-size line
    (b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n{", b" "),             # the body
], ids=["status-line", "header", "chunk-size", "body"])
def test_a_trickling_server_cannot_stretch_a_request(serve, tmp_path: Path, head: bytes, filler: bytes) -> None:
    server = serve(trickle(head, filler))
    with pytest.raises(FetchError, match="took longer than 1 s") as info:
        Catalog.open(server.url(), cache_dir=tmp_path / "cache", timeout=1.0)
    assert info.value.transient
    assert server.cut_short.wait(TRICKLE_SECONDS)  # the loader hung up while the server was still trickling


def test_the_deadline_also_covers_a_file_fetch(serve) -> None:
    server = serve(trickle(b"HTTP/1.1 200 OK\r\nX-Pad: "))
    with pytest.raises(FetchError, match="took longer"):
        Fetcher(1.0, 10**6, None).get(server.url("/skills/x/SKILL.md"))
    assert server.cut_short.wait(TRICKLE_SECONDS)


def test_a_prompt_answer_is_unaffected_by_the_deadline(serve) -> None:
    server = serve(answer(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"))
    fetcher = Fetcher(0.5, 10**6, None)
    assert [fetcher.get(server.url()).body for _ in range(3)] == [b"hello"] * 3
    time.sleep(0.7)   # the timers of finished requests have nothing left to shut down
    assert fetcher.get(server.url()).body == b"hello"


# ---- bug 4: Content-Length that is not ASCII digits


@pytest.mark.parametrize("length", ["\u00b2".encode("latin-1"), b"1_0", b"+5", b"\xb3"])
def test_a_content_length_that_is_not_ascii_digits_is_a_fetch_error(serve, tmp_path: Path,
                                                                    length: bytes) -> None:
    server = serve(answer(b"HTTP/1.1 200 OK\r\nContent-Length: " + length + b"\r\nConnection: close\r\n\r\n{}"))
    with pytest.raises(FetchError, match="Content-Length"):
        Catalog.open(server.url(), cache_dir=tmp_path / "cache", timeout=5.0)


def test_a_content_length_too_long_to_read_is_too_large(serve, tmp_path: Path) -> None:
    server = serve(answer(b"HTTP/1.1 200 OK\r\nContent-Length: " + b"9" * 5000 + b"\r\nConnection: close\r\n\r\n{}"))
    with pytest.raises(TooLargeError, match="over the limit"):
        Catalog.open(server.url(), cache_dir=tmp_path / "cache", timeout=5.0)


# ---- bug 7: redirects to other schemes, and malformed ones


@pytest.mark.parametrize("location", [b"file:///etc/passwd", b"file:x", b"javascript:alert(1)"])
def test_a_redirect_to_another_scheme_is_a_redirect_error_naming_both_urls(serve, tmp_path: Path,
                                                                          location: bytes) -> None:
    server = serve(redirect_to(location))
    with pytest.raises(RedirectError) as info:
        Catalog.open(server.url(), cache_dir=tmp_path / "cache", timeout=5.0)
    message = str(info.value)
    assert f"redirect from {server.url()} to {location.decode()}" in message and "only http and https" in message
    assert info.value.url == location.decode() and not info.value.transient


@pytest.mark.parametrize("location", [b"http://[::1/x", b"//[x/y", b"https://\xff/x"])
def test_a_malformed_redirect_is_a_redirect_error(serve, tmp_path: Path, location: bytes) -> None:
    server = serve(redirect_to(location))
    with pytest.raises(RedirectError, match=f"redirect from {server.url()}"):
        Catalog.open(server.url(), cache_dir=tmp_path / "cache", timeout=5.0)
