"""``skillsite.schema.json`` (what editors check ``skillsite.yml`` with) against the loader of that
file, ``skillsite/config.py``: the same keys both ways, the same verdict on valid and invalid files."""
from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from skillsite.audit.suppress import ENTRY_KEYS
from skillsite.config import _FIELD_TYPES, ConfigError, _read_yaml, load_config
from skillsite.config_sections import (AUDIT_KEYS, CONFIG_KEYS, COPIES_KEYS, FAIL_ON, OWNER_KEYS, RESERVED_NAMES,
                                       SIGNING_KEYS)
from skillsite.source.schema import PROFILES, load_schema
from support import REPO

SCHEMA = load_schema("skillsite.schema.json")
PROPS = SCHEMA["properties"]
JSON_TYPES = {str: {"string"}, bool: {"boolean"}, int: {"integer"}, dict: {"object"}, list: {"string", "array"}}


def types_of(prop: dict) -> set[str]:
    found = prop.get("type") or SCHEMA["$defs"][prop["$ref"].rsplit("/", 1)[1]]["type"]
    return {found} if isinstance(found, str) else set(found)


def test_the_schema_is_a_valid_draft_2020_12_schema():
    Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_every_key_the_loader_reads_is_in_the_schema_with_its_type_and_back():
    assert set(PROPS) == set(_FIELD_TYPES) and SCHEMA["additionalProperties"] is False
    for key, expected in _FIELD_TYPES.items():
        if key != "profile":  # an enum, below
            assert types_of(PROPS[key]) == JSON_TYPES[expected], key
    assert PROPS["profile"]["enum"] == list(PROFILES)


@pytest.mark.parametrize("path, keys", [
    ("marketplace", CONFIG_KEYS), ("marketplace.owner", OWNER_KEYS), ("audit", AUDIT_KEYS),
    ("audit.ignore.items", ENTRY_KEYS), ("signing", SIGNING_KEYS), ("copies", COPIES_KEYS)])
def test_every_section_has_the_keys_its_check_knows_and_no_other(path, keys):
    section = SCHEMA
    for part in path.split("."):
        section = section["properties"][part] if part != "items" else section["items"]
    assert set(section["properties"]) == set(keys) and section["additionalProperties"] is False


def test_the_enums_are_the_loaders():
    assert PROPS["audit"]["properties"]["fail_on"]["enum"] == list(FAIL_ON)
    refused = PROPS["marketplace"]["properties"]["name"]["not"]["anyOf"][0]["enum"]
    assert sorted(refused) == sorted(RESERVED_NAMES)


def described(node: dict, where: str = ""):
    """Every property of the schema, with its dotted path."""
    for key, prop in node.get("properties", {}).items():
        yield f"{where}{key}", prop
        yield from described(prop, f"{where}{key}.")
        yield from described(prop.get("items", {}), f"{where}{key}[].")


def test_every_key_has_a_description():
    assert [key for key, prop in described(SCHEMA) if not prop.get("description")] == []


def documented_configuration() -> str:
    """docs/configuration.md's example ``skillsite.yml``: its yaml block that starts with ``title:``."""
    blocks = (REPO / "docs/configuration.md").read_text(encoding="utf-8").split("```yaml\n")[1:]
    return next(block.split("```", 1)[0] for block in blocks if block.startswith("title: "))


