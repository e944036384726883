"""``serve`` keeps the last grouping of copies and takes it again when no changed skill was in a
group or shares a key with another (skillsite.source.kept_grouping): the groups it gives are
those grouping anew gives, through seeded sequences of every kind of edit."""
from __future__ import annotations

import functools
import hashlib
import json
import random
from array import array

import pytest

from skillsite.source.copies import Candidate, Comparisons, CopySettings, Fingerprint, fingerprint, group_copies
from skillsite.source.kept_grouping import KeptGrouping

WORDS = [f"word{n}" for n in range(400)]


def _body(rng: random.Random, lines: int = 30) -> str:
    return "\n".join(" ".join(rng.choice(WORDS) for _ in range(6)) for _ in range(lines))


@functools.lru_cache(maxsize=None)  # an unchanged skill keeps its fingerprint, as serve's do
def _candidate(skill_id: str, name: str, description: str, body: str, priority: int = 0) -> Candidate:
    raw = hashlib.sha256(f"{name}\n{description}\n{body}".encode()).hexdigest()
    return Candidate(skill_id, fingerprint(name, description, body, raw), 0, priority)


class _Catalog:
    """Skills as (name, description, body, priority) by id, edited at random."""

    def __init__(self, rng: random.Random, size: int) -> None:
        self.rng = rng
        self.skills = {f"s{n:03d}": (f"s{n:03d}", f"Does thing {n} well. Use when asked.", _body(rng), 0)
                       for n in range(size)}
        self.made = size

    def candidates(self) -> list[Candidate]:
        return [_candidate(skill_id, *fields) for skill_id, fields in sorted(self.skills.items())]

    def edit(self) -> str:
        """One edit of a kind drawn at random; its kind."""
        rng, ids = self.rng, sorted(self.skills)
        kind = rng.choice(["new body", "line added", "near copy", "exact copy", "same about", "priority",
                           "removed", "added", "copy added", "two new bodies", "like another", "like another"])
        target = rng.choice(ids)
        name, description, body, priority = self.skills[target]
        other = self.skills[rng.choice(ids)]
        if kind == "new body":
            self.skills[target] = (name, description, _body(rng), priority)
        elif kind == "line added":
            self.skills[target] = (name, description, body + "\n" + _body(rng, 1), priority)
        elif kind == "near copy":  # one line of another's body more: alike at 0.9
            self.skills[target] = (other[0], other[1], other[2] + "\n" + _body(rng, 1), priority)
        elif kind == "exact copy":
            self.skills[target] = other
        elif kind == "same about":  # versions: the same name and description, its own body
            self.skills[target] = (other[0], other[1], _body(rng), priority)
        elif kind == "priority":
            self.skills[target] = (name, description, body, priority + 1)
        elif kind == "removed" and len(ids) > 2:
            del self.skills[target]
        elif kind in ("added", "copy added"):
            self.made += 1
            self.skills[f"s{self.made:03d}"] = other if kind == "copy added" else \
                (f"n{self.made}", f"Does new thing {self.made}. Use when needed.", _body(rng), 0)
        elif kind == "like another":  # most of another's lines: it shares band keys, and is not alike
            self.skills[target] = (name, description, _like(rng, other[2]), priority)
        elif kind == "two new bodies":
            for skill_id in (target, rng.choice(ids)):
                name, description, _, priority = self.skills[skill_id]
                self.skills[skill_id] = (name, description, _body(rng), priority)
        return kind


def _like(rng: random.Random, body: str, replaced: int = 4) -> str:
    """``body`` with ``replaced`` of its lines new: about 0.75 alike (below every threshold)."""
    lines = body.split("\n")
    for at in rng.sample(range(len(lines)), replaced):
        lines[at] = _body(rng, 1)
    return "\n".join(lines)


def _anew(candidates: list[Candidate], settings: CopySettings) -> list[tuple[str, ...]]:
    return group_copies(candidates, settings, Comparisons(settings.similarity))


@pytest.mark.parametrize("stored", [False, True], ids=["resident", "stored"])
@pytest.mark.parametrize("settings", [CopySettings(), CopySettings(versions=False),
                                      CopySettings(apart=frozenset({"s001", "s002", "s003"}))],
                         ids=["default", "no-versions", "apart"])
