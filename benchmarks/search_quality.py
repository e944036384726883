"""Search quality and speed: skillsite's precomputed BM25F index, its lunr index, and BM25 baselines.

    python benchmarks/search_quality.py [--corpus DIR] [--queries TSV] [--site DIR] [--synthetic N]
                                        [--shard-above N] [--shards-synthetic N]

1. Builds the catalog of ../shared/corpus (``--site DIR`` reuses one already built from it),
   times the search stage and measures both indexes.
2. Runs ../shared/eval/dev-queries.tsv (query TAB relevant skill folder names; a result is
   relevant when the last segment of its id, or its name, is one of them) and prints MRR@10,
   hit@1 and hit@3, in one table, for:
     - `skillsite search QUERY --catalog SITE --json -k 10` (the loader's BM25F "TF-IDF" index
       over skills.json["search"]: what agents and the CLI get), one process per query;
     - the MCP tool `search_skills` (k 10), called through the mcp package's own client over
       stdio against `skillsite mcp --catalog SITE` (it offers models no hidden or
       user-invocable-only skill);
     - the catalog page's search box: templates/static/search.js's own searchIndex, run by
       real lunr.js 2.3.9 in node on the built search/lunr.json (tests/js/browser_search.js),
       and its quick plain-text match over search/docs.json (searchText) shown before
       lunr.json arrives; then the dev queries the CLI answers in its top 10 for which the
       box shows nothing (there should be none), and the box's MRR@10 minus the CLI's;
     - lunr: search/lunr.json searched with lunr.py (lunr.js ranks identically, see
       tests/integration/test_lunr_parity.py), raw query strings as typed (an OR query);
     - bm25s: BM25 (k1 1.5, b 0.75) over the same text (name, description, tags, tools
       joined), bm25s's own tokenizer and English stop words, no stemming;
     - bm25s + stem: the same with the lunr.js Porter stemmer skillsite uses;
     - skillsite + body: skillsite's score plus beta times a BM25 score over SKILL.md bodies
       (an experiment, not shipped: see the printed verdict).
   With ``--shard-above N`` the same corpus is also built into a catalog forced into search
   shards (``shard_above: N``, e.g. 1) and its table printed too: the CLI, the loader
   (Catalog.search in this process), MCP, and the page's box, which on a sharded catalog runs
   ranking.js's ShardedIndex (tests/js/shard_search.js, listed skills only, as the page);
   then, per consumer, how many dev queries give the same top 10 (ids and scores) in both builds.
3. With ``--shards-synthetic N`` (e.g. 100000): N skills shaped like the corpus's (its real
   descriptions, salted as benchmarks/synth.py does), written as search shards: the files, and
   the bytes a fresh agent fetches to answer one search (meta file, chunks, cards; k=5), and, with
   chromium, what the catalog page loads (page, scripts, CSS, search files) until it shows the
   results of a query in the URL, and when.
4. Generates a synthetic catalog of N skills (default 10,000, 0 skips it; vocabulary drawn from a Zipf
   distribution, description lengths and stop-word share like the corpus's) and prints the
   size and build time of both indexes, then loader latency: Catalog.open plus the first
   search (cold), and the median and p95 of Catalog.search over 1,000 queries.

bm25s is a benchmark-only dependency: ``pip install -e '.[bench]'``; the MCP row needs the
``mcp`` extra, the browser rows node and the repository's node_modules (``npm ci``): a row whose
tool is missing says so instead of a number.
"""
from __future__ import annotations

import argparse
import bisect
import gzip
import hashlib
import importlib.util
import itertools
import json
import math
import random
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import describe as describe_machine  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
BODY_BETAS = (0.25, 0.5)
SYLLABLES = [c + v for c in "bcdfghjklmnprstvwz" for v in "aeiou"]
FILLER = "a an the and or of to for in on with when use this that is are by from as it be".split()

Ranker = Callable[[str], Sequence[str]]


# ---------------------------------------------------------------- machine and evaluation



