"""``serve``'s pages stage (#47): what it makes of each skill's entry (its tags folded, its card,
its page's short key, its tags as cards show them) is kept between builds for the very same
entry and equal values, so a rebuild makes these for the changed skills only; and every kind of
edit that changes what a kept piece is made of shows in the output as a cold build writes it."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from support import EXAMPLES, append_line, tree_bytes
from skillsite.config import SiteConfig
from skillsite.publish import page_pieces
from skillsite.publish import pages as pages_module
from skillsite.publish.build import build
from skillsite.publish.resident import Resident

#: Paged (three cards a page) and with a base URL: list pages, llms.txt with links, a sitemap.
PAGED = SiteConfig(shard_above=3, base_url="https://skills.example.org/")


def _age(tree: Path, seconds: float = 60.0) -> None:
    """Make every file of ``tree`` look written ``seconds`` ago (older than the racy window)."""
    import time

    stamp = time.time() - seconds
    for path in [tree, *tree.rglob("*")]:
        os.utime(path, (stamp, stamp), follow_symlinks=False)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def _spy(monkeypatch) -> dict[str, list[str]]:
    """Record the cards and skill page keys made (by skill id), the list page keys made and the
    pages rendered (by site path)."""
    made: dict[str, list[str]] = {"cards": [], "page keys": [], "list page keys": [], "rendered": []}
    names = {page_pieces.CARDS: "cards", pages_module.SKILL_PAGE_KEYS: "page keys",
             pages_module.LIST_PAGE_KEYS: "list page keys"}

    def recorded(real):
        def kept_or_made(resident, section, key, source, inputs, make):
            if section in names:
                return real(resident, section, key, source, inputs, lambda: made[names[section]].append(key) or make())
            return real(resident, section, key, source, inputs, make)
        return kept_or_made

    monkeypatch.setattr(page_pieces, "kept_or_made", recorded(page_pieces.kept_or_made))
    monkeypatch.setattr(pages_module, "kept_or_made", recorded(pages_module.kept_or_made))
    real_page = pages_module.SitePages.keyed_page
    monkeypatch.setattr(pages_module.SitePages, "keyed_page", lambda self, template, rel, key, values: real_page(
        self, template, rel, key, lambda: made["rendered"].append(rel) or values()))
    return made


def _told(resident: Resident, *paths: Path) -> None:
    """Tell ``resident`` the paths that changed, as ``serve``'s file watcher does."""
    resident.saw([os.path.realpath(path) for path in paths])


def _built(tmp_path: Path, config: SiteConfig = PAGED) -> tuple[Path, Path, Path, Resident]:
    """The examples built twice into one output with one resident, as ``serve`` does."""
    src, cache, out = tmp_path / "src", tmp_path / "cache", tmp_path / "site"
    shutil.copytree(EXAMPLES, src)
    _age(src, 120)
    resident = Resident()
    assert build([src], out, config, cache_dir=cache, resident=resident).ok
    assert build([src], out, config, cache_dir=cache, resident=resident, always_publish=True).ok
    return src, cache, out, resident


def _equals_cold(tmp_path: Path, src: Path, out: Path, config: SiteConfig = PAGED) -> None:
    cold = tmp_path / "cold"
    assert build([src], cold, config).ok
    assert tree_bytes(out) == tree_bytes(cold)
    shutil.rmtree(cold)


def test_a_body_edit_makes_the_card_key_and_page_of_the_edited_skill_only(tmp_path, monkeypatch):
    """A body edit shows on the skill's own page alone: its card (a new entry) and page key are
    made again, no other skill's, nor any list page's key (its card shows what it showed); no
    list page nor llms.txt is rendered; and the output is a cold build's."""
    src, cache, out, resident = _built(tmp_path)
    made = _spy(monkeypatch)
    append_line(src / "test-first" / "SKILL.md", "One more line.")
    _told(resident, src / "test-first" / "SKILL.md")
    assert build([src], out, PAGED, cache_dir=cache, resident=resident, jobs=1).ok
    assert made == {"cards": ["test-first"], "page keys": ["test-first"], "list page keys": [],
                    "rendered": ["skills/test-first/index.html"]}
    _equals_cold(tmp_path, src, out)


