"""How skillsite reads a body's Markdown blocks, shared by the page renderer and the link
scanner: CommonMark with GitHub's tables, each body's tables bounded in cells."""
from __future__ import annotations

import functools
from typing import Callable

from markdown_it import MarkdownIt, rules_block
from markdown_it.rules_block import StateBlock

#: How many cells a body's tables may hold in all: markdown-it fills each short row's missing
#: cells (up to 65,536 a table), so a row of two bytes made hundreds of cells, and a 15 KB body
#: took 9 s and 770 MB to render.  The rows past them are read as text.
TABLE_CELLS = 0x10000
#: Where a parse's environment counts the table cells made so far.
_CELLS_MADE = "skillsite table cells"

TableRule = Callable[[StateBlock, int, int, bool], bool]


def bounded_tables(table_rule: TableRule = rules_block.table) -> TableRule:
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


@functools.lru_cache(maxsize=1)
def block_parser() -> MarkdownIt:
    """A parser of a body's blocks alone, as the page renderer reads them (raw HTML off, tables),
    that keeps each link reference definition as a token with its lines; no inline content is
    parsed."""
    md = with_tables(MarkdownIt("commonmark", {"html": False, "inline_definitions": True}))
    md.core.ruler.disable(["inline", "text_join"])
    md.validateLink = lambda url: True  # type: ignore[method-assign]  # as the renderer: every link is one
    return md
