"""skillsite.agent.semver: loose versions and their canonical form, precedence, npm ranges.

The range forms and their desugared comparators are the ones node-semver's README lists;
tests/integration/test_semver_parity.py checks thousands more against npm's `semver` itself.
"""
from __future__ import annotations

import random

import pytest

from skillsite.agent import semver
from skillsite.agent.semver import RangeError, Version, parse_range, parse_version


@pytest.mark.parametrize("text, canonical", [
    ("1.2.3", "1.2.3"),
    ("v1.0", "1.0.0"),
    ("V1.0", "1.0.0"),
    ("2", "2.0.0"),
    ("=1.2.3", "1.2.3"),
    ("= v1.2", "1.2.0"),
    ("  1.2.3\n", "1.2.3"),
    ("1.0.0-rc.1+b5", "1.0.0-rc.1"),
    ("1.0-beta", "1.0.0-beta"),
    ("1.0.0+20130313144700", "1.0.0"),
    ("2024.01.05", "2024.1.5"),
    ("1.0.0-rc.01", "1.0.0-rc.1"),
    ("1.0.0-x-y.0.z-", "1.0.0-x-y.0.z-"),
])
def test_versions_are_read_loosely_and_printed_canonically(text: str, canonical: str) -> None:
    assert str(parse_version(text)) == canonical


@pytest.mark.parametrize("text", [
    "[Optional: e.g., 1.0, Date]", "", " ", "latest", "v", "1.2.3.4", "1..2", "1.", ".1", "1.2.3-",
    "1.2.3+", "1.2.3-be ta", "2024-01-15", "1-beta", ">=1.2.3", "^1.2", "1.x", "*", "\u0661.\u0662.\u0663",
    "1.2.3-\u00e9", "9007199254740992.0.0", "1." + "1" * 300, "x" * 300,
])
def test_text_that_is_not_a_version(text: str) -> None:
    assert parse_version(text) is None


def test_parse_version_rejects_what_is_not_text() -> None:
    assert parse_version(None) is None  # type: ignore[arg-type]
    assert parse_version(1.2) is None  # type: ignore[arg-type]


def test_version_fields_and_equality() -> None:
    v = parse_version("1.0.0-rc.1+b5")
    assert v == Version(1, 0, 0, ("rc", 1), ("b5",))
    assert (v.major, v.minor, v.patch, v.prerelease, v.build) == (1, 0, 0, ("rc", 1), ("b5",))
    assert str(Version(1, 0, 0)) == "1.0.0"
    assert parse_version("v1.0") == Version(1, 0, 0)
    # build metadata takes no part in precedence, equality or hashing
    assert parse_version("1.0.0+a") == parse_version("1.0.0+b")
    assert len({parse_version("1.0.0+a"), parse_version("1.0.0"), Version(1, 0, 0, (), ("c",))}) == 1
    assert Version(1, 0, 0, ("rc", "1")) == Version(1, 0, 0, ("rc", 1))
    with pytest.raises(AttributeError):
        v.major = 2  # type: ignore[misc]


SEMVER_ORG_ORDER = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
                    "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "2.0.0", "2.1.0", "2.1.1"]


def test_precedence_follows_semver_org_section_11() -> None:
    versions = [parse_version(t) for t in SEMVER_ORG_ORDER]
    assert all(a < b for a, b in zip(versions, versions[1:]))
    assert all(b > a and a <= b and not b <= a for a, b in zip(versions, versions[1:]))
    shuffled = versions[:]
    random.Random(11).shuffle(shuffled)
    assert sorted(shuffled) == versions
    # numeric identifiers sort numerically and below alphanumeric ones
    assert parse_version("1.0.0-2") < parse_version("1.0.0-10") < parse_version("1.0.0-a")
    assert parse_version("1.0.0-alpha") < parse_version("1.0.0-alpha.0")
    assert parse_version("1.10.0") > parse_version("1.9.0")


