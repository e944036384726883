"""Which version of each skill an install writes (skillsite.agent.install_plan)."""
from __future__ import annotations

import pytest

from skillsite.agent.errors import DependencyError
from skillsite.agent.install_plan import REQUEST, UNVERSIONED, Ask, plan_install


def catalog(**skills: dict[str, tuple[tuple[str, str], ...]]):
    """releases_of over ``skill id -> {version: ((dependency id, range), ...)}``."""
    return lambda skill_id: skills.get(skill_id)


def plan(root: str, wanted: str, releases, others=None) -> list[tuple[str, str]]:
    return [(p.id, p.version) for p in plan_install([(root, Ask(REQUEST, wanted))], releases, others)]


def test_the_highest_release_in_range_is_chosen() -> None:
    releases = catalog(a={"1.0.0": (), "1.4.2": (), "2.0.0": ()})
    assert plan("a", "^1", releases) == [("a", "1.4.2")]
    assert plan("a", "*", releases) == [("a", "2.0.0")]
    assert plan("a", "1.0.0", releases) == [("a", "1.0.0")]


def test_a_chain_is_installed_dependencies_first() -> None:
    releases = catalog(app={"1.0.0": (("lib", "^1"),)},
                       lib={"1.0.0": (("base", "~0.3"),), "1.1.0": (("base", "~0.3"),)},
                       base={"0.3.0": (), "0.3.9": (), "0.4.0": ()})
    assert plan("app", "*", releases) == [("base", "0.3.9"), ("lib", "1.1.0"), ("app", "1.0.0")]


def test_one_version_per_skill_satisfies_every_range_asking_for_it() -> None:
    releases = catalog(app={"1.0.0": (("x", "*"), ("y", "*"))}, x={"1.0.0": (("c", ">=1.2"),)},
                       y={"1.0.0": (("c", "<1.5"),)}, c={"1.0.0": (), "1.3.0": (), "1.4.0": (), "1.6.0": ()})
    chosen = plan_install([("app", Ask(REQUEST, "*"))], releases)
    c = next(p for p in chosen if p.id == "c")
    assert c.version == "1.4.0"
    assert {(a.who, a.range) for a in c.asks} == {("x@1.0.0", ">=1.2"), ("y@1.0.0", "<1.5")}
    assert [p.id for p in chosen].index("c") < [p.id for p in chosen].index("x")


def test_a_conflict_names_each_range_and_who_asked() -> None:
    releases = catalog(app={"1.0.0": (("x", "*"), ("y", "*"))}, x={"1.0.0": (("c", "^1"),)},
                       y={"2.3.0": (("c", "^2"),)}, c={"1.0.0": (), "2.0.0": ()})
    with pytest.raises(DependencyError) as caught:
        plan("app", "*", releases)
    message = str(caught.value)
    assert message.startswith("no release of c satisfies every range asking for it: ")
    assert "^1 (asked by x@1.0.0)" in message and "^2 (asked by y@2.3.0)" in message
    assert message.endswith("its releases: 1.0.0, 2.0.0")
    assert caught.value.skill_id == "c" and set(caught.value.asks) == {("x@1.0.0", "^1"), ("y@2.3.0", "^2")}


def test_no_release_in_the_requested_range() -> None:
    with pytest.raises(DependencyError, match=r"no release of a satisfies \^3 \(asked by the install request\); "
                                              r"its releases: 1\.0\.0, 2\.0\.0$"):
        plan("a", "^3", catalog(a={"2.0.0": (), "1.0.0": ()}))


def test_a_missing_dependency_is_named_with_who_needs_it() -> None:
    with pytest.raises(DependencyError, match=r"app@1\.0\.0 needs ghost \(\^1\), but the catalog has no skill 'ghost'"):
        plan("app", "*", catalog(app={"1.0.0": (("ghost", "^1"),)}))


def test_a_cycle_is_refused_naming_its_skills() -> None:
    releases = catalog(a={"1.0.0": (("b", "*"),)}, b={"1.0.0": (("a", "*"),)})
    with pytest.raises(DependencyError, match=r"dependency cycle: a@1\.0\.0 -> b@1\.0\.0 -> a@1\.0\.0"):
        plan("a", "*", releases)


def test_pre_releases_only_when_a_range_asks_for_them() -> None:
    releases = catalog(a={"1.0.0": (), "1.1.0-rc.1": ()})
    assert plan("a", "^1", releases) == [("a", "1.0.0")]
    assert plan("a", "^1.1.0-rc.1", releases) == [("a", "1.1.0-rc.1")]
    assert plan("a", "1.1.0-rc.1", releases) == [("a", "1.1.0-rc.1")]


def test_the_choice_settles_when_a_range_lowers_a_version() -> None:
    """b asks for a <2, so a@1 is chosen, and what only a@2 needed (c) is not installed."""
    releases = catalog(root={"1.0.0": (("a", "*"), ("b", "*"))}, a={"1.0.0": (), "2.0.0": (("c", "*"),)},
                       b={"1.0.0": (("a", "<2"),)}, c={"1.0.0": ()})
    assert sorted(plan("root", "*", releases)) == [("a", "1.0.0"), ("b", "1.0.0"), ("root", "1.0.0")]


def test_installed_skills_keep_asking_for_their_ranges() -> None:
    releases = catalog(app={"1.0.0": (("c", "*"),)}, c={"1.0.0": (), "1.5.0": (), "2.0.0": ()},
                       old={"1.0.0": (("c", "^1"),)})
    others = {"old": ("old@1.0.0", (("c", "^1"),))}
    assert plan("app", "*", releases, others) == [("c", "1.5.0"), ("app", "1.0.0")]
    with pytest.raises(DependencyError, match=r"\^2 \(asked by the install request\), \^1 \(asked by old@1\.0\.0 "
                                              r"\(installed\)\)"):
        plan("c", "^2", releases, others)
    # a skill the plan installs again asks with its new release only
    assert plan("old", "*", releases, others) == [("c", "1.5.0"), ("old", "1.0.0")]


