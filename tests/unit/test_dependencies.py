"""Dependencies declared in frontmatter (skillsite.source.dependencies): reading ``depends`` with
the line of each item, SK226 for a malformed item, and the catalog-wide resolution: SK223 (no
such skill, or a name two skills share), SK224 (no release in range), SK225 (cycles), each at
the ``depends`` entry's file:line and naming the skills involved."""
from __future__ import annotations

from pathlib import Path

import pytest

from skillsite.agent.entry import DependencyRecord
from skillsite.source.catalog import check_catalog, read_catalog
from skillsite.source.dependencies import (Dependent, Unmet, current_releases, declared_dependencies, needing_erring,
                                           needing_left_out, parse_dependency, resolve_dependencies)
from skillsite.source.frontmatter import parse_frontmatter_text
from support import write_skill


def declared(text: str) -> tuple[tuple[str, int, int], ...]:
    data, lines, _ = parse_frontmatter_text(text, "SKILL.md")
    return declared_dependencies(data, lines)


def diagnostics(root: Path, profile: str = "default") -> list[str]:
    """Every diagnostic of the catalog under ``root`` as ``path:line: severity code message``, path
    relative (but SK219: the test skills' descriptions are all alike)."""
    check = check_catalog([root], profile=profile, ignore=["SK219"])
    return [f"{Path(d.path).relative_to(root).as_posix()}:{d.line}: {d.severity.value} {d.code} {d.message}"
            for d in check.diagnostics]


def codes(found: list[str], code: str) -> list[str]:
    return [line for line in found if f" {code} " in line]


def skill(root: Path, rel: str, *more: str, version: str | None = None) -> None:
    """A skill at ``rel`` named after its folder, with extra frontmatter lines."""
    lines = [f"name: {rel.rsplit('/', 1)[-1]}", "description: Does a thing. Use when testing."]
    if version is not None:
        lines.append(f'version: "{version}"')
    write_skill(root, rel, "\n".join([*lines, *more]) + "\n")


# ---- reading what a skill declares, with the line of each item

def test_metadata_depends_is_a_space_separated_string_at_its_line() -> None:
    items = declared("name: a\ndescription: d\nmetadata:\n  version: '1.0.0'\n  depends: 'b c@^1.2  sven/plan@~2'\n")
    assert items == (("b", 6, 3), ("c@^1.2", 6, 3), ("sven/plan@~2", 6, 3))


def test_top_level_depends_is_a_list_each_item_at_its_own_line_or_a_string() -> None:
    assert declared("name: a\ndescription: d\ndepends:\n  - b\n  - 'c@>=1 <2'\n") == (("b", 5, 5), ("c@>=1 <2", 6, 5))
    assert declared("name: a\ndescription: d\ndepends: b c@1.x\n") == (("b", 4, 1), ("c@1.x", 4, 1))
    assert declared("name: a\ndescription: d\ndepends: [b]\nmetadata:\n  depends: c\n") == (("b", 4, 11), ("c", 6, 3))


def test_values_that_are_no_names_declare_nothing() -> None:
    assert declared("name: a\ndescription: d\ndepends: {b: c}\nmetadata:\n  depends: [b]\n") == ()
    assert declared("name: a\ndescription: d\ndepends: ['', {x: y}, [b]]\n") == ()
    # text, as YAML 1.1 would not keep it
    assert declared("name: a\ndescription: d\ndepends: [2]\n") == (("2", 4, 11),)


@pytest.mark.parametrize("item, parsed", [("b", ("b", "*")), ("b@^1.2", ("b", "^1.2")),
                                          ("sven/plan@~1.2.3", ("sven/plan", "~1.2.3")),
                                          ("b@>=1 <2", ("b", ">=1 <2")), ("b@1.x || ^3", ("b", "1.x || ^3")),
                                          ("b@^2.0.0-rc.1", ("b", "^2.0.0-rc.1")),
                                          # ids are folder paths, '@' and all: the range follows the last '@'
                                          ("owner@repo/x", ("owner@repo/x", "*")),
                                          ("owner@repo/x@^1.0", ("owner@repo/x", "^1.0")),
                                          ("repos/owner@repo/skills/x@1.x", ("repos/owner@repo/skills/x", "1.x")),
                                          # and spaces: `team tools/y` was refused (SK226)
                                          ("team tools/y@^1", ("team tools/y", "^1")),
                                          ("at@home@*", ("at@home", "*"))])
