"""A dependency on a name that only copies of one skill share (skillsite.source.dependencies.copy_aliases):
the copies are one skill shown once, so the name stands for the copy standing for the group, not
SK223 "a name several skills share"; two different skills of one name still give SK223.  Which copy:
the first in canonical order that the catalog-wide checks reading no dependency did not refuse
(skillsite.source.catalog._copy_aliases argues the order)."""
from __future__ import annotations

from pathlib import Path

from skillsite.agent.entry import DependencyRecord
from skillsite.source.catalog import check_catalog, read_catalog
from skillsite.source.dependencies import (CatalogNames, Dependent, copy_aliases, needing_erring,
                                           needing_left_out, release_dependencies, resolve_dependencies)
from support import write_copies, write_skill

DESCRIPTION = "Formats release notes from merged pull requests. Use when writing a changelog entry."


def dep(skill_id: str, *items: str, name: str | None = None) -> Dependent:
    return Dependent(skill_id, name or skill_id.rsplit("/", 1)[-1], f"{skill_id}/SKILL.md",
                     tuple((item, 3, 1) for item in items))


def test_a_name_only_copies_of_one_group_share_stands_for_its_first_member() -> None:
    named = [("skills/x", "x"), (".claude/skills/x", "x"), ("y1/y", "y"), ("y2/y", "y"), ("z", "z"),
             ("renamed/x-copy", "x-copy")]
    groups = [(".claude/skills/x", "skills/x", "renamed/x-copy"), ("y1/y",)]
    # y: one holder outside every group; z and x-copy: one holder each, which stands for itself
    assert copy_aliases(named, groups) == {"x": ".claude/skills/x"}
    assert copy_aliases(named, [("skills/x", ".claude/skills/x")]) == {"x": "skills/x"}
    assert copy_aliases([*named, ("other/x", "x")], groups) == {}   # another skill holds the name too


def test_resolving_a_name_copies_share_gives_the_alias_and_no_sk223() -> None:
    dependents = [dep("a", "x@^1"), dep("skills/x"), dep(".claude/skills/x")]
    releases = {"skills/x": ["1.2.0"], ".claude/skills/x": ["1.2.0"]}
    found = resolve_dependencies(dependents, releases, aliases={"x": "skills/x"})
    assert found.diagnostics == []
    assert found.dependencies["a"] == [DependencyRecord("x", "skills/x", "^1", "1.2.0")]
    shared = resolve_dependencies(dependents, releases)
    assert [d.code for _, d in shared.diagnostics] == ["SK223"]
    assert "a name several skills share" in shared.diagnostics[0][1].message


def test_the_range_is_matched_against_the_alias_releases() -> None:
    dependents = [dep("a", "x@^2"), dep("skills/x"), dep(".claude/skills/x")]
    found = resolve_dependencies(dependents, {"skills/x": ["1.0.0"], ".claude/skills/x": ["2.0.0"]},
                                 aliases={"x": "skills/x"})
    assert [(d.code, d.message) for _, d in found.diagnostics] == [
        ("SK224", "skill 'a' depends on 'x' (skill 'skills/x') at range '^2', which no release satisfies: "
                  "its releases are 1.0.0")]


def test_a_skill_needing_an_alias_left_out_is_left_out_though_another_copy_stands() -> None:
    """The alias does not move to the next copy when the one it names has errors: its range and
    cycles were checked against that one."""
    dependents = [dep("a", "x"), dep("skills/x"), dep(".claude/skills/x"), dep("c", "a")]
    aliases = {"x": "skills/x"}
    assert [(i, d.code, d.message) for i, d in needing_erring(dependents, {1}, aliases=aliases)] == [
        (0, "SK223", "skill 'a' depends on 'x', which stands for its copy 'skills/x', left out of this catalog for "
                     "its errors: 'a' is left out too (name another copy by its id to need that one)"),
        (3, "SK223", "skill 'c' depends on 'a', which is left out of this catalog for needing a skill left out: "
                     "'c' is left out too")]
    assert needing_erring(dependents, {2}, aliases=aliases) == []
    published = [dependents[0], dependents[2], dependents[3]]   # as publishing sees it, skills/x dropped
    unmet = needing_left_out(published, frozenset(), aliases=aliases)
    assert [(u.index, u.item) for u in unmet] == [(0, "x"), (2, "a")]


