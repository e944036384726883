"""Versions, dependencies and the lock file over real HTTP (127.0.0.1): ``Catalog.install`` /
``load`` of a version, ``skillsite install``, ``outdated`` and ``update`` against a catalog
whose releases change between runs (tests/fixtures/versioned_site.py writes them in the
shapes the build publishes)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillsite.agent.installed import installed_digest
from skillsite.cli import main
from skillsite.loader import Catalog, DependencyError, IntegrityError, StaleCatalogWarning
from versioned_site import FakeRelease as R
from versioned_site import make_site, repin_versions, served_site

SKILLS = {
    "app": [R("1.0.0", (("lib", "^1"),)), R("1.1.0", (("lib", "^1.1"),), {"references/guide.md": "Guide of 1.1"})],
    "lib": [R("1.0.0", (("tools/base", "~0.3"),)), R("1.1.0", (("tools/base", "~0.3"),))],
    "tools/base": [R("0.3.0"), R("0.3.1"), R("0.4.0")],
}


@pytest.fixture
def served(tmp_path: Path):
    """The catalog of SKILLS on a CountingServer; (folder the site is built in, server)."""
    with served_site(tmp_path / "catalog", SKILLS) as server:
        yield tmp_path / "catalog", server


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "project").mkdir()
    return tmp_path / "project"


def cli(*args: str):
    return CliRunner().invoke(main, list(args))


def body_of(folder: Path) -> str:
    return (folder / "SKILL.md").read_text("utf-8").split("---\n", 2)[2]


def versions_json(root: Path, skill_id: str) -> dict:
    return json.loads((root / "site" / "skills" / skill_id / "versions.json").read_text("utf-8"))


def test_install_writes_the_dependency_chain_beside_dest_and_records_it(served, project: Path, tmp_path: Path) -> None:
    root, server = served
    catalog = Catalog.open(server.url, cache_dir=tmp_path / "cache")
    assert catalog.versions("tools/base") == ["0.3.0", "0.3.1", "0.4.0"]
    dest = project / ".agents" / "skills" / "app"
    lock = project / "skillsite-lock.json"
    assert catalog.install("app", dest, lock=lock) == dest
    skills = project / ".agents" / "skills"
    assert sorted(p.name for p in skills.iterdir()) == ["app", "base", "lib"]
    assert body_of(skills / "app").startswith("# app 1.1.0") and body_of(skills / "lib").startswith("# lib 1.1.0")
    assert body_of(skills / "base").startswith("# base 0.3.1")       # ~0.3: 0.4.0 is out of range
    assert (skills / "app" / "references" / "guide.md").read_text("utf-8") == "Guide of 1.1"
    assert not (skills / "app" / "skill.xml").exists()
    digest = {sid: versions_json(root, sid)["releases"][v]["digest"]
              for sid, v in (("app", "1.1.0"), ("lib", "1.1.0"), ("tools/base", "0.3.1"))}
    source = server.url + "skills.json"
    assert json.loads(lock.read_text("utf-8")) == {"lockfile_version": 1, "skills": {
        "app": {"source": source, "version": "1.1.0", "digest": digest["app"], "dependencies": {"lib": "^1.1"},
                "path": ".agents/skills/app", "requested": "^1.1.0", "nested_digest": None},
        "lib": {"source": source, "version": "1.1.0", "digest": digest["lib"],
                "dependencies": {"tools/base": "~0.3"}, "path": ".agents/skills/lib", "nested_digest": None},
        "tools/base": {"source": source, "version": "0.3.1", "digest": digest["tools/base"], "dependencies": {},
                       "path": ".agents/skills/base", "nested_digest": None}}}
    assert all(installed_digest(skills / name) == digest[sid]
               for sid, name in (("app", "app"), ("lib", "lib"), ("tools/base", "base")))
    first = lock.read_bytes()
    catalog.install("app", dest, True, lock=lock)       # the same install again: the same bytes
    assert lock.read_bytes() == first


def test_load_and_resource_of_a_version_over_http(served, tmp_path: Path) -> None:
    _, server = served
    catalog = Catalog.open(server.url, cache_dir=tmp_path / "cache")
    old = catalog.load("app", "1.0.0")
    assert old.version == "1.0.0" and old.body.startswith("# app 1.0.0") and old.resources == ()
    assert old.location == server.url + "skills/app/versions/1.0.0/SKILL.md"
    newest = catalog.load("app", "^1")
    assert newest.version == "1.1.0" and newest.resources == ("references/guide.md",)
    assert catalog.resource("app", "references/guide.md", "~1.1") == b"Guide of 1.1"
    assert catalog.load("app").version is None                  # the current files, as before


def test_outdated_then_update_after_the_catalog_gets_a_new_release(served, project: Path, tmp_path: Path) -> None:
    root, server = served
    lock, cache = project / "skillsite-lock.json", str(tmp_path / "cache")
    dest = project / "skills" / "app"
    result = cli("install", "app@^1.0", "--catalog", server.url, "--dest", str(dest), "--lock", str(lock),
                 "--cache-dir", cache)
    assert result.exit_code == 0, result.output
    assert f"installed lib@1.1.0 into {project / 'skills' / 'lib'}" in result.output
    result = cli("outdated", "--lock", str(lock), "--cache-dir", cache, "--json")
    assert result.exit_code == 0, result.output
    assert {s["id"]: s["status"] for s in json.loads(result.output)} == {
        "app": "up-to-date", "lib": "up-to-date", "tools/base": "newer-out-of-range"}

    make_site(root, {**SKILLS, "lib": SKILLS["lib"] + [R("1.2.0", (("tools/base", "~0.3"),)), R("2.0.0")]})
    result = cli("outdated", "--lock", str(lock), "--cache-dir", cache)
    assert result.exit_code == 0, result.output
    row = next(line.split() for line in result.output.splitlines() if line.startswith("lib "))
    assert row == ["lib", "1.1.0", "1.2.0", "2.0.0", "update-available"]

    result = cli("update", "--lock", str(lock), "--cache-dir", cache)
    assert result.exit_code == 0, result.output
    assert "lib: 1.1.0 -> 1.2.0" in result.output and "app: 1.1.0, up to date" in result.output
    assert body_of(project / "skills" / "lib").startswith("# lib 1.2.0")
    locked = json.loads(lock.read_text("utf-8"))["skills"]
    assert locked["lib"]["version"] == "1.2.0" and locked["app"]["requested"] == "^1.0"
    assert json.loads(cli("outdated", "--lock", str(lock), "--cache-dir", cache, "--json").output)[1]["status"] == \
        "newer-out-of-range"


def test_a_release_changed_under_the_same_version_is_refused(served, project: Path, tmp_path: Path) -> None:
    root, server = served
    lock, cache = project / "skillsite-lock.json", tmp_path / "cache"
    Catalog.open(server.url, cache_dir=cache).install("app", project / "skills" / "app", lock=lock)
    lib_before = (project / "skills" / "lib" / "SKILL.md").read_bytes()
    tampered = [R("1.0.0", (("tools/base", "~0.3"),)), R("1.1.0", (("tools/base", "~0.3"),), body="Evil.")]
    make_site(root, {**SKILLS, "lib": tampered})

    result = cli("outdated", "--lock", str(lock), "--cache-dir", str(cache), "--json")
    assert result.exit_code == 1
    lib = next(s for s in json.loads(result.output) if s["id"] == "lib")
    assert lib["status"] == "tampered" and "refusing it" in lib["detail"]

    result = cli("update", "--lock", str(lock), "--cache-dir", str(cache))
    assert result.exit_code == 1
    assert "lib@1.1.0 is tampered" in result.output and "Traceback" not in result.output
    assert (project / "skills" / "lib" / "SKILL.md").read_bytes() == lib_before
    with pytest.raises(IntegrityError, match="lib@1.1.0 is tampered"):
        Catalog.open(server.url, cache_dir=cache).install("lib", project / "other" / "lib", lock=lock)
    assert not (project / "other").exists()


def test_outdated_reports_an_unreachable_catalog_s_skills_and_checks_the_others(served, project: Path,
                                                                                 tmp_path: Path) -> None:
    """A lock of two catalogs, the remote one down and nothing cached: its skills could not be
    checked (saying why), the local catalog's are; exit 1, as for any catalog problem."""
    _, server = served
    local = make_site(tmp_path / "local", {"zeta": [R("1.0.0")]})
    lock = project / "skillsite-lock.json"
    Catalog.open(server.url, cache_dir=tmp_path / "cache").install("app", project / "skills" / "app", lock=lock)
    Catalog.open(local).install("zeta", project / "skills" / "zeta", lock=lock)
    server.stop()
    result = cli("outdated", "--lock", str(lock), "--cache-dir", str(tmp_path / "empty-cache"), "--json",
                 "--timeout", "2")
    assert result.exit_code == 1, result.output
    states = {s["id"]: s for s in json.loads(result.stdout)}
    assert {sid: s["status"] for sid, s in states.items()} == {
        "app": "could-not-check", "lib": "could-not-check", "tools/base": "could-not-check", "zeta": "up-to-date"}
    assert states["lib"]["version"] == "1.1.0" and states["lib"]["latest"] is None
    assert states["app"]["detail"].startswith(f"its catalog {server.url}skills.json could not be read: ")
    result = cli("outdated", "--lock", str(lock), "--cache-dir", str(tmp_path / "empty-cache"), "--timeout", "2")
    assert result.exit_code == 1 and "Traceback" not in result.output
    rows = {line.split()[0]: line.split() for line in result.stdout.splitlines()[1:5]}
    assert rows["zeta"][-1] == "up-to-date" and rows["app"][-1] == "could-not-check"
    assert "app: could-not-check: its catalog" in result.stdout

