"""Slash commands (sanitising, clashes, command_message) and skill_status (every reason, conflicts)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillsite.agent.commands import assign_commands, command_name, split_command_line
from skillsite.cli import main
from skillsite.loader import Catalog, NotFoundError
from skillsite.publish.build import build
from skillsite.source.catalog import check_catalog
from support import write_skill


@pytest.mark.parametrize("skill_id, command", [
    ("release-manager/version-bump", "release_manager/version_bump"),
    ("Data  Tools/CSV--Export", "data_tools/csv_export"),
    ("-x-/y", "x/y"),
    ("a/---", "a/skill"),
    ("café/naïve-one", "café/naïve_one"),
])
def test_command_names_sanitise_each_segment_and_keep_the_levels(skill_id: str, command: str) -> None:
    assert command_name(skill_id) == command


def test_a_clash_keeps_the_command_for_higher_priority_then_smaller_id() -> None:
    assigned = assign_commands([("a-b", 0), ("a_b", 0), ("A-B", 5), ("a_b_2", 0)])
    assert assigned["A-B"] == ("a_b", None)
    assert assigned["a_b_2"] == ("a_b_2", None)            # its own command is never taken from it
    assert assigned["a-b"] == ("a_b_3", "A-B") and assigned["a_b"] == ("a_b_4", "A-B")


def test_the_same_pairs_in_any_order_take_the_last_assignment_again() -> None:
    """The catalog check and publishing both assign the commands, and ``serve`` at every build:
    the same pairs (in any order) give the assignment made last, which nobody can change; other
    pairs are assigned anew."""
    pairs = [("a-b", 0), ("a_b", 0), ("A-B", 5), ("x", 1)]
    assigned = assign_commands(pairs)
    assert assign_commands(reversed(pairs)) is assigned
    with pytest.raises(TypeError):
        assigned["x"] = ("y", None)  # type: ignore[index]
    raised = assign_commands([("a-b", 9), ("a_b", 0), ("A-B", 5), ("x", 1)])
    assert raised is not assigned and raised["a-b"] == ("a_b", None) and raised["A-B"] == ("a_b_2", "a-b")
    assert assign_commands(pairs) == assigned


def test_command_lines_split_into_command_and_task() -> None:
    assert split_command_line("/release_manager/changelog since v1.2") == ("release_manager/changelog", "since v1.2")
    assert split_command_line("  /x  ") == ("x", "")
    assert split_command_line("/x first line\nsecond line") == ("x", "first line\nsecond line")


def test_validate_reports_the_clash_and_the_build_numbers_it(tmp_path: Path) -> None:
    src = tmp_path / "src"
    write_skill(src, "data-export")
    write_skill(src, "data_export", "name: data_export\ndescription: Wins the clash. Use when testing.\npriority: 3\n")
    clashes = [d for d in check_catalog([src]).diagnostics if d.code == "SK217"]
    assert [(d.path.split("/")[-2], d.severity.value) for d in clashes] == [("data-export", "warning")]
    assert "/data_export_2" in clashes[0].message and "'data_export'" in clashes[0].message
    assert build([src], tmp_path / "out").ok
    catalog = Catalog.open(tmp_path / "out")
    assert {e["id"]: e["command"] for e in catalog.skills} == {"data-export": "data_export_2",
                                                               "data_export": "data_export"}


def test_command_message_sends_the_body_and_the_task(site: Path) -> None:
    catalog = Catalog.open(site)
    assert catalog.entry("release-manager/changelog")["command"] == "release_manager/changelog"
    body = catalog.load("release-manager/changelog").body.strip("\n")
    assert catalog.command_message("/release_manager/changelog since v1.2") == f"{body}\n\nTask: since v1.2"
    assert catalog.command_message("/release_manager/changelog") == body
    # a user-invocable-only skill is reached this way: that is what it is for
    prerelease = catalog.command_message("/release_manager/version_bump/prerelease rc")
    assert prerelease.endswith("\n\nTask: rc")
    # commands are lower-case, so one typed in another case is the same command
    assert catalog.command_message("/Release_Manager/CHANGELOG since v1.2") == f"{body}\n\nTask: since v1.2"


def test_an_unknown_command_names_close_matches(site: Path) -> None:
    with pytest.raises(NotFoundError, match=r"/release_manager/changelg.*did you mean /release_manager/changelog"):
        Catalog.open(site).command_message("/release_manager/changelg now")
    # what was typed is said with control characters and lone surrogates as U+FFFD, and cut short
    with pytest.raises(NotFoundError) as raised:
        Catalog.open(site).command_message("/rel\x1b[2Jease\ud800" + "x" * 5000 + " now")
    said = str(raised.value)
    assert "/rel\ufffd[2Jease\ufffdxxx" in said and len(said) < 400
    said.encode("utf-8")   # no lone surrogate left


# ---------------------------------------------------------------- status

@pytest.fixture(scope="module")
def status_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("src")
    write_skill(src, "needs-bin", "name: needs-bin\ndescription: Needs a tool. Use when testing.\n"
                                  "requires: {bins: [no-such-binary-xyz]}\n")
    write_skill(src, "needs-env", "name: needs-env\ndescription: Needs a variable. Use when testing.\n"
                                  "requires: {env: [SKILLSITE_TEST_TOKEN]}\n")
    write_skill(src, "windows-only", "name: windows-only\ndescription: Runs on Windows. Use when testing.\n"
                                     "platforms: [windows]\n")
    write_skill(src, "strict-mode", "name: strict-mode\ndescription: Always on. Use always.\nalways: true\n")
    write_skill(src, "loose-mode", "name: loose-mode\ndescription: Conflicts with strict. Use when testing.\n"
                                   "conflicts: [strict-mode]\n")
    write_skill(src, "writer", "name: writer\ndescription: Writes. Use when testing.\n")
    write_skill(src, "reviewer", "name: reviewer\ndescription: Reviews. Use when testing.\nconflicts: [writer]\n")
    write_skill(src, "secret", "name: secret\ndescription: Hidden. Use never.\nhidden: true\n")
    write_skill(src, "by-hand", "name: by-hand\ndescription: User only. Use by hand.\nuser-invocable-only: true\n")
    write_skill(src, "no-way", "name: no-way\ndescription: User only, no command. Use never.\n"
                               "user-invocable-only: true\nuser-invocable: false\n")
    out = tmp_path_factory.mktemp("site") / "_site"
    assert build([src], out).ok
    return out


def test_skill_status_gives_each_state_and_reason(status_site: Path) -> None:
    catalog = Catalog.open(status_site)
    found = {s.id: (s.state, s.reasons) for s in catalog.skill_status(env={"PATH": ""}, platform="linux")}
    assert list(found) == sorted(found)
    assert found["needs-bin"] == ("ineligible", ["needs 'no-such-binary-xyz' on PATH"])
    assert found["needs-env"] == ("ineligible", ["needs $SKILLSITE_TEST_TOKEN set"])
    assert found["windows-only"] == ("ineligible", ["runs on windows, not linux"])
    assert found["loose-mode"] == ("ineligible", ["conflicts with 'strict-mode', which is always on"])
    assert found["strict-mode"][0] == "eligible" and found["writer"][0] == found["reviewer"][0] == "eligible"
    assert found["secret"][0] == "hidden" and found["by-hand"][0] == "user-only"
    assert found["by-hand"][1] == ["only a user can invoke it, by its slash command"]
    assert found["no-way"] == ("user-only", ["only a user can invoke it, but it says user-invocable: false, so it "
                                             "has no slash command either"])
    # the relation holds both ways: an active reviewer keeps writer off, an active writer keeps reviewer off
    active = {s.id: s for s in catalog.skill_status(env={"PATH": ""}, active=["reviewer"])}
    assert active["writer"].reasons == ["conflicts with 'reviewer', which is active"]
    assert active["reviewer"].state == "eligible"
    active = {s.id: s for s in catalog.skill_status(env={"PATH": ""}, active=["writer"])}
    assert active["reviewer"].state == "ineligible"


def test_conflicts_also_keep_a_skill_out_of_the_prompt_and_the_tool(status_site: Path) -> None:
    catalog = Catalog.open(status_site)
    assert "<name>loose-mode</name>" not in catalog.prompt()
    assert "loose-mode" not in catalog.skill_tool()["function"]["parameters"]["properties"]["skill_name"]["enum"]
    assert "conflicts with 'strict-mode'" in catalog.call_skill_tool({"skill_name": "loose-mode"})


def test_status_command_prints_the_same_in_text_and_json(status_site: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["status", "--catalog", str(status_site), "--json", "--active", "reviewer"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert [r["id"] for r in rows] == sorted(r["id"] for r in rows)
    assert next(r for r in rows if r["id"] == "writer")["state"] == "ineligible"
    text = runner.invoke(main, ["status", "--catalog", str(status_site)])
    assert "ineligible loose-mode: conflicts with 'strict-mode', which is always on" in text.output
    assert text.output == runner.invoke(main, ["status", "--catalog", str(status_site)]).output


def test_build_reports_unknown_and_self_conflicts(tmp_path: Path) -> None:
    write_skill(tmp_path, "alpha", "name: alpha\ndescription: A. Use when testing.\nconflicts:\n  - beta\n"
                                   "  - no-such-skill\n")
    write_skill(tmp_path, "beta", "name: beta\ndescription: B. Use when testing.\nconflicts: [beta]\n")
    diags = [(d.code, d.severity.value, d.path.split("/")[-2], d.line) for d in check_catalog([tmp_path]).diagnostics
             if d.code in ("SK215", "SK216")]
    assert sorted(diags) == [("SK215", "warning", "alpha", 6), ("SK216", "error", "beta", 4)]


def test_of_two_conflicting_always_skills_the_higher_priority_stays_on(tmp_path: Path) -> None:
    write_skill(tmp_path / "src", "strict", "name: strict\ndescription: S. Use always.\nalways: true\npriority: 5\n"
                                            "conflicts: [loose]\n")
    write_skill(tmp_path / "src", "loose", "name: loose\ndescription: L. Use always.\nalways: true\n")
    assert build([tmp_path / "src"], tmp_path / "_site").ok
    found = {s.id: s for s in Catalog.open(tmp_path / "_site").skill_status()}
    assert found["strict"].state == "eligible"
    assert found["loose"].reasons == ["conflicts with 'strict', which is always on"]
    active = {s.id: s.state for s in Catalog.open(tmp_path / "_site").skill_status(active=["loose"])}
    assert active == {"loose": "eligible", "strict": "ineligible"}   # an active skill wins


def test_an_always_skill_that_needs_an_ineligible_skill_keeps_no_conflicting_one_off(tmp_path: Path) -> None:
    """strict is always on but needs token-helper, whose $SKILLSITE_TEST_TOKEN is unset: strict is
    not offered, so loose (which conflicts with it) is; with the token set, strict is on again."""
    write_skill(tmp_path / "src", "token-helper", "name: token-helper\ndescription: T. Use when testing.\n"
                                                  "requires: {env: [SKILLSITE_TEST_TOKEN]}\n")
    write_skill(tmp_path / "src", "strict", "name: strict\ndescription: S. Use always.\nalways: true\n"
                                            "depends: [token-helper]\nconflicts: [loose]\n")
    write_skill(tmp_path / "src", "loose", "name: loose\ndescription: L. Use when testing.\n")
    assert build([tmp_path / "src"], tmp_path / "_site").ok
    catalog = Catalog.open(tmp_path / "_site")
    found = {s.id: (s.state, s.reasons) for s in catalog.skill_status(env={})}
    assert found["strict"][0] == "ineligible" and found["loose"] == ("eligible", [])
    found = {s.id: (s.state, s.reasons) for s in catalog.skill_status(env={"SKILLSITE_TEST_TOKEN": "x"})}
    assert found["strict"] == ("eligible", []) and found["loose"] == ("ineligible", [
        "conflicts with 'strict', which is always on"])


def test_conflicts_as_one_string_are_names_split_on_commas(tmp_path: Path) -> None:
    write_skill(tmp_path / "src", "a", "name: a\ndescription: A. Use when testing.\nconflicts: b, c\n")
    write_skill(tmp_path / "src", "b")
    write_skill(tmp_path / "src", "c")
    assert not [d for d in check_catalog([tmp_path / "src"]).diagnostics if d.code in ("SK215", "SK216")]
    assert build([tmp_path / "src"], tmp_path / "_site").ok
    assert Catalog.open(tmp_path / "_site").entry("a")["conflicts"] == ["b", "c"]


def test_a_malformed_conflicts_value_in_a_manifest_does_not_break_the_loader(status_site: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(status_site, site)
    manifest = json.loads((site / "skills.json").read_text("utf-8"))
    for entry in manifest["skills"]:
        entry["conflicts"] = 5
    (site / "skills.json").write_text(json.dumps(manifest), "utf-8")
    catalog = Catalog.open(site)
    assert "<available_skills>" in catalog.prompt() and catalog.skill_status()


def test_a_command_message_carries_no_control_character(site: Path) -> None:
    """As in the <skill_content> a load gives: an ESC (an ANSI sequence) or a NUL of the body, or
    of the task typed, reaches the model as U+FFFD."""
    from skillsite.agent.commands import command_message

    assert command_message("# T\n\x1b[31mred\x00\n", "go\x07") == "# T\n\ufffd[31mred\ufffd\n\nTask: go\ufffd"


def test_a_copy_of_another_skill_is_a_copy_not_eligible(tmp_path: Path) -> None:
    """The same skill in skills/ and .claude/skills/: models are offered the canonical member
    only, so the other one's state is copy, naming it, in the loader and in skillsite status."""
    for place in ("skills", ".claude/skills"):
        write_skill(tmp_path / "src" / place, "invoices", description="Reads invoices. Use when an invoice arrives.",
                    body="# Invoices\n\nOpen the invoice, check the totals and file it under its supplier.\n")
    assert build([tmp_path / "src"], tmp_path / "_site").ok
    found = {s.id: (s.state, s.reasons) for s in Catalog.open(tmp_path / "_site").skill_status()}
    assert found == {"skills/invoices": ("eligible", []), ".claude/skills/invoices": (
        "copy", ["it is a copy of skill 'skills/invoices', offered to models as that one"])}
    text = CliRunner().invoke(main, ["status", "--catalog", str(tmp_path / "_site")]).output
    assert "copy       .claude/skills/invoices: it is a copy of skill 'skills/invoices'" in text
    assert text.rstrip().endswith("1 eligible, 0 ineligible, 0 hidden, 0 user-only, 1 copy")


