"""Standard output closed, on a full disk, or unable to encode a name: one line on standard
error and exit 3 (or, for the encoding, the name escaped), never a traceback."""
from __future__ import annotations

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
