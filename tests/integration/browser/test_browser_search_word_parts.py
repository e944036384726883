"""A word inside another that `skillsite search` cuts apart ("été" of "l'été", "intelligence" of
"l’intelligence" with U+2019, "known" of "well‐known" with U+2010), typed into the home page of a
small catalog (a lunr index) in headless chromium: the skill the CLI finds is shown, and stays
shown once search/lunr.json is in. The index held such a word whole, so lunr's ranking found
nothing and the skill the quick plain-text match had shown went away."""
from __future__ import annotations

import time
from typing import Iterator

import pytest

from browsing import Served, open_home, shown_skills, wait_until
from conftest import _build, _serve
from skillsite.loader import Catalog
from support import write_skill

pytestmark = pytest.mark.browser

SKILLS = {
    "words/summer": "Plans holidays for l'été by the sea.",
    "words/mind": "Explains l’intelligence artificielle to beginners.",
    "words/facts": "Collects well‐known facts about cities.",
    "words/plain": "Deploys services to staging with care.",
    "words/infra": "Provisions clusters with terraform and kubernetes.",
}
LUNR_RESULTS = "() => performance.getEntriesByName('skillsite:results:lunr').length"


@pytest.fixture(scope="module")
def parts_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("word-parts")
    for skill_id, description in SKILLS.items():
        write_skill(tmp / "skills", skill_id, description=description)
    site = _build([tmp / "skills"], tmp / "site")
    assert (site / "search" / "lunr.json").is_file(), "a small catalog is searched with its lunr index"
    yield from _serve(site)


def _shown_once(page, expected: list[str], seconds: float = 5.0) -> list[str]:
    """The skills shown, once they are ``expected`` or after ``seconds``."""
    deadline = time.monotonic() + seconds
    while (shown := shown_skills(page)) != expected and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    return shown


@pytest.mark.parametrize("query, expected", [
    ("été", "words/summer"), ("intelligence", "words/mind"), ("known ", "words/facts"),
    # a part still being typed, joined to another by "_" or "/": lunr's ranking looked its part up
    # whole only, and found nothing where the CLI and the sharded page expand it
    ("x_terraf", "words/infra"), ("terraform/kuberne", "words/infra"),
])
def test_a_word_inside_another_stays_shown_once_the_index_is_in(
        context, parts_site: Served, query: str, expected: str) -> None:
    assert [r.id for r in Catalog.open(parts_site.root).search(query)] == [expected]    # as `skillsite search`
    page = context.new_page()
    open_home(page, parts_site)
    page.locator("#searchBox").press_sequentially(query)
    wait_until(page, LUNR_RESULTS)          # lunr's ranking drew the results, not the plain-text match
    assert _shown_once(page, [expected]) == [expected]
    page.wait_for_timeout(400)
    assert shown_skills(page) == [expected]


def test_a_link_s_query_stays_shown_once_the_index_is_in(context, parts_site: Served) -> None:
    """A link with the query: the plain-text match draws the skill first, then lunr's ranking."""
    page = context.new_page()
    open_home(page, parts_site, "?q=%C3%A9t%C3%A9")
    assert page.evaluate(LUNR_RESULTS) > 0
    assert shown_skills(page) == ["words/summer"]