def test_sort_versions() -> None:
    shuffled = SEMVER_ORG_ORDER[:]
    random.Random(3).shuffle(shuffled)
    assert semver.sort_versions(shuffled) == SEMVER_ORG_ORDER
    assert semver.sort_versions(["2.0.0", "not a version", "v1.0", ""]) == ["v1.0", "2.0.0"]
    # equal precedence: ordered by text, whatever the input order
    assert semver.sort_versions(["1.0.0+b", "1.0.0", "1.0.0+a"]) == ["1.0.0", "1.0.0+a", "1.0.0+b"]
    assert semver.sort_versions(["1.0.0+a", "1.0.0+b", "1.0.0"]) == ["1.0.0", "1.0.0+a", "1.0.0+b"]
    assert semver.sort_versions(iter(["1.0.0", "0.9.0"])) == ["0.9.0", "1.0.0"]


# (range, its comparators as node-semver prints them, the same with include_prerelease)
DESUGARED = [
    ("*", "*", "*"),
    ("", "*", "*"),
    ("x", "*", "*"),
    ("X.x.*", "*", "*"),
    ("1.x", ">=1.0.0 <2.0.0-0", ">=1.0.0-0 <2.0.0-0"),
    ("1", ">=1.0.0 <2.0.0-0", ">=1.0.0-0 <2.0.0-0"),
    ("1.2.x", ">=1.2.0 <1.3.0-0", ">=1.2.0-0 <1.3.0-0"),
    ("1.2.X", ">=1.2.0 <1.3.0-0", ">=1.2.0-0 <1.3.0-0"),
    ("1.2", ">=1.2.0 <1.3.0-0", ">=1.2.0-0 <1.3.0-0"),
    ("1.2.3", "1.2.3", "1.2.3"),
    ("=1.2.3", "1.2.3", "1.2.3"),
    ("v1.2.3", "1.2.3", "1.2.3"),
    ("1.2.3+build.5", "1.2.3", "1.2.3"),
    ("~1.2.3", ">=1.2.3 <1.3.0-0", ">=1.2.3 <1.3.0-0"),
    ("~1.2", ">=1.2.0 <1.3.0-0", ">=1.2.0-0 <1.3.0-0"),
    ("~1", ">=1.0.0 <2.0.0-0", ">=1.0.0-0 <2.0.0-0"),
    ("~0.2.3", ">=0.2.3 <0.3.0-0", ">=0.2.3 <0.3.0-0"),
    ("~0", "<1.0.0-0", "<1.0.0-0"),
    ("~1.2.3-beta.2", ">=1.2.3-beta.2 <1.3.0-0", ">=1.2.3-beta.2 <1.3.0-0"),
    ("~>1.2", ">=1.2.0 <1.3.0-0", ">=1.2.0-0 <1.3.0-0"),
    ("~> 1.2", ">=1.2.0 <1.3.0-0", ">=1.2.0-0 <1.3.0-0"),
    ("^1.2.3", ">=1.2.3 <2.0.0-0", ">=1.2.3 <2.0.0-0"),
    ("^0.2.3", ">=0.2.3 <0.3.0-0", ">=0.2.3 <0.3.0-0"),
    ("^0.0.3", ">=0.0.3 <0.0.4-0", ">=0.0.3 <0.0.4-0"),
    ("^1.2.3-beta.2", ">=1.2.3-beta.2 <2.0.0-0", ">=1.2.3-beta.2 <2.0.0-0"),
    ("^0.0.3-beta", ">=0.0.3-beta <0.0.4-0", ">=0.0.3-beta <0.0.4-0"),
    ("^1.2.x", ">=1.2.0 <2.0.0-0", ">=1.2.0-0 <2.0.0-0"),
    ("^0.0.x", "<0.1.0-0", "<0.1.0-0"),
    ("^0.0", "<0.1.0-0", "<0.1.0-0"),
    ("^1.x", ">=1.0.0 <2.0.0-0", ">=1.0.0-0 <2.0.0-0"),
    ("^0.x", "<1.0.0-0", "<1.0.0-0"),
    ("^ 1.2", ">=1.2.0 <2.0.0-0", ">=1.2.0-0 <2.0.0-0"),
    (">=1.2.7 <1.3.0", ">=1.2.7 <1.3.0", ">=1.2.7 <1.3.0"),
    ("> 1.2.3  <  2", ">1.2.3 <2.0.0-0", ">1.2.3 <2.0.0-0"),
    (">1.2", ">=1.3.0", ">=1.3.0-0"),
    (">1", ">=2.0.0", ">=2.0.0-0"),
    (">=1", ">=1.0.0", ">=1.0.0-0"),
    ("<=1.2", "<1.3.0-0", "<1.3.0-0"),
    ("<1.2", "<1.2.0-0", "<1.2.0-0"),
    ("<*", "<0.0.0-0", "<0.0.0-0"),
    (">=0.0.0", "*", ">=0.0.0"),
    ("1.2.3 - 2.3.4", ">=1.2.3 <=2.3.4", ">=1.2.3-0 <2.3.5-0"),
    ("1.2 - 2.3.4", ">=1.2.0 <=2.3.4", ">=1.2.0-0 <2.3.5-0"),
    ("1.2.3 - 2.3", ">=1.2.3 <2.4.0-0", ">=1.2.3-0 <2.4.0-0"),
    ("1.2.3 - 2", ">=1.2.3 <3.0.0-0", ">=1.2.3-0 <3.0.0-0"),
    ("x - 2", "<3.0.0-0", "<3.0.0-0"),
    ("1.2.3-rc.1 - 2.0.0-beta", ">=1.2.3-rc.1 <=2.0.0-beta", ">=1.2.3-rc.1 <=2.0.0-beta"),
    ("1.2.7 || >=1.2.9 <2.0.0", "1.2.7||>=1.2.9 <2.0.0", "1.2.7||>=1.2.9 <2.0.0"),
    ("^1 || ^2||~3.1", ">=1.0.0 <2.0.0-0||>=2.0.0 <3.0.0-0||>=3.1.0 <3.2.0-0",
     ">=1.0.0-0 <2.0.0-0||>=2.0.0-0 <3.0.0-0||>=3.1.0-0 <3.2.0-0"),
    (">=1 >=1 <2", ">=1.0.0 <2.0.0-0", ">=1.0.0-0 <2.0.0-0"),        # a repeated comparator counts once
    ("<*  || 1.2.3", "1.2.3", "1.2.3"),                               # a set nothing satisfies is dropped
    ("^1 || *", "*", "*"),                                            # ... a set anything satisfies wins
]


