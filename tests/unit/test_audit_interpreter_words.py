"""SK630's interpreter given a download's output (``sh -c "$(curl ...)"``, ``bash `curl ...```): the
interpreter's words each start with a letter written out, which ``re`` tests before it enters a
branch.  The pattern, with no literal of its start to skip to, is tried at every place of the lines
its gate admits (around every ``curl`` and ``wget``, and every ``irm`` inside ``confirm``); the
first branch was ``(?:ba|z)?sh``, a repeat ``re`` entered at every place to find no ``b``.  The
matches are those of the words as they were."""
from __future__ import annotations

import random
import re

import pytest

from regex_steps import sre, sre_parse
from skillsite.audit.rules import RULES
from skillsite.audit.rules.remote_code import _INTERPRETER, _INTERPRETER_WORDS

#: The two patterns starting with an interpreter, and their sources with the words as they were.
INTERPRETERS = [p for p in RULES["SK630"].patterns if p.source.startswith(_INTERPRETER)]
OLD_WORDS = r"(?:ba|z)?sh|python[23]?|node|perl"
OLD = [re.compile(p.source.replace(_INTERPRETER_WORDS, OLD_WORDS), p.flags) for p in INTERPRETERS]


def first_parts(tree: list) -> list:
    """The first part of each branch of the top-level alternation of a parse tree (a group's body read through)."""
    (op, av), = tree[:1]
    assert op is sre.BRANCH
    firsts = []
    for branch in av[1]:
        part = branch[0]
        while part[0] is sre.SUBPATTERN:
            part = part[1][3][0]
        firsts.append(part)
    return firsts


@pytest.mark.parametrize("each", INTERPRETERS, ids=["$(", "`"])
def test_each_interpreter_word_starts_with_a_letter_re_tests_first(each):
    """In the gate's search (the pattern lower-cased, or the run it passes over where the pattern fails),
    the interpreter's words are an alternation each of whose branches starts with a literal."""
    assert len(INTERPRETERS) == 2 and each.gate.hopeless
    candidates = each.gate.candidates
    for op, av in first_parts(list(sre_parse.parse(candidates.pattern, candidates.flags))):
        assert op is sre.BRANCH
        assert [branch[0][0] for branch in av[1]] == [sre.LITERAL] * len(av[1]), av


#: Pieces of command lines: interpreters in any case (``ſ`` is an ``s`` ignoring case), their
#: options, a download run in ``$(...)`` or backticks, and what is none of these.
PIECES = ["sh", "bash", "zsh", "ksh", "dash", "BaSh", "ZSH", "\u017fh", "ba\u017fh", "python", "python3", "PYTHON2",
          "python4", "node", "nodejs", "perl", "sha", "bsh", "zbash", "-c", "-x", "-", "$(", '"$(', "`", "'`",
          "curl x", "wget -q", "iwr", ")", "`", "x", "#", "\n", ";", "$(curl x)", '"$( wget -q u )"', "`curl x`",
          "'` iwr u`'", "-c $(curl u)", "-c `wget u`"]
GAPS = [" ", "", "  ", "\t", "\n"]


def test_the_words_find_what_they_found():
    chance, found = random.Random(630), 0
    for _ in range(4000):
        text = "".join(chance.choice(PIECES) + chance.choice(GAPS) for _ in range(chance.randint(1, 14)))
        for each, old in zip(INTERPRETERS, OLD):
            spans = [m.span() for m in each.gate.pattern.finditer(text) if m.start("hopeless") < 0]
            assert spans == [m.span() for m in old.finditer(text)], text
            found += bool(spans)
    assert found > 100
