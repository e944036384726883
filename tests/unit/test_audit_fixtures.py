"""The quality gate: recall and precision of `skillsite audit` on the labelled fixtures.

tests/data/audit-fixtures holds malicious skills and benign look-alikes (written by
tests/data/make_audit_fixtures.py, labelled in labels.json).  A skill counts as flagged when its
risk is high (what `skillsite audit` fails on by default).
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from skillsite.audit import audit_skill, risk_of

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "audit-fixtures"
LABELS = json.loads((FIXTURES / "labels.json").read_text(encoding="utf-8"))["fixtures"]


@pytest.fixture(scope="module")
def results() -> dict[str, list]:
    return {fx["id"]: audit_skill(FIXTURES / fx["id"]) for fx in LABELS}


def test_fixture_set_is_large_and_covers_every_category():
    labels = Counter(fx["label"] for fx in LABELS)
    assert labels["malicious"] >= 45 and labels["benign"] >= 45
    categories = {fx["category"] for fx in LABELS if fx["label"] == "malicious"}
    assert categories == {"invisible-text", "prompt-injection", "exfiltration", "remote-code", "obfuscation",
                          "secrets", "permissions"}
    assert all((FIXTURES / fx["id"] / "SKILL.md").is_file() for fx in LABELS)


def test_recall_and_precision_at_least_095(results):
    flagged = {name for name, found in results.items() if risk_of(found) == "high"}
    malicious = {fx["id"] for fx in LABELS if fx["label"] == "malicious"}
    true_positives = len(flagged & malicious)
    recall = true_positives / len(malicious)
    precision = true_positives / len(flagged) if flagged else 0.0
    assert recall >= 0.95, sorted(malicious - flagged)
    assert precision >= 0.95, sorted(flagged - malicious)


@pytest.mark.parametrize("fixture", LABELS, ids=[fx["id"] for fx in LABELS])
def test_expected_codes(results, fixture):
    found = {f.code for f in results[fixture["id"]]}
    assert set(fixture["codes"]) <= found
    if fixture["label"] == "benign":
        assert found <= set(fixture["codes"]), "a benign look-alike raised an unexpected code"


def test_fixtures_are_not_other_tests_skill_trees():
    """The fixtures live apart from tests/data/sample-corpus, the tree the real-skill tests walk."""
    sample = FIXTURES.parent / "sample-corpus"
    assert not str(FIXTURES).startswith(str(sample))


def test_the_committed_fixtures_are_what_the_script_writes():
    """``make_audit_fixtures.py --check`` (contributing.md) says whether they are current: it
    ignored the flag, and rewrote them."""
    import subprocess
    import sys

    script = Path(__file__).resolve().parents[1] / "data" / "make_audit_fixtures.py"
    checked = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, timeout=120)
    assert (checked.returncode, checked.stdout.strip()) == (0, "tests/data/audit-fixtures: up to date"), checked
