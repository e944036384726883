"""``skillsite update`` and ``install`` over a hand-edited ``skillsite-lock.json`` (real HTTP on
127.0.0.1): a record skillsite never writes is refused naming the skill and the field (exit 2,
nothing written), another spelling of a recorded folder is no change, and a dependency the lock
had from another catalog is said to be taken from the updated skill's."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillsite.cli import main
from versioned_site import FakeRelease as R
from versioned_site import served_site

SKILLS = {"app": [R("1.0.0", (("lib", "^1"),))], "lib": [R("1.0.0"), R("1.1.0")]}


def cli(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def installed(tmp_path: Path):
    """app (needing lib) installed from a served catalog into project/skills: (lock, cache, server)."""
    project, cache = tmp_path / "project", str(tmp_path / "cache")
    lock = project / "skillsite-lock.json"
    with served_site(tmp_path / "catalog", SKILLS) as server:
        result = cli("install", "app", "--catalog", server.url, "--dest", str(project / "skills" / "app"),
                     "--lock", str(lock), "--cache-dir", cache)
        assert result.exit_code == 0, result.output
        yield lock, cache, server


def edit_lib(lock: Path, **changes: object) -> bytes:
    data = json.loads(lock.read_text("utf-8"))
    data["skills"]["lib"].update(changes)
    lock.write_text(json.dumps(data), encoding="utf-8")
    return lock.read_bytes()


@pytest.mark.parametrize("changes, message", [
    ({"path": "skills\\lib"}, "path 'skills\\\\lib' holds a backslash"),
    ({"dependencies": {"ghost": "*"}}, "its dependency 'ghost' has no record in the lock file"),
    ({"path": "skills/x/../lib"}, "path 'skills/x/../lib' holds a '..' part"),
    ({"source": "ftp://127.0.0.1/skills.json"}, "source 'ftp://127.0.0.1/skills.json' is neither an http(s) URL"),
    ({"source": "http://[::1"}, "source 'http://[::1' is not a URL"),
])
def test_update_refuses_a_record_skillsite_never_writes(installed, changes: dict, message: str) -> None:
    """A backslash put lib into a folder named ``skills\\lib``; an unknown dependency was rewritten
    and said as ``lib: 1.1.0 -> 1.1.0``, a source of another scheme taken from app's catalog:
    each is an unusable lock now, said in one line, by ``outdated`` too."""
    lock, cache, _ = installed
    edited = edit_lib(lock, **changes)
    for command in ("update", "outdated"):
        result = cli(command, "--lock", str(lock), "--cache-dir", cache)
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith(f"skillsite: {lock}: skill 'lib' is malformed: {message}"), result.stderr
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.output
        assert result.stdout == "" and lock.read_bytes() == edited
    assert sorted(p.name for p in lock.parent.iterdir()) == ["skills", "skillsite-lock.json"]


@pytest.mark.parametrize("spelling", ["skills/lib/", "./skills/lib"])
def test_another_spelling_of_a_dependency_s_folder_is_no_change(installed, spelling: str) -> None:
    lock, cache, _ = installed
    edited = edit_lib(lock, path=spelling)
    result = cli("update", "--lock", str(lock), "--cache-dir", cache)
    assert (result.exit_code, result.stdout) == (0, "app: 1.0.0, up to date\n"), result.output
    assert lock.read_bytes() == edited  # nothing changed: the file is left as it is


def test_an_update_that_changes_nothing_keeps_fields_this_version_does_not_write(installed) -> None:
    """`update` with nothing to update rewrote the lock and dropped the fields it does not know
    (a newer skillsite's, or the user's own); a lock that reads as the update's is left as it is."""
    lock, cache, _ = installed
    data = json.loads(lock.read_text("utf-8"))
    data["generated_by"] = "a newer skillsite"
    data["skills"]["app"]["integrity_v2"] = "sha512-..."
    lock.write_text(json.dumps(data, indent=1), encoding="utf-8")
    before = lock.read_bytes()
    for command in ("update", "outdated"):
        result = cli(command, "--lock", str(lock), "--cache-dir", cache)
        assert result.exit_code == 0, result.output
        assert lock.read_bytes() == before


def test_a_dependency_the_lock_had_from_another_catalog_is_said_taken_from_the_updated_skill_s(installed) -> None:
    lock, cache, server = installed
    edit_lib(lock, source="nonsense")
    result = cli("update", "--lock", str(lock), "--cache-dir", cache)
    assert result.exit_code == 0, result.output
    assert result.stdout == f"lib: 1.1.0, now from {server.url}skills.json (the lock had nonsense)\n" \
                            "app: 1.0.0, up to date\n"
    assert json.loads(lock.read_text("utf-8"))["skills"]["lib"]["source"] == f"{server.url}skills.json"


def test_install_into_a_folder_whose_path_holds_a_backslash_is_refused(installed) -> None:
    """The lock could record it only as a path it then refuses (and Windows reads another folder)."""
    lock, cache, server = installed
    before = lock.read_bytes()
    result = cli("install", "lib", "--catalog", server.url, "--dest", str(lock.parent / "my\\skills" / "lib"),
                 "--lock", str(lock), "--cache-dir", cache)
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert "holds a backslash, a folder separator on Windows" in result.stderr, result.output
    assert lock.read_bytes() == before and not (lock.parent / "my\\skills").exists()


def test_a_dependency_taken_into_another_folder_is_said_where(installed) -> None:
    """lib, which the lock had from another catalog in vendor/lib, is installed beside app, where
    app's catalog puts what it needs: both changes are said, and vendor/lib is left as it is."""
    lock, cache, server = installed
    (lock.parent / "vendor").mkdir()
    (lock.parent / "skills" / "lib").rename(lock.parent / "vendor" / "lib")
    edit_lib(lock, source="elsewhere/skills.json", path="vendor/lib")
    result = cli("update", "--lock", str(lock), "--cache-dir", cache)
    assert result.exit_code == 0, result.output
    assert result.stdout == f"lib: 1.1.0, now from {server.url}skills.json (the lock had elsewhere/skills.json), " \
                            "now at skills/lib (the lock had vendor/lib)\napp: 1.0.0, up to date\n"
    assert (lock.parent / "skills" / "lib" / "SKILL.md").is_file() and (lock.parent / "vendor" / "lib").is_dir()