def read_queries(path: Path) -> list[tuple[str, set[str]]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            query, relevant = line.split("\t")
            rows.append((query, set(relevant.split())))
    return rows


def first_relevant(ids: Sequence[str], relevant: set[str], names: dict[str, str]) -> int:
    """Rank (1-10) of the first relevant skill among the first ten ``ids``; 0 when none is."""
    for rank, skill_id in enumerate(list(ids)[:10], 1):
        if skill_id.rsplit("/", 1)[-1] in relevant or names[skill_id] in relevant:
            return rank
    return 0


def evaluate(ranker: Ranker, queries: Sequence[tuple[str, set[str]]], names: dict[str, str]) -> tuple[float, ...]:
    """MRR@10, hit@1, hit@3."""
    rr = hit1 = hit3 = 0.0
    for query, relevant in queries:
        rank = first_relevant(ranker(query), relevant, names)
        if rank:
            rr += 1.0 / rank
            hit1 += rank == 1
            hit3 += rank <= 3
    n = len(queries) or 1
    return rr / n, hit1 / n, hit3 / n


def json_size(data: Any) -> tuple[int, int]:
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return len(raw), len(gzip.compress(raw, 9))


def kb(size: int) -> str:
    return f"{size / 1024:,.0f} KB" if size < 1024 * 1024 else f"{size / 1024 / 1024:,.2f} MB"


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    started = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - started


# ---------------------------------------------------------------- rankers

def skillsite_ranker(manifest: dict[str, Any]) -> Ranker:
    from skillsite.loader import SearchIndex

    index = SearchIndex.from_manifest(manifest)
    return lambda query: [skill_id for skill_id, _ in index.search(query, k=10)]


def cli_ranker(site: Path) -> Ranker:
    """``skillsite search QUERY --catalog SITE --json -k 10``, a process per query."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}

    def rank(query: str) -> list[str]:
        done = subprocess.run([sys.executable, "-m", "skillsite", "search", "--catalog", str(site), "--json",
                               "-k", "10", "--", query], capture_output=True, text=True, encoding="utf-8",
                              cwd=REPO, env=env, timeout=120, check=True)
        return [hit["id"] for hit in json.loads(done.stdout)]
    return rank


def mcp_rankings(site: Path, queries: Sequence[str], k: int = 10) -> dict[str, list[str]]:
    """The ids ``search_skills`` returns for each query, from one ``skillsite mcp --catalog SITE``
    session driven by the mcp package's own stdio client (as tests/integration/test_mcp.py does)."""
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "skillsite", "mcp", "--catalog", str(site)],
                                   env={"PYTHONPATH": str(REPO), "PATH": os.environ.get("PATH", "")}, cwd=str(REPO))

    async def session_run() -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        with open(os.devnull, "w") as devnull:
            async with stdio_client(params, errlog=devnull) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    for query in queries:
                        result = await session.call_tool("search_skills", {"query": query, "k": k})
                        text = "".join(getattr(block, "text", "") for block in result.content)
                        if getattr(result, "isError", False) or getattr(result, "is_error", False):
                            raise RuntimeError(f"search_skills failed for {query!r}: {text}")
                        out[query] = [hit["id"] for hit in json.loads(text)]
        return out

    return anyio.run(session_run)


BROWSER_SEARCH = REPO / "tests" / "js" / "browser_search.js"


def browser_rankings(site: Path, queries: Sequence[str], k: int = 10) -> dict[str, dict[str, list[str]]]:
    """What the catalog page's search box ranks for each query: ``{"lunr": {query: ids}, "text":
    {query: ids}}``, from templates/static/search.js's own functions run by real lunr.js 2.3.9 in
    node (tests/js/browser_search.js) on SITE's search/lunr.json and search/docs.json."""
    node = shutil.which("node")
    if node is None or not (REPO / "node_modules" / "lunr" / "lunr.js").is_file():
        raise RuntimeError("needs node and node_modules/lunr (npm ci)")
    done = subprocess.run([node, str(BROWSER_SEARCH), str(site), "-", "--k", str(k)], input=json.dumps(list(queries)),
                          capture_output=True, text=True, encoding="utf-8", timeout=300, check=True)
    out = json.loads(done.stdout)
    return {kind: {q: [hit["id"] for hit in hits] for q, hits in zip(queries, out[kind])} for kind in ("lunr", "text")}


SHARD_SEARCH = REPO / "tests" / "js" / "shard_search.js"


def shard_rankings(site: Path, queries: Sequence[str], k: int = 10) -> dict[str, list[str]]:
    """What the catalog page's box ranks on a sharded catalog: ranking.js's ShardedIndex run by
    node on SITE's shard files (tests/js/shard_search.js), the skills the site lists only."""
    node = shutil.which("node")
    if node is None or not (REPO / "node_modules" / "lunr" / "lunr.js").is_file():
        raise RuntimeError("needs node and node_modules/lunr (npm ci)")
    done = subprocess.run([node, str(SHARD_SEARCH), str(site), "-", "--k", str(k), "--listed"],
                          input=json.dumps(list(queries)), capture_output=True, text=True, encoding="utf-8",
                          timeout=600, check=True)
    return {q: [hit["id"] for hit in hits] for q, hits in zip(queries, json.loads(done.stdout)["hits"])}


def loader_ranker(site: Path) -> Ranker:
    """skillsite.loader's Catalog.search in this process (k 10), as an agent calls it."""
    from skillsite.loader import Catalog

    catalog = Catalog.open(site)
    return lambda query: [r.id for r in catalog.search(query, k=10)]


def lunr_ranker(data: bytes, entries: Sequence[dict[str, Any]]) -> Ranker:
    """lunr.py over search/lunr.json, whose refs are positions in the manifest's skills."""
    from skillsite.search.lunr_reference import load_lunr

    index = load_lunr(data)
    ids = [e["id"] for e in entries]
    return lambda query: [ids[int(r["ref"])] for r in index.search(query)]


HAS_BM25S = importlib.util.find_spec("bm25s") is not None


