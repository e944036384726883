"""The tag index above ``shard_above`` (issue 29): ``tags/index.html`` and ``tags/page/N/``,
:data:`~skillsite.publish.pages.TAGS_PAGE_SIZE` tags a page (3 with ``shard_above: 3``), every
tag once, in name order; the sitemap lists every page of every list."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from support import EXAMPLES, tree_bytes, write_skill
from skillsite.config import SiteConfig
from skillsite.loader import Catalog
from skillsite.publish.build import build
from skillsite.publish.views import collect_tags

PAGED = SiteConfig(shard_above=3, base_url="https://skills.example.com/sub/")
CHIP = re.compile(r'<a class="chip" href="([^"]+)">([^<]+) <span')
TAGS_PAGER = re.compile(r'<nav class="pager" aria-label="Pages of tags">.*?</nav>', re.S)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tags") / "_site"
    assert build([EXAMPLES], out, PAGED).ok
    return out


def tag_pages(site: Path) -> list[tuple[str, list[str]]]:
    """(folder, tag names shown) of every page of the tag index, following "next" links."""
    pages: list[tuple[str, list[str]]] = []
    folder: str | None = "tags/"
    while folder is not None:
        html = (site / folder / "index.html").read_text("utf-8")
        root = "../" * folder.count("/")
        names = [name for href, name in CHIP.findall(html)]
        assert all(href.removeprefix(root).startswith("tags/") for href, _ in CHIP.findall(html))
        pages.append((folder, names))
        following = re.search(r'<a href="([^"]+)" rel="next">', html)
        folder = following.group(1).removeprefix(root) if following else None
    return pages


def test_the_tag_index_is_split_into_pages_with_every_tag_once(site: Path) -> None:
    names = [t.name for t in collect_tags(e for e in Catalog.open(site).entries if e.visibility.listed)]
    pages = tag_pages(site)
    count = -(-len(names) // 3)
    assert count > 2 and [folder for folder, _ in pages] == ["tags/", *(f"tags/page/{n}/" for n in range(2, count + 1))]
    assert [len(shown) for _, shown in pages] == [3] * (count - 1) + [len(names) - 3 * (count - 1)]
    assert [n for _, shown in pages for n in shown] == names      # once each, in name order
    assert not (site / "tags/page/1").exists() and not (site / f"tags/page/{count + 1}").exists()
    second = (site / "tags/page/2/index.html").read_text("utf-8")
    assert f"<title>Tags, page 2 of {count} · " in second and f"{len(names)} tags on 13 skills." in second


def test_every_pager_link_of_the_tag_index_resolves(site: Path) -> None:
    for folder in [f for f, _ in tag_pages(site)]:
        nav = TAGS_PAGER.search((site / folder / "index.html").read_text("utf-8"))
        assert nav, folder
        for href in re.findall(r'href="([^"]+)"', nav.group(0)):
            assert (site / folder / href / "index.html").resolve().is_file(), (folder, href)


def test_the_sitemap_lists_every_page_of_every_list(site: Path) -> None:
    locs = re.findall(r"<loc>https://skills\.example\.com/sub/([^<]*)</loc>", (site / "sitemap.xml").read_text())
    assert len(locs) == len(set(locs))
    later = {rel.parent.relative_to(site).as_posix() + "/" for rel in site.glob("**/page/*/index.html")}
    assert later and {"page/2/", "tags/page/2/", "tags/release/page/2/"} <= later <= set(locs)
    assert all((site / loc / "index.html").is_file() for loc in locs)


def test_a_small_catalog_keeps_one_tag_page(tmp_path: Path) -> None:
    assert build([EXAMPLES], tmp_path / "_site", SiteConfig()).ok
    html = (tmp_path / "_site/tags/index.html").read_text("utf-8")
    assert 'class="pager"' not in html and not (tmp_path / "_site/tags/page").exists()


def test_adding_and_removing_tags_rebuilds_as_a_cold_build(tmp_path: Path) -> None:
    """A tag named before every other moves every page boundary of the tag index."""
    src, cache, out = tmp_path / "src", tmp_path / "cache", tmp_path / "_site"
    shutil.copytree(EXAMPLES, src)
    assert build([src], out, PAGED, cache_dir=cache).ok
    front = "name: aaa-tagged\ndescription: Tagged first. Use when testing.\ntags: [aaa, aab, aac, aad]\n"
    changes = [lambda: write_skill(src, "aaa-tagged", front), lambda: shutil.rmtree(src / "aaa-tagged")]
    for step, (change, first) in enumerate(zip(changes, [["aaa", "aab", "aac"], ["api"]])):
        change()
        assert build([src], out, PAGED, cache_dir=cache).ok
        assert tag_pages(out)[0][1][:len(first)] == first
        cold = tmp_path / f"cold-{step}"
        assert build([src], cold, PAGED).ok and tree_bytes(out) == tree_bytes(cold)
