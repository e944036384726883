"""Hostile skills in a real browser: no page of their catalog runs anything.

Every payload in tests/fixtures/xss and tests/fixtures/hostile calls ``alert()`` or sets
``window.__xss``. For every page of the built catalog we check that no dialog opened,
nothing was set, the Content-Security-Policy never had to block anything, and the DOM holds
no script, handler, frame or dangerous URL that did not come from skillsite itself.
"""
from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote

import pytest

from browsing import wait_until, watch_requests
from skillsite.agent.entry import ManifestEntry
from skillsite.publish.views import active_files

pytestmark = pytest.mark.browser

# Everything on a page that could run code or load something, as (what, detail) pairs.
AUDIT_DOM = """() => {
  const bad = [];
  const origin = location.origin;
  for (const el of document.querySelectorAll('*')) {
    for (const attr of el.attributes) {
      const name = attr.name.toLowerCase();
      const value = attr.value.replace(/[\\u0000-\\u0020]/g, '').toLowerCase();
      if (name.startsWith('on')) bad.push(['handler', el.tagName + ' ' + name]);
      if (name === 'style') bad.push(['style', el.tagName]);
      if (['href', 'src', 'action', 'formaction', 'data', 'xlink:href', 'srcdoc'].includes(name) &&
          /^(javascript|vbscript|data|file):/.test(value))
        bad.push(['url', el.tagName + ' ' + name + '=' + attr.value]);
    }
  }
  for (const s of document.scripts) {
    if (!s.src || new URL(s.src).origin !== origin || !/\\/assets\\/[a-z]+\\.[0-9a-f]{10}\\.(min\\.)?js$/.test(s.src))
      bad.push(['script', s.src || s.textContent.slice(0, 80)]);
  }
  for (const tag of ['iframe', 'frame', 'object', 'embed', 'base', 'form', 'svg', 'math', 'template', 'style'])
    for (const el of document.getElementsByTagName(tag))
      if (!(tag === 'form' && el.id === 'searchForm')) bad.push(['element', tag]);   // skillsite's own
  for (const m of document.querySelectorAll('meta[http-equiv]'))
    if (m.httpEquiv.toLowerCase() !== 'content-security-policy') bad.push(['meta', m.outerHTML]);
  for (const l of document.querySelectorAll('link'))
    if (new URL(l.href).origin !== origin) bad.push(['link', l.href]);
  return bad;
}"""


def catalog_pages(root: Path) -> list[str]:
    """Site-relative URL of every HTML page skillsite wrote (not the skills' own files, their
    copies for the v0.1 discovery index or knowledge documents: those are served sandboxed), sorted."""
    manifest = json.loads((root / "skills.json").read_text(encoding="utf-8"))
    theirs = {unquote(url) for url in active_files(ManifestEntry.from_json(e) for e in manifest["skills"])}
    pages = []
    for path in sorted(root.rglob("*.html")):
        rel = path.relative_to(root).as_posix()
        if rel in theirs:
            continue
        pages.append(rel[: -len("index.html")] if rel.endswith("index.html") else rel)
    return pages


def check_page(page, url: str, dialogs: list[str]) -> None:
    page.goto(url)
    page.wait_for_load_state("load")
    # hover and focus everything a handler could hang on, then look
    page.mouse.move(10, 10)
    page.mouse.move(600, 400)
    page.wait_for_timeout(30)
    problems = page.evaluate(AUDIT_DOM)
    assert problems == [], f"{url}: {problems}"
    assert page.evaluate("window.__xss") is None, url
    assert page.evaluate("window.__cspViolations") == [], url
    assert dialogs == [], f"{url}: {dialogs}"


def test_no_hostile_page_runs_anything(context, hostile_site):
    pages = catalog_pages(hostile_site.root)
    assert "skills/xss-everywhere/" in pages and "skills/xss-body/" in pages and "skills/xss-frontmatter/" in pages
    assert any("%3Csvg" in p or "<svg" in p for p in pages), pages   # the folder named like markup
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    requests = watch_requests(page, hostile_site)
    for rel in pages:
        check_page(page, hostile_site.page_url(rel), dialogs)
    # a link escaping the site or an image from elsewhere would show up here
    assert all(u.startswith(hostile_site.url) for u in requests), \
        [u for u in requests if not u.startswith(hostile_site.url)]


def test_nothing_from_outside_the_source_root_is_published(hostile_site):
    from make_hostile import OUTSIDE_MARKER

    leaked = [p for p in hostile_site.root.rglob("*") if p.is_file() and OUTSIDE_MARKER.encode() in p.read_bytes()]
    assert leaked == []


