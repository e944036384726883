"""``serve`` takes the last grouping of copies again after an edit that changes no group
(:mod:`skillsite.source.kept_grouping`): that build compares no pair of skills, yet the pairs
compared before must outlive it, in the cache file (a build saves only what it used) and among the
resident objects, or every later build compares them all again."""
from __future__ import annotations

import sqlite3
from pathlib import Path

from skillsite.cache import Cache, code_scope
from skillsite.config import SiteConfig
from skillsite.publish.build import build
from skillsite.publish.resident import Resident
from skillsite.source.catalog import COMPARISONS
from skillsite.source.kept_grouping import KeptGrouping
from support import append_line, write_skill
from test_incremental import _age

BODY = "".join(f"Step {n}: do the {n}th thing of the release checklist, then write it down.\n" for n in range(40))


def _stored_comparisons(cache: Path) -> list[str]:
    """The values the cache file holds of the pairs grouping compared."""
    with sqlite3.connect(cache / "build-cache.sqlite") as db:
        return [value for (value,) in db.execute("SELECT value FROM entries WHERE section = 'copies'")]


def test_a_grouping_taken_again_keeps_the_pairs_compared_before(tmp_path, monkeypatch):
    src, cache, out = tmp_path / "src", tmp_path / "cache", tmp_path / "site"
    write_skill(src, "skills/release", body=BODY, description="Runs the release checklist. Use when releasing.")
    write_skill(src, ".claude/skills/release", body=BODY + "Step 40: tell the team.\n",
                description="Runs our release checklist. Use when releasing.")  # a near copy: a pair compared
    other = write_skill(src, "skills/other", body="# Other\n\nSomething else entirely.\n")
    _age(src)
    resident = Resident()
    assert build([src], out, cache_dir=cache, resident=resident).ok
    stored = _stored_comparisons(cache)
    assert len(stored) == 1 and "alike" in stored[0]
    taken_again: list[bool] = []
    reused = KeptGrouping.reused
    monkeypatch.setattr(KeptGrouping, "reused", lambda self, candidates, settings: taken_again.append(
        (groups := reused(self, candidates, settings)) is not None) or groups)
    append_line(other / "SKILL.md", "A line of its own.")
    assert build([src], out, cache_dir=cache, resident=resident).ok
    assert taken_again == [True]
    assert _stored_comparisons(cache) == stored
    Cache(cache / "build-cache.sqlite", code_scope(sorted(vars(SiteConfig()).items())), resident)  # the next build
    assert resident.take(*COMPARISONS) is not None