VALID = {
    "empty": "",
    "documented": documented_configuration(),
    "strings for lists": "sources: skills\nexclude: 'drafts/*'\nignore: SK207\n",
    "audit": textwrap.dedent("""\
        audit:
          fail_on: medium
          ignore:
            - {code: SK663, skill: "ops/cleanup", reason: "wipes its own throwaway VM only"}
            - {code: " sk660 ", skill: "*", path: SKILL.md}
            - {code: SK601, reason: null}
        """),
    "audit, no suppressions": "audit: {ignore: null}\n",
    "signing": "signing: {expires: 12h}\n",
    "copies": "copies: {group: false, similarity: 1, prefer: [skills/], apart: [a/b]}\n",
    "marketplace": "marketplace: {name: claude-tools, owner: {name: Me, url: 'https://me.example'}, version: '1'}\n",
    "base URLs": "base_url: 'https://skills.example.org:8443/team/caf%C3%A9/'\n",
    "base URL of an address": "base_url: 'http://[::1]:8000'\n",
}
INVALID = {
    "unknown key": "titel: Skills\n",
    "not a mapping": "- title\n",
    "string for a boolean": "strict: 'yes'\n",
    "boolean for a number": "prompt_budget: true\n",
    "string for a number": "shard_above: '2000'\n",
    "list of numbers": "sources: [1, 2]\n",
    "unknown profile": "profile: strictest\n",
    "malformed code": "ignore: [sk207]\n",
    "marketplace name": "marketplace: {name: Platform_Skills}\n",
    "reserved name": "marketplace: {name: claude-code-plugins}\n",
    "official-looking name": "marketplace: {name: our-claude-marketplace}\n",
    "anthropic name": "marketplace: {name: anthropic-tools}\n",
    "owner without a name": "marketplace: {owner: {email: a@b.c}}\n",
    "owner with other keys": "marketplace: {owner: {name: Me, phone: '1'}}\n",
    "marketplace key": "marketplace: {homepage: x}\n",
    "audit key": "audit: {fail: high}\n",
    "fail_on": "audit: {fail_on: critical}\n",
    "suppression without a code": "audit: {ignore: [{skill: x, reason: y}]}\n",
    "suppression key": "audit: {ignore: [{code: SK601, why: y}]}\n",
    "suppression of another rule": "audit: {ignore: [{code: SK201, reason: y}]}\n",
    "empty skill glob": "audit: {ignore: [{code: SK601, skill: ' ', reason: y}]}\n",
    "suppressions not a list": "audit: {ignore: SK601}\n",
    "signing key": "signing: {key: secret}\n",
    "zero duration": "signing: {expires: 0d}\n",
    "duration in words": "signing: {expires: 30 days}\n",
    "copies key": "copies: {threshold: 0.9}\n",
    "similarity too low": "copies: {similarity: 0.3}\n",
    "similarity a boolean": "copies: {similarity: true}\n",
    "group not a boolean": "copies: {group: 'no'}\n",
    "prefer without a slash": "copies: {prefer: [skills]}\n",
    "empty id": "copies: {apart: ['']}\n",
    "negative prompt budget": "prompt_budget: -100\n",
    "prompt budget under the empty block": "prompt_budget: 38\n",
    "repository URL that runs a script": "repo_url: 'javascript:alert(1)'\n",
    "repository URL without a scheme": "repo_url: github.com/org/skills\n",
    "duration in another script's digits": "signing: {expires: '\u0663d'}\n",
    "page size zero": "shard_above: 0\n",
    "negative size limit": "max_bytes: -1\n",
    "base URL that runs a script": "base_url: 'javascript:alert(1)'\n",
    "base URL without a scheme": "base_url: example.com/skills\n",
    "base URL with a space": "base_url: 'https://example.org/my catalog'\n",
    "base URL with an accent": "base_url: 'https://example.org/café'\n",
    "base URL with a query": "base_url: 'https://example.org/x?ref=1'\n",
    "base URL with a fragment": "base_url: 'https://example.org/#top'\n",
    "base URL without a host": "base_url: 'https://'\n",
    "base URL with credentials": "base_url: 'https://user:secret@example.org/x'\n",
    "base URL whose path starts with //": "base_url: 'https://docs.example.com//docs'\n",   # links to host 'docs'
    "base URL with a quote": "base_url: 'https://example.org/a\"b'\n",
    "base URL with braces": "base_url: 'https://example.org/{a}'\n",
    "base URL with a broken escape": "base_url: 'https://example.org/%zz'\n",
    "base URL of a host of hyphens": "base_url: 'https://-.-/'\n",
}
#: Refused by the loader, which knows which codes exist; the schema only checks their form.
LOADER_ONLY = {
    "unknown code": "ignore: [SK999]\n",
    "unknown audit code": "audit: {ignore: [{code: SK699, reason: y}]}\n",
    "templates that name no folder": "templates: no-such-folder\n",
    "knowledge documents in a file": "knowledge_dir: skillsite.yml\n",
    "base URL with a port past 65535": "base_url: 'https://example.org:99999/'\n",
}


def verdicts(tmp_path, text: str) -> tuple[bool, bool]:
    """Whether the loader accepts ``text`` as skillsite.yml, and whether the schema does (on what
    the loader's YAML reading gives)."""
    path = tmp_path / "skillsite.yml"
    path.write_text(text, encoding="utf-8")
    try:
        load_config(path)
        loaded = True
    except ConfigError:
        loaded = False
    try:
        data = _read_yaml(path)[0]
    except ConfigError:
        return loaded, False
    return loaded, Draft202012Validator(SCHEMA).is_valid(data)


