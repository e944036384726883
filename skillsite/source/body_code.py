"""Where a Markdown body's code is, as markdown-it reads it: fenced and indented code blocks
and inline code spans, for the scans that pass over code (:mod:`skillsite.source.links`).

The fences are paired here, line by line, and the backticks of a line; a body whose fences
markdown-it may read otherwise (in a list item or a quote: :func:`fences_may_differ`) has its
blocks read by markdown-it's own block rules, and a span a line's backticks make is checked
against its paragraph as those rules read it.
"""
from __future__ import annotations

import bisect
import re
from typing import Sequence

from markdown_it.token import Token

from skillsite.source.markdown_blocks import block_parser

Span = tuple[int, int]  # (start, end) offsets in a body

_TICKS = re.compile(r"`+")
_LINE_BREAK = re.compile("\n")
# one pattern per fence character: a pattern that starts with a literal is searched far faster
_FENCE_RUNS = (re.compile("```+"), re.compile("~~~+"))


def _fence_lines(body: str) -> list[tuple[int, int, str]]:
    """(line start, line end, marker) of every line that may open or close a fence: a run of
    three or more backticks or tildes after at most three spaces (no backtick after backticks)."""
    lines = []
    for run in (run for pattern in _FENCE_RUNS for run in pattern.finditer(body)):
        at = run.start()
        # at most three spaces before the run: its line starts within the four characters before
        line_start = body.rfind("\n", max(0, at - 4), at) + 1
        if (not line_start and at > 3) or body[line_start:at].strip(" "):
            continue
        line_end = body.find("\n", at)
        line_end = len(body) if line_end < 0 else line_end
        if run.group()[0] == "`" and body.find("`", run.end(), line_end) >= 0:
            continue  # a backtick after a run of them: no fence (an info string holds none), a code span maybe
        lines.append((line_start, line_end, run.group()))
    return sorted(lines)


def fenced_blocks(body: str) -> list[Span]:
    """The fenced code blocks of a body, in order; an unclosed fence runs to the end."""
    blocks: list[Span] = []
    opening: tuple[int, int, str] | None = None
    for line_start, line_end, marker in _fence_lines(body):
        if opening is None:
            opening = (line_start, line_end, marker)
            continue
        closes = marker[0] == opening[2][0] and len(marker) >= len(opening[2])
        # after a closing marker, only spaces and tabs (a no-break space makes the line no close)
        if closes and not body[line_start:line_end].lstrip(" ")[len(marker):].strip(" \t\r"):
            blocks.append((opening[0], line_end))
            opening = None
    if opening is not None:
        blocks.append((opening[0], len(body)))
    return blocks


def code_spans(line: str) -> list[Span]:
    """The inline code spans of one line, as markdown-it finds them: a run of n backticks closed
    by the next run of exactly n.  A backslash before a run escapes its first backtick (the rest
    of the run may open a span); inside a span a backslash is text, so a closing run has none."""
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(line)]
    runs_of_length: dict[int, list[int]] = {}
    for index, (start, end) in enumerate(runs):
        runs_of_length.setdefault(end - start, []).append(index)
    spans, index = [], 0
    while index < len(runs):
        start, end = runs[index]
        start += _backslashes_before(line, start) % 2
        closer = _next_run(runs_of_length.get(end - start, ()), index)
        if start == end or closer is None:
            index += 1
            continue
        spans.append((start, runs[closer][1]))
        index = closer + 1
    return spans


def _backslashes_before(line: str, at: int) -> int:
    """How many backslashes stand right before ``at``."""
    first = at
    while first and line[first - 1] == "\\":
        first -= 1
    return at - first


def _next_run(indexes: Sequence[int], index: int) -> int | None:
    """The first of ``indexes`` (ascending) after ``index``, or None."""
    found = bisect.bisect_right(indexes, index)
    return indexes[found] if found < len(indexes) else None


def within(spans: list[Span], offset: int) -> bool:
    """Whether ``offset`` falls inside one of ``spans`` (sorted, not overlapping)."""
    return _span_at(spans, offset) is not None


def _span_at(spans: list[Span], offset: int) -> Span | None:
    """The one of ``spans`` (sorted, not overlapping) that ``offset`` falls inside, if any."""
    index = bisect.bisect_right(spans, (offset, float("inf"))) - 1
    return spans[index] if index >= 0 and spans[index][1] > offset else None


#: A pipe no backslash escapes.
_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


