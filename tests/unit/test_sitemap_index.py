"""sitemap.xml past the sitemaps protocol's 50,000 URLs: an index of sitemaps (issue 29)."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from support import EXAMPLES
from skillsite.config import SiteConfig
from skillsite.publish import pages
from skillsite.publish.build import build
from skillsite.publish.pages import sitemap_files

NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}
CONFIG = SiteConfig(base_url="https://skills.example.com/sub")


def locations(path: Path, tag: str) -> list[str]:
    root = ET.fromstring(path.read_bytes())
    assert root.tag == f"{{{NS['sm']}}}{tag}"
    return [loc.text for loc in root.iterfind(".//sm:loc", NS)]


def test_up_to_the_limit_one_sitemap() -> None:
    urls = [f"https://skills.example.com/sub/skills/s{i}/" for i in range(5)]
    assert sitemap_files(urls, CONFIG, 5) == [("sitemap.xml", "sitemap.xml", {"urls": urls})]


def test_past_the_limit_an_index_of_sitemaps_of_the_limit_each() -> None:
    urls = [f"https://skills.example.com/sub/skills/s{i}/" for i in range(11)]
    files = sitemap_files(urls, CONFIG, 5)
    assert [(rel, template) for rel, template, _ in files] == [
        ("sitemap-1.xml", "sitemap.xml"), ("sitemap-2.xml", "sitemap.xml"), ("sitemap-3.xml", "sitemap.xml"),
        ("sitemap.xml", "sitemap-index.xml")]
    assert [v["urls"] for _, _, v in files[:3]] == [urls[:5], urls[5:10], urls[10:]]
    assert files[3][2] == {"sitemaps": [f"https://skills.example.com/sub/sitemap-{n}.xml" for n in (1, 2, 3)]}


def test_a_build_past_the_limit_writes_the_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a limit of 10 URLs the example catalog (home, tags/, its tag pages and its 12 listed
    skills) needs several sitemaps, which hold every URL of the single one, in order."""
    small = tmp_path / "small"
    assert build([EXAMPLES], small, CONFIG).ok
    every = locations(small / "sitemap.xml", "urlset")
    monkeypatch.setattr(pages, "SITEMAP_LIMIT", 10)
    out = tmp_path / "_site"
    assert build([EXAMPLES], out, CONFIG).ok
    index = locations(out / "sitemap.xml", "sitemapindex")
    parts = [f"sitemap-{n}.xml" for n in range(1, -(-len(every) // 10) + 1)]
    assert index == [f"https://skills.example.com/sub/{p}" for p in parts] and len(parts) >= 2
    assert [u for p in parts for u in locations(out / p, "urlset")] == every
    assert all(len(locations(out / p, "urlset")) <= 10 for p in parts)
    assert "Sitemap: https://skills.example.com/sub/sitemap.xml" in (out / "robots.txt").read_text()
    assert not list(small.glob("sitemap-*.xml"))


def test_no_sitemap_without_base_url(site: Path) -> None:
    assert not (site / "sitemap.xml").exists() and not list(site.glob("sitemap-*.xml"))