def test_an_installed_skill_reached_as_a_dependency_keeps_the_range_it_was_installed_with() -> None:
    """lib installed as lib@~1.1, then app (needing lib ^1): lib stays within ~1.1, where it moved
    to 1.2.0, the highest release of ^1; a conflict names both ranges."""
    releases = catalog(app={"1.0.0": (("lib", "^1"),)}, lib={"1.1.0": (), "1.1.1": (), "1.2.0": (), "1.3.0-beta.1": ()})
    held = {"lib": Ask("lib's install request in skillsite-lock.json", "~1.1")}
    planned = plan_install([("app", Ask(REQUEST, "*"))], releases, None, held)
    assert [(p.id, p.version) for p in planned] == [("lib", "1.1.1"), ("app", "1.0.0")]
    held = {"lib": Ask("lib's install request in skillsite-lock.json", "^1.3.0-beta.1")}
    with pytest.raises(DependencyError, match=r"\^1 \(asked by app@1\.0\.0\), \^1\.3\.0-beta\.1 \(asked by lib's "
                                              r"install request in skillsite-lock\.json\)"):
        plan_install([("app", Ask(REQUEST, "*"))], releases, None, held)
    # a skill asked for again is asked for with its new range alone
    planned = plan_install([("lib", Ask(REQUEST, "^1"))], releases, None, held)
    assert [(p.id, p.version) for p in planned] == [("lib", "1.2.0")]


def test_a_skill_without_releases_satisfies_only_any_version() -> None:
    releases = catalog(app={"1.0.0": (("plain", "*"),)}, plain={UNVERSIONED: ()}, strict={"1.0.0": (("plain", "^1"),)})
    assert plan("app", "*", releases) == [("plain", UNVERSIONED), ("app", "1.0.0")]
    with pytest.raises(DependencyError, match=r"plain has no versioned release, but \^1 \(asked by strict@1\.0\.0\) "
                                              "asks for a version"):
        plan("strict", "*", releases)


def test_a_range_that_does_not_parse_names_who_wrote_it() -> None:
    with pytest.raises(DependencyError, match=r"app@1\.0\.0 asks for lib with the range '\^\^1', which does not parse"):
        plan("app", "*", catalog(app={"1.0.0": (("lib", "^^1"),)}, lib={"1.0.0": ()}))


def test_a_very_long_chain_is_planned_without_recursion_errors() -> None:
    """A chain deeper than the plan's 100 rounds is planned (each round went one level deeper,
    so 101 skills in a row "did not settle"), dependencies first; a cycle through 5,001 skills
    is a DependencyError, never a RecursionError (versions.json files are untrusted)."""
    skills = {f"s{i}": {"1.0.0": ((f"s{i + 1}", "*"),)} for i in range(5000)}
    skills["s5000"] = {"1.0.0": ()}
    chosen = plan("s0", "*", lambda skill_id: skills.get(skill_id))
    assert chosen[0] == ("s5000", "1.0.0") and chosen[-1] == ("s0", "1.0.0") and len(chosen) == 5001
    skills["s5000"] = {"1.0.0": (("s0", "*"),)}
    with pytest.raises(DependencyError, match="dependency cycle: s0@1.0.0 -> s1@1.0.0 -> "):
        plan("s0", "*", lambda skill_id: skills.get(skill_id))


def test_a_conflict_from_a_release_not_chosen_in_the_end_is_no_error() -> None:
    """lib is first picked at 1.9.0 (only app's ^1 is known), whose ^2 on base clashes with x's
    ^1; once other's <1.5 is seen lib is 1.4.0, which needs base ^1: a plan exists, so the
    passing conflict must not end the install with an error naming lib@1.9.0."""
    releases = catalog(app={"1.0.0": (("lib", "^1"), ("other", "*"), ("x", "*"))},
                       other={"1.0.0": (("lib", "<1.5"),)}, x={"1.0.0": (("base", "^1"),)},
                       lib={"1.4.0": (("base", "^1"),), "1.9.0": (("base", "^2"),)},
                       base={"1.0.0": (), "2.0.0": ()})
    assert dict(plan("app", "*", releases)) == {"base": "1.0.0", "lib": "1.4.0", "other": "1.0.0", "x": "1.0.0",
                                                "app": "1.0.0"}


def test_ranges_are_parsed_once_per_pick_not_once_per_release(monkeypatch: pytest.MonkeyPatch) -> None:
    """200 skills each asking for base (200 releases) with their own range: every range was
    parsed again for every release in every round (a hostile catalog of 1,000 x 1,000 took two
    minutes); now each range once per pick."""
    from skillsite.agent import install_plan, semver

    calls = []
    real = semver.parse_range

    def counting(text: str):
        calls.append(text)
        return real(text)

    monkeypatch.setattr(semver, "parse_range", counting)
    monkeypatch.setattr(install_plan, "parse_range", counting, raising=False)
    n = 200
    skills = {"root": {"1.0.0": tuple((f"s{i}", "*") for i in range(n))}, "base": {f"1.{j}.0": () for j in range(n)}}
    skills.update({f"s{i}": {"1.0.0": (("base", f">=0.0.{i} <99"),)} for i in range(n)})
    chosen = dict(plan("root", "*", catalog(**skills)))
    assert chosen["base"] == f"1.{n - 1}.0" and len(chosen) == n + 2
    assert len(calls) < 20 * n
