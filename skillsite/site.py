"""The HTML catalog: every page and asset, written into the build's staging folder.

``write_site(ctx)`` is called by the build after the raw files and ``skills.json``. It
writes the home page, one page per skill (``skills/<id>/index.html``), tag pages, a 404
page, fingerprinted assets (``assets/app.<hash>.css``), ``robots.txt``, ``llms.txt`` and,
when ``base_url`` is configured, ``sitemap.xml`` (the sitemap protocol requires absolute
URLs). Output depends only on the input: no clock, sorted iteration.

Templates come from ``templates/`` (Jinja2, autoescaped, undefined names are errors);
a folder named by ``SiteConfig.templates`` overrides single templates or static files.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Sequence, Tuple
from urllib.parse import quote, urlsplit

import jinja2
import jinja2.bccache
from markupsafe import Markup

from skillsite.cache import digest
from skillsite.config import builtin_templates, template_dirs
from skillsite.paths import user_cache_root
from skillsite.manifest import absolute
from skillsite.models import BuildContext, Skill
from skillsite.output import site_path_parts, write_file
from skillsite.parallel import parallel_map_beside
from skillsite.render import LinkTargets, MarkdownRenderer, safe_url
from skillsite.wellknown import listable

__all__ = ["write_site", "builtin_templates", "template_dirs", "make_environment", "tag_slug", "active_files", "STATIC_FILES"]

STATIC_FILES = ("app.css", "app.js", "search.js", "lunr.min.js", "nojs.css", "favicon.svg")
# Bundled files a browser would run as a document on the catalog's own origin: ``_headers``
# makes static hosts that read it (Netlify, Cloudflare Pages) serve them sandboxed, so no
# script of theirs runs (an SVG still shows in an <img>).
ACTIVE_SUFFIXES = frozenset({".html", ".htm", ".xhtml", ".xht", ".shtml", ".svg", ".svgz", ".xml", ".xsl",
                             ".xslt", ".mht", ".mhtml"})
INERT_HEADERS = ("Content-Security-Policy: sandbox; default-src 'none'", "X-Content-Type-Options: nosniff")
HOME_TAG_CHIPS = 30
_SLUG = re.compile(r"[^a-z0-9]+")
_SPACE = re.compile(r"\s+")


# ---------------------------------------------------------------------------- templates

class _CompiledTemplates(jinja2.FileSystemBytecodeCache):
    """Compiled templates in the user cache folder (never beside the sources or the output: a
    planted file there would be code), recompiled whenever a template's text changes."""

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass  # an unwritable cache only costs the compilation next time


def _compiled_templates() -> jinja2.BytecodeCache | None:
    folder = user_cache_root() / "templates"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return _CompiledTemplates(str(folder))


def make_environment(dirs: Sequence[Path]) -> jinja2.Environment:
    """Jinja2 with autoescaping (HTML and XML), StrictUndefined and a loader per folder."""
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader([jinja2.FileSystemLoader(str(d)) for d in dirs]),
        bytecode_cache=_compiled_templates(),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html", "xml"), default_for_string=True),
        undefined=jinja2.StrictUndefined,
        auto_reload=False,  # a build makes its own environment: no template changes under it (saves a stat per page)
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["text"] = display_text
    env.filters["bytes"] = human_bytes
    env.filters["md_text"] = markdown_text
    return env


# ---------------------------------------------------------------------------- small helpers

def display_text(value: Any) -> str:
    """Any frontmatter value as text: strings as they are, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def markdown_text(value: Any) -> str:
    """One line of plain text safe inside a Markdown list item or link label (``llms.txt``)."""
    text = _SPACE.sub(" ", display_text(value)).strip()
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def human_bytes(size: int) -> str:
    """``1234`` -> ``1.2 KB``."""
    value = float(size)
    for unit in ("B", "KB", "MB"):
        if value < 1024:
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"


def tag_slug(tag: str) -> str:
    """A tag's folder name: ``a-z0-9-`` only; a short hash keeps distinct tags apart."""
    slug = _SLUG.sub("-", tag.lower()).strip("-")[:48].strip("-")
    if slug == tag:
        return slug
    digest = hashlib.sha256(tag.encode("utf-8")).hexdigest()[:6]
    return f"{slug}-{digest}" if slug else f"tag-{digest}"


