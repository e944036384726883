"""What a new user meets following the README, through the command line (issue #32)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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
    assert result.stdout == "1 skill checked: 1 valid, 0 invalid; 0 errors, 0 warnings, 0 info\n"


def test_a_folder_without_skills_is_an_error_of_its_own(tmp_path):
    (tmp_path / "empty").mkdir()
    for command in (["validate", "empty"], ["build", "empty", "-o", "out", "-q"]):
        result = run(*command, cwd=tmp_path)
        assert result.returncode == 5, result.stdout + result.stderr
        assert result.stdout.startswith("empty: error SK013 no SKILL.md found under this folder")
    assert not (tmp_path / "out").exists()


def test_an_empty_folder_beside_skills_is_named_as_the_problem(tmp_path):
    """One of two sources holds no skill: the build fails on that (SK013), and its last line says
    so, not "no skill to publish" (the other source has thirteen)."""
    (tmp_path / "empty").mkdir()
    alone = run("build", "empty", "-o", "out", cwd=tmp_path)
    assert "(no skill to publish: check the source paths)" in alone.stderr + alone.stdout
    result = run("build", str(EXAMPLES), "empty", "-o", "out", cwd=tmp_path)
    assert result.returncode != 0 and not (tmp_path / "out").exists()
    said = result.stdout + result.stderr
    assert "no skill to publish" not in said
    assert "a source folder holds no skill: check its path, or pass --keep-going to publish the others" in said


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


def configuration_block(start: str) -> str:
    """docs/configuration.md's yaml block whose first line starts with ``start``."""
    text = (REPO / "docs/configuration.md").read_text(encoding="utf-8")
    blocks = [block.split("```", 1)[0] for block in text.split("```yaml\n")[1:]]
    return next(block for block in blocks if block.startswith(start))


def test_the_documented_configuration_works_as_written(tmp_path):
    """skillsite.yml copied from the README into a repository laid out as it says (skills in
    skills/, knowledge in skills/knowledge/): build and validate read it and succeed."""
    shutil.copytree(EXAMPLES, tmp_path / "skills")
    (tmp_path / "skillsite.yml").write_text(configuration_block("title: "), encoding="utf-8")
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



def test_a_catalog_url_without_a_trailing_slash_finds_its_skills_json(site, tmp_path):
    """--catalog http://host:port and http://host:port/sub read skills.json as the URL with a
    slash does; a URL that names a .json file is read as it is."""
    from support import serve_folder

    root = tmp_path / "www"
    shutil.copytree(site, root)
    shutil.copytree(site, root / "sub")
    shutil.copytree(site, root / "other")
    (root / "other" / "skills.json").rename(root / "other" / "catalog.json")
    base, stop = serve_folder(root)
    try:
        shown = {url: run("show", "house-style", "--catalog", url, "--format", "markdown", cwd=tmp_path)
                 for url in (base, base + "/", f"{base}/sub", f"{base}/sub/", f"{base}/other/catalog.json",
                             f"{base}/skills.json?v=1")}
        missing = run("show", "house-style", "--catalog", f"{base}/other", cwd=tmp_path)
    finally:
        stop()
    expected = (site / "skills/house-style/SKILL.md").read_text("utf-8")
    for url, result in shown.items():
        assert result.returncode == 0, (url, result.stderr)
        assert result.stdout == expected
    # no skills.json in other/: the error names the URL tried, not a JSON parse of a folder listing
    assert missing.returncode == 1 and f"{base}/other/skills.json" in missing.stderr
    assert "not valid JSON" not in missing.stderr


CATALOG_COMMANDS = ("search", "show", "prompt", "status", "tool", "budget", "mcp")


