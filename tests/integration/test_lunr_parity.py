"""lunr.py (which writes search/lunr.json) and real lunr.js 2.3.9 (which reads it in the
browser) must stem and search identically.

The stock lunr.py stemmer turns "deploy" into "deploi" where lunr.js keeps "deploy"
(a known difference between the two), so an index it writes finds nothing for "deploy" in the browser;
skillsite.search.lunr_reference registers lunr.js's own stemmer instead.  These tests prove the fix with
node and the repository's node_modules/lunr (installed by `.ci/run` through `npm ci`):

- every word of tests/data/search_parity.json.gz (the six words "deploy", "key", "array",
  "gateway", "display", "play", every word of the dev queries, Porter edge cases, non-ASCII and
  astral words) and every word of the corpus catalog's name/description/tags/tools text (about
  10,000) stems identically;
- 67 queries (the 30 dev queries and 37 more, with lunr query syntax) return the same refs
  in the same order with scores equal to 1e-6, over one serialized index of the corpus
  catalog's 1,060 skills, and over the index `skillsite build` writes for example-skills;
  so do the queries the catalog's search box builds (required words, last word as a prefix)
  for the dev queries typed out partially and fully;
- lunr.js finds exactly the same (refs, order, scores) whether the index is loaded with
  lunr.Index.load or with the catalog page's faster loader (templates/static/search.js).

The fixture is the corpus catalog's search fields (regenerate it with
tests/data/make_search_parity.py), so these tests need neither ../shared/corpus nor the
eval files.
"""
from __future__ import annotations

import gzip
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from lunr.stemmer import stemmer as stock_lunr_py_stemmer
from lunr.token import Token
from lunr.tokenizer import Tokenizer

from skillsite.search import lunr_index as index, lunr_reference as reference
from skillsite.loader import SEARCH_FIELDS, stem

REPO = Path(__file__).resolve().parents[2]
LUNR_QUERY = REPO / "tests" / "js" / "lunr_query.js"
FIXTURE = REPO / "tests" / "data" / "search_parity.json.gz"
NAMED = ["deploy", "key", "array", "gateway", "display", "play"]
TOLERANCE = 1e-6

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(
    NODE is None or not (REPO / "node_modules" / "lunr" / "lunr.js").is_file(),
    reason="needs node and node_modules/lunr (lunr.js 2.3.9): run `npm ci` in the repository (.ci/run does)")


def run_lunr_js(*args: str, stdin: object) -> object:
    """Run tests/js/lunr_query.js under node with a JSON list on stdin; its JSON answer."""
    done = subprocess.run([NODE, str(LUNR_QUERY), *args, "-"], input=json.dumps(stdin), capture_output=True,
                          text=True, encoding="utf-8", timeout=120, check=True)
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def parity() -> dict:
    return json.loads(gzip.decompress(FIXTURE.read_bytes()).decode("utf-8"))


