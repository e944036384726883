"""A process makes its Jinja2 environment once per set of template files: ``serve`` (and the
workers it forks) does not compile the same templates again for every rebuild, and a template
changed, added or removed between two builds is the one the next build uses."""
from __future__ import annotations

from pathlib import Path

from support import EXAMPLES
from skillsite.config import SiteConfig, template_dirs
from skillsite.publish.build import build
from skillsite.publish.templates import shared_environment, templates_digest


def _environment(dirs: list[Path]):
    return shared_environment(tuple(dirs), templates_digest(dirs))


def test_the_same_template_files_give_the_same_environment_and_compiled_templates(tmp_path):
    dirs = template_dirs(str(tmp_path))
    first, second = _environment(dirs), _environment(dirs)
    assert first is second
    assert first.get_template("base.html") is second.get_template("base.html")  # compiled once


def test_a_template_added_or_changed_between_builds_is_the_one_the_next_build_uses(tmp_path):
    """One process, three builds: the built-in 404 page, then an override added beside them,
    then that override changed (the same size: the digest reads the content)."""
    override = tmp_path / "templates"
    override.mkdir()
    config = SiteConfig(templates=str(override))
    out = tmp_path / "_site"

    def page() -> str:
        assert build([EXAMPLES], out, config, cache_dir=tmp_path / "cache", jobs=1).ok
        return (out / "404.html").read_text("utf-8")

    builtin = page()
    before = _environment(template_dirs(str(override)))
    (override / "404.html").write_text("<p>Lost: version one</p>\n", encoding="utf-8")
    assert page() == "<p>Lost: version one</p>\n"
    (override / "404.html").write_text("<p>Lost: version two</p>\n", encoding="utf-8")
    assert page() == "<p>Lost: version two</p>\n"
    assert "version" not in builtin and _environment(template_dirs(str(override))) is not before