def bm25s_ranker(entries: Sequence[dict[str, Any]], stem: bool) -> Ranker:
    import bm25s

    from skillsite.loader import search_fields
    from skillsite.loader import stem as lunr_stem

    stemmer = (lambda words: [lunr_stem(w) for w in words]) if stem else None
    ids = [e["id"] for e in entries]
    texts = [" ".join(search_fields(e).values()) for e in entries]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False)

    def rank(query: str) -> list[str]:
        tokens = bm25s.tokenize([query], stopwords="en", stemmer=stemmer, show_progress=False)
        if not tokens.vocab:
            return []
        docs, scores = retriever.retrieve(tokens, k=10, show_progress=False)
        return [ids[d] for d, s in zip(docs[0], scores[0]) if s > 0]
    return rank


class BodyIndex:
    """BM25 (k1 1.2, b 0.75) over SKILL.md bodies with skillsite's tokenizer: the experiment."""

    def __init__(self, bodies: Sequence[str]) -> None:
        from skillsite.loader import tokenize

        counts = []
        for body in bodies:
            tf: dict[str, int] = {}
            for term in tokenize(body):
                tf[term] = tf.get(term, 0) + 1
            counts.append(tf)
        lengths = [sum(tf.values()) for tf in counts]
        average = (sum(lengths) / len(lengths)) or 1.0
        self.postings: dict[str, list[tuple[int, float]]] = {}
        for doc, (tf, length) in enumerate(zip(counts, lengths)):
            norm = 1.2 * (0.25 + 0.75 * length / average)
            for term, f in tf.items():
                self.postings.setdefault(term, []).append((doc, f * 2.2 / (f + norm)))
        n = len(bodies)
        self.idf = {t: math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)) for t, p in self.postings.items()}

    def scores(self, query: str) -> dict[int, float]:
        from skillsite.loader import tokenize

        out: dict[int, float] = {}
        for term in set(tokenize(query)):
            for doc, weight in self.postings.get(term, ()):
                out[doc] = out.get(doc, 0.0) + self.idf[term] * weight
        return out

    def encoded_size(self) -> tuple[int, int]:
        """Bytes of a body index stored like skills.json["search"] (2-byte skill numbers, byte weights)."""
        terms = sorted(self.postings)
        section = {"terms": terms, "idf": [round(self.idf[t], 4) for t in terms],  # base64: 3 bytes -> 4 chars
                   "postings": ["A" * (4 * len(self.postings[t])) for t in terms]}
        return json_size(section)


def body_ranker(manifest: dict[str, Any], body: BodyIndex, beta: float) -> Ranker:
    from skillsite.loader import SearchIndex

    index = SearchIndex.from_manifest(manifest)
    ids = index.ids

    def rank(query: str) -> list[str]:
        meta = index.scores(query)
        extra = body.scores(query)
        total = {d: meta.get(d, 0.0) + beta * extra.get(d, 0.0) for d in set(meta) | set(extra)}
        return [ids[d] for d, _ in sorted(total.items(), key=lambda kv: (-kv[1], ids[kv[0]]))[:10]]
    return rank


# ---------------------------------------------------------------- synthetic catalog

def synthetic_entries(n: int = 10_000, seed: int = 7, vocabulary: int = 40_000) -> list[dict[str, Any]]:
    """``n`` manifest entries (the full skills.json shape) with search text shaped like the
    corpus's: names of 2-4 words; descriptions of about 34 words (log-normal, 6-160), 40% stop
    words, the rest drawn from a Zipf-Mandelbrot distribution (1 / (rank + 8)) over
    ``vocabulary`` pronounceable words, so the commonest content word is in about a quarter of
    the skills, and three in four starting "Use when" (the corpus: "use" in 77% of skills, the
    next term in 24%); 0-3 tags from 300; priority 1 for one skill in ten.  Deterministic."""
    rng = random.Random(seed)
    words = sorted({"".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))) for _ in range(vocabulary)})
    rng.shuffle(words)
    cumulative = list(itertools.accumulate(1.0 / (rank + 8) for rank in range(1, len(words) + 1)))

    def word() -> str:
        return words[bisect.bisect_left(cumulative, rng.random() * cumulative[-1])]

    tags = words[:300]
    entries = []
    for i in range(n):
        name = "-".join(word() for _ in range(rng.randint(2, 4)))
        length = min(160, max(6, int(rng.lognormvariate(math.log(34), 0.5))))
        text = " ".join(rng.choice(FILLER) if rng.random() < 0.4 else word() for _ in range(length))
        text = ("Use when " + text if rng.random() < 0.75 else text.capitalize()) + "."
        entries.append(_full_entry(f"synthetic/{i // 1000:02d}/{name}-{i}", name, text,
                                   sorted(set(rng.sample(tags, rng.choice((0, 0, 1, 2, 3))))),
                                   1 if rng.random() < 0.1 else 0))
    return entries