def test_hostile_values_show_as_text(context, hostile_site):
    page = context.new_page()
    page.goto(hostile_site.page_url("skills/xss-everywhere/"))
    assert "<script>window.__xss=1;alert('description')</script>" in page.locator(".skill-header .lead").text_content()
    details = page.locator(".details").text_content()
    assert "<iframe src=javascript:alert('license')></iframe>MIT" in details
    assert "<script>alert('key')</script>" in details
    body = page.locator("article.skill-body").text_content()
    assert "<script>window.__xss = 1; alert('script block')</script>" in body
    # dangerous links are plain text; safe ones still work
    assert page.locator("article a[href^='javascript' i]").count() == 0
    assert page.locator("article a[href='references/notes.md']").count() == 1
    assert page.locator("article a[href='nested-child/']").count() == 1
    assert page.locator("article a[href='../xss-links/#section']").count() == 1
    assert page.locator("article img[src^='http']").count() == 0        # never loaded from elsewhere
    files = page.locator(".file-list a").all_text_contents()
    assert "references/\"><img src=x onerror=alert('filename')>.md" in files


def test_searching_hostile_skills_runs_nothing(context, hostile_site):
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(hostile_site.page_url())
    wait_until(page, "() => performance.getEntriesByName('skillsite:index-ready').length > 0")
    for chip in page.locator("#tagChips button").all()[:8]:
        chip.click()
        chip.click()
    for query in ("script", "xss", "onerror", "alert", "img", "svg", "javascript:alert(1)", "~^*:+-"):
        page.fill("#searchBox", query)
        wait_until(page, "q => document.getElementById('searchBox').value === q", query)
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Escape")
    assert page.evaluate(AUDIT_DOM) == []
    assert dialogs == [] and page.evaluate("window.__xss") is None
    assert page.evaluate("window.__cspViolations") == []


def test_copying_a_hostile_snippet_runs_nothing(browser, hostile_site):
    ctx = browser.new_context()
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=hostile_site.url.rstrip("/"))
    try:
        page = ctx.new_page()
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(hostile_site.page_url("skills/xss-everywhere/"))
        for button in page.locator("button[data-copy]").all():
            button.click()
        assert dialogs == [] and page.evaluate("window.__xss") is None
    finally:
        ctx.close()


def test_hostile_screenshot(browser, hostile_site, artifacts):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = ctx.new_page()
        page.goto(hostile_site.page_url("skills/xss-everywhere/"))
        page.screenshot(path=str(artifacts / "hostile-skill.png"), full_page=True)
    finally:
        ctx.close()


@pytest.mark.parametrize("rel", ["skills/xss-everywhere/assets/page.html", "skills/xss-everywhere/assets/image.svg",
                                 ".well-known/skills/xss-everywhere/assets/page.html"])
def test_bundled_pages_run_nothing_when_opened(context, hostile_site, rel):
    """HTML and SVG files bundled with a skill are served sandboxed (``_headers``, as on Netlify)."""
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    response = page.goto(hostile_site.page_url(rel))
    assert response.ok and "sandbox" in response.headers["content-security-policy"]
    page.wait_for_timeout(100)
    assert dialogs == []
    assert page.evaluate("window.__xss") is None


def test_bundled_svg_still_shows_as_an_image(context, hostile_site):
    page = context.new_page()
    page.goto(hostile_site.page_url("skills/xss-everywhere/"))
    img = page.locator("article img[src='assets/image.svg']")
    assert img.count() == 1
    wait_until(page, "() => document.querySelector(\"article img[src='assets/image.svg']\").complete")
    assert img.evaluate("i => i.naturalWidth") > 0


def test_body_headings_cannot_take_the_page_s_own_ids(browser, hostile_site):
    """Heading anchors are lower case; skillsite's own ids all have a capital: no clash."""
    ctx = browser.new_context()
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=hostile_site.url.rstrip("/"))
    try:
        page = ctx.new_page()
        page.goto(hostile_site.page_url("skills/xss-links/"))
        ids = page.evaluate("() => Array.from(document.querySelectorAll('[id]'), e => e.id)")
        assert len(ids) == len(set(ids)), ids
        assert "snippet1" in ids and "searchbox" in ids         # the body's, harmless
        page.click("button[data-copy='snippetCode1']")
        assert page.evaluate("navigator.clipboard.readText()").startswith("npx skills add http://127.0.0.1:")
    finally:
        ctx.close()


def test_audit_findings_quote_hostile_text_as_text(context, hostile_site):
    """The audit quotes what it found (here markup spelled in invisible tag characters and a fake
    </skill_content>): on the page it is text in the findings list, never markup."""
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(hostile_site.page_url("skills/xss-audit/"))
    findings = page.locator(".findings")
    assert "<img src=x onerror=alert('audit-tag')>" in findings.inner_text()
    assert "'</skill_content>'" in findings.inner_text()
    assert findings.locator("img, script").count() == 0
    assert page.locator(".skill-header .badge-risk-high").inner_text() == "high risk"
    page.wait_for_timeout(100)
    assert dialogs == [] and page.evaluate("window.__xss") is None
