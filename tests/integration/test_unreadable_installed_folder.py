"""An installed folder holding a file that cannot be read (mode 000): ``--overwrite`` replaces it
without reading it (still never through a symbolic link out of the lock file's folder), a plain
``update`` refuses it in one line naming the file, and ``outdated`` calls it modified, saying why.
Run without root's right to read any file (setpriv), over real HTTP on 127.0.0.1."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support import REPO, as_an_ordinary_user
from versioned_site import FakeRelease as R
from versioned_site import make_site, served_site


def releases(*versions: str, depends: tuple[tuple[str, str], ...] = ()) -> list[R]:
    return [R(v, depends, files={"notes.md": f"Notes of {v}.\n"}) for v in versions]


FIRST = {"app": releases("1.0.0", depends=(("lib", "^1"),)), "lib": releases("1.0.0"), "tool": releases("1.0.0")}
SECOND = {"app": releases("1.0.0", "1.1.0", depends=(("lib", "^1"),)), "lib": releases("1.0.0", "1.1.0"),
          "tool": releases("1.0.0", "1.1.0")}


def skillsite(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*as_an_ordinary_user(), sys.executable, "-m", "skillsite", *args], capture_output=True,
                          text=True, cwd=REPO)


def versions(lock: Path) -> dict[str, str]:
    return {sid: record["version"] for sid, record in json.loads(lock.read_text("utf-8"))["skills"].items()}


def test_overwrite_replaces_a_folder_it_cannot_read_and_a_plain_update_says_which_file(tmp_path: Path) -> None:
    project, outside = tmp_path / "project", tmp_path / "outside"
    skills, lock = project / "skills", project / "skillsite-lock.json"
    flags = ["--lock", str(lock), "--cache-dir", str(tmp_path / "cache")]
    with served_site(tmp_path / "catalog", FIRST) as server:
        for sid in ("app", "tool"):
            done = skillsite("install", sid, "--catalog", server.url, "--dest", str(skills / sid), *flags)
            assert done.returncode == 0, done.stderr
        outside.mkdir()
        (skills / "tool").rename(outside / "tool")   # the lock's folder for tool now leads out through a link
        (skills / "tool").symlink_to(outside / "tool")
        make_site(tmp_path / "catalog", SECOND)
        for sid in ("app", "lib", "tool"):
            (skills / sid / "notes.md").chmod(0)
        locked = lock.read_text("utf-8")

        checked = skillsite("outdated", "--json", *flags)
        plain = skillsite("update", "app", *flags)
        assert lock.read_text("utf-8") == locked
        linked = skillsite("update", "tool", "--overwrite", *flags)
        updated = skillsite("update", "app", "--overwrite", *flags)
        (skills / "app" / "notes.md").chmod(0)
        installed = skillsite("install", "app", "--catalog", server.url, "--dest", str(skills / "app"), "--overwrite",
                              *flags)

    states = {s["id"]: (s["status"], s["detail"]) for s in json.loads(checked.stdout)}
    assert checked.returncode == 0, checked.stderr
    for sid in ("app", "lib"):
        assert states[sid] == ("modified", f"cannot tell whether the files at skills/{sid} are the ones locked: "
                                           f"{skills / sid / 'notes.md'} cannot be read (Permission denied)")

    assert plain.returncode == 1 and plain.stdout == ""
    assert plain.stderr.count("\n") == 1 and "Traceback" not in plain.stderr
    assert f"cannot tell whether {skills / 'lib'} holds lib@1.1.0" in plain.stderr
    assert f"{skills / 'lib' / 'notes.md'} cannot be read (Permission denied); pass --overwrite" in plain.stderr

    assert linked.returncode == 1, linked.stderr
    assert "leads out of the lock file's folder through a symbolic link" in linked.stderr
    assert (outside / "tool" / "notes.md").stat().st_mode & 0o777 == 0
    assert b"tool 1.0.0" in (outside / "tool" / "SKILL.md").read_bytes()

    assert updated.returncode == 0, updated.stderr
    assert f"replaced app in {skills / 'app'}: some of its files could not be read" in updated.stdout
    assert "app: 1.0.0 -> 1.1.0" in updated.stdout and "lib: 1.0.0 -> 1.1.0" in updated.stdout
    assert installed.returncode == 0, installed.stderr
    assert f"replaced app in {skills / 'app'}: some of its files could not be read" in installed.stdout
    assert versions(lock) == {"app": "1.1.0", "lib": "1.1.0", "tool": "1.0.0"}
    for sid in ("app", "lib"):
        assert (skills / sid / "notes.md").read_text() == "Notes of 1.1.0.\n"


def test_a_folder_that_can_be_entered_but_not_listed_is_no_unchanged_one(tmp_path: Path) -> None:
    """A folder of mode 100 in an installed folder: its files were passed over unseen, so
    ``outdated`` said up-to-date and a plain ``update`` replaced the folder (moving what the user
    kept there into a hidden leftover).  What it holds cannot be read: modified, and kept."""
    skills, lock = tmp_path / "project" / "skills", tmp_path / "project" / "skillsite-lock.json"
    flags = ["--lock", str(lock), "--cache-dir", str(tmp_path / "cache")]
    with served_site(tmp_path / "catalog", FIRST) as server:
        done = skillsite("install", "tool", "--catalog", server.url, "--dest", str(skills / "tool"), *flags)
        assert done.returncode == 0, done.stderr
        (skills / "tool" / "mine").mkdir()
        (skills / "tool" / "mine" / "draft.md").write_text("mine")
        (skills / "tool" / "mine").chmod(0o100)
        make_site(tmp_path / "catalog", SECOND)
        checked = skillsite("outdated", "--json", *flags)
        plain = skillsite("update", "tool", *flags)
    [state] = json.loads(checked.stdout)
    assert (state["status"], state["detail"]) == ("modified", "cannot tell whether the files at skills/tool are the "
                                                  f"ones locked: {skills / 'tool' / 'mine'} cannot be read "
                                                  "(Permission denied)")
    assert plain.returncode == 1 and plain.stdout == "", plain.stdout
    assert f"{skills / 'tool' / 'mine'} cannot be read (Permission denied); pass --overwrite" in plain.stderr
    assert versions(lock) == {"tool": "1.0.0"} and sorted(p.name for p in skills.iterdir()) == ["tool"]
    (skills / "tool" / "mine").chmod(0o700)
    assert (skills / "tool" / "mine" / "draft.md").read_text() == "mine"


def test_overwrite_removes_an_old_folder_holding_folders_it_could_not_open(tmp_path: Path) -> None:
    """A folder of mode 000 (and one its owner may not write) in an installed folder: --overwrite
    put the new folder in place but left the old one beside it as ``.app.tmp-*``, half removed;
    the owner's permissions are given back to what could not be removed, and it is removed."""
    skills, lock = tmp_path / "project" / "skills", tmp_path / "project" / "skillsite-lock.json"
    flags = ["--lock", str(lock), "--cache-dir", str(tmp_path / "cache")]
    with served_site(tmp_path / "catalog", FIRST) as server:
        done = skillsite("install", "app", "--catalog", server.url, "--dest", str(skills / "app"), *flags)
        assert done.returncode == 0, done.stderr
        for sid, mode in (("app", 0), ("lib", 0o500)):
            (skills / sid / "mine" / "deeper").mkdir(parents=True)
            (skills / sid / "mine" / "deeper" / "draft.md").write_text("mine")
            (skills / sid / "mine").chmod(mode)
            (skills / sid / "mine" / "deeper").chmod(mode)
        make_site(tmp_path / "catalog", SECOND)
        updated = skillsite("update", "app", "--overwrite", *flags)
        (skills / "app" / "mine").mkdir()
        (skills / "app" / "mine" / "draft.md").write_text("mine")
        (skills / "app").chmod(0)   # the installed folder itself, and a folder in it, cannot be opened
        again = skillsite("update", "app", "--overwrite", *flags)
    assert updated.returncode == 0, updated.stderr
    assert "app: 1.0.0 -> 1.1.0" in updated.stdout and "lib: 1.0.0 -> 1.1.0" in updated.stdout
    assert again.returncode == 0, again.stderr
    assert f"replaced app in {skills / 'app'}: some of its files could not be read" in again.stdout
    assert sorted(p.name for p in skills.iterdir()) == ["app", "lib"]
    assert sorted(p.name for p in (skills / "app").iterdir()) == ["SKILL.md", "notes.md"]
    assert sorted(p.name for p in (skills / "lib").iterdir()) == ["SKILL.md", "notes.md"]