def _full_entry(skill_id: str, name: str, description: str, tags: list[str], priority: int) -> dict[str, Any]:
    sha = hashlib.sha256(skill_id.encode()).hexdigest()
    folder = f"skills/{skill_id}/"
    return {
        "id": skill_id, "name": name, "description": description, "version": None, "license": None,
        "compatibility": None, "tags": tags, "allowed-tools": [], "metadata": {}, "tools": [], "parameters": [],
        "examples": [], "priority": priority,
        "visibility": {"hidden": False, "user_invocable_only": False, "always": False},
        "requirements": {"bins": [], "env": [], "platforms": []}, "parent": None, "children": [], "files": [],
        "sha256": sha, "digest": "sha256:" + sha, "source": {"path": folder + "SKILL.md", "url": None, "edit_url": None},
        "urls": {"page": folder, "skill_md": folder + "SKILL.md", "xml": folder + "skill.xml", "files": folder},
        "size": {"bytes": 1000, "chars": 900, "lines": 30, "tokens": 225}, "extra": {}, "warnings": [],
    }


def synthetic_queries(entries: Sequence[dict[str, Any]], count: int, seed: int = 11) -> list[str]:
    """1-4 words each, drawn from the descriptions (so common words come up as often as in text)."""
    rng = random.Random(seed)
    pool = [w.strip(".").lower() for e in rng.sample(list(entries), min(len(entries), 2000))
            for w in e["description"].split() if w.strip(".").lower() not in FILLER]
    return [" ".join(rng.choice(pool) for _ in range(rng.randint(1, 4))) for _ in range(count)]


# ---------------------------------------------------------------- the report

def build_corpus(corpus: Path, site: Path | None, shard_above: int | None = None
                 ) -> tuple[Path, list[str], float | None]:
    """The corpus catalog folder, the body of every published skill (manifest order), build seconds."""
    from skillsite.config import SiteConfig
    from skillsite.publish.build import build
    from skillsite.source.catalog import read_catalog

    if site is None:
        site = Path(tempfile.mkdtemp(prefix="skillsite-bench-")) / "site"
        config = SiteConfig() if shard_above is None else SiteConfig(shard_above=shard_above)
        result, seconds = timed(lambda: build([corpus], site, config, keep_going=True))
        skills = {s.id: s.body for s in result.reading.skills}
    else:
        seconds = None
        skills = {s.id: s.body for s in read_catalog([corpus]).skills}
    manifest = json.loads((site / "skills.json").read_text(encoding="utf-8"))
    return site, [skills.get(e["id"], "") for e in manifest["skills"]], seconds


CLI_LABEL, LOADER_LABEL, MCP_LABEL = "skillsite search (CLI, shipped)", "loader: Catalog.search", "MCP search_skills (k=10)"
BOX_LABEL, TEXT_LABEL = "browser box: search.js + lunr.js", "browser box: quick plain-text match"
SHARD_BOX_LABEL = "browser box: search.js + shards (BM25F)"


def corpus_report(corpus: Path, queries_file: Path, site_arg: Path | None, shard_above: int | None = None) -> None:
    from skillsite.search.lunr_index import LUNR_FILE
    from skillsite.search.lunr_reference import build_lunr, lunr_json
    from skillsite.loader import build_search_section

    site, bodies, build_seconds = build_corpus(corpus, site_arg)
    manifest = json.loads((site / "skills.json").read_text(encoding="utf-8"))
    entries = manifest["skills"]
    section, section_s = timed(lambda: build_search_section(entries))
    assert section == manifest["search"], "skills.json was not built by this skillsite"
    lunr_data, lunr_s = timed(lambda: lunr_json(build_lunr(entries)))
    assert lunr_data == (site / LUNR_FILE).read_bytes(), "search/lunr.json was not built by this skillsite"
    section_size = json_size(section)
    print(f"\n## Corpus catalog: {corpus} -> {len(entries)} skills"
          + (f" (full build {build_seconds:.1f} s)" if build_seconds is not None else f" (prebuilt {site})"))
    print(f"  {'index':<34}{'build':>9}{'size':>12}{'gzip':>11}{'terms':>8}")
    print(f"  {'skills.json search (BM25F)':<34}{section_s:>8.2f}s{kb(section_size[0]):>12}{kb(section_size[1]):>11}"
          f"{len(section['terms']):>8}")
    print(f"  {'search/lunr.json (lunr.py)':<34}{lunr_s:>8.2f}s{kb(len(lunr_data)):>12}"
          f"{kb(len(gzip.compress(lunr_data, 9))):>11}")

    queries = read_queries(queries_file)
    names = {e["id"]: e["name"] for e in entries}
    body = BodyIndex(bodies)
    small = quality_table(f"{len(entries)} skills, inline index and lunr files", site, queries, names,
                          baselines(manifest, lunr_data, body), sharded=False)
    if shard_above is not None:
        shard_site, _, shard_seconds = build_corpus(corpus, None, shard_above)
        describe_shards(shard_site, shard_seconds)
        forced = quality_table(f"the same catalog forced into shards (shard_above {shard_above})", shard_site,
                               queries, names, baselines(manifest, None, body), sharded=True)
        same_results(site, shard_site, [q for q, _ in queries], small, forced)
    shipped = small.results[CLI_LABEL][0]
    bm25 = [small.results[label][0] for label in ("bm25s (its tokenizer, no stem)", "bm25s + lunr.js Porter stem")
            if label in small.results]
    body_best = max(v[0] for label, v in small.results.items() if label.startswith("skillsite + body"))
    body_size = body.encoded_size()
    if bm25:
        print(f"  skillsite MRR@10 - best BM25 baseline: {shipped - max(bm25):+.3f}")
    else:
        print("  skillsite MRR@10 - best BM25 baseline: n/a (pip install bm25s)")
    print(f"  body index would add {kb(body_size[0])} ({kb(body_size[1])} gzip) for {len(entries)} skills, "
          f"{sum(map(len, body.postings.values())):,} postings; best MRR@10 gain {body_best - shipped:+.3f}")


