"""A word that `skillsite search` cuts into other words ("l'été", "l’intelligence" with U+2019,
"rock'n'roll", "v2.0", "well‐known" with U+2010, "emoji🎉🎉party") in node, on what `skillsite
build` writes: the CLI and the loader find the skill by any of those words (terms.words), and so
must the lunr page once search/lunr.json is in, with the word highlighted. The lunr index kept such
a word whole (apostrophes joined; its parts only when it had two of two letters), so "été" found
nothing there, and the skill its quick plain-text match had shown went away when the index came."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from skillsite.loader import Catalog
from skillsite.search.lunr_index import word_parts
from skillsite.search.terms import folded
from support import assert_lunr_js_finds_as_lunr_py, assert_searches_find, run_node, whole_and_sharded

REPO = Path(__file__).resolve().parents[2]
SKILLS = {
    "words/summer": "Plans holidays for l'été by the sea.",
    "words/mind": "Explains l’intelligence artificielle to beginners.",
    "words/music": "Writes playlists of rock'n'roll classics.",
    "words/api": "Migrates clients to the v2.0 interface.",
    "words/facts": "Collects well‐known facts about cities.",
    "words/invite": "Decorates an emoji🎉🎉party invitation.",
    "words/plain": "Deploys services to staging with care.",
    "words/piano": "Writes an étude for piano, played in Zürich and हिन्दी.",
}
#: (query, the skill it finds, the word highlighted in its description once the query is settled)
QUERIES = [("été", "words/summer", "été"), ("intelligence", "words/mind", "intelligence"),
           ("roll", "words/music", "roll"), ("v2", "words/api", "v2"), ("known", "words/facts", "known"),
           ("emoji", "words/invite", "emoji"), ("party", "words/invite", "party")]


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The skills built as a whole catalog (a lunr index) and as a sharded one."""
    return whole_and_sharded(tmp_path_factory.mktemp("parts"), SKILLS)


def _page(site: Path, queries: list[str]) -> dict:
    return run_node(str(REPO / "tests" / "js" / "browser_search.js"), str(site), "-", stdin=queries)


def test_the_cli_and_the_loader_find_each_word(sites: dict[str, Path]) -> None:
    assert_searches_find(sites["whole"], [(query, found) for query, found, _ in QUERIES])


@pytest.mark.parametrize("typing", [False, True], ids=["settled", "typing"])
def test_the_lunr_page_finds_what_its_plain_text_match_showed(sites: dict[str, Path], typing: bool) -> None:
    """Settled ("été ": the word is no prefix any more) and while typing ("été"); the same skills
    before and after search/lunr.json arrives, so nothing flickers."""
    queries = [query if typing else query + " " for query, _, _ in QUERIES]
    out = _page(sites["whole"], queries)
    expected = [[found] for _, found, _ in QUERIES]
    assert [[h["id"] for h in per_query] for per_query in out["text"]] == expected
    assert [[h["id"] for h in per_query] for per_query in out["lunr"]] == expected


def test_the_lunr_page_highlights_the_word_inside_the_other(sites: dict[str, Path]) -> None:
    """Only the word found ("intelligence" of "l’intelligence"): the highlighter cut a word at ASCII
    punctuation only, so it marked nothing of "l’intelligence", "well‐known" or "emoji🎉🎉party"."""
    out = _page(sites["whole"], [query + " " for query, _, _ in QUERIES])
    assert [[h["marks"] for h in per_query] for per_query in out["lunr"]] == [[[marked]] for _, _, marked in QUERIES]


def test_the_plain_text_match_finds_no_word_inside_a_word_of_another_script(sites: dict[str, Path]) -> None:
    """"tude" is no word of "étude", nor "rich" of "Zürich" or "न्दी" of "हिन्दी", to the CLI and to
    lunr; the plain-text match took any non-ASCII letter or mark for a word's start, so it showed the
    skill, which went away when search/lunr.json arrived."""
    queries = ["tude", "rich ", "न्दी "]
    assert [[r.id for r in Catalog.open(sites["whole"]).search(q)] for q in queries] == [[], [], []]
    out = _page(sites["whole"], queries)
    assert out["lunr"] == out["text"] == [[], [], []]
    assert [[h["id"] for h in hits] for hits in _page(sites["whole"], ["étude", "zürich "])["text"]] == \
        [["words/piano"], ["words/piano"]]


def test_the_page_cuts_a_query_word_into_the_words_the_index_holds() -> None:
    """A query word's parts (queryWords, searched beside it) are the words the lunr index holds
    beside a word written the same way (lunr_index.word_parts), for these words and 2,000 more made
    of letters, digits, marks and punctuation of several scripts."""
    rng = random.Random(7)
    alphabet = list("abcxyzAEIOU_.,;:!?'\"()[]éßİ日🎉0123456789\u2010\u2019\u0301\u00b2ǅŉﬁⅫ١")
    texts = [query for query, _, _ in QUERIES] + [word for text in SKILLS.values() for word in text.split()]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 8))) for _ in range(2000)]
    script = (f"const lunr = require({json.dumps(str(REPO / 'node_modules' / 'lunr'))}),"
              f" page = require({json.dumps(str(REPO / 'templates' / 'static' / 'ranking.js'))});"
              "const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "process.stdout.write(JSON.stringify(input.map((text) => {"
              "  const words = page.queryWords(lunr, text + ' ').filter((w) => !/^\\p{So}/u.test(w.text));"
              "  return words.length ? words[words.length - 1].parts.map((p) => p.text) : null; })));")
    for text, parts in zip(texts, run_node("-e", script, stdin=texts)):
        if parts is not None:      # a word of the query (not "c#", "it's" or one letter)
            assert parts == word_parts(folded(text)), text


def test_the_sharded_page_finds_each_word(sites: dict[str, Path]) -> None:
    hits = run_node(str(REPO / "tests" / "js" / "shard_search.js"), str(sites["sharded"]), "-",
                    stdin=[q for q, _, _ in QUERIES])["hits"]
    assert [[h["id"] for h in per_query] for per_query in hits] == [[found] for _, found, _ in QUERIES]


def test_real_lunr_js_finds_what_lunr_py_finds(sites: dict[str, Path]) -> None:
    assert_lunr_js_finds_as_lunr_py(sites["whole"], [q for q, _, _ in QUERIES], [found for _, found, _ in QUERIES])
