"""skillsite.agent.semver and npm's `semver` package (node-semver 7.8.6, pinned in package.json)
must read ranges and versions identically.

One seeded generator makes every range form npm documents (x-ranges, `*`, carets, tildes,
`~>`, comparators with and without spaces, hyphen ranges with partial ends, comparator sets,
`||` unions, `v`/`=` prefixes, build metadata, pre-release tags, odd whitespace) and malformed
ranges (known garbage plus valid ranges with one character inserted); versions with and without
pre-releases.  node runs once over all the cases (tests/js/semver_cases.js) and every answer
must be identical:
- a range node-semver rejects (validRange null) raises RangeError here, and the other way round;
- a range both accept desugars to the same comparators (str(Range) == validRange), without and
  with includePrerelease;
- satisfies (without and with includePrerelease) for >= 500 (version, range) pairs;
- maxSatisfying over lists of versions; the canonical form of every strictly valid version;
  sorting by precedence.

The deliberate differences (semver.py's docstring) are kept out of the cases: version text
node-semver's strict parser rejects but skill versions allow ("1.2", "=1.2.3"), and stray `*`
characters node-semver deletes ("1.2.3*").
"""
from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys

import pytest

from support import REPO
from skillsite.agent import semver

sys.path.insert(0, str(REPO / "tests" / "js"))
import skills_installer  # noqa: E402  (finds the Node 22 that `npm ci` installs)

SEMVER_CASES = REPO / "tests" / "js" / "semver_cases.js"
NODE_SEMVER = REPO / "node_modules" / "semver" / "package.json"
NODE = skills_installer.find_node22() or shutil.which("node")
SEED = 30

PRERELEASES = ["alpha", "alpha.1", "alpha.beta", "beta", "beta.2", "beta.11", "rc.1", "0", "1", "x-y.3", "-"]
GARBAGE = [">>1", "^1.2.3.4", "1 - ", "- 1", "1 -2", "1.2.3 - 2 - 3", "<", ">=", "~", "^", "a", "1.a",
           "01.2.3", "1.02", "1.2.3-", "1.2.3-01", "1.2-beta", "~1.x-beta", "x.1", "1.x.3", "**", "|||",
           "1|2", "==1.2.3", "v=1.2.3", "=1.2.3 - 2", "< = 1", "^>1", ">~1", "1.2.3+", "=>1", "<>1",
           "~~1", "^^1", ">=1 <2 - 3", "1.2.3 -", "v", "x.x.x.x", "1.2.3.4 - 5", "1..2", ".1", "1.", "1.2.3 ~",
           "1.2 +b - 2", ">= +b 1", "^ +b 1", "1 +b.c 2", "+b", "+", "1.2.3 || +b.1"]
SPACES = [" ", " ", " ", "  ", "\t", "\n ", "\u00a0", "\u3000"]


def partial(rng: random.Random, *, pre: bool = True, xs: bool = True) -> str:
    """A partial version: 1, 1.2, 1.2.3, 1.x, 1.2.*, X, 1.2.3-beta.2, v1.2 ..."""
    parts = [str(rng.choice([0, 0, 1, 1, 2, 3, 10])) for _ in range(3)]
    depth = rng.choice([1, 2, 3, 3, 3])
    if xs and rng.random() < 0.25:
        first_x = rng.randrange(depth)
        parts[first_x:depth] = [rng.choice("xX*")] * (depth - first_x)
    text = ".".join(parts[:depth])
    if pre and depth == 3 and rng.random() < 0.3:
        text += "-" + rng.choice(PRERELEASES)
    if rng.random() < 0.05:
        text += "+build." + str(rng.randrange(9))
    return rng.choice(["", "", "", "", "", "", "v", "="]) + text if text[0] not in "xX*" else text


def comparator(rng: random.Random) -> str:
    """One token of a comparator set: ^P, ~P, ~>P, <P, <=P, >P, >=P, =P or P (maybe `> P`)."""
    op = rng.choice(["^", "^", "~", "~", "~>", "<", "<=", ">", ">=", "=", "", "", ""])
    space = " " if op and rng.random() < 0.15 else ""
    body = partial(rng)
    if op in ("<", "<=", ">", ">=", "=") and body.startswith("="):
        body = body[1:]                                # `>==1.2.3`: see semver.py's docstring
    return f"{op}{space}{body}"


