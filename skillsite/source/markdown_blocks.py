"""How skillsite reads a body's Markdown blocks, shared by the page renderer and the link
scanner: CommonMark with GitHub's tables, each body's tables bounded in cells and its blocks in
tokens."""
from __future__ import annotations

import functools
from typing import Any, Callable

from markdown_it import MarkdownIt, rules_block
from markdown_it.rules_block import StateBlock

#: How many cells a body's tables may hold in all: markdown-it fills each short row's missing
#: cells (up to 65,536 a table), so a row of two bytes made hundreds of cells, and a 15 KB body
#: took 9 s and 770 MB to render.  The rows past them are read as text.
TABLE_CELLS = 0x10000
#: Where a parse's environment counts the table cells made so far.
_CELLS_MADE = "skillsite table cells"
#: Where it counts the tokens of link reference definitions made so far.
_DEFINITIONS_MADE = "skillsite definition tokens"

#: How many block tokens a body may make (an empty heading makes three, a paragraph three, a
#: table row two and two more per cell): markdown-it makes them from a few bytes each and each
#: costs time and memory to hold, fill and render, so a 1 MiB body of empty headings took 22 s
#: and 1.6 GB.  The lines past them are shown as one block of text.  The corpus's largest
#: document makes 5,913.
BLOCK_TOKENS = 0x20000

#: How many lines a body's paragraphs, setext headings, link reference definitions and quotes
#: may hold in all (a quote's lines count again in what it holds): markdown-it asks each of their
#: lines whether a block starts there (seven rules), a paragraph's twice (first looking for a
#: heading's underline), a quote's again at each level it is nested in, so one paragraph of a
#: 1 MiB body of one-letter lines took 5 s to read, and in 19 nested quotes 38 s.  The lines past
#: them are shown as one block of text, as past :data:`BLOCK_TOKENS`.  The corpus's document
#: whose blocks hold the most holds 1,082.
PARAGRAPH_LINES = 0x10000
#: Where a parse's environment counts the lines its paragraphs held so far, and the quotes open.
_PARAGRAPH_LINES = "skillsite paragraph lines"
_QUOTES_OPEN = "skillsite quotes open"

BlockRule = Callable[[StateBlock, int, int, bool], bool]


