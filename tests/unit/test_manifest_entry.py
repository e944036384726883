"""The typed manifest entry (skillsite.agent.entry): what the build writes, the loader reads and
the pages show.  ``to_json`` gives skills.json's entries exactly; ``from_json`` refuses what the
loader cannot use with the loader's own messages, and reads leniently what it always ignored."""
from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

import skillsite
from skillsite.agent.entry import (DEFAULT_VISIBILITY, NO_REQUIREMENTS, NO_TRIGGERS, NOTHING_FOUND, AuditSummary,
                                   DependencyRecord, EntryRequirements, FileRecord, KnowledgeRecord, ManifestEntry,
                                   ToolRecord, Triggers, Visibility, entry_problem, shared)
from skillsite.loader import Catalog, CatalogFormatError
from support import SAMPLE

FIRST = "api-design-checklist"


@pytest.fixture(scope="module")
def corpus_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample corpus of real skills, built once (its two broken skills left out)."""
    from skillsite.publish.build import build

    out = tmp_path_factory.mktemp("corpus") / "_site"
    assert build([SAMPLE], out, keep_going=True).ok
    return out


def manifest_entries(site: Path) -> list[dict[str, Any]]:
    return json.loads((site / "skills.json").read_text("utf-8"))["skills"]


def compact(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def first_entry(site: Path) -> dict[str, Any]:
    return copy.deepcopy(next(e for e in manifest_entries(site) if e["id"] == FIRST))


# ---- to_json gives skills.json's entries exactly, and from_json reads them back

@pytest.mark.parametrize("which", ["examples", "corpus"])
def test_every_published_entry_round_trips_byte_for_byte(which: str, site: Path, corpus_site: Path) -> None:
    entries = manifest_entries(site if which == "examples" else corpus_site)
    assert len(entries) > 10
    for data in entries:
        entry = ManifestEntry.from_json(data)
        assert compact(entry.to_json()) == compact(data)
        assert ManifestEntry.from_json(entry.to_json()) == entry


def test_the_example_entries_use_every_part_of_the_model(site: Path) -> None:
    entries = [ManifestEntry.from_json(e) for e in manifest_entries(site)]
    assert any(e.knowledge and isinstance(e.knowledge[0], KnowledgeRecord) for e in entries)
    assert any(e.tools and isinstance(e.tools[0], ToolRecord) and e.tools[0].required for e in entries)
    assert any(e.requirements.bins for e in entries) and any(e.children for e in entries)
    assert any(e.triggers is not None and e.triggers.keywords for e in entries)
    assert all(isinstance(e.audit, AuditSummary) and isinstance(e.files, tuple) for e in entries)
    assert {e.risk for e in entries} >= {"none"}
    assert any(e.visibility.hidden for e in entries) and any(e.visibility.always for e in entries)
    assert any(d.resolved for e in entries for d in e.dependencies)


#: Each entry field that usually holds one value, and the one record that stands for it.
COMMON = [("visibility", DEFAULT_VISIBILITY), ("requirements", NO_REQUIREMENTS), ("triggers", NO_TRIGGERS),
          ("audit", NOTHING_FOUND)]


@pytest.mark.parametrize("which", ["examples", "corpus"])
def test_entries_read_back_hold_one_record_for_what_most_skills_have(which: str, site: Path,
                                                                     corpus_site: Path) -> None:
    """Default visibility, no requirements, no triggers, nothing found: every entry read back
    holds the one frozen record of that value (a big catalog makes and holds one, not one a
    skill); another value stays the entry's own, equal to what the JSON says."""
    entries = [ManifestEntry.from_json(e) for e in manifest_entries(site if which == "examples" else corpus_site)]
    for name, common in COMMON:
        usual = [e for e in entries if getattr(e, name) == common]
        assert usual and all(getattr(e, name) is common for e in usual), name
    if which == "examples":  # and the examples have the other values too
        assert any(e.requirements.bins for e in entries) and any(e.triggers and e.triggers.keywords for e in entries)
        assert any(e.visibility.hidden for e in entries) and any(e.risk != "none" for e in entries)


