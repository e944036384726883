"""The home page's search box in headless chromium on requests as people type them (issue 19):
every word optional (a word no skill uses does not empty the list), matched words highlighted
with <mark> elements, the query in the URL (?q=, ?tag=), the back button, and no dead end."""
from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

import pytest

from browsing import listed_skills, wait_until

pytestmark = pytest.mark.browser

RESULTS = "#searchResults > li"
ITEM_IDS = "els => els.map(e => e.querySelector('.skill-title a').getAttribute('href').replace(/^skills\\/|\\/$/g, ''))"
LUNR_DRAWN = "() => performance.getEntriesByName('skillsite:results:lunr').length > 0"
# Requests with a word no skill of example-skills uses ("flibbertigibbet", "zzzfoo"), and
# words found only as the beginning of longer ones ("postgres": PostgreSQL).
REQUESTS = [
    ("restore a dropped postgres table from last nights backup flibbertigibbet", "prod-db-restore"),
    ("shrink my bloated docker image zzzfoo", "docker-image-slimming"),
    ("write release notes for the new version", "release-manager/changelog"),
    ("what to do in the first hour of a production outage", "incident-response"),
]


def result_ids(page, n: int = 50) -> list[str]:
    hrefs = page.locator(f"{RESULTS} a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    return [h.removeprefix("skills/").removesuffix("/") for h in hrefs[:n]]


def open_home(page, served, rel: str = "index.html") -> None:
    page.goto(served.page_url(rel))
    wait_until(page, "() => performance.getEntriesByName('skillsite:index-ready').length > 0")


def search(page, query: str) -> list[str]:
    """The ids listed for ``query``, once results are drawn (not while the page still says it is
    loading the search index: on a busy machine docs.json can arrive after the typing)."""
    page.fill("#searchBox", query)
    wait_until(page, "q => { const status = document.getElementById('searchStatus').textContent; "
                     "return status !== '' && !status.startsWith('Loading') && "
                     "document.getElementById('searchBox').value === q; }", query)
    return result_ids(page)


def query_of(page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


def no_csp_violations(page) -> bool:
    return page.evaluate("window.__cspViolations") == []


@pytest.mark.parametrize("query, expected", REQUESTS)
def test_a_request_with_an_unknown_word_finds_the_skill(context, example_site, query, expected):
    page = context.new_page()
    open_home(page, example_site)
    ids = search(page, query)
    assert page.evaluate(LUNR_DRAWN)
    assert ids and ids[0] == expected, f"{query!r} -> {ids}"
    assert page.get_attribute("#searchResult0", "class") == "active"
    assert "No skill matches" not in page.locator("#searchStatus").text_content()


def test_more_matched_words_rank_higher(context, example_site):
    """Each word alone finds several skills; the one that has both comes first."""
    page = context.new_page()
    open_home(page, example_site)
    assert len(search(page, "postgresql")) >= 2 and len(search(page, "backup")) >= 1
    ids = search(page, "postgresql backup")
    assert ids[0] == "prod-db-restore" and "sql-migration-review" in ids[1:]


@pytest.mark.parametrize("query, expected", REQUESTS[:2])
def test_the_quick_match_before_the_index_takes_any_word_too(context, example_site, query, expected):
    """Without search/lunr.json (or before it arrives) the plain-text match over docs.json ranks
    the same way: any word, more and rarer words first."""
    page = context.new_page()
    page.route("**/search/lunr.json", lambda route: route.abort())
    page.goto(example_site.page_url("index.html"))
    wait_until(page, "() => document.readyState === 'complete'")
    ids = search(page, query)
    assert ids and ids[0] == expected, f"{query!r} -> {ids}"
    assert not page.evaluate(LUNR_DRAWN)
    assert page.locator("#searchResult0 mark").count() > 0       # its matches are highlighted as well


def test_matched_words_are_highlighted_with_mark_elements(context, example_site):
    page = context.new_page()
    open_home(page, example_site)
    manifest = json.loads((example_site.root / "skills.json").read_text(encoding="utf-8"))
    description = next(s["description"] for s in manifest["skills"] if s["id"] == "prod-db-restore")
    assert search(page, "restore postgres backups zzzfoo")[0] == "prod-db-restore"
    first = page.locator("#searchResult0")
    assert first.locator(".result-name mark").all_text_contents() == ["restore"]     # prod-db-restore
    marked = first.locator(".result-desc mark").all_text_contents()
    assert {"Restore", "PostgreSQL", "backup"} <= set(marked) and "zzzfoo" not in marked
    # the marks wrap words of the text, which is unchanged: text nodes and <mark> elements only
    assert first.locator(".result-desc").text_content() == description
    kinds = first.locator(".result-desc").evaluate(
        "el => Array.from(el.childNodes).map(n => n.nodeType === 3 ? '#text' : n.tagName + ':' + n.children.length)")
    assert set(kinds) == {"#text", "MARK:0"}
    # the word still being typed is highlighted where it begins a word
    search(page, "postg")
    assert "PostgreSQL" in page.locator(f"{RESULTS} .result-desc mark").all_text_contents()
    assert no_csp_violations(page)


def test_highlighting_leaves_markup_in_a_description_as_text(context, hostile_site):
    """A description holding markup is shown as text, marks and all."""
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    open_home(page, hostile_site)
    assert search(page, "folder whose name is markup")
    item = page.locator(RESULTS).filter(has_text="whose name is markup")   # the odd folder's skill
    assert item.count() == 1
    assert item.locator(".result-desc").text_content() == "A skill in a folder whose name is markup. <b>bold?</b>"
    assert {"folder", "markup"} <= set(item.locator(".result-desc mark").all_text_contents())
    assert item.locator(".result-desc b, .result-desc svg, .result-desc img").count() == 0
    assert page.locator("#searchResults svg, #searchResults img, #searchResults b").count() == 0
    assert errors == [] and no_csp_violations(page)


def test_a_query_link_shows_its_results(context, example_site):
    page = context.new_page()
    page.goto(example_site.page_url("index.html?q=shrink+my+bloated+docker+image+zzzfoo&tag=performance"))
    wait_until(page, LUNR_DRAWN)
    assert page.input_value("#searchBox") == "shrink my bloated docker image zzzfoo"
    assert page.get_attribute("#tagChips button[data-tag='performance']", "aria-pressed") == "true"
    assert result_ids(page) == ["docker-image-slimming"]      # the only match with the tag
    assert page.locator("#searchResult0 mark").count() >= 2
    assert page.locator("#skillList").is_hidden()


def test_typing_keeps_the_query_in_the_url(context, example_site):
    page = context.new_page()
    open_home(page, example_site)
    page.click("#searchBox")
    page.keyboard.type("release notes")
    wait_until(page, "() => location.search === '?q=release+notes'")
    page.click("#tagChips button[data-tag='writing']")
    assert query_of(page) == {"q": ["release notes"], "tag": ["writing"]}
    # the URL opens the same results in another page
    other = page.context.new_page()
    other.goto(page.url)
    wait_until(other, LUNR_DRAWN)
    assert result_ids(other) == result_ids(page) and result_ids(page)[0] == "release-manager/changelog"


def test_back_restores_the_previous_query_and_filters(context, example_site):
    page = context.new_page()
    open_home(page, example_site)
    start = page.evaluate("history.length")
    page.click("#searchBox")
    page.keyboard.type("incident", delay=20)        # one history entry for the whole word
    wait_until(page, "() => location.search === '?q=incident'")
    assert page.evaluate("history.length") == start + 1
    page.wait_for_timeout(1300)                     # the query settles
    page.keyboard.press("Control+A")
    page.keyboard.type("docker image", delay=20)
    wait_until(page, "() => location.search === '?q=docker+image'")
    assert page.evaluate("history.length") == start + 2
    page.click("#tagChips button[data-tag='performance']")
    assert query_of(page) == {"q": ["docker image"], "tag": ["performance"]}

    page.go_back()
    wait_until(page, "() => location.search === '?q=docker+image'")
    assert page.get_attribute("#tagChips button[data-tag='performance']", "aria-pressed") == "false"
    page.go_back()
    wait_until(page, "() => document.getElementById('searchBox').value === 'incident'")
    assert result_ids(page)[0] == "incident-response"
    assert page.locator("#searchResults").is_visible() and page.locator("#skillList").is_hidden()
    page.go_back()
    wait_until(page, "() => document.getElementById('searchBox').value === ''")
    assert page.locator("#searchResults").is_hidden() and page.locator("#skillList").is_visible()
    page.go_forward()
    wait_until(page, "() => document.getElementById('searchBox').value === 'incident'")
    assert result_ids(page)[0] == "incident-response"
    assert no_csp_violations(page)


def test_back_from_a_result_comes_back_to_its_query(context, example_site):
    page = context.new_page()
    open_home(page, example_site)
    search(page, "semantic version of the next release")
    first = result_ids(page)[0]
    with page.expect_navigation():
        page.press("#searchBox", "Enter")
    assert urlsplit(page.url).path == f"/skills/{first}/"
    page.go_back()
    wait_until(page, LUNR_DRAWN)
    assert page.input_value("#searchBox") == "semantic version of the next release"
    assert result_ids(page)[0] == first


def test_an_empty_result_offers_the_closest_tags(context, example_site):
    page = context.new_page()
    open_home(page, example_site)
    assert search(page, "databse") == []                    # misspelt: no skill has the word
    assert "No skill matches" in page.locator("#searchStatus").text_content()
    assert page.locator("#searchEmpty").is_visible()
    offered = page.locator("#searchEmptyTags button[data-tag]").evaluate_all(
        "bs => bs.map(b => b.getAttribute('data-tag'))")
    assert offered[0] == "database"
    page.click("#searchEmptyTags button[data-tag='database']")
    assert page.input_value("#searchBox") == ""
    assert page.get_attribute("#tagChips button[data-tag='database']", "aria-pressed") == "true"
    assert sorted(page.locator("#skillList > li:visible").evaluate_all(ITEM_IDS)) == ["prod-db-restore",
                                                                                  "sql-migration-review"]
    assert query_of(page) == {"tag": ["database"]} and page.locator("#searchEmpty").is_hidden()
    page.go_back()                                          # the empty search is one step back
    wait_until(page, "() => document.getElementById('searchBox').value === 'databse'")


def test_an_empty_result_offers_the_full_list_and_the_unfiltered_results(context, example_site):
    page = context.new_page()
    open_home(page, example_site)
    skills = listed_skills(example_site.root)
    assert search(page, "zzzqqq") == []
    show_all = page.locator("#searchShowAll")
    assert show_all.text_content() == f"Browse all {len(skills)} skills"
    show_all.click()
    assert page.input_value("#searchBox") == "" and page.locator("#searchEmpty").is_hidden()
    assert page.locator("#skillList > li:visible").count() == len(skills)

    page.click("#tagChips button[data-tag='database']")
    assert search(page, "docker image") == []               # found, but not with the tag
    without = page.locator("#searchWithoutTags")
    assert without.text_content().startswith("1 skill matches without the tag filter")
    without.click()
    assert page.get_attribute("#tagChips button[data-tag='database']", "aria-pressed") == "false"
    assert result_ids(page)[0] == "docker-image-slimming"
    assert query_of(page) == {"q": ["docker image"]}
    assert no_csp_violations(page)
