"""``skillsite serve``: builds, serves with 404 pages, rebuilds on change and reloads open pages."""
from __future__ import annotations

import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

import pytest

from browsing import EXAMPLES, REPO, SITE_CONFIG, wait_until
from skillsite.publish.serve import RELOAD_PATH, VERSION_PATH, DevServer


def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8")


@pytest.fixture
def dev(tmp_path):
    source = tmp_path / "skills"
    shutil.copytree(EXAMPLES, source)
    server = DevServer([source], SITE_CONFIG, port=0, log=io.StringIO())
    assert server.start()
    yield server, source
    server.stop()
    assert not server.tmp.exists()


def test_serve_builds_serves_and_rebuilds(dev):
    server, source = dev
    status, home = fetch(server.url)
    assert status == 200 and f'<script src="{RELOAD_PATH}" defer></script>' in home
    assert fetch(server.url + VERSION_PATH) == (200, "1")
    assert fetch(server.url + RELOAD_PATH)[0] == 200
    status, missing = fetch(server.url + "skills/nope/")
    assert status == 404 and "Page not found" in missing
    assert server.check() is False                         # nothing changed: no rebuild

    skill = source / "test-first" / "SKILL.md"
    skill.write_text(skill.read_text().replace("# Test first", "# Test first, edited"), encoding="utf-8")
    assert server.check() is True
    assert fetch(server.url + VERSION_PATH) == (200, "2")
    assert "Test first, edited" in fetch(server.url + "skills/test-first/")[1]
    # raw files are served as built, without the reload script
    assert RELOAD_PATH not in fetch(server.url + "skills/test-first/SKILL.md")[1]


def test_pages_are_served_by_a_process_of_their_own(tmp_path):
    """The watcher, which rebuilds and forks build workers, starts no thread: a process forked
    while another thread holds a lock can hang on it."""
    source = tmp_path / "skills"
    shutil.copytree(EXAMPLES, source)
    before = set(threading.enumerate())  # other tests' servers may be running
    server = DevServer([source], SITE_CONFIG, port=0, log=io.StringIO())
    try:
        assert server.start()
        assert server.server_pid and server.server_pid != os.getpid()
        assert set(threading.enumerate()) == before
        skill = source / "code-review" / "SKILL.md"
        skill.write_text(skill.read_text().replace("# Code review", "# Code review, again"), encoding="utf-8")
        assert server.check() is True and set(threading.enumerate()) == before
        assert "Code review, again" in fetch(server.url + "skills/code-review/")[1]
    finally:
        server.stop()


WATCHER = """
import io, sys, time
from pathlib import Path
from skillsite.config import SiteConfig
from skillsite.publish.serve import DevServer
server = DevServer([Path(sys.argv[1])], SiteConfig(), port=0, log=io.StringIO())
server.start()
print(server.url, flush=True)
time.sleep(600)
"""


def test_the_serving_process_ends_when_the_watcher_is_killed(tmp_path, monkeypatch):
    source = tmp_path / "skills"
    shutil.copytree(EXAMPLES, source)
    (tmp_path / "tmp").mkdir()  # the watcher's temporary folder, left behind by SIGKILL
    watcher = subprocess.Popen([sys.executable, "-c", WATCHER, str(source)], stdout=subprocess.PIPE, text=True,
                               cwd=REPO, env={**os.environ, "TMPDIR": str(tmp_path / "tmp")})
    try:
        url = watcher.stdout.readline().strip()
        assert fetch(url)[0] == 200
    finally:
        watcher.send_signal(signal.SIGKILL)  # no clean-up runs
        watcher.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=1).close()
        except (urllib.error.URLError, ConnectionError):
            break  # nobody listens any more
        time.sleep(0.1)
    else:
        pytest.fail(f"{url} is still served after its watcher was killed")
    abandoned = list((tmp_path / "tmp").glob("skillsite-serve-*"))
    assert len(abandoned) == 1  # the next serve removes it, once every process of the killed one has ended
    deadline = time.monotonic() + 10
    while not _claim_is_free(abandoned[0]) and time.monotonic() < deadline:
        time.sleep(0.05)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    server = DevServer([source], SITE_CONFIG, port=0, log=io.StringIO())
    try:
        assert [p.name for p in (tmp_path / "tmp").iterdir()] == [server.tmp.name]
    finally:
        server.stop()


def _claim_is_free(folder) -> bool:
    from skillsite.publish.lock import claim
    from skillsite.publish.serve import IN_USE

    fd = claim(folder / IN_USE)
    if fd is None:
        return False
    os.close(fd)
    return True


def test_a_failed_rebuild_keeps_the_previous_site(dev):
    server, source = dev
    (source / "test-first" / "SKILL.md").write_text("---\nname: [unclosed\n---\n", encoding="utf-8")
    server.check()
    status, page = fetch(server.url + "skills/code-review/")
    assert status == 200


@pytest.mark.browser
def test_open_pages_reload_after_a_change(browser, dev):
    server, source = dev
    page = browser.new_page()
    try:
        page.goto(server.url + "skills/house-style/")
        wait_until(page, "() => document.readyState === 'complete'")
        page.wait_for_timeout(300)                         # the reload script has read the version
        skill = source / "house-style" / "SKILL.md"
        skill.write_text(skill.read_text().replace("# House style", "# House style, live"), encoding="utf-8")
        assert server.check()
        wait_until(page, "() => document.querySelector('article h2') && "
                         "document.querySelector('article h2').textContent.includes('House style, live')")
    finally:
        page.close()