@pytest.mark.parametrize("spelling", ["a symbolic link to its folder", "its folder with a trailing /./"])
def test_a_tampered_release_is_refused_however_the_local_catalog_is_spelt(tmp_path: Path, spelling: str) -> None:
    """The locked digests are checked against the catalog they were taken from, whatever path
    names it: a link to the same folder is the same catalog, not another one to trust anew."""
    root, project = tmp_path / "catalog", tmp_path / "project"
    site = make_site(root, SKILLS)
    project.mkdir()
    lock = project / "skillsite-lock.json"
    Catalog.open(site).install("lib", project / "skills" / "lib", lock=lock)
    make_site(root, {**SKILLS, "lib": [R("1.0.0", (("tools/base", "~0.3"),)),
                                       R("1.1.0", (("tools/base", "~0.3"),), body="Evil.")]})
    if spelling == "a symbolic link to its folder":
        (tmp_path / "link").symlink_to(site)
        other = str(tmp_path / "link")
    else:
        other = f"{site}/./"
    with pytest.raises(IntegrityError, match="lib@1.1.0 is tampered"):
        Catalog.open(other).install("lib", project / "skills" / "lib2", lock=lock)
    result = cli("install", "lib", "--catalog", other, "--dest", str(project / "skills" / "lib3"), "--lock", str(lock))
    assert result.exit_code == 1 and "lib@1.1.0 is tampered" in result.output, result.output
    assert not (project / "skills" / "lib2").exists() and not (project / "skills" / "lib3").exists()


