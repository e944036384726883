"""Copies of one skill in a real catalog (issue #46, items 2-4): the sample of real public skills
(and the shared corpus, when it is beside the repository) as the first source, and a second
source with deliberate copies: one skill in ``skills/``, ``.claude/skills/`` and ``.agents/skills/``
of a repository, a fork with a changed line, another version (its frontmatter kept, its body
rewritten), another skill with the same name, and a reformatted copy.  The groups are exactly the
copies and versions; one member of each stands for it in lists,
search, the prompt block and the discovery index; every member stays loadable by its id."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from skillsite.agent.catalog_format import prompt_order
from skillsite.agent.skill_md import skill_body
from skillsite.config import SiteConfig
from skillsite.loader import Catalog
from skillsite.publish.build import build
from skillsite.source.copies import fingerprint, line_similarity
from support import REAL_SKILLS, REPO, SAMPLE

SOURCE = REAL_SKILLS[-1].path          # the shared corpus when present, else the checked-in sample
ORIGINAL = "obra__superpowers/skills/using-superpowers"
COPIES = ["team/skills/using-superpowers", "team/.claude/skills/using-superpowers",
          "team/.agents/skills/using-superpowers", "fork/skills/using-superpowers"]
VERSION = "vendor/skills/using-superpowers"
SAME_NAME = "other/skills/using-superpowers"
LAYOUTS = {"whole": SiteConfig(), "paged": SiteConfig(shard_above=20)}


def copy_tree(root: Path) -> Path:
    """The second source: the deliberate copies of ORIGINAL, another version of it, and a
    different skill of its name."""
    original = SOURCE / ORIGINAL
    for rel in COPIES:
        shutil.copytree(original, root / rel)
    fork = root / "fork/skills/using-superpowers/SKILL.md"
    text = fork.read_text("utf-8")
    first = next(line for line in text.splitlines()[6:] if len(line.split()) > 6)
    fork.write_text(text.replace(first, first + " (as our team does it)", 1), "utf-8")
    frontmatter = text[:text.index("\n---", 4) + 4]
    version = root / VERSION
    version.mkdir(parents=True)
    (version / "SKILL.md").write_text(frontmatter + "\n# Using skills\n\nBefore any answer, list the skills "
                                      "that might apply and read each one.\nThe details are in "
                                      "references/checklist.md.\n", "utf-8")
    other = root / SAME_NAME
    other.mkdir(parents=True)
    (other / "SKILL.md").write_text("---\nname: using-superpowers\ndescription: How to use the Superpowers board game "
                                    "expansion: setting up, drafting powers and scoring. Use when teaching the game."
                                    "\n---\n# Superpowers, the board game\n\nDeal three power cards to each player, "
                                    "then draft clockwise until every player holds two.\n", "utf-8")
    return root


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The catalogs: whole, of SOURCE; paged, of the checked-in sample (its copy of ORIGINAL is
    the corpus's, byte for byte; the corpus's groups are checked on the whole catalog)."""
    second = copy_tree(tmp_path_factory.mktemp("copies") / "src")
    built = {}
    for layout, config in LAYOUTS.items():
        out = tmp_path_factory.mktemp(layout) / "_site"
        first = SOURCE if layout == "whole" else SAMPLE
        assert build([first, second], out, replace(config, title="Copies"), keep_going=True).ok
        built[layout] = out
    return built


def entries(site: Path) -> dict[str, dict]:
    catalog = Catalog.open(site, max_risk="high")
    return {e["id"]: e for e in catalog.skills}