def test_max_risk_is_a_flag_of_every_catalog_command_and_messages_name_it(tmp_path):
    """A skill the audit rates high: show refuses it naming the flag a CLI user types, search
    leaves it out unless --max-risk allows it; the Python API's error keeps naming max_risk=."""
    from skillsite.loader import Catalog, RiskError

    write_skill(tmp_path / "src", "clean")
    shutil.copytree(REPO / "tests/data/audit-fixtures/m-curl-sh", tmp_path / "src/m-curl-sh")
    assert run("build", "src", "-o", "_site", "-q", cwd=tmp_path).returncode == 0
    for command in CATALOG_COMMANDS:
        helped = run(command, "--help", cwd=tmp_path)
        assert "--max-risk [none|low|medium|high]" in helped.stdout, command
    refused = run("show", "m-curl-sh", cwd=tmp_path)
    assert refused.returncode == 1
    assert refused.stderr == ("skillsite: skill m-curl-sh is rated high risk by the catalog's audit, above "
                              "--max-risk medium; pass --max-risk high to use it anyway\n")
    assert run("show", "m-curl-sh", "--max-risk", "high", cwd=tmp_path).stdout.startswith(
        '<skill_content name="m-curl-sh"')
    found = {flag: run("search", "pipe to shell fixture", "--json", *flag, cwd=tmp_path)
             for flag in ((), ("--max-risk", "high"))}
    assert all(r.returncode == 0 for r in found.values()), [r.stderr for r in found.values()]
    assert "m-curl-sh" not in found[()].stdout and "m-curl-sh" in found[("--max-risk", "high")].stdout
    with pytest.raises(RiskError, match=r"above max_risk='medium'; open the catalog with max_risk='high'"):
        Catalog.open(tmp_path / "_site").load("m-curl-sh")
    # budget counts the skills a listing offers: not one above --max-risk (it counted every one)
    listed = {flag: json.loads(run("budget", "--json", *flag, cwd=tmp_path).stdout)["budgets"][0]["listed"]
              for flag in ((), ("--max-risk", "high"))}
    assert listed == {(): 1, ("--max-risk", "high"): 2}


def test_a_skill_that_is_not_user_invocable_gets_no_slash_command(tmp_path):
    """user-invocable: false: no command in skills.json, on its page or through
    Catalog.command_message, and it takes no command from another skill (no SK217); it is still
    offered to models (the skill tool, status)."""
    from skillsite.loader import Catalog, NotFoundError

    write_skill(tmp_path / "src", "ship-it", "name: ship-it\ndescription: Ships it. Use when shipping.\n"
                                             "user-invocable: false\n", body="# Ship it\n")
    write_skill(tmp_path / "src", "ship_it", "name: ship_it\ndescription: Other. Use when other.\n",
                body="# Other\n")
    validated = run("validate", "src", cwd=tmp_path)
    assert "SK217" not in validated.stdout, validated.stdout
    built = run("build", "src", "-o", "_site", cwd=tmp_path)
    assert built.returncode == 0 and "SK217" not in built.stdout, built.stdout
    manifest = json.loads((tmp_path / "_site/skills.json").read_text("utf-8"))
    entries = {e["id"]: e for e in manifest["skills"]}
    assert "command" not in entries["ship-it"] and entries["ship-it"]["visibility"]["user_invocable"] is False
    assert entries["ship_it"]["command"] == "ship_it"
    assert "Slash command" not in (tmp_path / "_site/skills/ship-it/index.html").read_text("utf-8")
    assert "<code>/ship_it</code>" in (tmp_path / "_site/skills/ship_it/index.html").read_text("utf-8")
    catalog = Catalog.open(tmp_path / "_site")
    assert catalog.command_message("/ship_it go") == "# Other\n\nTask: go"
    with pytest.raises(NotFoundError, match="no skill answers to /ship_it_2"):
        catalog.command_message("/ship_it_2")
    tool = json.loads(run("tool", cwd=tmp_path).stdout)
    assert "ship-it" in tool["function"]["parameters"]["properties"]["skill_name"]["enum"]
    status = json.loads(run("status", "--json", cwd=tmp_path).stdout)
    assert {s["id"]: s["state"] for s in status}["ship-it"] == "eligible"
    # a catalog built before this fix gave it a command: the loader does not answer to it
    entries["ship-it"]["command"] = "ship_it_2"
    (tmp_path / "_site/skills.json").write_text(json.dumps(manifest), "utf-8")
    with pytest.raises(NotFoundError, match=r"skill ship-it has no slash command \(user-invocable: false\)"):
        Catalog.open(tmp_path / "_site").command_message("/ship_it_2")


