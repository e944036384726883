"""The HTML catalog as files: escaping, CSP, determinism, sitemap/robots/llms.txt, templates."""
from __future__ import annotations

import hashlib
import json
from urllib.parse import unquote
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from skillsite.publish.build import build
from skillsite.config import SiteConfig
from skillsite.config import builtin_templates
from skillsite.publish.templates import STATIC_FILES, TemplateProblem
from skillsite.agent.entry import EntryUrls, FileRecord, KnowledgeRecord, ManifestEntry
from skillsite.publish.views import active_files, display_text, markdown_text, tag_slug

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "example-skills"
XSS = REPO / "tests" / "fixtures" / "xss"
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; "
       "base-uri 'none'; frame-src 'none'")


def build_site(sources, out: Path, **config) -> Path:
    result = build([Path(s) for s in sources], out, SiteConfig(**config), keep_going=True, base=str(REPO))
    assert result.ok
    return out


@pytest.fixture(scope="module")
def example(tmp_path_factory) -> Path:
    return build_site([EXAMPLES], tmp_path_factory.mktemp("ex") / "site")


@pytest.fixture(scope="module")
def xss(tmp_path_factory) -> Path:
    return build_site([XSS], tmp_path_factory.mktemp("xss") / "site")


class Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.script_text: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script and data.strip():
            self.script_text.append(data)


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def html_pages(root: Path) -> list[Path]:
    """The pages skillsite wrote (bundled files of skills, their copies for the v0.1 discovery
    index and knowledge documents are the skills', served sandboxed)."""
    manifest = json.loads((root / "skills.json").read_text(encoding="utf-8"))
    theirs = {root / unquote(url) for url in active_files(ManifestEntry.from_json(e) for e in manifest["skills"])}
    return sorted(p for p in root.rglob("*.html") if p not in theirs)


# ------------------------------------------------------------------------------ pages

def test_every_page_exists(example):
    for rel in ("index.html", "404.html", "tags/index.html", "tags/release/index.html", "robots.txt", "llms.txt",
                "skills/release-manager/index.html", "skills/release-manager/version-bump/prerelease/index.html"):
        assert (example / rel).is_file(), rel
    assert not (example / "sitemap.xml").exists()          # needs base_url: the protocol wants absolute URLs


