"""Markdown to safe HTML for skill pages.

CommonMark plus tables, strikethrough (``~~`` only: "~5 to ~10" stays as written), task
lists and GitHub alerts (``> [!NOTE]``), parsed by markdown-it-py.  Every rule below is
applied to markdown-it's tokens (a core rule after parsing, see :func:`_apply_rules`, and
renderer rules), never to the HTML it writes, so each holds whatever the source says:

- raw HTML, block or inline, is shown as escaped text (``html=False``): nothing in a body
  becomes markup unless it is Markdown, and a line such as ``<process>`` does not swallow
  the Markdown after it.  HTML comments alone are read (a line starting with ``<!--`` is a
  block to its closer, as CommonMark reads it, so it ends a list item) and show nothing, as on
  GitHub: each is closed at its first ``-->``, as the audit's SK607 reads it, and anything else
  on a comment block's lines is shown escaped; an unclosed one is shown as written;
- ``http``, ``https`` and ``mailto`` links are kept (http(s) marked ``rel="nofollow ugc
  noopener noreferrer"``); any other scheme (``javascript:``, ``vbscript:``, ``data:``,
  ``file:``, entity-encoded or with control characters inside) is refused;
- relative links are resolved inside the catalog: a link to a skill's folder or its
  ``SKILL.md`` becomes a link to that skill's page, a link to a bundled file becomes a link
  to its published copy, relative to the page, and one to a folder of bundled files a link to
  the list of files on its skill's page; anything else (a refused scheme, a missing
  file, a path out of the catalog, an absolute path) is rendered as plain text marked
  ``broken-link``;
- images load only from the catalog itself; an external image becomes a plain link
  ``image: <alt>`` (or just that text inside a link);
- table cell alignment is a class (a ``style`` attribute would break the page's CSP);
- a body's tables hold at most 65,536 cells in all, the rows past them shown as text:
  markdown-it fills each short row's missing cells (up to 65,536 a table), so a row of two
  bytes made hundreds of cells, and a 15 KB body took 9 s and 770 MB to render;
- a body's blocks make about 131,072 tokens at most, and its paragraphs, quotes and definitions
  hold 65,536 lines, the lines past them shown as one code block (an empty heading is three
  tokens of two bytes: a 1 MiB body of them took 22 s and 1.6 GB; one paragraph of one-letter
  lines 9 s, in 19 nested quotes 38 s);
- a body's inline parser tries to read a link or an image 65,536 times at most, the brackets past
  them text (each try reads the label after its bracket: a 1 MiB body of ``![`` took 16 s), and
  reads 65,536 runs of emphasis marks (and of ``~``) at most, the marks past them text, and its
  label scans take 2,097,152 steps in all at most (a 1 MiB body of ``[`` and ``}`` took 9.6 s);
- a body's inline content makes 262,144 tokens at most, the rest of each inline content past them
  text (one paragraph of a 1 MiB body of one-letter lines made a million, 9 s and 340 MB);
- a body's links hold at most eight characters of targets and titles per character of the body,
  plus a mebibyte; a link past them is a ``broken-link``, an image its text: a definition's
  target is written at every use of it, so a 128 KB body wrote 716 MB of HTML.

Task-list checkboxes (disabled) are labelled "Completed task" or "Incomplete task", as GitHub
labels them, and code blocks and tables are focusable (``<pre tabindex="0">``, ``<table
tabindex="0">``): one wider than the page scrolls, and the keyboard must be able to scroll it.

Body headings move down one level (the page's own ``<h1>`` is the skill's name; ``h6``
stays ``h6``) and get GitHub-style ids, numbered ``-1``, ``-2`` when repeated, with a ``#``
permalink.
"""
from __future__ import annotations

import functools
import posixpath
import re
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Mapping, Sequence
from urllib.parse import unquote, urlsplit

