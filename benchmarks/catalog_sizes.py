"""The sizes of a built catalog's catalog-wide files, and what they would be at K times its skills.

    python benchmarks/catalog_sizes.py SITE [--scale K] [--config skillsite.yml]

First the files of SITE as built: ``skills.json`` and its pages, indexes and entry files, the
lists (home page and its pages, tags, risks), ``llms.txt``, the sitemap, the discovery indexes,
the marketplace, the provider listing, ``_headers``, the search files, and the biggest file of
the site that is not a skill's own (SKILL.md, bundled files).

With ``--scale K``, the same files made by skillsite's own writers from K copies of SITE's
entries (copy k's ids, names and tags suffixed ``-k``: as many distinct names and K times the
tags), in memory or in a scratch folder (``skills.json`` as the build writes it: paged above
``shard_above`` skills, its pages as long as the build makes them): an estimate of the catalog-wide
files at K times the skills without building K times the skills.  Skill pages and search files are
not made.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Iterable

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from skillsite.agent.entry import ManifestEntry  # noqa: E402
from skillsite.config import SiteConfig, load_config, template_dirs  # noqa: E402
from skillsite.loader import Catalog  # noqa: E402
from skillsite.publish import pages as site_pages  # noqa: E402
from skillsite.publish.catalog_files import write_manifest  # noqa: E402
from skillsite.publish.manifest import catalog_digest, entries_json, manifest  # noqa: E402
from skillsite.publish.marketplace import marketplace_json  # noqa: E402
from skillsite.publish.provider_layout import skills_index_json  # noqa: E402
from skillsite.publish.staging import Staging  # noqa: E402
from skillsite.publish.templates import write_assets  # noqa: E402
from skillsite.publish.views import active_files, headers_file  # noqa: E402
from skillsite.publish.wellknown import ARCHIVE_DIR, archive_path, discovery_index  # noqa: E402

MB = 1024 * 1024
#: (label, glob patterns) of the files reported, in the order shown.
GROUPS = [
    ("skills.json (root)", ["skills.json"]),
    ("manifest page", ["manifest/pages/*.json"]),
    ("manifest index", ["manifest/index/*.json"]),
    ("skills/<id>/entry.json", ["skills/**/entry.json"]),
    ("index.html", ["index.html"]),
    ("page/<n>/index.html", ["page/*/index.html"]),
    ("tags/index.html", ["tags/index.html", "tags/page/*/index.html"]),
    ("tag page", ["tags/*/index.html", "tags/*/page/*/index.html"]),
    ("risk page", ["risk/*/index.html", "risk/*/page/*/index.html"]),
    ("llms.txt", ["llms.txt"]),
    ("sitemap", ["sitemap.xml", "sitemap-*.xml"]),
    ("available_skills.xml", ["available_skills.xml"]),
    (".well-known/agent-skills/index.json", [".well-known/agent-skills/index.json"]),
    (".well-known/skills/index.json", [".well-known/skills/index.json"]),
    (".claude-plugin/marketplace.json", [".claude-plugin/marketplace.json"]),
    ("skills/index.json", ["skills/index.json"]),
    ("_headers", ["_headers"]),
    ("search/*", ["search/*"]),
]

#: The groups of skills.json's own files.
MANIFEST_GROUPS = ("skills.json (root)", "manifest page", "manifest index", "skills/<id>/entry.json")


def human(size: float) -> str:
    return f"{size / MB:8.2f} MB" if size >= MB / 10 else f"{size / 1024:8.1f} KB"


def row(label: str, sizes: list[int]) -> str:
    if not sizes:
        return f"{label:<38} {'-':>11}"
    many = f"  ({len(sizes):,} files, {human(sum(sizes)).strip()} in all)" if len(sizes) > 1 else ""
    return f"{label:<38} {human(max(sizes))}{many}"


def built_sizes(site: Path) -> dict[str, list[int]]:
    """Sizes of each group's files in a built site (the biggest is what the table shows)."""
    return {label: [p.stat().st_size for pattern in patterns for p in site.glob(pattern) if p.is_file()]
            for label, patterns in GROUPS}


def biggest_other(site: Path, entries: Iterable[ManifestEntry]) -> tuple[int, str]:
    """The biggest file of the site that is not a skill's own content: its SKILL.md and bundled
    files, their copies for the v0.1 discovery index, its archive, knowledge documents."""
    own = {f"skills/{e.id}/{f.path}" for e in entries for f in e.files} | {f"skills/{e.id}/SKILL.md" for e in entries}
    found = (0, "")
    for folder, _, files in os.walk(site):
        for name in files:
            rel = os.path.relpath(os.path.join(folder, name), site).replace(os.sep, "/")
            copy = rel.startswith(".well-known/skills/") and rel != ".well-known/skills/index.json"
            archive = rel.startswith(ARCHIVE_DIR + "/")
            if not (rel in own or copy or archive or rel.startswith("knowledge/")):
                found = max(found, (os.path.getsize(os.path.join(folder, name)), rel))
    return found


