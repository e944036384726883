"""Relative links and file references in a skill's body: each must point at a file published
with the skill (or at another skill), never outside the skill folder.

Two kinds of targets are found outside code (fenced blocks and inline code spans): Markdown
links ``[text](target)`` (and ``[text][ref]`` with ``[ref]: target``), and file references
written as inline code, such as ``scripts/check.py``.  This scanner is deliberately lighter than
a Markdown parser (a full parse of every body would make ``validate`` several times slower):
markdown-it-py reads the blocks of a body that may define a link by reference (one holding
``]:``) or whose fences it may read otherwise (in a list item or a quote); the page renderer
parses every body with it and resolves the same links on its own.
"""
from __future__ import annotations

import bisect
import os
import posixpath
import re
import stat
from typing import Iterable, Iterator, Sequence
from urllib.parse import unquote

from markdown_it.common.utils import unescapeAll
from markdown_it.helpers import parseLinkDestination, parseLinkTitle
from markdown_it.token import Token

from skillsite.diagnostics import Diagnostic, make
from skillsite.models import ParsedSkill, SourceFile
from skillsite.source.body_code import Body, Span, code_spans, fenced_blocks, fences_may_differ, outside, within
from skillsite.source.discover import inside_folder
from skillsite.source.knowledge import knowledge_links, link_from
from skillsite.source.markdown_blocks import block_parser

#: What pairs a link's brackets: a bracket, or a backslash and the bracket or backslash it escapes
#: (an escaped bracket is no bracket; what other escapes hold is no bracket either).
_BRACKET_OR_ESCAPE = re.compile(r"\\[\\\[\]]|[\[\]]")


_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_FILE_REF = re.compile(r"^(?:\./)?(?:scripts|references|assets)/[\w.@/-]+$")
_REF_HINT = re.compile(r"`\s*(?:\./)?(?:scripts|references|assets)/")
#: A carriage return that ends a line by itself (classic Mac line ends), as markdown-it reads it.
_LONE_CR = re.compile("\r(?!\n)")
_WINDOWS_ABSOLUTE = re.compile(r"^[A-Za-z]:[\\/]")
#: What a SK303 message says between its target and what the file system holds there (no reason says it).
_POINTS_TO = " points to "


def _file_references(body: Body) -> Iterator[tuple[int, int, str, bool]]:
    """File references written as inline code (``scripts/x.py``), outside fenced blocks."""
    lines_seen: set[int] = set()
    for hint in _REF_HINT.finditer(body.text):
        if within(body.fences, hint.start()):
            continue
        start, end = body.line_of(hint.start())
        if start in lines_seen:
            continue
        lines_seen.add(start)
        for span_start, span_end in body.spans(start, end):
            quoted = body.text[span_start:span_end].strip("`").strip()
            if _FILE_REF.match(quoted):
                yield (*body.place(span_start), quoted, False)


def _links(body: Body) -> Iterator[tuple[int, str]]:
    """(start, raw target) of the Markdown links of ``body``, in order: each bracket paired with
    its closing one in one pass, as markdown-it pairs them (nested at any depth, escaped ones
    left out), then what follows a ``](`` read by :func:`_inline_target`.  Every bracket is
    looked at, even inside a link: a link in another's text is the one markdown-it renders (a
    link holds no link), and a "link" the renderer does not see (in code, or crossing a block)
    may hold real ones in its title."""
    for start, opening in sorted(_labels(body)):
        target = _inline_target(body.text, opening)
        if target is not None:
            yield start, target


def _labels(body: Body) -> set[tuple[int, int]]:
    """(place of the ``[``, place after the ``(``) of each bracket pair of ``body`` followed by
    ``(``, paired within each paragraph that holds a ``](`` (a link's text ends at a blank line).
    A paragraph that holds a backtick is paired again without the brackets in its code spans, its
    backticks paired across its lines, then line by line (a heading, a list item's first line or
    the last line of a paragraph markdown-it cut is inline content of its own), and every pairing
    counts: a span binds tighter than a link's brackets (``[a `]` b](x)`` is a link to x), but
    markdown-it pairs no backtick an autolink or a nested image's target holds, which this
    scanner does not look for."""
    text = body.text
    labels: set[tuple[int, int]] = set()
    for first, last in _paragraphs_with(text, "]("):
        labels.update(_paired(text, first, last))
        if text.find("`", first, last) >= 0:
            for pieces in ([(first, last)], _lines(body, first, last)):
                code = [(start + a, start + b) for start, end in pieces for a, b in code_spans(text[start:end])]
                labels.update(_paired(text, first, last, code))
    return labels


