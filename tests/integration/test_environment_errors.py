"""Errors of the machine (a full disk, a read-only folder, a name too long) end a build with one
line naming the path and the cause, exit status 3, and the previous catalog intact."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from support import EXAMPLES, REPO, tree_bytes
from skillsite.cli import main

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)

SMALL_DISK = REPO / "tests" / "fixtures" / "small_disk.py"


def _private_mounts_work() -> bool:
    """Whether this machine lets a process mount a tmpfs of its own (``unshare -rm``)."""
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode == 0


def test_a_full_disk_and_a_read_only_disk_are_reported_and_the_catalog_survives(tmp_path, monkeypatch):
    if not _private_mounts_work():  # no small disk to fill here: a write that fails as one would
        return test_a_write_that_finds_the_disk_full_leaves_the_catalog(tmp_path, monkeypatch)
    done = subprocess.run(["unshare", "-rm", sys.executable, str(SMALL_DISK), str(tmp_path), str(EXAMPLES)],
                          capture_output=True, text=True, timeout=600, cwd=REPO)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    out = report["out"]
    code, stderr = report["full"]
    assert code == 3
    assert stderr.startswith(f"skillsite: {Path(out).parent}/.site.building-")
    assert stderr.endswith(f": No space left on device (ENOSPC); {out} was left as it was\n")
    assert report["full_intact"] and report["leftovers"] == []
    code, stderr = report["read_only"]
    assert code == 3 and "Read-only file system (EROFS)" in stderr and "Traceback" not in stderr
    assert report["read_only_intact"]
    code, stderr = report["cache"]
    assert code == 3
    assert stderr.startswith(f"skillsite: cannot use the cache folder {Path(out).parent / 'cache'}: ")
    assert not report["cache_output_made"]
    assert report["filled_then_freed"] == [0, 3, 0, 0, 0]  # the space freed is the next build's again


def test_a_write_that_finds_the_disk_full_leaves_the_catalog(tmp_path: Path, monkeypatch) -> None:
    from skillsite.publish import staging

    out = tmp_path / "site"
    assert CliRunner().invoke(main, ["build", str(EXAMPLES), "-o", str(out), "-q", "-j", "1"]).exit_code == 0
    before = tree_bytes(out)
    real_write = staging.Staging.write

    def full_disk(self, rel, data, key=None):
        if rel.endswith("index.html"):
            raise OSError(28, "No space left on device")
        return real_write(self, rel, data, key)

    monkeypatch.setattr(staging.Staging, "write", full_disk)
    result = CliRunner().invoke(main, ["build", str(EXAMPLES), "-o", str(out), "-q", "-j", "1", "--title", "New"])
    assert result.exit_code == 3
    assert "No space left on device (ENOSPC)" in result.output and "Traceback" not in result.output
    assert tree_bytes(out) == before


def test_an_output_name_too_long_is_reported(tmp_path):
    import signal

    before = [signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)]
    out = tmp_path / ("x" * 250)
    result = CliRunner().invoke(main, ["build", str(EXAMPLES), "-o", str(out), "-q", "-j", "1", "--no-cache"])
    assert [signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)] == before  # given back
    assert result.exit_code == 3
    assert result.output.startswith(f"skillsite: {tmp_path}/.{'x' * 250}.building-")
    assert result.output.endswith(f": File name too long (ENAMETOOLONG); {out} was not created\n")


def test_a_read_only_output_folder_is_named_as_the_output(tmp_path: Path) -> None:
    """Replacing the output moves it into the cache folder, which needs write permission on the
    output folder itself: the refusal names the output, not the cache's folder it was swapped with."""
    from support import append_line, as_an_ordinary_user

    src, out = tmp_path / "src", tmp_path / "site"
    shutil.copytree(EXAMPLES, src)
    command = [*as_an_ordinary_user(), sys.executable, "-m", "skillsite", "build", str(src), "-o", str(out), "-q",
               "-j", "1"]
    assert subprocess.run(command, capture_output=True, cwd=REPO).returncode == 0
    before = tree_bytes(out)
    append_line(src / "code-review" / "SKILL.md", "An edit.")
    out.chmod(0o555)
    try:
        done = subprocess.run(command, capture_output=True, text=True, cwd=REPO)
    finally:
        out.chmod(0o755)
    assert done.returncode == 3
    assert done.stderr == (f"skillsite: {out}: Permission denied: cannot replace it (the output folder and the "
                           f"folder holding it must both be writable) (EACCES); {out} was left as it was\n")
    assert tree_bytes(out) == before


def test_an_output_under_a_regular_file_is_said_to_be_under_no_folder(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x")
    out = tmp_path / "afile" / "site"
    result = CliRunner().invoke(main, ["build", str(EXAMPLES), "-o", str(out), "-q", "-j", "1", "--no-cache"])
    assert result.exit_code == 3
    assert result.output == f"skillsite: {tmp_path / 'afile'}: Not a directory (ENOTDIR); {out} was not created\n"


def test_a_bundled_file_the_output_cannot_take_is_an_error_of_the_machine_not_of_the_skill(tmp_path: Path) -> None:
    """A write the output refuses (a file-size limit here, EFBIG, as a full disk gives ENOSPC) was
    said as the skill's SK006 'cannot read bundled file', and --keep-going then published the
    catalog without that skill, exit 0.  It ends the build as any error of the machine does."""
    import resource

    src, out = tmp_path / "src", tmp_path / "site"
    shutil.copytree(EXAMPLES, src)
    command = [sys.executable, "-m", "skillsite", "build", str(src), "-o", str(out), "-q", "--keep-going", "-j", "1"]
    assert subprocess.run(command, capture_output=True, cwd=REPO).returncode == 0
    before = tree_bytes(out)
    (src / "code-review" / "references" / "big.txt").write_bytes(b"a line of a big file\n" * 150_000)  # 3 MB

    def limit_file_size() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (2_000_000, 2_000_000))

    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO, preexec_fn=limit_file_size)
    assert done.returncode == 3 and "SK006" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.rstrip().endswith(f"big.txt: File too large (EFBIG); {out} was left as it was")
    assert tree_bytes(out) == before
