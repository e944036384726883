"""The example catalog in headless chromium: search, tag filters, keyboard, skill pages, copy
buttons, no JavaScript, no request to another host, and screenshots for people to look at."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from contextlib import contextmanager
from typing import Iterator
from urllib.parse import urlsplit

import pytest

from browsing import REPO, listed_skills, wait_until, watch_requests
from support import serve_folder, write_skill

pytestmark = pytest.mark.browser

RESULTS = "#searchResults > li"
# Skill ids of list items, read from their links (skills/<id>/).
ITEM_IDS = "els => els.map(e => e.querySelector('.skill-title a').getAttribute('href').replace(/^skills\\/|\\/$/g, ''))"


def first_results(page, n: int = 3) -> list[str]:
    """Skill ids of the first results, read from their links."""
    hrefs = page.locator(f"{RESULTS} a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    return [re.sub(r"^skills/|/$", "", h) for h in hrefs[:n]]


def search(page, query: str) -> list[str]:
    page.fill("#searchBox", query)
    wait_until(page, "q => document.getElementById('searchStatus').textContent !== '' && "
                     "document.getElementById('searchBox').value === q", query)
    return first_results(page, 50)


def open_home(page, served, query: str = "") -> None:
    page.goto(served.page_url("index.html" + query))
    # The lunr index is loaded: searches from here on use it, not the fallback.
    wait_until(page, "() => performance.getEntriesByName('skillsite:index-ready').length > 0")


@pytest.mark.parametrize("query, expected", [
    ("changelog", "release-manager/changelog"),
    ("docker image", "docker-image-slimming"),
    ("restore database backup", "prod-db-restore"),
    ("pull request review", "code-review"),
    ("semver", "release-manager/version-bump"),
    ("deploy", None),                                 # lunr.js stems "deploy" the same as the index
    ("migra", "sql-migration-review"),                # prefix while typing
    ("kubectl", "incident-response"),                 # a tool name
])
def test_query_shows_the_right_first_result(context, example_site, query, expected):
    page = context.new_page()
    open_home(page, example_site)
    ids = search(page, query)
    if expected is None:
        assert page.locator("#searchStatus").text_content()  # answered, whatever it found
        return
    assert ids and ids[0] == expected, f"{query!r} -> {ids}"
    assert page.locator("#searchResults").is_visible()
    assert page.get_attribute("#searchResult0", "class") == "active"          # what Enter opens


def test_query_in_the_url_runs_on_load(context, example_site):
    page = context.new_page()
    page.goto(example_site.page_url("index.html?q=incident"))
    wait_until(page, "() => performance.getEntriesByName('skillsite:results:lunr').length > 0")
    assert first_results(page)[0] == "incident-response"
    assert page.input_value("#searchBox") == "incident"


def test_results_take_the_place_of_the_list_while_searching(context, example_site):
    page = context.new_page()
    open_home(page, example_site)
    assert page.locator("#skillList").is_visible()
    search(page, "incident")
    assert page.locator("#searchResults").is_visible() and page.locator("#skillList").is_hidden()
    assert page.get_attribute("#searchBox", "aria-expanded") == "true"
    page.fill("#searchBox", "")
    assert page.locator("#skillList").is_visible() and page.locator("#searchResults").is_hidden()
    assert page.get_attribute("#searchBox", "aria-expanded") == "false"


@pytest.mark.parametrize("missing", ["search/lunr.json", "search/docs.json"])
def test_search_works_without_the_index_files(context, example_site, missing):
    """Without lunr.json: a plain-text match over docs.json; without docs.json (whose rows the
    lunr refs point to): a plain-text match over the list itself."""
    page = context.new_page()
    page.route(f"**/{missing}", lambda route: route.abort())
    page.goto(example_site.page_url("index.html?q=incident"))
    wait_until(page, "() => performance.getEntriesByName('skillsite:results').length > 0")
    page.wait_for_load_state("load")
    assert first_results(page)[0] == "incident-response"
    assert page.evaluate("performance.getEntriesByName('skillsite:index-ready').length") == 0
    assert set(search(page, "release manager")) >= {"release-manager"}


def test_the_fallbacks_find_every_match_not_only_the_first(context, example_site):
    """Without docs.json the list's items are searched; each is its own group of copies (one
    result per group), not all of them one group that showed a single result."""
    found = {}
    for missing in ("search/lunr.json", "search/docs.json"):
        page = context.new_page()
        page.route(f"**/{missing}", lambda route: route.abort())
        page.goto(example_site.page_url("index.html?q=release"))
        wait_until(page, "() => performance.getEntriesByName('skillsite:results').length > 0")
        found[missing] = set(first_results(page, 50))
        page.close()
    assert len(found["search/lunr.json"]) > 1
    assert found["search/docs.json"] == found["search/lunr.json"]


def test_search_with_no_match_says_so(context, example_site):
    page = context.new_page()
    open_home(page, example_site)
    assert search(page, "zzzqqq") == []
    assert "No skill matches" in page.locator("#searchStatus").text_content()
    assert page.locator("#searchResults").is_hidden()


def test_tag_filter_narrows_the_list(context, example_site):
    page = context.new_page()
    open_home(page, example_site)
    items = page.locator("#skillList > li:visible")
    total = items.count()
    skills = listed_skills(example_site.root)
    with_release = sorted(e["id"] for e in skills if "release" in e["tags"])
    with_both = sorted(e["id"] for e in skills if {"release", "versioning"} <= set(e["tags"]))
    assert total == len(skills)

    page.click("#tagChips button[data-tag='release']")
    assert page.get_attribute("#tagChips button[data-tag='release']", "aria-pressed") == "true"
    assert sorted(items.evaluate_all(ITEM_IDS)) == with_release
    assert page.locator("#listCount").text_content() == f"{len(with_release)} of {total}"
    assert "tag=release" in page.url

    page.click("#tagChips button[data-tag='versioning']")
    assert sorted(items.evaluate_all(ITEM_IDS)) == with_both
    assert len(with_both) < len(with_release) < total

    # The filter applies to search results too.
    assert set(search(page, "release")) <= set(with_both)

    page.click("#tagChips button[data-tag='release']")
    page.click("#tagChips button[data-tag='versioning']")
    page.fill("#searchBox", "")
    assert items.count() == total


def test_tag_filter_from_the_url(context, example_site):
    page = context.new_page()
    page.goto(example_site.page_url("index.html?tag=database"))
    page.wait_for_selector("#tagChips button[data-tag='database'][aria-pressed='true']")
    ids = page.locator("#skillList > li:visible").evaluate_all(ITEM_IDS)
    assert sorted(ids) == ["prod-db-restore", "sql-migration-review"]


def test_a_tag_without_a_chip_on_home_still_filters_from_the_url(context, example_site):
    home = (example_site.root / "index.html").read_text(encoding="utf-8")
    skills = listed_skills(example_site.root)
    all_tags = {t for e in skills for t in e["tags"]}
    rare = sorted(t for t in all_tags if f'data-tag="{t}"' not in home)
    assert rare, "the example catalog should have more tags than home shows chips for"
    tag = rare[0]
    expected = sorted(e["id"] for e in skills if tag in e["tags"])
    page = context.new_page()
    page.goto(example_site.page_url(f"index.html?tag={tag}"))
    chip = f"#tagChips button[data-tag='{tag}'][aria-pressed='true']"
    page.wait_for_selector(chip)
    items = page.locator("#skillList > li:visible")
    assert sorted(items.evaluate_all(ITEM_IDS)) == expected
    page.click(chip)                       # and it can be turned off like any other chip
    page.wait_for_function("document.querySelectorAll('#skillList > li:not([hidden])').length > 3")
    assert items.count() == len(skills)


def test_enter_in_the_box_opens_the_first_result(context, example_site):
    page = context.new_page()
    open_home(page, example_site)
    ids = search(page, "incident")
    with page.expect_navigation():
        page.press("#searchBox", "Enter")
    assert urlsplit(page.url).path == f"/skills/{ids[0]}/"


def test_keyboard_slash_arrows_and_enter_open_a_result(context, example_site):
    page = context.new_page()
    open_home(page, example_site)
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "searchBox"
    page.keyboard.type("release")
    page.wait_for_selector(RESULTS)
    ids = first_results(page, 50)
    assert len(ids) >= 2
    page.keyboard.press("ArrowDown")                 # into the list: the first result's link
    assert page.evaluate("document.activeElement.closest('li').id") == "searchResult0"
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowUp")
    assert page.evaluate("document.activeElement.closest('li').id") == "searchResult1"
    assert page.get_attribute("#searchResult1", "class") == "active"
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert urlsplit(page.url).path == f"/skills/{ids[1]}/"
    assert page.locator("h1").first.text_content().strip().startswith(ids[1].rsplit("/", 1)[-1])


def test_skill_page_opens_with_its_parts(context, example_site):
    page = context.new_page()
    requests = watch_requests(page, example_site)
    open_home(page, example_site)
    with page.expect_navigation():
        page.click("#skillList a[href='skills/release-manager/']")
    assert page.title().startswith("release-manager")
    assert page.locator("h1").first.text_content().startswith("release-manager")
    # rendered body, with links to sub-skills rewritten to their pages
    body = page.locator("article.skill-body")
    assert body.locator("h2").first.text_content().startswith("Release manager")
    assert body.locator("a[href='version-bump/']").count() >= 1
    # metadata panel, sub-skills, bundled files, breadcrumb on a child page
    details = page.locator(".details").text_content()
    for text in ("2.0.0", "MIT", "Bash(git:*)", "sha256:"):
        assert text in details
    source = "https://github.com/example/skills/blob/main/example-skills/release-manager/SKILL.md"
    assert page.locator(f"a[href='{source}']").count()
    assert page.locator("#childrenHeading + .skill-list > li").count() == 2
    files = page.locator(".file-list a")
    assert files.count() >= 3
    response = page.request.get(page.url + files.first.get_attribute("href"))
    assert response.ok
    with page.expect_navigation():
        page.click("#childrenHeading + .skill-list a[href$='version-bump/']")
    crumbs = page.locator("nav.breadcrumb li").all_text_contents()
    assert [c.strip() for c in crumbs] == ["Skills", "release-manager", "version-bump"]
    assert all(urlsplit(u).netloc == urlsplit(example_site.url).netloc for u in requests), requests


def test_a_site_under_a_path_a_shell_reads_apart_gets_one_word_snippets(browser, example_site, tmp_path):
    """Served under a folder named with '&', ';', parentheses, a quote and a space, the skill
    page's install command still names the site as one shell word, a URL of the catalog."""
    import shutil
    import urllib.request
    from urllib.parse import quote

    folder = "R&D (x);it's"
    shutil.copytree(example_site.root, tmp_path / folder)
    url, stop = serve_folder(tmp_path)
    ctx = browser.new_context()
    try:
        page = ctx.new_page()
        kept = quote(folder, safe="&;()'")  # as a browser keeps them in its address
        page.goto(f"{url}/{kept}/skills/release-manager/")
        command = page.locator("#snippetCode1").text_content()
        # the words bash reads (shlex.split knows no ';' or '&'): the command's, one per line
        said = subprocess.run(["bash", "-c", 'npx() { printf "%s\\n" "$@"; }; ' + command], capture_output=True,
                              text=True, timeout=30)
        words = ["npx", *said.stdout.splitlines()]
        assert words[:3] == ["npx", "skills", "add"] and words[4:] == ["--skill", "release-manager"], words
        assert urllib.request.urlopen(words[3] + "/skills.json", timeout=10).status == 200
    finally:
        ctx.close()
        stop()


