"""``action.yml`` run as the GitHub runner runs a composite action, in a throwaway repository:
each ``run:`` step is a bash script (``bash --noprofile --norc -eo pipefail``) in the workspace,
with the step's ``env:`` resolved from the inputs and the contexts and the runner's variables
(GITHUB_ACTION_PATH, GITHUB_WORKSPACE, RUNNER_TEMP ...); a failing step ends the run. The other
actions it uses are not run: their resolved ``with:`` values are checked.

Python is this test's (``steps.python.outputs.python-path``), which imports skillsite from this
repository, the action's checkout: the install step sees that and installs nothing."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from git_repo import GitRepo, two_skills_repo
from support import REPO, write_skill

ACTION = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
COMPARISON = re.compile(r"([\w.-]+)\s*(?:(==|!=)\s*'([^']*)')?")


@dataclass
class Run:
    """What a run of the action did."""

    ran: list[str] = field(default_factory=list)                   # the run: steps, by name
    used: dict[str, dict[str, str]] = field(default_factory=dict)  # the uses: steps that would run: their with:
    failed: str | None = None                                      # the step that failed
    log: str = ""                                                  # every step's stdout and stderr


def text_of(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


class Runner:
    """The runner of one job: a workspace, a temporary folder and the action's inputs."""

    def __init__(self, workspace: GitRepo, temp: Path, inputs: dict[str, str], python: str = sys.executable):
        self.workspace, self.temp = workspace.path, temp
        defaults = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
        assert set(inputs) <= set(defaults), "inputs the action does not declare"
        sha = workspace.git("rev-parse", "HEAD")
        self.context = {"inputs": {**defaults, **inputs}, "github": {"sha": sha, "action_path": str(REPO)},
                        "runner": {"os": "Linux", "temp": str(temp)},
                        "steps": {"python": {"outputs": {"python-path": python}}}}
        outside = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNNER_", "SKILLSITE_"))}
        self.env = {**outside, "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(self.workspace),
                    "GITHUB_ACTION_PATH": str(REPO), "GITHUB_SHA": sha, "RUNNER_OS": "Linux",
                    "RUNNER_TEMP": str(temp)}

    def evaluate(self, expression: str) -> Any:
        """The few expressions the action uses: ``a.b.c``, and ``a.b == 'x'`` or ``!= 'x'``."""
        match = COMPARISON.fullmatch(expression.strip())
        assert match, f"an expression this runner does not know: {expression}"
        value: Any = self.context
        for part in match[1].split("."):
            value = value[part]
        return value if match[2] is None else (value == match[3]) == (match[2] == "==")

    def resolve(self, value: Any) -> str:
        """A value of ``env:`` or ``with:`` as the step gets it: a string, its expressions replaced."""
        return EXPRESSION.sub(lambda m: text_of(self.evaluate(m[1])), text_of(value))

    def run(self) -> Run:
        done = Run()
        for step in ACTION["runs"]["steps"]:
            if done.failed or ("if" in step and not self.evaluate(step["if"])):
                continue
            if "uses" in step:
                done.used[step["uses"]] = {k: self.resolve(v) for k, v in step.get("with", {}).items()}
                continue
            result = self.run_step(step)
            done.ran.append(step["name"])
            done.log += result.stdout + result.stderr
            if result.returncode != 0:
                done.failed = step["name"]
        return done

    def run_step(self, step: dict[str, Any]) -> subprocess.CompletedProcess[str]:
        """A ``run:`` step: its script in a file of RUNNER_TEMP, run by bash as GitHub's ``shell: bash``."""
        assert step["shell"] == "bash" and "${{" not in step["run"], "inputs reach scripts through env: only"
        script = self.temp / f"{step['name'].replace(' ', '-')}.sh"
        script.write_text(step["run"], encoding="utf-8")
        env = {**self.env, **{k: self.resolve(v) for k, v in step.get("env", {}).items()}}
        return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                              cwd=self.workspace, env=env, capture_output=True, text=True, timeout=600)


def skills_repo(path: Path) -> GitRepo:
    """A repository holding two valid skills in skills/, committed."""
    return two_skills_repo(path / "workspace")