def test_local_changes_are_reported_and_kept_unless_overwrite(served, project: Path, tmp_path: Path) -> None:
    _, server = served
    lock, cache = project / "skillsite-lock.json", str(tmp_path / "cache")
    assert cli("install", "app", "--catalog", server.url, "--dest", str(project / "skills" / "app"),
               "--lock", str(lock), "--cache-dir", cache).exit_code == 0
    base = project / "skills" / "base" / "SKILL.md"
    base.write_text(base.read_text("utf-8") + "\nMy own note.\n", encoding="utf-8")
    result = cli("outdated", "--lock", str(lock), "--cache-dir", cache)
    assert result.exit_code == 0
    assert "tools/base: modified: the files at skills/base are not the ones locked" in result.output

    result = cli("update", "--lock", str(lock), "--cache-dir", cache)
    assert result.exit_code == 1 and "pass --overwrite" in result.output
    assert "My own note." in base.read_text("utf-8")
    result = cli("update", "--lock", str(lock), "--cache-dir", cache, "--overwrite")
    assert result.exit_code == 0, result.output
    assert "My own note." not in base.read_text("utf-8")
    said = (f"replaced tools/base in {project / 'skills' / 'base'}: the changes made there since it was "
            "installed are gone")
    assert said in result.output

    base.write_text(base.read_text("utf-8") + "\nAnother note.\n", encoding="utf-8")
    result = cli("install", "app", "--catalog", server.url, "--dest", str(project / "skills" / "app"), "--overwrite",
                 "--lock", str(lock), "--cache-dir", cache)  # meant for the app's folder: the dependency's goes too
    assert result.exit_code == 0 and said in result.output, result.output
    assert "Another note." not in base.read_text("utf-8")
    result = cli("install", "app", "--catalog", server.url, "--dest", str(project / "skills" / "app"), "--overwrite",
                 "--lock", str(lock), "--cache-dir", cache)
    assert "replaced" not in result.output  # nothing edited: nothing to say


