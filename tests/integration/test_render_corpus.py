"""Every SKILL.md body of the example catalog, the hostile and XSS fixture trees, the sample of
real skills and (when it is beside the repository) the shared corpus renders to HTML that
passes the renderer's audit (tests/render_audit.py): allowed tags and attributes only, no href
or src with a refused scheme."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from render_audit import assert_safe
from skillsite.agent.skill_md import skill_body
from skillsite.publish.markdown import LinkTargets, MarkdownRenderer
from support import CORPUS, EXAMPLES, REPO, SAMPLE

FIXTURES = REPO / "tests" / "fixtures"
ROOTS = [root for root in (EXAMPLES, FIXTURES / "hostile", FIXTURES / "xss", SAMPLE, CORPUS) if root.is_dir()]


def skill_tree(root: Path) -> tuple[list[tuple[str, str]], LinkTargets]:
    """Every skill's id (its folder under ``root``) and body, and every file as a link target;
    symbolic links are not followed."""
    bodies: list[tuple[str, str]] = []
    files: set[str] = set()
    for folder, _, names in os.walk(root, followlinks=False):
        rel = Path(folder).relative_to(root).as_posix()
        for name in names:
            path = Path(folder, name)
            if path.is_symlink() or not path.is_file():
                continue
            files.add(f"{rel}/{name}" if rel != "." else name)
            if name in ("SKILL.md", "skill.md"):
                bodies.append((rel, skill_body(path.read_bytes())))
    return bodies, LinkTargets(frozenset(skill_id for skill_id, _ in bodies), frozenset(files))


@pytest.mark.parametrize("root", ROOTS, ids=[root.name for root in ROOTS])
def test_every_body_renders_to_html_that_passes_the_audit(root):
    bodies, targets = skill_tree(root)
    assert bodies
    renderer = MarkdownRenderer(targets)
    for skill_id, body in bodies:
        html = renderer.render(body, skill_id)
        try:
            assert_safe(html)
        except AssertionError as error:
            raise AssertionError(f"{root.name}/{skill_id}: {error}") from None


def test_the_sample_s_alerts_tables_and_task_lists_render_as_such():
    bodies, targets = skill_tree(SAMPLE)
    html = "".join(MarkdownRenderer(targets).render(body, skill_id) for skill_id, body in bodies)
    assert '<div class="markdown-alert markdown-alert-' in html
    assert 'class="align-' in html and '<li class="task-list-item">' in html
    assert "&lt;example&gt;" in html or "&lt;process&gt;" in html or "&lt;/" in html  # XML-like tags as text