def run_action(tmp_path: Path, repo: GitRepo, **inputs: str) -> Run:
    temp = tmp_path / "runner-temp"
    temp.mkdir(exist_ok=True)
    return Runner(repo, temp, {k.replace("_", "-"): v for k, v in inputs.items()}).run()


STEPS = ["Install skillsite", "Validate the skills", "Build the catalog"]


def test_the_action_validates_and_builds_the_catalog_and_uploads_it_for_pages(tmp_path):
    repo = skills_repo(tmp_path)
    done = run_action(tmp_path, repo, source="skills", base_url="https://skills.example.org/team/",
                      upload_pages="true")
    assert done.failed is None and done.ran == STEPS, done.log
    assert f"skillsite is installed from {REPO}" in done.log and "::" not in done.log
    site = repo.path / "_site"
    assert sorted(s["id"] for s in json.loads((site / "skills.json").read_text())["skills"]) == \
        ["code-review", "deploy-preview"]
    assert "https://skills.example.org/team/skills/code-review/" in (site / "sitemap.xml").read_text()
    assert (site / ".well-known/agent-skills/index.json").is_file()
    # what actions/cache keeps, outside the repository: the build's cache and validate's verdicts
    cache = tmp_path / "runner-temp" / "skillsite-cache"
    assert (cache / "build-state.sqlite").is_file() and list((cache / "validate").glob("*.sqlite"))
    assert not (repo.path / ".skillsite-cache").exists()
    # but not the copy of the catalog a first build leaves there (the workspace and the runner's
    # temporary folder share a file system, as on GitHub's runners): it would be saved whole
    assert not list(cache.glob("previous-output-*"))
    sha = repo.git("rev-parse", "HEAD")
    assert done.used == {
        "actions/setup-python@v5": {"python-version": "3.12", "update-environment": "false"},
        "actions/cache@v4": {"path": str(cache), "key": f"skillsite-Linux-{sha}",
                             "restore-keys": "skillsite-Linux-"},
        "actions/upload-pages-artifact@v5": {"path": "_site", "include-hidden-files": "true"}}


def test_a_broken_skill_is_annotated_and_stops_the_action_before_the_build(tmp_path):
    repo = skills_repo(tmp_path)
    write_skill(repo.path / "skills", "broken", frontmatter="name: broken\n")  # no description
    done = run_action(tmp_path, repo, output="public")
    assert done.failed == "Validate the skills" and done.ran == STEPS[:2]
    assert "::error file=skills/broken/SKILL.md,line=1,col=1,title=SK201::SK201 " in done.log
    assert not (repo.path / "public").exists()


def test_warnings_are_annotated_once_and_fail_under_strict(tmp_path):
    repo = skills_repo(tmp_path)
    (repo.path / "skills/code-review/references/checklist.md").unlink()  # SK303: a link to a missing file
    done = run_action(tmp_path, repo)  # every source: the repository
    assert done.failed is None and done.ran == STEPS, done.log
    annotation = "::warning file=skills/code-review/SKILL.md,line=7,col=5,title=SK303::SK303 "
    assert done.log.count(annotation) == 1  # validate's; the build's copy is left out
    ids = sorted(s["id"] for s in json.loads((repo.path / "_site/skills.json").read_text())["skills"])
    assert ids == ["skills/code-review", "skills/deploy-preview"]  # ids from the repository's root
    assert "actions/upload-pages-artifact@v5" not in done.used

    strict = run_action(tmp_path, repo, strict="true", output="strict-site")
    assert strict.failed == "Validate the skills" and annotation in strict.log
    assert not (repo.path / "strict-site").exists()


def test_a_signing_key_is_passed_through_the_environment_only(tmp_path):
    key_file = tmp_path / "secrets" / "signing.pem"  # the repository secret, outside the workspace
    key_file.parent.mkdir()
    made = subprocess.run([sys.executable, "-m", "skillsite", "keys", "new", "--out", str(key_file)],
                          capture_output=True, text=True, check=True)
    public = made.stdout.strip().splitlines()[-1]
    key = key_file.read_text()
    repo = skills_repo(tmp_path)
    done = run_action(tmp_path, repo, source="skills", sign_key=key)
    assert done.failed is None and f"Signed with {public}" in done.log, done.log
    assert json.loads((repo.path / "_site/skills.json").read_text())["signing"]["key"] == public
    secret_lines = [line for line in key.splitlines() if not line.startswith("-----")]
    assert secret_lines and not any(line in done.log for line in secret_lines)
    written = [p for folder in (repo.path, tmp_path / "runner-temp") for p in folder.rglob("*") if p.is_file()]
    assert len(written) > 50  # the catalog, the cache, the runner's scripts
    leaked = [p for p in written for line in secret_lines if line.encode() in p.read_bytes()]
    assert leaked == []