def test_shared_gives_the_common_record_only_for_its_value() -> None:
    assert shared(Visibility(), DEFAULT_VISIBILITY) is DEFAULT_VISIBILITY
    hidden = Visibility(hidden=True)
    assert shared(hidden, DEFAULT_VISIBILITY) is hidden
    assert shared(AuditSummary("none", ()), NOTHING_FOUND) is NOTHING_FOUND
    assert shared(AuditSummary("low", ()), NOTHING_FOUND) == AuditSummary("low")
    assert Triggers.from_json({"keywords": ["x"]}) == Triggers(keywords=("x",))
    assert Triggers.from_json({}) is NO_TRIGGERS and EntryRequirements.from_json({}) is NO_REQUIREMENTS


def test_an_entry_is_frozen() -> None:
    entry = ManifestEntry(id="a", name="a", description="d", sha256="0" * 64,
                          urls=ManifestEntry.from_json(minimal()).urls)
    with pytest.raises(dataclasses.FrozenInstanceError):
        entry.name = "b"  # type: ignore[misc]


# ---- from_json refuses what the loader cannot use, with the loader's messages

def minimal(**more: Any) -> dict[str, Any]:
    """The smallest entry the loader accepts."""
    return {"id": "a", "name": "a", "description": "Does a.", "sha256": "0" * 64,
            "urls": {"skill_md": "skills/a/SKILL.md", "files": "skills/a/"}, "files": [],
            "visibility": {"hidden": False, "user_invocable_only": False, "always": False},
            "requirements": {}, **more}


PROBLEMS = [
    ([], "is not an object"),
    ({"id": "a"}, "has no name"),
    ({**minimal(), "id": ""}, "has no id"),
    ({**minimal(), "description": 5}, "has no description"),
    (minimal(sha256="ABC"), "(a) has no valid sha256"),
    (minimal(urls={"skill_md": "x"}), "(a) has no urls.skill_md / urls.files"),
    (minimal(files=[{"path": "x", "sha256": "0" * 64, "bytes": -1}]), "(a) has malformed files"),
    (minimal(files={"path": "x"}), "(a) has malformed files"),
    (minimal(requirements=None), "(a) has no visibility / requirements"),
    (minimal(visibility={"hidden": "no", "user_invocable_only": False, "always": False}),
     "(a) has malformed visibility"),
    (minimal(visibility={"hidden": False, "user_invocable_only": False, "always": False, "user_invocable": 1}),
     "(a) has malformed visibility"),
    (minimal(size={"bytes": "12"}), "(a) has malformed size"),
    (minimal(size=None), "(a) has malformed size"),
    (minimal(children=[[1]]), "(a) has malformed children"),
    (minimal(**{"allowed-tools": "Read Bash"}), "(a) has malformed allowed-tools"),
    (minimal(priority=None), "(a) has malformed priority"),
    (minimal(priority=True), "(a) has malformed priority"),
    (minimal(tools=[{"name": ["Bash"]}]), "(a) has malformed tools"),
    (minimal(requirements={"platforms": "linux"}), "(a) has malformed requirements.platforms"),
    (minimal(knowledge=[{"path": "k.md", "title": "K", "url": "knowledge/k.md", "sha256": "0" * 64, "size": -5}]),
     "(a) has malformed knowledge records"),
    (minimal(dependencies="b"), "(a) has malformed dependencies"),
    (minimal(dependencies=[{"name": "b", "version": "*", "resolved": None}]), "(a) has malformed dependencies"),
    (minimal(dependencies=[{"name": "b", "id": "b", "version": "*", "resolved": 1}]),
     "(a) has malformed dependencies"),
]


@pytest.mark.parametrize("data, problem", PROBLEMS, ids=[p for _, p in PROBLEMS])
def test_from_json_refuses_an_unusable_entry_with_the_loaders_message(data: Any, problem: str) -> None:
    assert entry_problem(data) == problem
    with pytest.raises(CatalogFormatError) as caught:
        ManifestEntry.from_json(data)
    assert str(caught.value) == f"skill {problem}"


def test_the_first_problem_is_the_one_reported() -> None:
    assert entry_problem(minimal(sha256="x", files=5)) == "(a) has no valid sha256"
    assert entry_problem(minimal(size=[1], priority="high")) == "(a) has malformed size"