import markdown_it
import mdit_py_plugins
from markdown_it import rules_inline
from markdown_it.common.normalize_url import normalizeLink
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from mdit_py_plugins.anchors import anchors_plugin
from skillsite.agent.site_urls import url_of
from skillsite.audit.folding import unusual
from skillsite.publish.knowledge import KNOWLEDGE_FOLDER
from skillsite.source.discover import SKILL_FILES
from skillsite.source.links import inside_skill_dir
from skillsite.source.markdown_blocks import body_markdown

__all__ = ["Asked", "LinkTargets", "MarkdownRenderer", "engine_version", "slugify", "resolve_link", "safe_url",
           "normalize_link"]

SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.\-]*):")
_CONTROL = re.compile(r"[\x00-\x20\x7f]+")
_SLUG_DROP = re.compile(r"[^\w\- ]", re.UNICODE)
_ALIGN = re.compile(r"text-align:\s*(left|right|center)")
#: What HTML reads as control characters (C0 but tab, newline, form feed and carriage return;
#: DEL; C1): a skill's text may hold them (NUL, a terminal's escape sequences), a page shows none.
_HTML_CONTROLS = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")
EXTERNAL_REL = "nofollow ugc noopener noreferrer"
BROKEN_TITLE = "link target not published in this catalog"
#: The id of the list of bundled files on a skill's page (templates/skill.html).
FILES_ANCHOR = "filesHeading"
#: What rendering one body asked of the catalog's link targets, sorted: ("skill", path), whether
#: the path is a skill id, ("file", path), whether it is a bundled file, and ("folder", path), whether
#: it is a folder holding some.  The body's HTML
#: depends on the targets through the answers to these alone (:meth:`LinkTargets.answers`).
Asked = tuple[tuple[str, str], ...]


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


def normalize_link(url: str) -> str:
    """``url`` percent-encoded for an ``href`` as markdown-it encodes link destinations."""
    return normalizeLink(url)


@dataclass(frozen=True)
class LinkTargets:
    """What a skill body may link to inside the catalog."""

    skills: frozenset[str]       # skill ids
    files: frozenset[str]        # "<skill id>/<bundled path>"
    #: the rendered skill's links to the shared knowledge documents it publishes, as written from
    #: its folder (normalised: ``../knowledge/x.md``) -> their paths under ``knowledge/``
    knowledge: Mapping[str, str] = field(default_factory=dict)
    #: where a rendering notes what it asks (:data:`Asked`); None: nothing is noted
    asked: set[tuple[str, str]] | None = field(default=None, compare=False)

    def is_skill(self, path: str) -> bool:
        """Whether ``path`` is a skill's id."""
        if self.asked is not None:
            self.asked.add(("skill", path))
        return path in self.skills

    def is_file(self, path: str) -> bool:
        """Whether ``path`` is a bundled file (``<skill id>/<bundled path>``)."""
        if self.asked is not None:
            self.asked.add(("file", path))
        return path in self.files

    def is_folder(self, path: str) -> bool:
        """Whether ``path`` is a folder holding a bundled file (``<skill id>/<folder>``)."""
        if self.asked is not None:
            self.asked.add(("folder", path))
        return path in self.folders

    @functools.cached_property
    def folders(self) -> frozenset[str]:
        """The folders holding the bundled files, and those above them."""
        return frozenset(folder for path in self.files for folder in _folders_above(path))

    def answers(self, asked: Asked) -> tuple[bool, ...]:
        """What these targets answer to each question of ``asked`` (noting nothing)."""
        sets = {"skill": self.skills, "file": self.files, "folder": self.folders}
        return tuple(path in sets[kind] for kind, path in asked)

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
    return url_of(rel)


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
    path = inside_skill_dir(unquote(parts.path))
    if not path:
        return fragment or None
    if (document := targets.knowledge.get(posixpath.normpath(path))) is not None:
        return url_of(posixpath.relpath(f"/{KNOWLEDGE_FOLDER}{document}", f"/skills/{skill_id}")) + fragment
    target = posixpath.normpath(posixpath.join(skill_id, path))
    if target == ".." or target.startswith("../") or target.startswith("/"):
        return None
    page = _skill_page(target, targets)
    if page is not None:
        return _relative(skill_id, page + "/") + fragment
    if targets.is_file(target):
        return _relative(skill_id, target) + fragment
    if (owner := _files_of_folder(target, targets)) is not None:
        return _relative(skill_id, owner + "/") + "#" + FILES_ANCHOR
    return None


