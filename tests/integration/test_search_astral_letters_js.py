"""Letters past U+FFFF (Gothic "𐌰", CJK extension B "𠮷", Deseret "𐐀") in node, on what `skillsite build`
writes: a word's length is its number of letters, as Python's len() counts them in the CLI, the
loader and the sharded page. The lunr page counted UTF-16 units, two for each such letter, so a
two-letter word was long enough to match as a prefix (MIN_PREFIX is 3) there and nowhere else,
and its closest tags took such a letter for two letters and its misspelling for two edits."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from skillsite.loader import Catalog
from support import REPO, assert_searches_find, run_node, whole_and_sharded

# Gothic letters: a run of CJK letters is searched as its pairs (terms.cjk_pairs), whatever its length
A, B, C, D = "\U00010330", "\U00010331", "\U00010332", "\U00010333"
W, X, Y, Z = "\U00010340", "\U00010341", "\U00010342", "\U00010343"
SKILLS = {
    "astral/three": f"Writes {A}{B}{C} poems.",
    "astral/four": f"Keeps {W}{X}{Y}{Z} notes.",
}
#: Settled queries (a space after the word: no word is being typed) and the skill the CLI finds.
SETTLED = [
    (f"{A}{B} ", None),            # two letters: too short to match as a prefix
    (f"{A}{B}s ", None),           # its stem is those two letters
    (f"{A}{B} zzzz ", None),       # not the last word either
    (f"{W}{X}{Y} ", "astral/four"),   # three letters: the beginning of a word
    (f"{A}{B}{C} ", "astral/three"),
]
RANKING = json.dumps(str(REPO / "templates" / "static" / "ranking.js"))
LUNR = json.dumps(str(REPO / "node_modules" / "lunr"))


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The skills built as a whole catalog (a lunr index) and as a sharded one."""
    return whole_and_sharded(tmp_path_factory.mktemp("astral"), SKILLS)


def _ids(per_query: list[list[dict]]) -> list[list[str]]:
    return [[hit["id"] for hit in hits] for hits in per_query]


def test_the_cli_and_the_loader_count_letters(sites: dict[str, Path]) -> None:
    assert_searches_find(sites["whole"], [(query, found) for query, found in SETTLED if found])
    catalog = Catalog.open(sites["whole"])
    assert [list(catalog.search(query)) for query, found in SETTLED if not found] == [[], [], []]


def test_the_pages_find_what_the_cli_finds(sites: dict[str, Path]) -> None:
    """lunr's ranking and the sharded page: a word of two such letters is no prefix."""
    queries = [query for query, _ in SETTLED]
    expected = [[found] if found else [] for _, found in SETTLED]
    page = run_node(str(REPO / "tests" / "js" / "browser_search.js"), str(sites["whole"]), "-", stdin=queries)
    assert _ids(page["lunr"]) == expected
    sharded = run_node(str(REPO / "tests" / "js" / "shard_search.js"), str(sites["sharded"]), "-", stdin=queries)
    assert _ids(sharded["hits"]) == expected


def test_the_plain_text_match_looks_for_a_short_stem_s_word(sites: dict[str, Path]) -> None:
    """A word whose stem has fewer than three letters is looked for whole ("des", not "de"), as
    lunr's ranking then finds it: nothing shows, then goes, when search/lunr.json arrives."""
    page = run_node(str(REPO / "tests" / "js" / "browser_search.js"), str(sites["whole"]), "-",
                    stdin=[f"{A}{B}s ", "des "])
    assert _ids(page["text"]) == _ids(page["lunr"]) == [[], []]


def _closest(cases: list[tuple[str, dict[str, int]]]) -> list[list[list]]:
    """closestTags of ranking.js for each (query, tag counts), every tag it offers: [tag, score, count]."""
    script = (f"const lunr = require({LUNR}), page = require({RANKING});"
              "const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "process.stdout.write(JSON.stringify(cases.map(([q, counts]) =>"
              "  page.closestTags(lunr, q, counts, 1000).map((t) => [t.tag, t.score, t.count]))));")
    return run_node("-e", script, stdin=cases)


def test_the_closest_tags_count_such_a_letter_once() -> None:
    """"𠮷" written "吉" (its common form) is one letter misspelt, not two edits; a part of two such
    letters is too short to be begun ("ab" of "abc"), a word of three too short to be misspelt."""
    yoshinoya = "\U00020bb7\u91ce\u5bb6\u4e3c"       # 𠮷野家丼, four letters
    common = "\u5409\u91ce\u5bb6\u4e3c"              # 吉野家丼
    cases = [(common, {yoshinoya: 2, "ramen": 1}), (yoshinoya, {common: 3}),
             (f"{A}{B}{C}", {f"{A}{B}": 1}), ("abc", {"ab": 1}),
             (f"{A}{B}{C}", {f"{A}{B}{D}": 1}), ("abc", {"abd": 1})]
    assert _closest(cases) == [[[yoshinoya, 0.6, 2]], [[common, 0.6, 3]], [], [], [], []]


def test_the_closest_tags_are_those_of_the_same_words_in_letters_below_u_ffff() -> None:
    """Random tags and misspelt or partial words of letters past U+FFFF (Deseret's have a lower
    case) offer the tags, with the scores, the same words offer with a letter below U+FFFF in the
    place of each: only the letters' number and order count. The ties' order is that of the tags'
    spelling, so it is compared as a set."""
    rng = random.Random(11)
    astral = [A, B, C, "\U00020bb7", "\U00010400", "\U00010428"]        # 𐐀 lower-cases to 𐐨
    below = ["\u05d0", "\u05d1", "\u05d2", "\u5409", "\u00c4", "\u00e4"]   # Ä lower-cases to ä
    shared = list("\u91ce\u5bb6kmq")
    letters = astral + shared
    as_below = str.maketrans(dict(zip(astral, below)))

    def word(low: int, high: int) -> str:
        return "".join(rng.choice(letters) for _ in range(rng.randint(low, high)))

    def misspelt(text: str) -> str:
        chars = list(text)
        for _ in range(rng.randint(0, 2)):
            at = rng.randrange(len(chars) + 1)
            edit = rng.choice(["insert", "delete", "replace", "cut"])
            if edit == "insert":
                chars.insert(at, rng.choice(letters))
            elif edit == "cut":
                chars = chars[:max(2, at)]
            elif chars and at < len(chars):
                chars[at:at + 1] = [] if edit == "delete" else [rng.choice(letters)]
        return "".join(chars)

    cases = []
    for _ in range(300):
        tags = {word(1, 9) + rng.choice(["", "-" + word(2, 6)]): rng.randint(1, 3) for _ in range(6)}
        cases.append((misspelt(rng.choice(list(tags)).split("-")[0]), tags))
    mapped = [(q.translate(as_below), {t.translate(as_below): n for t, n in tags.items()}) for q, tags in cases]
    offered = _closest(cases)
    assert sum(1 for found in offered if found) > 150       # the words are close to the tags most of the time
    for (query, _), ours, theirs in zip(cases, offered, _closest(mapped)):
        assert sorted([t.translate(as_below), s, n] for t, s, n in ours) == sorted(theirs), query
        assert [(s, n) for _, s, n in ours] == [(s, n) for _, s, n in theirs], query