@pytest.fixture(scope="module")
def corpus_lunr(parity: dict, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    """The serialized lunr index of the corpus catalog's skills, as a file node can read."""
    data = reference.lunr_json(reference.build_lunr(parity["docs"]))
    path = tmp_path_factory.mktemp("lunr") / "lunr.json"
    path.write_bytes(data)
    return path, data


def corpus_words(docs: list[dict]) -> list[str]:
    """Every distinct word lunr's tokenizer cuts the corpus catalog's search text into."""
    words = set()
    for doc in index.lunr_documents(docs):
        for field in SEARCH_FIELDS:
            words.update(token.string for token in Tokenizer(doc[field]))
    return sorted(words)


def test_lunr_js_is_2_3_9() -> None:
    assert run_lunr_js("version", stdin=[]) == "2.3.9"


def test_fixture_covers_what_parity_needs(parity: dict) -> None:
    assert set(NAMED) <= set(parity["words"])
    assert len(parity["words"]) >= 200 and len(parity["queries"]) >= 30
    assert len(parity["docs"]) > 1000


def test_stock_lunr_py_stemmer_diverges() -> None:
    """The bug being fixed: without skillsite's stemmer, lunr.py and lunr.js disagree."""
    stock = [stock_lunr_py_stemmer(Token(w)).string for w in NAMED]
    assert stock == ["deploi", "kei", "arrai", "gatewai", "displai", "plai"]
    assert run_lunr_js("stem", stdin=NAMED) == NAMED


def test_stemmer_matches_lunr_js_on_every_word(parity: dict) -> None:
    words = list(dict.fromkeys(parity["words"] + corpus_words(parity["docs"])))
    assert len(words) >= 5000
    expected = run_lunr_js("stem", stdin=words)
    mismatches = [(w, ours, js) for w, ours, js in zip(words, map(stem, words), expected) if ours != js]
    assert not mismatches, f"{len(mismatches)} of {len(words)} words stem differently: {mismatches[:20]}"
    assert [stem(w) for w in NAMED] == NAMED


def test_document_pipeline_matches_lunr_js_on_ascii_text(parity: dict) -> None:
    """The builder cuts and filters text as lunr.js would; it only drops the empty tokens lunr.js
    keeps for punctuation ("&" -> "") and keeps non-ASCII letters lunr.js's trimmer cuts."""
    texts = [doc[f] for doc in index.lunr_documents(parity["docs"]) for f in SEARCH_FIELDS if doc[f]]
    builder = reference.lunr_builder()
    ours = [[t.string for t in builder.pipeline.run(Tokenizer(text))] for text in texts]
    theirs = run_lunr_js("pipeline", stdin=texts)
    differ = [text for text, a, b in zip(texts, ours, theirs) if a != [t for t in b if t] and text.isascii()]
    assert not differ, differ[:5]
    assert [t.string for t in builder.pipeline.run(Tokenizer("Café & Deploy"))] == ["café", "deploy"]


def assert_same_results(index_path: Path, data: bytes, queries: list[str]) -> int:
    """Search ``queries`` with lunr.py and with lunr.js over one serialized index, and with
    lunr.js over the index as the catalog page loads it (its own loader, search.js); returns how
    many queries found something."""
    ours = reference.load_lunr(data)
    theirs = run_lunr_js("search", str(index_path), stdin=queries)
    page = run_lunr_js("search-page", str(index_path), stdin=queries)
    found = 0
    for query, js, in_page in zip(queries, theirs, page):
        assert isinstance(js, list), f"lunr.js could not run {query!r}: {js}"
        assert in_page == js, f"the page's index loader finds otherwise for {query!r}"
        py = [(r["ref"], r["score"]) for r in ours.search(query)]
        assert [ref for ref, _ in py] == [r["ref"] for r in js], f"different results for {query!r}"
        worst = max((abs(score - r["score"]) for (_, score), r in zip(py, js)), default=0.0)
        assert worst <= TOLERANCE, f"scores differ by {worst} for {query!r}"
        found += bool(js)
    return found


def test_queries_rank_identically_on_the_corpus_index(parity: dict, corpus_lunr: tuple[Path, bytes]) -> None:
    found = assert_same_results(*corpus_lunr, parity["queries"])
    assert found == len(parity["queries"])


def browser_query(text: str) -> str | None:
    """The query templates/static/search.js builds, in lunr query syntax: every word but
    the last required, the last boosted 10 or matched as a prefix (``+a +b c^10 c*``)."""
    from lunr.stop_word_filter import WORDS

    words = [t.string for t in Tokenizer(text) if t.string not in WORDS]
    if not words:
        return None
    *required, last = words
    return " ".join([f"+{w}" for w in required] + [f"{last}^10", f"{last}*"])


def test_browser_style_queries_rank_identically(parity: dict, corpus_lunr: tuple[Path, bytes]) -> None:
    """The same, for the required-terms-and-prefix queries the catalog's search box sends,
    typed out letter by letter ("dep", "depl", ...) as search-as-you-type does."""
    typed = [q[:n] for q in parity["queries"][:30] for n in (3, len(q) // 2, len(q))]
    queries = sorted({bq for bq in map(browser_query, typed) if bq and ":" not in bq})
    assert len(queries) >= 60
    assert_same_results(*corpus_lunr, queries)


def test_named_words_are_found_by_lunr_js(corpus_lunr: tuple[Path, bytes]) -> None:
    """The stock stemmer's symptom, fixed: lunr.js finds skills for each of the six words."""
    results = run_lunr_js("search", str(corpus_lunr[0]), stdin=NAMED)
    assert all(results), dict(zip(NAMED, map(len, results)))


def test_built_catalog_index_ranks_identically(tmp_path: Path, parity: dict) -> None:
    """The search/lunr.json that `skillsite build` writes, end to end."""
    from skillsite.publish.build import build

    result = build([REPO / "example-skills"], tmp_path / "site")
    assert result.ok
    path = tmp_path / "site" / index.LUNR_FILE
    manifest = json.loads((tmp_path / "site" / "skills.json").read_text(encoding="utf-8"))
    docs = json.loads((tmp_path / "site" / index.DOCS_FILE).read_text(encoding="utf-8"))
    field_refs = [ref for ref, _ in json.loads(path.read_text(encoding="utf-8"))["fieldVectors"]]
    # refs are rows of search/docs.json: the listed skills (not hidden ones), in manifest order
    listed = [s for s in manifest["skills"] if s["visibility"].get("hidden_by") != "hidden"]
    assert {ref.split("/", 1)[1] for ref in field_refs} == {str(i) for i in range(len(listed))}
    assert [row[0] for row in docs["docs"]] == [s["id"] for s in listed]
    queries = parity["queries"] + [s["name"].replace("-", " ") for s in manifest["skills"]]
    assert assert_same_results(path, path.read_bytes(), queries) >= 10


def test_terms_are_in_javascript_order_where_it_differs_from_python_s(tmp_path: Path) -> None:
    """A term with a character past U+FFFF ("a🎉b") and one with a character in U+E000-U+FFFF
    ("aｂ", fullwidth b) sort one way by code point and the other by UTF-16 code unit; the
    written index follows JavaScript, so stock lunr.js loads it (and lunr.py still does)."""
    entries = [{"id": "one", "name": "one", "description": "a🎉b party", "tags": [], "tools": []},
               {"id": "two", "name": "two", "description": "aｂ wide", "tags": [], "tools": []}]
    data = index.lunr_bytes(entries)
    terms = [term for term, _ in json.loads(data)["invertedIndex"]]
    assert terms.index("a🎉b") < terms.index("aｂ")          # JavaScript's order, not Python's
    assert data == reference.lunr_json(reference.build_lunr(entries))
    path = tmp_path / "lunr.json"
    path.write_bytes(data)
    assert assert_same_results(path, data, ["party", "wide"]) == 2