def _folders_above(path: str) -> Iterable[str]:
    """The folders ``path`` is in, innermost first ("a/b/c.md": "a/b", "a")."""
    while "/" in path:
        path = path.rsplit("/", 1)[0]
        yield path


def _files_of_folder(target: str, targets: LinkTargets) -> str | None:
    """Where a link to a folder of bundled files leads: the list of files on the page of the skill
    it is in (no static host lists a folder; validate takes such a link as published)."""
    if not targets.is_folder(target):
        return None
    return next((skill for skill in _folders_above(target) if targets.is_skill(skill)), None)


def _skill_page(target: str, targets: LinkTargets) -> str | None:
    """The skill id a resolved path designates (its folder or its SKILL.md), if any."""
    if targets.is_skill(target):
        return target
    folder, name = posixpath.split(target)
    if name in SKILL_FILES and targets.is_skill(folder):
        return folder
    return None


def engine_version() -> str:
    """The Markdown engine's versions: cached renderings are valid for these only."""
    return f"markdown-it-py {markdown_it.__version__}, mdit-py-plugins {mdit_py_plugins.__version__}"


# -------------------------------------------------------------------- token rules


def _any_link(url: str) -> bool:
    """Let markdown-it make every link a token: :func:`_apply_rules` decides (resolve_link)."""
    return True


def _set_link(token: Token, href: str | None) -> None:
    """Point a link token at ``href``, or turn it into a ``broken-link`` span."""
    title = token.attrGet("title")
    if href is None:
        token.tag = "span"
        token.attrs = {"class": "broken-link", "title": BROKEN_TITLE}
        return
    token.tag = "a"
    token.attrs = {"href": href}
    if title:
        token.attrs["title"] = title
    if url_scheme(href) in ("http", "https"):
        token.attrs["rel"] = EXTERNAL_REL


def _align_class(token: Token) -> None:
    """A table cell's ``style="text-align:..."`` as an ``align-*`` class."""
    match = _ALIGN.search(str(token.attrs.pop("style", "")))
    if match:
        token.attrs["class"] = f"align-{match.group(1)}"


def _heading_ids(state: StateCore) -> None:
    """The core rule before the anchors plugin's: each heading's id, as the plugin makes it (the
    slug of its text, then ``-1``, ``-2`` ... for repeats), which the plugin then keeps.  The
    plugin looks for a free suffix from 1 for every heading, so a body of thousands of equal
    headings would cost the square of their number; here each slug's count is remembered."""
    taken: set[str] = set()
    next_suffix: dict[str, int] = {}
    for index, token in enumerate(state.tokens):
        if token.type != "heading_open":
            continue
        children = state.tokens[index + 1].children or []
        slug = unique = slugify("".join(c.content for c in children if c.type in ("text", "code_inline")))
        suffix = next_suffix.get(slug, 1)
        while unique in taken:
            unique, suffix = f"{slug}-{suffix}", suffix + 1
        next_suffix[slug] = suffix
        taken.add(unique)
        token.attrSet("id", unique)


def _apply_rules(state: StateCore) -> None:
    """The core rule: headings down a level, alignment classes, every link and image checked."""
    skill_id: str = state.env["skill_id"]
    targets: LinkTargets = state.env["targets"]
    for token in state.tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(int(token.tag[1]) + 1, 6)}"
        elif token.type in ("th_open", "td_open"):
            _align_class(token)
        elif token.type in ("code_block", "table_open"):  # an indented block's attributes go on its <pre>
            token.attrSet("tabindex", "0")
        elif token.type == "inline" and token.children:
            token.children = _inline(state, token.children, skill_id, targets)