def test_the_loader_reports_a_malformed_entry_with_its_location(site: Path, tmp_path: Path) -> None:
    data = json.loads((site / "skills.json").read_text("utf-8"))
    next(e for e in data["skills"] if e["id"] == FIRST)["size"] = [1]
    (tmp_path / "skills.json").write_text(json.dumps(data), "utf-8")
    catalog = Catalog.open(tmp_path)
    with pytest.raises(CatalogFormatError) as caught:
        catalog.manifest_entry(FIRST)
    assert str(caught.value) == f"{tmp_path / 'skills.json'}: skill ({FIRST}) has malformed size"
    assert catalog.manifest_entry("code-review").id == "code-review"   # one bad entry spoils only itself


@pytest.mark.parametrize("damage", [{"files": "oops"}, {"size": "big"}, {"visibility": [1]}, {"children": [1]}])
def test_a_listing_of_every_skill_refuses_a_malformed_entry_in_one_line(site: Path, tmp_path: Path,
                                                                       damage: dict) -> None:
    """prompt, status and tool list every skill, so one malformed entry refuses them (a damaged
    catalog is not half offered): exit 1 and one line naming the entry, never a traceback."""
    from click.testing import CliRunner

    from skillsite.cli import main

    data = json.loads((site / "skills.json").read_text("utf-8"))
    next(e for e in data["skills"] if e["id"] == FIRST).update(damage)
    (tmp_path / "skills.json").write_text(json.dumps(data), "utf-8")
    for command in (["prompt"], ["status"], ["tool"]):
        result = CliRunner().invoke(main, [*command, "--catalog", str(tmp_path)])
        assert result.exit_code == 1, result.output
        assert result.output.startswith("skillsite: ") and f"skill ({FIRST}) has " in result.output
        assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


# ---- what the loader has always ignored stays ignored; absent fields get the loader's defaults

def test_optional_fields_may_be_absent() -> None:
    entry = ManifestEntry.from_json(minimal())
    assert (entry.priority, entry.command, entry.triggers, entry.audit, entry.size) == (0, None, None, None, None)
    assert entry.visibility == Visibility() and entry.visibility.user_invocable
    assert entry.requirements == EntryRequirements() and entry.risk == "none"
    assert entry.tools == entry.knowledge == entry.children == entry.allowed_tools == entry.dependencies == ()


@pytest.mark.parametrize("key, value", [("conflicts", 5), ("conflicts", "b"), ("command", 7), ("triggers", ["x"]),
                                        ("tags", "ops"), ("metadata", [1]), ("interface", "x"), ("warnings", 3)])
def test_fields_the_loader_ignores_when_malformed_count_as_absent(key: str, value: Any) -> None:
    assert ManifestEntry.from_json(minimal(**{key: value})) == ManifestEntry.from_json(minimal())


def test_tools_that_name_no_tool_are_left_out_as_before() -> None:
    entry = ManifestEntry.from_json(minimal(tools=["Read", {"purpose": "x"}, {"name": "Bash", "required": 1}]))
    assert entry.tools == (ToolRecord("Bash", "", True),)


@pytest.mark.parametrize("audit", ["high", {"risk": "trust-me", "findings": []}, {"risk": "none"},
                                   {"risk": "none", "findings": [{"code": "SK601"}]}])
def test_an_audit_that_is_not_well_formed_counts_as_high_risk(audit: Any) -> None:
    assert ManifestEntry.from_json(minimal(audit=audit)).risk == "high"


def test_an_audit_of_null_is_no_audit() -> None:
    assert ManifestEntry.from_json(minimal(audit=None)).risk == "none"


def test_to_json_of_an_old_entry_gives_the_current_format_with_its_defaults() -> None:
    data = ManifestEntry.from_json(minimal()).to_json()
    assert data["visibility"]["user_invocable"] is True and data["priority"] == 0
    assert "command" not in data and "triggers" not in data and "audit" not in data and "size" not in data
    assert data["dependencies"] == []
    assert ManifestEntry.from_json(data) == ManifestEntry.from_json(minimal())


