"""Standard output closed, on a full disk, or unable to encode a name: one line on standard
error and exit 3 (or, for the encoding, the name escaped), never a traceback."""
from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support import REPO, write_skill

pytestmark = pytest.mark.each_python  # file descriptors and encodings: the lowest admitted Python too


def skillsite(*args: str, cwd: Path, env: dict[str, str] | None = None, **options) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "skillsite", *args], cwd=cwd, capture_output="stdout" not in options,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
                          **options)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    write_skill(tmp_path / "src", "émoji-ü", name="emoji")
    return tmp_path


def test_a_closed_standard_output_is_said_in_one_line(tree: Path) -> None:
    run = skillsite("validate", "src", cwd=tree, stdout=None, stderr=subprocess.PIPE,
                    preexec_fn=lambda: os.close(1))
    assert run.returncode == 3
    assert run.stderr == "skillsite: cannot write to standard output: standard output is closed (EBADF)\n"


@pytest.mark.parametrize("args", [["validate", "src"], ["--version"], ["build", "src", "-o", "out"]])
def test_standard_output_on_a_full_disk_is_said_in_one_line(tree: Path, args: list[str]) -> None:
    with open("/dev/full", "w") as full:
        run = skillsite(*args, cwd=tree, stdout=full, stderr=subprocess.PIPE)
    assert run.returncode == 3
    said = "skillsite: cannot write to standard output: No space left on device (ENOSPC)"
    assert run.stderr.splitlines()[-1] == said
    assert "Traceback" not in run.stderr


def test_a_name_the_output_s_encoding_lacks_is_escaped(tree: Path) -> None:
    run = skillsite("validate", "src", cwd=tree, env={"PYTHONIOENCODING": "ascii"})
    assert run.returncode == 0 and "Traceback" not in run.stderr
    assert "src/\\xe9moji-\\xfc/SKILL.md" in run.stdout


def test_a_name_that_is_not_utf8_is_shown_as_its_bytes_in_every_line(tree: Path) -> None:
    """An output folder named with the byte 0xff: the summary line named it ``o\\udcff`` while
    the diagnostics name such a folder ``\\xff``; both now show the byte."""
    out = os.fsdecode(b"o\xffut")
    run = skillsite("build", "src", "-o", out, cwd=tree)
    assert run.returncode == 0, run.stderr
    assert "\nBuilt 1 skill into o\\xffut (" in run.stdout, run.stdout
    assert "udc" not in run.stdout + run.stderr


def test_both_standard_streams_on_a_full_disk_exit_3_not_1(tree: Path) -> None:
    """The line saying standard output failed could not be written either: that second error
    escaped, and the exit status said 'problems in the skills' (1) for a catalog published fine."""
    with open("/dev/full", "w") as full:
        run = skillsite("build", "src", "-o", "out", cwd=tree, stdout=full, stderr=full)
    assert run.returncode == 3 and (tree / "out" / "skills.json").is_file()


@pytest.mark.parametrize("args", [["validate", "src"], ["build", "src", "-o", "out"], ["show", "x", "--catalog", "."]])
def test_a_locale_reading_file_names_in_another_encoding_than_utf8_is_refused(tree: Path, args: list[str]) -> None:
    """With UTF-8 mode off, Python reads file names in the locale's encoding: a build published
    'cafÃ©' for 'café' (Latin-1), or skipped 'émoji-ü' as not UTF-8 and failed opening it (ASCII)."""
    run = skillsite(*args, cwd=tree, env={"LC_ALL": "POSIX", "PYTHONUTF8": "0"})
    assert run.returncode == 3 and "Traceback" not in run.stderr and not (tree / "out").exists()
    assert run.stderr == ("skillsite: this locale has file names read as ascii, and skillsite reads them as UTF-8: "
                          "set PYTHONUTF8=1, or a UTF-8 locale (LC_ALL=C.UTF-8)\n")
    assert skillsite("--version", cwd=tree, env={"LC_ALL": "POSIX", "PYTHONUTF8": "0"}).returncode == 0


class _FullDisk(io.StringIO):
    """A stream on a full disk: every write fails, as on /dev/full."""

    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    def isatty(self) -> bool:
        return self.tty

    tty = False


@pytest.mark.parametrize("tty", [False, True], ids=["log", "terminal"])
def test_progress_that_cannot_be_written_does_not_stop_the_build(tty: bool) -> None:
    """A stage slower than a second wrote its line to standard error mid-build: on a full disk that
    write ended the build (exit 3) before anything was published, on a slow day only."""
    from skillsite.cli.building import Progress

    stream = _FullDisk()
    stream.tty = tty
    progress = Progress(stream, ("read", "publish"))
    progress.SLOW = 0.0
    for stage in ("read", "publish"):
        progress.start(stage)
    progress.finish()
    assert progress.broken
