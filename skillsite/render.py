"""Markdown to safe HTML for skill pages.

CommonMark plus tables, strikethrough and task lists (markdown-it-py), raw HTML escaped
(``html=False``), GitHub-style heading anchors, and every link checked:

- ``http``, ``https`` and ``mailto`` links are kept (marked ``rel="nofollow ugc noopener"``);
  any other scheme (``javascript:``, ``vbscript:``, ``data:``, ``file:`` ...) is refused;
- relative links are resolved inside the catalog: a link to a skill's folder or its
  ``SKILL.md`` becomes a link to that skill's page, a link to a bundled file becomes a link
  to its published copy, relative to the page; anything else (a missing file, a path out of
  the catalog, an absolute path) is rendered as plain text marked ``broken-link``;
- images load only from the catalog itself; an external image becomes a plain link.

Body headings move down one level (the page's own ``<h1>`` is the skill's name).
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable
from urllib.parse import quote, unquote, urlsplit

if TYPE_CHECKING:  # markdown-it is imported when a renderer is made: a rebuild often renders nothing
    from markdown_it.rules_core import StateCore
    from markdown_it.token import Token

__all__ = ["LinkTargets", "MarkdownRenderer", "slugify", "resolve_link", "safe_url"]

SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
SKILL_FILES = frozenset({"SKILL.md", "skill.md"})
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.\-]*):")
_CONTROL = re.compile(r"[\x00-\x20\x7f]+")
_SLUG_DROP = re.compile(r"[^\w\- ]", re.UNICODE)
_ALIGN = re.compile(r"text-align:\s*(left|right|center)")
EXTERNAL_REL = "nofollow ugc noopener noreferrer"


def slugify(title: str) -> str:
    """GitHub-style heading slug: lower case, punctuation dropped, spaces to hyphens."""
    slug = _SLUG_DROP.sub("", title.strip().lower()).replace(" ", "-")
    return slug or "section"


def url_scheme(url: str) -> str | None:
    """The lower-cased scheme of a URL as a browser would read it (control characters ignored)."""
    match = _SCHEME.match(_CONTROL.sub("", url))
    return match.group(1).lower() if match else None


def safe_url(url: str | None) -> str | None:
    """``url`` if it is an http(s) or mailto URL, else None (for links built from metadata)."""
    if not url or url_scheme(url) not in SAFE_SCHEMES or _CONTROL.search(url):
        return None
    return url


@dataclass(frozen=True)
class LinkTargets:
    """What a skill body may link to inside the catalog."""

    skills: frozenset[str]       # skill ids
    files: frozenset[str]        # "<skill id>/<bundled path>"

    @classmethod
    def from_entries(cls, entries: Iterable[dict]) -> "LinkTargets":
        """Targets of a manifest's entries (``id`` and ``files[].path``)."""
        skills: set[str] = set()
        files: set[str] = set()
        for entry in entries:
            skills.add(entry["id"])
            files.update(f"{entry['id']}/{f['path']}" for f in entry["files"])
        return cls(frozenset(skills), frozenset(files))


def _relative(from_id: str, target: str) -> str:
    """Percent-encoded URL of site path ``skills/<target>`` seen from ``skills/<from_id>/``."""
    rel = posixpath.relpath("/" + target, "/" + from_id)
    if target.endswith("/") and not rel.endswith("/"):
        rel += "/"
    if rel == "./" or rel == "./.":
        rel = "./"
    return quote(rel, safe="/")


def resolve_link(href: str, skill_id: str, targets: LinkTargets) -> str | None:
    """The URL a link in skill ``skill_id``'s body should have on its page, or None if refused.

    ``href`` is the destination as markdown-it normalised it (percent-encoded).
    """
    href = href.strip()
    if not href:
        return None
    if href.startswith("#"):
        return href
    scheme = url_scheme(href)
    if scheme is not None:
        return href if scheme in SAFE_SCHEMES and not _CONTROL.search(href) else None
    if href.startswith("//"):
        return "https:" + href if not _CONTROL.search(href) else None
    if href.startswith("/") or href.startswith("\\"):
        return None
    parts = urlsplit(href)
    fragment = "#" + parts.fragment if parts.fragment else ""
    path = unquote(parts.path)
    if not path:
        return fragment or None
    target = posixpath.normpath(posixpath.join(skill_id, path))
    if target == ".." or target.startswith("../") or target.startswith("/"):
        return None
    page = _skill_page(target, targets)
    if page is not None:
        return _relative(skill_id, page + "/") + fragment
    if target in targets.files:
        return _relative(skill_id, target) + fragment
    return None


