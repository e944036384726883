"""README.md and docs/: every relative link leads somewhere, and the front door stays short."""
from __future__ import annotations

from pathlib import Path

import pytest

from doc_pages import PAGES, anchors, blocks, github_slug, link_problem, links
from support import REPO

REFERENCE_PAGES = ["commands", "configuration", "artifacts", "agents", "security", "scale", "publishing",
                   "contributing"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_leads_to_a_file_and_heading_that_exist(page: Path) -> None:
    problems = [f"{page.name}:{line}: {problem}" for line, target in links(page)
                if (problem := link_problem(page, target))]
    assert not problems, "\n".join(problems)


def test_the_link_check_finds_a_broken_file_and_a_broken_heading(tmp_path: Path) -> None:
    """The checker itself: a missing file, a missing heading and an escaping path are each found."""
    page = REPO / "docs" / "commands.md"
    assert link_problem(page, "nowhere.md") == "nowhere.md: no such file"
    assert link_problem(page, "agents.md#no-such") == "agents.md#no-such: agents.md has no heading #no-such"
    assert link_problem(page, "../../outside.md") == "../../outside.md: leaves the repository"
    assert link_problem(page, "agents.md#skillsite-mcp") is None
    assert link_problem(page, "https://example.invalid/x") is None


def test_headings_get_github_s_fragments() -> None:
    assert github_slug("The manifest: `skills.json`") == "the-manifest-skillsjson"
    assert github_slug("Ids with `@`, `+`, spaces, `%` or accents") == "ids-with---spaces--or-accents"
    assert "skillsiteyml" in anchors(REPO / "docs" / "configuration.md")


def test_the_readme_is_a_front_door_linking_every_reference_page() -> None:
    readme = REPO / "README.md"
    assert len(readme.read_text(encoding="utf-8").splitlines()) <= 250
    linked = {target.split("#")[0] for _, target in links(readme)}
    for name in REFERENCE_PAGES:
        assert (REPO / "docs" / f"{name}.md").is_file(), name
        assert f"docs/{name}.md" in linked, f"README.md does not link docs/{name}.md"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_code_block_says_its_language(page: Path) -> None:
    """An indented or unlabelled block could be neither run nor checked by tests/integration/test_docs.py."""
    unlabelled = [block.where() for block in blocks(page) if block.lang in ("", "indented")]
    assert not unlabelled, unlabelled