@pytest.mark.parametrize("seed", range(4))
def test_the_kept_grouping_gives_what_grouping_anew_gives(seed: int, settings: CopySettings, stored: bool) -> None:
    """``stored``: each time read back from the JSON the cache keeps, as a process of its own reads it."""
    rng = random.Random(seed)
    catalog = _Catalog(rng, 30)
    candidates = catalog.candidates()
    kept = KeptGrouping.of(candidates, settings, _anew(candidates, settings))
    taken = anew = 0
    for _ in range(120):
        kind = catalog.edit()
        candidates = catalog.candidates()
        expected = _anew(candidates, settings)
        if stored:
            kept = KeptGrouping.from_json(json.loads(json.dumps(kept.to_json())))
        groups = kept.reused(candidates, settings)
        if groups is None:
            anew += 1
            kept = KeptGrouping.of(candidates, settings, expected)
        else:
            taken += 1
            assert groups == expected, kind
    assert taken >= 20 and anew >= 20, (taken, anew)  # both ways were walked, many times


def test_an_edit_of_a_skill_in_no_group_takes_the_groups_again() -> None:
    rng = random.Random(7)
    body = _body(rng)
    candidates = [_candidate("a", "a", "Does a. Use when asked.", body), _candidate("b", "b", "Does b. Use now.", body),
                  _candidate("c", "c", "Does c well. Use when asked.", _body(rng))]
    settings = CopySettings()
    kept = KeptGrouping.of(candidates, settings, _anew(candidates, settings))
    assert kept.groups == [("a", "b")]
    edited = [*candidates[:2], _candidate("c", "c", "Does c well. Use when asked.", _body(rng))]
    assert kept.reused(edited, settings) == [("a", "b")]
    assert kept.known["c"] is edited[2] and kept.updated
    # a member of a group edited, a skill made a copy, the settings changed: grouped anew
    assert kept.reused([_candidate("a", "a", "Does a. Use when asked.", _body(rng)), *edited[1:]], settings) is None
    assert kept.reused([*edited[:2], _candidate("c", "c", "Does c well. Use when asked.", body)], settings) is None
    assert kept.reused(edited, CopySettings(similarity=0.8)) is None
    assert kept.reused(edited, settings) == [("a", "b")]  # a refusal changed nothing


def test_an_edit_of_a_skill_sharing_band_keys_with_one_it_is_not_alike_takes_the_groups_again() -> None:
    """Grouping compares two skills sharing a band key; a changed skill alike none of those it
    shares one with joins no group (c, of a's name, holds most of its 60 lines: 0.85 alike, under 0.9)."""
    rng = random.Random(11)
    body = _body(rng, 60)
    a = _candidate("a", "a", "Does a. Use when asked.", body)
    candidates = [a, _candidate("c", "a", "Does c well. Use when asked.", _like(rng, body))]
    settings = CopySettings()
    kept = KeptGrouping.of(candidates, settings, _anew(candidates, settings))
    edited = [a, _candidate("c", "a", "Does c well. Use when asked.", _like(rng, body))]
    assert not set(a.fingerprint.bands).isdisjoint(edited[1].fingerprint.bands)
    assert kept.groups == [] == _anew(edited, settings)
    assert kept.reused(edited, settings) == []
    alike = [a, _candidate("c", "a", "Does c well. Use when asked.", _like(rng, body, replaced=1))]
    assert _anew(alike, settings) == [("a", "c")] and kept.reused(alike, settings) is None


def test_the_same_candidates_in_another_order_are_grouped_anew() -> None:
    """Grouping buckets one member per exact group and set of band keys, the first: a and b share
    a body and every band key but not their lines, c is alike b alone, so the order of a and b
    decides whether c joins them; the last groups are not those of the candidates reordered."""
    bands = array("q", [7 | (band << 32) for band in range(16)])
    a = Candidate("a", Fingerprint("x", "ra", "body", array("I", range(20)), bands), 0, 0)
    b = Candidate("b", Fingerprint("x", "rb", "body", array("I", range(30)), bands), 0, 0)
    c = Candidate("c", Fingerprint("x", "rc", "other", array("I", range(31)), bands), 0, 0)
    settings = CopySettings()
    kept = KeptGrouping.of([a, b, c], settings, _anew([a, b, c], settings))
    assert kept.groups == [("a", "b")] and _anew([b, a, c], settings) == [("a", "b", "c")]
    assert kept.reused([b, a, c], settings) is None
    assert kept.reused([a, b, c], settings) == [("a", "b")]