def test_copy_button_puts_the_snippet_on_the_clipboard(browser, example_site, tmp_path):
    ctx = browser.new_context()
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=example_site.url.rstrip("/"))
    try:
        page = ctx.new_page()
        page.goto(example_site.page_url("skills/release-manager/"))
        snippet = page.locator("#snippetCode1").text_content()
        assert snippet == f"npx skills add {example_site.url.rstrip('/')} --skill release-manager"
        page.click("button[data-copy='snippetCode1']")
        page.wait_for_selector("button[data-copy='snippetCode1'].copied")
        assert page.evaluate("navigator.clipboard.readText()") == snippet
        number = page.locator(".snippet-label", has_text="Load it in Python").get_attribute("id")[len("snippetLabel"):]
        page.click(f"button[data-copy='snippetCode{number}']")
        loader = page.evaluate("navigator.clipboard.readText()")
        assert "Catalog.open(\"" + example_site.url + "skills.json\")" in loader
        assert ".load(\"release-manager\")" in loader
        # and the copied command works: it prints the skill's body, read through the loader
        assert loader.startswith("python -c ")
        env = {**os.environ, "PYTHONPATH": str(REPO), "SKILLSITE_CACHE_DIR": str(tmp_path / "cache")}
        run = subprocess.run(["bash", "-c", sys.executable + loader[len("python"):]], capture_output=True,
                             text=True, timeout=120, env=env, cwd=REPO)
        assert run.returncode == 0, run.stderr
        assert run.stdout.startswith("\n# Release manager") or run.stdout.lstrip().startswith("# Release manager")
    finally:
        ctx.close()


