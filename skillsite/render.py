"""Markdown to safe HTML for skill pages.

CommonMark plus tables, strikethrough and task lists, parsed by pulldown-cmark (through
``pyromark``: rendering with a pure-Python parser was half of a build's time).  Raw HTML is
hidden from the parser first (see :func:`_hide_markup`); then the parser's own HTML, whose
every tag is its own, is rewritten by :func:`_rewrite`.  Where raw HTML cannot be hidden
(or the parser read some after all), the body is rendered from the parser's events instead,
every tag written here.  Either way every rule below holds whatever the source says:

- raw HTML, block or inline, is shown as escaped text: nothing in a body becomes markup
  unless it is Markdown;
- ``http``, ``https`` and ``mailto`` links are kept (marked ``rel="nofollow ugc noopener"``);
  any other scheme (``javascript:``, ``vbscript:``, ``data:``, ``file:`` ...) is refused;
- relative links are resolved inside the catalog: a link to a skill's folder or its
  ``SKILL.md`` becomes a link to that skill's page, a link to a bundled file becomes a link
  to its published copy, relative to the page; anything else (a missing file, a path out of
  the catalog, an absolute path) is rendered as plain text marked ``broken-link``;
- images load only from the catalog itself; an external image becomes a plain link;
- table cell alignment is a class (a ``style`` attribute would break the page's CSP).

Body headings move down one level (the page's own ``<h1>`` is the skill's name) and get
GitHub-style ids with a ``#`` permalink.
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable, NamedTuple
from urllib.parse import quote, unquote, urlsplit

__all__ = ["LinkTargets", "MarkdownRenderer", "engine_version", "slugify", "resolve_link", "safe_url", "normalize_link"]

SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
SKILL_FILES = frozenset({"SKILL.md", "skill.md"})
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.\-]*):")
_CONTROL = re.compile(r"[\x00-\x20\x7f]+")
_SLUG_DROP = re.compile(r"[^\w\- ]", re.UNICODE)
EXTERNAL_REL = "nofollow ugc noopener noreferrer"
BROKEN_LINK = '<span class="broken-link" title="link target not published in this catalog">'
_ALIGN_CLASS = {"Left": ' class="align-left"', "Center": ' class="align-center"', "Right": ' class="align-right"'}


def slugify(title: str) -> str:
    """GitHub-style heading slug: lower case, punctuation dropped, spaces to hyphens."""
    slug = _SLUG_DROP.sub("", title.strip().lower()).replace(" ", "-")
    return slug or "section"


def _unique_slug(title: str, taken: set[str]) -> str:
    """The slug of a heading, numbered (``-1``, ``-2``...) past those ``taken`` by earlier
    headings; added to ``taken``."""
    slug = base = slugify(title)
    n = 1
    while slug in taken:
        slug = f"{base}-{n}"
        n += 1
    taken.add(slug)
    return slug


def url_scheme(url: str) -> str | None:
    """The lower-cased scheme of a URL as a browser would read it (control characters ignored)."""
    match = _SCHEME.match(_CONTROL.sub("", url))
    return match.group(1).lower() if match else None


def safe_url(url: str | None) -> str | None:
    """``url`` if it is an http(s) or mailto URL, else None (for links built from metadata)."""
    if not url or url_scheme(url) not in SAFE_SCHEMES or _CONTROL.search(url):
        return None
    return url


# Percent-encoding of a link destination as CommonMark renderers do (markdown-it's
# normalizeLink): ASCII letters, digits and URL punctuation stay, an existing %XX escape
# stays, everything else (spaces, non-ASCII, a lone %) is UTF-8 percent-encoded.
_URL_KEEP = re.compile(r"(?:%[0-9A-Fa-f]{2}|[A-Za-z0-9;/?:@&=+$,\-_.!~*'()#])+")


def normalize_link(url: str) -> str:
    """``url`` percent-encoded for an ``href``, keeping what is already encoded."""
    if _URL_KEEP.fullmatch(url):
        return url
    out, pos = [], 0
    for match in _URL_KEEP.finditer(url):
        out.append(quote(url[pos:match.start()], safe="", errors="replace"))
        out.append(match.group())
        pos = match.end()
    out.append(quote(url[pos:], safe="", errors="replace"))
    return "".join(out)


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

    ``href`` is the destination percent-encoded (see :func:`normalize_link`).
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


# Raw HTML is text here, as in markdown-it with ``html=False``: a line such as ``<process>``
# (skills often structure prompts with XML-like tags) must not start an HTML block that
# swallows the Markdown after it.  pulldown-cmark always reads HTML, so before parsing every
# ``<`` is replaced by a punctuation character the body does not contain, then put back
# where it is Markdown (an autolink, an angle-bracketed link destination, a backslash
# escape); the parser's text is turned back into ``<``.  A single ``~`` is hidden the same
# way: strikethrough takes two (``~~``), so "~5 min ... ~10 min" is not struck through.
# Stand-ins: punctuation (Unicode category Po, as ``<`` and ``~`` are punctuation for the
# emphasis rules) that no Markdown syntax uses; the first two a body does not contain.
_STAND_INS = "\u2e2e\u2e41\u2e4c\u2e4d\u2e4e\u2e4f\ua8f8\ua8f9\ua8fa\ua8fc\u2e3c\u2e3d"
# Where ``<`` and ``~`` are Markdown, in a body's text; matched after both were replaced by
# their stand-ins (the pattern is translated the same way).
_MARKDOWN_ANGLES = (
    r"""\\[!-/:;<=>?@\[\\\]^_`{|}~]"""                                      # a backslash escape
    r"|\]\([ \t]*<[^<>\n]*>"                                                # [text](<destination>)
    r"|\n[ ]{0,3}\[[^\]\n]+\]:[ \t]*<[^<>\n]*>"                            # [label]: <destination>
    r"|<[A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\x00-\x20<>]*>"                       # <scheme:autolink>
    r"|<[A-Za-z0-9.!#$%&'*+/=?^_`{|}~\-]+@[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?)*>"                 # <email@autolink>
    r"|~~+")                                                                  # strikethrough, fences


