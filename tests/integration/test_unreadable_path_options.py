"""Path options naming a folder or file its owner cannot open (mode 000): click's check that a
path which exists can be read stopped the command (exit 2, "... is not readable") before
skillsite looked at it, though skillsite never reads most of them (it replaces an output, a
report or a folder; it writes into a folder it need only search).  Each is now skillsite's to
judge: done, or refused in one line of its own.  Run without root's right to read any file
(setpriv), as every other user runs."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from support import REPO, append_line, as_an_ordinary_user, write_skill

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)


def skillsite(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """``skillsite ARGS`` run as an ordinary user."""
    return subprocess.run([*as_an_ordinary_user(), sys.executable, "-m", "skillsite", *map(str, args)],
                          capture_output=True, text=True, cwd=REPO)


def source_tree(folder: Path) -> Path:
    write_skill(folder, "greet", description="Greets the user by name. Use when asked to say hello.")
    return folder


def test_build_replaces_an_output_it_cannot_open_under_force(tmp_path: Path) -> None:
    """``build -o OUT`` with OUT of mode 000: without --force the build cannot tell whether it
    wrote OUT, and says so in one line (exit 2, OUT kept); with --force it replaces OUT, as it
    replaces any folder there, from a new folder beside it (moving the new catalog in from the
    cache folder's back folder needs OUT writable).  So does --force with a read-only OUT."""
    src, out = source_tree(tmp_path / "src"), tmp_path / "site"
    assert skillsite("build", src, "-o", out, "-q").returncode == 0
    out.chmod(0)
    refused = skillsite("build", src, "-o", out, "-q")
    assert (refused.returncode, refused.stdout) == (2, ""), refused.stderr
    assert refused.stderr == (f"skillsite: {out} cannot be opened (permission denied), so whether skillsite wrote "
                              "it cannot be told; choose another folder or pass --force to replace it\n")
    assert out.stat().st_mode & 0o777 == 0
    forced = skillsite("build", src, "-o", out, "-q", "--force")
    assert forced.returncode == 0, forced.stderr
    assert json.loads((out / "skills.json").read_text("utf-8"))["skills"][0]["id"] == "greet"
    append_line(src / "greet" / "SKILL.md", "An edit.")
    out.chmod(0o555)
    forced = skillsite("build", src, "-o", out, "-q", "--force")
    assert forced.returncode == 0, forced.stderr
    assert "An edit." in (out / "skills" / "greet" / "SKILL.md").read_text("utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".skillsite-cache", "site", "src"]  # nothing left beside
    append_line(src / "greet" / "SKILL.md", "Another edit.")
    again = skillsite("build", src, "-o", out, "-q")  # from the back folder again, which held an older catalog
    assert again.returncode == 0, again.stderr
    assert "Another edit." in (out / "skills" / "greet" / "SKILL.md").read_text("utf-8")
