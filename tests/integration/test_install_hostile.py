"""Install, update and outdated against hostile input: lock files edited by hand, catalogs
whose versions.json is built to hurt (over real HTTP, tests/fixtures/versioned_site.py)."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillsite.cli import main
from skillsite.loader import Catalog
from support import CountingServer
from versioned_site import FakeRelease as R
from versioned_site import make_site, repin_versions, served_site

SKILLS = {"app": [R("1.0.0", (("lib", "^1"),))], "lib": [R("1.0.0"), R("1.1.0")]}


@pytest.fixture
def served(tmp_path: Path):
    with served_site(tmp_path / "catalog", SKILLS) as server:
        yield tmp_path / "catalog", server


def cli(*args: str):
    return CliRunner().invoke(main, list(args))


def edit_lock(lock: Path, skill_id: str, **changes) -> None:
    data = json.loads(lock.read_text("utf-8"))
    data["skills"][skill_id].update(changes)
    lock.write_text(json.dumps(data), encoding="utf-8")


@pytest.mark.parametrize("path", [".", "..", "skills/..", "ABS_PROJECT", "ABS_PARENT", "skillsite-lock.json"])
def test_a_lock_path_at_or_above_the_lock_folder_is_never_replaced(served, tmp_path: Path, path: str) -> None:
    """A hand-edited (or cloned) lock naming the lock's own folder, or one above it, as where a
    skill is installed must not make ``update --overwrite`` replace the whole project (nor the
    lock file itself with a folder)."""
    _, server = served
    project = tmp_path / "project"
    project.mkdir()
    (project / "precious.txt").write_text("my work")
    lock, cache = project / "skillsite-lock.json", str(tmp_path / "cache")
    assert cli("install", "app", "--catalog", server.url, "--dest", str(project / "skills" / "app"),
               "--lock", str(lock), "--cache-dir", cache).exit_code == 0
    path = {"ABS_PROJECT": str(project), "ABS_PARENT": str(tmp_path)}.get(path, path)
    edit_lock(lock, "app", path=path)
    result = cli("update", "app", "--lock", str(lock), "--cache-dir", cache, "--overwrite")
    assert (project / "precious.txt").read_text() == "my work"
    assert lock.exists() and (tmp_path / "catalog").is_dir()
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "the lock file itself, its folder or one above it" in result.output


@pytest.mark.parametrize("path", ["../victim", "skills/../../victim", "ABS_VICTIM"])
def test_a_lock_path_outside_the_lock_folder_is_refused_and_nothing_there_is_touched(served, tmp_path: Path,
                                                                                       path: str) -> None:
    """A lock committed to a project is anyone's to write: one naming a folder outside the
    project (``../victim``, an absolute path) must not make ``update`` write there, nor
    ``install --overwrite`` of a skill needing it replace that folder."""
    _, server = served
    project, victim = tmp_path / "project", tmp_path / "victim"
    project.mkdir()
    victim.mkdir()
    (victim / "notes.txt").write_text("precious")
    lock, cache = project / "skillsite-lock.json", str(tmp_path / "cache")
    assert cli("install", "app", "--catalog", server.url, "--dest", str(project / "skills" / "app"),
               "--lock", str(lock), "--cache-dir", cache).exit_code == 0
    edit_lock(lock, "lib", path=str(victim) if path == "ABS_VICTIM" else path)
    for command in (["update", "--overwrite"], ["install", "app", "--catalog", server.url, "--overwrite",
                                                "--dest", str(project / "skills" / "app")]):
        result = cli(*command, "--lock", str(lock), "--cache-dir", cache)
        assert result.exit_code == 2, result.output
        assert "outside the lock file's folder" in result.output and "Traceback" not in result.output
    assert [p.name for p in victim.iterdir()] == ["notes.txt"] and (victim / "notes.txt").read_text() == "precious"


@pytest.mark.parametrize("overwrite", [False, True])
def test_a_lock_path_through_a_symbolic_link_out_of_the_project_is_not_written(served, tmp_path: Path,
                                                                              overwrite: bool) -> None:
    """A lock and a symbolic link committed side by side (``vendor/evil -> /elsewhere``): the
    lock's path reads as inside the project but leads out of it, where ``update`` would create
    (or with ``--overwrite`` replace) a folder.  The lock stays readable (``outdated`` works)."""
    _, server = served
    project, victim = tmp_path / "project", tmp_path / "victim"
    (victim / "kept").mkdir(parents=True)
    (victim / "kept" / "notes.txt").write_text("precious")
    lock, cache = project / "skillsite-lock.json", str(tmp_path / "cache")
    assert cli("install", "lib", "--catalog", server.url, "--dest", str(project / "skills" / "lib"),
               "--lock", str(lock), "--cache-dir", cache).exit_code == 0
    (project / "vendor").mkdir()
    (project / "vendor" / "evil").symlink_to(victim, target_is_directory=True)
    edit_lock(lock, "lib", path="vendor/evil/kept" if overwrite else "vendor/evil/created")
    result = cli("update", "lib", "--lock", str(lock), "--cache-dir", cache, *(["--overwrite"] if overwrite else []))
    assert result.exit_code == 1, result.output
    assert "leads out of the lock file's folder through a symbolic link" in result.output
    assert "Traceback" not in result.output
    assert sorted(p.name for p in victim.iterdir()) == ["kept"]
    assert [p.name for p in (victim / "kept").iterdir()] == ["notes.txt"]
    assert cli("outdated", "--lock", str(lock), "--cache-dir", cache).exit_code != 2


def install_through_a_linked_skills_folder(served, tmp_path: Path) -> tuple[Path, Path, str]:
    """app (and lib beside it) installed into ``project/.agents/skills``, a link to ``shared``:
    the shared folder, the lock file and the cache folder."""
    _, server = served
    project, shared = tmp_path / "project", tmp_path / "shared"
    (project / ".agents").mkdir(parents=True)
    shared.mkdir()
    (project / ".agents" / "skills").symlink_to(shared, target_is_directory=True)
    lock, cache = project / "skillsite-lock.json", str(tmp_path / "cache")
    result = cli("install", "app", "--catalog", server.url, "--dest", str(project / ".agents" / "skills" / "app"),
                 "--lock", str(lock), "--cache-dir", cache)
    assert result.exit_code == 0, result.output
    return shared, lock, cache


def test_a_destination_given_through_a_symbolic_link_is_the_user_s_choice(served, tmp_path: Path) -> None:
    """A skills folder that is a link to a shared one (``.agents/skills -> ../shared``): an
    install naming it on the command line writes there; an ``update``, which only has the lock's
    word for it, does not (a committed lock and link could lead anywhere) and says how to go on."""
    shared, lock, cache = install_through_a_linked_skills_folder(served, tmp_path)
    assert (shared / "app" / "SKILL.md").is_file() and (shared / "lib" / "SKILL.md").is_file()
    result = cli("update", "app", "--lock", str(lock), "--cache-dir", cache)
    assert result.exit_code == 1 and "if the link is yours, pass --follow-links" in result.output, result.output


def test_an_update_through_the_user_s_own_link_writes_there_when_told(served, tmp_path: Path) -> None:
    """``--follow-links`` is the user's word that the linked skills folder is theirs: ``update``
    then writes through it (here restoring an edited file, with ``--overwrite``), every time."""
    shared, lock, cache = install_through_a_linked_skills_folder(served, tmp_path)
    published = (shared / "lib" / "SKILL.md").read_text("utf-8")
    for _ in range(2):
        (shared / "lib" / "SKILL.md").write_text("edited here", encoding="utf-8")
        result = cli("update", "--lock", str(lock), "--cache-dir", cache, "--overwrite", "--follow-links")
        assert result.exit_code == 0, result.output
        assert (shared / "lib" / "SKILL.md").read_text("utf-8") == published
        assert "replaced lib" in result.output
    assert (lock.parent / ".agents" / "skills").is_symlink()
    assert sorted(p.name for p in shared.iterdir()) == ["app", "lib"]


@pytest.mark.parametrize("path", ["vendor/.git", ".git/skills/x", "vendor/.GIT", "a/.hg/x"])
def test_a_lock_path_in_a_version_control_folder_is_refused(served, tmp_path: Path, path: str) -> None:
    """A lock naming ``vendor/.git`` as where a skill is: update would write git's config and
    hooks there (fsmonitor runs on the next git status), or replace the project's own .git."""
    _, server = served
    project = tmp_path / "project"
    lock, cache = project / "skillsite-lock.json", str(tmp_path / "cache")
    assert cli("install", "lib", "--catalog", server.url, "--dest", str(project / "skills" / "lib"),
               "--lock", str(lock), "--cache-dir", cache).exit_code == 0
    edit_lock(lock, "lib", path=path)
    for command in (["update", "lib"], ["update", "lib", "--overwrite"], ["outdated"]):
        result = cli(*command, "--lock", str(lock), "--cache-dir", cache)
        assert result.exit_code == 2 and "version-control folder" in result.output, result.output
    assert sorted(p.name for p in project.iterdir()) == ["skills", "skillsite-lock.json"]
    result = cli("install", "lib", "--catalog", server.url, "--dest", str(project / ".git" / "lib"),
                 "--lock", str(project / "second-lock.json"), "--cache-dir", cache)
    assert result.exit_code == 1 and "version-control folder" in result.output, result.output
    assert sorted(p.name for p in project.iterdir()) == ["skills", "skillsite-lock.json"]