def test_the_copies_are_one_group_and_the_same_name_is_not(sites: dict[str, Path]) -> None:
    by_id = entries(sites["whole"])
    group = by_id[ORIGINAL]["copies"]
    assert group["canonical"] == ORIGINAL and group["count"] == 6   # the first source comes first
    differs = {m["id"]: m["differs"] for m in group["members"]}
    assert differs.pop(VERSION) == "+3 -38 lines, other files differ"   # the version: its body rewritten, no files
    assert differs == {
        "team/skills/using-superpowers": "same files", "team/.claude/skills/using-superpowers": "same files",
        "team/.agents/skills/using-superpowers": "same files", "fork/skills/using-superpowers": "+1 -1 lines"}
    for skill_id in [*COPIES, VERSION]:
        assert by_id[skill_id]["visibility"]["copy_of"] == ORIGINAL
        member = group["members"][[m["id"] for m in group["members"]].index(skill_id)]
        assert by_id[skill_id]["copies"] == {"canonical": ORIGINAL, "count": 6, "differs": member["differs"]}
    assert "copies" not in by_id[SAME_NAME] and "copy_of" not in by_id[SAME_NAME]["visibility"]
    site = sites["whole"]
    for skill_id, entry in by_id.items():  # every other group of the real skills holds copies
        if entry.get("copies") and entry["copies"]["canonical"] == skill_id and skill_id != ORIGINAL:
            canonical = printed(entry, site)
            for member in entry["copies"]["members"]:
                other = printed(by_id[member["id"]], site)
                assert (other.body_sha == canonical.body_sha or other.about_sha == canonical.about_sha != ""
                        or line_similarity(other.lines, canonical.lines) >= 0.9)


def printed(entry: dict, site: Path):
    """A published skill's fingerprint, as grouping reads it."""
    raw = (site / "skills" / entry["id"] / "SKILL.md").read_bytes()
    return fingerprint(entry["name"], entry["description"], skill_body(raw), entry["sha256"])


def test_one_member_stands_for_its_group_in_lists_prompts_and_installers(sites: dict[str, Path]) -> None:
    site = sites["whole"]
    home = (site / "index.html").read_text("utf-8")
    assert f'href="skills/{ORIGINAL}/"' in home and "6 copies" in home
    assert not any(f'href="skills/{c}/"' in home for c in COPIES) and f'href="skills/{SAME_NAME}/"' in home
    catalog = Catalog.open(site, max_risk="high")
    offered = [e.id for e in prompt_order(catalog.entries) if e.name == "using-superpowers"]
    assert offered == [ORIGINAL, SAME_NAME] or offered == [SAME_NAME, ORIGINAL]   # a model is offered one copy
    assert catalog.prompt(budget=10**8).count("<name>using-superpowers</name>") == 2
    market = json.loads((site / ".claude-plugin/marketplace.json").read_text("utf-8"))["plugins"][0]["skills"]
    assert f"./skills/{ORIGINAL}" in market and not any(f"./skills/{c}" in market for c in COPIES)
    canonical_page = (site / "skills" / ORIGINAL / "index.html").read_text("utf-8")
    assert "Copies <span" in canonical_page and "+1 -1 lines" in canonical_page
    copy_page = (site / "skills" / COPIES[1] / "index.html").read_text("utf-8")
    assert "A copy of" in copy_page and ORIGINAL in copy_page
    for skill_id in COPIES:  # each stays published and loadable by its id
        assert (site / "skills" / skill_id / "SKILL.md").is_file()
        assert Catalog.open(site, max_risk="high").load(skill_id).id == skill_id


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_search_shows_a_group_once_unless_every_copy_is_asked_for(sites: dict[str, Path], layout: str) -> None:
    catalog = Catalog.open(sites[layout], max_risk="high")
    query = "using superpowers skills"
    one = [r for r in catalog.search(query, k=10) if r.name == "using-superpowers"]
    assert sorted((r.id, r.copies) for r in one) == [(ORIGINAL, 6), (SAME_NAME, 1)]
    every = {r.id for r in catalog.search(query, k=20, copies=True) if r.name == "using-superpowers"}
    assert every == {ORIGINAL, SAME_NAME, VERSION, *COPIES}
    for_model = [r.id for r in catalog.search(query, k=10, for_model=True) if r.name == "using-superpowers"]
    assert sorted(for_model) == [ORIGINAL, SAME_NAME]


