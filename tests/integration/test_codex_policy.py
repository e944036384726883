"""Codex's ``policy.allow_implicit_invocation: false`` (``agents/openai.yaml``): the skill is
hidden from models as ``disable-model-invocation`` hides one, and stays listed for people; a
rebuild after the file changes gives the cold build's catalog."""
from __future__ import annotations

import json
from pathlib import Path

from skillsite.loader import Catalog
from skillsite.publish.build import build
from skillsite.source.catalog import check_catalog
from support import tree_bytes, write_skill

QUIET = "policy:\n  allow_implicit_invocation: false\n"
LOUD = "policy:\n  allow_implicit_invocation: true\n"


def _catalog(src: Path) -> None:
    for name, policy in (("quiet", QUIET), ("loud", LOUD), ("plain", None)):
        folder = write_skill(src, name, description="Handles deployments of the service. Use when asked to deploy.",
                             body=f"# {name}\n\nThe {name} way of doing it.\n")
        if policy is not None:
            (folder / "agents").mkdir()
            (folder / "agents" / "openai.yaml").write_text(policy, encoding="utf-8")


def _visibility(site: Path) -> dict[str, dict]:
    manifest = json.loads((site / "skills.json").read_text("utf-8"))
    return {entry["id"]: entry["visibility"] for entry in manifest["skills"]}


def test_a_skill_codex_may_not_invoke_on_its_own_is_hidden_from_models_and_listed(tmp_path: Path,
                                                                                    monkeypatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    src, site, cache = tmp_path / "src", tmp_path / "site", tmp_path / "cache"
    _catalog(src)
    assert build([src], site, cache_dir=cache).ok
    seen = _visibility(site)
    assert seen["quiet"]["hidden"] is True and seen["quiet"]["hidden_by"] == "policy.allow_implicit_invocation"
    assert seen["loud"]["hidden"] is False and seen["plain"]["hidden"] is False
    catalog = Catalog.open(site)
    assert catalog.skill_tool()["function"]["parameters"]["properties"]["skill_name"]["enum"] == ["loud", "plain"]
    assert "quiet" not in (site / "available_skills.xml").read_text("utf-8")
    assert "skills/quiet/" in (site / "index.html").read_text("utf-8")     # listed for people
    status = {s.id: s for s in catalog.skill_status()}
    assert status["quiet"].state == "hidden", status["quiet"]
    assert "policy.allow_implicit_invocation: false in agents/openai.yaml" in status["quiet"].reasons[0]
    message = catalog.command_message("/quiet check it")   # a person still invokes it
    assert "The quiet way of doing it." in message and message.endswith("Task: check it"), message
    (src / "quiet" / "agents" / "openai.yaml").write_text(LOUD, encoding="utf-8")
    assert build([src], site, cache_dir=cache).ok
    assert _visibility(site)["quiet"]["hidden"] is False
    assert build([src], tmp_path / "cold").ok
    assert tree_bytes(site) == tree_bytes(tmp_path / "cold")


def test_validate_compares_no_description_of_a_skill_no_model_is_offered(tmp_path: Path) -> None:
    """SK219 (look-alike descriptions) pairs only skills offered to a model."""
    src = tmp_path / "src"
    _catalog(src)
    codes = {(d.code, d.path) for d in check_catalog([src], copies=None).diagnostics if d.code == "SK219"}
    assert codes == {("SK219", str(src / "plain" / "SKILL.md"))}, codes   # loud and plain, not quiet


def test_a_policy_codex_would_read_otherwise_is_said(tmp_path: Path) -> None:
    """``no`` is false in YAML 1.1 (the skill is hidden) but text to Codex's reader: SK220 says so;
    a key written twice (the last one wins) is said too; true and false, quoted or not, are not."""
    src = tmp_path / "src"
    files = {"yaml11": "policy:\n  allow_implicit_invocation: no  # off\n",
             "flow": "policy: {allow_implicit_invocation: Off}\n",
             "twice": "policy:\n  allow_implicit_invocation: true\npolicy:\n  allow_implicit_invocation: false\n",
             "plain": "policy:\n  allow_implicit_invocation: FALSE\n"}
    for name, text in files.items():
        folder = write_skill(src, name)
        (folder / "agents").mkdir()
        (folder / "agents" / "openai.yaml").write_text(text, encoding="utf-8")
    said = sorted((d.path.split("/")[-3], d.line, d.message) for d in check_catalog([src]).diagnostics
                  if d.code == "SK220")
    assert said == [
        ("flow", 1, "agents/openai.yaml: 'policy.allow_implicit_invocation: Off' is a boolean in YAML 1.1 only; "
                    "Codex reads it as text (write true or false)"),
        ("twice", 3, "agents/openai.yaml: key 'policy' appears again (first on line 1); the last value wins"),
        ("yaml11", 2, "agents/openai.yaml: 'policy.allow_implicit_invocation: no' is a boolean in YAML 1.1 only; "
                      "Codex reads it as text (write true or false)")], said