def root_of(page_dir: str) -> str:
    """Relative prefix from a site folder (``skills/a/b/``) back to the site root."""
    depth = len([p for p in page_dir.split("/") if p])
    return "../" * depth


def path_under(out: Path, rel: str) -> Path:
    """``out/rel`` with its folder created; refuses anything that would leave ``out``."""
    path = out.joinpath(*site_path_parts(rel))  # raises OutputError for a path that would leave ``out``
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


# ---------------------------------------------------------------------------- assets

def write_assets(out: Path, dirs: Sequence[Path]) -> dict[str, str]:
    """Copy static files to ``assets/<stem>.<hash><suffixes>``; returns logical -> site path."""
    assets: dict[str, str] = {}
    for name in STATIC_FILES:
        source = next((d / "static" / name for d in dirs if (d / "static" / name).is_file()), None)
        if source is None:
            raise FileNotFoundError(f"static file {name} is missing from the templates")
        data = source.read_bytes()
        stem, _, suffixes = name.partition(".")
        rel = f"assets/{stem}.{hashlib.sha256(data).hexdigest()[:10]}.{suffixes}"
        write_file(path_under(out, rel), data)
        assets[name] = rel
    return assets


def _suffix(path: str) -> str:
    """The lowercased extension of a path's last part, as a web server maps it to a type
    (a file named just ``.html`` counts as HTML, unlike ``PurePath.suffix`` says)."""
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot:].lower() if dot >= 0 else ""


def active_files(entries: Iterable[dict[str, Any]]) -> list[str]:
    """Site-relative URLs of bundled files a browser could run as a page (HTML, SVG, XML ...)."""
    urls = []
    for entry in entries:
        for f in entry["files"]:
            if _suffix(f["path"]) in ACTIVE_SUFFIXES:
                urls.append(entry["urls"]["files"] + quote(f["path"], safe="/"))
    return sorted(urls)


def headers_file(entries: Iterable[dict[str, Any]]) -> str:
    """A Netlify / Cloudflare Pages ``_headers`` file that sandboxes active bundled files."""
    lines = ["# Written by skillsite: bundled files that a browser would run as a page on this origin",
             "# (HTML, SVG, XML) are served sandboxed: none of their scripts can run."]
    for url in active_files(entries):
        lines.append("/" + url)
        lines.extend("  " + header for header in INERT_HEADERS)
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- view models

@dataclass(frozen=True)
class TagInfo:
    """A tag, its page folder and how many skills carry it."""

    name: str
    slug: str
    count: int

    @property
    def url(self) -> str:
        return f"tags/{self.slug}/"


def collect_tags(entries: Iterable[dict[str, Any]]) -> list[TagInfo]:
    """Every tag with its count, sorted by name."""
    counts: dict[str, int] = {}
    for entry in entries:
        for tag in dict.fromkeys(entry["tags"]):
            counts[tag] = counts.get(tag, 0) + 1
    slugs = _unique_slugs(sorted(counts))
    return [TagInfo(tag, slugs[tag], counts[tag]) for tag in sorted(counts)]


def _unique_slugs(tags: Sequence[str]) -> dict[str, str]:
    """``tag_slug`` of each tag, made unique in the rare case two still collide."""
    seen: dict[str, str] = {}
    used: set[str] = set()
    for tag in tags:
        slug, n = tag_slug(tag), 2
        base = slug
        while slug in used:
            slug, n = f"{base}-{n}", n + 1
        used.add(slug)
        seen[tag] = slug
    return seen


