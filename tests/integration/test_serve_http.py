"""``skillsite serve``'s HTTP server as a browser and a hostile client reach it (a real server on
127.0.0.1, and ::1): a skill's bundled page is served sandboxed however its path is spelt, folders
are not listed, and odd requests get a status, never a dropped connection."""
from __future__ import annotations

import http.client
import os
import select
import shutil
import socket
import threading
import time
from pathlib import Path
from typing import Iterator

import pytest

from skillsite.publish.build import build
from skillsite.publish.serve import ReloadState, make_server
from support import EXAMPLES, serve_process, served_port, write_skill

PAGE = b"<html><head><title>x</title></head><body><script>alert(document.cookie)</script></body></html>\n"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int, Path]]:
    root = tmp_path_factory.mktemp("serve")
    src, site = root / "src", root / "site"
    shutil.copytree(EXAMPLES, src)
    (src / "test-first" / "assets").mkdir(exist_ok=True)
    for name in ("demo.html", "index.html"):
        (src / "test-first" / "assets" / name).write_bytes(PAGE)
    assert build([src], site).ok
    server = make_server(site, reload=ReloadState())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield "127.0.0.1", server.server_address[1], site
    server.shutdown()


def _get(served: tuple[str, int, Path], path: str) -> tuple[int, dict[str, str], bytes]:
    host, port, _ = served
    connection = http.client.HTTPConnection(host, port, timeout=30)
    connection.putrequest("GET", path, skip_accept_encoding=True)
    connection.endheaders()
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, body


@pytest.mark.parametrize("path", ["/skills/test-first/assets/demo.html", "/skills/test-first/assets/./demo.html",
                                  "/skills/test-first//assets/demo.html", "/skills/x/../test-first/assets/demo.html",
                                  "/skills/test-first/assets/", "/skills/test-first/assets/index.html"])
def test_a_bundled_page_is_sandboxed_however_its_path_is_spelt(served, path: str) -> None:
    status, headers, body = _get(served, path)
    assert status == 200 and headers["content-security-policy"].startswith("sandbox")
    assert body == PAGE  # no reload script added to it


def test_the_built_headers_sandbox_a_bundled_index_at_its_folder_address_too(served) -> None:
    rules = (served[2] / "_headers").read_text().splitlines()
    assert "/skills/test-first/assets/" in rules and "/skills/test-first/assets/index.html" in rules


@pytest.mark.parametrize("path, expected", [("/%00", 400), ("/index.html%00", 400), ("/" + "a" * 300, 404),
                                            ("/skills/" + "a" * 300 + ".html", 404), ("/skills/", 404),
                                            ("/skills/code-review/", 200), ("/skills.json/", 404),
                                            ("/skills/code-review/index.html/", 404), ("/_headers/", 404)])
def test_odd_requests_get_a_status_and_folders_are_not_listed(served, path: str, expected: int) -> None:
    status, _, body = _get(served, path)
    assert status == expected and b"Directory listing" not in body



def test_connections_wait_to_be_accepted_while_the_server_is_busy(tmp_path: Path) -> None:
    """A page and its assets, or a few tabs, connect at once; socketserver's backlog of 5 left
    all but six of them unanswered while the server was busy (the rest retried for seconds)."""
    server = make_server(tmp_path)  # not serving yet: nothing is accepted, connections queue
    clients = [socket.socket() for _ in range(50)]
    try:
        for client in clients:
            client.setblocking(False)
            client.connect_ex(server.server_address)
        waiting, deadline = set(clients), time.monotonic() + 10
        while waiting and time.monotonic() < deadline:
            _, writable, _ = select.select([], list(waiting), [], 0.5)
            waiting -= {c for c in writable if c.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0}
        assert not waiting, f"{len(waiting)} of {len(clients)} connections were not taken"
    finally:
        for client in clients:
            client.close()
        server.server_close()


def test_a_page_asking_for_the_version_it_has_is_answered_when_a_rebuild_changes_it(tmp_path: Path) -> None:
    """The reload script waits on ``/__skillsite/version?since=N``: the server holds the request
    while the build's number is N and answers as soon as a rebuild bumps it, so a page reloads
    when its catalog is rebuilt, not at its next look; asked with another number, or without one,
    it answers at once."""
    from skillsite.publish.serve import RELOAD_JS, VERSION_PATH

    (tmp_path / "index.html").write_bytes(PAGE)
    state = ReloadState()
    server = make_server(tmp_path, reload=state)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    answers: list[bytes] = []

    def ask(query: str) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=30)
        connection.request("GET", VERSION_PATH + query)
        answers.append(connection.getresponse().read())

    try:
        ask("")
        ask("?since=7")
        assert answers == [b"0", b"0"]
        waiting = threading.Thread(target=ask, args=("?since=0",))
        waiting.start()
        waiting.join(timeout=1.0)
        assert waiting.is_alive() and len(answers) == 2  # held: nothing was rebuilt
        state.bump()
        waiting.join(timeout=10)
        assert answers == [b"0", b"0", b"1"]
        assert b"?since=" in RELOAD_JS  # what the page asks
    finally:
        server.shutdown()
        server.server_close()


