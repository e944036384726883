"""Search quality and speed: skillsite's precomputed BM25F index, its lunr index, and BM25 baselines.

    python benchmarks/search_quality.py [--corpus DIR] [--queries TSV] [--site DIR] [--synthetic N]

1. Builds the catalog of ../shared/corpus (``--site DIR`` reuses one already built from it),
   times the search stage and measures both indexes.
2. Runs ../shared/eval/dev-queries.tsv (query TAB relevant skill folder names; a result is
   relevant when the last segment of its id, or its name, is one of them) and prints MRR@10,
   hit@1 and hit@3 for:
     - skillsite: the loader's SearchIndex over skills.json["search"] (what ships);
     - lunr: search/lunr.json searched with lunr.py (lunr.js ranks identically, see
       tests/integration/test_lunr_parity.py), raw query strings as typed;
     - bm25s: BM25 (k1 1.5, b 0.75) over the same text (name, description, tags, tools
       joined), bm25s's own tokenizer and English stop words, no stemming;
     - bm25s + stem: the same with the lunr.js Porter stemmer skillsite uses;
     - skillsite + body: skillsite's score plus beta times a BM25 score over SKILL.md bodies
       (an experiment, not shipped: see the printed verdict).
3. Generates a synthetic catalog of N skills (default 10,000; vocabulary drawn from a Zipf
   distribution, description lengths and stop-word share like the corpus's) and prints the
   size and build time of both indexes, then loader latency: Catalog.open plus the first
   search (cold), and the median and p95 of Catalog.search over 1,000 queries.

bm25s is a benchmark-only dependency: ``pip install -e '.[bench]'``.
"""
from __future__ import annotations

import argparse
import bisect
import gzip
import hashlib
import itertools
import json
import math
import random
import shlex
import statistics
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


def evaluate(ranker: Ranker, queries: Sequence[tuple[str, set[str]]], names: dict[str, str]) -> tuple[float, ...]:
    """MRR@10, hit@1, hit@3."""
    rr = hit1 = hit3 = 0.0
    for query, relevant in queries:
        for rank, skill_id in enumerate(list(ranker(query))[:10], 1):
            if skill_id.rsplit("/", 1)[-1] in relevant or names[skill_id] in relevant:
                rr += 1.0 / rank
                hit1 += rank == 1
                hit3 += rank <= 3
                break
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


def lunr_ranker(data: bytes, entries: Sequence[dict[str, Any]]) -> Ranker:
    """lunr.py over search/lunr.json, whose refs are positions in the manifest's skills."""
    from skillsite.search.lunr_reference import load_lunr

    index = load_lunr(data)
    ids = [e["id"] for e in entries]
    return lambda query: [ids[int(r["ref"])] for r in index.search(query)]


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

def build_corpus(corpus: Path, site: Path | None) -> tuple[Path, list[str], float | None]:
    """The corpus catalog folder, the body of every published skill (manifest order), build seconds."""
    from skillsite.publish.build import build
    from skillsite.source.catalog import read_catalog

    if site is None:
        site = Path(tempfile.mkdtemp(prefix="skillsite-bench-")) / "site"
        result, seconds = timed(lambda: build([corpus], site, keep_going=True))
        skills = {s.id: s.body for s in result.reading.skills}
    else:
        seconds = None
        skills = {s.id: s.body for s in read_catalog([corpus]).skills}
    manifest = json.loads((site / "skills.json").read_text(encoding="utf-8"))
    return site, [skills.get(e["id"], "") for e in manifest["skills"]], seconds


def corpus_report(corpus: Path, queries_file: Path, site_arg: Path | None) -> None:
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
    rows: list[tuple[str, Ranker]] = [
        ("skillsite BM25F (shipped)", skillsite_ranker(manifest)),
        ("lunr index (lunr.py = lunr.js)", lunr_ranker(lunr_data, entries)),
        ("bm25s (its tokenizer, no stem)", bm25s_ranker(entries, stem=False)),
        ("bm25s + lunr.js Porter stem", bm25s_ranker(entries, stem=True)),
    ] + [(f"skillsite + body beta={b} (not shipped)", body_ranker(manifest, body, b)) for b in BODY_BETAS]
    print(f"\n## Search quality: {len(queries)} queries from {queries_file}")
    print(f"  {'ranker':<40}{'MRR@10':>8}{'hit@1':>8}{'hit@3':>8}")
    results = {}
    for label, ranker in rows:
        mrr, hit1, hit3 = results[label] = evaluate(ranker, queries, names)
        print(f"  {label:<40}{mrr:>8.3f}{hit1:>8.3f}{hit3:>8.3f}")
    shipped = results[rows[0][0]][0]
    best_bm25 = max(results[rows[2][0]][0], results[rows[3][0]][0])
    body_best = max(results[label][0] for label, _ in rows[4:])
    body_size = body.encoded_size()
    print(f"  skillsite MRR@10 - best BM25 baseline: {shipped - best_bm25:+.3f}")
    print(f"  body index would add {kb(body_size[0])} ({kb(body_size[1])} gzip) for {len(entries)} skills, "
          f"{sum(map(len, body.postings.values())):,} postings; best MRR@10 gain {body_best - shipped:+.3f}")


def synthetic_report(n: int) -> None:
    from skillsite.config import SiteConfig
    from skillsite.search.lunr_reference import build_lunr, lunr_json
    from skillsite.loader import Catalog, build_search_section
    from skillsite.publish.manifest import manifest as make_manifest

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
    path.write_text(json.dumps(make_manifest(entries, SiteConfig(), 0, None, section), ensure_ascii=False,
                               separators=(",", ":")), encoding="utf-8")
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


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=SHARED / "corpus")
    parser.add_argument("--queries", type=Path, default=SHARED / "eval" / "dev-queries.tsv")
    parser.add_argument("--site", type=Path, default=None, help="a catalog already built from --corpus")
    parser.add_argument("--synthetic", type=int, default=10_000, metavar="N")
    args = parser.parse_args(argv)
    print("# skillsite search benchmark")
    print(f"command: {shlex.join([sys.executable, *sys.argv])}")
    print(f"machine: {describe_machine()}")
    corpus_report(args.corpus.resolve(), args.queries.resolve(), args.site)
    synthetic_report(args.synthetic)


if __name__ == "__main__":
    main()
