"""The words that show a sentence warns against what it mentions (skillsite.audit.context's ``_CUES``,
read around every finding to demote it): a look-ahead of their first letters comes before them, as
``re`` has no quick test of a word's first letter regardless of case and tried each of them at every
word's boundary.  It fails only where every word would: the cues found are the same."""
from __future__ import annotations

import random
import re

from regex_steps import Steps, sre, sre_parse

from skillsite.audit import context
from skillsite.audit.context import _CUE_FIRST, _CUES

#: The pattern as it was, without the look-ahead.
WITHOUT = re.compile(_CUES.pattern.replace(_CUE_FIRST, "", 1), _CUES.flags)
#: Cue words in any case (``ſ`` is an ``s`` and ``K`` a ``k`` to a pattern ignoring case), near misses
#: and the words of commands around findings.
PIECES = ["never", "NEVER", "Don't", "do  not", "must\tnot", "\u017fhould not", "cannot", "REFUSED", "blocked",
          "Beware", "warning", "dangerous", "unsafe", "attackers", "malware", "adversarial", "exploits", "payloads",
          "red flags", "vulnerable", "detected", "flagged", "anti-pattern", "not recommended", "stealthy",
          "exfiltrate", "bad example", "wrong", "evil", "Никогда", "ОПАСНО", "атака", "уязвимость", "фишинг", "❌", "⚠",
          "nevermind", "neve", "a", "-a", "base64", '"a"a&&a', "curl -o x", "sudo", "\u212a", "\u0130", "_never", "x1",
          "flag_", "https://evil.io"]


def test_the_look_ahead_is_the_one_removed():
    assert WITHOUT.pattern != _CUES.pattern and WITHOUT.pattern.startswith(r"\b(?:never|")


def test_the_cues_found_are_the_same():
    chance, found = random.Random(86), 0
    for _ in range(3000):
        text = "".join(chance.choice(PIECES) + chance.choice([" ", "", "\n", ". ", "-", "_", "é"])
                       for _ in range(chance.randint(1, 12)))
        spans = [m.span() for m in _CUES.finditer(text)]
        assert spans == [m.span() for m in WITHOUT.finditer(text)], text
        found += bool(spans)
    assert found > 1000


def test_the_first_letters_are_those_of_the_words_in_any_case():
    """The first character of every word of the pattern's parse tree; every character up to U+2FFFF
    the look-ahead admits ignoring case is one of them ignoring case, and back."""
    (_, (_, words)), = [item for item in sre_parse.parse(WITHOUT.pattern, WITHOUT.flags)[0][1][1][0]
                        if item[0] == sre.BRANCH]
    firsts = {chr(word[0][1]) for word in words}
    assert all(word[0][0] == sre.LITERAL for word in words) and len(words) == 52
    first = re.compile("|".join(map(re.escape, sorted(firsts))), re.IGNORECASE)
    admitted = re.compile(_CUE_FIRST + ".", re.IGNORECASE | re.DOTALL)
    assert [c for c in map(chr, range(0x30000)) if bool(admitted.match(c)) != bool(first.match(c))] == []


def test_a_sentence_without_cues_is_read_in_a_few_steps_a_character():
    """The lines of commands around thousands of findings: at most 20 steps a character (before: 32,
    each word of the pattern tried at each word's boundary)."""
    text = 'base64 -a -adaa -o "a"a&&a\n' * 20
    steps = Steps(context._CUES, budget=10**7)
    assert steps.search(text) is None and steps.steps <= 20 * len(text)