@lru_cache(maxsize=None)
def _markdown_angles(lt: str, tilde: str) -> re.Pattern[str]:
    """:data:`_MARKDOWN_ANGLES` for a text whose ``<`` and ``~`` are ``lt`` and ``tilde``."""
    return re.compile(_MARKDOWN_ANGLES.translate({ord("<"): lt, ord("~"): tilde}))


_ANGLED = re.compile(r"<[^<>\n]*>")


class _Hidden(NamedTuple):
    """A body prepared for the parser by :func:`_hide_markup`."""

    text: str
    stand_ins: tuple[str, str] | None   # the characters standing for '<' and '~', or None
    kept: tuple[str, ...] = ()          # every '<...>' left as written (autolinks, <destinations>, \\<)


def _hide_markup(body: str) -> _Hidden:
    """``body`` with raw-HTML ``<`` and single ``~`` replaced by stand-ins."""
    if "<" not in body and "~" not in body:
        return _Hidden(body, None)
    free = [c for c in _STAND_INS if c not in body][:2]
    if len(free) < 2:   # a body holding every stand-in: its raw HTML events are escaped anyway
        return _Hidden(body, None)
    lt, tilde = free

    def keep(match: re.Match[str]) -> str:
        return match.group().replace(lt, "<").replace(tilde, "~")

    hidden = "\n" + body.replace("<", lt).replace("~", tilde)  # '\n': a definition on the first line
    text = _markdown_angles(lt, tilde).sub(keep, hidden)[1:]
    return _Hidden(text, (lt, tilde), tuple(set(_ANGLED.findall(text))) if "<" in text else ())


