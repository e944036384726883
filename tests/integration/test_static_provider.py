"""A served build read by agentskills-http's static-file provider: its conformance suite
(agentskills-testing's ProviderConformanceSuite) passes, and discover / list / read agree with
the manifest.  Both need Python 3.12 (.venv312, made by .ci/run)."""
from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest

from skillsite.publish.build import build
from support import EXAMPLES, python312, serve_folder, write_skill

CONFORMANCE = textwrap.dedent('''
    import os

    import pytest
    from agentskills_http import HTTPStaticFileSkillProvider
    from agentskills_testing.conformance import ProviderConformanceSuite


    class TestServedSkillsite(ProviderConformanceSuite):
        @pytest.fixture
        def provider(self):
            return HTTPStaticFileSkillProvider(os.environ["SKILLS_URL"], resource_manifest=True, skill_manifest=True,
                                               file_manifest=True, allow_private_network=True)
''')

READ_BACK = textwrap.dedent('''
    import asyncio, json, os, sys

    from agentskills_http import HTTPStaticFileSkillProvider


    async def main():
        provider = HTTPStaticFileSkillProvider(os.environ["SKILLS_URL"], resource_manifest=True, skill_manifest=True,
                                               file_manifest=True, allow_private_network=True)
        skill = sys.argv[1]
        files = await provider.list_files(skill)
        print(json.dumps({"discover": await provider.discover(), "resources": await provider.list_resources(skill),
                          "files": files, "body": await provider.get_body(skill),
                          "bytes": {f: (await provider.read_file(skill, f)).hex() for f in files}}))

    asyncio.run(main())
''')


def conformance_source(root: Path) -> Path:
    """The one skill the conformance suite's contract asks for, with its fixed files."""
    folder = write_skill(root, "conformance-skill", description="The skill the provider conformance suite reads.")
    for rel, data in {"references/notes.md": b"# Notes\n\nA reference document.\n",
                      "scripts/run.sh": b"#!/bin/sh\necho conformance\n",
                      "assets/diagram.svg": b"<svg></svg>\n"}.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    return root


def run_py312(args: list[str], site_url: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run the Python 3.12 with ``args``, the served site's skills/ folder in SKILLS_URL."""
    env = {"SKILLS_URL": site_url + "/skills", "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "HOME": str(cwd)}
    return subprocess.run([python312(), *args], env=env, capture_output=True, text=True, timeout=300, cwd=cwd)


def test_the_provider_conformance_suite_passes_against_a_served_build(tmp_path: Path) -> None:
    python312()
    out = tmp_path / "site"
    assert build([conformance_source(tmp_path / "src")], out).ok
    script = tmp_path / "suite" / "test_conformance.py"
    script.parent.mkdir()
    script.write_text(CONFORMANCE, "utf-8")
    base, stop = serve_folder(out)
    try:
        result = run_py312(["-m", "pytest", "-q", "-p", "no:cacheprovider", script.name], base, script.parent)
    finally:
        stop()
    summary = result.stdout.strip().splitlines()[-1]
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert " passed" in summary and "failed" not in summary and "skipped" not in summary, summary
    print(f"ProviderConformanceSuite against a served build: {summary}")


@pytest.fixture(scope="module")
def served_examples(tmp_path_factory):
    python312()
    out = tmp_path_factory.mktemp("provider") / "site"
    assert build([EXAMPLES], out).ok
    base, stop = serve_folder(out)
    yield out, base
    stop()


def test_discover_list_and_read_agree_with_the_manifest(served_examples, tmp_path: Path) -> None:
    out, base = served_examples
    script = tmp_path / "read_back.py"
    script.write_text(READ_BACK, "utf-8")
    result = run_py312([str(script), "release-manager"], base, tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    seen = json.loads(result.stdout)
    manifest = json.loads((out / "skills.json").read_text("utf-8"))
    top_level = sorted(e["id"] for e in manifest["skills"] if "/" not in e["id"])
    assert seen["discover"] == top_level   # the provider keeps only ids that are plain names
    entry = next(e for e in manifest["skills"] if e["id"] == "release-manager")
    assert seen["files"] == sorted(["SKILL.md", *(f["path"] for f in entry["files"])])
    assert seen["resources"]["scripts"] == ["check_release_ready.py"]
    for path, data in seen["bytes"].items():
        assert bytes.fromhex(data) == (out / "skills/release-manager" / path).read_bytes(), path
    assert seen["body"].lstrip().startswith("# Release manager")
