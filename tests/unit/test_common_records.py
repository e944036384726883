"""A catalog holds one record for what most of its skills have (no requirements, the default
visibility, no triggers, nothing the audit found), however the skill was read: checked here,
checked by a worker (a pickled copy comes back) or taken from the cache."""
from __future__ import annotations

import pytest

from skillsite.agent.entry import NOTHING_FOUND, AuditSummary
from skillsite.audit.model import Finding
from skillsite.cache import Cache
from skillsite.models import NOTHING_REQUIRED, Requirements
from skillsite.publish.audit_results import audit_summary
from skillsite.source.catalog import read_catalog
from support import write_skill


def _tree(root):
    write_skill(root, "plain-one")
    write_skill(root, "plain-two")
    write_skill(root, "needs-git", "name: needs-git\ndescription: Uses git. Use when testing.\n"
                                   "requires:\n  bins: [git]\n")
    return root


@pytest.mark.parametrize("jobs", [1, 2])
def test_skills_without_requirements_hold_the_one_record(tmp_path, jobs: int) -> None:
    src = _tree(tmp_path / "src")
    path = tmp_path / "cache.sqlite"
    for run in ("checked", "from the cache"):
        cache = Cache(path, "scope")
        skills = {s.id: s for s in read_catalog([src], jobs=jobs, cache=cache).skills}
        cache.save()
        assert skills["plain-one"].requirements is NOTHING_REQUIRED, run
        assert skills["plain-two"].requirements is NOTHING_REQUIRED, run
        assert skills["needs-git"].requirements == Requirements(bins=("git",)), run
    assert cache.hits > 0  # the second run took its skills from the cache


def test_a_clean_audit_is_the_one_record_and_findings_are_their_own() -> None:
    assert audit_summary([]) is NOTHING_FOUND
    finding = Finding("AU101", "exfiltration", "medium", "SKILL.md", 3, 1, "sends data out")
    found = audit_summary([finding])
    assert found is not NOTHING_FOUND and found.risk == "medium" and len(found.findings) == 1
    assert AuditSummary.from_json({"risk": "none", "findings": []}) is NOTHING_FOUND
