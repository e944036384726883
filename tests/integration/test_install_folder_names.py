"""A hostile catalog's dependency, installed beside DEST in the folder its id ends with, must not
pick a folder an agent does not own (``.ssh``, ``.github``, an installer's temporary folder) nor
a name Windows reads otherwise (``D:evil``, ``CON``); nor may a bundled file's path.  The
catalog is built, then edited as its host could, and served over HTTP on 127.0.0.1."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillsite.agent.site_urls import url_of
from skillsite.cli import main
from skillsite.publish.build import build
from support import CountingServer


def _site(tmp_path: Path, dependency_id: str, file_path: str = "authorized_keys") -> Path:
    """A built site of ``app`` needing ``keys`` (one bundled file), its manifest then edited to
    give ``keys`` the id ``dependency_id`` and its file the path ``file_path``."""
    src = tmp_path / "src"
    for name, extra in (("app", "metadata:\n  depends: keys\n"), ("keys", "")):
        (src / name).mkdir(parents=True)
        (src / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Does {name} work for tests.\n"
                                             f"{extra}---\n# {name}\n", encoding="utf-8")
    (src / "keys" / "authorized_keys").write_text("ssh-ed25519 AAAA attacker\n", encoding="utf-8")
    site = tmp_path / "site"
    assert build([src], site).ok
    manifest_path = site / "skills.json"
    manifest = json.loads(manifest_path.read_text("utf-8"))
    app, keys = manifest["skills"]
    keys["id"] = dependency_id
    keys["files"][0]["path"] = file_path
    served_at = site / "skills" / "keys" / url_of(file_path)  # as fetched: the test server does not unquote
    served_at.parent.mkdir(parents=True, exist_ok=True)
    (site / "skills" / "keys" / "authorized_keys").replace(served_at)
    app["dependencies"][0]["id"] = dependency_id
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    return site


def _install(tmp_path: Path, site: Path, lock: bool) -> tuple[int, str, Path]:
    """``skillsite install app`` from ``site`` served over HTTP into ``project/skills/app``."""
    server = CountingServer(site)
    project = tmp_path / "project"
    project.mkdir()
    locking = ["--lock", str(project / "skillsite-lock.json")] if lock else []
    try:
        result = CliRunner().invoke(main, ["install", "app", "--catalog", server.url, "--dest",
                                           str(project / "skills" / "app"), "--cache-dir", str(tmp_path / "cache"),
                                           *locking])
    finally:
        server.stop()
    return result.exit_code, result.output, project


@pytest.mark.parametrize("lock", [False, True])
@pytest.mark.parametrize("dependency_id, why", [
    (".ssh", "its folder '.ssh' would be hidden"),
    ("x/.github", "its folder '.github' would be hidden"),
    ("x/.app.tmp-000000000000", "its folder '.app.tmp-000000000000' would be hidden"),
    ("x/D:evil", "'D:evil' holds ':'"),
    ("x/CON", "'CON' is a Windows device name"),
    ("x/keys.", "'keys.' ends with a dot or a space"),
])
def test_a_dependency_s_folder_an_agent_does_not_own_is_refused_and_nothing_is_written(
        tmp_path: Path, dependency_id: str, why: str, lock: bool) -> None:
    """``app`` needing ``.ssh`` wrote ``.ssh/authorized_keys`` beside ``app`` (exit 0) and locked it."""
    code, output, project = _install(tmp_path, _site(tmp_path, dependency_id), lock)
    assert code != 0 and "Traceback" not in output
    assert f"dependency {dependency_id!r} of app cannot be installed beside it" in output and why in output
    assert list(project.iterdir()) == []


@pytest.mark.parametrize("file_path", ["x/D:evil.md", "a/D:/evil.md", "scripts/nul.txt", "COM1.md", "a./b",
                                       "notes.md:hidden"])
def test_a_bundled_file_no_windows_file_system_holds_is_refused_and_nothing_is_written(
        tmp_path: Path, file_path: str) -> None:
    code, output, project = _install(tmp_path, _site(tmp_path, "keys", file_path), True)
    assert code != 0 and "Traceback" not in output
    assert f"bundled file {file_path!r} cannot be written on every system" in output
    assert list(project.iterdir()) == []


@pytest.mark.parametrize("dependency_id, file_path", [
    ("team/keys@2+ci", "notes 100%.md"), ("outils/clés", "résumé café.md"), ("keys", ".env.example"),
    (".team/keys", "con-fig/console.md"), ("keys", "COM10.md"),
])
def test_real_world_names_still_install(tmp_path: Path, dependency_id: str, file_path: str) -> None:
    code, output, project = _install(tmp_path, _site(tmp_path, dependency_id, file_path), True)
    folder = project / "skills" / dependency_id.rsplit("/", 1)[-1]
    assert code == 0, output
    assert (folder / file_path).read_text("utf-8") == "ssh-ed25519 AAAA attacker\n"