def test_an_item_is_a_name_or_id_and_a_range(item: str, parsed: tuple[str, str]) -> None:
    """An id holding '@' (most of a real 16,000-skill mirror's: repos/owner@repo/...) was split at
    its first '@' and refused (SK226), where `skillsite install owner@repo/x@^1.0` took it."""
    assert parse_dependency(item) == parsed


@pytest.mark.parametrize("item", ["@^1", "b@^^1", "b@1.2.3.4", "b@not-a-range", "a /b", "a/ b", "x//y", "/abs",
                                  "b@1@>>2", "owner@repo/x@"])
def test_a_malformed_item_is_refused_with_a_reason(item: str) -> None:
    with pytest.raises(ValueError, match="is not `name` or `name@range`|range that does not parse|nothing after"):
        parse_dependency(item)


def test_sk226_is_reported_at_the_items_line(tmp_path: Path) -> None:
    skill(tmp_path, "b", version="1.0.0")
    skill(tmp_path, "a", "depends:", "  - b", "  - 'b@^^1'", "  - '@2'")
    found = codes(diagnostics(tmp_path), "SK226")
    assert len(found) == 2
    assert found[0].startswith("a/SKILL.md:6: error SK226 depends: 'b@^^1' has a range that does not parse")
    assert found[1].startswith("a/SKILL.md:7: error SK226 depends: dependency '@2' is not `name` or `name@range`")


def test_ids_with_spaces_or_an_at_sign_before_no_range_can_be_depended_on(tmp_path: Path) -> None:
    """Real folder names: `team tools/y` was SK226 (no spaces), and `x/at@home` too (its last part
    after '@' is no range): it is written `x/at@home@*`, as the SK226 message says."""
    skill(tmp_path, "team tools/y", version="1.2.0")
    write_skill(tmp_path, "x/at@home", "name: home\ndescription: Does a thing. Use when testing.\n")
    skill(tmp_path, "a", "depends: ['team tools/y@^1', 'x/at@home@*']")
    assert [line.split(" ", 3)[2] for line in diagnostics(tmp_path)] == ["SK204"]  # 'home' is not 'at@home'
    reading = read_catalog([tmp_path], ignore=["SK219"])
    assert [s.depends for s in reading.skills if s.id == "a"] == [("team tools/y@^1", "x/at@home@*")]
    skill(tmp_path, "b", "depends: ['x/at@home', 'team tools/y x/at@home@*']")
    assert [line.split(" SK", 1)[1] for line in diagnostics(tmp_path) if " SK204 " not in line] == [
        "226 depends: 'x/at@home' has a range that does not parse: invalid version range 'home': 'home' is not a "
        "version (expected numbers like 1.2.3, or x/* wildcards) (an id holding '@' is written with a range after it: "
        "'x/at@home@*')",
        "223 skill 'b' depends on 'team tools/y x/at@home', which is no skill of this catalog (neither an id nor a "
        "name) (an item names one skill: list several as items of their own)"]


# ---- profiles: the spec keeps extra data in metadata; lenient also reads top-level depends

def test_the_spec_profile_reads_metadata_depends_and_refuses_a_top_level_one(tmp_path: Path) -> None:
    skill(tmp_path, "b", "metadata:", "  version: '1.4.0'")
    skill(tmp_path, "a", "metadata:", "  version: '2.0.0'", "  depends: 'b@^1.2'")
    assert diagnostics(tmp_path, "spec") == []
    skill(tmp_path, "c", "depends: [b]")
    assert [line.split(" ", 3)[:3] for line in diagnostics(tmp_path, "spec")] == [["c/SKILL.md:4:", "error", "SK207"]]