@pytest.mark.parametrize("text, plain, with_prerelease", DESUGARED)
def test_every_range_form_desugars_to_primitive_comparators(text: str, plain: str, with_prerelease: str) -> None:
    rng = parse_range(text)
    assert rng.text == text
    assert str(rng) == plain
    assert ("||".join(" ".join(map(str, s)) for s in rng.prerelease_sets) or "*") == with_prerelease
    assert all(c.operator in ("", "<", "<=", ">", ">=") for s in rng.sets for c in s)


@pytest.mark.parametrize("text, yes, no", [
    ("^1.2.3", ["1.2.3", "1.9.9", "v1.5.0"], ["1.2.2", "2.0.0", "2.0.0-0", "1.5.0-beta"]),
    ("^0.2.3", ["0.2.3", "0.2.99"], ["0.3.0", "0.2.2"]),
    ("^0.0.3", ["0.0.3"], ["0.0.4", "0.0.2"]),
    ("~1.2", ["1.2.0", "1.2.9"], ["1.3.0", "1.1.9"]),
    ("1.x || >=2.5.0 || 5.0.0 - 7.2.3", ["1.2.3", "2.5.0", "6.0.0", "7.2.3"], ["2.4.9", "0.9.0"]),
    ("1.2.3 - 2.3", ["1.2.3", "2.3.99"], ["2.4.0", "1.2.2"]),
    (">1.2.3-alpha.3", ["1.2.3-alpha.7", "3.4.5", "1.2.3"], ["3.4.5-alpha.9", "1.2.3-alpha.3", "1.2.3-alpha.2"]),
    (">=1.2.3-pr.1 <2.0.0", ["1.2.3-pr.2", "1.2.3"], ["1.2.4-alpha.notready"]),
    ("*", ["0.0.0", "99.0.0"], ["1.0.0-beta"]),
    ("", ["1.0.0"], ["1.0.0-rc.1"]),
    ("<*", [], ["0.0.0", "0.0.0-0"]),
    ("1.2.3", ["1.2.3", "1.2.3+build", "=1.2.3", "v1.2.3"], ["1.2.4", "1.2.3-beta"]),
    ("2", ["2.0.0", "2.9.9"], ["not a version", "", "2.0.0.0"]),
])
def test_matching(text: str, yes: list[str], no: list[str]) -> None:
    rng = parse_range(text)
    assert [v for v in yes if not rng.matches(v)] == []
    assert [v for v in no if rng.matches(v)] == []
    assert all(semver.satisfies(v, text) for v in yes)
    assert all(rng.matches(parse_version(v)) for v in yes)


