"""``skillsite build`` of a git repository with releases: versions.json, the release folders
(byte for byte the files of their commits), the release digest, the manifest's versions_url,
and rebuilds that give the same bytes as a cold build."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from git_repo import GitRepo, skill_md
from skillsite.agent.entry import ManifestEntry
from skillsite.agent.release_digest import release_digest_of_bytes
from skillsite.cli import main
from skillsite.publish.build import build as api_build
from support import tree_bytes


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    """Skill ``a`` released as 1.0.0, 1.1.0 (tagged), then 2.0.0 with a script; ``b`` unversioned."""
    repo = GitRepo(tmp_path / "repo")
    repo.write("skills/a/SKILL.md", skill_md("a", "1.0.0"))
    repo.write("skills/a/ref.md", "# Reference\n\nFirst words.\n")
    repo.write("skills/b/SKILL.md", skill_md("b", None).replace("does one thing well", "writes short poems"))
    repo.commit("a 1.0.0")
    repo.write("skills/a/SKILL.md", skill_md("a", "1.1.0", body="Do the thing <carefully> & well."))
    repo.write("skills/a/ref.md", "# Reference\n\nSecond words.\n")
    tagged = repo.commit("a 1.1.0")
    repo.git("tag", "a--v1.1.0", tagged)
    repo.write("skills/a/ref.md", "# Reference\n\nThird words, after the tag.\n")
    repo.commit("a 1.1.0 again, not bumped (the tag keeps the release)")
    repo.write("skills/a/SKILL.md", skill_md("a", "2.0.0", body="Run scripts/go.sh."))
    repo.write("skills/a/scripts/go.sh", "echo go\n")
    repo.commit("a 2.0.0")
    return repo


def build(repo: GitRepo, out: Path, *more: str) -> None:
    result = CliRunner().invoke(main, ["build", str(repo.path / "skills"), "-o", str(out), "-q", "-j", "1", *more],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output


def test_versions_json_and_release_folders(repo: GitRepo, tmp_path: Path) -> None:
    out = tmp_path / "site"
    build(repo, out, "--no-cache")
    versions = json.loads((out / "skills/a/versions.json").read_text(encoding="utf-8"))
    assert versions["latest"] == "2.0.0"
    assert versions["versions"] == ["1.0.0", "1.1.0", "2.0.0"]
    assert list(versions["releases"]) == ["1.0.0", "1.1.0", "2.0.0"]
    tag_commit = repo.git("rev-list", "-n", "1", "a--v1.1.0")
    head = repo.git("rev-parse", "HEAD")
    assert versions["releases"]["1.1.0"]["commit"] == tag_commit
    assert versions["releases"]["2.0.0"]["commit"] == head
    for version, release in versions["releases"].items():
        assert release["url"] == f"skills/a/versions/{version}/"
        assert release["dependencies"] == []
        folder = out / release["url"]
        published = {f["path"]: (folder / f["path"]).read_bytes() for f in release["files"]}
        assert release["files"][0]["path"] == "SKILL.md"
        for f in release["files"]:
            data = published[f["path"]]
            assert (hashlib.sha256(data).hexdigest(), len(data)) == (f["sha256"], f["size"])
            assert data == repo.show(release["commit"], f"skills/a/{f['path']}")
        assert release["digest"] == release_digest_of_bytes(published.items())
        assert (folder / "skill.xml").is_file()
        assert sorted(p.name for p in folder.rglob("*") if p.is_file()) == sorted(
            [*(Path(p).name for p in published), "skill.xml"])
    assert (out / "skills/a/versions/1.1.0/ref.md").read_text(encoding="utf-8").endswith("Second words.\n")
    old_xml = (out / "skills/a/versions/1.1.0/skill.xml").read_text(encoding="utf-8")
    assert "Do the thing &lt;carefully&gt; &amp; well." in old_xml and "<file>ref.md</file>" in old_xml
    current = out / "skills/a/versions/2.0.0"
    for name in ("SKILL.md", "skill.xml", "scripts/go.sh", "ref.md"):
        assert (current / name).read_bytes() == (out / "skills/a" / name).read_bytes()
    assert not (out / "skills/b/versions.json").exists() and not (out / "skills/b/versions").exists()


def test_manifest_entry_and_skill_page(repo: GitRepo, tmp_path: Path) -> None:
    out = tmp_path / "site"
    build(repo, out, "--no-cache")
    manifest = json.loads((out / "skills.json").read_text(encoding="utf-8"))
    entries = {e["id"]: e for e in manifest["skills"]}
    assert entries["a"]["versions_url"] == "skills/a/versions.json"
    assert "versions_url" not in entries["b"]
    assert ManifestEntry.from_json(entries["a"]).versions_url == "skills/a/versions.json"
    assert ManifestEntry.from_json(entries["a"]).to_json() == entries["a"]
    page = (out / "skills/a/index.html").read_text(encoding="utf-8")
    links = [page.index(f'href="versions/{v}/SKILL.md"') for v in ("2.0.0", "1.1.0", "1.0.0")]
    assert links == sorted(links)  # newest first
    assert "versions/" not in (out / "skills/b/index.html").read_text(encoding="utf-8")


def test_rebuilds_give_the_bytes_of_a_cold_build(repo: GitRepo, tmp_path: Path) -> None:
    cold = tmp_path / "cold"
    build(repo, cold, "--no-cache")
    warm, cache = tmp_path / "warm", tmp_path / "cache"
    build(repo, warm, "--cache-dir", str(cache))
    build(repo, warm, "--cache-dir", str(cache))
    assert tree_bytes(warm) == tree_bytes(cold)
    # a new release: the rebuild adds it and keeps the others as they were
    repo.write("skills/a/SKILL.md", skill_md("a", "2.1.0", body="Run scripts/go.sh twice."))
    repo.commit("a 2.1.0")
    build(repo, warm, "--cache-dir", str(cache))
    shutil.rmtree(cold)
    build(repo, cold, "--no-cache")
    assert tree_bytes(warm) == tree_bytes(cold)
    versions = json.loads((warm / "skills/a/versions.json").read_text(encoding="utf-8"))
    assert versions["versions"] == ["1.0.0", "1.1.0", "2.0.0", "2.1.0"]
    assert versions["releases"]["2.0.0"]["commit"] != versions["releases"]["2.1.0"]["commit"]


def age(folder: Path) -> None:
    """Every file an hour old: a rebuild may then find nothing changed and stop after discovery."""
    when = time.time() - 3600
    for path in folder.rglob("*"):
        os.utime(path, (when, when), follow_symlinks=False)


def test_a_tag_alone_makes_a_rebuild_publish_again(repo: GitRepo, tmp_path: Path) -> None:
    out, cache = tmp_path / "site", tmp_path / "cache"
    age(repo.path / "skills")
    assert api_build([repo.path / "skills"], out, cache_dir=cache, jobs=1).ok
    unchanged = api_build([repo.path / "skills"], out, cache_dir=cache, jobs=1)
    assert "read" not in unchanged.stages  # nothing changed: the no-op rebuild
    oldest = repo.git("rev-list", "--max-parents=0", "HEAD")
    repo.git("tag", "a--v1.0.0", oldest)
    tagged = api_build([repo.path / "skills"], out, cache_dir=cache, jobs=1)
    assert "read" in tagged.stages
    versions = json.loads((out / "skills/a/versions.json").read_text(encoding="utf-8"))
    assert versions["releases"]["1.0.0"]["commit"] == oldest


def test_a_tag_on_another_version_or_outside_head_is_refused_with_sk230(repo: GitRepo, tmp_path: Path) -> None:
    """A tag is a name anyone can put on any commit: it publishes a release only where the
    SKILL.md carries its version, in HEAD's history."""
    oldest = repo.git("rev-list", "--max-parents=0", "HEAD")  # a 1.0.0
    repo.git("tag", "a--v9.9.9", oldest)
    repo.git("checkout", "-q", "-b", "side")
    repo.write("skills/a/SKILL.md", skill_md("a", "3.0.0"))
    repo.git("tag", "a--v3.0.0", repo.commit("a 3.0.0, on a branch not built"))
    repo.git("checkout", "-q", "main")
    result = CliRunner().invoke(main, ["build", str(repo.path / "skills"), "-o", str(tmp_path / "site"), "-q",
                                       "--no-cache"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    versions = json.loads((tmp_path / "site/skills/a/versions.json").read_text(encoding="utf-8"))
    assert versions["versions"] == ["1.0.0", "1.1.0", "2.0.0"]
    assert "warning SK230 tag a--v9.9.9 is on a commit whose SKILL.md carries version 1.0.0" in result.output
    assert "warning SK230 tag a--v3.0.0 is on a commit outside the history of HEAD" in result.output
    assert "a--v1.1.0" not in result.output  # the fixture's tag names its release's own commit


def test_a_change_without_bump_warns_and_strict_fails(repo: GitRepo, tmp_path: Path) -> None:
    repo.write("skills/a/scripts/go.sh", "echo gone\n")
    result = CliRunner().invoke(main, ["build", str(repo.path / "skills"), "-o", str(tmp_path / "site"), "-q",
                                       "--no-cache", "--strict"], catch_exceptions=False)
    assert result.exit_code == 1
    assert "SK222" in result.output
    assert not (tmp_path / "site").exists()


def test_files_never_published_change_no_release(repo: GitRepo, tmp_path: Path) -> None:
    """What running a script leaves (``__pycache__``, ``node_modules``), untracked, and a committed
    change to a file ``--exclude`` leaves out: the published files are the release's, so no SK222."""
    repo.write("skills/a/draft.svg", "<svg/>")
    repo.commit("a draft, excluded from the catalog (no version bump)")
    repo.write("skills/a/scripts/__pycache__/go.cpython-311.pyc", "compiled")
    repo.write("skills/a/node_modules/left-pad/index.js", "module.exports = 1;")
    result = CliRunner().invoke(main, ["build", str(repo.path / "skills"), "-o", str(tmp_path / "site"), "-q",
                                       "--no-cache", "--strict", "--exclude", "*.svg"], catch_exceptions=False)
    assert result.exit_code == 0 and "SK222" not in result.output, result.output
    repo.write("skills/a/scripts/go.sh", "echo changed\n")  # a published file: SK222 still
    changed = CliRunner().invoke(main, ["build", str(repo.path / "skills"), "-o", str(tmp_path / "site2"), "-q",
                                        "--no-cache", "--exclude", "*.svg"], catch_exceptions=False)
    assert "SK222" in changed.output


def test_renaming_skill_md_to_upper_case_keeps_the_releases(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("skills/a/skill.md", skill_md("a", "1.0.0"))
    repo.commit("a 1.0.0, as skill.md")
    repo.git("mv", "skills/a/skill.md", "skills/a/SKILL.md")
    repo.write("skills/a/SKILL.md", skill_md("a", "1.1.0"))
    repo.commit("a 1.1.0, as SKILL.md")
    out = tmp_path / "site"
    build(repo, out, "--no-cache")
    versions = json.loads((out / "skills/a/versions.json").read_text(encoding="utf-8"))
    assert versions["versions"] == ["1.0.0", "1.1.0"]
    assert (out / "skills/a/versions/1.0.0/SKILL.md").read_bytes() == repo.show(repo.git("rev-parse", "HEAD~1"),
                                                                                "skills/a/skill.md")


def test_a_versioned_skill_cannot_bundle_the_catalogs_versions_files(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("skills/a/SKILL.md", skill_md("a", "1.0.0"))
    repo.write("skills/a/versions.json", '{"latest": "9.9.9"}\n')
    repo.write("skills/a/versions/9.9.9/notes.md", "forged\n")
    repo.write("skills/b/SKILL.md", skill_md("b", None).replace("does one thing well", "writes short poems"))
    repo.write("skills/b/versions.json", '{"mine": true}\n')
    repo.commit("a 1.0.0 with look-alike files; b unversioned")
    out = tmp_path / "site"
    result = CliRunner().invoke(main, ["build", str(repo.path / "skills"), "-o", str(out), "-q", "--no-cache"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.output.count("SK009") == 2
    assert json.loads((out / "skills/a/versions.json").read_text(encoding="utf-8"))["latest"] == "1.0.0"
    assert not (out / "skills/a/versions/9.9.9").exists()
    assert (out / "skills/b/versions.json").read_text(encoding="utf-8") == '{"mine": true}\n'


def test_a_past_release_leaves_out_a_file_its_skill_xml_could_not_name(tmp_path: Path) -> None:
    """A past release's fragment lists only files published under that very name (as the current one, SK017)."""
    import xml.etree.ElementTree as ET

    repo = GitRepo(tmp_path / "repo")
    repo.write("skills/a/SKILL.md", skill_md("a", "1.0.0"))
    repo.write("skills/a/sc\x1bript.sh", "echo hi\n")
    repo.write("skills/a/ok.sh", "echo ok\n")
    repo.commit("a 1.0.0")
    repo.write("skills/a/SKILL.md", skill_md("a", "2.0.0"))
    repo.commit("a 2.0.0")
    out = tmp_path / "site"
    build(repo, out, "--no-cache")
    release = out / "skills/a/versions/1.0.0"
    listed = [f.text for f in ET.fromstring((release / "skill.xml").read_bytes()).iter("file")]
    assert listed == ["ok.sh"] and sorted(p.name for p in release.iterdir()) == ["SKILL.md", "ok.sh", "skill.xml"]
    releases = json.loads((out / "skills/a/versions.json").read_text(encoding="utf-8"))["releases"]
    assert [f["path"] for r in releases.values() for f in r["files"]] == ["SKILL.md", "ok.sh"] * 2


@pytest.mark.parametrize("profile, needs", [("default", [{"name": "b", "id": "b", "version": "*", "resolved": None}]),
                                            ("spec", [])])
def test_a_past_release_declares_dependencies_as_its_profile_reads_them(tmp_path: Path, profile: str,
                                                                         needs: list) -> None:
    """A past release's top-level ``depends`` counts outside the spec profile only, as the
    current version's does (under ``spec`` it would have been SK207 when it was current)."""
    repo = GitRepo(tmp_path / "repo")
    repo.write("skills/b/SKILL.md", skill_md("b", None).replace("does one thing well", "writes short poems"))
    repo.write("skills/a/SKILL.md",
               skill_md("a", "1.0.0").replace('version: "1.0.0"\n', 'version: "1.0.0"\ndepends: [b]\n'))
    repo.commit("a 1.0.0 needs b (top-level depends)")
    repo.write("skills/a/SKILL.md", skill_md("a", "2.0.0", key="metadata.version"))
    repo.commit("a 2.0.0 needs nothing")
    (tmp_path / "skillsite.yml").write_text(f"profile: {profile}\n")
    result = CliRunner().invoke(main, ["build", str(repo.path / "skills"), "-o", str(tmp_path / "site"), "-q",
                                       "--no-cache", "--config", str(tmp_path / "skillsite.yml")],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    releases = json.loads((tmp_path / "site/skills/a/versions.json").read_text())["releases"]
    assert releases["1.0.0"]["dependencies"] == needs and releases["2.0.0"]["dependencies"] == []


# ---------------------------------------------------------------- versions.json pinned by its entry


def entries_of(site: Path) -> dict[str, dict]:
    """Every manifest entry by id: those of skills.json, and of a paged catalog's entry files."""
    found = {e["id"]: e for e in json.loads((site / "skills.json").read_text(encoding="utf-8"))["skills"]}
    for path in site.glob("skills/**/entry.json"):
        entry = json.loads(path.read_text(encoding="utf-8"))
        found[entry["id"]] = entry
    return found


@pytest.mark.parametrize("shard_above", ["2000", "1"])
def test_the_entry_names_its_versions_json_by_sha256_and_size(repo: GitRepo, tmp_path: Path, shard_above: str) -> None:
    out = tmp_path / "site"
    (tmp_path / "skillsite.yml").write_text(f"shard_above: {shard_above}\n")
    build(repo, out, "--no-cache", "--config", str(tmp_path / "skillsite.yml"))
    entries = entries_of(out)
    assert (out / "skills/a/entry.json").is_file() == (shard_above == "1")
    data = (out / entries["a"]["versions_url"]).read_bytes()
    assert entries["a"]["versions_url"] == "skills/a/versions.json"
    assert (entries["a"]["versions_sha256"], entries["a"]["versions_bytes"]) == (hashlib.sha256(data).hexdigest(),
                                                                                 len(data))
    assert "versions_sha256" not in entries["b"] and "versions_bytes" not in entries["b"]
    typed = ManifestEntry.from_json(entries["a"])
    assert (typed.versions_sha256, typed.versions_bytes) == (entries["a"]["versions_sha256"], len(data))
    assert typed.to_json() == entries["a"]


def test_a_tag_alone_changes_versions_json_its_entry_and_the_paged_files_as_a_cold_build(repo: GitRepo,
                                                                                           tmp_path: Path) -> None:
    """A tag removed changes versions.json (release 1.1.0 is then the later commit) and nothing
    else the skill is made of: the rebuild gives the entry (in skills.json, its page, its index
    and entry.json) the new digest, byte for byte as a cold build does."""
    repo.write("skills/0-first/SKILL.md", skill_md("0-first", None))   # page 1 (the root): a is on page 2
    repo.commit("a skill before a")
    config = tmp_path / "skillsite.yml"
    config.write_text("shard_above: 1\n")
    warm, cache, cold = tmp_path / "warm", tmp_path / "cache", tmp_path / "cold"
    build(repo, warm, "--cache-dir", str(cache), "--config", str(config))
    before = entries_of(warm)["a"]
    repo.git("tag", "-d", "a--v1.1.0")
    build(repo, warm, "--cache-dir", str(cache), "--config", str(config))
    after = entries_of(warm)["a"]
    data = (warm / "skills/a/versions.json").read_bytes()
    assert after["versions_sha256"] == hashlib.sha256(data).hexdigest() != before["versions_sha256"]
    assert {k: v for k, v in after.items() if not k.startswith("versions_")} == \
        {k: v for k, v in before.items() if not k.startswith("versions_")}
    assert json.loads((warm / "skills.json").read_text(encoding="utf-8"))["skills"][0]["id"] == "0-first"
    build(repo, cold, "--no-cache", "--config", str(config))
    assert tree_bytes(warm) == tree_bytes(cold)


def test_every_release_copy_of_a_page_is_served_sandboxed(tmp_path: Path) -> None:
    """A bundled page is published in the skill's folder and in each release's: every copy,
    an old release's own included, is served sandboxed (a real server applying ``_headers``)."""
    import http.client
    import threading

    from skillsite.publish.serve import make_server

    repo = GitRepo(tmp_path / "repo")
    repo.write("skills/a/SKILL.md", skill_md("a", "1.0.0"))
    repo.write("skills/a/assets/old.html", "<script>alert(1)</script>")
    repo.commit("a 1.0.0")
    repo.write("skills/a/SKILL.md", skill_md("a", "1.1.0"))
    (repo.path / "skills/a/assets/old.html").unlink()
    repo.write("skills/a/assets/feed.xpdl", "<x:html xmlns:x='http://www.w3.org/1999/xhtml'><x:script/></x:html>")
    repo.commit("a 1.1.0")
    out = tmp_path / "site"
    build(repo, out)
    server = make_server(out)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        for path in ("skills/a/versions/1.0.0/assets/old.html", "skills/a/versions/1.1.0/assets/feed.xpdl",
                     "skills/a/assets/feed.xpdl"):
            connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=30)
            connection.request("GET", "/" + path)
            response = connection.getresponse()
            response.read()
            connection.close()
            assert (path, response.status) == (path, 200)
            assert response.getheader("Content-Security-Policy", "").startswith("sandbox"), path
    finally:
        server.shutdown()


def test_a_release_never_publishes_a_version_control_folder_however_spelt(tmp_path: Path) -> None:
    """A past release committed ``.HG/hgrc`` or ``.g<ZWNJ>it/config``: discovery leaves such a
    folder out of the work tree, and a release from git history must too (the loader refuses the
    path, so one such release made every release of the skill uninstallable)."""
    from skillsite.loader import Catalog

    repo = GitRepo(tmp_path / "repo")
    repo.write("skills/a/SKILL.md", skill_md("a", "1.0.0"))
    repo.write("skills/a/.HG/hgrc", "[hooks]\npre-status = touch /tmp/pwned\n")
    repo.write("skills/a/.g\u200cit/config", "[core]\nfsmonitor = touch /tmp/pwned\n")
    repo.write("skills/a/notes/kept.md", "kept\n")
    repo.commit("a 1.0.0")
    repo.write("skills/a/SKILL.md", skill_md("a", "1.1.0"))
    repo.commit("a 1.1.0")
    out = tmp_path / "site"
    assert api_build([repo.path / "skills"], out, jobs=1).ok
    releases = json.loads((out / "skills/a/versions.json").read_text())["releases"]
    assert {v: [f["path"] for f in r["files"]] for v, r in releases.items()} == {
        "1.0.0": ["SKILL.md", "notes/kept.md"], "1.1.0": ["SKILL.md", "notes/kept.md"]}
    dest = Catalog.open(str(out)).install("a", tmp_path / "dest", version="1.0.0")
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()) == [
        "SKILL.md", "notes/kept.md"]


def test_a_dependency_kept_at_an_older_release_keeps_its_nested_skills_and_their_record(tmp_path: Path) -> None:
    """lib 1.1.0 installed (the latest then: its nested skill sub with it), 1.2.0 published, then
    app installed needing lib@~1.1: lib's folder already holds 1.1.0 and is kept, sub included
    (an older release is planned without nested skills), and the lock still records sub."""
    from skillsite.loader import Catalog

    def md(name: str, extra: str = "") -> str:
        return f"---\nname: {name}\ndescription: Does {name} things. Use when testing.\n{extra}---\n# {name}\n"

    repo = GitRepo(tmp_path / "repo")
    repo.write("skills/lib/SKILL.md", md("lib", "version: '1.1.0'\n"))
    repo.write("skills/lib/sub/SKILL.md", md("sub"))
    repo.write("skills/app/SKILL.md", md("app", "version: '1.0.0'\ndepends:\n  - 'lib@~1.1'\n"))
    repo.commit("c1")
    site, project = tmp_path / "site", tmp_path / "project"
    assert api_build([repo.path / "skills"], site, jobs=1).ok
    lock = project / "skillsite-lock.json"
    Catalog.open(str(site)).install("lib", project / "skills" / "lib", lock=str(lock))
    recorded = json.loads(lock.read_text())["skills"]["lib"]
    assert recorded["nested_digest"].startswith("sha256:")
    repo.write("skills/lib/SKILL.md", md("lib", "version: '1.2.0'\n"))
    repo.commit("c2")
    assert api_build([repo.path / "skills"], site, jobs=1).ok
    Catalog.open(str(site)).install("app", project / "skills" / "app", lock=str(lock))
    assert (project / "skills" / "lib" / "sub" / "SKILL.md").is_file()
    assert json.loads(lock.read_text())["skills"]["lib"] == recorded


def test_a_past_release_s_fragment_reads_its_files_from_the_release_s_folder(repo: GitRepo, tmp_path: Path) -> None:
    """A past release's skill.xml gave the skill's own folder as its <base_url>: a file the release
    had and the current version dropped was a 404 there, one both have the current content.  It
    gives the release's folder, as the loader's load(id, version=...) does."""
    import re

    from skillsite.loader import Catalog

    out = tmp_path / "site"
    build(repo, out, "--no-cache")
    for version in ("1.0.0", "1.1.0"):
        xml = (out / f"skills/a/versions/{version}/skill.xml").read_text(encoding="utf-8")
        base = re.search(r"<base_url>(.*?)</base_url>", xml).group(1)
        assert base.endswith(f"skills/a/versions/{version}/"), base
        loaded = re.search(r"<base_url>(.*?)</base_url>", Catalog.open(out).load("a", version).xml).group(1)
        assert loaded.endswith(base), (loaded, base)


def test_a_past_release_s_fragment_is_the_one_the_loader_gives(tmp_path: Path) -> None:
    """A past release's skill.xml had no <knowledge> block and no <sub_skills>, and named the skill
    as the release's frontmatter did, where the loader's load(id, version=...) gives the skill's
    knowledge documents, sub-skills and name as published today: an agent reading the published
    fragment did not learn of the documents.  Both now give the same fragment, but for where its
    URLs start (the loader's: where it read the catalog; the build's: the site, relative)."""
    from skillsite.loader import Catalog

    repo = GitRepo(tmp_path / "repo")
    repo.write("skills/knowledge/guide.md", "# The team's guide\n\nRead me first.\n")
    with_guide = skill_md("a", "1.0.0", body="Old steps.").replace("---\n\n#", "knowledge:\n  - guide.md\n---\n\n#", 1)
    repo.write("skills/a/SKILL.md", with_guide.replace("name: a", "name: a-then"))
    repo.write("skills/a/child/SKILL.md", skill_md("child", None))
    repo.commit("a 1.0.0")
    repo.write("skills/a/SKILL.md", with_guide.replace("1.0.0", "2.0.0").replace("Old steps.", "New steps."))
    repo.commit("a 2.0.0")
    out = tmp_path / "site"
    build(repo, out, "--no-cache")
    published = (out / "skills/a/versions/1.0.0/skill.xml").read_text(encoding="utf-8")
    loaded = Catalog.open(out).load("a", "1.0.0").xml
    assert published == loaded.replace(f"{out.resolve().as_posix()}/", "")
    assert "Old steps." in published and 'name="a"' in published and "<knowledge>" in published, published
    assert "guide.md" in published and 'id="a/child"' in published, published


def test_a_past_release_over_max_bytes_is_no_release_and_a_cached_build_with_another_is_a_cold_one(
        tmp_path: Path) -> None:
    """``max_bytes`` bounds every SKILL.md a build reads, a past release's too: a release whose
    SKILL.md is over it is not one (its fragment would have no body).  The release history and
    the fragments are cached without it: a build that changes ``max_bytes`` over a cache equals a
    cold build with it, byte for byte, each way."""
    from skillsite.config import SiteConfig

    repo = GitRepo(tmp_path / "repo")
    long_body = "Old steps, at length.\n" * 200 + "The last old step."
    repo.write("skills/a/SKILL.md", skill_md("a", "1.0.0", body=long_body))
    repo.commit("a 1.0.0")
    repo.write("skills/a/SKILL.md", skill_md("a", "2.0.0", body="New steps."))
    repo.commit("a 2.0.0")
    out, cache = tmp_path / "site", tmp_path / "cache"
    for max_bytes in (SiteConfig().max_bytes, 2048, SiteConfig().max_bytes):
        config = SiteConfig(max_bytes=max_bytes)
        assert api_build([repo.path / "skills"], out, config, cache_dir=cache, jobs=1).ok
        cold = tmp_path / f"cold-{max_bytes}"
        assert api_build([repo.path / "skills"], cold, config, cache_dir=None, jobs=1).ok
        assert tree_bytes(out) == tree_bytes(cold), max_bytes
        versions = json.loads((out / "skills/a/versions.json").read_text(encoding="utf-8"))["versions"]
        assert versions == (["2.0.0"] if max_bytes == 2048 else ["1.0.0", "2.0.0"]), (max_bytes, versions)
        past = out / "skills/a/versions/1.0.0/skill.xml"
        assert max_bytes == 2048 or "The last old step." in past.read_text(encoding="utf-8")