def test_the_default_profile_knows_top_level_depends(tmp_path: Path) -> None:
    skill(tmp_path, "b", version="1.0.0")
    skill(tmp_path, "a", "depends: [b@1]")
    assert diagnostics(tmp_path) == []
    reading = read_catalog([tmp_path], ignore=["SK219"])
    assert {s.id: s.depends for s in reading.skills} == {"a": ("b@1",), "b": ()}


def test_metadata_depends_must_be_a_string(tmp_path: Path) -> None:
    skill(tmp_path, "b", "metadata:", "  version: '1.0.0'")
    skill(tmp_path, "a", "metadata:", "  depends: [b]")
    assert [line.split(" ", 3)[:3] for line in diagnostics(tmp_path, "spec")] == [["a/SKILL.md:5:", "error", "SK210"]]


# ---- SK223: a name that is no skill, or that several skills share

def test_sk223_an_unknown_name(tmp_path: Path) -> None:
    skill(tmp_path, "a", "depends: [b, nowhere@^1]")
    skill(tmp_path, "b")
    assert codes(diagnostics(tmp_path), "SK223") == [
        "a/SKILL.md:4: error SK223 skill 'a' depends on 'nowhere', which is no skill of this catalog "
        "(neither an id nor a name)"]


def test_sk223_a_name_two_skills_share_names_them_and_an_id_picks_one(tmp_path: Path) -> None:
    """Two different skills (no copies of one: those are one skill, tests/unit/test_copy_dependencies.py)."""
    skill(tmp_path, "x/tool", version="1.0.0")
    write_skill(tmp_path, "y/tool", 'name: tool\ndescription: Sorts the photos of a trip. Use when tidying.\n'
                                    'version: "2.0.0"\n')
    skill(tmp_path, "a", "depends: [tool, y/tool@^2]")
    assert codes(diagnostics(tmp_path), "SK223") == [
        "a/SKILL.md:4: error SK223 skill 'a' depends on 'tool', a name several skills share (x/tool, y/tool): "
        "name one of them by its id"]


def test_an_id_stands_for_itself_before_any_name(tmp_path: Path) -> None:
    releases = {"b": ["1.0.0"], "x/b": ["2.0.0"]}
    found = resolve_dependencies([Dependent("a", "a", "a/SKILL.md", (("b", 3, 1),)),
                                  Dependent("b", "b", "b/SKILL.md", ()), Dependent("x/b", "b", "x/b/SKILL.md", ())],
                                 releases)
    assert found.diagnostics == []
    assert found.dependencies["a"] == [DependencyRecord("b", "b", "*", "1.0.0")]


def test_an_id_in_another_unicode_spelling_stands_for_that_id() -> None:
    """A folder named on macOS is decomposed (NFD), a SKILL.md typed elsewhere names it composed
    (NFC): the loader finds either spelling, and so does a dependency (it was SK223, naming an id
    that looked the same)."""
    decomposed, composed = "skills/cafe\u0301", "skills/caf\u00e9"
    found = resolve_dependencies([Dependent("a", "a", "a/SKILL.md", ((composed, 3, 1),)),
                                  Dependent(decomposed, "cafe", f"{decomposed}/SKILL.md", ())], {})
    assert found.diagnostics == []
    assert found.dependencies["a"] == [DependencyRecord(composed, decomposed, "*", None)]


def test_two_ids_one_text_in_nfc_are_no_guess_for_a_third_spelling() -> None:
    twins = ("twin/\u1ec7", "twin/e\u0323\u0302")       # ệ composed, and e with its two marks
    asked = "twin/e\u0302\u0323"                          # the marks in the other order: neither id as written
    found = resolve_dependencies([Dependent("a", "a", "a/SKILL.md", ((asked, 3, 1),)),
                                  *(Dependent(t, "twin", f"{t}/SKILL.md", ()) for t in twins)], {})
    said = [diag for _, diag in found.diagnostics]  # (dependent's index, diagnostic) each
    assert [d.code for d in said] == ["SK223"] and "several skills share (twin/" in said[0].message


# ---- SK224: no release satisfies the range

