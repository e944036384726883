"""``skillsite update`` of several skills over real HTTP (127.0.0.1): every skill is tried, and
the command ends with the most severe status its skills met, which a CI script reads."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from skillsite.cli import main
from versioned_site import FakeRelease as R
from versioned_site import make_site, served_site

SKILLS = {"alpha": [R("1.0.0")], "beta": [R("1.0.0")], "gamma": [R("1.0.0")]}


def cli(*args: str):
    return CliRunner().invoke(main, list(args))


def install_all(url: str, project: Path, lock: Path, cache: str) -> None:
    """Every skill of ``SKILLS`` installed from the catalog at ``url`` into ``project``, with its lock."""
    for sid in SKILLS:
        result = cli("install", sid, "--catalog", url, "--dest", str(project / "skills" / sid),
                     "--lock", str(lock), "--cache-dir", cache)
        assert result.exit_code == 0, result.output


def edit_lock(lock: Path, skill_id: str, **changes: str) -> None:
    data = json.loads(lock.read_text("utf-8"))
    data["skills"][skill_id].update(changes)
    lock.write_text(json.dumps(data), encoding="utf-8")


def test_update_tries_every_skill_and_exits_with_the_most_severe_status(tmp_path: Path) -> None:
    """alpha's catalog is gone (1), beta's folder lies under a regular file, which the machine
    refuses (3), gamma has a new release: gamma is updated, and the status is 3, not 1."""
    project = tmp_path / "project"
    lock, cache = project / "skillsite-lock.json", str(tmp_path / "cache")
    with served_site(tmp_path / "catalog", SKILLS) as server:
        install_all(server.url, project, lock, cache)
        make_site(tmp_path / "catalog", {**SKILLS, "gamma": [R("1.0.0"), R("1.1.0")]})
        edit_lock(lock, "alpha", source=server.url + "gone/skills.json")
        (project / "afile").write_text("not a folder")
        edit_lock(lock, "beta", path="afile/beta")
        result = cli("update", "--lock", str(lock), "--cache-dir", cache)
    assert result.exit_code == 3, result.output
    assert "Traceback" not in result.output
    assert f"HTTP 404 Not Found from {server.url}gone/skills.json; alpha was not updated" in result.stderr
    assert f"cannot install beta into {project / 'afile' / 'beta'}" in result.stderr
    assert result.stdout == "gamma: 1.0.0 -> 1.1.0\n"
    assert json.loads(lock.read_text("utf-8"))["skills"]["gamma"]["version"] == "1.1.0"


def test_a_catalog_several_skills_share_is_opened_once_and_its_failure_said_once(tmp_path: Path) -> None:
    """alpha and beta come from one catalog that is gone: it is asked for once, and one line names
    both skills not updated; gamma, from the catalog still there, is updated."""
    project = tmp_path / "project"
    lock, cache = project / "skillsite-lock.json", str(tmp_path / "cache")
    with served_site(tmp_path / "catalog", SKILLS) as server:
        install_all(server.url, project, lock, cache)
        make_site(tmp_path / "catalog", {sid: [R("1.0.0"), R("1.1.0")] for sid in SKILLS})
        for sid in ("alpha", "beta"):
            edit_lock(lock, sid, source=server.url + "gone/skills.json")
        result = cli("update", "--lock", str(lock), "--cache-dir", cache)
    assert result.exit_code == 1, result.output
    assert [path for path, _ in server.requests].count("/gone/skills.json") == 1
    assert result.stderr == f"skillsite: HTTP 404 Not Found from {server.url}gone/skills.json; alpha, beta were not " \
                            "updated\n"
    assert result.stdout == "gamma: 1.0.0 -> 1.1.0\n"