def badges(entry: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(css class, label, explanation) of a skill's visibility flags."""
    vis = entry["visibility"]
    out = []
    if vis["always"]:
        out.append(("always", "always on", "Listed first in the model's catalog"))
    if vis["hidden"]:
        out.append(("hidden", "hidden from models", "Never offered to a model; people may still use it"))
    if vis["user_invocable_only"]:
        out.append(("user-only", "user-invoked only", "Only a person can invoke it; left out of the model's catalog"))
    return out


def card(entry: dict[str, Any], tags: dict[str, TagInfo]) -> dict[str, Any]:
    """What a skill list item shows."""
    return {
        "id": entry["id"],
        "name": entry["name"],
        "description": entry["description"],
        "version": entry["version"],
        "url": entry["urls"]["page"],
        "tags": [tags[t] for t in dict.fromkeys(entry["tags"])],
        "badges": badges(entry),
        "nested": "/" in entry["id"],
    }


def install_snippets(entry: dict[str, Any], config: Any) -> list[dict[str, str]]:
    """Install commands for a skill; ``{site}`` marks where the site URL goes.

    With ``base_url`` configured the text is final; without it the page's script fills in
    the URL the page was loaded from (the static text shows ``<site-url>``).
    """
    site = config.base_url.rstrip("/") if config.base_url else "{site}"
    manifest_url = absolute(config, "skills.json") if config.base_url else "{site}/skills.json"
    raw = absolute(config, entry["urls"]["skill_md"]) if config.base_url else "{site}/" + entry["urls"]["skill_md"]
    snippets = []
    if listable(entry):
        snippets.append({"label": "Install with the skills CLI",
                         "text": f"npx skills add {site} --skill {shlex.quote(entry['name'])}"})
    program = (f"from skillsite.loader import Catalog; "
               f"print(Catalog.open({json.dumps(manifest_url)}).load({json.dumps(entry['id'])}).body)")
    snippets.append({"label": "Load it in Python (skillsite.loader)", "text": f"python -c {shlex.quote(program)}"})
    snippets.append({"label": "Raw SKILL.md", "text": raw})
    for snippet in snippets:
        snippet["static"] = snippet["text"].replace("{site}", "<site-url>")
        snippet["dynamic"] = "{site}" in snippet["text"]
    return snippets


def metadata_rows(entry: dict[str, Any]) -> list[tuple[str, str]]:
    """(key, text) of metadata and understood extension keys, sorted by key."""
    rows = [(str(k), display_text(v)) for k, v in entry["metadata"].items()]
    rows += [(str(k), display_text(v)) for k, v in entry["extra"].items()]
    return sorted(rows)


def file_rows(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """Bundled files with their URLs relative to the skill's page."""
    return [{"path": f["path"], "url": quote(f["path"], safe="/"), "bytes": f["bytes"]} for f in entry["files"]]


def ancestors(entry: dict[str, Any], entries: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Parent chain of a skill, outermost first."""
    chain = []
    parent = entry["parent"]
    while parent and parent in entries and len(chain) < 64:
        chain.append(entries[parent])
        parent = entries[parent]["parent"]
    return list(reversed(chain))


# ---------------------------------------------------------------------------- pages

# A page a worker placed: (site path, content key, (size, mtime) if an unchanged file was kept
# in place, else None); None when the build keeps no record of pages (no previous output).
PlacedPage = Optional[Tuple[str, str, Optional[Tuple[int, int]]]]

class SiteWriter:
    """Renders and writes the pages of one build."""

    def __init__(self, ctx: BuildContext):
        self.ctx = ctx
        self.config = ctx.config
        self.dirs = template_dirs(getattr(ctx.config, "templates", "") or "")
        self.env = make_environment(self.dirs)
        self.entries = [ctx.entries[k] for k in sorted(ctx.entries)]
        self.tags = collect_tags(self.entries)
        self.tag_by_name = {t.name: t for t in self.tags}
        self.cards = [card(e, self.tag_by_name) for e in self.entries]
        self._renderer: MarkdownRenderer | None = None
        self._out_text = str(ctx.out)
        self._made: set[str] = set()  # folders known to exist under ctx.out
        self.assets: dict[str, str] = {}
        self.templates_digest = digest([(str(p.relative_to(d)), p.read_bytes()) for d in self.dirs
                                        for p in sorted(d.rglob("*")) if p.is_file()])

    @property
    def renderer(self) -> MarkdownRenderer:
        """For bodies the build did not render already (made on first use: often none)."""
        if self._renderer is None:
            self._renderer = MarkdownRenderer(LinkTargets.from_entries(self.entries))
        return self._renderer

    def write(self, also: Sequence[Callable[[], Any]] = ()) -> list[Any]:
        """Every page, spread over ``ctx.jobs`` forked workers (each writes its own files): the
        home page, the tag pages, the skill pages left to write, the text files; and each of
        ``also``, pieces of work of their own taken by whichever processes are free first (what
        they return is returned)."""
        global _WRITER
        self.assets = write_assets(self.ctx.out, self.dirs)
        self.skills = {s.id: s for s in self.ctx.skills}
        self.by_tag = {t.name: [] for t in self.tags}
        for c in self.cards:
            for t in c["tags"]:
                self.by_tag[t.name].append(c)
        skill_ids, inputs = self._skill_pages_to_write()
        # the biggest first (the home page lists every skill, a tag page its skills), so that no
        # process is left with a big one at the end
        pages: list[tuple[str, str]] = [("home", ""), ("text", ""), ("tags", "")]
        pages += sorted((("tag", t.name) for t in self.tags), key=lambda p: -len(self.by_tag[p[1]]))
        pages += [("skill", skill_id) for skill_id in skill_ids]
        _WRITER = self
        try:
            placed, also_results = parallel_map_beside(_write_page, pages, self.ctx.jobs, also)
        finally:
            _WRITER = None
        for page in placed:
            self.adopt(page)
        self.remember_page_inputs(inputs)
        return also_results

    def write_page(self, kind: str, name: str) -> PlacedPage:
        """One page (or the text files): ``kind`` home, text, tags, tag ``name``, skill ``name``."""
        if kind == "skill":
            return self.skill_page(self.ctx.entries[name], self.skills[name])
        if kind == "tag":
            return self.tag_page(self.tag_by_name[name])
        if kind == "tags":
            return self.render_keyed("tags.html", "tags/index.html",
                                     **self.common("tags/", f"Tags · {self.config.title}", "tags"), tags=self.tags)
        if kind == "home":
            return self.home()
        self.not_found()
        self.text_files()
        return None

    def _skill_pages_to_write(self) -> tuple[list[str], dict[str, str]]:
        """The skill pages a rebuild cannot keep from the previous output, and every skill
        page's inputs (see :meth:`page_inputs`)."""
        ids = [e["id"] for e in self.entries if e["id"] in self.skills]
        inputs = {skill_id: self.page_inputs(skill_id) for skill_id in ids} if self.ctx.skill_keys else {}
        cache, staging = self.ctx.cache, self.ctx.staging
        if staging is not None and staging.previous:
            if cache is not None and inputs:   # pages made from the same inputs as last time
                ids = [skill_id for skill_id in ids if not self._keep_page(skill_id, inputs[skill_id])]
            ids = self._keep_unchanged_pages(ids)
        return ids, inputs

    def remember_page_inputs(self, inputs: dict[str, str]) -> None:
        """Which page key each skill page's inputs gave, for the next build."""
        cache, staging = self.ctx.cache, self.ctx.staging
        if cache is not None and inputs and staging is not None:
            for skill_id, page_inputs in inputs.items():
                rel = _skill_page_path(skill_id)
                if rel in staging.keys:
                    cache.put("pages", page_inputs, staging.keys[rel])

    def page_inputs(self, skill_id: str) -> str:
        """A digest of everything a skill page is made of: the templates, what the page shows of
        the site, its skill's publishing inputs (which settle its entry and body), and those of
        its parents and sub-skills, and the tags it shows with their counts."""
        entry = self.ctx.entries[skill_id]
        related = [e["id"] for e in ancestors(entry, self.ctx.entries)] + \
            [c for c in entry["children"] if c in self.ctx.entries]
        tags = sorted({t for r in [skill_id, *related] for t in self.ctx.entries[r]["tags"]})
        manifest = self.ctx.manifest
        return digest(self.templates_digest, "skill.html", self.ctx.skill_keys[skill_id],
                      [self.ctx.skill_keys[r] for r in related], [(t, self.tag_by_name[t].slug, self.tag_by_name[t].count) for t in tags],
                      sorted(self.assets.items()), manifest["site"], manifest["counts"], manifest["generator"])

    def _keep_page(self, skill_id: str, page_inputs: str) -> bool:
        key = self.ctx.cache.get("pages", page_inputs)
        return key is not None and self.ctx.staging.reuse(_skill_page_path(skill_id), key)

    def _keep_unchanged_pages(self, ids: list[str]) -> list[str]:
        """Keep the skill pages the previous output holds unchanged; the ids left to render.

        A rebuild usually changes few pages: checking them here costs less than forking
        workers to check them.  Once most checked pages turn out changed (new templates, say),
        the rest go to the workers unchecked.
        """
        todo: list[str] = []
        for index, skill_id in enumerate(ids):
            if len(todo) > 32 and len(todo) * 2 > index:
                return todo + ids[index:]
            page = self.skill_page(self.ctx.entries[skill_id], self.skills[skill_id], check_only=True)
            if page is None:
                todo.append(skill_id)
            else:
                self.adopt(page)
        return todo

    def common(self, page_dir: str, title: str, nav: str = "") -> dict[str, Any]:
        """Variables every page template gets."""
        manifest = self.ctx.manifest
        return {
            "root": root_of(page_dir),
            "assets": self.assets,
            "site": manifest["site"],
            "counts": manifest["counts"],
            "page_title": title,
            "page_url": absolute(self.config, page_dir) if self.config.base_url else "",
            "generator": manifest["generator"],
            "nav": nav,
        }

    def render(self, template: str, rel: str, **values: Any) -> None:
        html = self.env.get_template(template).render(**values)
        folder = rel.rpartition("/")[0]
        if folder in self._made:
            site_path_parts(rel)
            path = os.path.join(self._out_text, rel)
        else:
            path = str(path_under(self.ctx.out, rel))
            self._made.add(folder)
        write_file(path, html.encode("utf-8"))

    def render_keyed(self, template: str, rel: str, check_only: bool = False, **values: Any) -> PlacedPage:
        """Render a page unless the previous output holds it for exactly these values.

        The key is a digest of the templates, the page's path and every value it is rendered
        from, so an unchanged page of an unchanged skill is neither rendered nor written.
        May run in a worker process: the caller passes the result to :meth:`adopt`.  With
        ``check_only`` a page that cannot be reused is not rendered either (None).
        """
        staging = self.ctx.staging
        if staging is None:
            self.render(template, rel, **values)
            return None
        body = values.get("body", "")  # the big one, as plain text (Markup would pickle as an object)
        others = [(name, value) for name, value in sorted(values.items()) if name != "body"]
        key = digest(self.templates_digest, template, rel, str(body), others)
        if staging.reuse(rel, key):
            return rel, key, staging.kept.get(rel)
        if check_only:
            return None
        self.render(template, rel, **values)
        return rel, key, None

    def adopt(self, page: PlacedPage) -> None:
        if page is not None and self.ctx.staging is not None:
            self.ctx.staging.adopt(*page)

    def home(self) -> PlacedPage:
        chips = sorted(self.tags, key=lambda t: (-t.count, t.name))[:HOME_TAG_CHIPS]
        return self.render_keyed("home.html", "index.html", **self.common("", self.config.title, "home"),
                                 cards=self.cards, tags=self.tags, chips=chips)

    def tag_page(self, tag: TagInfo) -> PlacedPage:
        return self.render_keyed("tag.html", f"{tag.url}index.html",
                                 **self.common(tag.url, f"{tag.name} · {self.config.title}", "tags"), tag=tag,
                                 cards=self.by_tag[tag.name])

    def skill_page(self, entry: dict[str, Any], skill: Skill, check_only: bool = False) -> PlacedPage:
        page_dir = entry["urls"]["page"]
        source = entry["source"]
        return self.render_keyed(
            "skill.html", _skill_page_path(entry["id"]), check_only,
            **self.common(page_dir, f"{entry['name']} · {self.config.title}"),
            entry=entry, card=card(entry, self.tag_by_name),
            body=Markup(self.ctx.body_html.get(entry["id"]) or self.renderer.render(skill.body, entry["id"])),
            ancestors=[card(e, self.tag_by_name) for e in ancestors(entry, self.ctx.entries)],
            children=[card(self.ctx.entries[c], self.tag_by_name) for c in entry["children"]
                      if c in self.ctx.entries],
            snippets=install_snippets(entry, self.config),
            metadata=metadata_rows(entry), files=file_rows(entry),
            source_url=safe_url(source["url"]), edit_url=safe_url(source["edit_url"]),
        )

    def base_path(self) -> str:
        """The site's own path on its host (``/`` unless ``base_url`` says otherwise)."""
        path = urlsplit(self.config.base_url).path if self.config.base_url else "/"
        return path.rstrip("/") + "/"

    def not_found(self) -> None:
        """404.html is served at any missing path, so its links start at the site's own path."""
        values = self.common("", f"Not found · {self.config.title}")
        values["root"] = self.base_path()
        self.render("404.html", "404.html", **values)

    def text_files(self) -> None:
        page_urls = ["", "tags/"] + [t.url for t in self.tags] + [e["urls"]["page"] for e in self.entries]
        has_base = bool(self.config.base_url)
        if has_base:
            urls = [absolute(self.config, u) for u in page_urls]
            self.render("sitemap.xml", "sitemap.xml", urls=urls)
        self.render("robots.txt", "robots.txt",
                    sitemap=absolute(self.config, "sitemap.xml") if has_base else "")
        visible = [e for e in self.entries if not (e["visibility"]["hidden"] or e["visibility"]["user_invocable_only"])]
        visible_ids = {e["id"] for e in visible}
        others = [e for e in self.entries if e["id"] not in visible_ids]
        # GitHub Pages' Jekyll drops files and folders starting with "_" or "." (.well-known, _headers).
        write_file(path_under(self.ctx.out, ".nojekyll"), b"")
        if active_files(self.entries):
            write_file(path_under(self.ctx.out, "_headers"), headers_file(self.entries).encode("utf-8"))
        self.render("llms.txt", "llms.txt", site=self.ctx.manifest["site"], counts=self.ctx.manifest["counts"],
                    link=lambda rel: absolute(self.config, rel), visible=visible, others=others,
                    badges=badges)


_WRITER: SiteWriter | None = None  # set before workers fork, so each inherits it


def _skill_page_path(skill_id: str) -> str:
    return f"skills/{skill_id}/index.html"


def _write_page(page: tuple[str, str]) -> PlacedPage:
    assert _WRITER is not None
    return _WRITER.write_page(*page)


def write_site(ctx: BuildContext, also: Sequence[Callable[[], Any]] = ()) -> list[Any]:
    """Write every HTML page and asset of the catalog into ``ctx.out``; and each of ``also``
    beside them (see :meth:`SiteWriter.write`), whose results are returned."""
    return SiteWriter(ctx).write(also)