def _escape(text: str) -> str:
    """Text for HTML content or a double-quoted attribute."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _link_open(href: str | None, title: str = "") -> tuple[str, str]:
    """Opening and closing tags of a link to ``href``, or of a ``broken-link`` span."""
    if href is None:
        return BROKEN_LINK, "</span>"
    attrs = f'<a href="{_escape(href)}"'
    if title:
        attrs += f' title="{_escape(title)}"'
    if url_scheme(href) in ("http", "https"):
        attrs += f' rel="{EXTERNAL_REL}"'
    return attrs + ">", "</a>"


# Inline elements that map one to one onto an event's start and end.
_INLINE = {"Emphasis": ("<em>", "</em>"), "Strong": ("<strong>", "</strong>"), "Strikethrough": ("<s>", "</s>")}
_TASK_BOX = {True: '<input class="task-list-item-checkbox" checked="checked" disabled="disabled" type="checkbox"> ',
             False: '<input class="task-list-item-checkbox" disabled="disabled" type="checkbox"> '}


class _Document:
    """One body's rendering: the output pieces and what is open."""

    __slots__ = ("skill_id", "targets", "hidden", "out", "closers", "slugs", "heading", "title", "alt", "image",
                 "links", "aligns", "cell", "in_head", "body_open", "lists")

    def __init__(self, skill_id: str, targets: LinkTargets, hidden: tuple[str, str] | None):
        self.skill_id = skill_id
        self.targets = targets
        self.hidden = hidden                # stand-ins of '<' and '~' (see _hide_markup), or None
        self.out: list[str] = []
        self.closers: list[str] = []        # closing tags of open links, images and list items, innermost last
        self.slugs: set[str] = set()
        self.heading = -1                   # index in ``out`` of the open heading's tag, or -1
        self.title: list[str] = []          # text of the open heading, for its slug
        self.alt: list[str] | None = None   # text of the open image, for its alt
        self.image: tuple[str, str] = ("", "")  # the open image's destination and title
        self.links = 0                      # open links
        self.aligns: tuple[str, ...] = ()   # the open table's column alignments
        self.cell = 0                       # column of the next table cell
        self.in_head = False
        self.body_open = False
        self.lists: list[int] = []          # index in ``out`` of each open list's tag

    def restore(self, text: str) -> str:
        """``text`` from the parser with the hidden characters turned back."""
        if self.hidden and text:
            text = text.replace(self.hidden[0], "<").replace(self.hidden[1], "~")
        return text

    def block(self, tag: str) -> int:
        """Open a block element on a line of its own (after a tight list item's text, say); its index."""
        out = self.out
        if out and out[-1][-1:] != "\n":
            out.append("\n")
        out.append(tag)
        return len(out) - 1

    # -- text ---------------------------------------------------------------------------------

    def text(self, text: str) -> None:
        if self.alt is not None:
            self.alt.append(text)
            return
        if self.heading >= 0:
            self.title.append(text)
        self.out.append(_escape(text))

    def code(self, text: str) -> None:
        if self.alt is not None:
            self.alt.append(text)
            return
        if self.heading >= 0:
            self.title.append(text)
        self.out.append("<code>" + _escape(text) + "</code>")

    # -- headings -----------------------------------------------------------------------------

    def start_heading(self, level: str) -> None:
        self.heading = self.block(level)  # 'H1'...'H6' until the end, when the slug is known
        self.title = []

    def end_heading(self) -> None:
        level = min(int(self.out[self.heading][1]) + 1, 6)
        slug = _unique_slug("".join(self.title), self.slugs)
        self.out[self.heading] = f'<h{level} id="{slug}">'
        self.out.append(f' <a class="header-anchor" href="#{slug}">#</a></h{level}>\n')
        self.heading = -1

    # -- links and images ---------------------------------------------------------------------

    def start_link(self, link: dict[str, Any]) -> None:
        url = self.restore(link["dest_url"])
        if link["link_type"] == "Email":
            url = "mailto:" + url
        href = resolve_link(normalize_link(url), self.skill_id, self.targets)
        opening, closing = _link_open(href, self.restore(link["title"]))
        self.out.append(opening)
        self.closers.append(closing)
        self.links += 1

    def end_link(self) -> None:
        self.links -= 1
        self.out.append(self.closers.pop())

    def start_image(self, image: dict[str, Any]) -> None:
        if self.alt is not None:   # an image inside an image's text: only its text counts
            self.closers.append("")
            return
        self.alt = []
        self.image = (self.restore(image["dest_url"]), self.restore(image["title"]))
        self.closers.append("image")

    def end_image(self) -> None:
        """An image from the catalog stays; any other becomes a link (or text) to it."""
        if self.closers.pop() != "image":
            return
        alt, self.alt = "".join(self.alt or ()), None
        src, title = self.image
        resolved = resolve_link(normalize_link(src), self.skill_id, self.targets)
        if resolved and url_scheme(resolved) is None and not resolved.startswith(("#", "//")):
            tag = f'<img src="{_escape(resolved)}" alt="{_escape(alt)}"'
            if title:
                tag += f' title="{_escape(title)}"'
            self.out.append(tag + " />")
            return
        text = _escape(f"image: {alt or src}")
        if self.links:
            self.out.append(text)
            return
        opening, closing = _link_open(resolved if resolved and url_scheme(resolved) in SAFE_SCHEMES else None)
        self.out.append(opening + text + closing)

    # -- lists --------------------------------------------------------------------------------

    def start_list(self, start: int | None) -> None:
        tag = "<ul>\n" if start is None else "<ol>\n" if start == 1 else f'<ol start="{start}">\n'
        self.lists.append(self.block(tag))

    def end_list(self, ordered: bool) -> None:
        self.lists.pop()
        self.out.append("</ol>\n" if ordered else "</ul>\n")

    def start_item(self) -> None:
        self.closers.append(str(len(self.out)))  # where the item's tag is, for a task marker
        self.out.append("<li>")

    def end_item(self) -> None:
        self.closers.pop()
        self.out.append("</li>\n")

    def task(self, checked: bool) -> None:
        self.out[int(self.closers[-1])] = '<li class="task-list-item">'
        if self.lists and "class=" not in self.out[self.lists[-1]]:
            self.out[self.lists[-1]] = self.out[self.lists[-1]].replace(">", ' class="contains-task-list">', 1)
        self.out.append(_TASK_BOX[bool(checked)])

    # -- tables -------------------------------------------------------------------------------

    def start_table(self, aligns: tuple[str, ...]) -> None:
        self.aligns = aligns
        self.body_open = False
        self.block("<table>\n")

    def end_table(self) -> None:
        self.out.append("</tbody>\n</table>\n" if self.body_open else "</table>\n")

    def start_row(self, head: bool) -> None:
        self.cell = 0
        self.in_head = head
        if head:
            self.out.append("<thead>\n<tr>\n")
        elif not self.body_open:
            self.body_open = True
            self.out.append("<tbody>\n<tr>\n")
        else:
            self.out.append("<tr>\n")

    def end_row(self, head: bool) -> None:
        self.out.append("</tr>\n</thead>\n" if head else "</tr>\n")

    def start_cell(self) -> None:
        align = _ALIGN_CLASS.get(self.aligns[self.cell], "") if self.cell < len(self.aligns) else ""
        self.out.append(("<th" if self.in_head else "<td") + align + ">")

    def end_cell(self) -> None:
        self.cell += 1
        self.out.append("</th>\n" if self.in_head else "</td>\n")

    # -- events -------------------------------------------------------------------------------

    def start(self, tag: Any) -> None:
        """A ``Start`` event: ``tag`` is a name, or a one-key dict of a name and its details."""
        if type(tag) is str:
            inline = _INLINE.get(tag)
            if inline is not None:
                self.out.append(inline[0])
            elif tag == "Paragraph" or tag == "HtmlBlock":   # raw HTML: shown as the text it is
                self.block("<p>")
            elif tag == "Item":
                self.start_item()
            elif tag == "TableCell":
                self.start_cell()
            elif tag == "TableRow" or tag == "TableHead":
                self.start_row(tag == "TableHead")
            return
        (kind, value), = tag.items()
        if kind == "Heading":
            self.start_heading(value["level"])
        elif kind == "Link":
            self.start_link(value)
        elif kind == "Image":
            self.start_image(value)
        elif kind == "List":
            self.start_list(value)
        elif kind == "CodeBlock":
            info = self.restore(value["Fenced"]).split(maxsplit=1) if type(value) is dict else None
            self.block(f'<pre><code class="language-{_escape(info[0])}">' if info else "<pre><code>")
        elif kind == "BlockQuote":
            self.block("<blockquote>\n")
        elif kind == "Table":
            self.start_table(value)

    def end(self, tag: Any) -> None:
        """An ``End`` event: ``tag`` is a name, or a one-key dict of a name and a detail."""
        if type(tag) is str:
            inline = _INLINE.get(tag)
            if inline is not None:
                self.out.append(inline[1])
            elif tag == "Paragraph":
                self.out.append("</p>\n")
            elif tag == "Item":
                self.end_item()
            elif tag == "TableCell":
                self.end_cell()
            elif tag == "TableRow" or tag == "TableHead":
                self.end_row(tag == "TableHead")
            elif tag == "Link":
                self.end_link()
            elif tag == "Image":
                self.end_image()
            elif tag == "CodeBlock":
                self.out.append("</code></pre>\n")
            elif tag == "Table":
                self.end_table()
            elif tag == "HtmlBlock":
                self.out[-1] = self.out[-1].rstrip("\n")
                self.out.append("</p>\n")
            return
        (kind, value), = tag.items()
        if kind == "Heading":
            self.end_heading()
        elif kind == "List":
            self.end_list(value)
        elif kind == "BlockQuote":
            self.out.append("</blockquote>\n")

    def soft_break(self) -> None:
        if self.alt is not None:
            self.alt.append(" ")
        else:
            self.out.append("\n")

    def hard_break(self) -> None:
        if self.alt is None:
            self.out.append("<br />\n")


