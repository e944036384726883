"""The function-calling `skill` tool: its definition in each runtime's shape, and its results."""
from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from skillsite.agent.skill_tool import STYLES, TOOL_NAME
from skillsite.loader import Catalog

HIDDEN_OR_USER_ONLY = {"internal-oncall-handbook", "prod-db-restore", "release-manager/version-bump/prerelease"}
NO_BINS = {"PATH": ""}   # nothing on PATH: the skills that need a binary are ineligible


@pytest.fixture(scope="module")
def catalog(site: Path) -> Catalog:
    return Catalog.open(site)


def parts(tool: dict, style: str) -> tuple[str, str, dict]:
    """(name, description, parameters) of a tool definition in ``style``."""
    if style == "openai":
        assert tool["type"] == "function"
        fn = tool["function"]
        return fn["name"], fn["description"], fn["parameters"]
    return tool["name"], tool["description"], tool["input_schema" if style == "anthropic" else "inputSchema"]


def test_with_no_skill_offered_skill_name_has_no_empty_enum(tmp_path):
    """A catalog whose one skill the audit rates high: skill_name was {"enum": []}, a schema no
    call satisfies (and one older drafts and some runtimes refuse)."""
    import shutil

    from skillsite.agent.skill_tool import tool_parameters
    from skillsite.publish.build import build
    from support import REPO

    shutil.copytree(REPO / "tests/data/audit-fixtures/m-curl-sh", tmp_path / "src/m-curl-sh")
    assert build([tmp_path / "src"], tmp_path / "site").ok
    tool = Catalog.open(tmp_path / "site").skill_tool()
    skill_name = tool["function"]["parameters"]["properties"]["skill_name"]
    assert "enum" not in skill_name and skill_name["type"] == "string"
    assert "1 skill not eligible here" in tool["function"]["description"]
    assert tool_parameters(["a"])["properties"]["skill_name"]["enum"] == ["a"]


@pytest.mark.parametrize("style", STYLES)
def test_each_style_offers_exactly_the_skills_a_model_may_use_here(catalog, style):
    tool = catalog.skill_tool(style=style, env=NO_BINS)
    assert json.loads(json.dumps(tool)) == tool
    name, description, parameters = parts(tool, style)
    jsonschema.Draft202012Validator.check_schema(parameters)
    enum = parameters["properties"]["skill_name"]["enum"]
    offered = [e["id"] for e in catalog.skills if not catalog.ineligible(e["id"], env=NO_BINS)
               and e["id"] not in HIDDEN_OR_USER_ONLY]
    assert name == TOOL_NAME and sorted(enum) == sorted(offered) and len(enum) == len(set(enum))
    assert parameters["required"] == ["skill_name"]
    order = [line[6:-7] for line in description.splitlines() if line.startswith("<name>")]
    assert order == enum  # the listing names the enum's values, in prompt order
    validator = jsonschema.Draft202012Validator(parameters)
    assert validator.is_valid({"skill_name": enum[0]}) and not validator.is_valid({"skill_name": "no-such-skill"})
    assert not validator.is_valid({})


def test_the_listing_keeps_to_its_budget_with_the_prompt_s_notice(catalog):
    full = catalog.skill_tool(style="mcp")
    small = catalog.skill_tool(style="mcp", budget=600)
    block = small["description"][small["description"].index("<available_skills>"):]
    assert len(block) <= 600 and "<notice>" in block and "not listed (prompt budget 600 characters)" in block
    assert small["inputSchema"] == full["inputSchema"]  # the enum still offers every skill


def test_a_good_name_gives_the_skill_content(catalog, site):
    text = catalog.call_skill_tool({"skill_name": "release-manager"})
    assert text == catalog.load("release-manager").xml and text.startswith("<skill_content ")


def test_unknown_ineligible_and_malformed_calls_give_error_texts(catalog):
    unknown = catalog.call_skill_tool({"skill_name": "release-manger"})
    assert unknown.startswith("Error: skill 'release-manger' not found.") and "release-manager" in unknown
    hidden = catalog.call_skill_tool({"skill_name": "prod-db-restore"})
    assert hidden.startswith("Error: skill 'prod-db-restore' is not available here")
    needs_bins = next(e["id"] for e in catalog.skills if e["requirements"]["bins"]
                      and e["id"] not in HIDDEN_OR_USER_ONLY)
    ineligible = catalog.call_skill_tool({"skill_name": needs_bins}, env=NO_BINS)
    assert ineligible.startswith(f"Error: skill '{needs_bins}' is not available here") and "on PATH" in ineligible
    for arguments in ({}, {"skill_name": 3}, {"skill_name": ""}, ["release-manager"]):
        assert catalog.call_skill_tool(arguments).startswith("Error: the skill tool needs a skill_name")


def test_a_tampered_skill_is_an_error_text_not_an_exception(site, tmp_path):
    import shutil

    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    skill_md = copy / "skills" / "release-manager" / "SKILL.md"
    skill_md.write_bytes(skill_md.read_bytes().replace(b"release", b"RELEASE", 1))
    text = Catalog.open(copy).call_skill_tool({"skill_name": "release-manager"})
    assert text.startswith("Error: skill 'release-manager' could not be loaded:") and "does not match" in text


def test_the_cli_prints_the_tool(site):
    runner = CliRunner(env={"PATH": os.environ.get("PATH", "")})
    from skillsite.cli import main

    result = runner.invoke(main, ["tool", "--catalog", str(site), "--style", "anthropic", "--budget", "2000"])
    assert result.exit_code == 0, result.output
    tool = json.loads(result.output)
    assert tool["name"] == "skill" and "input_schema" in tool and "<available_skills>" in tool["description"]


def test_an_optional_version_loads_that_release(tmp_path):
    from versioned_site import FakeRelease, make_site

    site = make_site(tmp_path, {"notes": [FakeRelease("1.0.0"), FakeRelease("1.1.0"), FakeRelease("2.0.0")]})
    versioned = Catalog.open(site)
    parameters = versioned.skill_tool(style="mcp")["inputSchema"]
    validator = jsonschema.Draft202012Validator(parameters)
    assert validator.is_valid({"skill_name": "notes", "version": "^1"}) and parameters["required"] == ["skill_name"]
    assert not validator.is_valid({"skill_name": "notes", "version": 1})
    text = versioned.call_skill_tool({"skill_name": "notes", "version": "^1"})
    assert text == versioned.load("notes", "1.1.0").xml and "# notes 1.1.0" in text
    assert "# notes 2.0.0" in versioned.call_skill_tool({"skill_name": "notes"})
    assert versioned.call_skill_tool({"skill_name": "notes", "version": "^3"}).startswith(
        "Error: skill 'notes' could not be loaded: no release of notes satisfies '^3'")
    assert versioned.call_skill_tool({"skill_name": "notes", "version": 2}).startswith(
        "Error: the skill tool's version is a string")
