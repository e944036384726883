"""How an audit rule is declared: in one place, as a semgrep rule, a Bandit plugin or a YARA rule
is.  A rule holds its code, category, default severity, title and reason, where a match of it is
demoted (:class:`Demotion`), its patterns (:class:`Pattern`), and the condition a match must
meet.  What a pattern's every match contains, and so where it is worth running, is read from the
pattern itself (:mod:`skillsite.audit.literals`, a table made from the patterns at development
time): a rule names no words for it.

- A rule whose every match is a finding: ``NAME = Rule(code, ..., patterns=(pattern(...), ...))``.
- A rule whose matches need a closer look: a function decorated with :func:`rule`, called for
  each match with the hit it makes, returning that hit (changed or not) or None to drop it.
- What cannot be a pattern (a read next to a send, a file's first bytes, the frontmatter): a
  function decorated with :func:`check`, declared beside the rules it reports.

The modules of :mod:`skillsite.audit.rules` hold the declarations; nothing else lists them.
Patterns are compiled on first use, so importing the rules (as :mod:`skillsite.diagnostics` does
for their titles) compiles no regular expression.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Literal, Optional

from skillsite.audit.hit import Hit
from skillsite.audit.letters import ascii_reading
from skillsite.audit.model import SeverityName
from skillsite.audit.text import Document, Gate, make_gate, word_groups

#: What a condition gets (the document, the match, the hit it makes) and gives (the hit, or None).
Condition = Callable[[Document, "re.Match[str]", Hit], Optional[Hit]]
#: Where a pattern is looked for (see :class:`Pattern`).
Scope = Literal["lines", "paragraphs", "folded", "written"]


@dataclass(frozen=True)
class Demotion:
    """Where a match of a rule is demoted one level (:mod:`skillsite.audit.context`), and the
    sentence that says so at the end of the rule's reason."""

    examples: bool = False             # inside a fenced example or a table of a reference document
    warnings: bool = False             # in a sentence that warns against or describes it
    quoted_in: frozenset[str] = frozenset()   # kinds of document where quoting it is mentioning it
    unprinted: bool = False            # in a script's data that the script does not print
    note: str = ""

    @property
    def demotes(self) -> bool:
        """Whether any context demotes a match."""
        return self.examples or self.warnings or bool(self.quoted_in) or self.unprinted


#: Never demoted (the rule's reason says why, where it matters).
NEVER = Demotion()
#: Invisible characters: never demoted.
HIDDEN = Demotion(note=" Never demoted: the characters hide text whatever the sentence says.")
#: Commands and what they do: quoting one mentions it only in a reference document.
COMMANDS = Demotion(True, True, frozenset({"markdown"}), note=(
    " Demoted one level inside a fenced example of a reference document, in a sentence that warns against or"
    " describes it, or quoted (in quotes or inline code: for commands, only in reference documents)."))
#: What text tells the agent: quoting it mentions it in any prose, and a script's data that is
#: never printed does not reach the agent.
SPOKEN = Demotion(True, True, frozenset({"skill", "markdown", "text"}), unprinted=True, note=(
    " Demoted one level inside a fenced example of a reference document, in a sentence that warns against or"
    " describes it, when quoted, or in a script's data that the script does not print."))


