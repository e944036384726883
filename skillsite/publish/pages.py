"""The HTML catalog: the home page, one page per skill (``skills/<id>/index.html``), tag
pages, a 404 page, ``sitemap.xml`` (when ``base_url`` is configured: the sitemap protocol
requires absolute URLs), ``robots.txt`` and ``llms.txt``.

A hidden skill (``hidden`` or ``hideFromDiscovery``: see
:attr:`~skillsite.agent.entry.Visibility.listed`) has its page, but no list shows it: not the
home page, tag or risk pages, ``llms.txt`` nor the sitemap.

Pages are made on every core.  Each is keyed by a digest of the templates and every value it is
rendered from, so a rebuild keeps the pages whose values did not change (see
:meth:`~skillsite.publish.staging.Staging.keep`).  Output depends only on the input: no clock,
sorted iteration.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping
from urllib.parse import urlsplit

import jinja2
from markupsafe import Markup

from skillsite.agent.catalog_format import offered_to_model
from skillsite.agent.entry import ManifestEntry
from skillsite.cache import digest
from skillsite.config import SiteConfig
from skillsite.publish.manifest import absolute
from skillsite.publish.markdown import safe_url
from skillsite.publish.staging import Placed, Staging
from skillsite.publish.templates import make_environment, templates_digest, write_assets
from skillsite.publish.views import (TagInfo, active_files, ancestors, badges, card, catalog_install_lines,
                                     collect_tags, file_rows, headers_file, hidden_note, install_snippets,
                                     metadata_rows, risk_pages, root_of)
from skillsite.workers import Workers

HOME_TAG_CHIPS = 30

#: A page to make: ("home" | "tags" | "tag" | "skill", tag name or skill id).
Page = tuple[str, str]


@dataclass
class SitePages:
    """What making any page needs; each worker process gets its own copy."""

    config: SiteConfig
    staging: Staging
    manifest: dict[str, Any]        # skills.json's object: its entries (typed), site, counts, generator
    html: Mapping[str, str]         # rendered bodies, by skill id (looked up when a page is made)
    html_keys: dict[str, str]       # what each rendered body is made of (a digest), by skill id
    dirs: list[Path]                # template folders, in lookup order
    assets: dict[str, str]          # static file -> its fingerprinted site path
    templates_key: str = field(init=False)
    entries: dict[str, ManifestEntry] = field(init=False)
    listed: list[ManifestEntry] = field(init=False)   # the skills the lists show, in manifest order
    tags: list[TagInfo] = field(init=False)
    tag_by_name: dict[str, TagInfo] = field(init=False)
    cards: list[dict[str, Any]] = field(init=False)
    by_tag: dict[str, list[dict[str, Any]]] = field(init=False)

    def __post_init__(self) -> None:
        self.templates_key = templates_digest(self.dirs)
        self.entries = {e.id: e for e in self.manifest["skills"]}
        self.listed = [e for e in self.manifest["skills"] if e.visibility.listed]
        self.tags = collect_tags(self.listed)
        self.tag_by_name = {t.name: t for t in self.tags}
        self.cards = [card(e, self.tag_by_name) for e in self.listed]
        self.by_tag = {t.name: [] for t in self.tags}
        for skill_card in self.cards:
            for tag in skill_card["tags"]:
                self.by_tag[tag.name].append(skill_card)

    @functools.cached_property
    def env(self) -> jinja2.Environment:
        return make_environment(self.dirs)

    def common(self, page_dir: str, title: str, nav: str = "") -> dict[str, Any]:
        """Variables every page template gets."""
        return {"root": root_of(page_dir), "assets": self.assets, "site": self.manifest["site"],
                "counts": self.manifest["counts"], "page_title": title,
                "page_url": absolute(self.config, page_dir) if self.config.base_url else "",
                "generator": self.manifest["generator"], "nav": nav}

    def render(self, template: str, **values: Any) -> bytes:
        return self.env.get_template(template).render(**values).encode("utf-8")

    def page(self, template: str, rel: str, values: dict[str, Any]) -> None:
        """A page, kept from the previous output when made from the same templates and values."""
        self.keyed_page(template, rel, digest(self.templates_key, template, rel, values), lambda: values)

    def keyed_page(self, template: str, rel: str, key: str, values: Callable[[], dict[str, Any]]) -> None:
        """A page whose ``key`` stands for what it is made of: kept when the previous output holds
        it, else rendered from ``values()``."""
        self.staging.write_keyed(rel, key, lambda: self.render(template, **values()))


def pages_to_make(pages: SitePages) -> list[Page]:
    """Every page, the biggest first (the home page lists every skill, a tag page its skills), so
    that no process is left with a big one at the end."""
    tag_pages = sorted((("tag", t.name) for t in pages.tags), key=lambda p: -len(pages.by_tag[p[1]]))
    risks = [("risk", risk) for risk in risk_pages(pages.listed)]
    return [("home", ""), ("tags", ""), *tag_pages, *risks, *(("skill", skill_id) for skill_id in pages.entries)]


def make_page(pages: SitePages, page: Page) -> list[Placed]:
    """Make one page (in a worker, or here); what it placed."""
    kind, name = page
    title = pages.config.title
    if kind == "home":
        chips = sorted(pages.tags, key=lambda t: (-t.count, t.name))[:HOME_TAG_CHIPS]
        pages.page("home.html", "index.html", {**pages.common("", title, "home"), "cards": pages.cards,
                                               "risks": {r: len(ids) for r, ids in risk_pages(pages.listed).items()},
                                               "tags": pages.tags, "chips": chips,
                                               # a sharded search index's meta file (#29), else ""
                                               "search_shards": (pages.manifest.get("search") or {}).get("sharded", "")})
    elif kind == "tags":
        pages.page("tags.html", "tags/index.html", {**pages.common("tags/", f"Tags · {title}", "tags"),
                                                    "tags": pages.tags})
    elif kind == "risk":
        ids = risk_pages(pages.listed)[name]
        pages.page("risk.html", f"risk/{name}/index.html", {
            **pages.common(f"risk/{name}/", f"{name.capitalize()} risk · {title}"), "risk": name,
            "cards": [card(pages.entries[i], pages.tag_by_name) for i in ids]})
    elif kind == "tag":
        tag = pages.tag_by_name[name]
        pages.page("tag.html", f"{tag.url}index.html", {**pages.common(tag.url, f"{tag.name} · {title}", "tags"),
                                                        "tag": tag, "cards": pages.by_tag[tag.name]})
    else:
        _skill_page(pages, pages.entries[name])
    return pages.staging.take_journal()


def _skill_page(pages: SitePages, entry: ManifestEntry) -> None:
    """A skill's page; the template gets its entry as ``skills.json`` has it (the JSON that
    templates, built-in or a site's own, read with ``entry['allowed-tools']`` and the like)."""
    source, skill_id = entry.source, entry.id
    values = {
        **pages.common(entry.urls.page, f"{entry.name} · {pages.config.title}"),
        "entry": entry.to_json(), "card": card(entry, pages.tag_by_name),
        "ancestors": [card(e, pages.tag_by_name) for e in ancestors(entry, pages.entries)],
        "children": [card(pages.entries[c], pages.tag_by_name) for c in entry.children if c in pages.entries],
        "snippets": install_snippets(entry, pages.config), "metadata": metadata_rows(entry),
        "hidden_note": hidden_note(entry),
        "files": file_rows(entry), "source_url": safe_url(source.url), "edit_url": safe_url(source.edit_url)}
    rel = f"skills/{skill_id}/index.html"
    # the body stands in the key as what it was rendered from: fetched only to render the page
    key = digest(pages.templates_key, "skill.html", rel, values, pages.html_keys[skill_id])
    pages.keyed_page("skill.html", rel, key, lambda: {**values, "body": Markup(pages.html[skill_id])})


