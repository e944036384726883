"""``serve`` takes the last grouping of copies again after an edit that changes no group
(:mod:`skillsite.source.kept_grouping`): that build compares no pair of skills, yet the pairs
compared before must outlive it, in the cache file (a build saves only what it used) and among the
resident objects, or every later build compares them all again.  A build (or ``validate``) in a
process of its own takes the grouping the cache keeps, likewise."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from skillsite.cache import Cache, code_scope
from skillsite.config import SiteConfig
from skillsite.publish.build import build
from skillsite.publish.resident import Resident
from skillsite.source.catalog import COMPARISONS, GROUPING, _comparisons_key, check_catalog
from skillsite.source.copies import DEFAULT_THRESHOLD, CopySettings
from skillsite.source.kept_grouping import KeptGrouping
from support import append_line, write_skill
from test_incremental import _age

BODY = "".join(f"Step {n}: do the {n}th thing of the release checklist, then write it down.\n" for n in range(40))


def _stored_comparisons(cache: Path) -> list[str]:
    """The values the cache file holds of the pairs grouping compared."""
    with sqlite3.connect(cache / "build-cache.sqlite") as db:
        return [value for (value,) in db.execute("SELECT value FROM entries WHERE section = 'copies' AND key = ?",
                                                 (_comparisons_key(DEFAULT_THRESHOLD),))]


def _release_and_a_near_copy(src: Path) -> Path:
    """Two near copies of a release skill (a pair compared, one group) and another skill: its folder."""
    write_skill(src, "skills/release", body=BODY, description="Runs the release checklist. Use when releasing.")
    write_skill(src, ".claude/skills/release", body=BODY + "Step 40: tell the team.\n",
                description="Runs our release checklist. Use when releasing.")
    return write_skill(src, "skills/other", body="# Other\n\nSomething else entirely.\n")


def _counting_reuse(monkeypatch) -> list[bool]:
    """Whether each call of :meth:`KeptGrouping.reused` took the last groups again, in order."""
    taken_again: list[bool] = []
    reused = KeptGrouping.reused
    monkeypatch.setattr(KeptGrouping, "reused", lambda self, candidates, settings: taken_again.append(
        (groups := reused(self, candidates, settings)) is not None) or groups)
    return taken_again


def test_a_grouping_taken_again_keeps_the_pairs_compared_before(tmp_path, monkeypatch):
    src, cache, out = tmp_path / "src", tmp_path / "cache", tmp_path / "site"
    other = _release_and_a_near_copy(src)
    _age(src)
    resident = Resident()
    assert build([src], out, cache_dir=cache, resident=resident).ok
    stored = _stored_comparisons(cache)
    assert len(stored) == 1 and "alike" in stored[0]
    taken_again = _counting_reuse(monkeypatch)
    append_line(other / "SKILL.md", "A line of its own.")
    assert build([src], out, cache_dir=cache, resident=resident).ok
    assert taken_again == [True]
    assert _stored_comparisons(cache) == stored
    Cache(cache / "build-cache.sqlite", code_scope(sorted(vars(SiteConfig()).items())), resident)  # the next build
    assert resident.take(*COMPARISONS) is not None


def test_a_build_in_a_process_of_its_own_takes_the_grouping_the_cache_keeps(tmp_path, monkeypatch):
    """No resident objects: the grouping comes from the cache.  An edit of a skill in no group,
    sharing no key with another, takes it again (the pairs compared are kept unread); an edit of
    a member of a group groups anew; the catalog is a cold build's."""
    src, cache, out = tmp_path / "src", tmp_path / "cache", tmp_path / "site"
    other = _release_and_a_near_copy(src)
    _age(src)
    assert build([src], out, cache_dir=cache).ok
    stored = _stored_comparisons(cache)
    taken_again = _counting_reuse(monkeypatch)
    append_line(other / "SKILL.md", "A line of its own.")
    _age(src)
    assert build([src], out, cache_dir=cache).ok
    assert taken_again == [True] and _stored_comparisons(cache) == stored
    cold = build([src], tmp_path / "cold", cache_dir=None)
    assert (out / "skills.json").read_bytes() == (tmp_path / "cold" / "skills.json").read_bytes()
    copies = {s["id"]: s["visibility"].get("copy_of") for s in json.loads((out / "skills.json").read_text())["skills"]}
    assert cold.ok and sorted(copies.items()) == [(".claude/skills/release", "skills/release"),
                                                  ("skills/other", None), ("skills/release", None)]
    append_line(src / "skills/release/SKILL.md", "Step 41: close the milestone.")
    _age(src)
    assert build([src], out, cache_dir=cache).ok
    assert taken_again == [True, False]  # a member of a group changed: grouped anew (and stored again)
    append_line(other / "SKILL.md", "Another line.")
    _age(src)
    assert build([src], out, cache_dir=cache).ok
    assert taken_again == [True, False, True]


def test_validate_takes_the_grouping_its_cache_keeps(tmp_path, monkeypatch):
    src = tmp_path / "src"
    other = _release_and_a_near_copy(src)
    _age(src)
    cache = Cache(tmp_path / "verdicts.sqlite", "a scope")
    first = check_catalog([src], cache=cache)
    cache.save()
    taken_again = _counting_reuse(monkeypatch)
    append_line(other / "SKILL.md", "A line of its own.")
    _age(src)
    again = check_catalog([src], cache=Cache(tmp_path / "verdicts.sqlite", "a scope"))
    assert taken_again == [True]
    copies = [(d.path, d.message) for d in again.diagnostics if d.code == "SK229"]
    assert len(copies) == 1 and copies == [(d.path, d.message) for d in first.diagnostics if d.code == "SK229"]
    # validate's cache is not of the copies settings: the grouping it keeps says which settings it is of
    apart = check_catalog([src], cache=Cache(tmp_path / "verdicts.sqlite", "a scope"),
                          copies=CopySettings(similarity=0.99))
    assert taken_again == [True, False] and not [d for d in apart.diagnostics if d.code == "SK229"]


def test_serve_s_first_build_takes_the_grouping_the_cache_keeps(tmp_path, monkeypatch):
    """A long-running process that holds no grouping yet (its first build) takes the cache's."""
    src, cache, out = tmp_path / "src", tmp_path / "cache", tmp_path / "site"
    other = _release_and_a_near_copy(src)
    _age(src)
    assert build([src], out, cache_dir=cache).ok
    taken_again = _counting_reuse(monkeypatch)
    append_line(other / "SKILL.md", "A line of its own.")
    _age(src)
    resident = Resident()
    assert build([src], out, cache_dir=cache, resident=resident).ok
    assert taken_again == [True] and resident.take(*GROUPING) is not None
