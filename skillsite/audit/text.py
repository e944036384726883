"""A scanned text file: its lines, its fenced code blocks, and a folded copy for matching
(:mod:`skillsite.audit.folding`), where split or disguised keywords read as plain words; and the
gated patterns the rules run on it.

A gate finds what its pattern's ``finditer`` finds over the whole folded text, with one limit: in
a long document (:data:`WINDOWED` characters or more) a pattern runs only on the lines around its
literals: as many lines holding text before a literal's as one match can cross into before the
literal's start, and as many after it as one can cross into from there on (its line reach on
either side, :mod:`skillsite.audit.literals`), each at most :data:`MAX_LINES`.  A command's word
starts its matches, so most command patterns read no line before it, and only the lines its
arguments may run on to after it.  A pattern whose matches may cross more on one side (an
open-ended run of arguments, each of which may stand on a line of its own, as in
``tee\n-a\n-a\n~/.bashrc`` after ``tee``, or before ``~/.bashrc``; SK634's ``subprocess`` call;
SK651's 400 characters) is searched that far, and a match of it spanning more than
:data:`MAX_LINES` lines holding text on that side of its literal's, in a long document, is not
found.  Searched further, such patterns read the rest of the text from each literal of a hostile
one: time that grows with the square of its length.
"""
from __future__ import annotations

import bisect
import functools
import itertools
import operator
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Generator, Iterator, TypeVar

from skillsite.audit.fences import fenced_blocks
from skillsite.audit.folding import OffsetMap, fold, unusual
from skillsite.audit.literals import Literals, literals_of
from skillsite.audit.prefilter import Found, Needs, Prefilter, occurrences

MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdx", ".rst", ".txt", ".adoc"})
CODE_SUFFIXES = frozenset({
    ".py", ".pyw", ".sh", ".bash", ".zsh", ".fish", ".ksh", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts",
    ".tsx", ".jsx", ".rb", ".pl", ".pm", ".php", ".ps1", ".psm1", ".psd1", ".bat", ".cmd", ".vbs", ".go",
    ".rs", ".java", ".kt", ".swift", ".lua", ".r", ".applescript", ".scpt", ".command", ".tcl", ".awk",
})
CODE_NAMES = frozenset({"makefile", "dockerfile", "justfile", "rakefile", "gemfile", "vagrantfile"})
T = TypeVar("T")


