"""Every link a built catalog publishes, read as its reader reads it, checked to name a file.

Each published format is read by its own rules: a page's ``href`` and ``src`` resolve against
the page, a manifest's URLs against the site root (files against their skill's ``files`` URL),
the discovery index's against the index itself, the sitemap's and ``llms.txt``'s are absolute
when the site has a ``base_url``, and the provider layout, the legacy discovery index and the
marketplace name paths, not URLs.  A URL is decoded once (as a static server does) and must
name a published file (a folder URL: its ``index.html``); a path must name one as written.
"""
from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import unquote, urljoin, urlsplit

from urllib.parse import quote
url_of = lambda p: quote(p, safe="/@!$&'*+,;=")

SITE = "https://skills.example.org/catalog/"  # where a checked site is taken to live


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found += [value for name, value in attrs if name in ("href", "src") and value]


def _json(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


def _entry_urls(entry: dict[str, Any]) -> Iterator[str]:
    """The site-relative URLs a manifest entry names."""
    yield from entry["urls"].values()
    yield from (entry["urls"]["files"] + url_of(f["path"]) for f in entry["files"])
    yield from (k["url"] for k in entry["knowledge"])
    if entry.get("versions_url"):
        yield entry["versions_url"]


def _manifest_links(site: Path) -> Iterator[tuple[str, str]]:
    """(file, site-relative URL) of skills.json, its pages, entry files and versions.json files."""
    root = _json(site / "skills.json")
    entries = [("skills.json", e) for e in root["skills"]]
    for record in root.get("pages", []):
        for key in ("entries", "index"):
            yield "skills.json", record[key]["url"]
        entries += [(record["entries"]["url"], e) for e in _json(site / unquote(record["entries"]["url"]))["skills"]]
    for entry_file in sorted(site.glob("skills/**/entry.json")):
        entries.append((entry_file.relative_to(site).as_posix(), _json(entry_file)))
    for where, entry in entries:
        yield from ((where, url) for url in _entry_urls(entry))
    for versions in sorted(site.glob("skills/**/versions.json")):
        where = versions.relative_to(site).as_posix()
        for release in _json(versions)["releases"].values():
            yield from ((where, release["url"] + url_of(f["path"])) for f in release["files"])


def _page_links(site: Path) -> Iterator[tuple[str, str]]:
    """(page, absolute URL) of every href and src of every HTML page."""
    for page in sorted(site.rglob("*.html")):
        rel = page.relative_to(site).as_posix()
        if "/versions/" in rel or rel.startswith(".well-known/") or _is_bundled(site, rel):
            continue
        parser = _Links()
        parser.feed(page.read_text("utf-8"))
        own = urljoin(SITE, url_of(rel))
        yield from ((rel, urljoin(own, href)) for href in parser.found)


def _is_bundled(site: Path, rel: str) -> bool:
    """Whether a published .html file is one a skill bundles (its links are the skill's own)."""
    return rel.startswith("skills/") and not rel.endswith("/index.html")


def _absolute_links(site: Path) -> Iterator[tuple[str, str]]:
    """(file, absolute URL) of the sitemap, llms.txt and the discovery index."""
    for sitemap in sorted(site.glob("sitemap*.xml")):
        yield from ((sitemap.name, html.unescape(url)) for url in re.findall(r"<loc>(.*?)</loc>", sitemap.read_text("utf-8")))
    llms = site / "llms.txt"
    if llms.is_file():
        yield from (("llms.txt", urljoin(SITE, url)) for url in re.findall(r"\]\(([^)\s]+)\)", llms.read_text("utf-8")))
    index = ".well-known/agent-skills/index.json"
    for skill in _json(site / index)["skills"]:
        yield index, urljoin(SITE + index, skill["url"])


def _path_links(site: Path) -> Iterator[tuple[str, str]]:
    """(file, site path) of the formats that name paths: provider layout, legacy index, marketplace."""
    for skill_id in _json(site / "skills/index.json")["skills"]:
        for path in _json(site / "skills" / skill_id / "index.json")["files"]:
            yield f"skills/{skill_id}/index.json", f"skills/{skill_id}/{path}"
    for skill in _json(site / ".well-known/skills/index.json")["skills"]:
        yield from ((".well-known/skills/index.json", f".well-known/skills/{skill['name']}/{path}")
                    for path in skill["files"])
    marketplace = site / ".claude-plugin/marketplace.json"
    if marketplace.is_file():
        for plugin in _json(marketplace)["plugins"]:
            yield from ((".claude-plugin/marketplace.json", f"{folder[2:]}/SKILL.md") for folder in plugin["skills"])


def _names_a_file(site: Path, path: str) -> bool:
    target = site / path
    return target.is_file() or (path.endswith("/") or path == "") and (target / "index.html").is_file()


def every_link(site: Path) -> Iterator[tuple[str, str, str]]:
    """(file, link as written or resolved, site path it names) of every link the site publishes."""
    for where, url in _manifest_links(site):
        yield where, url, unquote(urlsplit(url).path)
    for where, url in (*_page_links(site), *_absolute_links(site)):
        if url.startswith(SITE):
            yield where, url, unquote(urlsplit(url).path)[len(urlsplit(SITE).path):]
    for where, path in _path_links(site):
        yield where, path, path


def broken_links(site: Path) -> list[str]:
    """``file: link -> path`` for each link that names no published file (none: every one does)."""
    return [f"{where}: {link} -> {path}" for where, link, path in every_link(site) if not _names_a_file(site, path)]
