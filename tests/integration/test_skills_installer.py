"""The real `skills` installer from npm lists (and installs) a catalog built here and served on 127.0.0.1."""
from __future__ import annotations

import json
import shutil
import sys

import pytest

from support import EXAMPLES, REPO, serve_folder
from skillsite.publish.build import build

sys.path.insert(0, str(REPO / "tests" / "js"))
import skills_installer  # noqa: E402


@pytest.fixture(scope="module")
def served_site(tmp_path_factory):
    reason = skills_installer.unavailable_reason()
    if reason:
        pytest.skip(reason)
    out = tmp_path_factory.mktemp("installer") / "site"
    assert build([EXAMPLES], out).ok
    base, stop = serve_folder(out)
    yield out, base
    stop()


def test_installer_lists_every_skill_of_the_discovery_index(served_site):
    out, base = served_site
    index = json.loads((out / ".well-known/agent-skills/index.json").read_text())
    expected = sorted(s["name"] for s in index["skills"])
    assert len(expected) == 13
    code, output = skills_installer.list_skills_with_installer(base)
    assert code == 0, output
    assert sorted(skills_installer.listed_skill_names(output)) == expected


def test_installer_installs_archives_with_their_files(served_site, tmp_path):
    out, base = served_site
    code, output = skills_installer.install_skills_with_installer(base, str(tmp_path))
    assert code == 0, output
    installed = tmp_path / ".claude" / "skills"
    review = installed / "code-review"
    assert (review / "SKILL.md").read_bytes() == (out / "skills/code-review/SKILL.md").read_bytes()
    manifest = json.loads((out / "skills.json").read_text())
    entry = next(e for e in manifest["skills"] if e["id"] == "code-review")
    assert sorted(str(p.relative_to(review)) for p in review.rglob("*") if p.is_file()) == sorted(
        ["SKILL.md"] + [f["path"] for f in entry["files"]])


def test_an_older_installer_path_reads_the_legacy_index_and_its_files(served_site, tmp_path):
    """With no v0.2 index (as on a host that predates it), the installer falls back to
    .well-known/skills/index.json (v0.1) and fetches each listed file."""
    out, _ = served_site
    legacy_only = tmp_path / "site"
    shutil.copytree(out, legacy_only)
    shutil.rmtree(legacy_only / ".well-known/agent-skills")
    base, stop = serve_folder(legacy_only)
    try:
        code, output = skills_installer.list_skills_with_installer(base)
        assert code == 0, output
        legacy = json.loads((out / ".well-known/skills/index.json").read_text())
        assert sorted(skills_installer.listed_skill_names(output)) == sorted(s["name"] for s in legacy["skills"])
        code, output = skills_installer.install_skills_with_installer(base, str(tmp_path / "project"))
        assert code == 0, output
        review = tmp_path / "project/.claude/skills/code-review"
        assert (review / "references/security.md").read_bytes() == (
            out / "skills/code-review/references/security.md").read_bytes()
    finally:
        stop()


def test_an_older_installer_release_reads_the_legacy_index(served_site):
    """skills 1.3.9 predates the v0.2 index: it reads .well-known/skills/index.json only."""
    out, base = served_site
    source = skills_installer.LEGACY_INSTALLER_CLI.parent.parent.joinpath("dist", "cli.mjs").read_text("utf-8")
    assert "well-known/skills" in source and "well-known/agent-skills" not in source
    code, output = skills_installer.run_installer(["add", base, "--list"], cli=skills_installer.LEGACY_INSTALLER_CLI)
    assert code == 0, output
    legacy = json.loads((out / ".well-known/skills/index.json").read_text())
    assert sorted(skills_installer.listed_skill_names(output)) == sorted(s["name"] for s in legacy["skills"])


def test_the_installer_reads_the_marketplace_of_a_site_folder(served_site):
    """A site folder (a checkout of the published branch) is a plugin marketplace: the installer
    finds every skill the marketplace lists, nested ones too, under the plugin's name."""
    out, _ = served_site
    code, output = skills_installer.run_installer(["add", str(out), "--list"])
    assert code == 0, output
    market = json.loads((out / ".claude-plugin/marketplace.json").read_text())
    assert "Found 13 skills" in output
    assert market["plugins"][0]["name"].replace("-", " ").title() in output
    assert {"changelog", "version-bump", "prerelease"} <= set(skills_installer.listed_skill_names(output))


@pytest.mark.parametrize("name", ["and-then..md", "tab\tname.md", "line\nbreak.md"],
                         ids=["two-dots", "tab", "line-feed"])  # a last space is never published (SK020)
def test_a_file_name_the_installer_cannot_fetch_leaves_only_its_skill_out_of_the_legacy_index(tmp_path, name):
    """Installers refuse a whole v0.1 index when one file path holds '..' (every skill was lost),
    and Node's URL parser drops a tab or line end and a trailing space from the URL it joins (the
    file asked for is another one, a 404): that skill is left out of it (SK014), the others stay
    installable."""
    from support import write_skill

    reason = skills_installer.unavailable_reason()
    if reason:
        pytest.skip(reason)
    src = tmp_path / "src"
    write_skill(src, "alpha", description="Does the first thing. Use when testing alpha.")
    beta = write_skill(src, "beta", description="Does the second thing. Use when testing beta.")
    (beta / "references").mkdir()
    (beta / "references" / name).write_text("More.\n")
    out = tmp_path / "site"
    result = build([src], out)
    assert result.ok and any(d.code == "SK014" for d in result.diagnostics)
    shutil.rmtree(out / ".well-known/agent-skills")  # an installer falls back to the legacy index
    base, stop = serve_folder(out)
    try:
        code, output = skills_installer.list_skills_with_installer(base)
    finally:
        stop()
    assert code == 0, output
    assert skills_installer.listed_skill_names(output) == ["alpha"]