#: How many characters of link targets and titles a body's links may hold beyond eight per
#: character of the body (a target's characters percent-encoded): a definition's target is
#: written again at every use of it ('[r]: #aaa…' then '[r][r][r]…'), so a 128 KB body wrote
#: 716 MB of HTML.  A link past them is shown as a broken link, an image as its text.
SPARE_LINK_CHARACTERS = 1 << 20
#: Where a render's environment counts the characters of link targets and titles so far.
_LINK_CHARACTERS = "skillsite link characters"


def _within_link_budget(state: StateCore, token: Token, *names: str) -> bool:
    """Whether the link or image ``token`` fits in what is left of its body's link characters
    (:data:`SPARE_LINK_CHARACTERS`), counted with its ``names`` attributes."""
    spent = state.env.get(_LINK_CHARACTERS, 0) + sum(len(str(token.attrGet(name) or "")) for name in names)
    state.env[_LINK_CHARACTERS] = spent
    return spent <= 8 * len(state.src) + SPARE_LINK_CHARACTERS


#: How many times a body's inline parser may try to read a link or an image (at each ``[`` and
#: ``![``, the label after it read through every inline rule, and again inside an enclosing
#: label): a 1 MiB body of ``![`` took 16 s.  Past them, a bracket is text, and a label scan
#: that meets one ends there (up to 20 nested scans each read on to the paragraph's end).  The
#: corpus's document with the most brackets holds 761.
LINK_TRIES = 0x10000
#: How many runs of emphasis marks (``*``, ``_``) or of ``~`` a body's inline parser may read
#: (each a token and an entry its pairing goes through): a 1 MiB body of ``*a`` took 7.7 s and
#: 417 MB.  Past them, a mark is text.  The corpus's document with the most holds 3,885.
EMPHASIS_TRIES = 0x10000


#: How many steps a body's label scans may take in all: markdown-it reads a link's label one
#: token at a time through every inline rule (its ``skipToken``), and each of up to 20 nested
#: scans reads on over what an enclosing one read.  A 1 MiB body of ``[`` and a hundred ``}`` (one
#: step a character, no bracket closed) took 9.6 s, within :data:`LINK_TRIES`.  Past them, every
#: scan ends where it is (no label is found, its bracket is text), as markdown-it ends one nested
#: too deep.  The corpus's document with the most steps takes 763.
LABEL_STEPS = 1 << 21
_LABEL_STEPS = "skillsite label steps"


def _bounded_label_steps(skip_token: Callable[[StateInline], None]) -> Callable[[StateInline], None]:
    """markdown-it's ``skipToken`` (one step of a label scan), taken while its body has steps left
    (:data:`LABEL_STEPS`, counted in the render's environment); past them, it ends the scan."""
    def bounded(state: StateInline) -> None:
        steps = state.env.get(_LABEL_STEPS, 0)
        if steps >= LABEL_STEPS:
            state.pos = state.posMax
            return
        state.env[_LABEL_STEPS] = steps + 1
        skip_token(state)
    return bounded


#: How many inline tokens a body may make (a soft line break is one, its line's text another;
#: a link three): each costs time and memory to hold and render, so one paragraph of a 1 MiB
#: body of one-letter lines made a million and took 9 s and 340 MB.  Past them, the rest of each
#: inline content is text.  The corpus's document with the most makes 7,100.
INLINE_TOKENS = 1 << 18
_INLINE_MADE = "skillsite inline tokens"
#: Where it counts the tokens of the inline contents being read, that an image's alt text (read
#: as inline content of its own) is nested in: they are counted when each content ends.
_INLINE_OPEN = "skillsite inline tokens around"


def _past_inline_budget(state: StateInline, silent: bool) -> bool:
    """The inline rule asked at each place the text rule (which makes no token, only pending
    text) stops at: past :data:`INLINE_TOKENS`, the rest of the content is text (and a label
    scan ends: no label is found)."""
    if state.env.get(_INLINE_MADE, 0) + state.env.get(_INLINE_OPEN, 0) + len(state.tokens) < INLINE_TOKENS:
        return False
    if not silent:
        state.pending += state.src[state.pos:state.posMax]
    state.pos = state.posMax
    return True


