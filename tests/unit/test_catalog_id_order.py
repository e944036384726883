"""Catalog.order_key and Catalog.ids_under: a skill's place in manifest order and the ids that
begin with a path, as every entry gives them, for a whole catalog and paged ones (where they
read nothing, or only the indexes of the pages whose id range may hold such an id)."""
from __future__ import annotations

from pathlib import Path

import pytest

from skillsite.config import SiteConfig
from skillsite.loader import Catalog
from skillsite.publish.build import build
from support import EXAMPLES


@pytest.fixture(scope="module", params=[None, 1, 3], ids=["whole", "paged-1", "paged-3"])
def built(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ids") / "_site"
    config = SiteConfig() if request.param is None else SiteConfig(shard_above=request.param)
    assert build([EXAMPLES], out, config).ok
    return out


def test_order_key_sorts_ids_as_the_manifest_lists_them(built: Path) -> None:
    ids = [entry["id"] for entry in Catalog.open(built).skills]
    fresh = Catalog.open(built)
    assert sorted(reversed(ids), key=fresh.order_key) == ids
    assert fresh.raw_entry("release-manager/version-bump") == Catalog.open(built).entry("release-manager/version-bump")
    assert fresh.raw_entry("no-such-skill") is None and fresh.raw_entry("release-manager/version") is None


def test_ids_under_a_path_are_those_that_begin_with_it_in_manifest_order(built: Path) -> None:
    ids = [entry["id"] for entry in Catalog.open(built).skills]
    prefixes = {"", "/", "r", "release-manager/", "release-manager/version-bump/", "release-manager/changelog/",
                "release-manager/zz/", "s", "zz/", "\U0010ffff", *(skill_id[:end] for skill_id in ids
                                                                   for end in range(len(skill_id) + 1))}
    fresh = Catalog.open(built)
    for prefix in sorted(prefixes):
        assert fresh.ids_under(prefix) == [i for i in ids if i.startswith(prefix)], prefix