def test_versions_and_releases_are_reused_from_the_cache_offline(served, project: Path, tmp_path: Path) -> None:
    _, server = served
    cache = tmp_path / "cache"
    Catalog.open(server.url, cache_dir=cache).install("app", project / "a" / "app", lock=project / "a.json")
    server.take()
    again = Catalog.open(server.url, cache_dir=cache)
    assert again.versions("app") == ["1.0.0", "1.1.0"]
    assert not any(path.endswith("/versions.json") for path, _ in server.take())   # cached by their sha256
    server.stop()
    with pytest.warns(StaleCatalogWarning):
        offline = Catalog.open(server.url, cache_dir=cache)
    assert offline.status == "offline" and offline.versions("lib") == ["1.0.0", "1.1.0"]
    offline.install("app", project / "b" / "app", lock=project / "b.json")
    for name in ("app", "lib", "base"):
        assert installed_digest(project / "b" / name) == installed_digest(project / "a" / name)
    assert json.loads((project / "b.json").read_text())["skills"]["lib"]["digest"] == \
        json.loads((project / "a.json").read_text())["skills"]["lib"]["digest"]


def test_conflicting_ranges_are_named_and_nothing_is_installed(tmp_path: Path, project: Path) -> None:
    site = make_site(tmp_path / "catalog", {
        "suite": [R("1.0.0", (("app", "*"), ("other", "*")))], "app": [R("1.0.0", (("lib", "^1"),))],
        "other": [R("3.1.0", (("lib", "^2"),))], "lib": [R("1.4.0"), R("2.0.0")]})
    with pytest.raises(DependencyError) as caught:
        Catalog.open(site).install("suite", project / "suite")
    assert "^1 (asked by app@1.0.0)" in str(caught.value) and "^2 (asked by other@3.1.0)" in str(caught.value)
    result = cli("install", "suite", "--catalog", str(site), "--dest", str(project / "suite"),
                 "--lock", str(project / "lock.json"))
    assert result.exit_code == 1 and "no release of lib satisfies every range asking for it" in result.output
    assert list(project.iterdir()) == []