def baselines(manifest: dict[str, Any], lunr_data: bytes | None, body: BodyIndex) -> list[tuple[str, Ranker | None]]:
    """The rows that do not depend on how the catalog is published (lunr: only when it is)."""
    entries = manifest["skills"]
    rows: list[tuple[str, Ranker | None]] = [
        ("lunr index, raw query (lunr.py)", lunr_ranker(lunr_data, entries) if lunr_data is not None else None),
        ("bm25s (its tokenizer, no stem)", bm25s_ranker(entries, stem=False) if HAS_BM25S else None),
        ("bm25s + lunr.js Porter stem", bm25s_ranker(entries, stem=True) if HAS_BM25S else None),
    ]
    return rows + [(f"skillsite + body beta={b} (not shipped)", body_ranker(manifest, body, b)) for b in BODY_BETAS]


class Table:
    """A printed quality table: MRR@10, hit@1, hit@3 by row, and each row's ranker."""

    def __init__(self) -> None:
        self.results: dict[str, tuple[float, ...]] = {}
        self.rankers: dict[str, Ranker] = {}


def quality_table(title: str, site: Path, queries: Sequence[tuple[str, set[str]]], names: dict[str, str],
                  extra: list[tuple[str, Ranker | None]], sharded: bool) -> Table:
    """Print the quality of every consumer of ``site`` (and of ``extra`` rows) on ``queries``."""
    texts = [q for q, _ in queries]
    missing: dict[str, str] = {}

    def batch(label: str, rankings: Callable[[], dict[str, list[str]]]) -> Ranker | None:
        try:
            found = rankings()
        except (ImportError, RuntimeError, OSError, subprocess.CalledProcessError) as exc:
            missing[label] = f"{type(exc).__name__}: {exc}".splitlines()[0][:90]
            return None
        return lambda query: found[query]

    browser: dict[str, dict[str, list[str]]] = {}

    def browser_kind(kind: str) -> Callable[[], dict[str, list[str]]]:
        def rankings() -> dict[str, list[str]]:
            if not browser:
                browser.update(browser_rankings(site, texts))
            return browser[kind]
        return rankings

    rows: list[tuple[str, Ranker | None]] = [
        (CLI_LABEL, cli_ranker(site)), (LOADER_LABEL, loader_ranker(site)),
        (MCP_LABEL, batch(MCP_LABEL, lambda: mcp_rankings(site, texts)))]
    if sharded:
        rows.append((SHARD_BOX_LABEL, batch(SHARD_BOX_LABEL, lambda: shard_rankings(site, texts))))
        missing[TEXT_LABEL] = "not published: a sharded catalog has no docs.json"
        rows.append((TEXT_LABEL, None))
        missing["lunr index, raw query (lunr.py)"] = "not published: a sharded catalog has no lunr.json"
    else:
        rows += [(BOX_LABEL, batch(BOX_LABEL, browser_kind("lunr"))), (TEXT_LABEL, batch(TEXT_LABEL, browser_kind("text")))]
    print(f"\n## Search quality, {title}: {len(queries)} queries")
    print(f"  {'ranker':<40}{'MRR@10':>8}{'hit@1':>8}{'hit@3':>8}")
    table = Table()
    for label, ranker in rows + extra:
        if ranker is None:
            print(f"  {label:<40}{'n/a':>8}{'n/a':>8}{'n/a':>8}   ({missing.get(label, 'not measured')})")
            continue
        table.rankers[label] = ranker
        mrr, hit1, hit3 = table.results[label] = evaluate(ranker, queries, names)
        print(f"  {label:<40}{mrr:>8.3f}{hit1:>8.3f}{hit3:>8.3f}")
    box = SHARD_BOX_LABEL if sharded else BOX_LABEL
    if box in table.results:
        cli, shown = table.rankers[CLI_LABEL], table.rankers[box]
        emptied = [q for q, relevant in queries if first_relevant(cli(q), relevant, names) and not list(shown(q))]
        print(f"  browser box MRR@10 - CLI's: {table.results[box][0] - table.results[CLI_LABEL][0]:+.3f}; dev queries "
              f"the CLI answers in its top 10 that the box shows nothing for: {len(emptied)}" + (f" {emptied}" if emptied else ""))
    return table