def test_install_overwrite_replaces_a_dest_it_cannot_open(tmp_path: Path) -> None:
    """``install --dest X --overwrite`` with X of mode 000 (an installed skill's folder, or any
    folder): click's check that DEST can be read refused it (exit 2, "Directory ... is not
    readable") before skillsite looked; it is replaced, as ``update --overwrite`` replaces it.
    Without --overwrite it is refused in skillsite's own words, in one line: DEST exists.
    Run without root's right to read any file (as root, os.access says any folder can be read)."""
    skills, lock = tmp_path / "project" / "skills", tmp_path / "project" / "skillsite-lock.json"
    flags = ["--lock", str(lock), "--cache-dir", str(tmp_path / "cache")]
    with served_site(tmp_path / "catalog", FIRST) as server:
        install = ["install", "--catalog", server.url, *flags]
        done = skillsite(*install, "app", "--dest", str(skills / "app"))
        assert done.returncode == 0, done.stderr
        (skills / "app").chmod(0)
        (skills / "other" / "mine").mkdir(parents=True)
        (skills / "other").chmod(0)
        refused = skillsite(*install, "tool", "--dest", str(skills / "other"))
        kept = skillsite(*install, "app", "--dest", str(skills / "app"))
        replaced = skillsite(*install, "app", "--dest", str(skills / "app"), "--overwrite")
        other = skillsite(*install, "tool", "--dest", str(skills / "other"), "--overwrite")
    for folder, done in (("other", refused), ("app", kept)):
        assert (done.returncode, done.stdout) == (1, ""), done.stderr
        assert done.stderr == f"skillsite: {skills / folder} already exists; pass --overwrite to replace it\n"
    assert replaced.returncode == 0, replaced.stderr
    assert f"replaced app in {skills / 'app'}: some of its files could not be read" in replaced.stdout
    assert other.returncode == 0, other.stderr
    assert f"installed tool@1.0.0 into {skills / 'other'}" in other.stdout
    assert versions(lock) == {"app": "1.0.0", "lib": "1.0.0", "tool": "1.0.0"}
    assert sorted(p.name for p in skills.iterdir()) == ["app", "lib", "other"]
    for folder in ("app", "other"):
        assert sorted(p.name for p in (skills / folder).iterdir()) == ["SKILL.md", "notes.md"]