def test_a_dependent_s_install_and_update_keep_the_range_a_skill_was_installed_with(tmp_path: Path,
                                                                                  project: Path) -> None:
    """lib installed as lib@~1.1, then app (needing lib ^1) installed and updated: lib stays at
    1.1.1, where it moved to 1.2.0 (and a plain update swung it back and forth)."""
    site = make_site(tmp_path / "catalog", {"app": [R("1.0.0", (("lib", "^1"),))],
                                            "lib": [R("1.1.0"), R("1.1.1"), R("1.2.0")]})
    lock, skills = project / "skillsite-lock.json", project / "skills"
    assert cli("install", "lib@~1.1", "--catalog", str(site), "--dest", str(skills / "lib"),
               "--lock", str(lock)).exit_code == 0
    result = cli("install", "app", "--catalog", str(site), "--dest", str(skills / "app"), "--lock", str(lock))
    assert result.exit_code == 0, result.output
    assert "lib@1.2.0" not in result.output
    for args in (["update", "app"], ["update"]):
        result = cli(*args, "--lock", str(lock))
        assert result.exit_code == 0 and "1.2.0" not in result.output, result.output
    recorded = json.loads(lock.read_text("utf-8"))["skills"]["lib"]
    assert (recorded["version"], recorded["requested"]) == ("1.1.1", "~1.1")
    assert body_of(skills / "lib").startswith("# lib 1.1.1")
    result = cli("outdated", "--lock", str(lock), "--json")
    assert {s["id"]: s["status"] for s in json.loads(result.output)} == {"app": "up-to-date",
                                                                          "lib": "newer-out-of-range"}


def test_a_folder_the_lock_records_for_another_skill_is_refused_even_with_overwrite(tmp_path: Path,
                                                                                    project: Path) -> None:
    """b/lib installed at s/lib, then app2 (needing a/lib, whose folder would be s/lib too) or
    a/lib itself with --overwrite: refused, where a/lib replaced b/lib's files and the lock then
    recorded both at s/lib."""
    site = make_site(tmp_path / "catalog", {"a/lib": [R("1.0.0")], "b/lib": [R("1.0.0")],
                                            "app2": [R("1.0.0", (("a/lib", "*"),))]})
    lock, skills = project / "skillsite-lock.json", project / "s"
    assert cli("install", "b/lib", "--catalog", str(site), "--dest", str(skills / "lib"),
               "--lock", str(lock)).exit_code == 0
    before = lock.read_bytes(), body_of(skills / "lib")
    for request, dest in (("app2", skills / "app2"), ("a/lib", skills / "lib")):
        result = cli("install", request, "--catalog", str(site), "--dest", str(dest), "--lock", str(lock),
                     "--overwrite")
        assert result.exit_code == 1, result.output
        assert f"{skills / 'lib'} is where {lock} records b/lib; a/lib cannot be installed there" in result.output
        assert (lock.read_bytes(), body_of(skills / "lib")) == before
    assert not (skills / "app2").exists()


def test_a_release_file_that_does_not_match_its_listing_installs_nothing(served, project: Path, tmp_path: Path) -> None:
    root, server = served
    (root / "site" / "skills" / "app" / "versions" / "1.1.0" / "references" / "guide.md").write_text("Swapped")
    with pytest.raises(IntegrityError, match="references/guide.md of app@1.1.0 does not match the catalog"):
        Catalog.open(server.url, cache_dir=tmp_path / "cache").install("app", project / "app",
                                                                        lock=project / "lock.json")
    assert list(project.iterdir()) == []


def test_a_versions_file_whose_digest_is_not_its_files_is_refused(served, tmp_path: Path) -> None:
    root, server = served
    path = root / "site" / "skills" / "lib" / "versions.json"
    history = json.loads(path.read_text("utf-8"))
    history["releases"]["1.0.0"]["files"][0]["sha256"] = "0" * 64
    path.write_text(json.dumps(history), encoding="utf-8")
    repin_versions(root / "site", "lib")   # a host that rewrites versions.json rewrites skills.json too
    with pytest.raises(IntegrityError, match="release 1.0.0: its digest .* is not the digest of the files it lists"):
        Catalog.open(server.url, cache_dir=tmp_path / "cache").versions("lib")