def _skill_page(target: str, targets: LinkTargets) -> str | None:
    """The skill id a resolved path designates (its folder or its SKILL.md), if any."""
    if target in targets.skills:
        return target
    folder, name = posixpath.split(target)
    if name in SKILL_FILES and folder in targets.skills:
        return folder
    return None


def _validate_link(url: str) -> bool:
    """markdown-it's link check: relative URLs, fragments and http(s)/mailto only."""
    scheme = url_scheme(url)
    return scheme is None or scheme in SAFE_SCHEMES


class MarkdownRenderer:
    """Renders skill bodies; one instance serves a whole build."""

    def __init__(self, targets: LinkTargets):
        from markdown_it import MarkdownIt
        from mdit_py_plugins.anchors import anchors_plugin
        from mdit_py_plugins.tasklists import tasklists_plugin

        self.targets = targets
        md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
        md.enable(["table", "strikethrough"])
        md.validateLink = _validate_link  # type: ignore[method-assign]
        anchors_plugin(md, min_level=1, max_level=6, slug_func=slugify, permalink=True,
                       permalinkSymbol="#", permalinkSpace=True)
        tasklists_plugin(md)
        md.core.ruler.push("skillsite_links", self._rewrite)
        self.md = md

    def render(self, body: str, skill_id: str) -> str:
        """The body's HTML, links resolved as seen from skill ``skill_id``'s page."""
        return self.md.render(body, {"skill_id": skill_id})

    # -- the core rule ---------------------------------------------------------------------

    def _rewrite(self, state: StateCore) -> None:
        skill_id: str = state.env["skill_id"]
        for token in state.tokens:
            if token.type in ("heading_open", "heading_close"):
                token.tag = _lower(token.tag)
            elif token.type in ("th_open", "td_open"):
                _align_class(token)
            elif token.type == "inline" and token.children:
                token.children = self._inline(token.children, skill_id)

    def _inline(self, tokens: list[Token], skill_id: str) -> list[Token]:
        out: list[Token] = []
        stack: list[Token] = []
        for token in tokens:
            if token.type == "link_open":
                if token.attrGet("class") != "header-anchor":
                    _set_link(token, resolve_link(str(token.attrGet("href") or ""), skill_id, self.targets))
                stack.append(token)
                out.append(token)
            elif token.type == "link_close":
                if stack:
                    token.tag = stack.pop().tag
                out.append(token)
            elif token.type == "image":
                out.extend(self._image(token, skill_id, in_link=bool(stack)))
            else:
                out.append(token)
        return out

    def _image(self, token: Token, skill_id: str, in_link: bool) -> list[Token]:
        """An image from the catalog stays; any other becomes a link (or text) to it."""
        from markdown_it.token import Token

        src = str(token.attrGet("src") or "")
        resolved = resolve_link(src, skill_id, self.targets)
        if resolved and url_scheme(resolved) is None and not resolved.startswith(("#", "//")):
            token.attrSet("src", resolved)
            return [token]
        text = Token("text", "", 0, content=f"image: {token.content or src}")
        if in_link:
            return [text]
        opener = Token("link_open", "a", 1)
        _set_link(opener, resolved if resolved and url_scheme(resolved) in SAFE_SCHEMES else None)
        return [opener, text, Token("link_close", opener.tag, -1)]


def _set_link(token: Token, href: str | None) -> None:
    """Point a link token at ``href``, or turn it into a ``broken-link`` span."""
    title = token.attrGet("title")
    token.attrs = {}
    if href is None:
        token.tag = "span"
        token.attrSet("class", "broken-link")
        token.attrSet("title", "link target not published in this catalog")
        return
    token.tag = "a"
    token.attrSet("href", href)
    if title:
        token.attrSet("title", str(title))
    if url_scheme(href) in ("http", "https"):
        token.attrSet("rel", EXTERNAL_REL)


def _lower(tag: str) -> str:
    """``h1`` -> ``h2`` ... ``h6`` stays ``h6``."""
    return f"h{min(int(tag[1]) + 1, 6)}"


def _align_class(token: Token) -> None:
    """Table cell alignment as a class: a ``style`` attribute would break the page's CSP."""
    style = token.attrGet("style")
    if style is None:
        return
    token.attrs.pop("style", None)
    match = _ALIGN.search(str(style))
    if match:
        token.attrSet("class", f"align-{match.group(1)}")
