"""What a new user meets following the README, through the command line (issue #32)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support import write_skill


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    return subprocess.run([sys.executable, "-m", "skillsite", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=300)


def test_validate_in_a_repository_reads_neither_its_virtual_environment_nor_what_git_ignores(tmp_path):
    """skillsite validate run at a repository's root after set-up: the .venv (with a python
    symlink leaving the tree and a library's bundled skills), node_modules and ignored folders
    are not read."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("_site/\nscratch/\n")
    write_skill(tmp_path, "skills/deploy")
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (venv / "bin" / "python").symlink_to(sys.executable)
    write_skill(venv, "lib/python3/site-packages/tool/skills/broken", "name: Broken Name\n")
    write_skill(tmp_path, "node_modules/pkg/skills/other", "name: other\n")
    write_skill(tmp_path, "scratch/half-done", "description: no name\n")
    result = run("validate", cwd=tmp_path)
    assert result.returncode == 0, result.stdout
    assert result.stdout == "1 skills checked: 1 valid, 0 invalid (0 left out); 0 errors, 0 warnings, 0 notes\n"
