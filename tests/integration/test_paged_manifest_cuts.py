"""A paged ``skills.json`` whose pages end where their entries' ids say
(:func:`~skillsite.publish.manifest.page_bounds`): a skill added rewrites its own page, not every
page after it, and the catalog still reads as a cold build of it."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from support import tree_bytes, write_skill
from skillsite.config import SiteConfig
from skillsite.loader import Catalog
from skillsite.publish import catalog_files
from skillsite.publish.build import build

CONFIG = SiteConfig(shard_above=40)


def _page_files(site: Path) -> dict[str, bytes]:
    return {rel: data for rel, data in tree_bytes(site / "manifest").items()}


#: Folder names as real trees hold them (ids are cut into pages by their bytes' hash).
ODD_NAMES = ("@scope+tool", "50% off", "café crème", "日本語のスキル", "データ（分析）")


def _write(src: Path, rel: str, rng: random.Random) -> None:
    """A skill whose description is words of its own: no other entry names it as a look-alike."""
    words = " ".join(f"{rng.choice('bdfgklmnprstvz')}{rng.choice('aeiou')}{rng.choice('bdfgklmnprstvz')}o"
                     for _ in range(8))
    write_skill(src, rel, description=f"Handles {words}. Use when testing pages.", name=f"skill-{rng.randrange(10**6)}")


@pytest.fixture
def small_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pages of 16 entries on average (24 at most) after a root of 25: a big catalog's layout, made small."""
    monkeypatch.setattr(catalog_files, "entries_per_page", lambda skills: 16)


def test_a_skill_added_rewrites_one_manifest_page_and_the_catalog_equals_a_cold_build(small_pages: None,
                                                                                     tmp_path: Path) -> None:
    src, out, cache = tmp_path / "src", tmp_path / "site", tmp_path / "cache"
    rng = random.Random(47)
    for number in range(200):
        _write(src, f"skill-{number:03d}" if number % 40 else f"odd/{ODD_NAMES[number // 40]} {number}", rng)
    assert build([src], out, CONFIG, cache_dir=cache).ok
    before = _page_files(out)
    counts = [page["count"] for page in json.loads((out / "skills.json").read_text())["pages"]]
    assert sum(counts) == 175 and len(set(counts)) > 1 and max(counts) <= 24 and len(counts) >= 8

    _write(src, "a-added", rng)   # first in id order: it pushes the root's last entry onto page 2
    assert build([src], out, CONFIG, cache_dir=cache).ok
    after = _page_files(out)
    changed = sorted(rel for rel in after if before.get(rel) != after[rel])
    # page 2 and its index (the next page too, now and then): not every page of the catalog
    assert 2 <= len(changed) <= 4 and all(rel.startswith(("pages/0002", "pages/0003", "index/0002", "index/0003"))
                                          for rel in changed)
    assert build([src], tmp_path / "cold", CONFIG).ok
    assert tree_bytes(out) == tree_bytes(tmp_path / "cold")
    catalog = Catalog.open(out)
    odd = [f"odd/{name} {n * 40}" for n, name in enumerate(ODD_NAMES)]
    some = [f"skill-{n:03d}" for n in range(1, 200, 13) if n % 40] + odd
    assert [catalog.entry(skill_id)["id"] for skill_id in some] == some
    assert [catalog.load(skill_id).id for skill_id in odd] == odd
    assert catalog.entry("a-added")["id"] == "a-added" and len(catalog.skills) == 201