@dataclass(frozen=True)
class Pattern:
    """A regular expression of a rule, with its gate (:class:`~skillsite.audit.text.Gate`): the
    pattern runs only where the literals derived from it occur.  ``words``, rarely needed, holds
    groups of lower-case words the folded text must hold one of each besides.

    ``scope`` says where it runs: ``"lines"`` (in a long document, the lines around its literals;
    see :class:`~skillsite.audit.text.Gate`), ``"paragraphs"`` (the paragraphs holding them: a
    phrase may span the lines of a paragraph), ``"folded"`` (the whole folded text) or
    ``"written"`` (the whole text as written, invisible characters included, which the search
    for literals does not read: such a pattern runs on every text its rule applies to).
    ``hopeless``: the pattern's start and its first open-ended run (see :func:`command`);
    ``restarts``: whether a later start inside that run is looked for where the pattern fails
    (False only where none can match: see :class:`~skillsite.audit.text.Gate`).
    ``beside``: the pattern's other branches, which that run does not cover (looked for inside it).
    ``folds``: written in another script (Russian), so read as the folded text reads it.
    A match makes a hit with ``detail`` and ``severity`` (None: the rule's), passed to
    ``condition`` (or the rule's) when there is one."""

    source: str
    words: tuple[tuple[str, ...], ...] = ()
    flags: int = re.IGNORECASE
    scope: Scope = "lines"
    hopeless: tuple[str, str] | None = None
    folds: bool = False
    severity: SeverityName | None = None
    detail: str = ""
    condition: Condition | None = None
    restarts: bool = True
    beside: str | None = None

    @functools.cached_property
    def compiled_source(self) -> str:
        """The source as compiled: read as the folded text reads it when the pattern ``folds``."""
        return ascii_reading(self.source) if self.folds else self.source

    @property
    def prefiltered(self) -> bool:
        """Whether the pattern runs only where its literals occur (not on the text as written,
        which the one-pass search does not read)."""
        return self.scope != "written"

    @functools.cached_property
    def gate(self) -> Gate:
        """The compiled pattern and its gate (compiled on first use)."""
        words = tuple(tuple(ascii_reading(w) for w in g) for g in self.words) if self.folds else self.words
        beside = self.beside if self.beside is None or not self.folds else ascii_reading(self.beside)
        return make_gate(self.compiled_source, words, self.flags, self.scope == "paragraphs", self.hopeless,
                         prefiltered=self.prefiltered, restarts=self.restarts, beside=beside)

    @functools.cached_property
    def finditer(self) -> Callable[[Document], Iterator[re.Match[str]]]:
        """What gives the pattern's matches in a document (``pattern.finditer(doc)``): its gate's
        search, or a search of the whole text; set on first use, so a search is one call."""
        return self.gate.finditer if self.scope in ("lines", "paragraphs") else self._in_whole_text

    def _in_whole_text(self, doc: Document) -> Iterator[re.Match[str]]:
        """The matches in the whole folded text, or the text as written, when the gate admits the document."""
        if not self.gate.admits(doc):
            return iter(())
        return self.gate.pattern.finditer(doc.text if self.scope == "written" else doc.folded)


def pattern(source: str, *groups: str, flags: int = re.IGNORECASE, scope: Scope = "lines",
            hopeless: tuple[str, str] | None = None, folds: bool = False, severity: SeverityName | None = None,
            detail: str = "", condition: Condition | None = None, restarts: bool = True,
            beside: str | None = None) -> Pattern:
    """A :class:`Pattern`; each group (rarely needed) lists words separated by spaces (by commas when a
    word holds a space)."""
    return Pattern(source, word_groups(*groups), flags, scope, hopeless, folds, severity, detail, condition,
                   restarts, beside)


def prose(source: str, *groups: str, folds: bool = False, severity: SeverityName | None = None) -> Pattern:
    """A pattern of what text tells the agent: looked for in each paragraph holding its literals."""
    return pattern(source, *groups, scope="paragraphs", folds=folds, severity=severity)


def command(start: str, run: str, rest: str, *groups: str, lazy: bool = False, flags: int = re.IGNORECASE,
            severity: SeverityName | None = None, condition: Condition | None = None) -> Pattern:
    """A command pattern: ``start`` (the command), an open-ended ``run`` of its arguments
    (``[^\\n]*``, lazy or not) and the ``rest``.  Where it fails, the run is passed over in one
    step, as no later start inside it can succeed unless it runs on into the next line
    (``hopeless``), so a line of thousands of such commands is read once."""
    return pattern(start + run + ("?" if lazy else "") + rest, *groups, flags=flags, hopeless=(start, run),
                   severity=severity, condition=condition)