def engine_version() -> str:
    """The Markdown parser's version: cached renderings are valid for this one only."""
    import pyromark

    return str(pyromark.__version__)


# ---------------------------------------------------------------------------- fast path

# What pulldown-cmark's HTML writer emits that the rules above change.  With raw HTML hidden
# (see _hide_markup) every tag in its output is its own, in these exact forms.
_HEADING = re.compile(r"<h([1-6])>(.*?)</h\1>", re.DOTALL)
_LINKS = (r'<a href="([^"]*)"(?: title="([^"]*)")?>'                 # 1 href, 2 title
          r'|</a>'
          r'|<img src="([^"]*)" alt="([^"]*)"(?: title="([^"]*)")? />')  # 3 src, 4 alt, 5 title
_TAG = re.compile(_LINKS)
_TAG_AND_TASKS = re.compile(_LINKS + r'|<(?:ul|ol)(?: start="\d+")?>|</(?:ul|ol)>'
                            r'|<li><input disabled="" type="checkbox"( checked="")?/>\n')  # 6 checked
_CELLS = [(f'<{cell} style="text-align: {align}">', f'<{cell} class="align-{align}">')
          for cell in ("th", "td") for align in ("left", "center", "right")]
_TAGS_ONLY = re.compile(r"<[^>]*>")