@pytest.mark.parametrize("fixture", ["example", "xss"])
def test_pages_carry_the_csp_and_nothing_inline(request, fixture):
    root = request.getfixturevalue(fixture)
    for path in html_pages(root):
        page = parse(path)
        csp = [a["content"] for t, a in page.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
        assert len(csp) == 1 and csp[0].startswith(CSP), path
        assert page.script_text == [], path
        for tag, attrs in page.tags:
            assert not any(k.startswith("on") for k in attrs), (path, tag, attrs)
            assert "style" not in attrs, (path, tag)
            assert tag not in ("style", "iframe", "object", "embed", "svg", "base"), (path, tag)
            if tag == "script":
                assert re.fullmatch(r"(/|(\.\./)*)assets/[a-z]+\.[0-9a-f]{10}(\.min)?\.js", attrs["src"] or ""), attrs
            for name in ("href", "src"):
                value = (attrs.get(name) or "").lower()
                assert not value.startswith(("javascript:", "data:", "vbscript:", "file:")), (path, attrs)


def test_frontmatter_values_are_escaped(xss):
    html = (xss / "skills" / "xss-everywhere" / "index.html").read_text(encoding="utf-8")
    for raw in ("<script>alert('tag')</script>", "<img src=x onerror=alert('purpose')>",
                "<iframe src=javascript:alert('license')>", "<svg/onload=alert('param')>"):
        assert raw not in html
    assert "&lt;script&gt;alert(&#39;tag&#39;)&lt;/script&gt;" in html
    home = (xss / "index.html").read_text(encoding="utf-8")
    assert "<script>window.__xss" not in home and "&lt;script&gt;window.__xss=1" in home


def test_control_characters_a_skill_writes_reach_no_page(tmp_path):
    """NUL, a terminal's escape sequences, DEL and C1 in a description (YAML escapes) and in the
    body: SK213 says the outputs replace them, and the XML did; the pages held them raw."""
    skill = tmp_path / "src" / "ctl"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_bytes(
        b'---\nname: ctl\ndescription: "Shows \\x1b[31mred\\x1b[0m text \\0 and \\x85. Use when testing."\n'
        b"---\n# Ctl\n\nbody \x1b[1mbold\x1b[0m \x7f del \xc2\x9b csi, tab\tand form\x0cfeed kept\n")
    out = build_site([tmp_path / "src"], tmp_path / "site")
    controls = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")
    pages = sorted(out.rglob("*.html"))
    assert len(pages) > 3 and not [p for p in pages if controls.search(p.read_text(encoding="utf-8"))]
    page = (out / "skills" / "ctl" / "index.html").read_text(encoding="utf-8")
    assert "\ufffd[1mbold\ufffd[0m" in page and "Shows \ufffd[31mred" in page and "tab\tand form\x0cfeed" in page


def test_a_link_to_a_folder_of_bundled_files_leads_to_the_page_s_list_of_files(tmp_path):
    """``[assets/](assets/)``: validate takes the folder as published, while the page showed a
    broken link (no static host lists a folder); it now leads to the files on the skill's page."""
    skill = tmp_path / "src" / "fold"
    (skill / "assets").mkdir(parents=True)
    (skill / "assets" / "logo.txt").write_text("logo\n")
    (skill / "SKILL.md").write_text("---\nname: fold\ndescription: Links a folder. Use when testing.\n---\n"
                                    "See [assets/](assets/) and [gone](gone/).\n")
    page = (build_site([tmp_path / "src"], tmp_path / "site") / "skills" / "fold" / "index.html").read_text("utf-8")
    assert '<a href="./#filesHeading">assets/</a>' in page and 'id="filesHeading"' in page
    assert '<span class="broken-link" title="link target not published in this catalog">gone</span>' in page


def test_hostile_tags_get_safe_page_folders(xss):
    folders = sorted(p.name for p in (xss / "tags").iterdir() if p.is_dir())
    assert "safe-tag" in folders
    assert all(re.fullmatch(r"[a-z0-9-]+", f) for f in folders), folders


def test_tag_slug():
    assert tag_slug("release") == "release"
    assert tag_slug("On-Call") != tag_slug("on-call")
    assert re.fullmatch(r"script-alert-1-script-[0-9a-f]{6}", tag_slug("<script>alert(1)</script>"))
    assert re.fullmatch(r"tag-[0-9a-f]{6}", tag_slug("日本語"))
    assert tag_slug("../../etc") != "etc" and "/" not in tag_slug("../../etc")


def test_hidden_skills_are_not_listed_and_others_kept_from_models_are_labelled(example):
    home = (example / "index.html").read_text(encoding="utf-8")
    assert "skills/internal-oncall-handbook/" not in home                 # hidden: true
    item = home[home.index('<a href="skills/prod-db-restore/">'):]       # disable-model-invocation: true
    item = item[:item.index("</li>\n")]
    assert "hidden from models" in item
    page = (example / "skills/internal-oncall-handbook/index.html").read_text(encoding="utf-8")
    assert '<span class="badge badge-hidden"' in page and 'class="hidden-note"' in page
    assert '<p class="skill-id">release-manager/version-bump/prerelease</p>' in home
    assert "user-invoked only" in home


def test_skill_page_links(example):
    page = parse(example / "skills" / "release-manager" / "changelog" / "index.html")
    hrefs = [a.get("href") for t, a in page.tags if t == "a"]
    assert "../" in hrefs                                  # breadcrumb and the body's ../SKILL.md
    assert "../../../" in hrefs                            # home
    assert "SKILL.md" in hrefs and "skill.xml" in hrefs
    stylesheet = [a["href"] for t, a in page.tags if t == "link" and a.get("rel") == "stylesheet"]
    assert len(stylesheet) == 2                            # app.css, and nojs.css inside <noscript>
    assert all((example / "skills" / "release-manager" / "changelog" / s).is_file() for s in stylesheet)


def test_assets_are_fingerprinted(example):
    names = sorted(p.name for p in (example / "assets").iterdir())
    assert len(names) == len(STATIC_FILES)
    for name in names:
        stem, digest, rest = name.split(".", 2)
        source = builtin_templates() / "static" / f"{stem}.{rest}"
        assert hashlib.sha256(source.read_bytes()).hexdigest()[:10] == digest
    lunr = next(n for n in names if n.startswith("lunr."))
    assert (example / "assets" / lunr).read_text().startswith("/**\n * lunr - http://lunrjs.com")


def test_output_is_deterministic(tmp_path, example):
    again = build_site([EXAMPLES], tmp_path / "again")
    ours = [p for p in example.rglob("*")
            if p.is_file() and (p.suffix in (".html", ".txt", ".xml", ".css", ".js", ".svg"))]
    assert ours
    for path in ours:
        rel = path.relative_to(example)
        assert (again / rel).read_bytes() == path.read_bytes(), rel


# ------------------------------------------------------------------------------ base_url

def test_with_base_url(tmp_path):
    out = build_site([EXAMPLES], tmp_path / "site", base_url="https://skills.example.com/team/")
    sitemap = (out / "sitemap.xml").read_text()
    locs = re.findall(r"<loc>(.*?)</loc>", sitemap)
    assert "https://skills.example.com/team/" in locs
    assert "https://skills.example.com/team/skills/release-manager/version-bump/" in locs
    assert "https://skills.example.com/team/tags/release/" in locs
    risks = sorted(p.name for p in (out / "risk").iterdir())
    assert risks and all(f"https://skills.example.com/team/risk/{risk}/" in locs for risk in risks)
    assert all(u.startswith("https://skills.example.com/team/") for u in locs)
    assert "Sitemap: https://skills.example.com/team/sitemap.xml" in (out / "robots.txt").read_text()
    page = (out / "skills" / "code-review" / "index.html").read_text()
    assert '<link rel="canonical" href="https://skills.example.com/team/skills/code-review/">' in page
    assert "npx skills add https://skills.example.com/team --skill code-review" in page
    assert "data-site-template" not in page
    not_found = (out / "404.html").read_text()
    assert 'href="/team/assets/app.' in not_found          # served at any depth: site-absolute links
    llms = (out / "llms.txt").read_text()
    assert "(https://skills.example.com/team/skills/code-review/SKILL.md)" in llms


def test_a_base_url_holding_shell_characters_is_quoted_in_the_install_command(tmp_path):
    """'$', '(' and ';' are characters a URL's path may hold; the command copied from the page ran
    what followed them."""
    out = build_site([EXAMPLES / "code-review"], tmp_path / "site", base_url="https://x.example/a;touch$(id)")
    page = (out / "skills" / "code-review" / "index.html").read_text()
    assert "npx skills add &#39;https://x.example/a;touch$(id)&#39; --skill code-review" in page


def test_without_base_url_snippets_are_filled_by_the_page(example):
    page = (example / "skills" / "code-review" / "index.html").read_text()
    assert "npx skills add &lt;site-url&gt; --skill code-review" in page
    assert 'data-site-template="npx skills add {site} --skill code-review"' in page
    assert "Sitemap:" not in (example / "robots.txt").read_text()
    assert 'href="/assets/app.' in (example / "404.html").read_text()


# ------------------------------------------------------------------------------ llms.txt

def test_llms_txt(example):
    text = (example / "llms.txt").read_text()
    assert text.startswith("# Agent skills\n\n> ")
    skills, optional = text.split("\n## Skills\n")[1].split("\n## Optional\n")
    assert "- [code-review](skills/code-review/SKILL.md): Review a pull request" in skills
    assert "internal-oncall-handbook" not in text                        # hidden: not listed at all
    assert "prod-db-restore" not in skills and "prod-db-restore" in optional
    assert "(hidden from models)" in optional and "(user-invoked only)" in optional
    assert all(line.startswith("- [") for line in skills.strip().splitlines() if line)


def test_markdown_text_keeps_one_line():
    assert markdown_text("a\n- [fake](javascript:x)\n\n# b") == "a - &#91;fake&#93;(javascript:x) # b"
    # a code span would swallow the link around it; a regex parser would take the skill's link
    assert markdown_text("tick`one <b> & [beta](http://evil.example/) \\") == \
        "tick&#96;one &lt;b> &amp; &#91;beta&#93;(http://evil.example/) &#92;"
    assert markdown_text("bell\x07 del\x7f") == "bell\ufffd del\ufffd"
    assert display_text({"b": 1, "a": [True, None]}) == '{"a": [true, null], "b": 1}'
    assert display_text(False) == "false"


# ------------------------------------------------------------------------------ templates

def test_a_template_can_be_overridden(tmp_path):
    override = tmp_path / "templates"
    override.mkdir()
    (override / "tag.html").write_text("{% extends 'base.html' %}{% block main %}<p class=mine>{{ tag.name }}"
                                       "</p>{% endblock %}", encoding="utf-8")
    (override / "static").mkdir()
    (override / "static" / "app.css").write_text("body { color: red; }\n", encoding="utf-8")
    out = build_site([EXAMPLES], tmp_path / "site", templates=str(override))
    assert "<p class=mine>release</p>" in (out / "tags" / "release" / "index.html").read_text()
    assert "Agent skills" in (out / "index.html").read_text()          # the others are the built-in ones
    css = next((out / "assets").glob("app.*.css"))
    assert css.read_text() == "body { color: red; }\n"


def test_undefined_template_variables_are_errors(tmp_path):
    override = tmp_path / "templates"
    override.mkdir()
    (override / "tags.html").write_text("{{ no_such_variable }}", encoding="utf-8")
    with pytest.raises(TemplateProblem, match=r"tags\.html:1: 'no_such_variable' is undefined"):
        build(list([EXAMPLES]), tmp_path / "site", SiteConfig(templates=str(override)), base=str(REPO))
    assert not (tmp_path / "site").exists()


def test_headers_file_sandboxes_active_bundled_files(xss, example):
    text = (xss / "_headers").read_text()
    assert "/skills/xss-everywhere/assets/page.html\n  Content-Security-Policy: sandbox; default-src 'none'\n" in text
    assert "/skills/xss-everywhere/assets/image.svg\n" in text
    assert "page.js" not in text and "notes.md" not in text
    # the example's active files: test-first's SVG icon (its page shows it as an image) and a
    # Dockerfile named with an extension no host calls text, each published with the skill,
    # copied for the v0.1 discovery index, and in every release that holds it
    expected = set()
    active = (("test-first", "assets/icon.svg"), ("docker-image-slimming", "assets/Dockerfile.python-slim"))
    for skill_id, path in active:
        expected |= {f"/skills/{skill_id}/{path}", f"/.well-known/skills/{skill_id}/{path}"}
        versions = example / "skills" / skill_id / "versions.json"
        releases = json.loads(versions.read_text())["releases"] if versions.is_file() else {}
        expected |= {f"/{r['url']}{path}" for r in releases.values() if path in {f["path"] for f in r["files"]}}
    example_headers = (example / "_headers").read_text()
    assert {line for line in example_headers.splitlines() if line.startswith("/")} == expected
    assert example_headers.count("Content-Security-Policy: sandbox") == len(expected)


def test_netlify_toml():
    try:
        import tomllib
    except ImportError:  # Python 3.10: the same parser, from PyPI (the test extra installs it)
        import tomli as tomllib
    config = tomllib.loads((REPO / "netlify.toml").read_text(encoding="utf-8"))
    assert config["build"]["publish"] == "_site"
    assert "skillsite build" in config["build"]["command"]
    rules = {rule["for"]: rule["values"] for rule in config["headers"]}
    assert rules["/assets/*"]["Cache-Control"] == "public, max-age=31536000, immutable"
    for path in ("/skills.json", "/.well-known/agent-skills/*", "/search/*"):
        assert rules[path]["Access-Control-Allow-Origin"] == "*"
        assert "max-age=300" in rules[path]["Cache-Control"]
    assert rules["/*"]["Content-Security-Policy"].startswith(CSP)
    # Netlify joins a header's values across matching rules: "/*" must not set what others set.
    others = {name for path, values in rules.items() if path != "/*" for name in values}
    assert not others & set(rules["/*"]), others & set(rules["/*"])


def test_nojekyll(example):
    assert (example / ".nojekyll").read_bytes() == b""


def test_active_files_are_found_by_the_extension_a_server_would_use():
    sha = "0" * 64
    entry = ManifestEntry(
        id="a", name="a", description="A skill.", sha256=sha, urls=EntryUrls(skill_md="skills/a/SKILL.md",
                                                                              files="skills/a/"),
        files=tuple(FileRecord(p, sha) for p in ("page.HTML", "..html", ".html", "img/x.svg", "data.xml.txt",
                                                  "notes.md", "file.", "dir.html/readme", "feed.xpdl", "feed.xhtm",
                                                  "run.py", "logo.PNG", "Makefile")),
        knowledge=(KnowledgeRecord("docs/page.html", "Page", sha, "knowledge/docs/page.html"),
                   KnowledgeRecord("docs/notes.md", "Notes", sha, "knowledge/docs/notes.md"),
                   KnowledgeRecord("docs/feed.xpdl", "Feed", sha, "knowledge/docs/feed.xpdl")))
    # every file but text, code, data and media: hosts map many extensions to HTML or XML types
    bundled = ["..html", ".html", "feed.xhtm", "feed.xpdl", "file.", "img/x.svg", "page.HTML"]
    releases = {"a": {"releases": {"1.0.0": {"url": "skills/a/versions/1.0.0/", "files": [
        {"path": "SKILL.md"}, {"path": "old page.html"}, {"path": "notes.md"}]}}}}
    assert active_files([entry], releases) == sorted(
        [f"skills/a/{p}" for p in bundled] + [f".well-known/skills/a/{p}" for p in bundled]
        + ["knowledge/docs/feed.xpdl", "knowledge/docs/page.html", "skills/a/versions/1.0.0/old%20page.html"])


@pytest.mark.parametrize("members, said", [(2, "1 skill is a copy of another, shown once"),
                                           (3, "2 skills are copies of others, shown once")])
def test_the_copies_toggle_counts_in_words(tmp_path, members: int, said: str):
    """It said "1 skills are copies of others" of a catalog holding one copy."""
    from support import write_copies

    write_copies(tmp_path / "src", [(f"team-{n}/pdf", "pdf", "") for n in range(members)],
                 "Fills PDF forms. Use when a PDF form needs filling.")
    site = build_site([tmp_path / "src"], tmp_path / "site")
    assert said in (site / "index.html").read_text(encoding="utf-8")