def test_a_name_shared_only_by_copies_of_one_skill_loads_the_canonical_member(tmp_path: Path) -> None:
    """The prompt lists a group of copies once, by name: loading that name gives its canonical
    member, not 'shared by skills ...'; a name two different skills share still needs an id."""
    for place in ("skills", ".claude/skills"):
        write_skill(tmp_path / "src" / place, "invoices", description="Reads invoices. Use when an invoice arrives.",
                    body="# Invoices\n\nOpen the invoice, check the totals and file it under its supplier.\n")
    write_skill(tmp_path / "src" / "a", "deploy", description="Deploys a web service. Use when shipping.")
    write_skill(tmp_path / "src" / "b", "deploy", body="# Other\n\nSomething else entirely, for databases.\n",
                description="Migrates a database schema. Use when the schema changes.")
    assert build([tmp_path / "src"], tmp_path / "_site", keep_going=True).ok
    catalog = Catalog.open(tmp_path / "_site")
    assert "<name>invoices</name>" in catalog.prompt()
    assert catalog.load("invoices").name == "invoices" and catalog.manifest_entry("invoices").id == "skills/invoices"
    with pytest.raises(NotFoundError, match="shared by skills"):
        catalog.load("deploy")


def test_command_message_checks_only_the_entries_naming_the_command(site: Path, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A first command checked every entry of the catalog (``skillsite mcp``'s prompts/get paid
    for all of them once its listings stopped checking them); it checks those whose JSON names
    the command, and answers as before: the last well-formed one, in any case as typed, and a
    malformed entry with the command does not answer."""
    copied = tmp_path / "site"
    shutil.copytree(site, copied)
    data = json.loads((copied / "skills.json").read_text("utf-8"))
    model = next(e for e in data["skills"] if e["id"] == "test-first")
    data["skills"] += [{**model, "id": "late-copy", "name": "late-copy"},
                       {**model, "id": "broken-copy", "name": "broken-copy", "files": "oops"}]
    (copied / "skills.json").write_text(json.dumps(data), "utf-8")
    from skillsite.agent import entry as entry_module
    parsed: list[str] = []
    parse = entry_module.ManifestEntry.from_json.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(entry_module.ManifestEntry, "from_json",
                        classmethod(lambda cls, raw: (parsed.append(raw["id"]), parse(cls, raw))[1]))
    catalog = Catalog.open(copied)
    body = catalog.load("late-copy").body.strip("\n")
    parsed.clear()
    assert catalog.command_message(f"/{model['command'].upper()} now") == f"{body}\n\nTask: now"
    assert sorted(parsed) == ["broken-copy", "test-first"]  # late-copy was checked by load already
    with pytest.raises(NotFoundError):
        catalog.command_message("/no_such_command")


def test_clashing_commands_are_numbered_in_one_pass() -> None:
    """Each clashing skill looked for its number from 2 again: 40,000 ids folding to /x_y/s took
    two minutes.  The numbers are the same: the smallest free, in rank order."""
    from skillsite.agent.commands import _assigned

    ids = frozenset((f"x{'-' * (n % 7 + 1)}{'_' * (n // 7)}y/s", 0) for n in range(3000))
    assigned = _assigned(ids | {("x_y/s_5", 1)})      # a natural command the numbering must skip
    numbers = sorted(int(command.rsplit("_", 1)[1]) for command, first in assigned.values() if first is not None)
    assert numbers == [n for n in range(2, 3002) if n != 5]
    assert assigned["x_y/s_5"] == ("x_y/s_5", None)
