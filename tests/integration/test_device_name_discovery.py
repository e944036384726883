"""A catalog the build publishes passes ``skillsite verify``, whose path check refuses a Windows
device name (``aux``, ``con``) anywhere: the build names no path after a skill's name or a tag
that is one.  A skill named ``aux`` in folder ``tools`` (only an SK204 warning) had its legacy
discovery copies written to ``.well-known/skills/aux/`` and its archive to ``archives/aux.tar.gz``,
and a tag ``con`` its page to ``tags/con/``: verify said FAILED for each."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from support import REPO, write_skill


def skillsite(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("SKILLSITE_SIGNING_KEY", None)
    return subprocess.run([sys.executable, "-m", "skillsite", *args], capture_output=True, text=True,
                          timeout=300, env=env, cwd=cwd)


def test_a_skill_named_as_a_windows_device_is_not_in_the_discovery_indexes(tmp_path: Path) -> None:
    src, key, out = tmp_path / "src", tmp_path / "k.pem", tmp_path / "site"
    aux = write_skill(src, "tools", "name: aux\ndescription: Does aux things for the tests here.\ntags: [con, ok]\n")
    (aux / "notes.md").write_text("Notes.\n", encoding="utf-8")
    write_skill(src, "other", "name: other\ndescription: Does other things for the tests here.\n")
    public = skillsite(tmp_path, "keys", "new", "--out", str(key)).stdout.split()[-1]
    built = skillsite(tmp_path, "build", str(src), "-o", str(out), "--sign-key", str(key), "--no-cache")
    assert built.returncode == 0, built.stderr
    assert ("tools/SKILL.md: warning SK024 name 'aux' is a Windows device name" in built.stdout + built.stderr)
    for index in (".well-known/agent-skills/index.json", ".well-known/skills/index.json"):
        assert [row["name"] for row in json.loads((out / index).read_text("utf-8"))["skills"]] == ["other"]
    assert not (out / ".well-known/skills/aux").exists()
    assert not list((out / ".well-known/agent-skills").glob("archives/aux.*"))
    assert (out / "tags/ok/index.html").is_file() and not (out / "tags/con").exists()
    assert list(out.glob("tags/con-*/index.html"))
    checked = skillsite(tmp_path, "verify", str(out), "--trusted-key", public)
    assert checked.returncode == 0 and "all hold" in checked.stdout, checked.stdout
