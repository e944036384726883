"""Real skills (the checked-in sample, and the shared corpus of 1,091 when present): every
SKILL.md gets a verdict, no traceback."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest


@pytest.mark.parametrize("profile", ["default", "spec"])
def test_every_skill_has_a_verdict(real_skills, profile):
    corpus = real_skills.path
    result = subprocess.run([sys.executable, "-m", "skillsite", "validate", str(corpus), "--profile", profile,
                             "--format", "json"], capture_output=True, text=True, timeout=600)
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr
    data = json.loads(result.stdout)
    on_disk = {str(p) for p in corpus.rglob("SKILL.md")}
    assert {s["path"] for s in data["skills"]} == on_disk
    assert len(data["skills"]) == real_skills.skills
    summary = data["summary"]
    assert summary["valid"] + summary["invalid"] == real_skills.skills
    # in the shared corpus, 30 SKILL.md files are git symlinks stored as text, 1 is a sample
    # without frontmatter; the checked-in sample holds one of each
    assert summary["left_out"] == real_skills.left_out