def test_records_keep_their_key_order_and_leave_out_what_is_unknown() -> None:
    assert list(FileRecord("x", "0" * 64, 3).to_json()) == ["path", "bytes", "sha256"]
    assert list(FileRecord("x", "0" * 64).to_json()) == ["path", "sha256"]
    assert list(KnowledgeRecord("k", "K", "0" * 64, "u", 1).to_json()) == ["path", "title", "size", "sha256", "url"]
    assert Triggers.from_json({"phrases": ["a", 5], "verbs": "x"}) == Triggers(phrases=("a",))
    assert list(DependencyRecord("b", "x/b", "^1.2", "1.2.3").to_json()) == ["name", "id", "version", "resolved"]


def test_dependencies_round_trip_with_and_without_a_resolved_release() -> None:
    records = [{"name": "b", "id": "x/b", "version": "^1.2", "resolved": "1.4.0"},
               {"name": "c", "id": "c", "version": "*", "resolved": None}]
    entry = ManifestEntry.from_json(minimal(dependencies=records))
    assert entry.dependencies == (DependencyRecord("b", "x/b", "^1.2", "1.4.0"), DependencyRecord("c", "c"))
    assert entry.to_json()["dependencies"] == records


# ---- the loader's typed accessors, beside the JSON ones it keeps

def test_the_catalog_gives_entries_typed_and_keeps_the_json_ones(site: Path) -> None:
    catalog = Catalog.open(site)
    assert all(isinstance(e, dict) for e in catalog.skills)
    assert [e.to_json() for e in catalog.entries] == catalog.skills
    assert catalog.entry("changelog") is next(e for e in catalog.skills if e["id"] == "release-manager/changelog")
    assert catalog.manifest_entry("changelog") == ManifestEntry.from_json(catalog.entry("changelog"))
    assert catalog.manifest_entry("changelog") is catalog.entries[[e["id"] for e in catalog.skills].index(
        "release-manager/changelog")]


def test_the_entry_class_is_public() -> None:
    assert skillsite.ManifestEntry is ManifestEntry
    assert "ManifestEntry" in skillsite.__all__


def test_budgets_read_entries_and_the_json_skillsite_budget_has_alike(site: Path) -> None:
    from skillsite.agent.budget import budget_fits, similar_pairs

    data = manifest_entries(site)
    entries = [ManifestEntry.from_json(e) for e in data]
    assert budget_fits(entries, {}) == budget_fits(data, {})
    assert similar_pairs(entries, 0.05) == similar_pairs(data, 0.05) != []
    odd = [{"id": "x", "name": "x", "description": "Does x.", "visibility": [1], "priority": "high"}]
    assert budget_fits(odd, {})[0].fit == ("x",)


def test_an_entry_holds_its_skill_s_own_values_where_they_are_equal(tmp_path):
    """An entry comes back from a worker (or from the cache) as a copy: the build swaps in the
    skill's own description, name, id, sha256 and tags, so a big catalog holds each once."""
    import pickle

    from skillsite.publish.build import build
    from skillsite.publish.skills import SHARED_WITH_SKILL, sharing_skill_values
    from skillsite.source.catalog import read_catalog
    from support import write_skill

    write_skill(tmp_path / "src", "a", "name: a\ndescription: Does a thing. Use when testing.\ntags: [x, y]\n")
    assert build([tmp_path / "src"], tmp_path / "out").ok
    stored = json.loads((tmp_path / "out" / "skills.json").read_text(encoding="utf-8"))["skills"][0]
    entry = pickle.loads(pickle.dumps(ManifestEntry.from_json(stored)))
    skill = read_catalog([tmp_path / "src"]).skills[0]
    sharing = sharing_skill_values(entry, skill)
    assert sharing == entry and sharing.to_json() == stored
    assert all(getattr(sharing, name) is getattr(skill, name) for name in SHARED_WITH_SKILL)
    other = sharing_skill_values(dataclasses.replace(entry, description="Another thing."), skill)
    assert other.description == "Another thing." and other.name is skill.name
    # a worker's copy holds copies of the common records too: they are swapped for the shared ones
    assert entry.visibility is not DEFAULT_VISIBILITY and entry.requirements is not NO_REQUIREMENTS
    assert sharing.visibility is DEFAULT_VISIBILITY and sharing.requirements is NO_REQUIREMENTS
    assert sharing.triggers is NO_TRIGGERS
