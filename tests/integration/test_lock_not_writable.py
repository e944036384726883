"""A lock file that cannot be written (its folder read-only, the skills folder below it not):
install and update write no skill folder, so none holds a release the lock does not record
(``outdated`` would call it modified).  Run without root's right to write anywhere (setpriv)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from skillsite.agent.installed import installed_digest
from support import REPO, as_an_ordinary_user
from versioned_site import FakeRelease as R
from versioned_site import make_site, served_site

SKILLS = {"app": [R("1.0.0", (("lib", "^1"),))], "lib": [R("1.0.0"), R("1.1.0")], "tool": [R("1.0.0")]}


def skillsite(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*as_an_ordinary_user(), sys.executable, "-m", "skillsite", *args], capture_output=True,
                          text=True, cwd=REPO)


def test_a_lock_that_cannot_be_written_leaves_every_skill_folder_as_it_was(tmp_path: Path) -> None:
    project = tmp_path / "project"
    skills, lock, cache = project / "skills", project / "skillsite-lock.json", str(tmp_path / "cache")
    with served_site(tmp_path / "catalog", SKILLS) as server:
        done = skillsite("install", "app", "--catalog", server.url, "--dest", str(skills / "app"), "--lock", str(lock),
                         "--cache-dir", cache)
        assert done.returncode == 0, done.stderr
        locked = json.loads(lock.read_text("utf-8"))["skills"]
        make_site(tmp_path / "catalog", {**SKILLS, "lib": SKILLS["lib"] + [R("1.2.0")]})
        project.chmod(0o555)
        try:
            updated = skillsite("update", "--lock", str(lock), "--cache-dir", cache)
            installed = skillsite("install", "tool", "--catalog", server.url, "--dest", str(skills / "tool"),
                                  "--lock", str(lock), "--cache-dir", cache)
        finally:
            project.chmod(0o755)
    for result in (updated, installed):
        assert result.returncode == 3, result.stderr
        assert f"cannot write the lock file {lock}: Permission denied" in result.stderr
        assert "Traceback" not in result.stderr
    assert installed_digest(skills / "lib") == locked["lib"]["digest"]
    assert sorted(p.name for p in skills.iterdir()) == ["app", "lib"]
    assert json.loads(lock.read_text("utf-8"))["skills"] == locked


def test_a_lock_file_that_cannot_be_replaced_in_a_writable_folder_leaves_no_skill_folder(tmp_path: Path) -> None:
    """The folder took a new file, but the lock itself could not be renamed over (an immutable
    file, or one bind-mounted read-only, as here in a mount namespace of its own): install put the
    skill's folder in place, then failed writing the lock, leaving a folder the lock does not
    record (and a retry said 'already exists'). The lock is now replaced by itself first."""
    import shutil

    if shutil.which("unshare") is None or subprocess.run(["unshare", "-rm", "true"]).returncode != 0:
        raise AssertionError("this test needs private mount namespaces (unshare -rm), as CI's machine has")
    project = tmp_path / "project"
    skills, lock, cache = project / "skills", project / "skillsite-lock.json", str(tmp_path / "cache")
    with served_site(tmp_path / "catalog", SKILLS) as server:
        done = subprocess.run([sys.executable, "-m", "skillsite", "install", "app", "--catalog", server.url, "--dest",
                               str(skills / "app"), "--lock", str(lock), "--cache-dir", cache],
                              capture_output=True, text=True, cwd=REPO)
        assert done.returncode == 0, done.stderr
        locked = json.loads(lock.read_text("utf-8"))["skills"]
        fixed = f"mount --bind '{lock}' '{lock}' && mount -o remount,bind,ro '{lock}' && exec \"$@\""
        installed = subprocess.run(["unshare", "-rm", "sh", "-c", fixed, "sh", sys.executable, "-m", "skillsite",
                                    "install", "tool", "--catalog", server.url, "--dest", str(skills / "tool"),
                                    "--lock", str(lock), "--cache-dir", cache],
                                   capture_output=True, text=True, cwd=REPO)
    assert installed.returncode == 3 and "Traceback" not in installed.stderr, installed.stderr
    assert f"cannot write the lock file {lock}: " in installed.stderr
    assert sorted(p.name for p in skills.iterdir()) == ["app", "lib"]
    assert json.loads(lock.read_text("utf-8"))["skills"] == locked