def test_the_command_line_says_copies_once_and_searches_by_group(sites: dict[str, Path], tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    found = subprocess.run([sys.executable, "-m", "skillsite", "search", "using superpowers skills", "--catalog",
                            str(sites["paged"]), "--max-risk", "high", "--json", "-k", "10"],
                           capture_output=True, text=True, env=env, timeout=120)
    hits = [h for h in json.loads(found.stdout) if h["name"] == "using-superpowers"]
    assert sorted((h["id"], h.get("copies", 1)) for h in hits) == [(ORIGINAL, 6), (SAME_NAME, 1)]
    second = copy_tree(tmp_path / "src")
    validated = subprocess.run([sys.executable, "-m", "skillsite", "validate", str(second)], capture_output=True,
                               text=True, env=env, timeout=120)
    assert "SK229" not in validated.stdout.replace("(SK229;", "")   # no line per copy
    assert "4 skills are copies of another, each shown once" in validated.stdout
    every = subprocess.run([sys.executable, "-m", "skillsite", "validate", str(second), "--all"], capture_output=True,
                           text=True, env=env, timeout=120)
    assert every.stdout.count("info SK229") == 4


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_rebuilds_as_copies_come_and_go_equal_cold_builds(layout: str, tmp_path: Path) -> None:
    """A copy rewritten into a skill of its own, then a new copy: each incremental rebuild
    publishes what a cold build of the same tree publishes, byte for byte."""
    from support import tree_bytes

    src = copy_tree(tmp_path / "src")
    shutil.copytree(SAMPLE / "obra__superpowers", src / "obra")
    config = LAYOUTS[layout]
    out, cache = tmp_path / "site", tmp_path / "cache"
    assert build([src], out, config, cache_dir=cache).ok
    fork = src / "fork/skills/using-superpowers/SKILL.md"
    fork.write_text("---\nname: using-superpowers\ndescription: Our own way of working with skills, rewritten. Use "
                    "when starting any task.\n---\n# Ours\n\nRead the task, then pick the skill.\n", "utf-8")
    shutil.copytree(src / "team/skills/using-superpowers", src / "later/skills/using-superpowers")
    for step in ("rewritten", "copied again"):
        assert build([src], out, config, cache_dir=cache).ok
        cold = tmp_path / f"cold-{step.replace(' ', '-')}"
        assert build([src], cold, config).ok
        assert tree_bytes(out) == tree_bytes(cold), step
        if step == "rewritten":
            shutil.rmtree(src / "later")
    manifest = json.loads((out / "skills.json").read_text("utf-8"))
    fork_entry = next(e for e in Catalog.open(out).skills if e["id"] == "fork/skills/using-superpowers")
    assert "copies" not in fork_entry and manifest["counts"]["skills"] > 5


def test_a_fresh_process_compares_only_the_pairs_of_the_skill_that_changed(tmp_path, monkeypatch):
    """The pairs grouping compared are stored in the cache (#47): the next build, in a new
    process, compares again only those of the edited skill, and groups as a cold build does."""
    from skillsite.source import copies as copies_module

    body = "".join(f"- Step {n}: check the {n}th part of the release and note what you find.\n" for n in range(40))
    src = tmp_path / "src"
    for folder, description, extra in [("a", "Checks a release before it ships.", ""),
                                       ("b", "Checks a release before it is shipped.", "- And a last look.\n"),
                                       ("c", "Checks the release notes.", "- Then the notes.\n- And the dates.\n")]:
        (src / folder / "release-check").mkdir(parents=True)
        (src / folder / "release-check" / "SKILL.md").write_text(
            f"---\nname: {'release-notes' if folder == 'c' else 'release-check'}\ndescription: {description}\n"
            f"---\n# Release check\n\n{body}{extra}", "utf-8")
    out, cache = tmp_path / "_site", tmp_path / "cache"
    compared: list[tuple[str, str]] = []
    real = copies_module.Comparisons._compared
    monkeypatch.setattr(copies_module.Comparisons, "_compared",
                        lambda self, a, b: compared.append((a.raw_sha, b.raw_sha)) or real(self, a, b))
    assert build([SAMPLE, src], out, SiteConfig(), cache_dir=cache, keep_going=True).ok
    assert compared
    edited = src / "c/release-check/SKILL.md"
    edited.write_text(edited.read_text("utf-8") + "- One more line.\n", "utf-8")
    stamp = os.stat(edited).st_mtime - 60
    os.utime(edited, (stamp, stamp))
    compared.clear()
    assert build([SAMPLE, src], out, SiteConfig(), cache_dir=cache, keep_going=True).ok
    sha = hashlib.sha256(edited.read_bytes()).hexdigest()
    assert compared and all(sha in pair for pair in compared)
    cold = tmp_path / "_cold"
    assert build([SAMPLE, src], cold, SiteConfig(), keep_going=True).ok
    assert (out / "skills.json").read_bytes() == (cold / "skills.json").read_bytes()
    assert entries(out)["b/release-check"]["copies"]["canonical"] == "a/release-check"


def test_a_copy_with_errors_does_not_stand_for_its_group(tmp_path: Path) -> None:
    """The copy grouping would prefer (in ``skills/``) has an error, so it is not published: the
    group is the others, led by the next one as ``copies.prefer`` orders them, and what the
    build prints (SK229) names the one skills.json names."""
    src, out = tmp_path / "src", tmp_path / "_site"
    for place in ("skills", ".claude/skills", ".agents/skills"):
        shutil.copytree(SOURCE / ORIGINAL, src / place / "using-superpowers")
    broken = src / "skills/using-superpowers/SKILL.md"
    broken.write_text(broken.read_text("utf-8").replace("\nname:", "\nalways: [1, 2]\nname:", 1), "utf-8")
    result = build([src], out, keep_going=True)
    assert result.ok and result.skipped == ("skills/using-superpowers",)
    canonical = ".claude/skills/using-superpowers"
    said = {d.path: d.message for d in result.diagnostics if d.code == "SK229"}
    assert len(said) == 1 and all(f"a copy of skill '{canonical}' (2 copies)" in m for m in said.values())
    groups = {e["id"]: (e["copies"]["canonical"], e["copies"]["count"]) for e in entries(out).values()}
    assert groups == {canonical: (canonical, 2), ".agents/skills/using-superpowers": (canonical, 2)}


def test_a_copy_whose_only_error_is_ignored_stands_for_its_group(tmp_path: Path) -> None:
    """Under ``ignore`` of its error's code, the copy in ``skills/`` is published like any other:
    it is grouped too, and stands for the group (it was left out of grouping, so published and
    listed beside its copies, two skills of one name: SK212)."""
    src, out = tmp_path / "src", tmp_path / "_site"
    for place in ("skills", ".claude/skills", ".agents/skills"):
        shutil.copytree(SOURCE / ORIGINAL, src / place / "using-superpowers")
    broken = src / "skills/using-superpowers/SKILL.md"
    broken.write_text(broken.read_text("utf-8").replace("\nname:", "\nalways: [1, 2]\nname:", 1), "utf-8")
    result = build([src], out, SiteConfig(ignore=("SK208",)))
    assert result.ok and not result.skipped, [str(d) for d in result.diagnostics if d.severity.value == "error"]
    assert not [d for d in result.diagnostics if d.code in ("SK208", "SK212")]
    canonical = "skills/using-superpowers"
    groups = {e["id"]: (e["copies"]["canonical"], e["copies"]["count"]) for e in entries(out).values()}
    assert groups == {place: (canonical, 3) for place in (canonical, ".claude/skills/using-superpowers",
                                                          ".agents/skills/using-superpowers")}


def test_a_hidden_copy_does_not_hide_its_visible_one(tmp_path: Path) -> None:
    """skills/dup is hidden from discovery, .claude/skills/dup (the same skill) is not: the
    visible one stands for the group, so models and the discovery index are still offered it."""
    from support import write_skill

    body = "# Dup\n\nRun the checks, then report what failed and why.\n"
    description = "Run the project's checks and report failures. Use when asked to check a change."
    write_skill(tmp_path / "src" / "skills", "dup", body=body,
                frontmatter=f"name: dup\ndescription: {description}\nhideFromDiscovery: true\n")
    write_skill(tmp_path / "src" / ".claude" / "skills", "dup", body=body, description=description)
    out = tmp_path / "site"
    assert build([tmp_path / "src"], out, SiteConfig(base_url="https://ex.org")).ok
    listed = entries(out)
    assert listed[".claude/skills/dup"]["copies"]["canonical"] == ".claude/skills/dup"
    assert "<name>dup</name>" in (out / "available_skills.xml").read_text("utf-8")
    index = json.loads((out / ".well-known/agent-skills/index.json").read_text())
    assert [s["name"] for s in index["skills"]] == ["dup"]


def test_a_copy_hidden_from_every_list_does_not_take_its_listed_copy_off_the_site(tmp_path: Path) -> None:
    """skills/dup is hidden (out of every list), .claude/skills/dup only keeps itself from models
    (disable-model-invocation: listed for people); neither is offered, and the hidden one wins on
    priority and place, yet the listed one stands for the group, so the home page still shows it."""
    from support import write_skill

    body = "# Dup\n\nRun the checks, then report what failed and why.\n"
    description = "Run the project's checks and report failures. Use when asked to check a change."
    write_skill(tmp_path / "src" / "skills", "dup", body=body,
                frontmatter=f"name: dup\ndescription: {description}\nhidden: true\npriority: 5\n")
    write_skill(tmp_path / "src" / ".claude" / "skills", "dup", body=body,
                frontmatter=f"name: dup\ndescription: {description}\ndisable-model-invocation: true\n")
    out = tmp_path / "site"
    assert build([tmp_path / "src"], out).ok
    listed = entries(out)
    assert listed["skills/dup"]["copies"]["canonical"] == ".claude/skills/dup"
    assert listed["skills/dup"]["visibility"]["copy_of"] == ".claude/skills/dup"
    assert 'href="skills/.claude/skills/dup/"' in (out / "index.html").read_text("utf-8")


def test_the_next_best_copy_stands_for_its_group_when_a_catalog_wide_check_refuses_the_first(tmp_path: Path) -> None:
    """skills/x would be canonical, but it depends on a skill the catalog lacks (SK223, an error
    of the catalog-wide checks): it is not published, and .claude/skills/x, next in canonical
    order (before .agents/skills/x, which comes first by id), stands for the group, in skills.json
    and in what the build says of the copies: of the one copy published beside it (skills/x, left
    out, is no copy shown as another), counting the two published."""
    body = "# X\n\n" + "\n".join(f"Step {n}: check item {n} before the release goes out, and note what you saw."
                                 for n in range(30)) + "\n"
    for place, extra in (("skills", "depends: [no-such-skill]\n"), (".claude/skills", ""), (".agents/skills", "")):
        folder = tmp_path / "src" / place / "x"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text("---\nname: x\ndescription: Checks a release before it ships. Use when "
                                         f"releasing.\n{extra}---\n{body}", "utf-8")
    result = build([tmp_path / "src"], tmp_path / "_site", keep_going=True)
    assert result.ok and result.skipped == ("skills/x",)
    groups = {skill_id: e["copies"]["canonical"] for skill_id, e in entries(tmp_path / "_site").items()}
    assert groups == {".claude/skills/x": ".claude/skills/x", ".agents/skills/x": ".claude/skills/x"}
    said = {d.path.split("/src/")[1]: d.message for d in result.diagnostics if d.code == "SK229"}
    assert set(said) == {".agents/skills/x/SKILL.md"}
    assert all("a copy of skill '.claude/skills/x' (2 copies)" in message for message in said.values())


def test_a_copy_that_differs_only_in_line_ends_and_trailing_spaces_says_spacing_differs(tmp_path: Path) -> None:
    """The same SKILL.md with CRLF line ends, or with trailing spaces: its frontmatter is no
    different, so the copy says its spacing differs; a changed frontmatter still says so."""
    text = ("---\nname: dup\ndescription: Run the project's checks and report failures. Use when asked.\n---\n"
            "# Dup\n\nRun the checks, then report what failed and why.\n")
    copies = {"skills/dup": text, ".claude/skills/dup": text.replace("\n", "\r\n"),
              ".agents/skills/dup": text.replace("\n", "  \n"),
              ".github/skills/dup": text.replace("Use when asked.", "Use when asked.\nlicense: MIT")}
    for place, content in copies.items():
        (tmp_path / "src" / place).mkdir(parents=True)
        (tmp_path / "src" / place / "SKILL.md").write_bytes(content.encode("utf-8"))
    assert build([tmp_path / "src"], tmp_path / "_site").ok
    group = entries(tmp_path / "_site")["skills/dup"]["copies"]
    assert {m["id"]: m["differs"] for m in group["members"]} == {
        ".claude/skills/dup": "spacing differs", ".agents/skills/dup": "spacing differs",
        ".github/skills/dup": "frontmatter differs"}
