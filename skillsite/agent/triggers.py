"""Triggers: when a skill says it applies to a user message (standard library only).

A skill declares ``triggers`` as a list of phrases, or as a mapping of ``keywords``, ``verbs``
and ``patterns`` (regular expressions).  The build checks them and writes them normalised into
``skills.json`` (:func:`normalise_triggers`); the loader matches them against a message
(:func:`fired_triggers`).  A pattern comes from untrusted input, so both sides refuse one that
could backtrack for long (:func:`pattern_problem`, rules in :mod:`skillsite.agent.regex_safety`),
run its canonical re-written form, and match at most ``MAX_MESSAGE_CHARS``.  A skill's patterns
together may cost no more than twice what one pattern may (``MAX_SKILL_WORK``): those past it, in order,
are refused too (:func:`within_budget`), so many cheap-looking patterns cannot add up to a stall.
A whole catalog's may cost no more than ``MAX_CATALOG_WORK``: the skills offered to a model, in prompt
order, run their patterns until the next one would pass it, and none after that
(:func:`within_catalog_budget`), so a thousand skills at their own budget cannot either.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Iterable, Mapping, Sequence

from skillsite.agent.regex_safety import WORK_PER_CHAR, compile_trigger, search_work, unsafe_reason, verdicts_kept
from skillsite.search.terms import TRIGGER_WORD_KINDS, is_cjk_letter, tokenize, trigger_words

TRIGGER_KINDS = (*TRIGGER_WORD_KINDS, "patterns")
MAX_PATTERN_CHARS = 200
MAX_MESSAGE_CHARS = 4000
#: the most work (regex_safety's measure) one skill's patterns may cost together on one message:
#: twice what one pattern may, which holds half a dozen patterns with unbounded repeats
MAX_SKILL_WORK = 2 * WORK_PER_CHAR * MAX_MESSAGE_CHARS * MAX_MESSAGE_CHARS
#: the most work the patterns of a whole catalog may cost together on one message: four skills at
#: their budget, some two dozen patterns with an unbounded repeat; bounded ones fit by the thousand
MAX_CATALOG_WORK = 4 * MAX_SKILL_WORK
#: a skill's patterns that run, each with what runs for it
Runnable = Sequence[tuple[str, re.Pattern[str]]]


def pattern_problem(pattern: str) -> str | None:
    """Why a trigger pattern is refused (empty, too long, invalid, or outside the subset that
    cannot backtrack for long: see :mod:`skillsite.agent.regex_safety`); None when it is safe."""
    if not pattern.strip():
        return "is empty"
    if len(pattern) > MAX_PATTERN_CHARS:
        return f"is {len(pattern)} characters long; the limit is {MAX_PATTERN_CHARS}"
    return unsafe_reason(pattern, MAX_MESSAGE_CHARS)


def _work(pattern: str) -> int | None:
    """The most work one search of ``pattern`` may cost (None when it is refused)."""
    return search_work(pattern, MAX_MESSAGE_CHARS) if pattern_problem(pattern) is None else None


def within_budget(patterns: Sequence[str]) -> list[bool]:
    """For each accepted pattern in order, whether the work of the accepted ones up to it stays
    within ``MAX_SKILL_WORK`` (refused patterns cost nothing and say False)."""
    spent, kept = 0, []
    for pattern in patterns:
        work = _work(pattern)
        fits = work is not None and spent + work <= MAX_SKILL_WORK
        spent += work if fits and work is not None else 0
        kept.append(fits)
    return kept


def own_budget_work(patterns: Sequence[str]) -> list[int | None]:
    """For each pattern of a skill, the work it may cost when its skill's budget lets it run
    (:func:`within_budget`); None for one refused or past that budget."""
    return [_work(pattern) if fits else None for pattern, fits in zip(patterns, within_budget(patterns))]


def within_catalog_budget(skills: Iterable[Sequence[int | None]]) -> list[list[bool]]:
    """For each skill's patterns, given as :func:`own_budget_work` (the skills in prompt order),
    whether each runs: with every pattern that runs before it, it stays within ``MAX_CATALOG_WORK``.
    The first that does not ends the catalog's patterns: none after it runs, so leaving skills out
    (those not offered here) never leaves out one more."""
    spent, full, decided = 0, False, []
    for works in skills:
        kept = []
        for work in works:
            full = full or (work is not None and spent + work > MAX_CATALOG_WORK)
            runs = work is not None and not full
            spent += work if runs and work is not None else 0
            kept.append(runs)
        decided.append(kept)
    return decided


def catalog_patterns(skills: Iterable[tuple[str, Sequence[str]]]) -> dict[str, Runnable]:
    """The patterns that run of each skill, by id (the skills in prompt order:
    :func:`within_catalog_budget`), each with what runs for it, compiled once (each pattern
    checked once, however many the catalog has: :func:`~skillsite.agent.regex_safety.verdicts_kept`)."""
    with verdicts_kept():
        listed = [(skill_id, _texts(list(patterns))) for skill_id, patterns in skills]
        runs = within_catalog_budget([own_budget_work(patterns) for _, patterns in listed])
        found: dict[str, Runnable] = {}
        for (skill_id, patterns), kept in zip(listed, runs):
            found.setdefault(skill_id, [(p, compile_trigger(p, MAX_MESSAGE_CHARS))
                                        for p, r in zip(patterns, kept) if r])
        return found


def _affordable(patterns: Sequence[str]) -> list[str]:
    """The accepted patterns that fit in the skill's budget, in order."""
    return [p for p, fits in zip(patterns, within_budget(patterns)) if fits]