@dataclass
class Document:
    """One decoded text file of a skill, ready for the rules."""

    path: str                    # POSIX, relative to the skill folder
    text: str
    kind: str                    # "skill" (SKILL.md), "markdown", "code" or "text"
    folded: str = ""
    origin: OffsetMap | None = None   # folded offset -> text offset (None: the same offset)
    lower: str = ""              # the folded text in lower case, for the gates' substring tests
    unusual: bool = True         # may hold invisible, look-alike or fullwidth characters, or line separators
    _present: dict[str, bool] = field(default_factory=dict, repr=False)
    _found: Found | None = field(default=None, repr=False)
    _windows: dict[tuple[object, ...], list[tuple[int, int]]] = field(default_factory=dict, repr=False)
    _memo: dict[object, Any] = field(default_factory=dict, repr=False)

    def remember(self, key: object, compute: Callable[[], T]) -> T:
        """``compute()``, once per document and ``key``: what a rule's condition learns about the
        whole document (where each tag is first opened) is not searched for again at each match."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]  # type: ignore[no-any-return]

    @property
    def found(self) -> Found:
        """Where the literals of every gate occur in the lower-cased text: one pass for all of
        them (:mod:`skillsite.audit.prefilter`), made again only when gates were added since."""
        prefilter = _CURRENT[0] or _prefilter()
        found = self._found
        if found is None or found.prefilter is not prefilter:
            found = self._found = prefilter.scan(self.scanned)
        return found

    @functools.cached_property
    def scanned(self) -> str:
        """The text the literals and the gates' lowered searches are looked for in: the lower-cased
        folded text, where a capital dotted I (the one character whose lower case is two) reads as
        "i", as ``IGNORECASE`` reads it, so that every position is the folded text's."""
        if len(self.lower) == len(self.folded):
            return self.lower
        return self.folded.replace("\u0130", "i").lower()

    def has(self, word: str) -> bool:
        """Whether the lower-cased folded text contains ``word`` (remembered: gates share words)."""
        found = self._present.get(word)
        if found is None:
            found = self._present[word] = self._contains(word)
        return found

    def _contains(self, word: str) -> bool:
        """``word in self.lower``, answered by the one-pass search when it looked for ``word`` in
        that very text (not in :attr:`scanned` where it differs): a word absent from most texts
        costs a whole search of each otherwise."""
        found = self.found
        if found.text is self.lower and word in found.prefilter.known:
            return word in found.present
        return word in self.lower

    def holds(self, groups: tuple[tuple[str, ...], ...]) -> bool:
        """Whether the lower-cased folded text contains one word of each group."""
        return all(any(self.has(word) for word in group) for group in groups)

    def windows(self, literals: frozenset[str], paragraphs: bool = False,
                also: tuple[frozenset[str], ...] = (), lines: tuple[int, int] = (1, 1)) -> list[tuple[int, int]]:
        """The parts of the lower-cased text a gate scans: every line where one of ``literals``
        starts, with ``lines`` (before, after) lines holding text before and after it
        (:meth:`_lines_around`) or, with ``paragraphs``, every paragraph (text between blank lines)
        holding one; merged, in order, and only those where one of each set of ``also`` starts too
        (remembered: gates share literals)."""
        key = (literals, paragraphs, also, lines)
        found = self._windows.get(key)
        if found is None:
            span = self._paragraph_around if paragraphs else functools.partial(self._lines_around, lines=lines)
            found = _windows(self._starts(literals), span)
            for other in also:
                found = _holding(found, self._starts(other))
            self._windows[key] = found
        return found

    def _starts(self, literals: frozenset[str]) -> list[int]:
        """Where one of ``literals`` starts: from the prefilter for a gate's own literals, by
        search for words a gate was given."""
        if literals <= _prefilter().known:
            return self.found.starts(literals)
        return sorted(at for word in literals for at in occurrences(self.lower, word))

    def _lines_around(self, at: int, lines: tuple[int, int] = (1, 1)) -> tuple[int, int, int]:
        """(start, end, tail) of the line holding offset ``at`` of the lower-cased text, with the
        ``lines[0]`` lines before it and the ``lines[1]`` lines after it that hold more than white
        space (and the blank lines between): lines of white space, which ``\\s`` matches, cannot
        part a command from its arguments.  ``tail`` is where the first line holding text after it
        starts (the end of the text when there is none): a start there has lines after of its own."""
        before, after = lines
        return (self._start_before(at, before), *self._end_after(at, after))

    def _start_before(self, at: int, lines: int) -> int:
        """Where the ``lines``-th line holding text before the line of ``at`` starts (0: none)."""
        low = self.lower
        start = low.rfind("\n", 0, at) + 1
        for _ in range(lines):
            if start < 2:   # the first line, or the second after an empty first one
                return 0
            # the line before holds text where it ends; else read back over the white space
            before = start - 1 if not low[start - 2].isspace() else _text_end(low, start)
            start = low.rfind("\n", 0, before) + 1
        return start

    def _end_after(self, at: int, lines: int) -> tuple[int, int]:
        """Where the ``lines``-th line holding text after the line of ``at`` ends, and where the
        first one starts (each the end of the text when there is none)."""
        low, size = self.lower, len(self.lower)
        end = low.find("\n", at)
        following = _TEXT.search(low, end) if end >= 0 else None
        if following is None:
            return size, size
        tail = low.rfind("\n", end, following.start()) + 1
        if lines == 0:
            return end, tail
        end = _lines_of_text(lines).match(low, following.start()).end()  # type: ignore[union-attr]
        return (end, tail) if _TEXT.search(low, end) else (size, tail)

    def _paragraph_around(self, at: int) -> tuple[int, int, int]:
        """(start, end, tail) of the paragraph holding offset ``at`` of the lower-cased text; its
        tail is its end: every start inside it has the same paragraph."""
        index = bisect.bisect_left(self.blank_lines, at)
        start = self.blank_lines[index - 1] + 1 if index else 0
        end = self.blank_lines[index] if index < len(self.blank_lines) else len(self.lower)
        return start, end, end

    @functools.cached_property
    def blank_lines(self) -> list[int]:
        """Where each blank line of the text ends (at its line break): the paragraph boundaries."""
        return [match.start() for match in _BLANK_LINE.finditer(self.lower)]

    @functools.cached_property
    def line_starts(self) -> list[int]:
        """The offset in ``text`` where each line starts (computed when a position is needed)."""
        lengths = map(len, self.text.split("\n")[:-1])
        return [0, *map(operator.add, itertools.accumulate(lengths), itertools.count(1))]  # + the line breaks

    @functools.cached_property
    def fences(self) -> list[tuple[int, int]]:
        """The fenced code blocks of a Markdown document (computed when a match is judged)."""
        return fenced_blocks(self.text) if self.kind in ("skill", "markdown") else []

    @property
    def is_reference(self) -> bool:
        """A Markdown document other than SKILL.md (where fenced blocks are examples)."""
        return self.kind == "markdown"

    def original(self, folded_offset: int) -> int:
        """The offset in ``text`` of a position in ``folded``."""
        if self.origin is None:
            return min(folded_offset, len(self.text))
        if folded_offset >= self.origin.length:
            return len(self.text)
        return self.origin(folded_offset)

    def position(self, offset: int) -> tuple[int, int]:
        """1-based line and column (code points) of an offset in ``text``."""
        index = bisect.bisect_right(self.line_starts, offset) - 1
        return index + 1, offset - self.line_starts[index] + 1

    def line_text(self, offset: int) -> str:
        """The whole line of ``text`` holding ``offset``."""
        index = bisect.bisect_right(self.line_starts, offset) - 1
        start = self.line_starts[index]
        end = self.text.find("\n", start)
        return self.text[start:end if end >= 0 else len(self.text)]

    def fence_at(self, offset: int) -> tuple[int, int] | None:
        """The fenced code block (start, end offsets) holding ``offset``, if any."""
        index = bisect.bisect_right(self.fences, (offset, len(self.text) + 1)) - 1
        if index >= 0 and self.fences[index][0] <= offset < self.fences[index][1]:
            return self.fences[index]
        return None


