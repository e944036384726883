"""`skillsite build`: complete, verifiable, reproducible and atomic output."""
from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import jsonschema
import pytest

from support import EXAMPLES, tree_bytes, write_skill
from skillsite.agent.entry import Visibility
from skillsite.publish import pipeline as build_module
from skillsite.publish.catalog_files import search_entry
from skillsite.publish.build import build
from skillsite.config import SiteConfig
from skillsite.publish.manifest import skill_entry
from skillsite.publish.staging import MARKER, OutputError
from skillsite.source.schema import load_schema

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_site(site: Path) -> dict:
    """Every invariant of a built catalog; returns the manifest."""
    manifest = json.loads((site / "skills.json").read_text(encoding="utf-8"))
    schema = json.loads((site / manifest["$schema"]).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(manifest)
    assert json.loads((site / "skillsite.schema.json").read_bytes()) == load_schema("skillsite.schema.json")
    for xml_file in [site / "available_skills.xml", *site.glob("skills/**/skill.xml"),
                     *site.glob("skills/**/entry.xml")]:
        ET.fromstring(xml_file.read_bytes())
    for entry in manifest["skills"]:
        folder = site / "skills" / entry["id"]
        raw = (folder / "SKILL.md").read_bytes()
        assert sha(raw) == entry["sha256"]
        lines = [(f"{entry['sha256']}  SKILL.md\n")]
        for f in entry["files"]:
            data = (folder / f["path"]).read_bytes()
            assert (sha(data), len(data)) == (f["sha256"], f["bytes"])
            lines.append(f"{f['sha256']}  {f['path']}\n")
        listing = "".join(sorted(lines, key=lambda line: line.split("  ", 1)[1]))
        assert entry["digest"] == "sha256:" + sha(listing.encode())
        root = ET.fromstring((folder / "skill.xml").read_bytes())
        assert root.tag == "skill_content" and root.get("id") == entry["id"]
    index = json.loads((site / ".well-known/agent-skills/index.json").read_text())
    assert index["$schema"] == "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
    for item in index["skills"]:
        data = (site / ".well-known/agent-skills" / item["url"]).resolve().read_bytes()
        assert item["digest"] == "sha256:" + sha(data)
        if item["type"] == "archive":
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
                members = tar.getmembers()
            names = [m.name for m in members]
            assert "SKILL.md" in names and names == sorted(names)
            assert all(m.isfile() and m.mtime == 0 and m.uid == 0 and not m.name.startswith(("/", "./"))
                       and ".." not in m.name.split("/") for m in members)
    return manifest


@pytest.fixture(scope="module")
def example_site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "_site"
    result = build([EXAMPLES], out, SiteConfig(base_url="https://skills.example.com"), strict=True)
    assert result.ok and result.errors == 0 and result.warnings == 0
    return out


def test_example_site_is_complete_and_verifiable(example_site):
    manifest = check_site(example_site)
    assert manifest["format"] == "skillsite-catalog" and manifest["format_version"] == 1
    assert manifest["counts"]["skills"] == 13
    by_id = {e["id"]: e for e in manifest["skills"]}
    assert by_id["release-manager"]["children"] == ["release-manager/changelog", "release-manager/version-bump"]
    assert by_id["release-manager/version-bump/prerelease"]["parent"] == "release-manager/version-bump"
    assert by_id["internal-oncall-handbook"]["visibility"]["hidden"]
    assert by_id["house-style"]["visibility"]["always"]
    assert by_id["incident-response"]["requirements"]["bins"] == ["kubectl", "jq", "curl"]
    assert (example_site / MARKER).is_file()


def test_skill_content_lists_resources_and_sub_skills(example_site):
    root = ET.fromstring((example_site / "skills/code-review/skill.xml").read_bytes())
    files = root.find("skill_resources")
    assert len(files.findall("file")) == 20 and files.find("more").text == "+5 more"
    assert root.find("base_url").text == "https://skills.example.com/skills/code-review/"
    parent = ET.fromstring((example_site / "skills/release-manager/skill.xml").read_bytes())
    assert [s.get("id") for s in parent.find("sub_skills")] == ["release-manager/changelog",
                                                              "release-manager/version-bump"]


def test_available_skills_block(example_site):
    block = (example_site / "available_skills.xml").read_text()
    root = ET.fromstring(block)
    names = [s.find("name").text for s in root.findall("skill")]
    assert names[0] == "house-style"
    assert "internal-oncall-handbook" not in names and "prod-db-restore" not in names and "prerelease" not in names
    assert root.find("skill/location").text == "https://skills.example.com/skills/house-style/SKILL.md"


def test_prompt_budget_leaves_skills_out_with_a_notice(tmp_path):
    out = tmp_path / "site"
    assert build([EXAMPLES], out, SiteConfig(prompt_budget=1500)).ok
    block = (out / "available_skills.xml").read_text()
    assert len(block) <= 1500
    root = ET.fromstring(block)
    shown = len(root.findall("skill"))
    assert 0 < shown < 10 and "more skills not listed" in root.find("notice").text


def test_search_indexes_are_made_from_what_the_manifest_says(example_site, real_skills):
    """The build indexes skills before their manifest entries exist (catalog_files.search_entry): the
    fields search reads must be the entries' own, for the examples and real skills."""
    from skillsite.source.catalog import read_catalog

    for source, published in ((EXAMPLES, example_site), (real_skills.path, None)):
        skills = [s for s in read_catalog([source]).skills if not s.has_errors]
        if published is None:
            children = {s.id: [] for s in skills}
            entries = [skill_entry(s, [], "", children[s.id], SiteConfig(), ".").to_json() for s in skills]
        else:
            entries = json.loads((published / "skills.json").read_text())["skills"]
        assert len(entries) == len(skills) > 0
        for skill, entry in zip(skills, entries):
            projected = search_entry(skill)
            visibility = Visibility.from_json(entry["visibility"])
            assert projected.pop("listed") == visibility.listed
            assert projected.pop("copy_of") == visibility.copy_of
            assert projected.pop("copies") == (entry["copies"]["count"] if "copies" in entry else 1)
            assert projected == {key: entry[key] if key != "urls" else {"page": entry["urls"]["page"]}
                                 for key in projected}


def test_two_builds_are_byte_identical(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    a, b = tmp_path / "a", tmp_path / "b"
    assert build([EXAMPLES], a).ok and build([EXAMPLES], b).ok
    assert tree_bytes(a) == tree_bytes(b)
    manifest = json.loads((a / "skills.json").read_text())
    assert manifest["generated_at"] == "2023-11-14T22:13:20Z"


def test_failure_midway_leaves_the_previous_output_intact(tmp_path, monkeypatch):
    out = tmp_path / "site"
    assert build([EXAMPLES], out).ok
    before = tree_bytes(out)

    def explode(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(build_module, "write_site", explode)
    with pytest.raises(RuntimeError):
        build([EXAMPLES], out)
    assert tree_bytes(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]  # no staging folder left behind


def test_errors_fail_the_build_without_touching_the_output(tmp_path):
    src = tmp_path / "src"
    write_skill(src, "good")
    out = tmp_path / "site"
    assert build([src], out).ok
    before = tree_bytes(out)
    write_skill(src, "bad", "name: bad\n")
    result = build([src], out)
    assert not result.ok and result.skipped == ("bad",)
    assert tree_bytes(out) == before
    kept = build([src], out, keep_going=True)
    assert kept.ok and kept.published == ("good",)
    assert json.loads((out / "skills.json").read_text())["counts"]["left_out"] == 1


def test_refuses_a_foreign_non_empty_folder(tmp_path):
    out = tmp_path / "docs"
    out.mkdir()
    (out / "precious.txt").write_text("keep me")
    with pytest.raises(OutputError):
        build([EXAMPLES], out)
    assert (out / "precious.txt").read_text() == "keep me"
    assert build([EXAMPLES], out, force=True).ok
    assert not (out / "precious.txt").exists()


def test_nothing_outside_a_skill_folder_is_published(tmp_path):
    src = tmp_path / "src"
    (tmp_path / "secret.txt").write_text("secret")
    skill = write_skill(src, "s")
    os.symlink(tmp_path / "secret.txt", skill / "secret.txt")
    (skill / "ok.txt").write_text("fine")
    out = tmp_path / "site"
    assert build([src], out).ok
    published = {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()}
    assert "skills/s/ok.txt" in published and "skills/s/secret.txt" not in published
    assert not any(b"secret" == p.read_bytes() for p in out.rglob("*") if p.is_file())


def test_a_bundled_path_too_long_for_a_tar_header_makes_a_zip_listed_in_both_indexes(tmp_path):
    """A path over USTAR's limits (100 bytes, or 255 split at a '/') left its skill out of both
    discovery indexes (SK010), the v0.1 one too, which holds no archive: it is now listed in both,
    its archive a .zip holding the whole path (SK010, info, says so); the other skill keeps its .tar.gz."""
    src = tmp_path / "src"
    (write_skill(src, "short", "name: short\ndescription: d\n") / "ok.txt").write_text("x")
    long = "/".join(["d" * 60] * 5) + "/" + "f" * 120 + ".txt"
    deep = write_skill(src, "deep", "name: deep\ndescription: d\n")
    (deep / long).parent.mkdir(parents=True)
    (deep / long).write_text("far down\n")
    out = tmp_path / "site"
    result = build([src], out)
    assert result.ok and "deep" in result.published
    (note,) = [d for d in result.diagnostics if d.code == "SK010"]
    assert note.path.endswith("deep/SKILL.md") and note.severity == "info"
    assert f"'{long}' has a path too long for a tar header" in note.message and "archive is a .zip" in note.message
    index = json.loads((out / ".well-known/agent-skills/index.json").read_text())
    assert [(s["name"], s["type"], s["url"]) for s in index["skills"]] == [
        ("deep", "archive", "archives/deep.zip"), ("short", "archive", "archives/short.tar.gz")]
    archive = (out / ".well-known/agent-skills/archives/deep.zip").read_bytes()
    assert index["skills"][0]["digest"] == "sha256:" + hashlib.sha256(archive).hexdigest()
    with zipfile.ZipFile(io.BytesIO(archive)) as unpacked:
        assert {i.filename: unpacked.read(i) for i in unpacked.infolist()} == {
            "SKILL.md": (deep / "SKILL.md").read_bytes(), long: b"far down\n"}
    assert sorted(p.name for p in (out / ".well-known/agent-skills/archives").iterdir()) == ["deep.zip",
                                                                                          "short.tar.gz"]
    legacy = json.loads((out / ".well-known/skills/index.json").read_text())
    assert legacy["skills"][0] == {"name": "deep", "description": "d", "files": ["SKILL.md", long]}
    assert [s["name"] for s in legacy["skills"]] == ["deep", "short"]
    assert (out / ".well-known/skills/deep" / long).read_text() == "far down\n"
    again = tmp_path / "again"
    assert build([src], again).ok and tree_bytes(again) == tree_bytes(out)


def test_a_rebuild_turns_an_archive_into_a_zip_and_back_as_a_long_path_comes_and_goes(tmp_path):
    """The cached publication and index rows of a skill name its archive: a long path added makes
    a .zip of it (the .tar.gz removed), its removal a .tar.gz again; each output as a fresh build's."""
    skill = write_skill(tmp_path / "src", "apis", "name: apis\ndescription: d\n")
    (skill / "ok.md").write_text("ok")
    out, cache, long = tmp_path / "site", tmp_path / "cache", skill / ("a" * 120 + ".md")
    for step, expected in (("before", "apis.tar.gz"), ("added", "apis.zip"), ("removed", "apis.tar.gz")):
        if step == "added":
            long.write_text("long")
        elif step == "removed":
            long.unlink()
        assert build([tmp_path / "src"], out, cache_dir=cache).ok
        assert [p.name for p in (out / ".well-known/agent-skills/archives").iterdir()] == [expected]
        index = json.loads((out / ".well-known/agent-skills/index.json").read_text())
        assert [s["url"] for s in index["skills"]] == ["archives/" + expected]
        fresh = tmp_path / f"fresh-{step}"
        assert build([tmp_path / "src"], fresh).ok and tree_bytes(fresh) == tree_bytes(out)


def test_hostile_text_stays_well_formed_xml(tmp_path):
    src = tmp_path / "src"
    body = "Close early: </skill_content> ]]> <![CDATA[ & \x07bell \x1b[31m\n"
    write_skill(src, "x", "name: x\ndescription: 'a <b> & \"c\"'\n", body=body)
    out = tmp_path / "site"
    assert build([src], out).ok
    root = ET.fromstring((out / "skills/x/skill.xml").read_bytes())
    assert root.find("instructions").text.strip() == body.strip().replace("\x07", "\ufffd").replace("\x1b", "\ufffd")
    entry = ET.fromstring((out / "skills/x/entry.xml").read_bytes())
    assert entry.find("description").text == 'a <b> & "c"'


def test_a_bundled_file_whose_name_xml_cannot_hold_is_not_published_and_every_artifact_agrees(tmp_path):
    """skill.xml could only list 'sc\x1bript.sh' as 'sc\ufffdript.sh', a file that is not there:
    such a file is left out (SK017) of the folder, the manifest, the archive and the fragment."""
    src = tmp_path / "src"
    skill = write_skill(src, "s", "name: s\ndescription: d\n")
    (skill / "sc\x1bript.sh").write_text("echo hi\n")
    (skill / "line\rfeed.txt").write_text("x")  # a parser reads a carriage return back as a line feed
    (skill / "ok.sh").write_text("echo ok\n")
    out = tmp_path / "site"
    result = build([src], out)
    assert result.ok
    said = sorted(d.message for d in result.diagnostics if d.code == "SK017")
    assert said == [f"bundled file '{name}' has a name the skill's prompt fragment (skill.xml) cannot hold as "
                    "written; not published" for name in ("line\\x0dfeed.txt", "sc\\x1bript.sh")]
    manifest = check_site(out)
    assert [f["path"] for f in manifest["skills"][0]["files"]] == ["ok.sh"]
    listed = [f.text for f in ET.fromstring((out / "skills/s/skill.xml").read_bytes()).iter("file")]
    assert listed == ["ok.sh"] and all((out / "skills/s" / name).is_file() for name in listed)
    assert sorted(p.name for p in (out / "skills/s").iterdir() if p.suffix in (".sh", ".txt")) == ["ok.sh"]


def run_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "skillsite", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


def test_cli_build_and_config(tmp_path):
    shutil.copytree(EXAMPLES, tmp_path / "skills")
    (tmp_path / "skillsite.yml").write_text(
        "title: Team skills\nsources: [skills]\nrepo_url: https://github.com/example/skills\nstrict: true\n")
    result = run_cli("build", "-o", "out", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Built 13 skills into out (0 skipped; 0 errors, 0 warnings)" in result.stdout
    manifest = json.loads((tmp_path / "out" / "skills.json").read_text())
    assert manifest["site"]["title"] == "Team skills"
    entry = manifest["skills"][0]
    assert entry["source"]["path"] == "skills/api-design-checklist/SKILL.md"
    assert entry["source"]["url"] == "https://github.com/example/skills/blob/main/skills/api-design-checklist/SKILL.md"
    assert entry["source"]["edit_url"].startswith("https://github.com/example/skills/edit/main/")


def test_cli_config_unknown_key_is_an_error_with_its_line(tmp_path):
    (tmp_path / "skillsite.yml").write_text("title: x\ncolour: blue\n")
    result = run_cli("build", str(EXAMPLES), "-o", "out", cwd=tmp_path)
    assert result.returncode == 2
    assert "skillsite.yml:2:1: error SK401 unknown configuration key 'colour'" in result.stderr
    assert not (tmp_path / "out").exists()


def test_a_failed_build_says_truly_whether_the_output_was_there_before(tmp_path):
    """'left as it was' only of an output that was there: one never made is said not to be created."""
    write_skill(tmp_path / "src", "bad", "name: bad\n")
    write_skill(tmp_path / "src", "good")  # --keep-going has a skill to publish
    first = run_cli("build", "src", "-o", "out", "-q", cwd=tmp_path)
    assert first.returncode == 1 and not (tmp_path / "out").exists()
    assert "Build failed: 1 error, 0 warnings; out was not created (fix the errors" in first.stderr, first.stderr
    assert "left as it was" not in first.stderr
    assert run_cli("build", "src", "-o", "out", "-q", "--keep-going", cwd=tmp_path).returncode == 0
    before = tree_bytes(tmp_path / "out")
    again = run_cli("build", "src", "-o", "out", "-q", cwd=tmp_path)
    assert again.returncode == 1 and "; out was left as it was (fix the errors" in again.stderr, again.stderr
    assert tree_bytes(tmp_path / "out") == before


def test_cli_refuses_foreign_folder_with_exit_2(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "x").write_text("x")
    result = run_cli("build", str(EXAMPLES), "-o", "out", cwd=tmp_path)
    assert result.returncode == 2 and "--force" in result.stderr


@pytest.mark.slow
def test_real_skills_build(real_skills, tmp_path):
    out = tmp_path / "corpus-site"
    result = build([real_skills.path], out, keep_going=True)
    kept = real_skills.skills - real_skills.left_out
    assert result.ok and len(result.published) == kept and len(result.skipped) == real_skills.left_out
    manifest = check_site(out)
    assert manifest["counts"]["left_out"] == real_skills.left_out and len(manifest["skills"]) == kept


def test_unknown_frontmatter_keys_are_kept_in_the_entry_s_extra(tmp_path):
    """SK207 says an unknown key is kept in the manifest, and artifacts.md that ``extra`` holds
    them: the value was nowhere in the entry (``extra`` held only argument-hint and user-invocable)."""
    from support import write_skill

    write_skill(tmp_path / "src", "a", "name: a\ndescription: Keeps its keys. Use when testing.\n"
                                      "homepage: https://x.example\nowner: {team: docs}\nargument-hint: '[file]'\n")
    result = run_cli("build", "src", "-o", "out", cwd=tmp_path)
    assert result.returncode == 0 and "unknown key 'homepage'; kept in the manifest's extra" in result.stdout
    [entry] = json.loads((tmp_path / "out" / "skills.json").read_text("utf-8"))["skills"]
    assert entry["extra"] == {"argument-hint": "[file]", "homepage": "https://x.example", "owner": {"team": "docs"}}


def test_a_priority_label_warns_and_the_build_goes_on(tmp_path):
    """'priority: CRITICAL' (another tool's label, in sickn33/antigravity-awesome-skills' clean-code)
    was SK208, an error: the build of all 1,000 skills failed without --keep-going.  Now SK233 says it
    is ignored, the skill is published with priority 0, and the label is in its entry's extra."""
    write_skill(tmp_path / "src", "clean-code", "name: clean-code\ndescription: Clean code. Use when testing.\n"
                                               "priority: CRITICAL\n")
    write_skill(tmp_path / "src", "other")
    result = run_cli("build", "src", "-o", "out", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "warning SK233 'priority' 'CRITICAL' is not a whole number; ignored" in result.stdout
    entries = {e["id"]: e for e in json.loads((tmp_path / "out" / "skills.json").read_text("utf-8"))["skills"]}
    assert set(entries) == {"clean-code", "other"}
    entry = entries["clean-code"]
    assert entry["priority"] == 0 and entry["extra"] == {"priority": "CRITICAL"}
    assert [w["code"] for w in entry["warnings"]] == ["SK233"]


def test_requires_platforms_and_tools_in_another_tool_s_shape_warn_and_the_build_goes_on(tmp_path):
    """AgentWorkers/skills writes 'requires: python3, ffmpeg', 'platforms: [claude-code, cursor]' and
    'tools: "Read, Grep"': SK208, an error, left about 180 of its skills out of the catalog.  Now
    SK234 warns at the key's line (validate and build alike, --strict still fails on it), each skill
    is published requiring nothing, and what was written is in its entry's extra."""
    written = {"needs": "requires: python3, ffmpeg\n", "agents": "platforms: [claude-code, cursor]\n",
               "phone": "requires:\n  bins: [git]\n  platforms: [ios, android]\n", "reads": 'tools: "Read, Grep"\n'}
    for name, text in written.items():
        write_skill(tmp_path / "src", name, f"name: {name}\ndescription: Does {name}. Use when testing.\n{text}")
    where = {"needs": "needs/SKILL.md:4:1:", "agents": "agents/SKILL.md:4:1:", "phone": "phone/SKILL.md:6:3:",
             "reads": "reads/SKILL.md:4:1:"}
    for command in (("validate", "src"), ("build", "src", "-o", "out")):
        result = run_cli(*command, cwd=tmp_path)
        assert result.returncode == 0, result.stdout + result.stderr
        said = [line for line in result.stdout.splitlines() if " SK234 " in line]
        assert [line.split(" warning SK234 ")[0].split("src/")[-1] for line in said] == sorted(where.values())
        assert all(line.endswith("ignored (no requirement read from it) and kept in the manifest's extra")
                   for line in said if "'requires' " in line)
    assert run_cli("validate", "src", "--strict", cwd=tmp_path).returncode != 0
    entries = {e["id"]: e for e in json.loads((tmp_path / "out" / "skills.json").read_text("utf-8"))["skills"]}
    assert {name: entry["extra"] for name, entry in entries.items()} == {
        "needs": {"requires": "python3, ffmpeg"}, "agents": {"platforms": ["claude-code", "cursor"]},
        "phone": {"requires": {"platforms": ["ios", "android"]}}, "reads": {"tools": "Read, Grep"}}
    assert {name: entry["requirements"] for name, entry in entries.items()} == {
        name: {"bins": ["git"] if name == "phone" else [], "env": [], "platforms": []} for name in written}
    assert entries["reads"]["tools"] == [] and all(
        [w["code"] for w in entry["warnings"]] == ["SK234"] for entry in entries.values())


def test_when_to_use_yes_is_published_as_the_text_yes(tmp_path):
    """Claude Code's when_to_use is text (appended to the description): 'when_to_use: yes' was
    published as true in the entry's extra, and 'effort: on' as true."""
    write_skill(tmp_path / "src", "cc", "name: cc\ndescription: Answers. Use when testing.\nwhen_to_use: yes\n"
                                       "effort: on\n")
    result = run_cli("build", "src", "-o", "out", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "warning SK111 'when_to_use: yes' is a boolean in YAML 1.1; kept as the text 'yes'" in result.stdout
    [entry] = json.loads((tmp_path / "out" / "skills.json").read_text("utf-8"))["skills"]
    assert entry["extra"] == {"effort": "on", "when_to_use": "yes"}
    assert sorted(w["code"] for w in entry["warnings"]) == ["SK111", "SK111"]


def test_a_missing_source_of_the_configuration_is_named_as_the_configuration_s(tmp_path):
    """It was "Invalid value for SOURCES", a command-line argument the user never typed."""
    (tmp_path / "skillsite.yml").write_text("sources: [missing]\n")
    result = run_cli("build", "-o", "out", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == "skillsite: skillsite.yml: 'sources' names missing, which is no folder\n"


def test_cli_templates_override_single_templates(tmp_path):
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "404.html").write_text("<!doctype html><title>Lost</title><p>Nothing here ({{ site.title }})</p>\n")
    result = run_cli("build", str(EXAMPLES), "-o", "out", "--templates", str(templates), "--title", "Ours",
                     cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out" / "404.html").read_text() \
        == "<!doctype html><title>Lost</title><p>Nothing here (Ours)</p>\n"
    assert "<main" in (tmp_path / "out" / "index.html").read_text()


@pytest.mark.parametrize("name, text, said", [
    ("home.html", b"{{ oops( }}\n", "template templates/home.html:1: unexpected '}', expected ')'"),
    ("home.html", b"<p>\n{{ no_such_variable }}\n", "template templates/home.html:2: 'no_such_variable' is undefined"),
    ("home.html", b'{% include "nope.html" %}\n', "template home.html: it names nope.html, which no templates folder"),
    ("home.html", b"\xff\xfe\n", "template home.html (or one it includes) is not UTF-8 text"),
    ("llms.txt", b"{{ oops( }}\n", "template templates/llms.txt:1: unexpected '}'"),
    ("home.html", b'{{ cycler.__init__.__globals__.os.popen("touch ran").read() }}\n',
     "template templates/home.html:1: access to attribute '__init__' of 'type' object is unsafe"),
])
def test_a_broken_or_unsafe_template_override_is_one_line_exit_2(tmp_path, name, text, said):
    """Each was a traceback of 80 lines (exit 1, 'problems in the skills'), or the bare name of the
    missing include (exit 3); a template reaching Python's internals ran a command."""
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / name).write_bytes(text)
    result = run_cli("build", str(EXAMPLES), "-o", "out", "--templates", "templates", "-q", cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.startswith(f"skillsite: {said}"), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists() and not (tmp_path / "ran").exists()


def test_a_build_with_a_long_list_of_diagnostics_summarises_it(tmp_path):
    """Past 200 diagnostics the terminal gets a summary per code; the whole list is written
    beside the cache (diagnostics.json)."""
    from support import write_skill

    for n in range(110):
        write_skill(tmp_path / "src", f"s{n:03d}", f"name: s{n:03d}\ndescription: Thing number {n} of many.\n"
                                                   "author: me\nteam: x\n")
    result = run_cli("build", "src", "-o", "out", "-q", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = tmp_path / ".skillsite-cache" / "diagnostics.json"
    first = result.stdout.splitlines()[0]
    count = int(first.split()[0].replace(",", ""))
    assert count >= 220 and first == (f"{count:,} diagnostics, too many to list: per code, the count and the "
                                      f"first 3; all of them are in {report} (or pass --all)")
    assert len(json.loads(report.read_text())["diagnostics"]) == count


@pytest.mark.parametrize("output", ["the source folder", "the folder holding it"])
def test_an_output_that_is_or_holds_a_source_is_refused_even_with_force(tmp_path: Path, output: str) -> None:
    """``build src -o src --force`` (or ``-o .`` above ``src``) moved the skills and every file
    beside them away into the cache's back folder: a one-line refusal, nothing touched."""
    project = tmp_path / "project"
    shutil.copytree(EXAMPLES, project / "src")
    (project / "NOTES.txt").write_text("mine")
    before = tree_bytes(project)
    out = "src" if output == "the source folder" else "."
    run = subprocess.run([sys.executable, "-m", "skillsite", "build", "src", "-o", out, "--force", "-q"],
                         cwd=project, capture_output=True, text=True, timeout=300)
    assert run.returncode == 2 and "cannot be written there (even with --force)" in run.stderr, run.stderr
    assert len(run.stderr.strip().splitlines()) == 1
    assert tree_bytes(project) == before


@pytest.mark.parametrize("output, config, said", [
    ("src/house-style", "", "is the skill folder"),                  # the skill replaced by the catalog
    ("src/team", "", "holds the skill folder"),                     # the skills under it deleted
    (".", "sources: [../skills]\n", "is the folder of the configuration ."),   # the project, .git and all
    ("tpl", "sources: [src]\ntemplates: tpl\n", "is the templates folder"),
    ("kn", "sources: [src]\nknowledge_dir: kn\n", "is the knowledge folder"),
    ("src/knowledge", "", "is the knowledge folder"),                # the default one: every document gone
    ("kn/sub", "sources: [src]\nknowledge_dir: kn\n", "is inside the knowledge folder kn"),
    ("tpl/sub", "sources: [src]\ntemplates: tpl\n", "is inside the templates folder tpl"),
])
def test_an_output_that_is_a_skill_or_holds_one_or_what_the_build_reads_is_refused_even_with_force(
        tmp_path: Path, output: str, config: str, said: str) -> None:
    """--force replaced each of these with the catalog, and its files were gone for good (the
    project's with ``-o .``, whose failed swap then said ". was left as it was")."""
    project = tmp_path / "project"
    shutil.copytree(EXAMPLES, project / "src")
    shutil.copytree(EXAMPLES / "house-style", project / "src" / "team" / "house-style")
    shutil.copytree(EXAMPLES, tmp_path / "skills")
    for folder, name in (("tpl", "mine.html"), ("kn", "restore.md"), (".git", "HEAD")):
        (project / folder).mkdir()
        (project / folder / name).write_text("mine")
    if config:
        (project / "skillsite.yml").write_text(config)
    before = tree_bytes(project)
    sources = [] if config else ["src"]
    run = subprocess.run([sys.executable, "-m", "skillsite", "build", *sources, "-o", output, "--force", "-q"],
                         cwd=project, capture_output=True, text=True, timeout=300)
    assert run.returncode == 2 and said in run.stderr and "(even with --force)" in run.stderr, run.stderr
    assert len(run.stderr.strip().splitlines()) == 1
    assert tree_bytes(project) == before


@pytest.mark.parametrize("flags, said", [
    (["-o", "src/code-review/out"], "is inside the skill folder"),
    (["-o", "out", "--cache-dir", "out"], "is the output folder"),
    (["-o", "out", "--cache-dir", "out/cache"], "is inside the output folder"),
])
def test_an_output_inside_a_skill_or_holding_the_cache_is_refused_before_anything_is_written(
        tmp_path: Path, flags: list[str], said: str) -> None:
    """An output in a skill's folder published the build's lock file beside it as a file of the
    skill; a cache in the output was moved away with it, and the catalog was lost: each is now a
    one-line refusal (exit 2), with nothing written, a catalog already there kept."""
    project = tmp_path / "project"
    shutil.copytree(EXAMPLES, project / "src")
    assert subprocess.run([sys.executable, "-m", "skillsite", "build", "src", "-o", "out", "-q"], cwd=project,
                          capture_output=True, timeout=300).returncode == 0
    before = tree_bytes(project)
    run = subprocess.run([sys.executable, "-m", "skillsite", "build", "src", *flags, "-q"],
                         cwd=project, capture_output=True, text=True, timeout=300)
    assert run.returncode == 2 and said in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert tree_bytes(project) == before


@pytest.mark.parametrize("value", ["253402300800", "99999999999999999999", "8589934592", "\u00b2", "garbage", "-5"])
def test_a_source_date_epoch_that_is_no_date_is_refused_in_one_line(tmp_path: Path, value: str) -> None:
    """Past year 9999, past what a tar header holds, a superscript digit: each was a traceback;
    garbage was taken as 1970. The reproducible-builds rule: a malformed value is an error."""
    run = subprocess.run([sys.executable, "-m", "skillsite", "build", str(EXAMPLES), "-o", "out", "-q", "--no-cache"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "SOURCE_DATE_EPOCH": value})
    assert run.returncode == 2 and run.stderr.startswith("skillsite: SOURCE_DATE_EPOCH must be a whole number")
    assert len(run.stderr.strip().splitlines()) == 1 and not (tmp_path / "out").exists()


def test_the_latest_source_date_epoch_a_tar_header_holds_builds(tmp_path: Path) -> None:
    env = {**os.environ, "SOURCE_DATE_EPOCH": "8589934591"}
    run = subprocess.run([sys.executable, "-m", "skillsite", "build", str(EXAMPLES), "-o", "out", "-q", "--no-cache"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stderr
    assert json.loads((tmp_path / "out/skills.json").read_text())["generated_at"].startswith("2242-03-16")


def test_an_output_that_is_a_symbolic_link_is_built_where_it_leads(tmp_path: Path) -> None:
    """A web root reached through a link (``site -> www/catalog``): every build updates the
    catalog the link leads to, and the link stays (it was replaced by a folder, and its ghost in
    the cache stopped every later build)."""
    src, root, link, cache = tmp_path / "src", tmp_path / "www" / "catalog", tmp_path / "site", tmp_path / "cache"
    shutil.copytree(EXAMPLES, src)
    assert build([src], root, cache_dir=cache).ok
    link.symlink_to(root)
    for change in ("one", "two"):
        skill_md = src / "test-first" / "SKILL.md"
        skill_md.write_text(skill_md.read_text() + f"\nChange {change}.\n")
        assert build([src], link, cache_dir=cache).ok
        assert link.is_symlink() and f"Change {change}." in (root / "skills/test-first/SKILL.md").read_text()
    assert build([src], tmp_path / "cold").ok
    assert tree_bytes(root) == tree_bytes(tmp_path / "cold")


@pytest.mark.parametrize("url", ["https://example.org/my catalog", "https://example.org/x?ref=1",
                                 "https://user:secret@example.org/", "https://"])
def test_a_base_url_no_page_could_join_paths_to_is_refused(url: str, tmp_path: Path) -> None:
    """Every page, sitemap entry and install line is this URL with a path added: a space, a
    query, a fragment or credentials (published in every file) are refused before building."""
    from click.testing import CliRunner
    from skillsite.cli import main

    result = CliRunner().invoke(main, ["build", str(EXAMPLES), "-o", str(tmp_path / "site"), "--base-url", url])
    assert result.exit_code == 2 and "Invalid value for '--base-url'" in result.output
    assert "percent-encoded" in result.output and not (tmp_path / "site").exists()


def test_a_name_or_description_installers_refuse_is_said_to_leave_the_discovery_index(tmp_path):
    """SK203, SK205 and SK206 are warnings by default: the skill is published, the discovery index
    leaves it out, and the warning says so (it did not)."""
    fronts = {"capitals": "name: My-Skill\ndescription: d", "long": "name: long\ndescription: " + "x" * 1100,
              "fine": "name: fine\ndescription: d"}
    for folder, front in fronts.items():
        (tmp_path / "src" / folder).mkdir(parents=True)
        (tmp_path / "src" / folder / "SKILL.md").write_text(f"---\n{front}\n---\n# {folder}\n", encoding="utf-8")
    result = build([tmp_path / "src"], tmp_path / "site")
    said = sorted(d.path.split("/")[-2] for d in result.diagnostics
                  if d.message.endswith("so the skill is not listed in the discovery index"))
    index = json.loads((tmp_path / "site/.well-known/agent-skills/index.json").read_text("utf-8"))
    assert said == ["capitals", "long"] and [s["name"] for s in index["skills"]] == ["fine"]
    assert sorted(e["id"] for e in json.loads((tmp_path / "site/skills.json").read_text("utf-8"))["skills"]) == [
        "capitals", "fine", "long"]


def test_a_tree_in_git_builds_the_same_catalog_from_any_folder(tmp_path: Path, monkeypatch) -> None:
    """Without a configuration file, source paths are shown relative to the top of the git work
    tree holding the sources (what ``repo_url``'s links need): the same tree, built from its
    repository's top, from its skills folder and from outside, gives byte-identical catalogs."""
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLES, repo / "plugins" / "skills")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    builds = {}
    for name, cwd in (("top", repo), ("inside", repo / "plugins" / "skills"), ("outside", tmp_path)):
        monkeypatch.chdir(cwd)
        builds[name] = tmp_path / f"site-{name}"
        assert build([repo / "plugins" / "skills"], builds[name]).ok
    paths = {e["id"]: e["source"]["path"] for e in json.loads((builds["top"] / "skills.json").read_text())["skills"]}
    assert paths["code-review"] == "plugins/skills/code-review/SKILL.md"
    assert tree_bytes(builds["top"]) == tree_bytes(builds["inside"]) == tree_bytes(builds["outside"])