def test_bad_ranges_and_unknown_versions_on_the_command_line(served, project: Path, tmp_path: Path) -> None:
    _, server = served
    args = ("--catalog", server.url, "--dest", str(project / "app"), "--lock", str(project / "lock.json"),
            "--cache-dir", str(tmp_path / "cache"))
    result = cli("install", "app@^^1", *args)
    assert result.exit_code == 2 and "invalid version range '^^1'" in result.output
    result = cli("install", "app@^7", *args)
    assert result.exit_code == 1
    assert "no release of app satisfies ^7 (asked by the install request); its releases: 1.0.0, 1.1.0" in result.output
    assert "Traceback" not in result.output and list(project.iterdir()) == []
    (project / "lock.json").write_text('{"lockfile_version": 1, "skills": [', encoding="utf-8")
    result = cli("install", "app", *args)
    assert result.exit_code == 2 and "lock.json (line 1 column 36): the lock file is not valid JSON" in result.output
    assert sorted(p.name for p in project.iterdir()) == ["lock.json"]


def test_concurrent_installs_with_dependencies_end_complete(served, project: Path, tmp_path: Path) -> None:
    """Installs of one skill at once: the dependencies one of them put in place first are kept
    by the others, each ends with the catalog's error at worst, and every folder is complete."""
    from concurrent.futures import ThreadPoolExecutor

    from skillsite.loader import LoaderError

    root, server = served

    def one(i: int) -> str:
        try:
            Catalog.open(server.url, cache_dir=tmp_path / f"cache-{i}").install("app", project / "skills" / "app")
        except LoaderError as exc:
            return type(exc).__name__
        return "ok"

    with ThreadPoolExecutor(4) as pool:
        outcomes = list(pool.map(one, range(4)))
    assert outcomes.count("ok") >= 1 and set(outcomes) <= {"ok", "DestinationExistsError"}, outcomes
    skills = project / "skills"
    assert sorted(p.name for p in skills.iterdir()) == ["app", "base", "lib"]
    for sid, name, version in (("app", "app", "1.1.0"), ("lib", "lib", "1.1.0"), ("tools/base", "base", "0.3.1")):
        assert installed_digest(skills / name) == versions_json(root, sid)["releases"][version]["digest"]


def test_a_lock_inside_the_project_names_a_local_catalog_and_paths_relative_to_it(tmp_path: Path) -> None:
    """A project holding its catalog and lock can move (a clone elsewhere): the lock still works."""
    import shutil

    project = tmp_path / "project"
    site = make_site(project / "catalog", SKILLS)
    lock = project / "skillsite-lock.json"
    result = cli("install", "lib@1.0.0", "--catalog", str(site), "--dest", str(project / "skills" / "lib"),
                 "--lock", str(lock))
    assert result.exit_code == 0, result.output
    locked = json.loads(lock.read_text("utf-8"))["skills"]
    assert locked["lib"]["source"] == "catalog/site/skills.json" and locked["lib"]["requested"] == "1.0.0"
    assert locked["tools/base"]["path"] == "skills/base" and "requested" not in locked["tools/base"]

    moved = tmp_path / "elsewhere"
    shutil.move(project, moved)
    result = cli("outdated", "--lock", str(moved / "skillsite-lock.json"), "--json")
    assert result.exit_code == 0, result.output
    assert [(s["id"], s["status"], s["wanted"], s["latest"]) for s in json.loads(result.output)] == [
        ("lib", "newer-out-of-range", "1.0.0", "1.1.0"), ("tools/base", "newer-out-of-range", "0.3.1", "0.4.0")]
    result = cli("update", "--lock", str(moved / "skillsite-lock.json"))
    assert result.exit_code == 0 and result.output == "lib: 1.0.0, up to date\n"