def test_a_past_release_resolves_a_name_copies_share_to_the_alias() -> None:
    names = CatalogNames.of([("skills/x", "x"), (".claude/skills/x", "x")], {"x": "skills/x"})
    assert release_dependencies(["x@^1"], names, {"skills/x": ["1.0.0"]}) == [
        DependencyRecord("x", "skills/x", "^1", "1.0.0")]
    assert release_dependencies(["x@^1"], CatalogNames.of([("skills/x", "x"), (".claude/skills/x", "x")]),
                                {"skills/x": ["1.0.0"]}) == []


def copies_and_a(root: Path, x_extra: str = "", claude_extra: str = "") -> Path:
    """x in skills/ and .claude/skills/ (copies: one body), and a needing x."""
    write_copies(root, [("skills/x", "x", x_extra), (".claude/skills/x", "x", claude_extra)], DESCRIPTION)
    write_skill(root, "skills/a", "name: a\ndescription: Ships a release. Use when shipping.\ndepends: [x]\n")
    return root


def errors(root: Path) -> dict[str, list[tuple[str, str]]]:
    """The errors validate and the build's reading find, by which: (skill folder, code)."""
    found = {"validate": check_catalog([root], ignore=["SK219"]).diagnostics,
             "read": read_catalog([root], ignore=["SK219"]).diagnostics}
    return {which: [(Path(d.path).parent.relative_to(root).as_posix(), d.code) for d in diags
                    if d.severity.value == "error"] for which, diags in found.items()}


def test_copies_of_the_skill_needed_are_no_shared_name_but_two_different_skills_are(tmp_path: Path) -> None:
    root = copies_and_a(tmp_path / "copies")
    assert errors(root) == {"validate": [], "read": []}
    reading = read_catalog([root], ignore=["SK219"])
    assert reading.copies == (("skills/x", ".claude/skills/x"),)
    assert reading.aliases == (("x", "skills/x"),)
    other = tmp_path / "two"
    write_skill(other, "skills/x", name="x", description=DESCRIPTION)
    write_skill(other, "tools/x", name="x", description="Converts images between formats. Use when resizing.",
                body="# Images\n\nAnother skill entirely, whose name happens to be the same one.\n")
    write_skill(other, "skills/a", "name: a\ndescription: Ships a release. Use when shipping.\ndepends: [x]\n")
    assert errors(other) == {"validate": [("skills/a", "SK223")], "read": [("skills/a", "SK223")]}


def test_the_copy_standing_after_the_checks_reading_no_dependency_is_the_one_needed(tmp_path: Path) -> None:
    """skills/x (canonical by place) names a missing knowledge document (SK218, a catalog-wide
    error): .claude/skills/x stands, and a needs it."""
    root = copies_and_a(tmp_path, x_extra="knowledge: [nowhere.md]\n")
    assert errors(root) == {"validate": [("skills/x", "SK218")], "read": [("skills/x", "SK218")]}
    reading = read_catalog([root], ignore=["SK219"])
    assert reading.copies == ((".claude/skills/x", "skills/x"),)
    assert reading.aliases == (("x", ".claude/skills/x"),)


def test_a_copy_the_dependency_check_refuses_leaves_its_dependents_out(tmp_path: Path) -> None:
    """skills/x needs a skill that is not there (SK223 of its own): .claude/skills/x then stands,
    but a's dependency was resolved (and its range checked) against skills/x, so a is left out,
    as validate and the build's reading both say."""
    root = copies_and_a(tmp_path, x_extra="depends: [nowhere]\n")
    expected = [("skills/a", "SK223"), ("skills/x", "SK223")]
    assert errors(root) == {"validate": expected, "read": expected}
    reading = read_catalog([root], ignore=["SK219"])
    assert [d.message for d in reading.diagnostics if d.code == "SK223" and "skills/a" in d.path] == [
        "skill 'skills/a' depends on 'x', which stands for its copy 'skills/x', left out of this catalog for its "
        "errors: 'skills/a' is left out too (name another copy by its id to need that one)"]
    assert reading.copies == ((".claude/skills/x", "skills/x"),)