#: Edits of one skill that change what kept pieces of others are made of: (file, old text, new
#: text, a file of the output the edit changes, the skills whose card is made again).
EDITS = [
    # a tag count: the card of every skill tagged "review" shows it
    ("house-style/SKILL.md", "tags: [", "tags: [review, ", "tags/review/index.html",
     {"house-style", "api-design-checklist", "code-review", "sql-migration-review"}),
    # a hidden skill's tag comes to have a page
    ("code-review/SKILL.md", "tags: [", "tags: [internal, ", "skills/internal-oncall-handbook/index.html",
     {"code-review"}),
    # a dependency (house-style's "Needed by" row)
    ("code-review/SKILL.md", "  checklist-count: \"22\"\n",
     "  checklist-count: \"22\"\n  depends: \"house-style@^3.0\"\n", "skills/house-style/index.html", {"code-review"}),
    # a description (llms.txt shows it: it lists three skills here)
    ("incident-response/SKILL.md", "Guide the first hour", "Guide the first hours", "llms.txt", {"incident-response"}),
    # a name (the breadcrumb of its children's pages)
    ("release-manager/version-bump/SKILL.md", "name: version-bump\n", "name: version-bumper\n",
     "skills/release-manager/version-bump/prerelease/index.html", {"release-manager/version-bump"}),
]


def test_resident_rebuilds_follow_what_the_kept_pieces_are_made_of(tmp_path, monkeypatch):
    """After each edit, told to the resident or not, the rebuild remakes the pieces of the skills
    it changed, shows the edit where a cold build does (another skill's page, llms.txt,
    ``_headers``, a group of copies' tags) and equals a cold build."""
    src, cache, out, resident = _built(tmp_path)
    made = _spy(monkeypatch)
    for file, old, new, changed, cards in EDITS:
        before = (out / changed).read_bytes()
        _edit(src / file, old, new)
        _age(src / file, 30)
        _told(resident, src / file)
        made["cards"].clear()
        assert build([src], out, PAGED, cache_dir=cache, resident=resident, jobs=1).ok
        assert (out / changed).read_bytes() != before, changed
        holding = {str(folder) for folder in Path(file).parents[1:-1]}  # skills whose folder holds it: listed again
        assert cards <= set(made["cards"]) <= cards | holding
        _equals_cold(tmp_path, src, out)
    (src / "code-review" / "assets" / "demo.html").write_text("<script>alert(1)</script>\n")  # an active file
    _told(resident, src / "code-review" / "assets" / "demo.html")
    before = (out / "_headers").read_bytes()
    assert build([src], out, PAGED, cache_dir=cache, resident=resident, jobs=1).ok
    assert (out / "_headers").read_bytes() != before
    _equals_cold(tmp_path, src, out)
    shutil.copytree(src / "house-style", src / "house-style-2")  # a group of copies: its tags, its cards
    _edit(src / "house-style-2" / "SKILL.md", "tags: [", "tags: [only-in-the-copy, ")
    _told(resident, *(src / "house-style-2").rglob("*"))
    assert build([src], out, PAGED, cache_dir=cache, resident=resident, jobs=1).ok
    # the tag only the copy has lists its group's canonical member
    assert b'href="../../skills/house-style/"' in (out / "tags" / "only-in-the-copy" / "index.html").read_bytes()
    _equals_cold(tmp_path, src, out)


def test_a_site_s_own_llms_txt_follows_what_it_shows_of_an_entry(tmp_path, monkeypatch):
    """llms.txt from a site's own template may show any field of an entry: it is kept by the
    keys of the entries it lists, so a change the built-in template would not show (a version)
    shows in it, and an edit of a skill it does not list renders it not."""
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "llms.txt").write_text("{% for e in visible %}{{ e.name }} {{ e.version }}\n{% endfor %}")
    config = SiteConfig(shard_above=3, base_url="https://skills.example.org/", templates=str(templates))
    src, cache, out, resident = _built(tmp_path, config)
    assert b"release-manager 2.0.0" in (out / "llms.txt").read_bytes()
    _edit(src / "release-manager" / "SKILL.md", 'version: "2.0.0"', 'version: "2.0.1"')
    _told(resident, src / "release-manager" / "SKILL.md")
    assert build([src], out, config, cache_dir=cache, resident=resident).ok
    assert b"release-manager 2.0.1" in (out / "llms.txt").read_bytes()
    made = _spy(monkeypatch)
    append_line(src / "sql-migration-review" / "SKILL.md", "One more line.")
    _told(resident, src / "sql-migration-review" / "SKILL.md")
    assert build([src], out, config, cache_dir=cache, resident=resident, jobs=1).ok
    assert "llms.txt" not in made["rendered"] and "skills/sql-migration-review/index.html" in made["rendered"]
    _equals_cold(tmp_path, src, out, config)