def scaled(entries: list[ManifestEntry], copies: int) -> list[ManifestEntry]:
    """``copies`` copies of ``entries`` (copy 0 as it is), sorted by id as a catalog is."""
    def copy(entry: ManifestEntry, k: int) -> ManifestEntry:
        if k == 0:
            return entry
        suffix = f"-{k}"
        folder = entry.urls.files.replace("skills/", f"skills/c{k}/", 1)
        urls = dataclasses.replace(entry.urls, page=folder, skill_md=folder + "SKILL.md", xml=folder + "skill.xml",
                                   files=folder)
        return dataclasses.replace(entry, id=f"c{k}/{entry.id}", name=entry.name + suffix,
                                   tags=tuple(t + suffix for t in entry.tags), urls=urls,
                                   parent=f"c{k}/{entry.parent}" if entry.parent else None,
                                   children=tuple(f"c{k}/{c}" for c in entry.children))
    return sorted((copy(e, k) for k in range(copies) for e in entries), key=lambda e: e.id)


def timed(what: str, times: dict[str, float], func: Callable[[], object]) -> object:
    start = time.perf_counter()
    result = func()
    times[what] = time.perf_counter() - start
    return result


def scaled_sizes(entries: list[ManifestEntry], config: SiteConfig, scratch: Path) -> tuple[dict[str, list[int]],
                                                                                             dict[str, float]]:
    """Sizes (by group) of the catalog-wide files skillsite's writers make from ``entries``."""
    sizes: dict[str, list[int]] = {label: [] for label, _ in GROUPS}
    times: dict[str, float] = {}
    data = manifest(entries, config, 0, None, None, catalog_digest(entries_json(entries)))
    made = timed("skills.json, pages, indexes, entry files", times, lambda: _manifest_files(data, config,
                                                                                              scratch / "_manifest"))
    for label, patterns in GROUPS:
        if label in MANIFEST_GROUPS:
            sizes[label] = [p.stat().st_size for pattern in patterns for p in made.glob(pattern) if p.is_file()]
    # a digest as long as an archive's
    archives = {archive_path(e.name, (f.path for f in e.files)): e.sha256 for e in entries if e.files}
    discovery, _, _ = timed("discovery index", times,
                            lambda: discovery_index(entries, archives, {e.id: e.id for e in entries}))
    sizes[".well-known/agent-skills/index.json"].append(len(discovery.index_json()))
    sizes[".well-known/skills/index.json"].append(len(discovery.legacy_json()))
    sizes[".claude-plugin/marketplace.json"].append(len(marketplace_json(
        config.marketplace, config.title, config.description, entries)))
    sizes["skills/index.json"].append(len(skills_index_json(entries)))
    sizes["_headers"].append(len(headers_file(active_files(entries)).encode("utf-8")))
    folder = timed("lists, llms.txt, sitemap", times, lambda: _site_pages(data, config, scratch / "_site"))
    for label, patterns in GROUPS:
        if label.startswith(("index.html", "page/", "tags", "tag page", "risk", "llms", "sitemap")):
            sizes[label] = [p.stat().st_size for pattern in patterns for p in folder.glob(pattern) if p.is_file()]
    return sizes, times


def _manifest_files(data: dict, config: SiteConfig, out: Path) -> Path:
    """``skills.json`` as the build writes it (one file, or above ``shard_above`` skills its pages,
    their indexes and the entry files, pages as long as the build makes them), into a staging folder
    beside ``out``; that folder."""
    staging = Staging(out)
    write_manifest(staging, config, data)
    return staging.path


def _site_pages(data: dict, config: SiteConfig, out: Path) -> Path:
    """The lists (every page), tags/index.html, llms.txt and the sitemap, written into a staging
    folder beside ``out``; that folder."""
    staging = Staging(out)
    dirs = template_dirs(config.templates)
    pages = site_pages.SitePages(config, staging, data, {}, {}, dirs, write_assets(staging, dirs))
    for page in site_pages.pages_to_make(pages):
        if page[0] != "skill":
            site_pages.make_page(pages, page)
    site_pages._text_files(pages, links=())
    return staging.path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("site", type=Path)
    parser.add_argument("--scale", type=int, default=0, help="also estimate the files at K times the skills")
    parser.add_argument("--config", type=Path, default=None, help="the skillsite.yml the site was built with")
    args = parser.parse_args()
    config = load_config(args.config) if args.config else SiteConfig()
    catalog = Catalog.open(args.site, max_risk="high")
    entries = catalog.entries
    built = built_sizes(args.site)
    print(f"{args.site}: {len(entries):,} skills, format_version {catalog.manifest['format_version']}")
    for label, _ in GROUPS:
        print(row(label, built[label]))
    size, rel = biggest_other(args.site, entries)
    print(f"{'biggest file not a skill own':<38} {human(size)}  ({rel})")
    if args.scale > 1:
        many = scaled(entries, args.scale)
        with tempfile.TemporaryDirectory() as scratch:
            sizes, times = scaled_sizes(many, config, Path(scratch))
        print(f"\nestimate at {len(many):,} skills ({args.scale} copies, {len({t for e in many for t in e.tags}):,} tags), "
              "made by the writers:")
        for label, _ in GROUPS:
            if label != "search/*" and label != "available_skills.xml":
                print(row(label, sizes[label]))
        print("time: " + ", ".join(f"{what} {seconds:.1f} s" for what, seconds in times.items()))


if __name__ == "__main__":
    main()