def same_results(small_site: Path, shard_site: Path, texts: Sequence[str], small: Table, forced: Table) -> None:
    """Per consumer: dev queries whose top 10 is the same in both builds (and, for the loader, with the same scores)."""
    from skillsite.loader import Catalog

    a, b = Catalog.open(small_site), Catalog.open(shard_site)
    scored = sum(a.search(q, k=10) == b.search(q, k=10) for q in texts)
    print("\n## Small catalog vs the same forced into shards: dev queries with the same top 10")
    print(f"  loader (ids, names, descriptions and scores): {scored}/{len(texts)}")
    for label in (CLI_LABEL, MCP_LABEL):
        if label in small.rankers and label in forced.rankers:
            same = sum(list(small.rankers[label](q)) == list(forced.rankers[label](q)) for q in texts)
            print(f"  {label}: {same}/{len(texts)}")
    if SHARD_BOX_LABEL in forced.rankers:
        same = sum(list(forced.rankers[SHARD_BOX_LABEL](q)) == list(forced.rankers[CLI_LABEL](q)) for q in texts)
        print(f"  browser box on the shards vs the CLI: {same}/{len(texts)} (the page leaves out skills the site "
              "does not list)")


def describe_shards(site: Path, seconds: float | None) -> None:
    """Sizes of a sharded catalog's search files."""
    files = [p for p in (site / "search").rglob("*.json")]
    meta = site / "search" / "shards.json"
    print("\n## Corpus catalog forced into shards" + (f" (full build {seconds:.1f} s)" if seconds else ""))
    for kind in ("terms", "tags", "cards"):
        sizes = [p.stat().st_size for p in files if f"/search/{kind}/" in str(p)]
        print(f"  search/{kind}/: {len(sizes)} files, {kb(sum(sizes))}, largest {kb(max(sizes))}")
    print(f"  search/shards.json: {kb(meta.stat().st_size)}; skills.json search section: "
          f"{json.loads((site / 'skills.json').read_text('utf-8'))['search']}")


def synthetic_report(n: int) -> None:
    from skillsite.config import SiteConfig
    from skillsite.search.lunr_reference import build_lunr, lunr_json
    from skillsite.loader import Catalog, build_search_section
    from skillsite.agent.entry import ManifestEntry
    from skillsite.publish.manifest import catalog_digest, manifest as make_manifest, manifest_bytes

    entries, gen_s = timed(lambda: synthetic_entries(n))
    section, section_s = timed(lambda: build_search_section(entries))
    size = json_size(section)
    lunr_data, lunr_s = timed(lambda: lunr_json(build_lunr(entries)))
    print(f"\n## Synthetic catalog: {n:,} skills (generated in {gen_s:.1f} s)")
    print(f"  {'index':<34}{'build':>9}{'size':>12}{'gzip':>11}{'terms':>8}")
    print(f"  {'skills.json search (BM25F)':<34}{section_s:>8.2f}s{kb(size[0]):>12}{kb(size[1]):>11}"
          f"{len(section['terms']):>8}   (budget 2 MB: {'ok' if size[0] < 2 * 1024 * 1024 else 'OVER'})")
    print(f"  {'search/lunr.json (lunr.py)':<34}{lunr_s:>8.2f}s{kb(len(lunr_data)):>12}"
          f"{kb(len(gzip.compress(lunr_data, 9))):>11}")

    folder = Path(tempfile.mkdtemp(prefix="skillsite-bench-"))
    path = folder / "skills.json"
    typed = [ManifestEntry.from_json(e) for e in entries]
    path.write_bytes(manifest_bytes(make_manifest(typed, SiteConfig(), 0, None, section, catalog_digest(entries)),
                                    entries))
    queries = synthetic_queries(entries, 1000)
    started = time.perf_counter()
    catalog = Catalog.open(path)
    opened = time.perf_counter()
    catalog.search(queries[0])
    first = time.perf_counter()
    latencies = []
    for query in queries:
        t0 = time.perf_counter()
        catalog.search(query, k=5)
        latencies.append(time.perf_counter() - t0)
    latencies.sort()
    median = statistics.median(latencies) * 1000
    p95 = latencies[int(0.95 * len(latencies)) - 1] * 1000
    print(f"\n## Loader latency on the synthetic catalog ({kb(path.stat().st_size)} skills.json)")
    print(f"  Catalog.open {1000 * (opened - started):.0f} ms + first search {1000 * (first - opened):.1f} ms")
    print(f"  Catalog.search, {len(queries)} queries of 1-4 words, k=5: median {median:.3f} ms, p95 {p95:.3f} ms, "
          f"max {latencies[-1] * 1000:.3f} ms   (target median <= 1 ms: {'ok' if median <= 1 else 'MISSED'})")


# ---------------------------------------------------------------- search shards at scale