def test_sk224_names_dependent_dependency_range_and_the_releases(tmp_path: Path) -> None:
    skill(tmp_path, "a", "metadata:", "  depends: 'b@^2 c@^1'")
    skill(tmp_path, "b", version="1.4.0")
    skill(tmp_path, "c")
    assert codes(diagnostics(tmp_path), "SK224") == [
        "a/SKILL.md:5: error SK224 skill 'a' depends on 'b' (skill 'b') at range '^2', which no release "
        "satisfies: its releases are 1.4.0",
        "a/SKILL.md:5: error SK224 skill 'a' depends on 'c' (skill 'c') at range '^1', which no release "
        "satisfies: 'c' has no release (no valid version)"]


def test_any_range_on_a_skill_without_a_version_resolves_to_no_release(tmp_path: Path) -> None:
    skill(tmp_path, "a", "depends: [c, 'c@*']")
    skill(tmp_path, "c", version="[Optional: e.g., 1.0, Date]")
    assert codes(diagnostics(tmp_path), "SK224") == []
    found = resolve_dependencies([Dependent("a", "a", "a/SKILL.md", (("c", 3, 1), ("c@*", 4, 1))),
                                  Dependent("c", "c", "c/SKILL.md", ())], current_releases({"a": None, "c": "x"}))
    assert found.dependencies["a"] == [DependencyRecord("c", "c", "*", None)] * 2


def test_versions_are_read_loosely_and_resolved_canonically() -> None:
    assert current_releases({"a": "v1.0", "b": "2", "c": "1.0.0-rc.1+b5", "d": None, "e": "Date"}) == {
        "a": ["1.0.0"], "b": ["2.0.0"], "c": ["1.0.0-rc.1"], "d": [], "e": []}


@pytest.mark.parametrize("range_text, resolved", [
    ("^1", "1.2.0"), ("*", "1.2.0"), (">=1.2.0", "1.2.0"), ("~1.0", "1.0.0"),
    ("^2.0.0-rc.0", "2.0.0-rc.1"), (">=2.0.0-rc.1", "2.0.0-rc.1"), ("2.0.0-rc.1", "2.0.0-rc.1"),
    ("^2", None), (">1.2.0", None)])
def test_the_highest_release_in_range_and_pre_releases_only_when_asked(range_text: str, resolved: str | None) -> None:
    """Over a whole history of releases (what the build feeds from git): a pre-release counts
    only for a range that names a pre-release of the same version."""
    releases = {"b": ["1.0.0", "1.2.0", "2.0.0-rc.1"]}
    found = resolve_dependencies([Dependent("a", "a", "a/SKILL.md", ((f"b@{range_text}", 3, 1),)),
                                  Dependent("b", "b", "b/SKILL.md", ())], releases)
    if resolved is None:
        assert [d.code for _, d in found.diagnostics] == ["SK224"]
        assert "its releases are 1.0.0, 1.2.0, 2.0.0-rc.1" in found.diagnostics[0][1].message
        assert found.dependencies["a"] == []
    else:
        assert found.diagnostics == []
        assert found.dependencies["a"] == [DependencyRecord("b", "b", range_text, resolved)]


# ---- SK225: cycles, reported once at each member's depends line, naming the whole cycle

def test_a_skill_that_needs_itself_is_a_cycle_of_one(tmp_path: Path) -> None:
    skill(tmp_path, "a", "depends: [a]", version="1.0.0")
    assert codes(diagnostics(tmp_path), "SK225") == [
        "a/SKILL.md:5: error SK225 dependency cycle: a -> a (skills cannot need each other in a circle)"]


def test_a_cycle_of_two(tmp_path: Path) -> None:
    skill(tmp_path, "a", "depends: [b]", version="1.0.0")
    skill(tmp_path, "b", "metadata:", "  depends: a")
    assert codes(diagnostics(tmp_path), "SK225") == [
        "a/SKILL.md:5: error SK225 dependency cycle: a -> b -> a (skills cannot need each other in a circle)",
        "b/SKILL.md:5: error SK225 dependency cycle: b -> a -> b (skills cannot need each other in a circle)"]


