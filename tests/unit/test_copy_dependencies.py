"""A dependency on a name that only copies of one skill share (skillsite.source.dependencies.copy_aliases):
the copies are one skill shown once, so the name stands for the copy standing for the group, not
SK223 "a name several skills share"; two different skills of one name still give SK223."""
from __future__ import annotations

from skillsite.agent.entry import DependencyRecord
from skillsite.source.dependencies import (CatalogNames, Dependent, copy_aliases, needing_erring,
                                           release_dependencies, resolve_dependencies, unmet_dependencies)


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
        (0, "SK223", "skill 'a' depends on 'x', which is left out of this catalog for its errors: 'a' is left out too"),
        (3, "SK223", "skill 'c' depends on 'a', which is left out of this catalog for needing a skill left out: "
                     "'c' is left out too")]
    assert needing_erring(dependents, {2}, aliases=aliases) == []
    published = [dependents[0], dependents[2], dependents[3]]   # as publishing sees it, skills/x dropped
    assert [(u.index, u.item) for u in unmet_dependencies(published, aliases=aliases)] == [(0, "x"), (2, "a")]


def test_a_past_release_resolves_a_name_copies_share_to_the_alias() -> None:
    names = CatalogNames.of([("skills/x", "x"), (".claude/skills/x", "x")], {"x": "skills/x"})
    assert release_dependencies(["x@^1"], names, {"skills/x": ["1.0.0"]}) == [
        DependencyRecord("x", "skills/x", "^1", "1.0.0")]
    assert release_dependencies(["x@^1"], CatalogNames.of([("skills/x", "x"), (".claude/skills/x", "x")]),
                                {"skills/x": ["1.0.0"]}) == []