#: How far (in characters) the judgement of a match reads along its line on either side.  A
#: longer line is judged on this much of it, so a hostile line holding thousands of matches costs
#: time in proportion to its length rather than to its square.
REACH = 2000


def line_bounds(text: str, start: int, end: int | None = None) -> tuple[int, int]:
    """(begin, finish) offsets of the line holding ``text[start:end]``, each at most :data:`REACH`
    characters away from the match (see :func:`clipped_before` and :func:`clipped_after`)."""
    end = start if end is None else end
    low, high = max(0, start - REACH), min(len(text), end + REACH)
    finish = text.find("\n", end, high)
    return text.rfind("\n", low, start) + 1 or low, high if finish < 0 else finish


def paragraph_bounds(text: str, start: int, end: int, reach: int) -> tuple[int, int]:
    """(begin, finish) offsets of the paragraph (between blank lines) holding ``text[start:end]``,
    each at most ``reach`` characters away from it: what a rule reads around a match for the words
    that say what it is."""
    low, high = max(0, start - reach), min(len(text), end + reach)
    before, after = text.rfind("\n\n", low, start), text.find("\n\n", end, high)
    return before + 2 if before >= 0 else low, high if after < 0 else after


def clipped_before(text: str, begin: int) -> bool:
    """Whether a line's ``begin`` from :func:`line_bounds` is not the true start of its line."""
    return begin > 0 and text[begin - 1] != "\n"


def clipped_after(text: str, finish: int) -> bool:
    """Whether a line's ``finish`` from :func:`line_bounds` is not the true end of its line."""
    return finish < len(text) and text[finish] != "\n"


def white_space_start(text: str, line_start: int) -> int:
    """The first line start after the last text before ``line_start`` (a line start): where a
    match of ``^\\s*`` ending at ``line_start`` began.  A pattern for what starts a line is written
    ``^[^\\S\\n]*`` (from each of thousands of blank lines, ``^\\s*`` reads all those after it)
    and its finding placed here, where it always was.  Reads back over the white space only."""
    at = line_start
    while at > 0 and text[at - 1].isspace():
        at -= 1
    return 0 if at == 0 else text.index("\n", at) + 1


def is_skill_md(path: str) -> bool:
    """Whether a file at ``path`` of a skill folder is its SKILL.md (for the rules: in any case)."""
    return path == "SKILL.md" or path.lower() == "skill.md"


def kind_of(path: str, text: str) -> str:
    """What a file is for the rules: SKILL.md, other Markdown, code (by suffix or shebang) or text."""
    name = path.rsplit("/", 1)[-1]
    if is_skill_md(path):
        return "skill"
    lower = name.lower()
    suffix = lower[lower.rfind("."):] if "." in lower else ""
    if suffix in MARKDOWN_SUFFIXES:
        return "markdown"
    if suffix in CODE_SUFFIXES or lower in CODE_NAMES or text.startswith("#!"):
        return "code"
    return "text"


def make_document(path: str, text: str) -> Document:
    """Decoded text -> a :class:`Document` with its folded copy (line starts and fences follow when needed)."""
    kind = kind_of(path, text)
    odd = unusual(text)
    folded, origin = fold(text, kind == "code", odd)
    return Document(path, text, kind, folded, origin, folded.lower(), odd)


