"""What other clients read from a build: the static provider layout, the v0.1 discovery index
with its file copies, and the plugin marketplace (issue 22, parts 2-4)."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from skillsite.config import ConfigError, SiteConfig, load_config
from skillsite.publish.build import build
from skillsite.config_sections import name_problem
from skillsite.publish.marketplace import default_name
from support import write_skill

#: The published marketplace format (Claude Code's marketplace reference), as far as a
#: skills-only marketplace uses it.
MARKETPLACE_SCHEMA = {
    "type": "object", "required": ["name", "owner", "plugins"],
    "properties": {
        "name": {"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$"},
        "owner": {"type": "object", "required": ["name"], "additionalProperties": False,
                  "properties": {"name": {"type": "string", "minLength": 1}, "email": {"type": "string"},
                                 "url": {"type": "string"}}},
        "metadata": {"type": "object", "properties": {"description": {"type": "string"},
                                                      "version": {"type": "string"}}},
        "plugins": {"type": "array", "items": {
            "type": "object", "required": ["name", "source"],
            "properties": {"name": {"type": "string"}, "description": {"type": "string"},
                           "source": {"const": "./"}, "strict": {"const": False},
                           "skills": {"type": "array", "items": {"type": "string", "pattern": "^\\./skills/"}}}}},
    },
}


def load(path: Path) -> dict:
    return json.loads(path.read_text("utf-8"))


def test_the_provider_layout_lists_skills_and_each_skill_s_files(site: Path) -> None:
    manifest = load(site / "skills.json")
    assert load(site / "skills/index.json") == {"skills": sorted(e["id"] for e in manifest["skills"])}
    listing = load(site / "skills/release-manager/index.json")
    assert listing == {"references": ["release-process.md", "rollback.md"], "scripts": ["check_release_ready.py"],
                       "assets": ["release-issue-template.md"],
                       "files": ["SKILL.md", "assets/release-issue-template.md", "references/release-process.md",
                                 "references/rollback.md", "scripts/check_release_ready.py"]}
    for entry in manifest["skills"]:   # every listed file is there, byte for byte as the manifest says
        files = load(site / "skills" / entry["id"] / "index.json")["files"]
        assert files == sorted(["SKILL.md", *(f["path"] for f in entry["files"])])


def test_the_legacy_index_lists_the_same_skills_with_their_files_copied(site: Path) -> None:
    current = load(site / ".well-known/agent-skills/index.json")
    legacy = load(site / ".well-known/skills/index.json")
    assert "$schema" not in legacy
    assert [s["name"] for s in legacy["skills"]] == [s["name"] for s in current["skills"]]
    manifest = {e["name"]: e for e in load(site / "skills.json")["skills"]}
    for skill in legacy["skills"]:
        entry = manifest[skill["name"]]
        assert skill["files"] == ["SKILL.md", *(f["path"] for f in entry["files"])]
        for path in skill["files"]:
            copy = site / ".well-known/skills" / skill["name"] / path
            assert copy.read_bytes() == (site / "skills" / entry["id"] / path).read_bytes()


def test_the_marketplace_holds_one_skills_only_plugin(site: Path) -> None:
    market = load(site / ".claude-plugin/marketplace.json")
    jsonschema.validate(market, MARKETPLACE_SCHEMA)
    ids = sorted(e["id"] for e in load(site / "skills.json")["skills"])
    assert market["plugins"][0]["skills"] == [f"./skills/{i}" for i in ids]
    assert name_problem(market["name"]) is None
    for skill in market["plugins"][0]["skills"]:
        assert (site / skill / "SKILL.md").is_file()


def test_marketplace_settings_come_from_skillsite_yml(tmp_path: Path) -> None:
    config_file = tmp_path / "skillsite.yml"
    config_file.write_text("title: Platform skills\nmarketplace:\n  name: platform-skills\n"
                           "  owner: {name: Platform team, email: platform@example.com}\n"
                           "  description: What our agents know.\n  version: 2.1.0\n", "utf-8")
    config = load_config(config_file)
    write_skill(tmp_path / "src", "one")
    assert build([tmp_path / "src"], tmp_path / "_site", config).ok
    market = load(tmp_path / "_site/.claude-plugin/marketplace.json")
    assert market["name"] == "platform-skills" and market["owner"] == {"name": "Platform team",
                                                                      "email": "platform@example.com"}
    assert market["metadata"] == {"description": "What our agents know.", "version": "2.1.0"}
    jsonschema.validate(market, MARKETPLACE_SCHEMA)


@pytest.mark.parametrize("name", ["agent-skills", "claude-plugins-official", "official-claude-plugins",
                                  "anthropic-tools", "Not Kebab", "a--b"])
def test_a_reserved_or_invalid_marketplace_name_is_a_configuration_error(tmp_path: Path, name: str) -> None:
    config_file = tmp_path / "skillsite.yml"
    config_file.write_text(f"marketplace:\n  name: '{name}'\n", "utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(config_file)
    assert [(d.code, d.line) for d in caught.value.diagnostics] == [("SK401", 1)]
    assert name in caught.value.diagnostics[0].message


def test_the_default_name_avoids_reserved_names() -> None:
    assert default_name("Agent skills") == "agent-skills-catalog"
    assert default_name(SiteConfig().title) == "agent-skills-catalog"
    assert default_name("Platform Team: Skills!") == "platform-team-skills"
    # a title Claude Code reads as official, with or without "-catalog": a neutral name
    assert default_name("Anthropic skills") == default_name("Claude Official") == "skills-catalog"


def test_a_bundled_index_json_is_not_published_over_the_listing(tmp_path: Path) -> None:
    folder = write_skill(tmp_path / "src", "one")
    (folder / "index.json").write_text("{}", "utf-8")
    result = build([tmp_path / "src"], tmp_path / "_site")
    assert result.ok and any(d.code == "SK009" for d in result.diagnostics)
    assert load(tmp_path / "_site/skills/one/index.json")["files"] == ["SKILL.md"]


def test_a_bundled_file_named_as_the_catalogs_own_in_another_case_is_not_published(tmp_path: Path) -> None:
    """On a file system that ignores case (macOS, Windows) a bundled Skill.md is the catalog's
    SKILL.md, and was written over it: the published SKILL.md no longer matched the manifest."""
    folder = write_skill(tmp_path / "src", "one")
    for name in ("Skill.md", "INDEX.HTML", "Entry.xml", "notes.md"):
        (folder / name).write_text(f"bundled {name}\n", "utf-8")
    result = build([tmp_path / "src"], tmp_path / "_site")
    said = sorted(d.message.split("'")[1] for d in result.diagnostics if d.code == "SK009")
    assert result.ok and said == ["Entry.xml", "INDEX.HTML", "Skill.md"]
    assert load(tmp_path / "_site/skills/one/index.json")["files"] == ["SKILL.md", "notes.md"]
