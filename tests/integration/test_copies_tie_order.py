"""Every copy listed (`skillsite search --all-copies`, ``Catalog.search(copies=True)``, MCP's
``all_copies``): on a tie a copy comes right after its canonical member, as the catalog page's
"Show every copy" switch lists them (tests/integration/browser/test_browser_copies.py), not in
id order between other skills; for a whole catalog and a sharded one alike."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillsite.cli import main
from skillsite.config import SiteConfig
from skillsite.loader import Catalog
from skillsite.publish.build import build

BODY = "\n# Title\n\nA body long enough to be one of its own, with several words in it, not short at all.\n" * 3
#: Five skills that tie on "polishing" (one description): widget, with a listed copy and a hidden
#: one, gizmo and doohi; by id, the copies sort after gizmo (b/), m/ before doohi (y/).
SKILLS = [("a/skills/widget", "widget", ""), ("m/skills/widget", "widget", ""),
          ("z/.claude/skills/widget", "widget", "hidden: true\n"), ("b/skills/gizmo", "gizmo", ""),
          ("y/skills/doohi", "doohi", "")]
COPIES_TOGETHER = ["a/skills/widget", "m/skills/widget", "z/.claude/skills/widget", "b/skills/gizmo",
                   "y/skills/doohi"]
LAYOUTS = {"whole": SiteConfig(), "sharded": SiteConfig(shard_above=2)}


@pytest.fixture(scope="module", params=list(LAYOUTS))
def shop(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("shop-" + request.param)
    for rel, name, extra in SKILLS:
        (tmp / "skills" / rel).mkdir(parents=True)
        (tmp / "skills" / rel / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Polishing helper for shiny things of every size.\n{extra}---\n"
            f"{BODY}{name}\n", encoding="utf-8")
    assert build([tmp / "skills"], tmp / "site", LAYOUTS[request.param]).ok
    return tmp / "site"


def test_on_a_tie_every_copy_follows_its_canonical_member(shop: Path) -> None:
    catalog = Catalog.open(shop)
    entries = {e.id: e for e in catalog.entries}
    assert {entries[i].visibility.copy_of for i in COPIES_TOGETHER[1:3]} == {"a/skills/widget"}
    hits = catalog.search("polishing", k=10, copies=True)
    assert len({r.score for r in hits}) == 1                     # one tie
    assert [r.id for r in hits] == COPIES_TOGETHER
    assert [r.id for r in catalog.search("polishing", k=2, copies=True)] == COPIES_TOGETHER[:2]
    # as the page shows them (its skills listed): the listed copy right after its canonical member
    listed = [r.id for r in hits if entries[r.id].visibility.listed]
    assert listed == ["a/skills/widget", "m/skills/widget", "b/skills/gizmo", "y/skills/doohi"]
    grouped = [r.id for r in catalog.search("polishing", k=10)]
    assert grouped == ["a/skills/widget", "b/skills/gizmo", "y/skills/doohi"]


def test_skillsite_search_all_copies_prints_that_order(shop: Path) -> None:
    result = CliRunner().invoke(main, ["search", "polishing", "--catalog", str(shop), "--json", "-k", "10",
                                       "--all-copies"])
    assert result.exit_code == 0, result.output
    assert [r["id"] for r in json.loads(result.output)] == COPIES_TOGETHER
