"""The hostile fixture tree: exact diagnostics, kept in a golden file.

Regenerate after a deliberate change with ``SKILLSITE_UPDATE_GOLDEN=1 pytest tests/integration/test_hostile_golden.py``
and review the diff line by line.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support import REPO
from make_hostile import OUTSIDE_MARKER, make_hostile_tree
from skillsite.publish.build import build

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)

GOLDEN = REPO / "tests" / "golden"


def rendered(root: Path, profile: str) -> str:
    result = subprocess.run([sys.executable, "-m", "skillsite", "validate", ".", "--profile", profile,
                             "--format", "json"], capture_output=True, text=True, cwd=root, timeout=300)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    data = json.loads(result.stdout)
    lines = [f"{d['path']}:{d['line']}:{d['col']}: {d['severity']} {d['code']} {d['message']}"
             for d in data["diagnostics"]]
    lines.append("")
    lines += [f"{'valid  ' if s['valid'] else 'INVALID'} {s['id']}" for s in data["skills"]]
    lines.append("")
    lines.append(json.dumps({k: v for k, v in data["summary"].items()}, sort_keys=True))
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def hostile_root(tmp_path_factory) -> Path:
    return make_hostile_tree(tmp_path_factory.mktemp("hostile") / "root")


@pytest.mark.parametrize("profile", ["default", "spec"])
def test_hostile_tree_diagnostics_match_the_golden_file(hostile_root, profile):
    golden = GOLDEN / f"hostile-{profile}.txt"
    text = rendered(hostile_root, profile).replace(str(hostile_root.parent), "<tmp>")
    if os.environ.get("SKILLSITE_UPDATE_GOLDEN"):
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


def test_hostile_tree_builds_without_leaking_anything(hostile_root, tmp_path):
    out = tmp_path / "site"
    result = build([hostile_root], out, keep_going=True)
    assert result.ok and len(result.published) > 30
    for path in out.rglob("*"):
        if path.is_file():
            assert OUTSIDE_MARKER.encode() not in path.read_bytes(), path
    assert not (out / "skills" / "node_modules").exists()
    assert not any(p.is_symlink() for p in out.rglob("*"))