def test_install_refuses_a_destination_outside_the_lock_folder(served, tmp_path: Path) -> None:
    """What install records, a later read must accept: a skill outside the lock's folder is
    refused before anything is written (the lock goes in a folder above)."""
    _, server = served
    lock = tmp_path / "project" / "skillsite-lock.json"
    result = cli("install", "app", "--catalog", server.url, "--dest", str(tmp_path / "elsewhere" / "app"),
                 "--lock", str(lock), "--cache-dir", str(tmp_path / "cache"))
    assert result.exit_code == 1 and "outside the lock file's folder" in result.output, result.output
    assert not (tmp_path / "elsewhere").exists() and not lock.exists()


@pytest.mark.parametrize("source", ["x" * 5000])
def test_a_locked_source_that_is_no_url_or_path_is_one_line(tmp_path: Path, source: str) -> None:
    """A lock's ``source`` is opened as a catalog: a path too long for the file system (is_dir's
    OSError) is a loader error, exit 1, one line.  (A malformed URL is a lock file error:
    test_hand_edited_lock.py.)"""
    lock = tmp_path / "skillsite-lock.json"
    record = {"source": source, "version": "1.0.0", "digest": "sha256:" + "a" * 64, "path": "skills/a",
              "dependencies": {}, "requested": "^1"}
    lock.write_text(json.dumps({"lockfile_version": 1, "skills": {"a": record}}), encoding="utf-8")
    for command in ("outdated", "update"):
        result = cli(command, "--lock", str(lock), "--cache-dir", str(tmp_path / "cache"))
        assert result.exit_code == 1, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
        assert len(result.stderr.strip().splitlines()) == 1, result.output
    assert result.stdout == ""                                  # update: the error alone
    outdated = cli("outdated", "--lock", str(lock), "--cache-dir", str(tmp_path / "cache"), "--json")
    assert [s["status"] for s in json.loads(outdated.stdout)] == ["could-not-check"]   # the others would go on


@pytest.mark.parametrize("dest", [".", ".."])
def test_install_never_replaces_the_folder_holding_the_lock(served, tmp_path: Path, monkeypatch, dest: str) -> None:
    """``skillsite install app --dest . --overwrite`` in a project replaced the whole project
    (its lock, its .git) with the skill, then recorded a path no later command accepts."""
    _, server = served
    project = tmp_path / "project"
    project.mkdir()
    (project / "precious.txt").write_text("my work")
    monkeypatch.chdir(project)
    result = cli("install", "app", "--catalog", server.url, "--dest", dest, "--overwrite",
                 "--cache-dir", str(tmp_path / "cache"))
    assert (project / "precious.txt").read_text() == "my work"
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and "holds the lock file" in result.output
    assert not (project / "skillsite-lock.json").exists() and not (project / "lib").exists()


