"""The catalog page's search over a sharded catalog (templates/static/ranking.js: ShardedIndex),
run by node on shard files, against the Python implementation (skillsite.search.shard_query,
which the loader, `skillsite search` and `skillsite mcp` use): the same terms, the same
rounding, the same results with the same scores on the dev queries over the corpus's search
fields and on generated queries; and it reads only the files a query needs."""
from __future__ import annotations

import gzip
import json
import random
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from skillsite.search.bm25 import SearchIndex, build_search_section
from skillsite.search.shard_format import card_path
from skillsite.search.shard_query import ShardedIndex
from skillsite.search.shard_writer import build_shards, card_row, doc_order
from skillsite.search.terms import tokenize

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "data" / "search_parity.json.gz"
SHARD_SEARCH = REPO / "tests" / "js" / "shard_search.js"
RANKING = REPO / "templates" / "static" / "ranking.js"


def node() -> str:
    found = shutil.which("node")
    assert found, "node is needed (apt-get install nodejs; .ci/run installs it)"
    assert (REPO / "node_modules" / "lunr" / "lunr.js").is_file(), "node_modules/lunr is needed: npm ci"
    return found


def run_node(script: str, data: object) -> object:
    """Run ``script`` in node with ``lunr`` and ``page`` (ranking.js) defined and ``input`` the JSON given."""
    prelude = (f"const lunr = require({json.dumps(str(REPO / 'node_modules' / 'lunr'))});"
               f"const page = require({json.dumps(str(RANKING))});"
               "const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));")
    done = subprocess.run([node(), "-e", prelude + script], input=json.dumps(data), capture_output=True, text=True,
                          encoding="utf-8", timeout=120, check=True)
    return json.loads(done.stdout)


def write_site(folder: Path, entries: list[dict]) -> Path:
    """A folder with what a sharded catalog's search reads: skills.json's search section, the
    shards and the cards (hidden: every third skill, to check the page's filter)."""
    rows = [card_row(e["id"], e["name"], e["description"], f"skills/{e['id']}/", e["tags"], "none", i % 3 != 0)
            for i, e in enumerate(entries[d] for d in doc_order(entries))]
    shards = build_shards(entries, rows)
    for rel, data in shards.files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    (folder / "skills.json").write_text(json.dumps({"search": shards.section}), encoding="utf-8")
    return folder


def shard_search(site: Path, queries: list[str], *flags: str) -> dict:
    done = subprocess.run([node(), str(SHARD_SEARCH), str(site), "-", *flags], input=json.dumps(queries),
                          capture_output=True, text=True, encoding="utf-8", timeout=300, check=True)
    return json.loads(done.stdout)


def corpus_fields() -> tuple[list[dict], list[str], list[str]]:
    """The corpus catalog's 1,060 skills (search fields, priorities 0-3), its dev and other queries, words."""
    parity = json.loads(gzip.decompress(FIXTURE.read_bytes()).decode("utf-8"))
    entries = [{**d, "priority": (i * 7) % 4} for i, d in enumerate(parity["docs"])]
    return entries, parity["queries"], parity["words"]