def test_the_index_lists_no_skill_the_installer_skips_for_its_strict_yaml(tmp_path):
    """npx skills reads frontmatter strictly, with YAML 1.2: an unquoted ': ', a key written twice,
    ``name: 123``, no name, a first line other than '---', a description over 1,024 UTF-16 units
    make it skip the skill silently.  skillsite reads them leniently, and leaves them out of the
    index with SK016, so the index lists what the installer offers.  A line starting '---' inside
    ends the frontmatter for both (here before the description: the skill is left out, SK201, and SK115 says so)."""
    reason = skills_installer.unavailable_reason()
    if reason:
        pytest.skip(reason)
    fronts = {"plain": "name: plain\ndescription: Fine", "colon": "name: colon\ndescription: Use this: when asked",
              "twice": "name: twice\ndescription: One\ndescription: Two", "number": "name: 123\ndescription: Digits",
              "quoted": "name: '456'\ndescription: Quoted digits",
              "meta": "name: meta\ndescription: d\nmetadata:\n  n: 1", "tagged": "name: tagged\ndescription: !!str 789",
              "date": "name: date\ndescription: !!timestamp 2020-01-01",
              "noname": "description: Only a description", "dashes": "name: dashes\n---x: y\ndescription: d",
              "emoji": "name: emoji\ndescription: " + "a" * 1023 + "\U0001F600", "crlf": "name: crlf\r\ndescription: d"}
    for folder, front in fronts.items():
        (tmp_path / "src" / folder).mkdir(parents=True)
        (tmp_path / "src" / folder / "SKILL.md").write_bytes(f"---\n{front}\n---\n# {folder}\n".encode())
    (tmp_path / "src/spaces").mkdir()
    (tmp_path / "src/spaces/SKILL.md").write_text("---  \nname: spaces\ndescription: d\n---\n# x\n", encoding="utf-8")
    result = build([tmp_path / "src"], tmp_path / "site", keep_going=True)
    assert sorted(d.path.split("/")[-2] for d in result.diagnostics if d.code == "SK016") == [
        "colon", "date", "emoji", "noname", "number", "spaces", "twice"]
    assert sorted(d.code for d in result.diagnostics if d.path.split("/")[-2] == "dashes") == ["SK115", "SK201"]
    index = json.loads((tmp_path / "site/.well-known/agent-skills/index.json").read_text())
    assert sorted(s["name"] for s in index["skills"]) == ["456", "crlf", "meta", "plain", "tagged"]
    base, stop = serve_folder(tmp_path / "site")
    try:
        code, output = skills_installer.list_skills_with_installer(base)
    finally:
        stop()
    assert code == 0, output
    assert sorted(skills_installer.listed_skill_names(output)) == ["456", "crlf", "meta", "plain", "tagged"]


def test_the_installer_gets_a_path_too_long_for_a_tar_header_whole_from_a_zip(tmp_path):
    """A bundled path too long for a USTAR header (SK010) makes its skill's archive a .zip: skills
    1.7.4 reads no pax header (a .tar.gz would have it install that file under the first 100 bytes of
    its path) but reads a zip's names whole.  Every file comes out whole, a non-ASCII name among them;
    a skill beside it keeps its .tar.gz and comes out whole too."""
    from support import write_skill

    reason = skills_installer.unavailable_reason()
    if reason:
        pytest.skip(reason)
    skill = write_skill(tmp_path / "src", "apis", description="Calls APIs. Use when testing long paths.")
    long = ("references/operations/deleteApiV4ProjectsIdPackagesConanV2ConansPackageNamePackageVersion"
            "PackageUsernamePackageChannelRevisionsRecipeRevision.md")
    (skill / long).parent.mkdir(parents=True)
    (skill / long).write_text("Delete a revision.\n")
    (skill / "references/caf\u00e9.md").write_text("Accents.\n")
    short = write_skill(tmp_path / "src", "short", description="Short paths. Use when testing tar archives.")
    (short / "notes.md").write_text("Notes.\n")
    result = build([tmp_path / "src"], tmp_path / "site")
    assert result.ok and [d.code for d in result.diagnostics] == ["SK010"]
    index = json.loads((tmp_path / "site/.well-known/agent-skills/index.json").read_text())
    assert [s["url"] for s in index["skills"]] == ["archives/apis.zip", "archives/short.tar.gz"]
    base, stop = serve_folder(tmp_path / "site")
    try:
        code, output = skills_installer.install_skills_with_installer(base, str(tmp_path / "project"))
    finally:
        stop()
    assert code == 0, output
    for name, source in (("apis", skill), ("short", short)):
        installed = tmp_path / "project/.claude/skills" / name
        got = {str(p.relative_to(installed)): p.read_bytes() for p in installed.rglob("*") if p.is_file()}
        assert got == {str(p.relative_to(source)): p.read_bytes() for p in source.rglob("*") if p.is_file()}
    assert (tmp_path / "project/.claude/skills/apis" / long).read_text() == "Delete a revision.\n"
