"""README.md and the pages of docs/ as the tests read them: their code blocks, links and headings.

Imported as ``doc_pages`` (``tests/`` is on the path through its conftest).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from markdown_it import MarkdownIt

from support import REPO

#: Every page a user reads: the front door and the reference pages it links to.
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]

_PARSER = MarkdownIt("commonmark").enable("table")


@dataclass(frozen=True)
class Block:
    """One code block of a page: its language (``indented`` for an indented block) and text."""

    page: Path
    line: int
    lang: str
    text: str

    def where(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    """The page's code blocks, in order."""
    found = []
    for token in _PARSER.parse(page.read_text(encoding="utf-8")):
        if token.type in ("fence", "code_block"):
            lang = token.info.split()[0] if token.type == "fence" and token.info.strip() else (
                "indented" if token.type == "code_block" else "")
            found.append(Block(page, token.map[0] + 1 if token.map else 0, lang, token.content))
    return found


def links(page: Path) -> list[tuple[int, str]]:
    """Each link and image of the page: (line, target as written)."""
    found = []
    for token in _PARSER.parse(page.read_text(encoding="utf-8")):
        for child in token.children or ():
            target = child.attrGet("href") if child.type == "link_open" else (
                child.attrGet("src") if child.type == "image" else None)
            if target:
                found.append((token.map[0] + 1 if token.map else 0, str(target)))
    return found


def anchors(page: Path) -> set[str]:
    """The fragments GitHub gives the page's headings (github-slugger: lower-cased, punctuation
    dropped, spaces made hyphens; a repeated slug gets -1, -2, ...)."""
    tokens = _PARSER.parse(page.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    for opening, inline in zip(tokens, tokens[1:]):
        if opening.type != "heading_open":
            continue
        text = "".join(child.content for child in inline.children or () if child.type in ("text", "code_inline"))
        slug = github_slug(text)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        if count:
            seen[f"{slug}-{count}"] = 1
    return set(seen)


def github_slug(text: str) -> str:
    """A heading's fragment as GitHub writes it."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def link_problem(page: Path, target: str) -> str | None:
    """Why a relative link of ``page`` leads nowhere (None when it leads to a file and heading
    that exist); links with a scheme are left to their hosts."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
        return None
    path, _, fragment = target.partition("#")
    destination = (page.parent / unquote(path)).resolve() if path else page
    if not destination.is_relative_to(REPO):
        return f"{target}: leaves the repository"
    if not destination.exists():
        return f"{target}: no such file"
    if fragment and destination.suffix == ".md" and unquote(fragment) not in anchors(destination):
        return f"{target}: {destination.name} has no heading #{fragment}"
    return None