class Body:
    """A body with its fenced code blocks worked out, for placing what the scans find.

    Line breaks are found once and each line's code spans once, so a body of thousands of links
    on one line costs time in proportion to its length."""

    def __init__(self, body: str, fences: list[Span], blocks: Sequence[Token] | None = None):
        self.text = body
        self.breaks = [match.start() for match in _LINE_BREAK.finditer(body)]
        #: the body's code blocks: markdown-it's fenced and indented ones when ``blocks`` (its
        #: block tokens) are given, else the ``fences`` this scanner paired
        self.fences = self._code_blocks(blocks) if blocks is not None else fences
        self.has_code_spans = "`" in body
        self._spans: dict[Span, list[Span]] = {}
        self._piped: dict[Span, bool] = {}
        self._blocks = blocks
        self._lines_of_kind: dict[str, list[Span]] = {}

    def _code_blocks(self, blocks: Sequence[Token]) -> list[Span]:
        """(start, end) of the lines of each fenced or indented code block among ``blocks``."""
        return [self.lines_of(token) for token in blocks if token.type in ("fence", "code_block") and token.map]

    def lines_of(self, token: Token) -> Span:
        """(start, end) of the lines of a block token."""
        first, last = token.map[0], token.map[1] - 1  # type: ignore[index]
        start = self.breaks[first - 1] + 1 if first else 0
        return start, self.breaks[last] if last < len(self.breaks) else len(self.text)

    def line_of(self, offset: int) -> tuple[int, int]:
        """(line start, line end) of the line holding ``offset``."""
        index = bisect.bisect_left(self.breaks, offset)
        start = self.breaks[index - 1] + 1 if index else 0
        return start, self.breaks[index] if index < len(self.breaks) else len(self.text)

    def place(self, offset: int) -> tuple[int, int]:
        """(lines before ``offset``, 1-based column of it)."""
        index = bisect.bisect_left(self.breaks, offset)
        return index, offset - (self.breaks[index - 1] if index else -1)

    def spans(self, start: int, end: int) -> list[Span]:
        """The inline code spans of ``text[start:end]`` (a line, or a paragraph's lines paired
        across them), as offsets in the body."""
        if (start, end) not in self._spans:
            self._spans[start, end] = [(start + a, start + b) for a, b in code_spans(self.text[start:end])]
        return self._spans[start, end]

    def _block_lines(self, kind: str) -> list[Span]:
        """(start, end) of the lines of each block token of ``kind`` (``inline``, ``tr_open``), as
        markdown-it's block rules read the body (read once)."""
        if kind not in self._lines_of_kind:
            if self._blocks is None:
                self._blocks = block_parser().parse(self.text, {})
            self._lines_of_kind[kind] = sorted({self.lines_of(token) for token in self._blocks
                                                if token.type == kind and token.map})
        return self._lines_of_kind[kind]

    def paragraph_of(self, offset: int) -> Span | None:
        """(start, end) of the lines of the inline content holding ``offset`` (a paragraph, a
        heading, a table row), as markdown-it's block rules read the body; None where it holds
        none (code, say)."""
        return _span_at(self._block_lines("inline"), offset)

    def in_code(self, offset: int) -> bool:
        """Whether ``offset`` is inside a fenced block or an inline code span.  The backticks of a
        line are paired first; where they put ``offset`` in a span, those of its paragraph are, as
        markdown-it pairs them across its lines (a span may open on the line before), with the
        paragraphs of markdown-it's block rules: in code only where both agree.  A span holding an
        unescaped pipe in a table's row is none (a table splits its cells at a pipe before it pairs
        backticks); in a paragraph, pipe and all, it is code."""
        if within(self.fences, offset):
            return True
        if not self.has_code_spans:  # known once: asked for each link, a search of the body each time
            return False
        span = _span_at(self.spans(*self.line_of(offset)), offset)
        if span is None or self._holds_pipe(span) and within(self._block_lines("tr_open"), offset):
            return False
        paragraph = self.paragraph_of(offset)
        return paragraph is None or within(self.spans(*paragraph), offset)

    def _holds_pipe(self, span: Span) -> bool:
        """Whether a code span holds a pipe no backslash escapes (looked at once a span)."""
        if span not in self._piped:
            self._piped[span] = _UNESCAPED_PIPE.search(self.text, *span) is not None
        return self._piped[span]


def outside(spans: list[Span], text: str, needle: str) -> bool:
    """Whether ``needle`` occurs in ``text`` outside ``spans`` (sorted, not overlapping)."""
    at = text.find(needle)
    while at >= 0:
        span = _span_at(spans, at)
        if span is None:
            return True
        at = text.find(needle, span[1])
    return False


#: What stands before a fence marker inside a list item or a quote: indentation, '>' and list markers.
_CONTAINER_INDENT = frozenset(" \t>-*+.)0123456789")
#: A line (after the first) with fewer than 1, 2 or 3 spaces before its text: one that may end
#: the list item a fence indented that far is in.
_LESS_INDENTED = tuple(re.compile(r"\n {0,%d}[^ \n]" % (indent - 1)) for indent in (1, 2, 3))
_SPACES = re.compile(" *")


def fences_may_differ(body: str, fences: Sequence[Span]) -> bool:
    """Whether markdown-it may read the body's fences otherwise than this scanner pairs them
    (``fences``), so that text the scanner takes for code would be read as text: a fence marker
    after a tab, a '>', a list marker or four spaces (in a quote or a list item, which the
    scanner does not see), a fence line holding a pipe (a table's header, maybe), or a line
    indented less than its fence's opening marker before the fence closes (a list item that
    ends, and its fence with it).  Any other fence is read alike by both."""
    for run in (run for pattern in _FENCE_RUNS for run in pattern.finditer(body)):
        start = run.start()
        while start and body[start - 1] in _CONTAINER_INDENT:
            start -= 1
        if start and body[start - 1] != "\n":
            continue  # no fence: text before it on its line
        prefix = body[start:run.start()]
        if len(prefix) > 3 or prefix.strip(" "):
            return True
        line_end = body.find("\n", run.end())
        if body.find("|", run.end(), len(body) if line_end < 0 else line_end) >= 0:
            return True
    for start, end in fences:
        indent = _SPACES.match(body, start).end() - start
        if indent and _LESS_INDENTED[indent - 1].search(body, start, end):
            return True
    return False