def test_prerelease_versions_match_only_when_asked_or_named() -> None:
    assert not semver.satisfies("3.4.5-alpha.9", ">1.2.3-alpha.3")
    assert semver.satisfies("3.4.5-alpha.9", ">1.2.3-alpha.3", include_prerelease=True)
    assert not semver.satisfies("1.5.0-beta", "^1.2")
    assert semver.satisfies("1.5.0-beta", "^1.2", include_prerelease=True)
    assert not semver.satisfies("2.0.0-beta", "^1.2", include_prerelease=True)      # <2.0.0-0 keeps it out
    assert semver.satisfies("1.2.0-0", "~1.2", include_prerelease=True)
    assert not semver.satisfies("1.2.0-0", "~1.2.0", include_prerelease=True)       # a full lower bound stays
    assert semver.satisfies("1.0.0-rc.1", "*", include_prerelease=True)
    # the pre-release must be of the same MAJOR.MINOR.PATCH as a comparator that names one
    assert semver.satisfies("1.2.3-beta.4", "1.2.3-beta.2 - 1.2.5")
    assert not semver.satisfies("1.2.4-beta.4", "1.2.3-beta.2 - 1.2.5")
    assert semver.satisfies("1.2.5-beta", "1.2.3 - 1.2.5-rc")
    # as in node-semver, a set that accepts anything replaces the others, which would have named it
    assert not semver.satisfies("1.2.3-beta", "* || 1.2.3-beta")
    assert semver.satisfies("1.2.3-beta", "^1 || 1.2.3-beta")


def test_max_satisfying() -> None:
    versions = ["1.2.3", "v1.4.0", "1.5.0-beta", "2.0.0", "junk", "1.4.0+b"]
    assert semver.max_satisfying(versions, "^1.2") == "v1.4.0"          # as given; the first of equals
    assert semver.max_satisfying(versions, "1.5.0-beta || ^1") == "1.5.0-beta"
    assert semver.max_satisfying(versions, ">=2") == "2.0.0"
    assert semver.max_satisfying(versions, "^3") is None
    assert semver.max_satisfying([], "*") is None
    assert semver.max_satisfying(iter(["0.1.0", "0.2.0"]), "*") == "0.2.0"
    with pytest.raises(RangeError):
        semver.max_satisfying(versions, ">>1")