def _texts(value: Any) -> list[str]:
    return [item.strip() for item in value if isinstance(item, str) and item.strip()] \
        if isinstance(value, list) else []


def _searchable(texts: list[str]) -> list[str]:
    """The phrases, keywords or verbs that can fire: those with a word search keeps (not only stop words)."""
    return [text for text in texts if _terms(text)]


def normalise_triggers(value: Any) -> dict[str, list[str]]:
    """A frontmatter ``triggers`` value as ``{phrases, keywords, verbs, patterns}``: a list
    becomes phrases; empty entries, duplicates, words with nothing search keeps (``C#``, ``what can
    you do``: stop words only) and refused patterns are dropped."""
    if isinstance(value, list):
        value = {"phrases": value}
    if not isinstance(value, Mapping):
        value = {}
    found = {kind: list(dict.fromkeys(_texts(value.get(kind)))) for kind in TRIGGER_KINDS}
    found.update({kind: _searchable(found[kind]) for kind in TRIGGER_WORD_KINDS})
    found["patterns"] = _affordable(found["patterns"])
    return found


def _entries(value: Any) -> list[tuple[str, int, Any]]:
    """Each entry of a frontmatter ``triggers`` value with its field: ``(triggers.verbs, 0, "deploy")``."""
    if isinstance(value, list):
        return [("triggers", index, item) for index, item in enumerate(value)]
    if isinstance(value, Mapping):
        return [(f"triggers.{kind}", index, item) for kind in ("keywords", "verbs", "patterns")
                if isinstance(value.get(kind), list) for index, item in enumerate(value[kind])]
    return []


def wordless_triggers(value: Any) -> list[tuple[str, str]]:
    """The phrases, keywords and verbs of a frontmatter ``triggers`` value made only of words search
    leaves out (``C#``, ``what can you do``, ``N+1``): ``(field, message)`` per entry, e.g. ``triggers[1]``.
    Such an entry can never fire; :func:`normalise_triggers` drops it and the skill keeps the others."""
    return [(f"{field}[{index}]", f"{field} entry {item!r} has no searchable word (search leaves out stop words, "
                                  "one-letter words and punctuation); it can never fire and is dropped")
            for field, index, item in _entries(value)
            if not field.endswith("patterns") and isinstance(item, str) and item.strip() and not _terms(item)]


