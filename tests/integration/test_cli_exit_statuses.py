"""How the commands exit where skillsite/exit_codes.py says, observed from outside: ``serve`` on a
port another process listens on, or on a host no socket takes, ends at once with exit 2 and one line
naming the address (never a traceback), and each command's --help says the statuses it may exit with."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from skillsite.exit_codes import EXIT_ENVIRONMENT, EXIT_USAGE
from support import write_skill

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)


def _skillsite(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "skillsite", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300, env=env)


def test_serve_on_a_taken_port_exits_2_naming_the_address(tmp_path: Path) -> None:
    write_skill(tmp_path / "src", "one")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = _skillsite("serve", "src", "--host", "127.0.0.1", "--port", str(port), cwd=tmp_path)
    said = run.stdout + run.stderr
    assert run.returncode == EXIT_USAGE == 2, said
    assert f"skillsite serve: cannot listen on 127.0.0.1:{port}: Address already in use" in run.stderr
    assert "Traceback" not in said and "Serving" not in said


@pytest.mark.parametrize("host, shown, reason", [
    ("\u00e9" * 70, "\u00e9" * 70, "not a host name (encoding of hostname failed)"),  # IDNA: label too long
    ("::1\x1b[2J", "[::1\\x1b[2J]", ""),  # an IPv6-looking host in brackets, the escape shown, never sent
], ids=["idna-label-too-long", "escape-in-ipv6"])
def test_serve_on_a_host_no_socket_takes_exits_2_in_one_line(tmp_path: Path, host: str, shown: str,
                                                              reason: str) -> None:
    """A --host the socket module cannot encode ended in a TypeError traceback, leaving serve's
    temporary folder behind; it is the same one line and exit 2 as a host of no address here."""
    write_skill(tmp_path / "src", "one")
    temp = tmp_path / "temp"
    temp.mkdir()
    run = _skillsite("serve", "src", "--host", host, "--port", "0", cwd=tmp_path,
                     env={**os.environ, "TMPDIR": str(temp)})
    said = run.stdout + run.stderr
    assert run.returncode == EXIT_USAGE, said
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"skillsite serve: cannot listen on {shown}:0: "), said
    assert lines[0].endswith(reason) and "\x1b" not in said and "Traceback" not in said
    assert list(temp.iterdir()) == []  # its temporary folder removed


def _folder_of_path_length(parent: Path, length: int) -> Path:
    """A folder under ``parent`` whose path is ``length`` characters long (folders of 200 at most)."""
    parent.mkdir()
    path = str(parent)
    while len(path) < length:
        path += "/" + "d" * min(200, length - len(path) - 1)
        os.mkdir(path)
    return Path(path)


def test_serve_whose_temporary_folder_cannot_be_made_says_so_not_that_it_cannot_listen(tmp_path: Path) -> None:
    """TMPDIR where a file's name fits (Python takes the folder) but not serve's temporary folder's
    (4,096 bytes a path at most): serve said "cannot listen on 127.0.0.1:0: File name too long",
    exit 2, as if the address were wrong; the machine's problem is exit 3, naming the folder."""
    write_skill(tmp_path / "src", "one")
    temp = _folder_of_path_length(tmp_path / "temp", 4074)
    run = _skillsite("serve", "src", "--port", "0", cwd=tmp_path, env={**os.environ, "TMPDIR": str(temp)})
    said = run.stdout + run.stderr
    assert run.returncode == EXIT_ENVIRONMENT, said
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("skillsite: serve cannot make its temporary folder: "), said
    assert lines[0].endswith("File name too long (ENAMETOOLONG)") and f"{temp}/skillsite-serve-" in lines[0]
    assert "cannot listen" not in said and "Traceback" not in said


@pytest.mark.parametrize("command, says", [
    ("serve", "Exit 2 when it cannot listen on --host and --port"),
    ("audit", "Exit 0 when no finding reaches --fail-on, 1 when one does, 2 on a usage or configuration error, "
              "3 when the report cannot be written"),
    ("verify", "Exit 0 when all hold, 1 otherwise."),
])
def test_the_help_says_how_the_command_exits(tmp_path: Path, command: str, says: str) -> None:
    run = _skillsite(command, "--help", cwd=tmp_path)
    assert run.returncode == 0 and says in " ".join(run.stdout.split()), run.stdout