def _rewrite(html_text: str, skill_id: str, targets: LinkTargets, hidden: tuple[str, str] | None) -> str:
    """pulldown-cmark's HTML of a body whose raw HTML was hidden, with this module's rules:
    the same result as the event renderer's, at a fraction of the cost."""
    import html

    lt, tilde = hidden or ("\0", "\0")
    encoded = {quote(lt): "%3C", quote(tilde): "~"} if hidden else {}

    def restore(value: str) -> str:  # an attribute value as text
        value = html.unescape(value)
        return value.replace(lt, "<").replace(tilde, "~") if hidden else value

    def url(value: str) -> str:      # an href or src: what normalize_link makes of the destination
        value = html.unescape(value)
        for code, char in encoded.items():
            value = value.replace(code, char)
        return normalize_link(value)

    slugs: set[str] = set()

    def heading(match: re.Match[str]) -> str:
        level, inner = min(int(match.group(1)) + 1, 6), match.group(2)
        slug = _unique_slug(restore(_TAGS_ONLY.sub("", inner)), slugs)
        return f'<h{level} id="{slug}">{inner} <a class="header-anchor" href="#{slug}">#</a></h{level}>'

    text = _HEADING.sub(heading, html_text)
    if "<del>" in text:
        text = text.replace("<del>", "<s>").replace("</del>", "</s>")
    if 'style="text-align' in text:
        for styled, classed in _CELLS:
            text = text.replace(styled, classed)
    if "<tbody>\n</tbody>" in text:  # a table with a header only has no body
        text = text.replace("<tbody>\n</tbody>", "")
    tasks = 'type="checkbox"' in text
    out: list[str] = []
    closers: list[str] = []  # of open links
    lists: list[int] = []    # index in ``out`` of each open list's tag (task lists only)
    pos = 0
    for match in (_TAG_AND_TASKS if tasks else _TAG).finditer(text):
        out.append(text[pos:match.start()])
        pos = match.end()
        tag = match.group()
        if match.group(1) is not None:                      # a link
            href = resolve_link(url(match.group(1)), skill_id, targets)
            opening, closing = _link_open(href, restore(match.group(2) or ""))
            out.append(opening)
            closers.append(closing)
        elif tag == "</a>":
            out.append(closers.pop() if closers else tag)
        elif match.group(3) is not None:                    # an image
            out.append(_image(url(match.group(3)), restore(match.group(4)), restore(match.group(5) or ""),
                              skill_id, targets, bool(closers)))
        elif tag.startswith("<li>"):                        # a task list item
            if lists and "class=" not in out[lists[-1]]:
                out[lists[-1]] = out[lists[-1]].replace(">", ' class="contains-task-list">', 1)
            out.append('<li class="task-list-item">' + _TASK_BOX[match.group(6) is not None])
        elif tag.startswith("</"):                          # a list closes
            if lists:
                lists.pop()
            out.append(tag)
        else:                                               # a list opens
            lists.append(len(out))
            out.append(tag)
    out.append(text[pos:])
    result = "".join(out)
    return result.replace(lt, "&lt;").replace(tilde, "~") if hidden else result