def test_inputs_are_never_read_as_shell(tmp_path):
    repo = skills_repo(tmp_path)
    # a base URL skillsite accepts (RFC 3986's characters only: "$", "(", ";" and "'" are some; a
    # space, a quote or a backtick would be refused before any shell could see it)
    hostile = "https://skills.example.org/$(touch$IFS'pwned');touch$IFS'pwned3';echo$IFS'x'"
    done = run_action(tmp_path, repo, source="skills", base_url=hostile, strict="true; touch pwned4")
    assert done.failed is None, done.log
    assert not [p.name for p in tmp_path.rglob("pwned*")]
    assert "/$(touch$IFS" in (repo.path / "_site/sitemap.xml").read_text()
    refused = run_action(tmp_path, repo, source="skills", base_url="https://x.example/$(touch pwned5)", output="b")
    assert refused.failed == "Build the catalog" and not [p.name for p in tmp_path.rglob("pwned*")]


def test_a_skillsite_package_of_the_repository_is_never_imported(tmp_path):
    """The repository is the steps' current folder: Python must not import its ``skillsite/``
    (it would decide the validation, and read the signing key from the environment)."""
    repo = skills_repo(tmp_path)
    marker = tmp_path / "imported"
    repo.write("skillsite/__init__.py", f"open({str(marker)!r}, 'w').close()\n")
    repo.write("skillsite/__main__.py", "print('all good')\n")
    write_skill(repo.path / "skills", "broken", frontmatter="name: broken\n")  # no description
    repo.commit("a package named skillsite, and a broken skill")
    done = run_action(tmp_path, repo, source="skills", sign_key="secret")
    assert done.failed == "Validate the skills" and "title=SK201::SK201 " in done.log, done.log
    assert not marker.exists()


def test_sources_on_several_lines_are_all_validated(tmp_path):
    """A YAML block (``source: |``) gives one folder a line: every line is a source."""
    repo = skills_repo(tmp_path)
    write_skill(repo.path / "more", "broken", frontmatter="name: broken\n")
    done = run_action(tmp_path, repo, source="skills\nmore\n")
    assert done.failed == "Validate the skills", done.log
    assert "::error file=more/broken/SKILL.md,line=1,col=1,title=SK201::SK201 " in done.log


@pytest.mark.parametrize("sign_key, installed", [("", str(REPO)), ("a key", f"{REPO}[trust]")])
def test_without_skillsite_the_action_installs_it_from_its_own_checkout(tmp_path, sign_key, installed):
    """A Python that imports no skillsite (a stand-in that records what it is asked to run)."""
    python = tmp_path / "python"
    python.write_text('#!/bin/sh\n[ "$2" = -c ] && exit 1\nprintf "%s\\n" "$@" > "${0%/*}/asked"\n')
    python.chmod(0o755)
    repo = skills_repo(tmp_path)
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    install = next(step for step in ACTION["runs"]["steps"] if step.get("name") == "Install skillsite")
    done = Runner(repo, temp, {"sign-key": sign_key}, python=str(python)).run_step(install)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "asked").read_text().splitlines() == \
        ["-I", "-m", "pip", "install", "--disable-pip-version-check", "--quiet", installed]


def test_the_pages_workflow_of_the_docs_gives_the_action_inputs_it_has():
    text = (REPO / "docs/publishing.md").read_text(encoding="utf-8")
    workflow = next(yaml.safe_load(block.split("```", 1)[0]) for block in text.split("```yaml\n")[1:]
                    if block.startswith("name: Publish the skills catalog"))
    ours = [step for step in workflow["jobs"]["build"]["steps"] if step.get("uses") == "<owner>/skillsite@v1"]
    assert len(ours) == 1 and set(ours[0]["with"]) <= set(ACTION["inputs"])
    assert ours[0]["with"]["upload-pages"] is True and "deploy" in workflow["jobs"]