def test_a_bump_in_the_rebuilding_process_wakes_a_request_waiting_in_the_forked_server(tmp_path: Path) -> None:
    """The serving process is forked from the one that rebuilds: a request waiting there for a
    new build number is woken by the bump (a byte on a pipe, read by a thread of the serving
    process), not by a look on a timer nor at the end of its wait."""
    state = ReloadState()
    answer_read, answer_write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the serving process: waits for a number other than 0, at most 30 seconds
        started = time.monotonic()
        version = state.after("0", 30.0)
        os.write(answer_write, f"{version} {time.monotonic() - started:.3f}".encode())
        os._exit(0)
    os.close(answer_write)
    time.sleep(0.5)  # the child waits by now (a bump before its wait is seen as well)
    state.bump()
    with os.fdopen(answer_read, "rb") as answer:
        version, waited = answer.read().split()
    assert os.waitpid(pid, 0)[1] == 0
    assert version == b"1" and float(waited) < 15.0, (version, waited)


def ipv6_loopback() -> bool:
    """Whether this machine can listen on ::1."""
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


def test_serve_listens_on_an_ipv6_host(tmp_path: Path) -> None:
    """``skillsite serve --host ::1`` ended at once with "Address family for hostname not
    supported": the server was IPv4 only.  It listens on ::1, says its address in brackets and
    answers a request to [::1]; a host with an IPv4 address (localhost) is still served on IPv4."""
    local = make_server(tmp_path, "localhost")
    local.server_close()
    assert local.server_address[0] == "127.0.0.1"
    assert ipv6_loopback(), "this test needs an IPv6 loopback (::1) to listen on"
    write_skill(tmp_path / "src", "one")
    with serve_process(tmp_path, "--host", "::1") as said:  # "Built ..." then "Serving ...", or the error
        assert said[-1].startswith("Serving http://[::1]:"), said
        connection = http.client.HTTPConnection("::1", served_port(said[-1]), timeout=30)
        connection.request("GET", "/")
        response = connection.getresponse()
        assert response.status == 200 and b"one" in response.read()
        connection.close()


def _get_for_host(host: str, port: int, path: str, named: str) -> tuple[int, bytes]:
    """A GET of ``path`` from the server at ``host``:``port`` whose ``Host`` header is ``named``."""
    connection = http.client.HTTPConnection(host, port, timeout=30)
    connection.putrequest("GET", path, skip_host=True, skip_accept_encoding=True)
    connection.putheader("Host", named)
    connection.endheaders()
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, body


@pytest.mark.parametrize("named", ["attacker.example:{port}", "rebind.attacker.example", "127.0.0.1.nip.io:{port}",
                                   "localhost.attacker.example:{port}", "[::1", "x:y"])
@pytest.mark.parametrize("path", ["/skills.json", "/skills/test-first/SKILL.md", "/", "/__skillsite/version"])
def test_a_request_naming_another_host_is_refused(served, named: str, path: str) -> None:
    """DNS rebinding: a page of attacker.example pointing its name at 127.0.0.1 reached the
    catalog (200 for skills.json and every SKILL.md); now only addresses, localhost and the host
    listened on are answered, the others get 403 and nothing of the catalog."""
    host, port, _ = served
    status, body = _get_for_host(host, port, path, named.format(port=port))
    assert status == 403 and b"test-first" not in body and b"--allowed-host" in body


@pytest.mark.parametrize("named", ["127.0.0.1:{port}", "127.0.0.1", "localhost:{port}", "LOCALHOST.", "[::1]:{port}",
                                   "app.localhost:{port}", "10.0.0.7:{port}"])
def test_a_request_naming_an_address_or_localhost_is_answered(served, named: str) -> None:
    host, port, _ = served
    status, body = _get_for_host(host, port, "/skills.json", named.format(port=port))
    assert status == 200 and b'"test-first"' in body


def test_serve_answers_a_host_it_is_told_to_allow(tmp_path: Path) -> None:
    """``skillsite serve --allowed-host NAME``: requests for NAME (in any case, with a final dot)
    are answered, those for other names still refused."""
    write_skill(tmp_path / "src", "one")
    with serve_process(tmp_path, "--allowed-host", "my-box.lan") as said:
        assert said[-1].startswith("Serving http://127.0.0.1:"), said
        port = served_port(said[-1])
        assert _get_for_host("127.0.0.1", port, "/skills.json", f"My-Box.LAN.:{port}")[0] == 200
        assert _get_for_host("127.0.0.1", port, "/skills.json", f"other-box.lan:{port}")[0] == 403