def trigger_problems(value: Any) -> list[tuple[str, str]]:
    """What is wrong with a frontmatter ``triggers`` value beyond its type (the schema checks
    that): ``(field, message)`` per empty entry or refused pattern, e.g. ``triggers.patterns[1]``
    (an entry with no searchable word is :func:`wordless_triggers`)."""
    entries = _entries(value)
    if not entries:
        return []
    affordable = set(normalise_triggers(value)["patterns"])
    problems = []
    for field, index, item in entries:
        if not isinstance(item, str):
            continue
        if not item.strip():
            problems.append((f"{field}[{index}]", f"{field} entry {index + 1} is empty"))
        elif field.endswith("patterns") and (problem := pattern_problem(item)):
            problems.append((f"{field}[{index}]", f"trigger pattern {item[:60]!r} {problem}"))
        elif field.endswith("patterns") and item.strip() not in affordable:
            problems.append((f"{field}[{index}]", f"trigger pattern {item[:60]!r} takes the skill's patterns past "
                                                  "the work they may cost together; it is left out"))
    return problems


@lru_cache(maxsize=4096)
def _compiled(pattern: str) -> re.Pattern[str] | None:
    """What runs for an accepted pattern: its canonical form, case-insensitively (None if refused)."""
    return compile_trigger(pattern, MAX_MESSAGE_CHARS) if pattern_problem(pattern) is None else None


@lru_cache(maxsize=4096)
def _terms(text: str) -> tuple[str, ...]:
    return tuple(tokenize(text))


def _contains(words: Sequence[str], run: Sequence[str]) -> bool:
    """Whether ``run`` occurs in ``words`` as consecutive items, a CJK letter at either end of
    ``run`` standing for the pair at the edge of a run of the message (:func:`_edge_fits`)."""
    width = len(run)
    if width == 0:
        return False
    first, last = run[0], run[-1]
    if not (is_cjk_letter(first) or is_cjk_letter(last)):
        return any(words[i:i + width] == run for i in range(len(words) - width + 1) if words[i] == first)
    return any(_edge_fits(words[i:i + width], run) for i in range(len(words) - width + 1)
               if first in words[i] and last in words[i + width - 1])  # each the term, or a pair holding it


def _edge_fits(words: Sequence[str], run: Sequence[str]) -> bool:
    """Whether ``words`` are ``run``, but for a CJK letter at either end of ``run``, which may be
    the letter its side of a pair of the message's (:func:`~skillsite.search.terms.cjk_pairs`):
    a trigger "Python库" is the terms ``python``, ``库``, while "一个Python库来处理" reads
    ``python``, ``库来``: the library is there, the letter beginning the run after Python.  A
    trigger of one CJK letter fires on any pair holding it, as a search of the message's text would."""
    last = len(run) - 1
    for at, (word, term) in enumerate(zip(words, run)):
        if word == term:
            continue
        if not (is_cjk_letter(term) and (at == 0 or at == last) and len(word) == 2 and is_cjk_letter(word[0])):
            return False
        edges = word if last == 0 else word[1] if at == 0 else word[0]
        if term not in edges:
            return False
    return True


def fired_triggers(triggers: Mapping[str, Any], message: str, runnable: Runnable | None = None) -> list[str]:
    """The triggers of one skill (as ``skills.json`` has them) that fire on ``message``:
    phrases, keywords and verbs by whole words, case-insensitively and stemmed as search
    stems; patterns searched in the message's first ``MAX_MESSAGE_CHARS`` characters.
    ``runnable``: the skill's patterns that run, as the catalog's budget left them
    (:func:`catalog_patterns`); by default those within the skill's own budget."""
    words = tokenize(message)
    fired = [text for text in trigger_words(dict(triggers)) if _contains(words, list(_terms(text)))]
    head = message[:MAX_MESSAGE_CHARS]
    if runnable is None:
        runnable = [(p, c) for p in _affordable(_texts(triggers.get("patterns"))) if (c := _compiled(p)) is not None]
    fired += [pattern for pattern, compiled in runnable if compiled.search(head)]
    return fired
