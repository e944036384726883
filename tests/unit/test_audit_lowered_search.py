"""Every gate's lowered search (its pattern lower-cased, the ``\\b`` its branches start with
dropped, searched in the lower-cased text, each place confirmed by the pattern) finds exactly the
pattern's own matches: in generated texts made of every gate's literals, in any case, inside words
and beside them, and in every text file of the sample corpus and of the audit's fixtures; with a
capital dotted I among them too (searched for as "i", in :attr:`Document.scanned`)."""
from __future__ import annotations

import gc
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillsite.audit import engine
from skillsite.audit.files import decode
from skillsite.audit.text import Document, Gate, lowered_pattern, make_document, without_leading_boundaries

DATA = Path(__file__).resolve().parents[1] / "data"
#: Real skills, and the audit's fixtures: a skill of each finding and of each near miss.
TREES = (DATA / "sample-corpus", DATA / "audit-fixtures")


def _gates() -> list[Gate]:
    """Every gate the audit has made: its declared patterns' and the checks' own."""
    engine.prepare()
    found = {id(each): each for each in gc.get_objects() if isinstance(each, Gate)}
    return sorted((each for each in found.values() if each.candidates is not None), key=lambda g: g.pattern.pattern)


GATES = _gates()
#: Each gate's literals and the words of its pattern, in three cases, and what sits beside them.
WORDS = sorted({word for gate in GATES for word in (*(gate.literals or ()), *(gate.starts or ()),
                                                     *(w for group in gate.also for w in group))}
               | {word for gate in GATES for word in re.findall(r"[A-Za-z][\w.-]*", gate.pattern.pattern)})
PIECES = [*WORDS, *(w.upper() for w in WORDS), *(w.title() for w in WORDS),
          "x", "_", "0", "-", ".", "/", "$(", "'", '"', "|", ">", "~/", "c:\\", "\u212a", "\u017f", "\u00e9", "\u0130"]
SEPARATORS = ["", " ", "  ", "\n", "\t", "\n\n", " -x ", "=", ";"]


def _expected(gate: Gate, doc: Document, start: int, end: int) -> list[tuple[tuple[int, int], tuple[str | None, ...]]]:
    """The pattern's matches in ``[start, end)`` of the folded text: ``finditer``'s, or a hopeless
    gate's search (which goes on where a run it passed over ends), without the runs."""
    found = gate._searched(doc.folded, start, end) if gate.hopeless else gate.pattern.finditer(doc.folded, start, end)
    return [(m.span(), m.groups()) for m in found if not gate.hopeless or m.start("hopeless") < 0]


def _lowered(gate: Gate, doc: Document, start: int, end: int) -> list[tuple[tuple[int, int], tuple[str | None, ...]]]:
    """The matches the gate confirms at the places its lowered search finds."""
    found = gate._confirmed(doc, start, end)
    return [(m.span(), m.groups()) for m in found if not gate.hopeless or m.start("hopeless") < 0]


def assert_lowered_search_finds_the_patterns_matches(text: str, ranges: int = 2, seed: int = 0) -> None:
    doc = make_document("scripts/run.sh", text)
    pick = random.Random(seed)
    spans = [(0, len(text))] + [tuple(sorted((pick.randint(0, len(text)), pick.randint(0, len(text)))))
                                for _ in range(ranges)]
    for gate in GATES:
        for start, end in spans:
            assert _lowered(gate, doc, start, end) == _expected(gate, doc, start, end), (gate.pattern.pattern, text)


def test_a_boundary_leading_any_branch_is_dropped_from_the_lowered_search():
    assert lowered_pattern(r"\bSecurity\s+dump\b|\bLogin\.keychain\b") == r"security\s+dump\b|login\.keychain\b"
    assert lowered_pattern(r"(?:\bCat|x\bY|(?=\bz)|\bq)\bw") == r"(?:cat|x\by|(?=\bz)|q)\bw"
    assert without_leading_boundaries(r"\b(?P<Name>\bx|[\b|]\by)|(?!\bz)\b") == r"(?P<Name>x|[\b|]\by)|(?!\bz)\b"
    assert without_leading_boundaries(r"\\bx|a\b|[]\b]\bc") == r"\\bx|a\b|[]\b]\bc"
    # inside a lookaround, a branch's \b stays: dropped from a negative one, it would turn matches down
    assert without_leading_boundaries(r"(?!x|\bz)\by|(?<=a|\bb)c") == r"(?!x|\bz)\by|(?<=a|\bb)c"


def test_the_audit_has_its_gates():
    assert len(GATES) > 100


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(PIECES), st.sampled_from(SEPARATORS)), max_size=25),
       st.integers(0, 2 ** 16))
def test_the_lowered_search_finds_each_patterns_matches_in_generated_texts(pieces, seed):
    assert_lowered_search_finds_the_patterns_matches("".join(piece + separator for piece, separator in pieces),
                                                     seed=seed)


def _sample_texts() -> list[str]:
    return [decode(path.read_bytes()) for tree in TREES for path in sorted(tree.rglob("*"))
            if path.is_file() and path.suffix in (".md", ".py", ".sh", ".js", ".ts", ".txt", "")
            and path.stat().st_size < 200_000]


@pytest.mark.parametrize("part", range(4))
def test_the_lowered_search_finds_each_patterns_matches_in_real_and_fixture_skills(part):
    texts = _sample_texts()
    assert len(texts) > 100
    for number, text in enumerate(texts[part::4]):
        assert_lowered_search_finds_the_patterns_matches(text, ranges=1, seed=number)
        if number % 8 == 0:   # a capital dotted I: the lowered search reads it as "i"
            assert_lowered_search_finds_the_patterns_matches("\u0130" + text.replace("i", "\u0130", 3), 1, number)
