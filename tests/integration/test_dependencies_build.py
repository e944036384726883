"""`skillsite build` of catalogs whose skills need each other: a chain a -> b -> c is resolved
into skills.json and shown on the pages ("Needs", "Needed by"); a bad graph fails the build
(exit 1, nothing published) with each problem at its file:line."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from jsonschema import Draft202012Validator

from skillsite.source.schema import load_schema
from support import write_skill


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    return subprocess.run([sys.executable, "-m", "skillsite", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=300)


def chain(src: Path) -> None:
    """a needs b (spec style: metadata), b needs c by a name and a range, c needs nothing."""
    write_skill(src, "a", "name: a\ndescription: Plans a release of the web shop. Use when shipping the shop.\n"
                          "metadata:\n  version: '1.0.0'\n  depends: 'b@^2'\n")
    write_skill(src, "tools/b", "name: b\ndescription: Bumps versions in manifests. Use when a version changes.\n"
                                "version: 'v2.1'\ndepends:\n  - 'c@>=1.0.0 <1.5.0'\n")
    write_skill(src, "c", "name: c\ndescription: Writes <em>changelogs</em> & notes. Use for release notes.\n"
                          "version: '1.4.2'\n")


def test_a_chain_is_resolved_into_the_manifest_and_shown_on_the_pages(tmp_path: Path) -> None:
    chain(tmp_path / "src")
    built = run("build", "src", "-o", "site", "-q", cwd=tmp_path)
    assert built.returncode == 0, built.stdout + built.stderr
    data = json.loads((tmp_path / "site/skills.json").read_text("utf-8"))
    Draft202012Validator(load_schema("skills.schema.json")).validate(data)
    deps = {e["id"]: e["dependencies"] for e in data["skills"]}
    assert deps == {"a": [{"name": "b", "id": "tools/b", "version": "^2", "resolved": "2.1.0"}],
                    "tools/b": [{"name": "c", "id": "c", "version": ">=1.0.0 <1.5.0", "resolved": "1.4.2"}],
                    "c": []}
    versions = {e["id"]: e["version"] for e in data["skills"]}
    assert versions == {"a": "1.0.0", "tools/b": "v2.1", "c": "1.4.2"}   # as written

    page_a = (tmp_path / "site/skills/a/index.html").read_text("utf-8")
    assert "<dt>Needs</dt>" in page_a and "Needed by" not in page_a
    assert '<a href="../../skills/tools/b/">b</a> <span class="skill-id">tools/b</span> <code>^2</code> ' \
           '(release 2.1.0)' in page_a
    page_b = (tmp_path / "site/skills/tools/b/index.html").read_text("utf-8")
    assert '<code>&gt;=1.0.0 &lt;1.5.0</code> (release 1.4.2)' in page_b                  # escaped
    assert '<dt>Needed by</dt>' in page_b and '<a href="../../../skills/a/">a</a>' in page_b
    page_c = (tmp_path / "site/skills/c/index.html").read_text("utf-8")
    assert "<dt>Needs</dt>" not in page_c and '<a href="../../skills/tools/b/">b</a>' in page_c


def test_the_resolved_release_follows_the_dependency_and_rebuilds_the_pages(tmp_path: Path) -> None:
    """With a cache, bumping c's version republishes b's entry and c's page ("Needed by" unchanged)
    as a build without the cache would."""
    chain(tmp_path / "src")
    assert run("build", "src", "-o", "site", "-q", "--cache-dir", "cache", cwd=tmp_path).returncode == 0
    c_md = tmp_path / "src/c/SKILL.md"
    c_md.write_text(c_md.read_text("utf-8").replace("1.4.2", "1.4.9"), "utf-8")
    assert run("build", "src", "-o", "site", "-q", "--cache-dir", "cache", cwd=tmp_path).returncode == 0
    assert run("build", "src", "-o", "cold", "-q", cwd=tmp_path).returncode == 0
    data = json.loads((tmp_path / "site/skills.json").read_text("utf-8"))
    assert [e["dependencies"][0]["resolved"] for e in data["skills"] if e["id"] == "tools/b"] == ["1.4.9"]
    for rel in ("skills.json", "skills/tools/b/index.html", "skills/a/index.html"):
        assert (tmp_path / "site" / rel).read_bytes() == (tmp_path / "cold" / rel).read_bytes(), rel


def test_a_bad_graph_fails_the_build_and_publishes_nothing(tmp_path: Path) -> None:
    src = tmp_path / "src"
    write_skill(src, "a", "name: a\ndescription: Plans a release of the web shop. Use when shipping the shop.\n"
                          "version: '1.0.0'\ndepends: [b, ghost, 'c@^3', 'd@^^1']\n")
    write_skill(src, "b", "name: b\ndescription: Bumps versions in manifests. Use when a version changes.\n"
                          "metadata:\n  depends: a\n")
    write_skill(src, "c", "name: c\ndescription: Writes changelogs and notes. Use for release notes.\n"
                          "version: '2.0.0'\n")
    for command in (["build", "src", "-o", "site"], ["validate", "src"]):
        result = run(*command, cwd=tmp_path)
        assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
        lines = [line.split("src/", 1)[1] for line in result.stdout.splitlines() if " SK22" in line and "src/" in line]
        assert lines[:3] == [                                   # each at its item: b, ghost, c@^3 ...
            "a/SKILL.md:5:11: error SK225 dependency cycle: a -> b -> a (skills cannot need each other in a circle)",
            "a/SKILL.md:5:14: error SK223 skill 'a' depends on 'ghost', which is no skill of this catalog "
            "(neither an id nor a name)",
            "a/SKILL.md:5:21: error SK224 skill 'a' depends on 'c' (skill 'c') at range '^3', which no release "
            "satisfies: its releases are 2.0.0"]
        assert lines[3].startswith("a/SKILL.md:5:29: error SK226 depends: 'd@^^1' has a range that does not parse: ")
        assert lines[4:] == [
            "b/SKILL.md:5:3: error SK225 dependency cycle: b -> a -> b (skills cannot need each other in a circle)"]
    assert not (tmp_path / "site").exists()
