"""One tag spelt two ways ("café" composed, or "cafe" + U+0301 as a macOS keyboard or file name
may give it; and in any case) is one tag, folded as search words are (terms.folded): in the
loader's and the sharded index's tag filter, `skillsite search --tag`, the sharded index's tag
chunks, and the build's tag pages, counts and chips."""
from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillsite.cli import main
from skillsite.config import SiteConfig
from skillsite.loader import Catalog, SearchIndex, build_search_section
from skillsite.publish.build import build
from skillsite.publish.views import collect_tags
from skillsite.search.shard_query import ShardedIndex
from skillsite.search.shard_writer import build_shards, card_row, doc_order
from support import write_skill


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


CAFE = "caf\u00e9"
#: Two skills tagged café (composed, then decomposed and upper-cased), one tagged "cafe" (no accent).
TAGS = {"bakery/menu": [CAFE, "menu"], "bakery/recipes": [nfd("CAFÉ"), "baking"], "bakery/bar": ["cafe"]}
ENTRIES = [{"id": i, "name": i.rsplit("/", 1)[1], "description": f"About {i}.", "tags": t, "priority": 0}
           for i, t in TAGS.items()]
ASKED = [[CAFE], [nfd(CAFE)], ["CAF\u00c9"], [nfd("Café")]]


@pytest.mark.parametrize("tags", ASKED, ids=["composed", "decomposed", "upper", "title-decomposed"])
def test_the_tag_filters_fold_a_tag_as_search_words(tags: list[str]) -> None:
    index = SearchIndex.from_manifest({"skills": ENTRIES, "search": build_search_section(ENTRIES)})
    assert sorted(i for i, _ in index.search("", k=10, tags=tags)) == ["bakery/menu", "bakery/recipes"]
    rows = [card_row(e["id"], e["name"], e["description"], f"skills/{e['id']}/", e["tags"])
            for e in (ENTRIES[i] for i in doc_order(ENTRIES))]
    shards = build_shards(ENTRIES, rows)
    chunk = json.loads(next(data for path, data in shards.files.items() if path.startswith("search/tags/")))
    assert chunk["terms"] == ["baking", "cafe", CAFE, "menu"]           # one key, composed
    sharded = ShardedIndex.open(shards.section, lambda path, sha256: shards.files[path])
    assert sorted(c.id for c, _ in sharded.search("", k=10, tags=tags)) == ["bakery/menu", "bakery/recipes"]


@pytest.fixture(scope="module", params=[100, 1], ids=["whole", "sharded"])
def site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("tags")
    for skill_id, tags in TAGS.items():
        write_skill(tmp / "skills", skill_id, f"name: {skill_id.rsplit('/', 1)[1]}\ndescription: About {skill_id}.\n"
                                              f"tags: {json.dumps(tags)}\n")
    out = tmp / "site"
    assert build([tmp / "skills"], out, replace(SiteConfig(), shard_above=request.param)).ok
    return out


def test_the_build_makes_one_tag_page_and_chip_of_both_spellings(site: Path) -> None:
    tags = collect_tags(e for e in Catalog.open(site).entries if e.visibility.in_lists)
    assert sorted((unicodedata.normalize("NFC", t.name.lower()), t.count) for t in tags) == \
        [("baking", 1), ("cafe", 1), (CAFE, 2), ("menu", 1)]
    cafe = next(t for t in tags if t.count == 2)
    assert "2 skills." in (site / cafe.url / "index.html").read_text("utf-8")
    pages = " ".join(path.read_text("utf-8") for path in (site / cafe.url).rglob("index.html"))  # a page each, paged
    assert "skills/bakery/menu/" in pages and "skills/bakery/recipes/" in pages and "skills/bakery/bar/" not in pages
    home = (site / "index.html").read_text("utf-8")
    chips = re.findall(r'<a class="chip" href="[^"]+" data-tag="([^"]+)">[^<]+ <span class="chip-count">(\d+)</span>',
                       home)
    assert sorted((unicodedata.normalize("NFC", name.lower()), int(n)) for name, n in chips) == \
        [("baking", 1), ("cafe", 1), (CAFE, 2), ("menu", 1)]


@pytest.mark.parametrize("tags", ASKED, ids=["composed", "decomposed", "upper", "title-decomposed"])
def test_skillsite_search_tag_folds_the_tag(site: Path, tags: list[str]) -> None:
    result = CliRunner().invoke(main, ["search", "", "--catalog", str(site), "--json", "--tag", tags[0]])
    assert result.exit_code == 0, result.output
    assert sorted(r["id"] for r in json.loads(result.output)) == ["bakery/menu", "bakery/recipes"]
    assert sorted(r.id for r in Catalog.open(site).search("bakery", k=10, tags=tags)) == \
        ["bakery/menu", "bakery/recipes"]


def test_a_card_shows_each_folded_tag_once_in_its_first_spelling() -> None:
    """A card's chips (views.card_tags): each tag once however the skill spells it, in the order
    it first comes, with its page and count; one only hidden skills carry: its first spelling,
    unlinked, count 0."""
    from types import SimpleNamespace

    from skillsite.publish.views import TagInfo, card_tags

    pages = {CAFE: TagInfo(CAFE, "tags/cafe/", 3), "menu": TagInfo("menu", "tags/menu/", 1)}
    entry = SimpleNamespace(tags=("Menu", nfd("CAFÉ"), "Secret", CAFE, "menu", "SECRET"))
    assert card_tags(entry, pages) == [pages["menu"], pages[CAFE], TagInfo("Secret", "", 0)]