#: Documents shorter than this are scanned whole; longer ones only around the gate's literals.
WINDOWED = 4096
#: A pattern is tried at each place one of its starts begins (rather than searched for by the
#: regular-expression engine, which reads every character) where those places are at least this
#: many characters apart on average.
SPARSE = 32
#: A character that is not white space.
_TEXT = re.compile(r"\S")
#: How many characters :func:`_text_end` reads back at a time.
_CHUNK = 256
#: The most lines holding text on either side of a literal's that a gate scans in a long document
#: (a side whose reach is bounded may have what the other leaves of twice this: :func:`lines_around`):
#: a pattern whose matches may cross more line boundaries (an open-ended repeat of arguments that
#: may each stand on a line of its own) is searched that far, and a match of it spanning more
#: lines holding text is not found there.  Each literal's window reads up to twice this many lines
#: and the one holding it: the cost of a long document of literals grows with it.  Real commands
#: stay on a line or two (on the shared corpus, no match of an open-ended pattern crosses more
#: than one line boundary); eight leave an attacker's padding room for a command word and seven
#: arguments each on a line of its own, and, with the lines a side leaves to the other, cover every
#: bounded pattern but one (SK651's 400 characters of key, 400 boundaries after its first line:
#: 16 scanned; SK634's ``subprocess`` call reaches 10 before its descriptors and 4 after).
MAX_LINES = 8
#: A line break that ends a blank line (or ends the line before one): where a paragraph stops.
_BLANK_LINE = re.compile(r"\n(?=[ \t\r]*\n)")


@functools.lru_cache(maxsize=None)
def _lines_of_text(count: int) -> re.Pattern[str]:
    """From the start of a line's text, that line and the ``count - 1`` lines holding text after it
    (fewer where the text has fewer), with the blank lines between."""
    return re.compile(r"[^\n]*(?:\s*\S[^\n]*){0,%d}" % (count - 1))


def _text_end(text: str, at: int) -> int:
    """Where the text before ``at`` ends: after its last character that is not white space (0:
    none).  Read back in chunks, each stripped at once, so a long run of white space costs little."""
    while at > 0:
        start = max(0, at - _CHUNK)
        kept = len(text[start:at].rstrip())
        if kept:
            return start + kept
        at = start
    return 0


def _windows(starts: list[int], span: Callable[[int], tuple[int, int, int]]) -> list[tuple[int, int]]:
    """Merged (start, end) offsets of the ``span`` around each of ``starts`` (in order).  ``span``
    also gives its *tail*: where the starts whose own span may reach past its end begin (the line
    holding text after the start's).  A start inside the last window before its tail makes no
    window of its own; one in its tail extends it: a match starting there may run on past its end."""
    windows: list[tuple[int, int]] = []
    limit = tail = -1   # the end of the last window, and its tail
    for at in starts:
        if at < tail:
            continue
        start, end, later = span(at)
        if windows and start <= limit:
            if end >= limit:
                limit, tail = end, later
                windows[-1] = (windows[-1][0], limit)
        else:
            limit, tail = end, later
            windows.append((start, end))
    return windows


def _holding(windows: list[tuple[int, int]], starts: list[int]) -> list[tuple[int, int]]:
    """The windows (in order) where one of ``starts`` (in order) is."""
    return [(start, end) for start, end in windows if (at := bisect.bisect_left(starts, start)) < len(starts)
            and starts[at] < end]


#: In a pattern's source: an escape, a named group (both kept as they are), or upper-case letters.
_LITERAL_LETTERS = re.compile(r"\\.|\(\?P|[A-Z]+")


def lowered_pattern(source: str) -> str:
    """A pattern's source with its literal letters lower-cased (escapes such as ``\\S`` kept), and
    the ``\\b`` each of its branches starts with dropped (:func:`without_leading_boundaries`): what
    it finds in lower-cased text is a superset of what the pattern finds case-insensitively, and
    it starts with letters the regular-expression engine can skip to."""
    return lowered_letters(without_leading_boundaries(source))


def lowered_letters(source: str) -> str:
    """A pattern's source with its literal letters lower-cased (escapes and group names kept)."""
    return _LITERAL_LETTERS.sub(lambda m: m.group().lower() if m.group().isalpha() else m.group(), source)


