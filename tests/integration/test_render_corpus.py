"""Every SKILL.md body of the example catalog, the hostile and XSS fixture trees and (when it is
beside the repository) the shared corpus renders to HTML that passes the renderer's audit
(tests/render_audit.py): allowed tags and attributes only, no href or src with a refused scheme."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from render_audit import assert_safe
from skillsite.publish.markdown import LinkTargets, MarkdownRenderer
from support import CORPUS, EXAMPLES, REPO

FIXTURES = REPO / "tests" / "fixtures"
# A frontmatter: '---' on the first line to the next line of '---' (the body is what follows).
FRONTMATTER = re.compile(r"\A\ufeff?---[ \t]*\r?\n(?:.*?\r?\n)?---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
ROOTS = [root for root in (EXAMPLES, FIXTURES / "hostile", FIXTURES / "xss", CORPUS) if root.is_dir()]


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
                text = path.read_bytes().decode("utf-8", "replace")
                bodies.append((rel, _body(text)))
    return bodies, LinkTargets(frozenset(skill_id for skill_id, _ in bodies), frozenset(files))


def _body(text: str) -> str:
    """A SKILL.md's body, or the whole text when it has no closed frontmatter."""
    match = FRONTMATTER.match(text)
    return text[match.end():] if match else text


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