def _image(src: str, alt: str, title: str, skill_id: str, targets: LinkTargets, in_link: bool) -> str:
    """An image from the catalog stays; any other becomes a link (or text) to it."""
    resolved = resolve_link(src, skill_id, targets)
    if resolved and url_scheme(resolved) is None and not resolved.startswith(("#", "//")):
        tag = f'<img src="{_escape(resolved)}" alt="{_escape(alt)}"'
        return tag + (f' title="{_escape(title)}"' if title else "") + " />"
    text = _escape(f"image: {alt or unquote(src)}")
    if in_link:
        return text
    opening, closing = _link_open(resolved if resolved and url_scheme(resolved) in SAFE_SCHEMES else None)
    return opening + text + closing


class MarkdownRenderer:
    """Renders skill bodies; one instance serves a whole build."""

    def __init__(self, targets: LinkTargets):
        import pyromark

        options = (pyromark.Options.ENABLE_TABLES | pyromark.Options.ENABLE_STRIKETHROUGH
                   | pyromark.Options.ENABLE_TASKLISTS)
        self.targets = targets
        parser = pyromark.Markdown(options=options)
        self._events, self._html = parser.events, parser.html

    def render(self, body: str, skill_id: str) -> str:
        """The body's HTML, links resolved as seen from skill ``skill_id``'s page."""
        text, hidden, kept = _hide_markup(body)
        if hidden is None and "<" in body:  # no stand-in left for '<': raw HTML is escaped event by event
            return self.render_events(text, skill_id, None)
        html_text = self._html(text)
        # A '<...>' left in place because it reads as an autolink or a destination comes out
        # verbatim only if the parser took it for raw HTML after all (say '[r]: <b>x' is no
        # link definition): then only the event renderer, which escapes raw HTML, is safe.
        if any(segment in html_text for segment in kept):
            return self.render_events(text, skill_id, hidden)
        return _rewrite(html_text, skill_id, self.targets, hidden)

    def render_events(self, text: str, skill_id: str, hidden: tuple[str, str] | None) -> str:
        """The body's HTML made from the parser's events (``text``: the body as _hide_markup left it)."""
        doc = _Document(skill_id, self.targets, hidden)
        out = doc.out
        lt, tilde = hidden or ("", "")
        for event in self._events(text):
            if type(event) is str:
                if event == "SoftBreak":
                    doc.soft_break()
                elif event == "HardBreak":
                    doc.hard_break()
                elif event == "Rule":
                    doc.block("<hr />\n")
                continue
            (kind, value), = event.items()
            if hidden and type(value) is str:
                value = value.replace(lt, "<").replace(tilde, "~")
            if kind == "Text" or kind == "Html" or kind == "InlineHtml":  # raw HTML is text
                doc.text(value)
            elif kind == "Start":
                doc.start(value)
            elif kind == "End":
                doc.end(value)
            elif kind == "Code":
                doc.code(value)
            elif kind == "TaskListMarker":
                doc.task(value)
            # footnotes, math and metadata blocks are not enabled: no other events
        return "".join(out)