def test_a_cycle_of_three_each_member_once_at_the_item_that_continues_it(tmp_path: Path) -> None:
    skill(tmp_path, "a", "depends:", "  - d", "  - b@*")
    skill(tmp_path, "b", "depends: [c]")
    skill(tmp_path, "c", "depends: [d, a]")
    skill(tmp_path, "d")
    found = codes(diagnostics(tmp_path), "SK225")
    assert [line.split(" (skills")[0] for line in found] == [
        "a/SKILL.md:6: error SK225 dependency cycle: a -> b -> c -> a",
        "b/SKILL.md:4: error SK225 dependency cycle: b -> c -> a -> b",
        "c/SKILL.md:4: error SK225 dependency cycle: c -> a -> b -> c"]


def test_two_cycles_through_one_skill_each_member_named_once() -> None:
    """a -> b -> a and a -> c -> a: one component; every member reported once, on a cycle through it."""
    dependents = [Dependent("a", "a", "a", (("b", 1, 1), ("c", 2, 1))), Dependent("b", "b", "b", (("a", 1, 1),)),
                  Dependent("c", "c", "c", (("a", 1, 1),))]
    found = resolve_dependencies(dependents, {})
    assert sorted((i, d.message.split(" (")[0]) for i, d in found.diagnostics) == [
        (0, "dependency cycle: a -> b -> a"), (1, "dependency cycle: b -> a -> b"),
        (2, "dependency cycle: c -> a -> c")]


def test_a_long_cycle_is_found_without_recursion() -> None:
    n = 5000
    dependents = [Dependent(f"s{i}", f"s{i}", f"s{i}", ((f"s{(i + 1) % n}", 1, 1),)) for i in range(n)]
    found = resolve_dependencies(dependents, {})
    assert len(found.diagnostics) == n and all(d.code == "SK225" for _, d in found.diagnostics)
    assert found.diagnostics[0][1].message.startswith("dependency cycle: s0 -> s1 -> s2")


def test_a_chain_resolves_every_link() -> None:
    dependents = [Dependent("a", "a", "a", (("b@^1", 1, 1),)), Dependent("b", "b", "b", (("c@~2.1", 1, 1),)),
                  Dependent("c", "c", "c", ())]
    found = resolve_dependencies(dependents, {"a": ["0.1.0"], "b": ["1.0.0", "1.3.0"],
                                              "c": ["2.1.0", "2.1.5", "2.2.0"]})
    assert found.diagnostics == []
    assert found.dependencies == {"a": [DependencyRecord("b", "b", "^1", "1.3.0")],
                                  "b": [DependencyRecord("c", "c", "~2.1", "2.1.5")], "c": []}


def test_the_build_and_validate_report_the_same_dependency_errors(tmp_path: Path) -> None:
    skill(tmp_path, "a", "depends: [b, zz]", version="1.0.0")
    skill(tmp_path, "b", "depends: [a@^2]", version="1.0.0")
    reading = read_catalog([tmp_path], ignore=["SK219"])
    check = check_catalog([tmp_path], ignore=["SK219"])
    assert [d for d in reading.diagnostics if d.code.startswith("SK22")] == \
        [d for d in check.diagnostics if d.code.startswith("SK22")]
    assert sorted(d.code for d in check.diagnostics) == ["SK223", "SK224", "SK225", "SK225"]
    assert {s.id for s in reading.skills if s.has_errors} == {"a", "b"}


def test_a_lone_skill_validated_on_its_own_may_name_the_skills_beside_it(tmp_path: Path) -> None:
    """``skillsite validate skills/a`` cannot see skills/b: naming it is left to the whole catalog's
    check; a name that is nowhere is still SK223."""
    skill(tmp_path, "b", version="1.0.0")
    skill(tmp_path, "a", "depends: [b@^1, nowhere]")
    found = [f"{d.line}: {d.code} {d.message}" for d in check_catalog([tmp_path / "a"], ignore=["SK219"]).diagnostics]
    assert found == ["4: SK223 skill 'a' depends on 'nowhere', which is no skill of this catalog "
                     "(neither an id nor a name)"]