def copy_info(diags) -> dict[str, str]:
    """What SK229 says, by the skill folder it is said of (relative to the tree)."""
    return {Path(d.path).parent.as_posix().split("/tree/", 1)[1]: d.message for d in diags if d.code == "SK229"}


def test_a_copy_whose_only_error_is_ignored_still_stands_for_its_group(tmp_path: Path) -> None:
    """skills/x names a missing knowledge document (SK218), ignored: it is published, so it stands
    for the copies as it would without the error (which copy stands counted the ignored error,
    while grouping did not), and a dependency on x names it; validate and the build say the same."""
    root = copies_and_a(tmp_path / "tree", x_extra="knowledge: [nowhere.md]\n")
    reading = read_catalog([root], ignore=["SK218", "SK219"])
    assert reading.copies == (("skills/x", ".claude/skills/x"),)
    assert reading.aliases == (("x", "skills/x"),)
    said = {".claude/skills/x": "a copy of skill 'skills/x' (2 copies): published at its own address, listed and "
                                "offered as that one"}
    assert copy_info(reading.diagnostics) == said
    assert copy_info(check_catalog([root], ignore=["SK218", "SK219"]).diagnostics) == said


def test_a_copy_refused_for_needing_a_skill_left_out_does_not_stand(tmp_path: Path) -> None:
    """skills/x and skills/a need each other (SK225); .claude/skills/x, next in canonical order,
    needs a too, so it is left out for needing a skill left out (SK223), which is said after the
    copies were ordered: SK229 named it as the copy standing.  .agents/skills/x needs nothing: it
    is the only copy published, so no copy is said to be one (nor one left out said to be one)."""
    root = tmp_path / "tree"
    write_copies(root, [("skills/x", "x", "depends: [a]\n"), (".claude/skills/x", "x", "depends: [a]\n"),
                        (".agents/skills/x", "x", "")], DESCRIPTION)
    write_skill(root, "skills/a", "name: a\ndescription: Ships a release. Use when shipping.\ndepends: [x]\n")
    for diags in (read_catalog([root]).diagnostics, check_catalog([root]).diagnostics):
        assert copy_info(diags) == {}
        assert sorted(Path(d.path).parent.relative_to(root).as_posix() for d in diags
                      if d.severity.value == "error") == [".claude/skills/x", "skills/a", "skills/x"]
    assert read_catalog([root]).copies == ((".agents/skills/x", "skills/x", ".claude/skills/x"),)


def test_copy_info_counts_and_names_only_the_copies_published(tmp_path: Path) -> None:
    """skills/x (canonical by place) needs a skill there is none of: SK229 is said of
    .agents/skills/x alone, naming .claude/skills/x and the two copies published (it was said of
    skills/x too, which is left out, and counted three)."""
    root = tmp_path / "tree"
    write_copies(root, [("skills/x", "x", "depends: [nowhere]\n"), (".claude/skills/x", "x", ""),
                        (".agents/skills/x", "x", "")], DESCRIPTION)
    for diags in (read_catalog([root]).diagnostics, check_catalog([root]).diagnostics):
        assert copy_info(diags) == {".agents/skills/x": "a copy of skill '.claude/skills/x' (2 copies): published "
                                                        "at its own address, listed and offered as that one"}


def test_a_skill_needing_an_alias_left_out_says_which_copy_it_needs(tmp_path: Path) -> None:
    """skills/x needs a skill there is none of; .claude/skills/x, its copy, is published: the SK223
    of a (resolved to skills/x) says that it is that copy that is left out, not x."""
    root = copies_and_a(tmp_path / "tree", x_extra="depends: [nowhere]\n")
    message = ("skill 'skills/a' depends on 'x', which stands for its copy 'skills/x', left out of this catalog "
               "for its errors: 'skills/a' is left out too (name another copy by its id to need that one)")
    for diags in (read_catalog([root]).diagnostics, check_catalog([root]).diagnostics):
        assert [d.message for d in diags if d.code == "SK223" and "/skills/a/" in d.path] == [message]