def test_usable_without_javascript(browser, example_site):
    ctx = browser.new_context(java_script_enabled=False)
    try:
        page = ctx.new_page()
        page.goto(example_site.page_url())
        assert page.locator("#skillList > li").count() == len(listed_skills(example_site.root))
        assert page.locator("#searchBox").is_hidden()       # a box that cannot work is not shown
        chip = page.locator("#tagChips a.chip[data-tag='release']")
        assert chip.get_attribute("href") == "tags/release/"
        with page.expect_navigation():
            chip.click()
        assert page.locator("h1").text_content().strip() == "Tag: release"
        assert page.locator(".skill-list > li").count() == 4
        page.goto(example_site.page_url("skills/code-review/"))
        assert page.locator("button.copy-button").first.is_hidden()
        assert "<site-url>" in page.locator("#snippetCode1").text_content()
    finally:
        ctx.close()


def test_paginated_lists_are_browsed_without_javascript(browser, paged_example_site):
    """Above shard_above: following "Next page" from the home page, and from a tag's first
    page, shows every listed skill once, in order; "Previous page" goes back."""
    from skillsite.loader import Catalog

    listed = [e for e in Catalog.open(paged_example_site.root).entries if e.visibility.listed]
    ctx = browser.new_context(java_script_enabled=False)
    try:
        page = ctx.new_page()
        for start, shown in (("", listed), ("tags/release/", [e for e in listed if "release" in e.tags])):
            page.goto(paged_example_site.page_url(start))
            seen = []
            while True:
                seen += page.locator(".skill-list > li .skill-title a").evaluate_all("as => as.map(a => a.href)")
                following = page.locator(".pager a[rel='next']")
                if following.count() == 0:
                    break
                with page.expect_navigation():
                    following.click()
            assert seen == [paged_example_site.page_url(e.urls.page) for e in shown]
            with page.expect_navigation():
                page.locator(".pager a[rel='prev']").click()
            assert page.locator(".pager a[aria-current='page']").text_content() == str(-(-len(shown) // 3) - 1)
    finally:
        ctx.close()


def test_missing_page_gets_the_404_page(context, example_site):
    page = context.new_page()
    response = page.goto(example_site.page_url("skills/no-such-skill/deeper/"))
    assert response.status == 404
    assert page.locator("h1").text_content() == "Page not found"
    # its stylesheet loads although the page is served from a deep path
    assert page.evaluate("getComputedStyle(document.body).margin") == "0px"


def test_no_request_leaves_the_site_and_nothing_fails(context, example_site):
    page = context.new_page()
    requests = watch_requests(page, example_site)
    failures: list[str] = []
    page.on("requestfailed", lambda r: failures.append(r.url))
    page.on("response", lambda r: r.status >= 400 and failures.append(f"{r.status} {r.url}"))
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    for rel in ("", "tags/", "tags/release/", "skills/code-review/", "skills/release-manager/version-bump/prerelease/"):
        page.goto(example_site.page_url(rel))
        page.wait_for_load_state("networkidle")
    assert requests and all(urlsplit(u).netloc == urlsplit(example_site.url).netloc for u in requests), requests
    assert failures == [] and errors == []
    assert page.evaluate("window.__cspViolations") == []


def test_code_blocks_are_highlighted(context, example_site):
    page = context.new_page()
    page.goto(example_site.page_url("skills/release-manager/"))
    assert page.locator("pre code.language-bash .tok-string").count() > 0


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_screenshots(browser, example_site, artifacts, scheme):
    """Kept under test-artifacts/ for people to look at (CI uploads them)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
    try:
        page = ctx.new_page()
        open_home(page, example_site)
        suffix = "" if scheme == "light" else "-dark"
        page.screenshot(path=str(artifacts / f"home{suffix}.png"), full_page=True)
        search(page, "release")
        page.screenshot(path=str(artifacts / f"home-search{suffix}.png"))
        page.goto(example_site.page_url("skills/release-manager/"))
        page.screenshot(path=str(artifacts / f"skill{suffix}.png"), full_page=True)
    finally:
        ctx.close()
    mobile = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme, is_mobile=True)
    try:
        page = mobile.new_page()
        page.goto(example_site.page_url("skills/code-review/"))
        page.screenshot(path=str(artifacts / f"skill-mobile{suffix}.png"), full_page=False)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    finally:
        mobile.close()


@contextmanager
def served_tree(src, out) -> Iterator[str]:
    """``src`` built into ``out`` and served on 127.0.0.1: the site's address."""
    from skillsite.publish.build import build

    assert build([src], out).ok
    url, stop = serve_folder(out)
    try:
        yield url + "/"
    finally:
        stop()


def test_a_comment_or_string_left_open_is_highlighted_to_its_end(context, tmp_path):
    """Each rule matches wherever it starts: one that failed after scanning to the end of the
    block scanned again from every later start (a skill of unclosed ``/*`` froze its page)."""
    body = ("# Open\n\n```js\nvar a = 1; /* left open\nvar b = 2;\n```\n\n"
            "```python\nx = 1\ns = \"\"\"never closed\n```\n\n```bash\necho don't\n```\n")
    write_skill(tmp_path / "src", "open-ends", body=body)
    with served_tree(tmp_path / "src", tmp_path / "site") as site:
        page = context.new_page()
        page.goto(site + "skills/open-ends/")
        comments = page.locator("pre code.language-js .tok-comment").all_text_contents()
        strings = page.locator("pre code.language-python .tok-string").all_text_contents()
        shell = page.locator("pre code.language-bash .tok-string").all_text_contents()
    assert comments == ["/* left open\nvar b = 2;\n"]
    assert strings == ['"""never closed\n']
    assert shell == ["'t"]


def test_a_tag_filter_ignores_case_as_the_sharded_index_does(context, tmp_path):
    for name, tag in (("alpha", "Deploy"), ("beta", "deploy"), ("gamma", "Deploy")):
        write_skill(tmp_path / "src", name, frontmatter=f"name: {name}\ndescription: Deploys the {name} service. "
                                                        f"Use when asked to deploy {name}.\ntags: [{tag}]\n")
    with served_tree(tmp_path / "src", tmp_path / "site") as site:
        page = context.new_page()
        page.goto(site + "index.html?q=deploys&tag=Deploy")
        wait_until(page, "() => performance.getEntriesByName('skillsite:results').length > 0")
        found = sorted(first_results(page, 50))
    assert found == ["alpha", "beta", "gamma"]


def test_a_tag_on_a_page_of_a_paged_list_finds_every_skill_with_it(context, paged_example_site):
    """One page holds 3 of the catalog's skills: a tag chip alone gives every skill with the tag
    (from the sharded index), not those of the page (often none: "no skill has the tag")."""
    from skillsite.loader import Catalog

    catalog = Catalog.open(paged_example_site.root)
    listed = [e for e in catalog.entries if e.visibility.listed and e.visibility.copy_of is None]
    counts: dict[str, int] = {}
    for entry in listed:
        for tag in entry.tags:
            counts[tag] = counts.get(tag, 0) + 1
    tag = max(sorted(counts), key=lambda t: counts[t])
    expected = sorted(e.id for e in listed if tag in e.tags)
    assert len(expected) > 1  # a tag several skills share
    page = context.new_page()
    page.goto(paged_example_site.page_url("index.html?tag=" + tag))
    wait_until(page, "() => performance.getEntriesByName('skillsite:results:settled').length > 0")
    assert sorted(first_results(page, 50)) == expected
    assert page.locator("#searchResults").is_visible()
