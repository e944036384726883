"""Inline code spans of one line of Markdown, as markdown-it finds them, and where an offset
falls among them.

Both the link checker (:mod:`skillsite.source.body_code`) and the audit's SK607 (an HTML comment
opener shown inside a code span is no hidden comment) read code spans; they live in the audit
package so that its rule table stays a leaf the diagnostics can import.
"""
from __future__ import annotations

import bisect
import re
from typing import Sequence

Span = tuple[int, int]  # (start, end) offsets in a text

_TICKS = re.compile(r"`+")


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
    return span_at(spans, offset) is not None


def span_at(spans: list[Span], offset: int) -> Span | None:
    """The one of ``spans`` (sorted, not overlapping) that ``offset`` falls inside, if any."""
    index = bisect.bisect_right(spans, (offset, float("inf"))) - 1
    return spans[index] if index >= 0 and spans[index][1] > offset else None