def bounded_tables(table_rule: BlockRule = rules_block.table) -> BlockRule:
    """markdown-it's table rule, given only as many rows as :data:`TABLE_CELLS` leaves room for
    (each as wide as the delimiter row's pipes allow): the rows past them are read as text."""
    def table(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
        made = state.env.get(_CELLS_MADE, 0)
        if start_line + 1 >= end_line:
            return table_rule(state, start_line, end_line, silent)  # no delimiter row: no table
        delimiter = state.src[state.bMarks[start_line + 1]:state.eMarks[start_line + 1]]
        rows = (TABLE_CELLS - made) // (delimiter.count("|") + 1) - 1  # less the header row
        if rows < 0:
            return False
        first = len(state.tokens)
        if not table_rule(state, start_line, min(end_line, start_line + 2 + rows), silent):
            return False
        if not silent:
            state.env[_CELLS_MADE] = made + sum(t.type in ("th_open", "td_open") for t in state.tokens[first:])
        return True
    return table


def with_tables(md: MarkdownIt) -> MarkdownIt:
    """``md`` reading GitHub's tables, bounded by :data:`TABLE_CELLS`."""
    md.enable("table")
    md.block.ruler.at("table", bounded_tables(), {"alt": ["paragraph", "reference"]})
    return md


def with_block_budget(md: MarkdownIt) -> MarkdownIt:
    """``md`` making at most about :data:`BLOCK_TOKENS` block tokens of a body: once it has made
    them, each block it meets is the rest of its container's lines, as one code block (the open
    containers close as they would, each adding its own).  A list makes its items without asking
    the block rules (an empty item is two tokens of two bytes): it is given no more lines than
    the tokens left, so it ends by then."""
    md.block.ruler.before(md.block.ruler.get_all_rules()[0], "skillsite_block_budget", _past_budget)
    md.block.ruler.at("list", _bounded_list, {"alt": ["paragraph", "reference", "blockquote"]})  # markdown-it's alt
    md.block.ruler.at("reference", _holding_bounded_lines(_counted_definitions), {"alt": []})
    md.block.ruler.at("blockquote", _holding_bounded_lines(rules_block.blockquote, nests=True),
                      {"alt": ["paragraph", "reference", "blockquote", "list"]})  # markdown-it's alt
    md.block.ruler.at("lheading", _holding_bounded_lines(rules_block.lheading))
    md.block.ruler.at("paragraph", _holding_bounded_lines(rules_block.paragraph))
    return md


def _made(state: StateBlock) -> int:
    """The block tokens the body has made so far, as the page renderer makes them: a link
    reference definition's token (which only the link scanner's parser makes) does not count."""
    return len(state.tokens) - state.env.get(_DEFINITIONS_MADE, 0)


def _counted_definitions(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """markdown-it's reference rule, counting the tokens it makes (see :func:`_made`)."""
    before = len(state.tokens)
    if not rules_block.reference(state, start_line, end_line, silent):
        return False
    state.env[_DEFINITIONS_MADE] = state.env.get(_DEFINITIONS_MADE, 0) + len(state.tokens) - before
    return True


def _bounded_list(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """markdown-it's list rule, given at most as many lines as the body has block tokens left."""
    left = max(BLOCK_TOKENS - _made(state), 1)
    return rules_block.list_block(state, start_line, min(end_line, start_line + left), silent)


def _holding_bounded_lines(rule: BlockRule, nests: bool = False) -> BlockRule:
    """markdown-it's paragraph, setext heading, definition or quote ``rule``, given at most as many
    lines as the body has left of :data:`PARAGRAPH_LINES`: each reads on line by line, asking
    at each whether a block starts there (up to its ``end_line`` or to ``state.lineMax``, both
    lowered for it), and the lines of what it makes count.  A quote (``nests``) reads its lines
    again at each level it is nested in, so what is d quotes deep is given 1/(d+1) of them."""
    def bounded(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
        if silent:  # a quote asked whether it starts at a paragraph's line: it reads that line alone
            return rule(state, start_line, end_line, silent)
        read, depth = state.env.get(_PARAGRAPH_LINES, 0), state.env.get(_QUOTES_OPEN, 0)
        last = start_line + max((PARAGRAPH_LINES - read) // (depth + 1), 1)
        line_max, state.lineMax = state.lineMax, min(state.lineMax, last)
        state.env[_QUOTES_OPEN] = depth + 1 if nests else depth
        try:
            made = rule(state, start_line, min(end_line, last), silent)
        finally:
            state.lineMax, state.env[_QUOTES_OPEN] = line_max, depth
        if made:
            state.env[_PARAGRAPH_LINES] = state.env.get(_PARAGRAPH_LINES, 0) + state.line - start_line
        return made
    return bounded


def _past_budget(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """The block rule asked first at each block: past :data:`BLOCK_TOKENS` (or
    :data:`PARAGRAPH_LINES`), the lines from ``start_line`` to ``end_line`` as one code block (as
    markdown-it's own indented code takes them: the last line's break added, not read, for the
    body's last line may have none)."""
    if _made(state) < BLOCK_TOKENS and state.env.get(_PARAGRAPH_LINES, 0) < PARAGRAPH_LINES:
        return False
    if silent:
        return True
    token = state.push("code_block", "code", 0)
    token.content = state.getLines(start_line, end_line, state.blkIndent, False) + "\n"
    token.map = [start_line, end_line]
    state.line = end_line
    return True


def comment_block(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """CommonMark's HTML block of comments (its type 2) alone, read whatever the ``html`` option
    says: from a line starting with ``<!--`` to the first line holding ``-->`` (or to the end of its
    container, unclosed), interrupting a paragraph.  GitHub reads a comment line after a list item
    so, as a block of its own, not as more of the item's text; what the page shows of it is the
    renderer's choice (its comments nothing, the rest escaped)."""
    pos, line_end = state.bMarks[start_line] + state.tShift[start_line], state.eMarks[start_line]
    if state.is_code_block(start_line) or not state.src.startswith("<!--", pos, line_end):
        return False
    if silent:
        return True
    line = start_line + 1
    if "-->" not in state.src[pos:line_end]:
        while line < end_line:
            if state.sCount[line] < state.blkIndent and not state.isEmpty(line):
                break
            line += 1
            if "-->" in state.src[state.bMarks[line - 1] + state.tShift[line - 1]:state.eMarks[line - 1]]:
                break
    state.line = line
    token = state.push("html_block", "", 0)
    token.map = [start_line, line]
    token.content = state.getLines(start_line, line, state.blkIndent, True)
    return True


def with_comment_blocks(md: MarkdownIt) -> MarkdownIt:
    """``md`` reading HTML comments that start a line as blocks (:func:`comment_block`), raw HTML
    off for any other tag."""
    md.block.ruler.at("html_block", comment_block, {"alt": ["paragraph", "reference", "blockquote"]})
    return md


#: The options a body's blocks are read with besides CommonMark's: raw HTML off (comments aside:
#: :func:`with_comment_blocks`), and task lists and alerts, which change how a list item or a quote
#: reads.
BLOCK_OPTIONS = {"html": False, "tasklists": True, "alerts": True}


def body_markdown(**options: Any) -> MarkdownIt:
    """A CommonMark parser that reads a body's blocks as the page renderer does
    (:data:`BLOCK_OPTIONS`, comments, tables, the block budget), with ``options`` besides: the renderer and
    the link scanner's parser both start from it, so neither reads a block the other does not."""
    md = MarkdownIt("commonmark", {**BLOCK_OPTIONS, **options})
    return with_block_budget(with_comment_blocks(with_tables(md)))


@functools.lru_cache(maxsize=1)
def block_parser() -> MarkdownIt:
    """A parser of a body's blocks alone, as the page renderer reads them (:func:`body_markdown`),
    that keeps each link reference definition as a token with its lines; no inline content is
    parsed."""
    md = body_markdown(inline_definitions=True)
    md.core.ruler.disable(["inline", "text_join"])
    md.validateLink = lambda url: True  # type: ignore[method-assign]  # as the renderer: every link is one
    return md