def test_a_hidden_skill_is_left_out_of_every_listing_but_stays_published(tmp_path):
    """The example's hidden: true skill: status names that key; the home page, tag pages,
    llms.txt, the sitemap and the browser's search leave it out; its page (with a note), files,
    manifest entry and loading stay. A disable-model-invocation skill stays listed for people."""
    shutil.copytree(EXAMPLES, tmp_path / "skills")
    (tmp_path / "skillsite.yml").write_text("sources: [skills]\nbase_url: https://skills.example.com\n", "utf-8")
    assert run("build", "-o", "_site", "-q", cwd=tmp_path).returncode == 0
    site, hidden, person_only = tmp_path / "_site", "internal-oncall-handbook", "prod-db-restore"
    lines = {line.split()[1].rstrip(":"): line for line in run("status", cwd=tmp_path).stdout.splitlines()[:-1]}
    assert lines[hidden] == (f"hidden     {hidden}: it is hidden from models and from the catalog's listings "
                             "(hidden: true)")
    assert lines[person_only].startswith(f"hidden     {person_only}: it is hidden from models "
                                         "(disable-model-invocation: true)")
    listings = {rel: (site / rel).read_text("utf-8") for rel in ("index.html", "llms.txt", "sitemap.xml",
                                                                  "search/docs.json", "tags/on-call/index.html")}
    for rel, text in listings.items():
        assert f"skills/{hidden}/" not in text, rel
    for rel in ("index.html", "llms.txt", "sitemap.xml", "search/docs.json"):
        assert f"skills/{person_only}/" in listings[rel], rel
    docs = json.loads(listings["search/docs.json"])["docs"]
    lunr = json.loads((site / "search/lunr.json").read_text("utf-8"))
    assert {vector[0].split("/", 1)[1] for vector in lunr["fieldVectors"]} == {str(i) for i in range(len(docs))}
    assert {row[0] for row in docs} == {e["id"] for e in json.loads((site / "skills.json").read_text("utf-8"))["skills"]
                                        if e["visibility"].get("hidden_by") != "hidden"}
    assert not (site / "tags/internal").exists()          # its only tag of its own has no page
    page = (site / f"skills/{hidden}/index.html").read_text("utf-8")
    assert 'class="hidden-note">This skill is hidden (hidden: true)' in page
    assert '<span class="tag">internal</span>' in page and 'href="../../tags/on-call/"' in page
    assert (site / f"skills/{hidden}/references/escalation-paths.md").is_file()
    entry = next(e for e in json.loads((site / "skills.json").read_text("utf-8"))["skills"] if e["id"] == hidden)
    assert entry["visibility"]["hidden_by"] == "hidden"
    assert "left out of the catalog's listings" in entry["description"]
    assert run("show", hidden, cwd=tmp_path).stdout.startswith(f'<skill_content name="{hidden}"')
    # installers' indexes list it (installing it is a person's choice), as the README says
    assert hidden in (site / ".well-known/agent-skills/index.json").read_text("utf-8")
    assert f"./skills/{hidden}" in (site / ".claude-plugin/marketplace.json").read_text("utf-8")
    assert hidden in json.loads((site / "skills/index.json").read_text("utf-8"))["skills"]
    assert hidden not in (site / "available_skills.xml").read_text("utf-8")


def test_status_refuses_an_unknown_active_skill_naming_it(site):
    """A typo in --active is a usage error naming the id, with the closest skills; a known id
    or name is taken."""
    typo = run("status", "--active", "prod-db-restor", cwd=site.parent)
    assert typo.returncode == 2 and typo.stdout == ""
    assert "Invalid value for '--active': no skill 'prod-db-restor' in the catalog; did you mean " \
           "'prod-db-restore'?" in typo.stderr
    for active in ("prod-db-restore", "changelog"):       # an id, and a (unique) name
        known = run("status", "--active", active, cwd=site.parent)
        assert known.returncode == 0, known.stderr
    assert "sql-migration-review: conflicts with 'prod-db-restore', which is active" in \
        run("status", "--active", "prod-db-restore", cwd=site.parent).stdout
