"""axe-core (npm, ``node_modules/axe-core``) run in chromium on every kind of page of the example
catalog: home, search results with many highlighted words, an empty result, a tag filter, skill
pages (task lists, code blocks wider than the page, tables, an alert, parameters, audit
findings), the tag pages, a risk page and the 404 page, and the pages of a paginated catalog's
lists (above ``shard_above``); in light and dark mode (the stylesheet
follows ``prefers-color-scheme``, which Playwright emulates), on a desktop and a phone screen.
No violation of any impact is allowed: axe's default rules plus every rule tagged wcag2a,
wcag2aa, wcag21a or wcag21aa."""
from __future__ import annotations

import pytest

from browsing import REPO, wait_until

pytestmark = pytest.mark.browser

AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
SCREENS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}
BACKGROUND = {"light": "rgb(255, 255, 255)", "dark": "rgb(15, 18, 23)"}   # app.css's --bg
MANY_WORDS = "review release test database api docker incident migration code image backup"

# Runs axe with its default rules and every WCAG 2.0/2.1 A and AA rule switched on; returns the
# violations only, each node with its selector and axe's summary of what to fix.
RUN_AXE = """async (tags) => {
  const rules = {};
  for (const rule of axe.getRules(tags)) rules[rule.ruleId] = { enabled: true };
  const result = await axe.run(document, { rules, resultTypes: ['violations'] });
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({ target: n.target.join(' '), summary: n.failureSummary })),
  }));
}"""


def readable(violations: list[dict]) -> str:
    """Violations as lines a person can act on."""
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v['impact']}, {len(v['nodes'])} node(s)): {v['help']}")
        for node in v["nodes"][:10]:
            summary = " ".join(node["summary"].split())
            lines.append(f"    {node['target']}: {summary}")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def axe_path() -> str:
    if not AXE.is_file():
        pytest.skip("axe-core is not installed (npm ci)")
    return str(AXE)


@pytest.fixture(params=[(scheme, screen) for scheme in BACKGROUND for screen in SCREENS],
                ids=lambda p: f"{p[0]}-{p[1]}")
def a11y(request, browser, axe_path):
    """A context in one colour scheme and screen size. The pages' Content-Security-Policy
    (``script-src 'self'``) would block the injected axe script: this context bypasses it."""
    scheme, screen = request.param
    ctx = browser.new_context(viewport=SCREENS[screen], color_scheme=scheme, bypass_csp=True)
    yield ctx, scheme
    ctx.close()


def check(ctx, scheme: str, served, rel: str, ready: str | None = None):
    """Open ``rel``, wait for ``ready`` (a JavaScript predicate), check the colour scheme is in
    force, run axe and assert it found nothing; returns the page for further checks."""
    page = ctx.new_page()
    page.goto(served.page_url(rel))
    if ready:
        wait_until(page, ready)
    assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == BACKGROUND[scheme]
    page.add_script_tag(path=AXE)
    violations = page.evaluate(RUN_AXE, WCAG_TAGS)
    assert violations == [], f"axe-core on {rel} ({scheme}):\n{readable(violations)}"
    return page


LUNR_RESULTS = "() => performance.getEntriesByName('skillsite:results:lunr').length > 0"
INDEX_READY = "() => performance.getEntriesByName('skillsite:index-ready').length > 0"


def test_home_page(a11y, example_site):
    ctx, scheme = a11y
    page = check(ctx, scheme, example_site, "index.html", INDEX_READY)
    assert page.locator("#tagChips .chip-count").count() >= 5
    assert page.locator("#skillList > li").count() >= 10


def test_results_with_many_highlighted_words(a11y, example_site):
    ctx, scheme = a11y
    page = check(ctx, scheme, example_site, "index.html?q=" + MANY_WORDS.replace(" ", "+"), LUNR_RESULTS)
    assert page.locator("#searchResults > li").count() >= 10
    assert page.locator("#searchResults mark").count() >= 40       # every one of them checked for contrast


def test_empty_result_with_the_closest_tags(a11y, example_site):
    ctx, scheme = a11y
    page = check(ctx, scheme, example_site, "index.html?q=relese+databse", LUNR_RESULTS)
    assert page.locator("#searchResults > li").count() == 0
    assert page.locator("#searchEmptyTags .chip-count").count() == 2     # release, database
    assert page.locator("#searchShowAll").is_visible()


def test_home_filtered_by_tags(a11y, example_site):
    ctx, scheme = a11y
    page = check(ctx, scheme, example_site, "index.html?tag=api&tag=http", INDEX_READY)
    assert page.locator("#tagChips button[aria-pressed='true']").count() == 2


def test_skill_page_with_task_lists_code_tables_and_an_alert(a11y, example_site):
    ctx, scheme = a11y
    page = check(ctx, scheme, example_site, "skills/api-design-checklist/")
    body = page.locator("article.skill-body")
    assert body.locator("input.task-list-item-checkbox").count() >= 14
    assert body.locator("table").count() >= 1 and body.locator(".markdown-alert").count() == 1
    # a code block wider than the page: a scrollable region the keyboard must reach
    assert body.locator("pre").evaluate_all("pres => pres.some(p => p.scrollWidth > p.clientWidth)")


def test_skill_page_with_parameters_and_audit_findings(a11y, example_site):
    ctx, scheme = a11y
    page = check(ctx, scheme, example_site, "skills/release-manager/")
    assert page.locator(".table-wrap table.params").count() == 1
    assert page.locator(".findings .finding").count() >= 1
    assert page.locator(".badge-risk-medium").count() >= 1


@pytest.mark.parametrize("rel, listed", [("tags/", ".all-tags .chip-count"), ("tags/api/", ".skill-list > li"),
                                         ("risk/medium/", ".skill-list > li"), ("404.html", "main h1")])
def test_tag_risk_and_missing_pages(a11y, example_site, rel, listed):
    ctx, scheme = a11y
    page = check(ctx, scheme, example_site, rel)
    assert page.locator(listed).count() >= 1


@pytest.mark.parametrize("rel", ["index.html", "page/2/", "page/4/", "tags/release/", "tags/release/page/2/"])
def test_pages_of_a_paginated_list(a11y, paged_example_site, rel):
    ctx, scheme = a11y
    page = check(ctx, scheme, paged_example_site, rel)
    pager = page.get_by_role("navigation", name="Pages of", exact=False)
    assert pager.count() == 1 and pager.locator("a[aria-current='page']").count() == 1
    assert page.locator(".skill-list > li").count() >= 1


@pytest.mark.parametrize("rel", ["tags/", "tags/page/2/", "tags/page/12/"])
def test_pages_of_the_paginated_tag_index(a11y, paged_example_site, rel):
    ctx, scheme = a11y
    page = check(ctx, scheme, paged_example_site, rel)
    pager = page.get_by_role("navigation", name="Pages of tags")
    assert pager.count() == 1 and pager.locator("a[aria-current='page']").count() == 1
    assert page.locator(".all-tags .chip-count").count() >= 1


@pytest.mark.parametrize("rel, heading", [("skills/release-manager/changelog/", "Needs"),
                                          ("skills/house-style/", "Needed by")])
def test_skill_pages_with_dependencies_both_ways(a11y, example_site, rel, heading):
    ctx, scheme = a11y
    page = check(ctx, scheme, example_site, rel)
    listed = page.locator(f"dt:text-is('{heading}') + dd .dependency-list a")
    assert listed.count() == 1
