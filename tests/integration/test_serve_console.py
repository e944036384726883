"""What ``skillsite serve`` prints after a build, and when it starts answering (a real
``skillsite serve`` process): a long list of diagnostics is summarised per code, as ``skillsite
build`` summarises it, the whole list in a report file, ``--all`` printing every one; requests
are answered from the start, while the first build runs."""
from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support import REPO, serve_process, write_skill

#: More missing files than build lists one by one (MAX_LISTED is 200).
MISSING = 230


def _serve_output(tmp_path: Path, *options: str) -> tuple[list[str], list[dict] | None]:
    """What ``skillsite serve`` says on standard error up to its "Serving ..." line, and the
    diagnostics of the report file it names (None: it names none), read before it is stopped."""
    with serve_process(tmp_path, *options) as said:
        named = [line.split("all of them are in ", 1)[1].split(" (or pass", 1)[0] for line in said
                 if "all of them are in " in line]
        return said, json.loads(Path(named[0]).read_text(encoding="utf-8"))["diagnostics"] if named else None


@pytest.fixture()
def many_warnings(tmp_path: Path) -> Path:
    """A skill whose SKILL.md links to :data:`MISSING` files that do not exist (one SK303 each)."""
    links = "".join(f"- [part {n}](references/part-{n}.md)\n" for n in range(MISSING))
    write_skill(tmp_path / "src", "linked", body=f"# Linked\n\n{links}")
    return tmp_path


def test_serve_summarises_a_long_list_of_diagnostics_as_build_does(many_warnings: Path) -> None:
    """serve printed every diagnostic of every build, one line each: a catalog with thousands of
    warnings printed them all again at each save.  Past 200 it prints build's summary per code,
    and the whole list is in the report file the summary names."""
    said, report = _serve_output(many_warnings)
    assert said[-1].startswith("Serving "), said
    assert len(said) < 20, said
    head = next(line for line in said if "too many to list" in line)
    assert head.startswith(f"{MISSING:,} diagnostics") and "skillsite-serve-" in head and "(or pass --all)" in head
    assert any(line.startswith(f"SK303 (warning, {MISSING:,})") for line in said), said
    assert report is not None
    assert sorted(d["message"] for d in report if d["code"] == "SK303") == sorted(
        f"link 'references/part-{n}.md' points to a file that does not exist in the skill folder"
        for n in range(MISSING))


def test_serve_all_prints_every_diagnostic(many_warnings: Path) -> None:
    said, report = _serve_output(many_warnings, "--all")
    assert said[-1].startswith("Serving ") and report is None, said
    listed = [line for line in said if " warning SK303 " in line]
    assert len(listed) == MISSING
    assert not any("too many to list" in line for line in said)
    assert len(set(listed)) == MISSING


def test_serve_answers_while_its_first_build_runs(tmp_path: Path) -> None:
    """The serving process was forked after the first build, sharing every page of what that
    build kept for the next one (each save then copied the pages it wrote, and that memory was
    held twice).  It is forked first: a request during the first build is answered (404: no
    catalog yet), and once "Serving" is printed the catalog is there."""
    for number in range(300):  # a first build of a few seconds
        write_skill(tmp_path / "src", f"skill-{number:03d}",
                    description=f"Handles case {number} of the tests. Use when testing serve.",
                    body="# Body\n\n" + f"Step {number}: do the thing carefully.\n\n" * 40)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "TMPDIR": str(tmp_path), "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-m", "skillsite", "serve", "src", "--port", str(port)],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    try:
        first = None
        deadline = time.monotonic() + 120
        while first is None and time.monotonic() < deadline and proc.poll() is None:
            first = _status(port)
            time.sleep(0.01)
        assert first == 404, first
        assert proc.stderr is not None
        said = [proc.stderr.readline()]
        while said[-1] and not said[-1].startswith("Serving "):
            said.append(proc.stderr.readline())
        assert said[-1].startswith(f"Serving http://127.0.0.1:{port}/"), said
        assert _status(port) == 200
    finally:
        proc.terminate()  # SIGTERM: a test run in the background ignores SIGINT, and so would serve
        proc.communicate(timeout=60)


def _status(port: int) -> int | None:
    """The status of ``GET /`` on 127.0.0.1:``port`` (None: nothing listens there)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", "/")
        return connection.getresponse().status
    except ConnectionRefusedError:
        return None
    finally:
        connection.close()