def _lines(body: Body, first: int, last: int) -> list[Span]:
    """(start, end) of each line of ``body.text[first:last]``, from the line breaks the body found."""
    breaks = body.breaks[bisect.bisect_left(body.breaks, first):bisect.bisect_left(body.breaks, last)]
    return list(zip([first] + [at + 1 for at in breaks], breaks + [last]))


def _paired(text: str, first: int, last: int, code: list[Span] | None = None) -> Iterator[tuple[int, int]]:
    """The labels of :func:`_labels` in ``text[first:last]``, the brackets in ``code`` left out."""
    opened: list[int] = []
    for found in _BRACKET_OR_ESCAPE.finditer(text, first, last):
        bracket = found.group()
        if code and len(bracket) == 1 and within(code, found.start()):
            continue
        if bracket == "[":
            opened.append(found.start())
        elif bracket == "]" and opened:
            start = opened.pop()
            if text.startswith("(", found.end()):
                yield start, found.end() + 1


#: A blank line: where a paragraph ends.
_BLANK_LINE = re.compile(r"\n[ \t\r]*\n")


def _paragraphs_with(text: str, needle: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each run of text between blank lines that holds ``needle``."""
    cuts = [(blank.start(), blank.end()) for blank in _BLANK_LINE.finditer(text)]
    ends = [start for start, _ in cuts]
    at = text.find(needle)
    while at >= 0:
        index = bisect.bisect_right(ends, at)
        first = cuts[index - 1][1] if index else 0
        last = cuts[index][0] if index < len(cuts) else len(text)
        yield first, last
        at = text.find(needle, last)


#: What markdown-it's link rule skips around a target and its title: spaces and tabs, and one line
#: end with the blockquote markers of the next line (its paragraph goes on there; a blank line ends it).
_LINK_SPACE = r"[ \t]*(?:\r?\n[ \t]*(?:>[ \t]*)*)?"


#: A target markdown-it's helpers would read the same way, and the link's end: no parenthesis,
#: backslash, space or control character in it, nor ``<`` first, then maybe spaces and ``)``.
_PLAIN_TARGET = re.compile(r"([^\x00-\x20\x7f()\\<][^\x00-\x20\x7f()\\]*)" + _LINK_SPACE + r"\)")
_SPACE = re.compile(_LINK_SPACE)


def _skip_space(text: str, at: int) -> int:
    return _SPACE.match(text, at).end()


def _inline_target(text: str, opening: int) -> str | None:
    """The raw target of the inline link whose ``(`` ends at ``opening``: its destination, maybe a
    title, and its ``)``, read by markdown-it's own helpers as its link rule reads them (nested and
    escaped parentheses, ``<…>``, a no-break space inside a target); None when that is no link
    (``[a](references/my file.md)``)."""
    start = _skip_space(text, opening)
    plain = _PLAIN_TARGET.match(text, start)
    if plain is not None:  # most links: a target of no parenthesis nor backslash, then ')'
        return plain.group(1)
    destination = parseLinkDestination(text, start, len(text))
    if not destination.ok:
        return None
    end = after = _skip_space(text, destination.pos)
    if after > destination.pos and (title := parseLinkTitle(text, after, len(text))).ok:
        end = _skip_space(text, title.pos)
    return text[start:destination.pos] if text.startswith(")", end) else None


def _relative(target: str) -> bool:
    """Whether a target is a relative path: no scheme, no fragment alone, no host (``//``)."""
    return not (_SCHEME.match(target) or target.startswith(("#", "//")))


def _relative_links(body: Body) -> Iterator[tuple[int, int, str, bool]]:
    """Markdown links with a relative target, outside code."""
    for start, target in _links(body):
        if target.startswith("<"):
            target = target[1:-1]
        # escapes and entities decoded in one pass, as markdown-it reads a target ('\\../..' is
        # '../..', '\\&#46;' is '&#46;'), then trimmed as its link normaliser trims it (a no-break
        # space at its end)
        target = unescapeAll(target).strip()
        if _relative(target) and not body.in_code(start):
            yield (*body.place(start), target, True)


def _definitions(body: Body, blocks: Sequence[Token]) -> Iterator[tuple[int, int, str, bool]]:
    """Link reference definitions (``[guide]: references/guide.md``, which ``[the guide][guide]``
    uses), placed where they are written: ``blocks`` are the body's blocks as markdown-it reads
    them for the renderer, so one in code, or ``[Ask]: a question``, is none.  A definition no
    link uses is reported too: an agent reads the body as written."""
    for token in blocks:
        if token.type == "definition" and token.map:
            target = token.meta["url"]  # escapes and entities decoded, then percent-encoded
            if _relative(target):
                line_start = body.lines_of(token)[0]
                yield token.map[0], _label_start(body.text, line_start) - line_start + 1, target, True


#: What stands before a definition's label on its first line: quote and list markers, task
#: items' boxes (markdown-it reads '- [ ] > [d]: x' as a task item holding a quote holding the
#: definition '[d]: x'), and the spaces between them.
_BEFORE_LABEL = re.compile(r"(?:[ \t]*(?:>|[-+*](?=[ \t])|[0-9]{1,9}[.)](?=[ \t])|\[[ xX]\](?=[ \t])))*[ \t]*")


def _label_start(text: str, line_start: int) -> int:
    """Where the label of the definition that begins on the line at ``line_start`` opens: after
    the markers and boxes its line starts with (no definition's label is a box: one is followed
    by a colon)."""
    at = _BEFORE_LABEL.match(text, line_start).end()
    return at if text.startswith("[", at) else text.index("[", line_start)


def iter_body_links(body: str) -> Iterator[tuple[int, int, str, bool]]:
    """(line offset, column, target, is_link) of file references, then relative links (inline,
    then by reference), outside code."""
    has_refs = "`" in body and any(folder in body for folder in ("scripts/", "references/", "assets/"))
    may_define = "]:" in body
    if not has_refs and "](" not in body and not may_define:
        return
    # as markdown-it reads them, one character for one (no offset moves): a carriage return
    # alone ends a line, and NUL is U+FFFD ('[a](../x\0)' is a link)
    if "\r" in body:
        body = _LONE_CR.sub("\n", body)
    if "\0" in body:
        body = body.replace("\0", "\ufffd")
    fences = fenced_blocks(body) if ("```" in body or "~~~" in body) else []
    # markdown-it reads the blocks when it may read the fences otherwise, or to find the
    # definitions (a definition is no code: where the fences are read alike, a ']:' in them is none)
    read_blocks = fences_may_differ(body, fences) or may_define and outside(fences, body, "]:")
    blocks = block_parser().parse(body, {}) if read_blocks else None
    scanned = Body(body, fences, blocks)
    if has_refs:
        yield from _file_references(scanned)
    yield from _relative_links(scanned)
    if blocks is not None:
        yield from _definitions(scanned, blocks)


class _SkillFolder:
    """What a body's relative targets may name: the skill's own files and folders, and other skills."""

    def __init__(self, src: SourceFile, skill_dirs: frozenset[tuple[str, str]], knowledge_dir: str | None = None,
                 declared: Iterable[str] = ()):
        self.src = src
        # the knowledge folder as a link from the skill's folder names it, and the links to the
        # shared documents the skill declares
        self.knowledge_folder = link_from(src.dir, knowledge_dir) if knowledge_dir is not None else None
        self.knowledge = frozenset(declared)
        self.root = str(src.root)
        self.rel = posixpath.dirname(src.rel_path)
        self.skill_dirs = skill_dirs
        #: each folder (relative to the root) asked about, and whether it is a skill's: what the
        #: check read of the rest of the catalog (see :func:`skills_answer_alike`)
        self.asked: dict[str, bool] = {}
        self.files = {f.path for f in src.files}
        self.dirs = {posixpath.dirname(p) for p in self.files}
        while "" not in self.dirs and self.dirs:
            self.dirs |= {posixpath.dirname(d) for d in self.dirs}

    def is_skill(self, rel_in_root: str) -> bool:
        """Whether a path relative to the root is a skill folder (or its SKILL.md)."""
        folder = rel_in_root[:-len("/SKILL.md")] if rel_in_root.endswith("/SKILL.md") else rel_in_root
        answer = self.asked[folder] = (self.root, folder) in self.skill_dirs
        return answer

    def in_root(self, target: str) -> str:
        return posixpath.normpath(posixpath.join(self.rel, target)) if self.rel else posixpath.normpath(target)

    def holds(self, inside: str) -> bool:
        """Whether a normalised path inside the skill folder is published with it (or is a nested skill)."""
        return inside in self.files or inside in self.dirs or inside == "SKILL.md" or self.is_skill(
            posixpath.join(self.rel, inside) if self.rel else inside)


#: How public skills name their own folder at the start of a path, for the agent to replace when it
#: reads them (``[guide]({baseDir}/references/guide.md)``): a path inside the skill folder.
SKILL_DIR_PLACEHOLDERS = ("{baseDir}", "${CLAUDE_SKILL_DIR}")


def inside_skill_dir(path: str) -> str:
    """``path`` with a leading :data:`SKILL_DIR_PLACEHOLDERS` folder taken as the skill folder
    (``{baseDir}/x.md``: ``x.md``; ``{baseDir}``: ``.``); any other path as it is."""
    for placeholder in SKILL_DIR_PLACEHOLDERS:
        if path.startswith(placeholder) and path[len(placeholder):len(placeholder) + 1] in ("", "/"):
            return path[len(placeholder) + 1:] or "."
    return path


def _local_target(target: str) -> str | None:
    """The file path a link (its escapes and entities decoded) or a reference names, or None
    when it is not a local file."""
    if not _relative(target):
        return None
    return unquote(target.split("#", 1)[0].split("?", 1)[0]) or None


def _target_problem(written: str, is_link: bool, folder: _SkillFolder) -> tuple[str, str] | None:
    """(code, message) when a local target is absolute, leaves the skill folder or is missing
    (named as ``written``, its folder placeholder taken as the skill folder: :func:`inside_skill_dir`)."""
    target = inside_skill_dir(written)
    if target.startswith("/") or _WINDOWS_ABSOLUTE.match(target):
        return "SK305", f"link to absolute path '{written}'; file references must be relative to the skill folder"
    inside = _inside(written, folder)
    if inside == "." or inside.endswith("/."):
        return None
    if inside != posixpath.normpath(target) and folder.holds(inside):
        return "SK304", (f"link '{written}' leaves the skill folder and comes back by its folder's name, which an "
                         f"install or a catalog may change; write '{inside}'")
    if inside == ".." or inside.startswith("../"):
        if folder.is_skill(folder.in_root(target)) or inside in folder.knowledge:
            return None  # a link to another skill, or to a knowledge document: the catalog links its page
        hint = ""
        if folder.knowledge_folder is not None and inside.startswith(folder.knowledge_folder + "/"):
            hint = " (a shared knowledge document is published when the skill lists it under 'knowledge')"
        return "SK304", f"link '{written}' leaves the skill folder; it is not published with the skill{hint}"
    if folder.holds(inside):
        return None
    reason = _unpublished(os.path.join(folder.src.dir, inside), str(folder.src.dir))
    return "SK303", f"{'link' if is_link else 'file reference'} '{written}'{_POINTS_TO}{reason}"


def _inside(written: str, folder: _SkillFolder) -> str:
    """The path inside the skill folder a target names (normalised, its placeholder read as the
    folder, coming back by the folder's name read as staying), or a path leaving it."""
    return _back_inside(posixpath.normpath(inside_skill_dir(written)), folder)


def _back_inside(inside: str, folder: _SkillFolder) -> str:
    """A target that leaves the skill folder only to come back into it (``../plain/x.md`` in the
    skill ``plain``), as the path inside it that it names; any other target as it is."""
    if not inside.startswith("../") or not folder.rel:
        return inside
    rooted = folder.in_root(inside)
    return rooted[len(folder.rel) + 1:] if rooted.startswith(folder.rel + "/") else inside


def _unpublished(path: str, skill_dir: str) -> str:
    """Why a target in the skill folder is not published with it: what is there, if anything."""
    if not os.path.lexists(path):
        return "a file that does not exist in the skill folder"
    if not inside_folder(os.path.realpath(path), os.path.realpath(skill_dir)):
        return "a file that is not published with the skill (a symlink leaving the skill folder)"
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return "a file that does not exist in the skill folder"
    if stat.S_ISDIR(mode):
        return "a folder with no file published with the skill"
    if stat.S_ISREG(mode):
        return ("a file that is not published with the skill (ignored, excluded, in a skipped folder or in a "
                "nested skill)")
    return "a file that is not published with the skill (a pipe, socket or device)"


#: Where a link names a missing file (SK303), to look at again without reading the body: its
#: target as written, whether it is a link (else a file reference), its line and column.
MissingTarget = tuple[str, bool, int, int]
#: The folders a skill's links asked about (relative to its root), each with whether it was a
#: skill's, sorted: all a check of its links reads of the other skills of the catalog.
SkillsAsked = tuple[tuple[str, bool], ...]


def link_diagnostics(parsed: ParsedSkill, skill_dirs: frozenset[tuple[str, str]],
                     knowledge_dir: str | None = None) -> list[Diagnostic]:
    """Relative links and file references that point at missing files or leave the skill folder.

    ``skill_dirs`` holds (root, folder relative to the root) of every skill of the catalog;
    ``knowledge_dir``: where the shared knowledge documents are (a link to one the skill declares
    is the catalog's copy of it).
    """
    return checked_links(parsed, skill_dirs, knowledge_dir)[0]


def checked_links(parsed: ParsedSkill, skill_dirs: frozenset[tuple[str, str]], knowledge_dir: str | None = None
                  ) -> tuple[list[Diagnostic], tuple[MissingTarget, ...], SkillsAsked]:
    """:func:`link_diagnostics`, the targets of its SK303 warnings (in their order): what
    :func:`missing_again` looks at, and what it asked of ``skill_dirs``: the same diagnostics
    hold for any other skills that answer those alike (:func:`skills_answer_alike`)."""
    folder: _SkillFolder | None = None  # made at the first local target
    diags, missing = [], []
    for offset, col, raw_target, is_link in iter_body_links(parsed.body):
        target = _local_target(raw_target)
        if target is None:
            continue
        if folder is None:
            folder = _SkillFolder(parsed.source, skill_dirs, knowledge_dir, _declared_links(parsed, knowledge_dir))
        problem = _target_problem(target, is_link, folder)
        if problem is not None:
            col += parsed.body_column - 1 if offset == 0 else 0   # the body's first line may start after '---'
            diags.append(make(problem[0], problem[1], parsed.source.display_path, parsed.body_line + offset, col))
            if problem[0] == "SK303":
                missing.append((target, is_link, diags[-1].line, col))
    return diags, tuple(missing), tuple(sorted(folder.asked.items())) if folder is not None else ()


def skills_answer_alike(src: SourceFile, skill_dirs: frozenset[tuple[str, str]], asked: SkillsAsked) -> bool:
    """Whether ``skill_dirs`` gives the answers a check of ``src``'s links had (``asked``): then
    that check holds with these skills too (a skill added elsewhere in the catalog changes none)."""
    root = str(src.root)
    return all(((root, folder) in skill_dirs) == answer for folder, answer in asked)


def _declared_links(parsed: ParsedSkill, knowledge_dir: str | None) -> Iterable[str]:
    """How links from the skill's folder name the shared knowledge documents it declares."""
    declared = (parsed.frontmatter or {}).get("knowledge")
    if not isinstance(declared, list) or knowledge_dir is None:
        return ()
    return knowledge_links(declared, parsed.source.dir, knowledge_dir)


def missing_again(src: SourceFile, skill_dirs: frozenset[tuple[str, str]], missing: tuple[MissingTarget, ...]
                  ) -> list[tuple[int, int, str]] | None:
    """Where and how each SK303 target of a skill reads now, in order (as the check would word
    it: what the file system holds there may have changed); None when one is no longer missing."""
    folder = _SkillFolder(src, skill_dirs)
    found = []
    for target, is_link, line, col in missing:
        problem = _target_problem(target, is_link, folder)
        if problem is None or problem[0] != "SK303":
            return None
        found.append((line, col, make("SK303", problem[1], src.display_path).message))
    return sorted(found)


#: A SK303 target as a rebuild with nothing to read looks at it again (:func:`places_as_said`):
#: the skill folder, the target's path on the file system, and what its warning said is there.
MissingPlace = tuple[str, str, str]


def missing_places(src: SourceFile, skill_dirs: frozenset[tuple[str, str]], missing: tuple[MissingTarget, ...],
                   diagnostics: Sequence[Diagnostic]) -> list[MissingPlace]:
    """Where each SK303 target of a skill (``missing``, as :func:`checked_links` gave them) lies,
    and what its warning among ``diagnostics`` said is there: what no input of a build covers (an
    empty folder appearing there is no file of the skill).  A target without its warning is left out."""
    said = {(d.line, d.col): d.message for d in diagnostics if d.code == "SK303"}
    folder, places = _SkillFolder(src, skill_dirs), []
    for target, _, line, col in missing:
        if (line, col) in said:
            inside = _inside(target, folder)
            reason = said[line, col].rsplit(_POINTS_TO, 1)[-1]
            places.append((str(src.dir), os.path.join(src.dir, inside), reason))
    return places


def places_as_said(places: Iterable[MissingPlace]) -> bool:
    """Whether each place still holds what its SK303 warning said it holds."""
    return all(_unpublished(path, folder) == reason for folder, path, reason in places)
