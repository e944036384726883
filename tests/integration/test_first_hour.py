"""What a new user meets following the README, through the command line (issue #32)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from support import EXAMPLES, REPO, write_skill


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    return subprocess.run([sys.executable, "-m", "skillsite", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=300)


def test_validate_in_a_repository_reads_neither_its_virtual_environment_nor_what_git_ignores(tmp_path):
    """skillsite validate run at a repository's root after set-up: the .venv (with a python
    symlink leaving the tree and a library's bundled skills), node_modules and ignored folders
    are not read."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("_site/\nscratch/\n")
    write_skill(tmp_path, "skills/deploy")
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (venv / "bin" / "python").symlink_to(sys.executable)
    write_skill(venv, "lib/python3/site-packages/tool/skills/broken", "name: Broken Name\n")
    write_skill(tmp_path, "node_modules/pkg/skills/other", "name: other\n")
    write_skill(tmp_path, "scratch/half-done", "description: no name\n")
    result = run("validate", cwd=tmp_path)
    assert result.returncode == 0, result.stdout
    assert result.stdout == "1 skill checked: 1 valid, 0 invalid (0 left out); 0 errors, 0 warnings, 0 info\n"


def test_a_folder_without_skills_is_an_error_of_its_own(tmp_path):
    (tmp_path / "empty").mkdir()
    for command in (["validate", "empty"], ["build", "empty", "-o", "out", "-q"]):
        result = run(*command, cwd=tmp_path)
        assert result.returncode == 5, result.stdout + result.stderr
        assert result.stdout.startswith("empty: error SK013 no SKILL.md found under this folder")
    assert not (tmp_path / "out").exists()


def test_build_strict_publishes_nothing_when_a_catalog_wide_check_warns(tmp_path):
    """Two skills whose descriptions a model cannot tell apart (SK219): validate --strict fails
    as build --strict does, and the build writes nothing."""
    text = "Reviews a pull request for bugs, style and missing tests. Use when asked to review a change."
    write_skill(tmp_path / "src", "review-one", description=text)
    write_skill(tmp_path / "src", "review-two", description=text)
    built = run("build", "src", "-o", "site", "--strict", "-q", cwd=tmp_path)
    assert built.returncode == 1
    assert "warning SK219" in built.stdout and not (tmp_path / "site").exists()
    assert built.stderr.strip().endswith("(--strict makes warnings fail: fix them, or leave out --strict)")
    validated = run("validate", "src", "--strict", cwd=tmp_path)
    assert validated.returncode == 1 and "warning SK219" in validated.stdout
    assert [line for line in validated.stdout.splitlines() if "SK219" in line] == \
        [line for line in built.stdout.splitlines() if "SK219" in line]


def readme_block(start: str) -> str:
    """The README's fenced block whose first line starts with ``start``."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = [block.split("```", 1)[0] for block in text.split("```yaml\n")[1:]]
    return next(block for block in blocks if block.startswith(start))


def test_the_readme_configuration_works_as_written(tmp_path):
    """skillsite.yml copied from the README into a repository laid out as it says (skills in
    skills/, knowledge in skills/knowledge/): build and validate read it and succeed."""
    shutil.copytree(EXAMPLES, tmp_path / "skills")
    (tmp_path / "skillsite.yml").write_text(readme_block("title: "), encoding="utf-8")
    built = run("build", "-o", "_site", "-q", cwd=tmp_path)
    assert built.returncode == 0, built.stdout + built.stderr
    assert "SK218" not in built.stdout and (tmp_path / "_site/knowledge/runbooks/database-restore.md").is_file()
    validated = run("validate", cwd=tmp_path)
    assert validated.returncode == 0 and "SK218" not in validated.stdout, validated.stdout


def test_a_missing_knowledge_folder_is_named_by_its_resolved_path(tmp_path):
    shutil.copytree(EXAMPLES, tmp_path / "skills")
    (tmp_path / "skillsite.yml").write_text("knowledge_dir: docs\n", encoding="utf-8")
    result = run("validate", "skills", cwd=tmp_path)
    assert result.returncode == 1
    assert (f"error SK218 knowledge document 'runbooks/database-restore.md': the knowledge folder "
            f"{tmp_path / 'docs'} does not exist") in result.stdout


def test_one_skill_validates_on_its_own_as_in_its_catalog():
    """A SKILL.md path means that skill; its knowledge and its links to the skills beside it are
    found as a check of the whole tree finds them."""
    for path in ("example-skills/test-first/SKILL.md", "example-skills/sql-migration-review"):
        result = run("validate", path, "--strict", cwd=REPO)
        assert result.returncode == 0, result.stdout + result.stderr
        assert result.stdout.startswith("1 skill checked: 1 valid")


def test_new_makes_a_skill_that_validates_under_the_specification(tmp_path):
    made = run("new", "deploy-preview", "--dir", "skills", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert made.stdout.startswith("Created skills/deploy-preview/SKILL.md")
    text = (tmp_path / "skills/deploy-preview/SKILL.md").read_text()
    assert text.startswith("---\nname: deploy-preview\ndescription: >-\n") and "# license:" in text
    for profile in ("spec", "default"):
        checked = run("validate", "skills", "--profile", profile, "--strict", cwd=tmp_path)
        assert checked.returncode == 0 and "0 errors, 0 warnings" in checked.stdout, checked.stdout
    assert run("build", "skills", "-o", "out", "--strict", "-q", cwd=tmp_path).returncode == 0
    again = run("new", "deploy-preview", "--dir", "skills", cwd=tmp_path)
    assert again.returncode == 2 and again.stderr == "skillsite new: skills/deploy-preview already exists\n"
    refused = run("new", "Deploy_Preview", cwd=tmp_path)
    assert refused.returncode == 2 and "must be lowercase letters" in refused.stderr
    assert not (tmp_path / "Deploy_Preview").exists()


def test_the_readme_first_skill_validates(tmp_path):
    text = (REPO / "README.md").read_text(encoding="utf-8")
    skill = text.split("```markdown\n", 1)[1].split("```", 1)[0]
    folder = tmp_path / "deploy-preview"
    (folder / "scripts").mkdir(parents=True)
    (folder / "scripts" / "deploy.sh").write_text("#!/bin/sh\necho https://preview.example.com\n")
    (folder / "SKILL.md").write_text(skill, encoding="utf-8")
    result = run("validate", str(folder), "--profile", "spec", "--strict", cwd=tmp_path)
    assert result.returncode == 0, result.stdout


def test_serve_answers_head_requests_with_the_headers_of_get(site):
    """A bundled SVG is served sandboxed (its _headers rule); HEAD says so as GET does."""
    import threading
    import urllib.request

    from skillsite.publish.serve import make_server

    server = make_server(site)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/skills/test-first/assets/icon.svg"
    try:
        answers = {}
        for method in ("GET", "HEAD"):
            with urllib.request.urlopen(urllib.request.Request(url, method=method), timeout=10) as response:
                answers[method] = (response.status, response.headers["Content-Security-Policy"],
                                   response.headers["Content-Length"], response.read())
    finally:
        server.shutdown()
        server.server_close()
    assert answers["GET"][1] == "sandbox; default-src 'none'"
    assert answers["HEAD"][:3] == answers["GET"][:3] and answers["HEAD"][3] == b""