def _count_inline_tokens(state: StateInline) -> None:
    """Run after each inline content is read: its tokens added to the body's count."""
    state.env[_INLINE_MADE] = state.env.get(_INLINE_MADE, 0) + len(state.tokens)


def _counting_tokens_around(image_rule: Callable[[StateInline, bool], bool]) -> Callable[[StateInline, bool], bool]:
    """markdown-it's image rule, which reads an image's alt text as inline content of its own: the
    tokens of the contents it is nested in count for that one's budget too (else each level of
    images nested in one another's alt text had a whole budget of its own)."""
    def counting(state: StateInline, silent: bool) -> bool:
        if silent:  # no alt text is read
            return image_rule(state, silent)
        around = state.env.get(_INLINE_OPEN, 0)
        state.env[_INLINE_OPEN] = around + len(state.tokens)
        try:
            return image_rule(state, silent)
        finally:
            state.env[_INLINE_OPEN] = around
    return counting


def _bounded_tries(rule: Callable[[StateInline, bool], bool], openers: tuple[str, ...], kind: str, most: int,
                   scans: bool) -> Callable[[StateInline, bool], bool]:
    """markdown-it's inline ``rule``, tried at one of its ``openers`` only while its body has
    tries of that ``kind`` left (``most`` in all, counted in the render's environment).  Asked
    inside a label scan (``silent``), a rule that ``scans`` (a link's or an image's: it reads the
    labels nested in that one) costs a try, and past the budget ends the scan (its label is not
    found, its bracket is text); any other reads nothing there, and costs none."""
    counted = f"skillsite {kind} tries"

    def bounded(state: StateInline, silent: bool) -> bool:
        if not state.src.startswith(openers, state.pos):
            return False  # the rule reads nothing else (it is asked at every position text stops at)
        if silent and not scans:
            return rule(state, silent)
        tries = state.env.get(counted, 0)
        if tries < most:
            state.env[counted] = tries + 1
            return rule(state, silent)
        if silent:  # a label scan over brackets past the budget: read as one token to its end
            state.pos = state.posMax
            return True
        return False
    return bounded


def _inline(state: StateCore, tokens: list[Token], skill_id: str, targets: LinkTargets) -> list[Token]:
    """An inline token's children with their links resolved and images checked."""
    out: list[Token] = []
    openers: list[Token | None] = []  # open links, innermost last: a link_close takes its opener's tag
    for token in tokens:
        if token.type == "link_open" and openers:
            openers.append(None)  # an autolink in a link's text: HTML nests no links, so its text only
            continue
        if token.type == "link_open":
            if token.attrGet("class") != "header-anchor":  # the anchors plugin's own permalink
                within = _within_link_budget(state, token, "href", "title")
                _set_link(token, resolve_link(str(token.attrGet("href") or ""), skill_id, targets) if within else None)
            openers.append(token)
        elif token.type == "link_close" and openers:
            opener = openers.pop()
            if opener is None:
                continue
            token.tag = opener.tag
        elif token.type == "image":
            token.children = _without_comments(token.children or [])  # its alt text shows none
            if _within_link_budget(state, token, "src", "title"):
                out.extend(_image(state, token, skill_id, targets, in_link=bool(openers)))
            else:  # its alt text, as text: the links and images its children may hold are none
                alt = state.md.renderer.renderInlineAsText(token.children or [], state.md.options, state.env)
                out.append(Token("text", "", 0, content=alt))
            continue
        out.append(token)
    return out


def _image(state: StateCore, token: Token, skill_id: str, targets: LinkTargets, in_link: bool) -> list[Token]:
    """An image from the catalog stays; any other becomes a link (or text) to it."""
    src = str(token.attrGet("src") or "")
    resolved = resolve_link(src, skill_id, targets)
    if resolved and url_scheme(resolved) is None and not resolved.startswith(("#", "//")):
        token.attrSet("src", resolved)
        return [token]
    alt = state.md.renderer.renderInlineAsText(token.children or [], state.md.options, state.env)
    text = Token("text", "", 0, content=f"image: {alt or unquote(src)}")
    if in_link:
        return [text]
    opener = Token("link_open", "a", 1)
    _set_link(opener, resolved if resolved and url_scheme(resolved) in SAFE_SCHEMES else None)
    return [opener, text, Token("link_close", opener.tag, -1)]