def corpus_shaped_entries(n: int, corpus: Path, seed: int = 0) -> list[dict[str, Any]]:
    """``n`` search entries as benchmarks/synth.py makes skills: a real corpus description (cut
    at 900 characters) plus six salt words of the corpus's vocabulary, 1-3 of 80 tags with a
    long tail, priority 0-4.  Deterministic."""
    import synth

    rng = random.Random(seed)
    templates = synth.load_templates(corpus)
    vocabulary = synth._vocabulary(templates)
    tags = rng.sample(vocabulary, 80)
    weights = [1 / (rank + 1) for rank in range(len(tags))]
    entries = []
    for i in range(n):
        template = templates[rng.randrange(len(templates))]
        name = f"syn-{i:06d}"
        salt = " ".join(rng.sample(vocabulary, 6))
        skill_id = f"group-{i // 100:04d}/{name}"
        entries.append({"id": skill_id, "name": name, "description": (template.description[:900] + f" Also covers {salt}.")[:1024],
                        "tags": sorted(set(rng.choices(tags, weights=weights, k=3))), "priority": rng.randrange(5),
                        "tools": [], "triggers": None, "urls": {"page": f"skills/{skill_id}/"}})
    return entries


def write_shards(entries: Sequence[dict[str, Any]], site: Path) -> dict[str, bytes]:
    """The sharded index of ``entries`` (cards included) written under ``site``; its files."""
    from skillsite.search.shard_writer import build_shards, card_row, doc_order

    rows = [card_row(e["id"], e["name"], e["description"], e["urls"]["page"], e["tags"])
            for e in (entries[i] for i in doc_order(entries))]
    shards = build_shards(entries, rows)
    files = dict(shards.files)
    for rel, data in files.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_bytes(data)
    return {**files, "skills.json": json.dumps({"search": shards.section}).encode()}


def search_cost(files: dict[str, bytes], query: str, k: int = 5, pinned: bool = False) -> tuple[int, int, int]:
    """Bytes (raw, gzip) and files a fresh agent fetches to answer ``query`` (k results);
    ``pinned``: one that verifies every file (the digests file and card-digest files too)."""
    from skillsite.search.shard_query import ShardedIndex

    got: dict[str, bytes] = {}

    def fetch(rel: str, sha: str | None) -> bytes:
        got[rel] = files[rel]
        return files[rel]

    ShardedIndex.open(json.loads(files["skills.json"])["search"], fetch, pinned=pinned).search(query, k=k)
    return sum(map(len, got.values())), sum(len(gzip.compress(v, 6)) for v in got.values()), len(got)


def percentiles(values: Sequence[float]) -> tuple[float, float, float]:
    ordered = sorted(values)
    return ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))], ordered[-1]


def shards_report(n: int, corpus: Path, queries_file: Path) -> None:
    entries, gen_s = timed(lambda: corpus_shaped_entries(n, corpus))
    site = Path(tempfile.mkdtemp(prefix="skillsite-shards-"))
    files, write_s = timed(lambda: write_shards(entries, site / "search-only"))
    print(f"\n## Search shards of {n:,} corpus-shaped skills (generated {gen_s:.1f} s, shards and cards written "
          f"{write_s:.1f} s)")
    for kind in ("terms", "tags", "cards", "card-digests"):
        sizes = [len(v) for rel, v in files.items() if rel.startswith(f"search/{kind}/")]
        print(f"  search/{kind}/: {len(sizes):,} files, {kb(sum(sizes))}, median {kb(statistics.median(sizes))}, "
              f"largest {kb(max(sizes))}")
    meta, digests = files["search/shards.json"], files["search/digests.json"]
    print(f"  search/shards.json: {kb(len(meta))} ({kb(len(gzip.compress(meta, 6)))} gzip); search/digests.json: "
          f"{kb(len(digests))}; largest published search file {kb(max(map(len, files.values())))}")
    rng = random.Random(3)
    words = [w.strip(".,:;()").lower() for e in rng.sample(entries, min(len(entries), 3000))
             for w in e["description"].split() if len(w) > 3]
    sets = [("dev queries", [q for q, _ in read_queries(queries_file)]),
            ("2-3 description words", [" ".join(rng.choice(words) for _ in range(rng.randint(2, 3))) for _ in range(200)]),
            ("1 description word", [rng.choice(words) for _ in range(100)])]
    print("  a fresh agent's search (meta file + chunks + cards, k=5), bytes:")
    print(f"  {'queries':<26}{'p50':>9}{'p90':>9}{'max':>9}{'gzip p50':>10}{'gzip p90':>10}{'files p50':>11}")
    for label, queries in sets:
        costs = [search_cost(files, q) for q in queries]
        raw, zipped, count = (percentiles([c[i] for c in costs]) for i in range(3))
        print(f"  {label:<26}{kb(raw[0]):>9}{kb(raw[1]):>9}{kb(raw[2]):>9}{kb(zipped[0]):>10}{kb(zipped[1]):>10}"
              f"{count[0]:>11.0f}")
    print("  what a verifying agent's search adds (digests file + card-digest files, pinned=True), bytes:")
    print(f"  {'queries':<26}{'p50':>9}{'p90':>9}{'max':>9}{'gzip p50':>10}{'gzip p90':>10}{'files p50':>11}")
    for label, queries in sets:
        for k in (5, 10):
            extra = [tuple(b - a for a, b in zip(search_cost(files, q, k), search_cost(files, q, k, pinned=True)))
                     for q in queries]
            raw, zipped, count = (percentiles([c[i] for c in extra]) for i in range(3))
            print(f"  {f'{label}, k={k}':<26}{kb(raw[0]):>9}{kb(raw[1]):>9}{kb(raw[2]):>9}{kb(zipped[0]):>10}"
                  f"{kb(zipped[1]):>10}{count[0]:>11.0f}")
    try:
        browser_shards_report(site, files, [q for q, _ in read_queries(queries_file)][:10])
    except (ImportError, RuntimeError, OSError, subprocess.CalledProcessError) as exc:
        print(f"  browser: n/a ({type(exc).__name__}: {str(exc).splitlines()[0][:90]})")