@dataclass(frozen=True)
class Rule:
    """One audit rule: its stable code, what it looks for and why it matters, how it is demoted,
    and its patterns with their condition (none: the rule is reported by a :class:`Check`, or,
    for SK644 and SK690-SK692, by the engine and the suppressions)."""

    code: str
    category: str
    severity: SeverityName
    message: str
    reason: str
    demotion: Demotion = NEVER
    patterns: tuple[Pattern, ...] = ()
    condition: Condition | None = None
    applies: Callable[[Document], bool] | None = None   # documents the patterns run on (None: all)

    @property
    def why(self) -> str:
        """The reason, with the sentence saying where a match is demoted."""
        return self.reason + self.demotion.note

    @property
    def demotable(self) -> bool:
        """Whether a match may be demoted by its context."""
        return self.demotion.demotes

    @functools.cached_property
    def slots(self) -> frozenset[int] | None:
        """The slots of the rule's patterns in the one-pass search for literals (None: a pattern
        is not in it, or the rule has no pattern)."""
        found = [each.gate.slot for each in self.patterns]
        return None if not found or None in found else frozenset(found)  # type: ignore[arg-type]

    def may_match(self, doc: Document) -> bool:
        """Whether a pattern of the rule may match in ``doc`` (all that one of them needs occurs):
        a rule that may not is passed over without a look at its patterns."""
        return self.slots is None or not self.slots.isdisjoint(doc.found.admitted)

    @functools.cached_property
    def _conditions(self) -> tuple[tuple[Pattern, Condition | None], ...]:
        """Each pattern with the condition its matches pass (its own, or the rule's)."""
        return tuple((each, each.condition or self.condition) for each in self.patterns)

    def hits(self, doc: Document) -> Iterator[Hit]:
        """The hits of the rule's patterns in a document, pattern by pattern, through their conditions."""
        if not self.patterns or self.applies is not None and not self.applies(doc):
            return
        admitted = doc.found.admitted if self.slots is not None else None
        for each, condition in self._conditions:
            if admitted is not None and each.gate.slot not in admitted:
                continue  # what it needs is missing: passed over without a call
            for match in each.finditer(doc):
                hit: Hit | None = Hit(self.code, match.start(), match.end(), each.detail, each.severity,
                                      folded=each.scope != "written")
                if condition is not None:
                    hit = condition(doc, match, hit)  # type: ignore[arg-type]
                if hit is not None:
                    yield hit


def rule(code: str, category: str, severity: SeverityName, message: str, reason: str, *,
         demotion: Demotion = NEVER, patterns: tuple[Pattern, ...] = (),
         applies: Callable[[Document], bool] | None = None) -> Callable[[Condition], Rule]:
    """Declare a rule whose matches pass through the decorated function (its condition)."""
    def declare(condition: Condition) -> Rule:
        return Rule(code, category, severity, message, reason, demotion, patterns, condition, applies)
    return declare


#: What a check looks at: a text document, a SKILL.md with its frontmatter, or a bundled file's bytes.
CheckScope = Literal["text", "skill", "file"]


@dataclass(frozen=True)
class SkillMd:
    """What a ``"skill"`` check gets: the SKILL.md, its frontmatter (None when it has none or it
    cannot be read) and the name of the folder holding it."""

    doc: Document
    frontmatter: dict[str, Any] | None
    folder_name: str

    def key_offset(self, key: str) -> int:
        """Where a top-level frontmatter key is written in the SKILL.md (0 when it cannot be found)."""
        match = re.search(rf"^{re.escape(key)}\s*:", self.doc.text, re.MULTILINE)
        return match.start() if match else 0


@dataclass(frozen=True)
class FileHead:
    """What a ``"file"`` check gets: a bundled file's path (POSIX, relative to the skill folder),
    first bytes, size and executable bit."""

    path: str
    head: bytes
    size: int
    executable: bool

    @property
    def suffix(self) -> str:
        """The extension, lower-cased, without its dot ("" for none; a dotfile's name is no extension)."""
        name = self.path.rsplit("/", 1)[-1]
        return name.rsplit(".", 1)[1].lower() if "." in name.lstrip(".") else ""


@dataclass(frozen=True)
class Check:
    """A check that is not a pattern: a function reporting ``rules`` for a document (``"text"``),
    a SKILL.md (``"skill"``, given a :class:`SkillMd`) or a bundled file (``"file"``, given a
    :class:`FileHead`)."""

    rules: tuple[Rule, ...]
    function: Callable[..., Iterator[Hit]]
    scope: CheckScope = "text"

    @property
    def codes(self) -> frozenset[str]:
        """The codes the check may report."""
        return frozenset(r.code for r in self.rules)


def check(*rules: Rule, scope: CheckScope = "text") -> Callable[[Callable[..., Iterator[Hit]]], Check]:
    """Declare the decorated function as the check that reports ``rules``."""
    def declare(function: Callable[..., Iterator[Hit]]) -> Check:
        return Check(tuple(rules), function, scope)
    return declare