def without_leading_boundaries(source: str) -> str:
    """A pattern's source without the ``\\b`` that starts a branch: of the pattern, or of a group
    (not a lookaround) that starts a branch itself, as in ``\\bcurl|(?:\\bwget|\\bfetch)``.  A
    branch led by ``\\b`` leaves the engine no first letters to skip to: ``\\bA|\\bB`` is searched
    for at every character.  Dropping an assertion only adds places where a match can start."""
    kept: list[str] = []
    leading = [True]     # for the pattern and each open group: whether it starts a branch of the pattern
    starting = True      # at the start of such a branch
    at = 0
    while at < len(source):
        if starting and source.startswith(r"\b", at):
            at += 2
            continue
        char = source[at]
        end = _class_end(source, at) if char == "[" else _group_end(source, at) if char == "(" \
            else at + (2 if char == "\\" else 1)
        kept.append(source[at:end])
        if char == "(":
            leading.append(starting and (end > at + 1 or not source.startswith("(?", at)))
        elif char == ")":
            leading.pop()
        starting = leading[-1] if char in "(|" else False
        at = end
    return "".join(kept)


def _group_end(source: str, at: int) -> int:
    """Where the opening of the group at ``source[at]`` ends: after its ``(``, ``(?:`` or
    ``(?P<name>``; after the ``(`` alone for the others (lookarounds, flags, references)."""
    if source.startswith("(?:", at):
        return at + 3
    if source.startswith("(?P<", at):
        return source.index(">", at) + 1
    return at + 1


def _class_end(source: str, at: int) -> int:
    """Where the character class opened at ``source[at]`` ends (after its ``]``; a ``]`` first in
    it is one of its characters)."""
    at += 2 if source.startswith("[^", at) else 1
    at += source.startswith("]", at)
    while source[at] != "]":
        at += 2 if source[at] == "\\" else 1
    return at + 1


class _NextMatch:
    """``pattern.search(text, at, end)`` for positions that never go back, each part of the text
    searched once: a search that found its match at m (or none) gives the same answer from any
    later position up to m (from any later one).  Without it, a scan asking from every word of a
    long line where nothing matches would read the rest of the text each time: quadratic."""

    def __init__(self, pattern: re.Pattern[str], text: str, end: int) -> None:
        self.pattern, self.text, self.end = pattern, text, end
        self.since = -1                           # where the last search started
        self.found: re.Match[str] | None = None   # what it found

    def search(self, at: int) -> re.Match[str] | None:
        reusable = 0 <= self.since <= at and (self.found is None or at <= self.found.start())
        if not reusable:
            self.since, self.found = at, self.pattern.search(self.text, at, self.end)
        return self.found