def test_a_skill_needing_a_skill_without_versions_installs(tmp_path: Path) -> None:
    """The build records a dependency on a skill without versions with ``resolved: null`` (in
    versions.json and in the manifest entry); the loader refused both as malformed, so neither a
    versioned nor an unversioned skill needing such a skill could be installed."""
    from skillsite.publish.build import build

    src = tmp_path / "src"
    for name, extra in (("app", "version: 1.0.0\nmetadata:\n  depends: base\n"), ("base", ""),
                        ("tool", "metadata:\n  depends: base\n")):
        (src / name).mkdir(parents=True)
        (src / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Does {name} work for tests.\n"
                                             f"{extra}---\n# {name}\n", encoding="utf-8")
    assert build([src], tmp_path / "site").ok
    server = CountingServer(tmp_path / "site")
    try:
        catalog = Catalog.open(server.url, cache_dir=tmp_path / "cache")
        assert catalog.releases("app")["1.0.0"].dependencies[0].resolved is None
        for name in ("app", "tool"):
            catalog.install(name, tmp_path / name / "skills" / name, lock=tmp_path / name / "lock.json")
            locked = json.loads((tmp_path / name / "lock.json").read_text("utf-8"))["skills"]
            assert locked[name]["dependencies"] == {"base": "*"} and locked["base"]["version"] is None
            assert (tmp_path / name / "skills" / "base" / "SKILL.md").is_file()
    finally:
        server.stop()


def test_a_chain_of_nested_skills_longer_than_python_recursion_is_planned_and_refused(tmp_path: Path) -> None:
    """Planning an install recursed once per level of nested skills: a hand-made catalog with a
    chain of 1,100 (a build nests 100 at most) was a RecursionError traceback.  It is planned,
    then refused as deeper than an install writes (the next install over it could not remove it)."""
    import copy
    import hashlib

    from skillsite.agent.release_digest import release_digest
    from skillsite.publish.build import build

    (tmp_path / "src" / "n").mkdir(parents=True)
    (tmp_path / "src" / "n" / "SKILL.md").write_text("---\nname: n\ndescription: Nests skills for tests.\n---\n# n\n")
    site = tmp_path / "site"
    assert build([tmp_path / "src"], site).ok
    manifest = json.loads((site / "skills.json").read_text("utf-8"))
    base = manifest["skills"][0]
    ids = ["n" + "/n" * level for level in range(1_100)]
    body = b"hello\n"
    sha = hashlib.sha256(body).hexdigest()
    manifest["skills"] = []
    for level, skill_id in enumerate(ids):
        entry = copy.deepcopy(base)
        entry.update(id=skill_id, files=[], sha256=sha, digest=release_digest([("SKILL.md", sha)]),
                     children=ids[level + 1:level + 2], parent=ids[level - 1] if level else None)
        entry["size"]["bytes"] = len(body)
        entry["urls"] = {key: url.replace("skills/n/", f"skills/{skill_id}/") for key, url in entry["urls"].items()}
        manifest["skills"].append(entry)
        (site / "skills" / skill_id).mkdir(parents=True, exist_ok=True)
        (site / "skills" / skill_id / "SKILL.md").write_bytes(body)
    (site / "skills.json").write_text(json.dumps(manifest), encoding="utf-8")
    try:
        done = cli("install", "n", "--dest", str(tmp_path / "out" / "n"), "--catalog", str(site),
                   "--lock", str(tmp_path / "out" / "lock.json"))
        assert done.exit_code == 1 and "would write a file 1,099 folders deep (over 128)" in done.output, done.output
        assert "Traceback" not in done.output and not (tmp_path / "out" / "n").exists()
    finally:  # deepest first: pytest's own clean-up (shutil.rmtree) recurses once per level too
        for skill_id in reversed(ids[1:]):
            for folder in (site / "skills" / skill_id, tmp_path / "out" / skill_id):
                (folder / "SKILL.md").unlink(missing_ok=True)
                if folder.is_dir():
                    folder.rmdir()


def test_a_destination_the_lock_cannot_record_installs_nothing(served, tmp_path: Path) -> None:
    """The lock is UTF-8 JSON: a destination whose name is not UTF-8 cannot be recorded in it.
    Writing the lock raised UnicodeEncodeError (a traceback) after the skills were installed."""
    _, server = served
    project = tmp_path / "project"
    project.mkdir()
    dest = os.fsdecode(os.fsencode(project) + b"/\xff/app")
    result = cli("install", "app", "--catalog", server.url, "--dest", dest, "--lock", str(project / "lock.json"),
                 "--cache-dir", str(tmp_path / "cache"))
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "cannot be recorded in the lock file" in result.output
    assert os.listdir(project) == []