def _text_files(pages: SitePages) -> None:
    """404.html, sitemap.xml, robots.txt, llms.txt, .nojekyll and _headers."""
    config, staging, entries = pages.config, pages.staging, list(pages.entries.values())
    not_found = pages.common("", f"Not found · {config.title}")
    # served at any missing path, so its links start at the site's own path on its host
    not_found["root"] = (urlsplit(config.base_url).path if config.base_url else "/").rstrip("/") + "/"
    pages.page("404.html", "404.html", not_found)
    if config.base_url:
        urls = ["", "tags/"] + [t.url for t in pages.tags] + [e.urls.page for e in pages.listed]
        pages.page("sitemap.xml", "sitemap.xml", {"urls": [absolute(config, u) for u in urls]})
    pages.page("robots.txt", "robots.txt", {"sitemap": absolute(config, "sitemap.xml") if config.base_url else ""})
    install = catalog_install_lines(config)
    # llms.txt is made of the manifest's entries, which its digest stands for in the key
    key = digest(pages.templates_key, "llms.txt", config.base_url, pages.manifest["site"], pages.manifest["counts"],
                 pages.manifest["digest"], install)
    pages.keyed_page("llms.txt", "llms.txt", key, lambda: {
        "site": pages.manifest["site"], "counts": pages.manifest["counts"], "install": install,
        "visible": [e for e in pages.listed if offered_to_model(e)],
        "others": [e for e in pages.listed if not offered_to_model(e)],
        "link": lambda rel: absolute(config, rel), "badges": badges})
    staging.write(".nojekyll", b"")  # GitHub Pages' Jekyll would drop .well-known and _headers
    if active_files(entries):
        staging.write("_headers", headers_file(entries).encode("utf-8"))


def write_site(config: SiteConfig, staging: Staging, manifest: dict[str, Any], html: Mapping[str, str],
               html_keys: dict[str, str], dirs: list[Path], jobs: int) -> None:
    """Every page and asset of the catalog, into the staging folder."""
    assets = write_assets(staging, dirs)
    pages = SitePages(config, staging, manifest, html, html_keys, dirs, assets)
    with Workers(jobs, pages) as workers:
        for placed in workers.map(make_page, pages_to_make(pages)):
            staging.adopt(placed)
    _text_files(pages)
