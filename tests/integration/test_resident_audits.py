"""``serve``'s rebuilds in memory (#47) keep each unchanged skill's audit findings as made of the
cache's: only a skill whose findings are new has them made again, and what an edit changes in
them (a finding gone, a suppression, ``fail_on``) shows exactly as a cold build writes it."""
from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

from support import EXAMPLES, append_line, tree_bytes
from skillsite.config import SiteConfig
from skillsite.publish import audit_results, pipeline
from skillsite.publish.build import build
from skillsite.publish.resident import Resident

SUPPRESSING = SiteConfig(audit={"ignore": [{"code": "SK660", "skill": "release-manager", "reason": "a test"}],
                                "fail_on": "high"})


def _age(tree: Path) -> None:
    stamp = time.time() - 60
    for path in [tree, *tree.rglob("*")]:
        os.utime(path, (stamp, stamp))


def _findings(out: Path, skill_id: str) -> list[str]:
    entries = json.loads((out / "skills.json").read_text("utf-8"))["skills"]
    return [f["code"] for e in entries if e["id"] == skill_id for f in e["audit"]["findings"]]


def test_a_resident_rebuild_makes_only_the_changed_skill_s_findings(tmp_path, monkeypatch):
    """A body edit of a skill with a finding makes that skill's findings again, no other skill's
    (six have some); an edit that takes its finding away, and a configuration that suppresses
    another's and sets ``fail_on``, give a cold build's output."""
    src, cache, out = tmp_path / "src", tmp_path / "cache", tmp_path / "site"
    shutil.copytree(EXAMPLES, src)
    _age(src)
    resident = Resident()
    assert build([src], out, cache_dir=cache, resident=resident).ok
    made: list[str] = []   # the findings apply_audits makes (a release's are made apart)
    applying: list[bool] = []
    real, real_apply = audit_results.Finding, pipeline.apply_audits

    def apply(*args, **kwargs):
        applying.append(True)
        try:
            return real_apply(*args, **kwargs)
        finally:
            applying.pop()
    monkeypatch.setattr(pipeline, "apply_audits", apply)
    monkeypatch.setattr(audit_results, "Finding", lambda **fields: (applying and made.append(fields["code"]))
                        or real(**fields))
    edited = src / "incident-response" / "SKILL.md"

    def rebuilt(config: SiteConfig, cold: str) -> list[str]:
        """The findings the resident rebuild made, its output checked against a cold build's."""
        made.clear()
        resident.saw([os.path.realpath(edited)])
        assert build([src], out, config, cache_dir=cache, resident=resident).ok
        by_the_rebuild = list(made)
        assert build([src], tmp_path / cold, config).ok
        assert tree_bytes(out) == tree_bytes(tmp_path / cold)
        return by_the_rebuild

    append_line(edited, "One more line.")
    assert rebuilt(SiteConfig(), "cold-1") == ["SK661"]  # incident-response's, audited again
    assert _findings(out, "incident-response") == ["SK661"]
    text = edited.read_text("utf-8")
    edited.write_text(text.replace(" Read Write\n", " Read\n"), "utf-8")
    _age(edited.parent)
    assert rebuilt(SiteConfig(), "cold-2") == [] and _findings(out, "incident-response") == []
    append_line(edited, "Another line.")
    rebuilt(SUPPRESSING, "cold-3")  # another scope: nothing kept is taken
    assert _findings(out, "release-manager") == ["SK661"]
    append_line(edited, "A third line.")
    assert rebuilt(SUPPRESSING, "cold-4") == []