def comparator_set(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.2:                                     # hyphen range, ends may be partial
        low, high = partial(rng, xs=rng.random() < 0.3), partial(rng, xs=rng.random() < 0.3)
        return f"{low.lstrip('=')} - {high.lstrip('=')}"
    if kind < 0.25:
        return rng.choice(["*", "x", "", ">=0.0.0", "<0.0.0-0", "X", ">=0.0.0-0"])
    return " ".join(comparator(rng) for _ in range(rng.choice([1, 1, 2, 2, 3])))


def valid_looking_range(rng: random.Random) -> str:
    n = rng.choice([1, 1, 1, 2, 2, 3])
    return rng.choice([" || ", "||", " ||"]).join(comparator_set(rng) for _ in range(n))


def mutated(rng: random.Random, text: str) -> str:
    """``text`` with one character inserted (never `*`: node-semver deletes stray stars)."""
    places = [at for at in range(len(text) + 1) if "*" not in text[max(at - 1, 0):at + 1]]
    at = rng.choice(places or [0])                      # nor next to one: `1.*9` is `1.9` to node-semver
    return text[:at] + rng.choice("<>=^~.-|xv 019ab+" if places else "<>=^~") + text[at:]


def version(rng: random.Random) -> str:
    text = ".".join(str(rng.choice([0, 0, 1, 1, 2, 3, 10])) for _ in range(3))
    if rng.random() < 0.35:
        text += "-" + rng.choice(PRERELEASES)
    if rng.random() < 0.05:
        text += "+sha." + str(rng.randrange(99))
    return ("v" if rng.random() < 0.05 else "") + text


def nearby(rng: random.Random, text: str) -> str:
    """A version at or next to one the range names (its bounds are where answers change)."""
    named = re.findall(r"([0-9]+)(?:\.([0-9]+))?(?:\.([0-9]+))?(-[0-9A-Za-z.-]+)?", text) or [("1", "", "", "")]
    numbers = [int(n or 0) for n in rng.choice(named)[:3]]
    at = rng.randrange(3)
    numbers[at] = max(0, numbers[at] + rng.choice([-1, 0, 0, 1]))
    pre = rng.choice([named[0][3], "", "", "-" + rng.choice(PRERELEASES)])
    return ".".join(map(str, numbers)) + pre


def generate() -> dict:
    rng = random.Random(SEED)
    ranges = [valid_looking_range(rng) for _ in range(700)]
    ranges += [re.sub(" ", lambda _: rng.choice(SPACES), valid_looking_range(rng)) for _ in range(100)]
    ranges += [mutated(rng, valid_looking_range(rng)) for _ in range(200)]
    ranges += GARBAGE
    ranges = list(dict.fromkeys(ranges))
    pairs = [[nearby(rng, r) if i % 2 else version(rng), r] for r in ranges for i in range(6)]
    max_cases = [[[nearby(rng, r) if i % 2 else version(rng) for i in range(rng.randrange(0, 12))], r]
                 for r in ranges[:300]]
    versions = [version(rng) for _ in range(300)]
    versions += ["1.2.3", "v1.2.3", " 1.2.3 ", "1.2.3-0", "1.2.3-beta+exp.sha.5114f85", "1.0.0-alpha.1",
                 "1.0.0-0.3.7", "1.0.0-x.7.z.92", "9007199254740991.0.0", "9007199254740992.0.0"]
    sorts = [[version(rng) for _ in range(rng.randrange(2, 15))] for _ in range(60)]
    sorts = [list(dict.fromkeys(v.removeprefix("v").split("+")[0] for v in vs)) for vs in sorts]
    return {"pairs": pairs, "ranges": ranges, "max": max_cases, "versions": versions, "sort": sorts}


def our_range(text: str) -> semver.Range | None:
    try:
        return semver.parse_range(text)
    except semver.RangeError:
        return None


def printed(sets: tuple) -> str:
    return "||".join(" ".join(str(c) for c in s) for s in sets) or "*"


@pytest.fixture(scope="module")
def answers() -> tuple[dict, dict]:
    assert NODE, "node is needed (.ci/run installs Node 22 through `npm ci`)"
    assert NODE_SEMVER.is_file(), "node_modules/semver is needed: run `npm ci` (.ci/run does)"
    cases = generate()
    done = subprocess.run([NODE, str(SEMVER_CASES)], input=json.dumps(cases), capture_output=True, text=True,
                          encoding="utf-8", timeout=120, check=True)
    return cases, json.loads(done.stdout)


def report(differences: list, total: int) -> str:
    lines = "\n".join(f"  {d}" for d in differences[:25])
    return f"{len(differences)} of {total} cases differ from node-semver; the first:\n{lines}"


def test_node_semver_is_the_pinned_release(answers) -> None:
    _, node = answers
    pinned = json.loads((REPO / "package.json").read_text())["devDependencies"]["semver"]
    assert node["semver"] == pinned == "7.8.6"


def test_the_cases_cover_every_form(answers) -> None:
    cases, node = answers
    ranges = cases["ranges"]
    assert len(cases["pairs"]) >= 500 and len(ranges) >= 500
    for form in ("^", "~>", "~", " - ", "||", "x", "X", "*", "<=", ">=", "<", ">", "-beta", "v", "+build"):
        assert sum(form in r for r in ranges) >= 10, form
    invalid = sum(v is None for v in node["valid_range"])
    assert 60 <= invalid <= len(ranges) // 2
    assert 0.15 < sum(node["satisfies"]) / len(cases["pairs"]) < 0.85
    assert sum(a != b for a, b in zip(node["satisfies"], node["satisfies_pre"])) >= 50
    assert sum(m is not None for m in node["max_satisfying"]) >= 100


def test_ranges_are_accepted_and_desugared_alike(answers) -> None:
    cases, node = answers
    differences = []
    for text, plain, pre in zip(cases["ranges"], node["valid_range"], node["valid_range_pre"]):
        ours = our_range(text)
        mine = None if ours is None else (str(ours), printed(ours.prerelease_sets))
        theirs = None if plain is None else (plain, pre)
        if mine != theirs:
            differences.append((text, "ours", mine, "node", theirs))
    assert not differences, report(differences, len(cases["ranges"]))


def test_rejected_ranges_say_why(answers) -> None:
    cases, node = answers
    for text, plain in zip(cases["ranges"], node["valid_range"]):
        if plain is None:
            with pytest.raises(semver.RangeError, match="invalid version range") as caught:
                semver.parse_range(text)
            assert repr(text) in str(caught.value)


def test_satisfies_agrees(answers) -> None:
    cases, node = answers
    differences = []
    for (v, text), plain, pre in zip(cases["pairs"], node["satisfies"], node["satisfies_pre"]):
        ours = our_range(text)
        if ours is None:
            continue            # node answers false; ours raises (test_ranges_are_accepted_and_desugared_alike)
        mine = (ours.matches(v), ours.matches(v, include_prerelease=True),
                semver.satisfies(v, text), semver.satisfies(v, text, include_prerelease=True))
        if mine != (plain, pre, plain, pre):
            differences.append((v, text, "ours", mine, "node", (plain, pre)))
    assert not differences, report(differences, len(cases["pairs"]))


def test_max_satisfying_agrees(answers) -> None:
    cases, node = answers
    differences = []
    for (versions, text), expected in zip(cases["max"], node["max_satisfying"]):
        if our_range(text) is None:
            continue
        if semver.max_satisfying(versions, text) != expected:
            differences.append((versions, text, semver.max_satisfying(versions, text), expected))
    assert not differences, report(differences, len(cases["max"]))


def test_valid_versions_read_alike(answers) -> None:
    cases, node = answers
    differences = []
    for text, expected in zip(cases["versions"], node["valid"]):
        parsed = semver.parse_version(text)
        if expected is not None and (parsed is None or str(parsed) != expected):
            differences.append((text, None if parsed is None else str(parsed), expected))
    assert not differences, report(differences, len(cases["versions"]))
    assert node["valid"].count(None) == 1            # 9007199254740992.0.0: too big for JavaScript
    assert semver.parse_version("9007199254740992.0.0") is None


def test_sorting_agrees(answers) -> None:
    cases, node = answers
    differences = [(vs, semver.sort_versions(vs), expected)
                   for vs, expected in zip(cases["sort"], node["sort"]) if semver.sort_versions(vs) != expected]
    assert not differences, report(differences, len(cases["sort"]))