@pytest.mark.parametrize("name", VALID)
def test_valid_configurations_are_valid_for_both(name, tmp_path):
    (tmp_path / "skills" / "knowledge").mkdir(parents=True)  # the documented one names it: folders must exist
    assert verdicts(tmp_path, VALID[name]) == (True, True)


@pytest.mark.parametrize("name", INVALID)
def test_invalid_configurations_are_refused_by_both(name, tmp_path):
    assert verdicts(tmp_path, INVALID[name]) == (False, False)


@pytest.mark.parametrize("name", LOADER_ONLY)
def test_what_only_the_loader_can_refuse(name, tmp_path):
    assert verdicts(tmp_path, LOADER_ONLY[name]) == (False, True)


def test_the_marketplace_name_rules_agree_with_the_loaders(tmp_path):
    from skillsite.config_sections import name_problem

    name = Draft202012Validator(PROPS["marketplace"]["properties"]["name"])
    for candidate in ["tools", "claude-tools", "my-claude-official", "claude", "official-plugins", "x-anthropic",
                      "anthropical", "claudeofficial", "plugins-claude", "a" * 64, "a" * 65, "a--b", "-a"]:
        assert name.is_valid(candidate) == (name_problem(candidate) is None), candidate
    assert re.fullmatch(PROPS["marketplace"]["properties"]["name"]["pattern"], "platform-skills")


def test_a_duration_past_any_date_python_writes_is_refused_as_a_value() -> None:
    """``signing.expires`` (and ``--expires``) of 99999999999999999999d raised OverflowError out
    of timedelta, and 999999999999s passed only to fail later on the date: each is a ValueError
    naming the limit, which the configuration check and the option report."""
    from datetime import timedelta

    from skillsite.config_sections import MAX_DURATION, parse_duration, signing_problem

    assert parse_duration("30d") == timedelta(days=30) and parse_duration(f"{MAX_DURATION.days}d") == MAX_DURATION
    for text in ("99999999999999999999d", "9999999999w", "999999999999s", f"{MAX_DURATION.days + 1}d"):
        with pytest.raises(ValueError, match="longer than 36,500 days"):
            parse_duration(text)
        assert "longer than 36,500 days" in signing_problem({"expires": text})


@pytest.mark.parametrize("text, kind", [("- a\n- b\n", "a list"), ("just text\n", "a single value")])
def test_a_configuration_that_is_no_mapping_is_called_the_configuration(tmp_path, text: str, kind: str) -> None:
    """The reader it shares with SKILL.md frontmatter said "frontmatter is a list" of skillsite.yml."""
    path = tmp_path / "skillsite.yml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    assert [d.message for d in refused.value.diagnostics] == [f"the configuration is {kind}, not a mapping of keys "
                                                              "to values"]


def test_a_configuration_that_never_ends_is_refused_at_its_bound() -> None:
    """--config /dev/zero was read to its end: the command never returned."""
    with pytest.raises(ConfigError) as refused:
        load_config(Path("/dev/zero"))
    assert "the configuration is over 1,048,576 bytes" in refused.value.diagnostics[0].message


def test_a_key_written_twice_is_refused_with_both_lines(tmp_path) -> None:
    """The last one won without a word: a merge's leftover ``title`` decided the catalog unseen."""
    path = tmp_path / "skillsite.yml"
    path.write_text("title: One\nmarketplace:\n  name: m\n  owner:\n    name: x\n    name: y\ntitle: Two\n",
                    encoding="utf-8")
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    assert [(d.code, d.line, d.message) for d in refused.value.diagnostics] == [
        ("SK401", 6, "key 'marketplace.owner.name' appears again (first on line 5); write it once"),
        ("SK401", 7, "key 'title' appears again (first on line 1); write it once"),
    ]


def test_a_sections_problem_is_said_at_the_line_of_its_key_and_names_an_unknown_owner_key(tmp_path) -> None:
    """Both were said at the section's line, and ``owner.mail`` was "must be a mapping of name, email and url"."""
    path = tmp_path / "skillsite.yml"
    path.write_text("marketplace:\n  name: m\n  owner:\n    name: x\n    mail: y\ncopies:\n  group: true\n"
                    "  similarity: 7\nsigning:\n  expires: soon\n", encoding="utf-8")
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    assert [(d.line, d.message.split(" ", 1)[0]) for d in refused.value.diagnostics] == [
        (3, "'marketplace.owner'"), (8, "'copies.similarity'"), (10, "'signing.expires':")]
    assert "unknown keys: mail (known: name, email, url)" in refused.value.diagnostics[0].message
