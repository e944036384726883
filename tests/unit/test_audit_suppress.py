"""Suppressions: parsing audit.ignore, applying them, and reporting the bad ones."""
from __future__ import annotations

from pathlib import Path

from skillsite.audit import SkillAudit, Suppression, apply_suppressions, parse_suppressions
from skillsite.audit.model import Finding


def finding(code: str = "SK663", path: str = "scripts/a.sh") -> Finding:
    return Finding(code, "permissions", "high", path, 1, 1, "destructive command")


RESULTS = [SkillAudit("team/cleanup", Path("skills/team/cleanup"), (finding(), finding("SK660", "SKILL.md"))),
           SkillAudit("other", Path("skills/other"), (finding(),))]


def test_parse_valid_entries():
    found, problems = parse_suppressions({"ignore": [
        {"code": "sk663", "skill": "team/*", "reason": "cleans its own sandbox"},
        {"code": "SK660", "skill": "team/cleanup", "reason": "needs git", "path": "SKILL.md"}]})
    assert problems == []
    assert found == [Suppression("SK663", "team/*", "cleans its own sandbox", "*", 0),
                     Suppression("SK660", "team/cleanup", "needs git", "SKILL.md", 1)]


def test_parse_reports_malformed_entries():
    found, problems = parse_suppressions({"ignore": ["SK663", {"code": "SK999", "skill": "x", "reason": "r"},
                                                    {"code": "SK663", "skill": "x", "reason": "r", "extra": 1},
                                                    {"code": "SK663", "skill": "", "reason": "r"},
                                                    {"code": "SK663", "skill": "x"}]})
    assert len(problems) == 4
    assert found == [Suppression("SK663", "x", "", "*", 4)]  # kept: apply_suppressions reports it
    assert parse_suppressions(None) == ([], [])
    assert parse_suppressions({"fail_on": "high"}) == ([], [])
    assert parse_suppressions("nope")[1] and parse_suppressions({"ignore": "SK663"})[1]


def test_matching_suppression_removes_findings():
    kept, problems = apply_suppressions(RESULTS, [Suppression("SK663", "team/*", "sandboxed", index=0)])
    assert problems == []
    assert [f.code for f in kept[0].findings] == ["SK660"] and kept[0].suppressed == 1
    assert kept[1].findings == RESULTS[1].findings and kept[1].suppressed == 0


def test_suppression_without_reason_is_reported_and_not_applied():
    kept, problems = apply_suppressions(RESULTS, [Suppression("SK663", "*", "", index=0)], "conf/skillsite.yml")
    assert [p.code for p in problems] == ["SK690"]
    assert problems[0].path == "conf/skillsite.yml" and problems[0].severity == "medium"
    assert kept[0].findings == RESULTS[0].findings


def test_suppression_matching_nothing_is_reported():
    kept, problems = apply_suppressions(RESULTS, [Suppression("SK601", "team/*", "old", index=3)])
    assert [p.code for p in problems] == ["SK691"] and "audit.ignore[3]" in problems[0].message
    assert kept == RESULTS