def test_a_lone_skill_validated_on_its_own_may_conflict_with_the_skills_beside_it(tmp_path: Path) -> None:
    """As for dependencies: ``conflicts: [b]`` naming the skill beside it was SK215 ('no skill of
    this catalog'), so ``validate --strict`` failed the lone skill of a clean tree; a name that is
    nowhere is still SK215."""
    skill(tmp_path, "b")
    skill(tmp_path, "a", "conflicts: [b, nowhere]")
    found = [f"{d.line}: {d.code} {d.message}" for d in check_catalog([tmp_path / "a"], ignore=["SK219"]).diagnostics]
    assert found == ["4: SK215 conflicts names 'nowhere', which is no skill of this catalog (neither an id nor a name)"]


def test_a_long_cycle_names_a_bounded_part_of_itself_in_each_message() -> None:
    """Each of the n skills on a ring gets SK225; naming the whole ring in each message made
    the diagnostics grow as n squared (5,000 skills: over 100 MB of text)."""
    n = 5000
    dependents = [Dependent(f"s{i}", f"s{i}", f"s{i}", ((f"s{(i + 1) % n}", 1, 1),)) for i in range(n)]
    found = resolve_dependencies(dependents, {})
    assert len(found.diagnostics) == n
    assert max(len(d.message) for _, d in found.diagnostics) < 400
    first = next(d.message for i, d in found.diagnostics if i == 0)
    assert first.startswith("dependency cycle: s0 -> s1 -> s2") and "s4999 -> s0" in first and "5,000 skills" in first
    small = resolve_dependencies([Dependent("a", "a", "a", (("b", 1, 1),)), Dependent("b", "b", "b", (("a", 1, 1),))],
                                 {})
    assert small.diagnostics[0][1].message.startswith("dependency cycle: a -> b -> a (skills")


def test_needing_left_out_follows_the_chain_back_from_a_skill_missing() -> None:
    """d needs 'gone' (no skill here), c needs d by its id, b needs c by name, e needs b and
    'gone' (its own item first); a shared name and a malformed item are no missing skill."""
    def dep(skill_id: str, *items: str, name: str | None = None) -> Dependent:
        return Dependent(skill_id, name or skill_id.rsplit("/", 1)[-1], f"{skill_id}/SKILL.md",
                         tuple((item, 3, 1) for item in items))

    dependents = [dep("b", "c@^1"), dep("x/c", "d"), dep("d", "gone@^2", "other"), dep("e", "b", "gone"),
                  dep("f", "twin", "d@^^1"), dep("t1", name="twin"), dep("t2", name="twin"), dep("other")]
    assert needing_left_out(dependents, frozenset()) == [Unmet(0, "c@^1", "x/c"), Unmet(1, "d", "d"),
                                                         Unmet(2, "gone@^2"), Unmet(3, "gone")]
    assert needing_left_out(dependents[5:], frozenset()) == []


def test_the_skills_needing_one_with_errors_are_left_out_down_the_chain() -> None:
    """b needs a (which has errors) at its second item, c needs b by name, d needs a skill only
    ``elsewhere`` holds and e needs nothing left out: SK223 for b and c, each at its item."""
    def dep(skill_id: str, *items: tuple[str, int, int], name: str | None = None) -> Dependent:
        return Dependent(skill_id, name or skill_id.rsplit("/", 1)[-1], f"{skill_id}/SKILL.md", items)

    dependents = [dep("a"), dep("b", ("e", 2, 3), ("a@^1", 4, 5)), dep("x/c", ("b", 6, 7)), dep("d", ("beside", 1, 1)),
                  dep("e")]
    found = [(i, d.code, d.path, d.line, d.col, d.message)
             for i, d in needing_erring(dependents, {0}, frozenset({"beside"}))]
    assert found == [
        (1, "SK223", "b/SKILL.md", 4, 5, "skill 'b' depends on 'a', which is left out of this catalog for its errors: "
                                         "'b' is left out too"),
        (2, "SK223", "x/c/SKILL.md", 6, 7, "skill 'x/c' depends on 'b', which is left out of this catalog for needing "
                                           "a skill left out: 'x/c' is left out too")]
    assert needing_erring(dependents, set(), frozenset({"beside"})) == []