def _comment_end(text: str, start: int, end: int) -> int | None:
    """Where the HTML comment opening at ``start`` ends, within ``text[:end]``, or None if it is not
    closed there or is not one the page may hide.  ``<!-->`` and ``<!--->`` are empty ones
    (CommonMark's); any other ends at the first ``-->`` after its opener, as the audit's SK607 pairs
    them (``--!>``, which ends one in HTML, ends none here), and is hidden only when the audit reads
    it as written (:func:`_read_as_written`): a page hides no text the audit does not read as a comment's."""
    for empty in ("<!-->", "<!--->"):
        if text.startswith(empty, start, end):
            return start + len(empty)
    close = text.find("-->", start + 4, end)
    return None if close < 0 or not _read_as_written(text[start:close + 3]) else close + 3


def _read_as_written(comment: str) -> bool:
    """Whether the audit's folded copy of ``comment`` is ``comment`` as far as pairing goes: no
    character reference (``--&gt;``) and no character the audit removes or maps to ASCII (``--\u200b>``,
    a fullwidth ``>``), either of which would close it earlier there than on the page, the text
    after that closer read as shown while the page hides it."""
    return "&" not in comment and not unusual(comment)


def _outside_comments(text: str) -> str:
    """``text`` without its closed HTML comments, read once from the start."""
    parts: list[str] = []
    at = 0
    while (start := text.find("<!--", at)) >= 0 and (stop := _comment_end(text, start, len(text))) is not None:
        parts.append(text[at:start])
        at = stop
    parts.append(text[at:])
    return "".join(parts)


def _comment_inline(state: StateInline, silent: bool) -> bool:
    """The inline rule in place of markdown-it's raw HTML (off): an HTML comment alone, as an
    ``html_inline`` token.  Its closer is looked for only if the content holds one past the opener
    (else each opener would read on to the end)."""
    pos = state.pos
    if not state.src.startswith("<!--", pos, state.posMax):
        return False
    if not state.src.startswith(("<!-->", "<!--->"), pos) and state.html_terminator_last("-->") < pos + 4:
        return False
    stop = _comment_end(state.src, pos, state.posMax)
    if stop is None:
        return False
    if not silent:
        state.push("html_inline", "", 0).content = state.src[pos:stop]
    state.pos = stop
    return True


def _without_comments(tokens: Sequence[Token]) -> list[Token]:
    """An image's alt text ``tokens`` but their HTML comments, in the images nested there too:
    markdown-it writes an alt text's raw HTML as text."""
    kept = [token for token in tokens if not (token.type == "html_inline" and not _outside_comments(token.content))]
    for token in kept:
        if token.type == "image":
            token.children = _without_comments(token.children or [])
    return kept


def _escaped_html(renderer: object, tokens: Sequence[Token], idx: int, options: object, env: object) -> str:
    """Renderer rule for raw-HTML tokens: their text, escaped, but HTML comments, which show
    nothing (as on GitHub).  The parser makes such tokens of comments alone (raw HTML is off;
    an HTML block of comments runs to the end of its closer's line) and the anchors plugin's ``#``:
    every other character of a block is shown as written, an unclosed comment whole."""
    shown = _outside_comments(tokens[idx].content)
    return escapeHtml(shown) if shown.strip() else ""


def _fenced_code(code: str, lang: str, attrs: str) -> str:
    """markdown-it's ``highlight`` hook, used for the wrapper of a fenced block only: markdown-it
    takes a result that starts with ``<pre`` as the whole block, here its own markup (the code
    escaped, the language as its ``language-`` class) with the ``<pre>`` focusable."""
    lang_class = f' class="language-{escapeHtml(lang)}"' if lang else ""
    return f'<pre tabindex="0"><code{lang_class}>{escapeHtml(code)}</code></pre>'