@dataclass(frozen=True)
class Gate:
    """A pattern run only where it can match.  Every match of the pattern contains one of its
    ``literals`` and one of each set it needs ``also``, derived from the pattern
    (:mod:`skillsite.audit.literals`): a document where they do not all occur
    (:mod:`skillsite.audit.prefilter`) is not searched, and in a long document only the lines
    around the literals' occurrences that hold the others too are: with as many lines holding text
    before and after a literal's as one match can cross into on that side of it (``lines``: its
    line reach before and after, each at most :data:`MAX_LINES`; see the module's docstring).  A
    pattern without literals is searched for in the whole text.  ``words``, when a gate is given
    some, are groups of words the document must hold one of each besides; the first group's
    words take the literals' place around which a gate without literals scans (as many lines on
    either side as a whole match can cross: a word tells nothing about where a match lies).

    A ``paragraphs`` gate (the rules about what prose tells the agent) scans, in every document,
    the paragraphs that hold one of its literals: a phrase split over the lines of a paragraph is
    found however long the document, and no match runs on across a blank line into the next block.

    A case-insensitive pattern is first looked for in the lower-cased text (:func:`lowered_pattern`),
    which the engine scans far faster, and each place found there is confirmed by the pattern
    itself: the matches are exactly those of ``pattern.finditer``.

    A pattern whose command word is followed by an open-ended run of arguments (``dd [^\\n]*
    of=/dev/sda``) would, on a line of thousands of such words and no match, read the rest of the
    line once from each word.  Such a gate names that run (see :func:`gate`): where the pattern
    fails, the run is passed over in one step, since no later start inside it can succeed, except
    one reaching past its end, which a gate that ``restarts`` looks for (:meth:`_after`).  A gate
    whose run no later start can reach past (SK630's URL given to a command: the run is what the
    command read, which a later word reads as part of) passes it over whole, looking for none.
    What a hopeless run covers is one branch of its pattern: the pattern's other branches, which may
    start inside the run (``open('.env')`` inside ``cat -xopen('.env')``), are the gate's ``beside``,
    looked for inside each run it passes over (:meth:`_past`)."""

    pattern: re.Pattern[str]
    words: tuple[tuple[str, ...], ...]
    candidates: re.Pattern[str] | None = None   # the lowered pattern (None: case-sensitive)
    paragraphs: bool = False   # matches stay within a paragraph, and may span its lines
    restart: re.Pattern[str] | None = None   # a hopeless gate's start (None: the gate is not hopeless)
    literals: frozenset[str] | None = None   # one is in every match (None: none is known)
    also: tuple[frozenset[str], ...] = ()    # so is one of each of these
    slot: int | None = None                  # its number in the one-pass search (None: not in it)
    starts: frozenset[str] | None = None     # every match starts with one of these (None: not known)
    restarts: bool = True                    # a hopeless run is searched for a later start (False: never)
    beside: re.Pattern[str] | None = None    # the branches a hopeless run does not cover (None: it covers all)
    lines: tuple[int, int] = (MAX_LINES, MAX_LINES)  # lines holding text scanned before and after a literal's

    @property
    def hopeless(self) -> bool:
        """Whether the pattern ends with a ``(?P<hopeless>...)`` branch, passed over, not reported."""
        return self.restart is not None

    def admits(self, doc: Document) -> bool:
        """Whether the pattern may match in ``doc``: one of its literals occurs, one of each set
        it also needs, and one word of each of its groups."""
        return (self.slot is None or self.slot in doc.found.admitted) and (not self.words or doc.holds(self.words))

    @property
    def anchors(self) -> frozenset[str] | None:
        """What a long document is scanned around: the literals, else the first group's words."""
        if self.literals is not None:
            return self.literals
        return frozenset(self.words[0]) if self.words else None

    def finditer(self, doc: Document) -> Iterator[re.Match[str]]:
        """The pattern's matches in the folded text."""
        if not self.admits(doc):
            return iter(())
        anchors = self.anchors
        if self.paragraphs and anchors and len(doc.lower) == len(doc.folded):
            return self._within(doc, doc.windows(anchors, True, self.also))
        if len(doc.lower) < WINDOWED or len(doc.lower) != len(doc.folded) or not anchors:
            return self._matches(doc, 0, len(doc.folded))
        return self._within(doc, doc.windows(anchors, False, self.also, self.lines))

    def _within(self, doc: Document, windows: list[tuple[int, int]]) -> Iterator[re.Match[str]]:
        for start, end in windows:
            yield from self._matches(doc, start, end)

    def _matches(self, doc: Document, start: int, end: int) -> Iterator[re.Match[str]]:
        """``pattern.finditer(doc.folded, start, end)``: tried only where a match may start when
        that is known, else through the candidates where there are some (without the runs a
        hopeless gate passes over).  Nearly every window of a long document holds no place and no
        candidate: that is found out at once, and nothing more is made for it."""
        found = self._tried(doc, start, end)
        if found is None:
            return iter(())
        if not self.hopeless:
            return found
        return (match for match in found if match.start("hopeless") < 0)

    def _tried(self, doc: Document, start: int, end: int) -> Iterator[re.Match[str]] | None:
        """The pattern's matches in ``[start, end)``, the runs a hopeless gate passes over among
        them; None where none of its starts, or no candidate, is there."""
        if self.starts is not None and self.beside is None:
            places = doc.found.places(self.starts, start, end, (end - start - 1) // SPARSE)
            if places is not None:
                return self._at(doc, places, start, end) if places else None
        if self.candidates is None:
            return self._searched(doc.folded, start, end) if self.hopeless \
                else self.pattern.finditer(doc.folded, start, end)
        first = self.candidates.search(doc.scanned, start, end)
        return None if first is None else self._confirmed(doc, start, end, first)

    def _at(self, doc: Document, places: list[int], start: int, end: int) -> Iterator[re.Match[str]]:
        """The pattern's matches in ``[start, end)``, each tried only at ``places`` (in order, where
        one of its starts begins), as ``finditer`` finds them: no match starts elsewhere, and
        every start is a character long at least."""
        at, restarts = start, self._restarts(doc.folded, end)
        for place in places:
            if place >= at and (match := self.pattern.match(doc.folded, place, end)) is not None:
                yield match
                at = self._after(doc.folded, match, end, restarts)

    def _searched(self, text: str, start: int, end: int) -> Iterator[re.Match[str]]:
        """``pattern.finditer(text, start, end)`` of a hopeless gate, resumed where :meth:`_after` says."""
        at, restarts, beside = start, self._restarts(text, end), self._beside(text, end)
        while at <= end and (match := self.pattern.search(text, at, end)) is not None:
            yield match
            at = yield from self._past(text, match, end, restarts, beside)

    def _restarts(self, text: str, end: int) -> _NextMatch | None:
        """The searches for a hopeless gate's start in ``text[:end]`` (None: not hopeless, or it never restarts)."""
        return _NextMatch(self.restart, text, end) if self.restart is not None and self.restarts else None

    def _beside(self, text: str, end: int) -> _NextMatch | None:
        """The searches for the branches a hopeless run does not cover in ``text[:end]`` (None: it covers all)."""
        return _NextMatch(self.beside, text, end) if self.beside is not None else None

    def _past(self, text: str, match: re.Match[str], end: int, restarts: _NextMatch | None,
              beside: _NextMatch | None) -> Generator[re.Match[str], None, int]:
        """Where the search goes on after ``match`` (:meth:`_after`), having given, after a hopeless
        run, the pattern's matches inside it by the branches the run does not cover (``beside``: the
        searches for them, shared by the calls of one scan, so each part of the text is read once).
        Each is the whole pattern's match at that place: no branch the run covers starts there."""
        resume = self._after(text, match, end, restarts)
        if beside is None or match.start("hopeless") < 0:
            return resume
        at = match.start() + 1
        while (found := beside.search(at)) is not None and found.start() < resume:
            whole = self.pattern.match(text, found.start(), end)
            if whole is None or whole.start("hopeless") >= 0:
                at = found.start() + 1
                continue
            yield whole
            at = whole.end() if whole.end() > whole.start() else whole.end() + 1
        return max(at, resume)

    def _after(self, text: str, match: re.Match[str], end: int, restarts: _NextMatch | None = None) -> int:
        """Where the search goes on after ``match``: its end, but after a hopeless run, the first
        later start inside the run that reaches its end (its white space may run on into the next
        line, where the pattern can still match), else the run's end (``restarts``: the searches
        for a start, shared by the calls of one scan).  A gate that never ``restarts`` goes on at
        the run's end: no start inside its run can match where the run's own start failed."""
        if not self.hopeless or match.start("hopeless") < 0:
            return match.end() if match.end() > match.start() else match.end() + 1
        if not self.restarts:
            return max(match.end(), match.start() + 1)
        assert self.restart is not None
        restarts = restarts or _NextMatch(self.restart, text, end)
        run_end, at = match.end(), match.start() + 1
        while (later := restarts.search(at)) is not None and later.start() < run_end:
            if later.end() >= run_end:
                return later.start()
            at = later.start() + 1
        return max(run_end, match.start() + 1)

    def _confirmed(self, doc: Document, start: int, end: int,
                   first: re.Match[str] | None = None) -> Iterator[re.Match[str]]:
        """The pattern's matches at the places its lowered pattern finds in the lower-cased text
        (:attr:`Document.scanned`: its positions are the folded text's, a capital dotted I read as
        "i"; ``first``: the first of them, when already found)."""
        assert self.candidates is not None
        at, restarts, beside = start, self._restarts(doc.folded, end), self._beside(doc.folded, end)
        candidate = first or self.candidates.search(doc.scanned, at, end)
        while candidate is not None:
            if self.hopeless and candidate.start("hopeless") >= 0:
                # not even the lowered pattern matches in it, but for the branches it does not cover
                at = yield from self._past(doc.folded, candidate, end, restarts, beside)
            else:
                match = self.pattern.match(doc.folded, candidate.start(), end)
                if match is None and self.hopeless:
                    # Found in the lower-cased text only (inside a word): the next place is looked for in
                    # the folded text, as a hopeless candidate would otherwise be tried at each such word.
                    match = self.pattern.search(doc.folded, candidate.start() + 1, end)
                    if match is None:
                        return
                if match is None:
                    at = candidate.start() + 1
                else:
                    yield match
                    at = yield from self._past(doc.folded, match, end, restarts, beside)
            candidate = self.candidates.search(doc.scanned, at, end)


#: What every gate made so far needs (its slot is its number here), for the one-pass search, the
#: words of their groups it looks for besides (:func:`_add_words`), and the search for them all
#: (None until it is first needed after a gate was added).
_NEEDS: list[Needs] = []
_WORDS: set[str] = set()
_CURRENT: list[Prefilter | None] = [None]


def _prefilter() -> Prefilter:
    """The search for the literals of every gate made so far (built again when gates are added)."""
    if _CURRENT[0] is None:
        _CURRENT[0] = Prefilter(_NEEDS, _WORDS)
    return _CURRENT[0]


def _add_words(words: tuple[tuple[str, ...], ...]) -> None:
    """A new gate's words of more than one character, for the one-pass search (:meth:`Document.has`
    answers from it).  A single character is left to ``in``, which finds it at memory speed, while
    the search would report each of its occurrences (a ``|`` in each row of a Markdown table)."""
    new = {word for group in words for word in group if len(word) > 1} - _WORDS
    if new:
        _WORDS.update(new)
        _CURRENT[0] = None


def _slot(literals: Literals) -> int | None:
    """A new gate's slot in the one-pass search (None: it needs nothing known)."""
    if not literals.needs:
        return None
    _NEEDS.append(literals.needs)
    _CURRENT[0] = None
    return len(_NEEDS) - 1


def word_groups(*groups: str) -> tuple[tuple[str, ...], ...]:
    """Gate words from their groups as written: lower-case words separated by spaces, or by commas
    when a word holds a space; empty groups left out."""
    return tuple(tuple(w.strip() for w in (g.split(",") if "," in g else g.split()) if w.strip())
                 for g in groups if g.strip())


def gate(pattern: str, *groups: str, flags: int = re.IGNORECASE, paragraphs: bool = False,
         hopeless: tuple[str, str] | None = None, restarts: bool = True) -> Gate:
    """A :class:`Gate`; each group lists lower-case words (one must occur), as :func:`word_groups` reads them."""
    return make_gate(pattern, word_groups(*groups), flags, paragraphs, hopeless, restarts=restarts)


def _with_run(pattern: str, start: str, run: str) -> str:
    """``pattern``, or else its ``start`` and the open-ended ``run`` after it, named ``hopeless``.
    The group holds the run alone, so that where the pattern begins with ``start`` both branches
    begin alike and ``re`` moves what they share out in front (in the lowered search, the letter
    ``nc``, ``rm`` or ``dd`` begin with): a search skips to it instead of trying both branches at
    every character."""
    return f"(?:{pattern})|(?:{start})(?P<hopeless>{run})"


def make_gate(pattern: str, words: tuple[tuple[str, ...], ...] = (), flags: int = re.IGNORECASE,
              paragraphs: bool = False, hopeless: tuple[str, str] | None = None, prefiltered: bool = True,
              restarts: bool = True, beside: str | None = None) -> Gate:
    """A :class:`Gate` of a pattern, its literals (derived from it and added to the one-pass search,
    unless not ``prefiltered``: a pattern matched in the text as written, not the folded text the
    search reads) and its groups of words.

    ``hopeless`` is the pattern's start and its first open-ended run (``\\bdd\\s+`` and ``[^\\n]*``
    for ``\\bdd\\s+[^\\n]*\\bof=/dev/...``): all that a later start inside that run can reach, an
    earlier one reaches too, so where the pattern fails, the run holds no match either, except
    from a later start whose white space runs on past the run's end (:meth:`Gate._after`).  Not
    ``restarts``: no later start can, and none is searched for (one search after each of thousands
    of short runs would find a start at each).  ``beside``: the pattern's branches other than the
    one ``hopeless`` starts, looked for inside each run passed over."""
    if beside is not None and hopeless is None:
        raise ValueError("beside names the branches a hopeless run does not cover: it needs hopeless")
    found = literals_of(pattern, flags) if prefiltered else Literals()
    needs = found.needs
    lowered = lowered_pattern(pattern)
    restart = None
    if hopeless is not None:
        start, run = hopeless
        # the run's start read as the lowered pattern reads its own: without a leading \b only when
        # that drops one too (a run found where the lowered pattern cannot start would pass over a match)
        lowered_start = lowered_letters(start.removeprefix(r"\b") if pattern.startswith(r"\b") else start)
        pattern, lowered = _with_run(pattern, start, run), _with_run(lowered, lowered_start, lowered_letters(run))
        restart = re.compile(start, flags)
    candidates = re.compile(lowered, flags & ~re.IGNORECASE) if flags & re.IGNORECASE else None
    if found.needs:  # a gate the one-pass search admits (a declared pattern's): its words are searched too
        _add_words(words)
    return Gate(re.compile(pattern, flags), words, candidates, paragraphs, restart,
                needs[0] if needs else None, needs[1:], _slot(found), found.starts, restarts,
                None if beside is None else re.compile(beside, flags),
                lines_around(found.before, found.after))


def lines_around(before: int | None, after: int | None) -> tuple[int, int]:
    """How many lines holding text before and after a literal's a gate scans in a long document:
    as many as one match of its pattern can cross into on that side, at most :data:`MAX_LINES`
    (also when that reach has no bound or is not known).  A side whose reach has a bound may have
    what the other side leaves of twice that: no window reads more lines than one of
    :data:`MAX_LINES` on either side, and a pattern that reaches far on one side only (SK651's
    400 characters of key after its first line, SK634's ``subprocess`` call before the
    descriptors it hands on) is searched as far as it reaches, up to that."""
    return _side(before, after), _side(after, before)


def _side(reach: int | None, other: int | None) -> int:
    """The lines scanned on a side of ``reach``, beside a side of ``other`` (see :func:`lines_around`)."""
    if reach is None:
        return MAX_LINES
    return min(reach, 2 * MAX_LINES - min(MAX_LINES, MAX_LINES if other is None else other))