def test_reading_and_validate_say_which_skills_need_one_with_errors(tmp_path: Path) -> None:
    """The build's reading and validate alike: b's 'always' is no boolean (SK208), a needs b and
    c needs a; ignoring SK208 (b is then published) or SK223 (a build publishes them without b)
    says nothing of them."""
    write_skill(tmp_path, "b", "name: b\ndescription: Bumps versions. Use when a version changes.\nalways: 3\n")
    skill(tmp_path, "a", "depends: [b]")
    skill(tmp_path, "c", "depends: [a]")
    for read in (lambda ignore: read_catalog([tmp_path], ignore=ignore).diagnostics,
                 lambda ignore: check_catalog([tmp_path], ignore=ignore).diagnostics):
        assert [(d.path.rsplit("/", 2)[-2], d.code) for d in read(["SK219"]) if d.code in ("SK208", "SK223")] == \
            [("a", "SK223"), ("b", "SK208"), ("c", "SK223")]
        assert not [d for d in read(["SK219", "SK208"]) if d.code == "SK223"]
        assert [d.code for d in read(["SK219", "SK223"]) if d.code in ("SK208", "SK223")] == ["SK208"]


def test_a_skill_with_errors_is_needed_even_when_its_name_is_also_beside_a_lone_skill() -> None:
    """``elsewhere`` holds the names beside a lone skill, which no skill of the catalog holds;
    b has errors and is in the catalog (validated beside a, so its folder's name is beside a too):
    a needs it, so a is left out, by id or by name (d's name is not its folder's)."""
    dependents = [Dependent("a", "a", "a/SKILL.md", (("b", 2, 3),)), Dependent("b", "b", "b/SKILL.md", ()),
                  Dependent("c", "c", "c/SKILL.md", (("dee", 4, 5),)), Dependent("d", "dee", "d/SKILL.md", ())]
    found = [(i, d.code, d.line) for i, d in needing_erring(dependents, {1, 3}, frozenset({"a", "b", "c", "d", "dee"}))]
    assert found == [(0, "SK223", 2), (2, "SK223", 4)]


def test_validate_of_two_lone_skills_says_what_a_build_of_them_leaves_out(tmp_path: Path) -> None:
    """``validate a b`` (each a root that is one skill: the other is beside it) says SK223 of a,
    which needs b, broken: reading them (as ``build a b --keep-going`` does) leaves a out."""
    write_skill(tmp_path, "b", "name: b\ndescription: Bumps versions. Use when a version changes.\nalways: 3\n")
    skill(tmp_path, "a", "depends: [b]")
    roots = [tmp_path / "a", tmp_path / "b"]
    assert {s.id for s in read_catalog(roots, ignore=["SK219"]).skills if s.has_errors} == {"a", "b"}
    checked = check_catalog(roots, ignore=["SK219"])
    assert [(Path(d.path).parent.name, d.code) for d in checked.diagnostics if d.severity.value == "error"] == \
        [("a", "SK223"), ("b", "SK208")]
    assert {v["id"]: v["valid"] for v in checked.verdicts()} == {"a": False, "b": False}


def test_a_skill_needing_an_id_with_errors_is_left_out_though_a_standing_skill_has_that_name() -> None:
    """'x' is the id of foo (with errors) and the name of tools/x: an id stands for itself, so a
    needs foo, as resolve_dependencies resolved it, not tools/x."""
    dependents = [Dependent("x", "foo", "x/SKILL.md", ()), Dependent("tools/x", "x", "tools/x/SKILL.md", ()),
                  Dependent("a", "a", "a/SKILL.md", (("x", 3, 1),))]
    assert resolve_dependencies(dependents, {}).dependencies["a"][0].id == "x"
    assert [(i, d.code, d.message) for i, d in needing_erring(dependents, {0})] == [
        (2, "SK223", "skill 'a' depends on 'x', which is left out of this catalog for its errors: 'a' is left out too")]
    assert needing_erring(dependents, {1}) == []
