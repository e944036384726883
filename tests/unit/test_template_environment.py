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


def test_a_template_reads_a_name_when_it_or_one_it_extends_or_includes_names_it(tmp_path):
    """What keeps a page from being made again for a value it does not show (skills.json's
    counts, which any skill added changes): of the built-in pages only the home page and the tag
    index show them (no longer every page's footer: adding a skill rewrote every page);
    an override's base layout that shows them makes every page read them, and a template named
    by a variable, or one that cannot be parsed, may read anything."""
    from skillsite.publish.templates import reads_name

    built_in = _environment(template_dirs(""))
    assert [name for name in ("home.html", "skill.html", "listing.html", "tag.html", "risk.html", "tags.html")
            if reads_name(built_in, name, "counts")] == ["home.html", "tags.html"]
    override = tmp_path / "templates"
    override.mkdir()
    base = (Path(template_dirs("")[0]) / "base.html").read_text("utf-8")
    (override / "base.html").write_text(base.replace("</body>", "<p>{{ counts['skills'] }} skills</p></body>"), "utf-8")
    (override / "dynamic.html").write_text("{% include page_part %}", "utf-8")
    (override / "broken.html").write_text("{% if %}", "utf-8")
    (override / "plain.html").write_text("{% set counts = 1 %}{{ counts }} {% include 'macros.html' %}", "utf-8")
    custom = _environment(template_dirs(str(override)))
    assert [name for name in ("skill.html", "dynamic.html", "broken.html", "plain.html")
            if reads_name(custom, name, "counts")] == ["skill.html", "dynamic.html", "broken.html"]