def test_a_skill_id_the_lock_cannot_record_installs_nothing(served, tmp_path: Path) -> None:
    """A manifest id holding a lone surrogate (a JSON escape): no lock, URL or skill.xml can hold it,
    so the entry is refused before anything is written (it ended in UnicodeEncodeError, skills installed)."""
    root, server = served
    manifest = json.loads((root / "site" / "skills.json").read_text("utf-8"))
    next(e for e in manifest["skills"] if e["id"] == "app")["id"] = "\udcff"
    (root / "site" / "skills.json").write_text(json.dumps(manifest), encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    result = cli("install", "app", "--catalog", server.url, "--dest", str(project / "skills" / "app"),
                 "--lock", str(project / "lock.json"), "--cache-dir", str(tmp_path / "cache"))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 1 and "has the id '\\udcff', which is not valid Unicode text" in result.output
    assert os.listdir(project) == []


def test_overwrite_never_replaces_a_folder_beside_dest_that_holds_no_skill(served, tmp_path: Path) -> None:
    """A dependency goes beside DEST, in a folder the catalog names (a skill '.ssh' or 'src'), and
    --overwrite replaced whatever was there: the user's key, a project's sources.  It replaces a
    skill's folder (one holding a SKILL.md), as before."""
    root, server = served
    project = tmp_path / "project"
    (project / "skills" / "lib").mkdir(parents=True)
    (project / "skills" / "lib" / "id_ed25519").write_text("a private key\n")
    args = ["install", "app", "--catalog", server.url, "--dest", str(project / "skills" / "app"), "--overwrite",
            "--lock", str(project / "lock.json"), "--cache-dir", str(tmp_path / "cache")]
    result = cli(*args)
    assert result.exit_code == 1 and "is no skill folder (it holds no SKILL.md)" in result.output, result.output
    assert os.listdir(project / "skills") == ["lib"] and os.listdir(project / "skills" / "lib") == ["id_ed25519"]
    (project / "skills" / "lib" / "SKILL.md").write_text("---\nname: lib\ndescription: Mine.\n---\n")
    result = cli(*args)
    assert result.exit_code == 0, result.output
    assert not (project / "skills" / "lib" / "id_ed25519").exists() and (project / "skills" / "app").is_dir()


def test_overwrite_never_replaces_a_folder_without_a_skill_that_cannot_be_read_whole(
        served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder holding a file it cannot read (a root-owned volume in a project) may be replaced
    with --overwrite without being read: that way round, the folder's SKILL.md was not asked for."""
    import skillsite.agent.install as install_module

    def unreadable(*args, **kwargs):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(install_module.InstalledFolder, "at", unreadable)
    root, server = served
    project = tmp_path / "project"
    (project / "skills" / "lib").mkdir(parents=True)
    (project / "skills" / "lib" / "id_ed25519").write_text("a private key\n")
    result = cli("install", "app", "--catalog", server.url, "--dest", str(project / "skills" / "app"), "--overwrite",
                 "--lock", str(project / "lock.json"), "--cache-dir", str(tmp_path / "cache"))
    assert result.exit_code == 1 and "is no skill folder (it holds no SKILL.md)" in result.output, result.output
    assert os.listdir(project / "skills" / "lib") == ["id_ed25519"]


def test_installs_sharing_a_lock_at_once_each_keep_their_record(tmp_path: Path) -> None:
    """Agents install skills side by side: each install read the lock when it began and wrote
    it back whole, so the records of the installs that finished first were lost."""
    from concurrent.futures import ThreadPoolExecutor

    names = [f"s{i}" for i in range(6)]
    site = make_site(tmp_path / "catalog", {name: [R("1.0.0")] for name in names})
    server = CountingServer(site)
    lock = tmp_path / "project" / "skillsite-lock.json"
    try:
        def one(name: str) -> None:
            Catalog.open(server.url, cache_dir=tmp_path / f"cache-{name}").install(
                name, tmp_path / "project" / "skills" / name, lock=lock)

        with ThreadPoolExecutor(len(names)) as pool:
            list(pool.map(one, names))
    finally:
        server.stop()
    assert sorted(json.loads(lock.read_text("utf-8"))["skills"]) == names


def test_catalog_text_in_an_error_is_one_line_without_terminal_escapes(served, tmp_path: Path) -> None:
    """A versions.json naming a dependency id that holds a newline and an escape sequence: the
    error names it, and printed as it is it spanned two lines and reached the terminal raw."""
    root, server = served
    from skillsite.agent.release_digest import release_digest

    path = root / "site" / "skills" / "app" / "versions.json"
    data = json.loads(path.read_text("utf-8"))
    for release in data["releases"].values():
        release["dependencies"] = [{"name": "x", "id": "lib\n\x1b]0;pwned\x07", "version": "*", "resolved": "1.0.0"}]
        release["digest"] = release_digest((f["path"], f["sha256"]) for f in release["files"]
                                           if f["path"] != "skill.xml")
    path.write_text(json.dumps(data), encoding="utf-8")
    repin_versions(root / "site", "app")
    result = cli("install", "app", "--catalog", server.url, "--dest", str(tmp_path / "p" / "app"),
                 "--lock", str(tmp_path / "p" / "lock.json"), "--cache-dir", str(tmp_path / "cache"))
    assert result.exit_code == 1, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert "the catalog has no skill" in result.output


def test_outdated_prints_ids_from_the_lock_without_terminal_escapes(served, tmp_path: Path) -> None:
    """Ids in a lock (and in a catalog) are text from elsewhere: the outdated table and the
    lines install and update print write their control characters as \\xNN."""
    _, server = served
    lock = tmp_path / "skillsite-lock.json"
    record = {"source": server.url + "skills.json", "version": "1.0.0", "digest": "sha256:" + "a" * 64,
              "path": "skills/x", "dependencies": {}, "requested": "^1"}
    lock.write_text(json.dumps({"lockfile_version": 1, "skills": {"lib\x1b]0;pwned\x07": record}}), encoding="utf-8")
    result = cli("outdated", "--lock", str(lock), "--cache-dir", str(tmp_path / "cache"))
    assert "\x1b" not in result.output and "\x07" not in result.output and "lib\\x1b]0;pwned\\x07" in result.output


def test_a_staging_folder_left_by_a_killed_install_is_removed_by_the_next_one(served, tmp_path: Path) -> None:
    """An install killed while writing a skill leaves ``.<name>.tmp-<random>`` beside its folder
    (validate then took it for a skill): the next install there removes it once no install holds
    it and it has not changed for a while; one being written (held) or just made is left alone."""
    import fcntl
    import time

    _, server = served
    skills = tmp_path / "project" / "skills"
    folders = {kind: skills / f".app.tmp-{kind}" for kind in ("abandoned", "held", "fresh")}
    for folder in folders.values():
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text("---\nname: app\ndescription: half written\n---\n")
    old = time.time() - 3600
    for kind in ("abandoned", "held"):
        os.utime(folders[kind], (old, old))
    holder = os.open(folders["held"], os.O_RDONLY)
    try:
        fcntl.flock(holder, fcntl.LOCK_EX)
        result = cli("install", "app", "--catalog", server.url, "--dest", str(skills / "app"), "--lock",
                     str(tmp_path / "project" / "skillsite-lock.json"), "--cache-dir", str(tmp_path / "cache"))
    finally:
        os.close(holder)
    assert result.exit_code == 0, result.output
    assert not folders["abandoned"].exists() and folders["held"].is_dir() and folders["fresh"].is_dir()
    assert (skills / "app" / "SKILL.md").is_file()


def test_an_edit_in_a_nested_skill_is_a_local_change_update_keeps(site: Path, tmp_path: Path) -> None:
    """release-manager installs with its nested skills (changelog, version-bump) in its folder:
    the lock records their digest beside the release's, so an edit there (or a file added) is a
    local change that ``outdated`` reports and ``update`` does not replace without --overwrite."""
    server = CountingServer(site)
    try:
        project = tmp_path / "project"
        lock, cache, dest = project / "skillsite-lock.json", str(tmp_path / "cache"), project / "skills" / "rm"
        assert cli("install", "release-manager", "--catalog", server.url, "--dest", str(dest), "--lock", str(lock),
                   "--cache-dir", cache).exit_code == 0
        nested = json.loads(lock.read_text("utf-8"))["skills"]["release-manager"]["nested_digest"]
        assert nested.startswith("sha256:") and (dest / "changelog" / "SKILL.md").is_file()
        (dest / "changelog" / "SKILL.md").write_text((dest / "changelog" / "SKILL.md").read_text() + "EDIT\n")
        (dest / "changelog" / "NOTES.md").write_text("my notes\n")
        report = {row["id"]: row for row in json.loads(cli("outdated", "--lock", str(lock), "--json").output)}
        assert report["release-manager"]["status"] == "modified", report
        assert "nested skills" in report["release-manager"]["detail"]
        result = cli("update", "release-manager", "--lock", str(lock), "--cache-dir", cache)
        assert result.exit_code != 0 and "local changes" in result.output, result.output
        assert (dest / "changelog" / "NOTES.md").read_text() == "my notes\n"
        result = cli("update", "release-manager", "--lock", str(lock), "--cache-dir", cache, "--overwrite")
        assert result.exit_code == 0 and "replaced release-manager" in result.output, result.output
        assert not (dest / "changelog" / "NOTES.md").exists()
        report = {row["id"]: row for row in json.loads(cli("outdated", "--lock", str(lock), "--json").output)}
        assert report["release-manager"]["status"] != "modified", report
    finally:
        server.stop()


def test_a_nested_skill_added_to_a_skill_installed_without_any_is_a_local_change(served, tmp_path: Path) -> None:
    """lib installs with no nested skill: the lock says so (``nested_digest: null``), so a nested
    skill the user adds in its folder is a local change that ``update`` does not delete without
    --overwrite.  A lock an older skillsite wrote (no such key) is silent about it, as before."""
    _, server = served
    project = tmp_path / "project"
    lock, cache, dest = project / "skillsite-lock.json", str(tmp_path / "cache"), project / "skills" / "lib"
    assert cli("install", "lib", "--catalog", server.url, "--dest", str(dest), "--lock", str(lock),
               "--cache-dir", cache).exit_code == 0
    assert json.loads(lock.read_text("utf-8"))["skills"]["lib"]["nested_digest"] is None
    (dest / "mine").mkdir()
    (dest / "mine" / "SKILL.md").write_text("---\nname: mine\ndescription: my own nested skill\n---\nMine.\n")
    report = {row["id"]: row for row in json.loads(cli("outdated", "--lock", str(lock), "--json").output)}
    assert report["lib"]["status"] == "modified", report
    result = cli("update", "lib", "--lock", str(lock), "--cache-dir", cache)
    assert result.exit_code != 0 and "local changes" in result.output, result.output
    assert (dest / "mine" / "SKILL.md").is_file()
    data = json.loads(lock.read_text("utf-8"))
    del data["skills"]["lib"]["nested_digest"]  # as an older skillsite wrote it
    lock.write_text(json.dumps(data), encoding="utf-8")
    report = {row["id"]: row for row in json.loads(cli("outdated", "--lock", str(lock), "--json").output)}
    assert report["lib"]["status"] != "modified", report


def test_update_says_what_it_did_to_a_folder_holding_no_skill_or_none_at_all(served, tmp_path: Path) -> None:
    """A skill's folder emptied of its skill is replaced only with --overwrite, and said to be; a
    folder gone is put back, and said to be: neither is "up to date"."""
    _, server = served
    project = tmp_path / "project"
    lock, cache, skills = project / "skillsite-lock.json", str(tmp_path / "cache"), project / "skills"
    assert cli("install", "app", "--catalog", server.url, "--dest", str(skills / "app"), "--lock", str(lock),
               "--cache-dir", cache).exit_code == 0
    (skills / "app" / "SKILL.md").unlink()
    (skills / "app" / "draft.txt").write_text("mine")
    result = cli("update", "app", "--lock", str(lock), "--cache-dir", cache)
    assert result.exit_code == 1 and "local changes" in result.output and (skills / "app" / "draft.txt").exists()
    result = cli("update", "app", "--lock", str(lock), "--cache-dir", cache, "--overwrite")
    assert result.exit_code == 0, result.output
    assert "replaced app in" in result.output and "up to date" not in result.output, result.output
    assert (skills / "app" / "SKILL.md").is_file() and not (skills / "app" / "draft.txt").exists()
    shutil.rmtree(skills / "app")
    shutil.rmtree(skills / "lib")
    result = cli("update", "app", "--lock", str(lock), "--cache-dir", cache)
    assert result.exit_code == 0, result.output
    assert "app: 1.0.0, put back (its folder was missing)" in result.output, result.output
    assert "lib: 1.1.0, put back (its folder was missing)" in result.output, result.output
    assert "up to date" not in result.output and (skills / "lib" / "SKILL.md").is_file()
    assert cli("update", "app", "--lock", str(lock), "--cache-dir", cache).output == "app: 1.0.0, up to date\n"


def test_an_older_lock_s_skill_put_back_is_said_so(served, tmp_path: Path) -> None:
    """A lock an older skillsite wrote (no nested_digest): a folder put back is 'put back', not
    '1.1.0 -> 1.1.0' (the record is rewritten with null, which is no change of what is installed)."""
    _, server = served
    project = tmp_path / "project"
    lock, cache, skills = project / "skillsite-lock.json", str(tmp_path / "cache"), project / "skills"
    assert cli("install", "app", "--catalog", server.url, "--dest", str(skills / "app"), "--lock", str(lock),
               "--cache-dir", cache).exit_code == 0
    data = json.loads(lock.read_text("utf-8"))
    for record in data["skills"].values():
        del record["nested_digest"]
    lock.write_text(json.dumps(data), encoding="utf-8")
    shutil.rmtree(skills / "lib")
    result = cli("update", "app", "--lock", str(lock), "--cache-dir", cache)
    assert result.exit_code == 0 and "lib: 1.1.0, put back (its folder was missing)" in result.output, result.output
    assert "->" not in result.output


def test_a_skill_installed_inside_another_s_folder_is_no_change_of_it_and_outlives_its_update(served,
                                                                                            tmp_path: Path) -> None:
    """lib installed on its own inside app's folder (the lock has it at its own path): app is not
    'modified' for it, and replacing app (update, update --overwrite of an edited app, install
    --overwrite) keeps lib there, as the lock records it."""
    _, server = served
    project, cache = tmp_path / "project", str(tmp_path / "cache")
    lock, skills = project / "skillsite-lock.json", project / "skills"
    # app brings lib beside it: lib is then recorded at app/own-lib instead (--overwrite says so)
    for skill_id, dest, more in (("app", skills / "app", ()), ("lib", skills / "app" / "own-lib", ("--overwrite",))):
        assert cli("install", skill_id, "--catalog", server.url, "--dest", str(dest), "--lock", str(lock),
                   "--cache-dir", cache, *more).exit_code == 0
    inner = skills / "app" / "own-lib" / "SKILL.md"
    states = json.loads(cli("outdated", "--lock", str(lock), "--cache-dir", cache, "--json").output)
    assert {s["id"]: s["status"] for s in states} == {"app": "up-to-date", "lib": "up-to-date"}, states
    result = cli("update", "app", "--lock", str(lock), "--cache-dir", cache)
    assert result.exit_code == 0 and "local changes" not in result.output, result.output
    (skills / "app" / "SKILL.md").write_text("edited here\n", encoding="utf-8")
    assert cli("update", "app", "--lock", str(lock), "--cache-dir", cache).exit_code == 1
    result = cli("update", "app", "--lock", str(lock), "--cache-dir", cache, "--overwrite")
    assert result.exit_code == 0 and "replaced app" in result.output, result.output
    assert inner.is_file() and (skills / "app" / "SKILL.md").read_text(encoding="utf-8") != "edited here\n"
    assert cli("install", "app", "--catalog", server.url, "--dest", str(skills / "app"), "--lock", str(lock),
               "--cache-dir", cache, "--overwrite").exit_code == 0
    assert inner.is_file()
    states = json.loads(cli("outdated", "--lock", str(lock), "--cache-dir", cache, "--json").output)
    assert {s["id"]: s["status"] for s in states} == {"app": "up-to-date", "lib": "up-to-date"}, states



def _app_holding_lib(tmp_path: Path) -> tuple[Path, Path, Path]:
    """app 1.0.0 installed, lib installed on its own at app/own-lib, both in one lock (a local
    catalog at tmp_path/catalog): the lock, app's folder and lib's."""
    site = make_site(tmp_path / "catalog", {"app": [R("1.0.0")], "lib": [R("1.0.0")]})
    lock, app = tmp_path / "project" / "skillsite-lock.json", tmp_path / "project" / "skills" / "app"
    for skill_id, dest in (("app", app), ("lib", app / "own-lib")):
        assert cli("install", skill_id, "--catalog", str(site), "--dest", str(dest), "--lock", str(lock)).exit_code == 0
    return lock, app, app / "own-lib"


def test_a_release_with_files_where_a_skill_is_installed_on_its_own_needs_overwrite(tmp_path: Path) -> None:
    """app 1.1.0 ships own-lib/guide.md, where the lock has lib: update refuses (nothing replaced,
    the user's notes kept); with --overwrite the release takes the place."""
    lock, app, lib = _app_holding_lib(tmp_path)
    (lib / "MY-NOTES.md").write_text("my work\n", encoding="utf-8")
    make_site(tmp_path / "catalog", {"app": [R("1.0.0"), R("1.1.0", files={"own-lib/guide.md": "x"})],
                                     "lib": [R("1.0.0")]})
    result = cli("update", "app", "--lock", str(lock))
    assert result.exit_code == 1 and "holds lib, installed there on its own, and app@1.1.0 has files of its own " \
        "there; pass --overwrite" in result.output, result.output
    assert (lib / "MY-NOTES.md").read_text(encoding="utf-8") == "my work\n" and not (lib / "guide.md").exists()
    assert json.loads(lock.read_text("utf-8"))["skills"]["app"]["version"] == "1.0.0"
    result = cli("update", "app", "--lock", str(lock), "--overwrite")
    assert result.exit_code == 0 and (lib / "guide.md").is_file() and not (lib / "MY-NOTES.md").exists()


def test_a_skill_installed_inside_that_cannot_be_copied_stops_the_update_clearly(tmp_path: Path) -> None:
    """A named pipe in lib (installed on its own inside app): replacing app cannot keep it, so the
    update stops with one line naming it, and app stays as it was."""
    lock, app, lib = _app_holding_lib(tmp_path)
    os.mkfifo(lib / "agent.pipe")
    make_site(tmp_path / "catalog", {"app": [R("1.0.0"), R("1.1.0")], "lib": [R("1.0.0")]})
    result = cli("update", "app", "--lock", str(lock))
    assert result.exit_code != 0 and "Traceback" not in result.output, result.output
    assert f"{lib / 'agent.pipe'}" in result.output and "is a named pipe; it cannot be kept in the new folder" \
        in result.output, result.output
    assert "version: 1.0.0" in (app / "SKILL.md").read_text(encoding="utf-8") and (lib / "agent.pipe").exists()
    assert sorted(p.name for p in app.parent.iterdir()) == ["app"]


def test_a_folder_kept_for_a_lock_leaves_out_the_skills_it_has_on_their_own(tmp_path: Path) -> None:
    """app is already there (put by another lock) when x needs it: kept as it is, its record's
    nested digest leaves lib out (the lock has lib on its own), so updating lib is no change of app."""
    skills = {"x": [R("1.0.0", (("app", "^1"),))], "app": [R("1.0.0")], "lib": [R("1.0.0")]}
    site = str(make_site(tmp_path / "catalog", skills))
    project = tmp_path / "project"
    lock, app = project / "skillsite-lock.json", project / "skills" / "app"
    assert cli("install", "app", "--catalog", site, "--dest", str(app), "--lock", str(project / "other.json")
               ).exit_code == 0
    assert cli("install", "lib", "--catalog", site, "--dest", str(app / "own-lib"), "--lock", str(lock)).exit_code == 0
    assert cli("install", "x", "--catalog", site, "--dest", str(project / "skills" / "x"), "--lock", str(lock)
               ).exit_code == 0
    assert json.loads(lock.read_text("utf-8"))["skills"]["app"]["nested_digest"] is None
    make_site(tmp_path / "catalog", {**skills, "lib": [R("1.0.0"), R("1.1.0")]})
    assert cli("update", "lib", "--lock", str(lock)).exit_code == 0
    states = json.loads(cli("outdated", "--lock", str(lock), "--json").output)
    assert {s["id"]: s["status"] for s in states} == {"app": "up-to-date", "lib": "up-to-date", "x": "up-to-date"}

def test_an_install_past_the_file_limit_fetches_no_file(served, tmp_path: Path, monkeypatch) -> None:
    """app needs lib: the whole install (both skills) is counted before any file is fetched, so
    a catalog listing too many files costs the installer no download of them."""
    from skillsite.agent import install_limits
    from skillsite.loader import TooLargeError

    _, server = served
    monkeypatch.setattr(install_limits, "MAX_INSTALL_FILES", 1)
    catalog = Catalog.open(server.url, cache_dir=tmp_path / "cache")
    before = len(server.requests)
    with pytest.raises(TooLargeError, match="more than 1 files in all"):
        catalog.install("app", tmp_path / "project" / "app")
    assert not [path for path, _ in server.requests[before:] if path.endswith("SKILL.md")], server.requests
    assert not (tmp_path / "project").exists()


class LocalCatalog:
    """Skills in ``src`` built into a local catalog ``site``; a project with a lock beside it."""

    def __init__(self, tmp_path: Path, *skills: str) -> None:
        from support import write_skill

        self.src, self.site, self.project = tmp_path / "src", tmp_path / "site", tmp_path / "project"
        self.lock = self.project / "skillsite-lock.json"
        for rel in skills:  # "outer/inner": a skill nested in outer's folder
            write_skill(self.src, rel, description=f"The {rel.rsplit('/', 1)[-1]} skill. Use when testing.")
        self.rebuild()

    def rebuild(self) -> None:
        from skillsite.publish.build import build

        assert build([self.src], self.site).ok

    def edit(self, rel: str, line: str) -> None:
        """A line added to ``src/<rel>/SKILL.md``."""
        skill_md = self.src / rel / "SKILL.md"
        skill_md.write_text(skill_md.read_text() + f"\n{line}\n")

    def install(self, skill_id: str, dest: Path, *more: str):
        return cli("install", skill_id, "--catalog", str(self.site), "--dest", str(dest), "--lock", str(self.lock),
                   *more)

    def state(self, skill_id: str) -> dict:
        rows = json.loads(cli("outdated", "--lock", str(self.lock), "--json").output)
        return {row["id"]: row for row in rows}[skill_id]


def killed_update(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[LocalCatalog, Path]:
    """demo (holding demo/inner) installed, then updated to a new release by an update killed
    after putting the release in place, before recording it in the lock; the catalog, and demo's folder."""
    import skillsite.agent.install as install_module

    catalog = LocalCatalog(tmp_path, "demo", "demo/inner")
    dest = catalog.project / "skills" / "demo"
    assert catalog.install("demo", dest).exit_code == 0
    catalog.edit("demo", "Version two.")
    catalog.edit("demo/inner", "Two.")
    catalog.rebuild()

    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # where a SIGKILL could land: the folder swapped in, the lock not written

    with monkeypatch.context() as patched:
        patched.setattr(install_module.LockRecorder, "record", killed)
        with pytest.raises(KeyboardInterrupt):
            Catalog.open(catalog.site).update("demo", catalog.lock)
    return catalog, dest


def test_an_update_killed_between_putting_the_release_in_place_and_recording_it_is_finished_by_the_next(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The folder holds the new release, the lock still the old digest: not a local change to
    refuse for ever, but an update to record. A folder edited since is still refused."""
    catalog, dest = killed_update(tmp_path, monkeypatch)
    assert "Version two." in (dest / "SKILL.md").read_text()
    assert catalog.state("demo")["status"] == "modified"          # the lock is behind the folder, as it was left
    result = cli("update", "demo", "--lock", str(catalog.lock))
    assert result.exit_code == 0 and catalog.state("demo")["status"] == "up-to-date", result.output
    (dest / "SKILL.md").write_text((dest / "SKILL.md").read_text() + "my edit\n")
    result = cli("update", "demo", "--lock", str(catalog.lock))
    assert result.exit_code != 0 and "local changes" in result.output, result.output


def test_finishing_a_killed_update_hashes_the_folder_and_the_release_once_each(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The update that records a killed one's release (``Catalog.update``: the command line reads
    the folder again to say what changed) reads the folder once against the lock (its local
    changes) and once to place the release, never a third time to see it holds the release;
    the nested skills of the release fetched are hashed once, for placing and recording both."""
    import skillsite.agent.install as install_module
    import skillsite.agent.installed as installed_module

    catalog, dest = killed_update(tmp_path, monkeypatch)
    folders: list[Path] = []
    releases: list[tuple[str, ...]] = []
    real_digest, real_nested = installed_module.installed_digest, install_module.nested_digest_of

    def installed_digest(folder: Path) -> str | None:
        folders.append(Path(folder))
        return real_digest(folder)

    def nested_digest_of(files):
        releases.append(tuple(sorted(files)))
        return real_nested(files)

    monkeypatch.setattr(installed_module, "installed_digest", installed_digest)
    monkeypatch.setattr(install_module, "nested_digest_of", nested_digest_of)
    Catalog.open(catalog.site).update("demo", catalog.lock)
    assert folders == [dest, dest], [str(f) for f in folders]
    assert releases == [("SKILL.md", "inner/SKILL.md")]
    monkeypatch.undo()
    assert catalog.state("demo")["status"] == "up-to-date"


def test_outdated_looks_a_locked_skill_up_by_its_id_never_by_another_skill_s_name(tmp_path: Path) -> None:
    """helper moved to helper2 under the same name: the lock's helper is not in the catalog any
    more (as update says), not helper2 with changed files."""
    catalog = LocalCatalog(tmp_path, "helper")
    assert catalog.install("helper", catalog.project / "skills" / "helper").exit_code == 0
    (catalog.src / "helper").rename(catalog.src / "helper2")
    catalog.edit("helper2", "Moved.")
    catalog.rebuild()
    assert catalog.state("helper")["status"] == "not-in-catalog"
    result = cli("update", "helper", "--lock", str(catalog.lock))
    assert result.exit_code != 0 and "no skill 'helper'" in result.output, result.output


def test_a_skill_the_lock_records_in_another_folder_is_not_installed_again_without_overwrite(tmp_path: Path) -> None:
    """demo installed in .claude/skills, then in .agents/skills: the lock holds one folder a skill,
    so the second install would leave the first unrecorded and never updated. It is refused,
    naming both; --overwrite moves the record and says the first folder stays as it is."""
    catalog = LocalCatalog(tmp_path, "demo")
    first, second = catalog.project / ".claude/skills/demo", catalog.project / ".agents/skills/demo"

    def recorded() -> str:
        return json.loads(catalog.lock.read_text())["skills"]["demo"]["path"]

    assert catalog.install("demo", first).exit_code == 0
    result = catalog.install("demo", second)
    assert result.exit_code != 0 and f"already records demo at {first}" in result.output, result.output
    assert not second.exists() and recorded() == ".claude/skills/demo"
    result = catalog.install("demo", second, "--overwrite")
    assert result.exit_code == 0 and second.is_dir() and first.is_dir(), result.output
    assert recorded() == ".agents/skills/demo"


def test_outdated_sees_a_nested_skill_the_catalog_changed(tmp_path: Path) -> None:
    """outer installs with outer/inner in its folder: an edit of inner in the catalog is an update
    of outer (update rewrites inner), so outdated says update-available, then up-to-date after it."""
    catalog = LocalCatalog(tmp_path, "outer", "outer/inner")
    dest = catalog.project / "skills" / "outer"
    assert catalog.install("outer", dest).exit_code == 0
    assert catalog.state("outer")["status"] == "up-to-date"
    catalog.edit("outer/inner", "New.")
    catalog.rebuild()
    state = catalog.state("outer")
    assert state["status"] == "update-available" and "nested skills" in state["detail"]
    assert cli("update", "outer", "--lock", str(catalog.lock)).exit_code == 0
    assert "New." in (dest / "inner" / "SKILL.md").read_text() and catalog.state("outer")["status"] == "up-to-date"


def test_a_dependency_whose_folder_differs_from_the_root_s_only_in_case_is_refused_before_anything_is_written(
        served, tmp_path: Path) -> None:
    """On macOS and Windows ``skills/LIB`` and ``skills/lib`` are one folder: ``app`` there and its
    dependency ``lib`` beside it overwrote each other, and the lock recorded both at one place."""
    _, server = served
    project = tmp_path / "project"
    result = cli("install", "app", "--catalog", server.url, "--dest", str(project / "skills" / "LIB"),
                 "--lock", str(project / "skillsite-lock.json"), "--cache-dir", str(tmp_path / "cache"))
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "would both be installed into" in result.output and "differ only in case" in result.output
    assert not (project / "skills").exists() and not (project / "skillsite-lock.json").exists()


def _deep_tree(top: Path, levels: int) -> Path:
    """``top/d/d/.../d`` (``levels`` folders), made one at a time: os.makedirs recurses per level."""
    folder = top
    for _ in range(levels):
        folder = folder / "d"
        folder.mkdir(parents=False, exist_ok=True)
    return folder


def _remove_deep_tree(top: Path, levels: int) -> None:
    """Remove what :func:`_deep_tree` made and the file in it, deepest first (rmtree recurses per level)."""
    for level in range(levels, 0, -1):
        folder = top.joinpath(*["d"] * level)
        for child in folder.iterdir() if folder.is_dir() else ():
            child.unlink()
        if folder.is_dir():
            folder.rmdir()


def _deep_site(tmp_path: Path, levels: int, body: bytes) -> tuple[Path, str]:
    """A built site whose skill ``deep`` lists one more file, ``levels`` folders deep."""
    import hashlib

    from skillsite.agent.release_digest import release_digest
    from skillsite.publish.build import build

    (tmp_path / "src" / "deep").mkdir(parents=True)
    (tmp_path / "src" / "deep" / "SKILL.md").write_text("---\nname: deep\ndescription: Nests a file deep.\n---\n# x\n")
    site = tmp_path / "site"
    assert build([tmp_path / "src"], site).ok
    rel = "/".join(["d"] * levels) + "/x.txt"
    (_deep_tree(site / "skills" / "deep", levels) / "x.txt").write_bytes(body)
    manifest = json.loads((site / "skills.json").read_text("utf-8"))
    entry = manifest["skills"][0]
    entry["files"] = [{"path": rel, "bytes": len(body), "sha256": hashlib.sha256(body).hexdigest()}]
    entry["digest"] = release_digest([("SKILL.md", entry["sha256"]), (rel, entry["files"][0]["sha256"])])
    (site / "skills.json").write_text(json.dumps(manifest), encoding="utf-8")
    return site, rel


def test_a_file_a_thousand_folders_deep_is_refused_before_anything_is_fetched(tmp_path: Path) -> None:
    """A catalog's file path may hold 4,096 bytes: one 1,100 folders deep made install raise
    RecursionError (pathlib's mkdir(parents=True) calls itself per folder), and an install over
    it would again (shutil.rmtree does too).  A build searches 100 levels at most."""
    from skillsite.loader import CatalogFormatError

    site, _ = _deep_site(tmp_path, 1_100, b"deep file\n")
    server = CountingServer(site)
    try:
        with pytest.raises(CatalogFormatError, match=r"installing deep would write a file 1,100 folders deep"):
            Catalog.open(server.url, cache_dir=tmp_path / "cache").install("deep", tmp_path / "out" / "deep")
        assert not (tmp_path / "out").exists()
    finally:
        server.stop()
        _remove_deep_tree(site / "skills" / "deep", 1_100)


def test_a_file_a_hundred_folders_deep_installs_and_is_replaced_over_http(tmp_path: Path) -> None:
    site, rel = _deep_site(tmp_path, 120, b"deep file\n")
    server = CountingServer(site)
    dest = tmp_path / "out" / "deep"
    try:
        catalog = Catalog.open(server.url, cache_dir=tmp_path / "cache")
        catalog.install("deep", dest)
        catalog.install("deep", dest, overwrite=True)
        assert (dest / rel).read_bytes() == b"deep file\n"
        assert sorted(p.name for p in dest.parent.iterdir()) == ["deep"]   # no staging folder left
    finally:
        server.stop()


def test_a_release_with_a_file_deeper_than_an_install_writes_is_refused(tmp_path: Path) -> None:
    """The depth limit held for skills without releases only: a release's files are listed apart."""
    from skillsite.loader import CatalogFormatError

    rel = "/".join(["d"] * 200) + "/x.txt"
    site = make_site(tmp_path / "v", {"deep": [R("1.0.0", files={rel: "deep\n"})]})
    with pytest.raises(CatalogFormatError, match=r"installing deep@1\.0\.0 would write a file 200 folders deep"):
        Catalog.open(str(site), cache_dir=tmp_path / "cache").install("deep", tmp_path / "out" / "deep")
    assert not (tmp_path / "out").exists()