def _list_item_open(renderer: object, tokens: Sequence[Token], idx: int, options: object, env: object) -> str:
    """Renderer rule for list items: a task item's checkbox as markdown-it writes it (disabled),
    plus its label: a screen reader announces "Completed task" or "Incomplete task", then the
    item's text."""
    token = tokens[idx]
    html = renderer.renderToken(tokens, idx, options, env)  # type: ignore[attr-defined]
    if not token.meta or "checked" not in token.meta:
        return html
    done = bool(token.meta["checked"])
    label, checked = ("Completed task", ' checked=""') if done else ("Incomplete task", "")
    return f'{html}<input class="task-list-item-checkbox" disabled="" type="checkbox" aria-label="{label}"{checked}> '


class MarkdownRenderer:
    """Renders skill bodies; one instance (one markdown-it parser) serves a whole build."""

    def __init__(self, targets: LinkTargets):
        self.targets = targets
        md = body_markdown(linkify=False, typographer=False, highlight=_fenced_code)
        md.enable("strikethrough")  # ``~~`` only (no strikethrough_single_tilde)
        md.validateLink = _any_link  # type: ignore[method-assign]
        md.inline.ruler.at("link", _bounded_tries(rules_inline.link, ("[",), "link", LINK_TRIES, scans=True))
        image = _counting_tokens_around(rules_inline.image)
        md.inline.ruler.at("image", _bounded_tries(image, ("![",), "link", LINK_TRIES, scans=True))
        md.inline.skipToken = _bounded_label_steps(md.inline.skipToken)  # type: ignore[method-assign]
        md.inline.ruler.at("html_inline", _comment_inline)
        md.inline.ruler.after("text", "skillsite_inline_budget", _past_inline_budget)  # text makes no token
        md.inline.ruler2.push("skillsite_inline_count", _count_inline_tokens)
        for name, marks in (("emphasis", ("*", "_")), ("strikethrough", ("~",))):
            rule = getattr(rules_inline, name).tokenize
            md.inline.ruler.at(name, _bounded_tries(rule, marks, name, EMPHASIS_TRIES, scans=False))
        anchors_plugin(md, min_level=1, max_level=6, slug_func=slugify, permalink=True,
                       permalinkSymbol="#", permalinkSpace=True)
        md.core.ruler.before("anchor", "skillsite_heading_ids", _heading_ids)
        md.core.ruler.push("skillsite_rules", _apply_rules)  # after "anchor": slugs from the source text
        md.add_render_rule("html_block", _escaped_html)
        md.add_render_rule("html_inline", _escaped_html)
        md.add_render_rule("list_item_open", _list_item_open)
        self.md = md

    def render(self, body: str, skill_id: str, knowledge: Mapping[str, str] | None = None) -> str:
        """The body's HTML, links resolved as seen from skill ``skill_id``'s page (control
        characters as U+FFFD: :func:`without_controls`); ``knowledge``: its links to the shared
        documents it publishes (:attr:`LinkTargets.knowledge`)."""
        return self.render_noting(body, skill_id, knowledge)[0]

    def render_noting(self, body: str, skill_id: str, knowledge: Mapping[str, str] | None = None
                      ) -> tuple[str, Asked]:
        """:meth:`render`, and what its links asked of the catalog's link targets: the HTML is the
        same for any targets that answer those questions the same (a build that adds a skill
        elsewhere need not render this body again)."""
        asked: set[tuple[str, str]] = set()
        targets = replace(self.targets, knowledge=knowledge or self.targets.knowledge, asked=asked)
        html = without_controls(self.md.render(body, {"skill_id": skill_id, "targets": targets}))
        return html, tuple(sorted(asked))


def without_controls(text: str) -> str:
    """``text`` with every character HTML reads as a control character replaced by U+FFFD
    (SK213 tells the author the outputs replace them)."""
    return _HTML_CONTROLS.sub("\ufffd", text)