def generated(entries: list[dict], count: int) -> list[str]:
    rng = random.Random(12)
    words = [w for e in entries for w in e["description"].split()]
    return ([" ".join(rng.choice(words) for _ in range(rng.randint(1, 4))) for _ in range(count)]
            + [rng.choice(words)[:rng.randint(3, 6)] for _ in range(count // 4)])


def test_the_page_tokenizes_as_the_index_does() -> None:
    entries, queries, words = corpus_fields()
    texts = words + queries + [e["description"] for e in entries[:300]] + [
        "Café naïve résumés ÜBER straße 日本語 привет k8s s3 😀s a😀ing x\ud7ffy", "ΣΊΣΥΦΟΣ odyssey", "a b c", ""]
    assert run_node("process.stdout.write(JSON.stringify(input.map((t) => page.tokenize(lunr, t))))", texts) \
        == [tokenize(t) for t in texts]


def test_the_page_rounds_scores_as_python() -> None:
    rng = random.Random(3)
    values = ([rng.uniform(0, 40) for _ in range(3000)] + [k / 128 for k in range(1, 400)]
              + [k / 2 ** 20 for k in range(1, 300)] + [struct.unpack("<d", struct.pack("<q", rng.getrandbits(62)))[0]
                                                         for _ in range(50)] + [0.0, 1e-6, 5e-7, 2.5e-6, 123.4567895])
    values = [v for v in values if 1e-12 < v < 1e12 or v == 0.0]
    assert run_node("process.stdout.write(JSON.stringify(input.map(page.round6)))", values) \
        == [round(v, 6) for v in values]


def test_same_results_and_scores_as_the_loader_on_the_dev_queries(tmp_path: Path) -> None:
    """Over the corpus catalog's search fields: the page's ranking of every dev query and of
    generated ones is the loader's, skill for skill and score for score."""
    entries, queries, _ = corpus_fields()
    site = write_site(tmp_path / "site", entries)
    queries = queries + generated(entries, 120)
    out = shard_search(site, queries)
    assert out["docs"] == len(entries) == 1060
    section = json.loads((site / "skills.json").read_text("utf-8"))["search"]
    python = ShardedIndex.open(section, lambda rel, sha: (site / rel).read_bytes())
    reference = SearchIndex(build_search_section(entries), [e["id"] for e in entries],
                            [e["priority"] for e in entries], [e["tags"] for e in entries])
    found = 0
    for query, hits in zip(queries, out["hits"]):
        expected = [(c.id, s) for c, s in python.search(query, k=10)]
        assert [(h["id"], h["score"]) for h in hits] == expected == reference.search(query, k=10), query
        found += bool(hits)
    assert found > len(queries) * 0.9


def test_tags_and_the_pages_filter_match_the_python_side(tmp_path: Path) -> None:
    entries, queries, _ = corpus_fields()
    site = write_site(tmp_path / "site", entries)
    section = json.loads((site / "skills.json").read_text("utf-8"))["search"]
    python = ShardedIndex.open(section, lambda rel, sha: (site / rel).read_bytes())
    for tags in (["python"], ["Security", "devops"]):
        out = shard_search(site, queries[:15] + [""], "--k", "20", *[x for t in tags for x in ("--tag", t)])
        for query, hits in zip(queries[:15] + [""], out["hits"]):
            assert [(h["id"], h["score"]) for h in hits] == [(c.id, s) for c, s in python.search(query, 20, tags)]
    listed = shard_search(site, queries[:15], "--listed")
    for query, hits in zip(queries[:15], listed["hits"]):
        expected = [(c.id, s) for c, s in python.search(query, 10, keep=lambda c: c.listed)]
        assert [(h["id"], h["score"]) for h in hits] == expected and len(expected) == 10, query


def test_a_query_reads_the_meta_chunks_of_its_words_and_cards_it_shows(tmp_path: Path) -> None:
    entries, _, _ = corpus_fields()
    site = write_site(tmp_path / "site", entries)
    meta = json.loads((site / "search" / "shards.json").read_text("utf-8"))
    out = shard_search(site, ["kubernetes network policies", "stripe", "deplo"], "--k", "5")
    for files, hits in zip(out["files"], out["hits"]):
        terms = [f for f in files if f.startswith("search/terms/")]
        cards = [f for f in files if f.startswith("search/cards/")]
        assert 1 <= len(terms) <= 4 < len(meta["terms"]["first"]) and len(set(files)) == len(files)
        assert 1 <= len(cards) <= len(hits) <= 5 and len(files) == len(terms) + len(cards)
    assert "Stripe" in " ".join(out["hits"][1][0]["marks"]) or "stripe" in " ".join(out["hits"][1][0]["marks"])


@pytest.mark.parametrize("change", ["a row short", "a row too many"])
def test_a_card_file_of_the_wrong_length_is_refused_as_the_loader_refuses_it(tmp_path: Path, change: str) -> None:
    """A card file a row short or long (a bucket cut off, another skill's row added) would show a
    card under another skill's number: the page refuses it with the loader's own words, and
    prints no result."""
    entries, _, _ = corpus_fields()
    site = write_site(tmp_path / "site", entries)
    section = json.loads((site / "skills.json").read_text("utf-8"))["search"]
    cards = json.loads((site / section["sharded"]).read_text("utf-8"))["cards"]
    best = ShardedIndex.open(section, lambda rel, sha: (site / rel).read_bytes()).search("kubernetes", k=1)[0][0].doc
    bucket = best // cards["bucket"]
    rel = card_path(bucket, cards["path"], cards["per_folder"])
    data = json.loads((site / rel).read_text("utf-8"))
    data["cards"] = data["cards"][:-1] if change == "a row short" else [*data["cards"], data["cards"][0]]
    (site / rel).write_text(json.dumps(data), encoding="utf-8")
    first = bucket * cards["bucket"]
    message = f"{rel} does not hold cards {first} to {first + cards['bucket'] - 1}"
    python = ShardedIndex.open(section, lambda rel, sha: (site / rel).read_bytes())
    with pytest.raises(ValueError) as refused:
        python.search("kubernetes", k=1)
    assert str(refused.value) == message
    done = subprocess.run([node(), str(SHARD_SEARCH), str(site), "-"], input=json.dumps(["kubernetes"]),
                          capture_output=True, text=True, encoding="utf-8", timeout=300)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(f"shard_search.js: Error: {message}\n"), done.stderr