def test_a_name_held_by_copies_and_a_copy_with_errors_of_its_own_stands_for_the_copy_published(
        tmp_path: Path) -> None:
    """skills/x has an error of its own (SK208): it was in no group, so beside its copy the name x
    was shared (SK223 for a, SK212 and SK219 for skills/x).  It is grouped as a copy that cannot
    stand: x stands for .claude/skills/x, and a is valid.  A different skill named x with an error
    still makes the name shared."""
    root = copies_and_a(tmp_path / "tree", x_extra="always: 3\n")
    expected = [("skills/x", "SK208")]
    assert errors(root) == {"validate": expected, "read": expected}
    reading = read_catalog([root])
    assert reading.aliases == (("x", ".claude/skills/x"),)
    assert not [d for d in reading.diagnostics if d.code in ("SK212", "SK219", "SK229")]
    write_skill(root, "tools/x", "name: x\ndescription: Converts images between formats. Use when resizing.\n"
                                 "always: 3\n", body="# Images\n\nAnother skill entirely, of the same name.\n")
    shared = [("skills/a", "SK223"), ("skills/x", "SK208"), ("tools/x", "SK208")]
    assert errors(root) == {"validate": shared, "read": shared}


def test_a_skill_needing_an_alias_whose_copy_needs_a_skill_left_out_says_that_copy() -> None:
    """c needs x, which stands for skills/x; skills/x needs y, which has errors: c's SK223 says it
    is the copy skills/x that is left out, for needing a skill left out (as publishing says it
    when the audit blocks y), and a skill needing x by the id of the other copy needs that one."""
    dependents = [dep("skills/x", "y", name="x"), dep(".claude/skills/x", name="x"), dep("y"), dep("c", "x"),
                  dep("d", ".claude/skills/x")]
    aliases = {"x": "skills/x"}
    expected = [(0, "skill 'skills/x' depends on 'y', which is left out of this catalog for its errors: 'skills/x' "
                    "is left out too"),
                (3, "skill 'c' depends on 'x', which stands for its copy 'skills/x', left out of this catalog for "
                    "needing a skill left out: 'c' is left out too (name another copy by its id to need that one)")]
    assert [(i, d.message) for i, d in needing_erring(dependents, {2}, aliases=aliases)] == expected
    unmet = needing_left_out(dependents, frozenset({2}), aliases=aliases)
    assert [(u.index, u.through, u.copy) for u in unmet] == [(0, None, None), (3, "skills/x", "skills/x")]


def test_when_every_copy_of_an_alias_is_left_out_the_message_does_not_advise_naming_another() -> None:
    """Both copies of x left out (for their errors, or one for needing a skill left out): a needs x,
    and no other copy can be named instead, so SK223 says every copy is left out; with one copy
    left, it still advises naming that one."""
    dependents = [dep("a", "x"), dep("skills/x"), dep(".claude/skills/x"), dep("y")]
    aliases = {"x": "skills/x"}
    every = ("skill 'a' depends on 'x', which stands for its copy 'skills/x', left out of this catalog for its "
             "errors, as is every other copy of 'x': 'a' is left out too")
    assert [(i, d.message) for i, d in needing_erring(dependents, {1, 2}, aliases=aliases)] == [(0, every)]
    assert "name another copy" in needing_erring(dependents, {1}, aliases=aliases)[0][1].message
    chained = [dep("a", "x"), dep("skills/x", "y"), dep(".claude/skills/x", "y"), dep("y")]
    found = needing_left_out(chained, frozenset({3}), aliases=aliases)
    assert [(u.index, u.copy, u.every_copy) for u in found] == [(0, "skills/x", True), (1, None, False),
                                                               (2, None, False)]
