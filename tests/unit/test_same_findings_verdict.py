"""benchmarks/audit_same_findings.py tells findings that differ (a failure) from pattern matches that
differ under the same findings (said as such, a failure only with ``--spans``), and names the
patterns whose matches moved rather than calling them findings."""
from __future__ import annotations

from support import REPO, load_script

BENCH = REPO / "benchmarks" / "audit_same_findings.py"



FINDING = {"code": "SK622", "line": 3}
#: SK622's link definition matched from its own line: its match starts later, its finding does not move.
BEFORE_SPANS = [("skill/ref.md", {"49": [[40, 90]], "3": [[1, 5]], "7": [[2, 4], [8, 9]]})]
AFTER_SPANS = [("skill/ref.md", {"49": [[44, 90]], "3": [[1, 5]], "7": [[8, 9], [2, 4]]})]


def test_moved_matches_under_the_same_findings_are_named_and_pass_unless_spans_is_asked(capsys):
    bench = load_script(BENCH)
    findings = bench.compare([("skill", [FINDING])], [("skill", [FINDING])])
    spans = bench.compare(BEFORE_SPANS, AFTER_SPANS)
    assert findings == []
    assert spans == ["skill/ref.md: pattern 49: only before [[40, 90]], only after [[44, 90]]; "
                     "pattern 7: the same matches in another order"]   # one line a file
    assert bench.verdict(findings, spans, strict=False) == 0
    assert "ok: every finding is the same; pattern matches differ (1 listed above)" in capsys.readouterr().out
    assert bench.verdict(findings, spans, strict=True) == 1
    assert "FAIL" in capsys.readouterr().out


def test_a_finding_that_differs_fails_whatever_the_matches():
    bench = load_script(BENCH)
    findings = bench.compare([("skill", [FINDING])], [("skill", [])])
    assert findings == [f"skill: only before {[FINDING]}, only after []"]
    assert bench.verdict(findings, [], strict=False) == 1
    assert bench.verdict([], [], strict=True) == 0