@pytest.mark.parametrize("text, reason", [
    (">>1", "unknown operator '>>'"),
    ("^1.2.3.4", "at most three numbers"),
    ("1 - ", "hyphen range"),
    ("- 1", "hyphen range"),
    ("1.2.3 - 2 - 3", "hyphen range"),
    (">=", "has no version after it"),
    ("<= ", "has no version after it"),
    ("1 ~", "has no version after it"),
    ("01.2.3", "leading zeros"),
    ("1.2-beta", "pre-release tag needs all three numbers"),
    ("1.2.3-", "malformed pre-release"),
    ("1.2.3-be@ta", "malformed pre-release"),
    ("1.x.3", "wildcard"),
    ("*.1", "wildcard"),
    ("==1.2.3", "may start with one 'v'"),
    ("latest", "is not a version"),
    ("1.2.3*", "is not a version"),
    ("|||", "'|'"),
    ("1 || >", "has no version after it"),
    ("1.2 +build - 2", "hyphen range"),           # as in node-semver: dropping `+build` leaves two spaces
    ("^99999999999999999.0.0", "too big"),
    ("^9007199254740991", "too big"),
])
def test_bad_ranges_raise_a_readable_reason(text: str, reason: str) -> None:
    with pytest.raises(RangeError) as caught:
        parse_range(text)
    message = str(caught.value)
    assert message.startswith(f"invalid version range {text!r}: ") and reason in message
    assert isinstance(caught.value, ValueError) and "\n" not in message
    with pytest.raises(RangeError):
        semver.satisfies("1.0.0", text)


def test_a_range_is_text() -> None:
    with pytest.raises(RangeError, match="is text, not int"):
        parse_range(1)  # type: ignore[arg-type]


def test_whitespace_is_normalised_like_node_semver() -> None:
    assert str(parse_range("\t>=1.2.3\u00a0\n<2 ")) == ">=1.2.3 <2.0.0-0"
    assert str(parse_range("1.2\u3000-\u20002")) == ">=1.2.0 <3.0.0-0"
    assert str(parse_range("> =1")) == ">=1.0.0"


@pytest.mark.parametrize("text, expected", [
    ("pdf", ("pdf", "*")),
    (" pdf ", ("pdf", "*")),
    ("pdf@^1.2", ("pdf", "^1.2")),
    ("owner/repo/pdf@>=1 <2", ("owner/repo/pdf", ">=1 <2")),
    ("pdf@1.x || 2", ("pdf", "1.x || 2")),
    ("owner@repo/pdf", ("owner@repo/pdf", "*")),
    ("owner@repo/pdf@^2", ("owner@repo/pdf", "^2")),
    ("team tools/pdf@^2", ("team tools/pdf", "^2")),  # real folder names hold spaces
    ("at@home@*", ("at@home", "*")),
])
def test_split_dependency(text: str, expected: tuple[str, str]) -> None:
    assert semver.split_dependency(text) == expected


@pytest.mark.parametrize("text, error, reason", [
    ("", ValueError, "is not `name` or `name@range`"),
    ("@^1", ValueError, "is not `name` or `name@range`"),
    ("pdf @^1", ValueError, "is not `name` or `name@range`"),
    ("pdf@", ValueError, "nothing after '@'"),
    ("pdf@ ", ValueError, "nothing after '@'"),
    ("pdf@>>1", RangeError, "unknown operator"),
])
def test_split_dependency_refuses_malformed_entries(text: str, error: type, reason: str) -> None:
    with pytest.raises(error, match=reason.replace("(", r"\(")):
        semver.split_dependency(text)


@pytest.mark.parametrize("text", ["v" * 100_000, "v=" * 50_000, " " + "v " * 50_000 + "-", ">" + " v" * 50_000,
                                  "1" * 100_000])
def test_a_huge_range_is_refused_quickly_with_a_range_error(text):
    """Ranges come from catalogs, lock files and SKILL.md files: a 100 KB one must not take
    seconds in the regexes (the hyphen and glue patterns are quadratic on runs of 'v'), nor fail
    with another error than RangeError (int() refuses 4,300 digits)."""
    import time

    started = time.perf_counter()
    with pytest.raises(RangeError, match="longer than"):
        parse_range(text)
    with pytest.raises(RangeError):
        semver.satisfies("1.0.0", text)
    assert time.perf_counter() - started < 0.5