def drawn_within(page: Any, seconds: float) -> None:
    """Wait until the page has drawn the sharded index's results, even as none (a query a few
    synthetic skills do not answer); polled, as the page's CSP forbids Playwright's eval."""
    deadline = time.monotonic() + seconds
    while not page.evaluate("() => performance.getEntriesByName('skillsite:results:shards').length > 0"):
        if time.monotonic() > deadline:
            raise RuntimeError(f"no results drawn in {seconds:.0f} s")
        page.wait_for_timeout(20)


def browser_shards_report(folder: Path, files: dict[str, bytes], queries: Sequence[str]) -> None:
    """The catalog page (example-skills forced into shards, its search files replaced by these)
    opened with each query in its URL in a fresh chromium context: bytes loaded until the
    results are drawn (page, scripts, CSS, search files) and when they were."""
    import socket
    from urllib.parse import quote

    from playwright.sync_api import sync_playwright

    from skillsite.config import SiteConfig
    from skillsite.publish.build import build

    chromium = os.environ.get("SKILLSITE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        raise RuntimeError("chromium is not installed")
    site = folder / "site"
    build([REPO / "example-skills"], site, SiteConfig(shard_above=1))
    shutil.rmtree(site / "search")
    for rel, data in files.items():
        if rel.startswith("search/"):
            (site / rel).parent.mkdir(parents=True, exist_ok=True)
            (site / rel).write_bytes(data)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory",
                               str(site)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rows = []
    try:
        time.sleep(1.0)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, headless=True,
                                         args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
            for query in queries:
                context = browser.new_context()
                page = context.new_page()
                page.goto(f"http://127.0.0.1:{port}/index.html?q={quote(query)}")
                drawn_within(page, 20.0)
                rows.append(page.evaluate("""() => {
                    const nav = performance.getEntriesByType('navigation')[0];
                    const res = performance.getEntriesByType('resource');
                    const size = (e) => e.transferSize || e.encodedBodySize || 0;
                    const drawn = performance.getEntriesByName('skillsite:results:shards')[0];
                    const ready = performance.getEntriesByName('skillsite:index-ready')[0];
                    return {bytes: size(nav) + res.reduce((t, e) => t + size(e), 0),
                            search: res.filter((e) => e.name.includes('/search/')).reduce((t, e) => t + size(e), 0),
                            files: res.length + 1, ms: drawn ? drawn.startTime : -1, ready: ready ? ready.startTime : -1};
                }"""))
                context.close()
            browser.close()
    finally:
        server.terminate()
        server.wait(10)
    total, search, ms, ready = (percentiles([r[key] for r in rows]) for key in ("bytes", "search", "ms", "ready"))
    print(f"  the catalog page (example-skills' home page over these shards, chromium, {len(rows)} dev queries "
          f"in its URL, fresh context each, served uncompressed on 127.0.0.1):")
    print(f"    loaded until results are drawn: p50 {kb(total[0])}, max {kb(total[2])} "
          f"(search files p50 {kb(search[0])}, max {kb(search[2])}); results drawn at p50 {ms[0]:.0f} ms, "
          f"max {ms[2]:.0f} ms after navigation start (meta file read at p50 {ready[0]:.0f} ms)")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=SHARED / "corpus")
    parser.add_argument("--queries", type=Path, default=SHARED / "eval" / "dev-queries.tsv")
    parser.add_argument("--site", type=Path, default=None, help="a catalog already built from --corpus")
    parser.add_argument("--synthetic", type=int, default=10_000, metavar="N")
    parser.add_argument("--shard-above", type=int, default=None, metavar="N",
                        help="also build the corpus with shard_above N (1: forced into shards) and compare")
    parser.add_argument("--shards-synthetic", type=int, default=0, metavar="N",
                        help="measure search shards of N corpus-shaped skills (files, bytes per search)")
    args = parser.parse_args(argv)
    print("# skillsite search benchmark")
    print(f"command: {shlex.join([sys.executable, *sys.argv])}")
    print(f"machine: {describe_machine()}")
    corpus_report(args.corpus.resolve(), args.queries.resolve(), args.site.resolve() if args.site else None,
                  args.shard_above)
    if args.shards_synthetic > 0:
        shards_report(args.shards_synthetic, args.corpus.resolve(), args.queries.resolve())
    if args.synthetic > 0:
        synthetic_report(args.synthetic)


if __name__ == "__main__":
    main()
