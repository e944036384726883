"""The catalog page's search (templates/static/ranking.js, its ranking core: searchIndex,
and searchText, its quick plain-text match) run by real lunr.js 2.3.9 in node on built search
files, through tests/js/browser_search.js: the very path benchmarks/search_quality.py measures
(issue 19).

- the core's own unit tests (tests/js/ranking.test.js, node's test runner) pass;
- requests of our own over the checked-in sample corpus (48 real skills) rank the right skill
  as well as the CLI does, with words no skill uses in some of them;
- over the corpus catalog's 1,060 skills (the parity fixture's search fields), the box agrees
  with the CLI on the 30 dev queries (their relevance labels stay in ../shared/eval: agreement
  with the CLI is checked here, the benchmark measures quality) and never shows nothing where
  the CLI finds something;
- a ``triggers`` field in lunr.json is searched without a change to ranking.js.
"""
from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from skillsite.loader import SearchIndex, build_search_section, stem
from skillsite.search import lunr_index
from support import load_script

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "tests" / "data" / "sample-corpus"
FIXTURE = REPO / "tests" / "data" / "search_parity.json.gz"
BROWSER_SEARCH = REPO / "tests" / "js" / "browser_search.js"
RANKING_TESTS = REPO / "tests" / "js" / "ranking.test.js"

# (request, the skill folder that answers it); the made-up words are in no skill.
REQUESTS = [
    ("find N+1 queries in my django app", "django-perf-review"),
    ("my vector search has terrible p99 latency", "minimize-latency"),
    ("schedule posts to linkedin and instagram", "social-publishing"),
    ("audit mcp.json server configs for security holes", "mcp-security-audit"),
    ("set up static analysis security scanning with semgrep", "sast-configuration"),
    ("design a postgres schema with good indexes", "postgresql"),
    ("generate images with the gemini image model through openrouter", "nano-banana-pro-openrouter"),
    ("add before and after screenshots to a pull request", "pr-screenshots"),
    ("turn chat notes into notion wiki pages", "notion-knowledge-capture"),
    ("fix failing CI checks on my PR until green", "iterate-pr"),
    ("write a tldr page for a command", "create-tldr-page"),
    ("which azure role should I assign for these permissions", "azure-role-selector"),
    ("reverse engineer a codebase into a product requirements document", "code-to-prd"),
    ("simplify this convoluted code wibblewobble", "code-simplifier"),
    ("schedule posts to linked", "social-publishing"),                     # the last word half typed
    ("qdrant multi-tenant isolation frobnicator", "tenant-scaling"),
]



def node() -> str:
    found = shutil.which("node")
    assert found, "node is needed (apt-get install nodejs; .ci/run installs it)"
    assert (REPO / "node_modules" / "lunr" / "lunr.js").is_file(), "node_modules/lunr is needed: npm ci"
    return found


def browser_search(site: Path, queries: list[str], k: int = 10) -> dict:
    done = subprocess.run([node(), str(BROWSER_SEARCH), str(site), "-", "--k", str(k)], input=json.dumps(queries),
                          capture_output=True, text=True, encoding="utf-8", timeout=120, check=True)
    return json.loads(done.stdout)


def folder(skill_id: str) -> str:
    return skill_id.rsplit("/", 1)[-1]


def test_the_ranking_core_passes_its_unit_tests_in_node() -> None:
    """tests/js/ranking.test.js, run by node's own test runner (TAP output): every test ran
    and passed, none skipped."""
    done = subprocess.run([node(), "--test", "--test-reporter=tap", str(RANKING_TESTS)], capture_output=True,
                          text=True, encoding="utf-8", timeout=120, cwd=REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    counts = {k: int(v)
              for k, v in re.findall(r"^# (tests|pass|fail|cancelled|skipped|todo) (\d+)$", done.stdout, re.M)}
    assert counts["tests"] >= 10 and counts["pass"] == counts["tests"], counts
    assert counts["fail"] == counts["cancelled"] == counts["skipped"] == counts["todo"] == 0, counts


@pytest.fixture(scope="module")
def sample_site(tmp_path_factory) -> Path:
    from skillsite.publish.build import build

    out = tmp_path_factory.mktemp("sample") / "site"
    result = build([SAMPLE], out, keep_going=True)
    assert len(result.published) >= 40
    return out


def write_search_files(site: Path, entries: list[dict], lunr_data: bytes) -> Path:
    """search/lunr.json and search/docs.json of ``entries`` (id, name, description, tags, tools)."""
    (site / "search").mkdir(parents=True)
    (site / "search" / "lunr.json").write_bytes(lunr_data)
    rows = [[e["id"], e["name"], e["description"], f"skills/{e['id']}/", e["tags"]] for e in entries]
    docs = {"format": lunr_index.DOCS_FORMAT, "version": 1, "fields": list(lunr_index.DOCS_FIELDS), "docs": rows}
    (site / "search" / "docs.json").write_text(json.dumps(docs), encoding="utf-8")
    return site


def test_requests_rank_as_well_as_the_cli(sample_site: Path) -> None:
    bench = load_script(REPO / "benchmarks" / "search_quality.py")
    manifest = json.loads((sample_site / "skills.json").read_text(encoding="utf-8"))
    names = {e["id"]: e["name"] for e in manifest["skills"]}
    queries = [(q, {answer}) for q, answer in REQUESTS]
    assert all(any(folder(i) == a for i in names) for _, (a,) in queries)
    box = bench.browser_rankings(sample_site, [q for q, _ in queries])
    cli = bench.evaluate(bench.skillsite_ranker(manifest), queries, names)
    lunr = bench.evaluate(lambda q: box["lunr"][q], queries, names)
    text = bench.evaluate(lambda q: box["text"][q], queries, names)
    assert lunr[0] >= cli[0] - 0.02, (lunr, cli)
    assert lunr[0] >= 0.9 and lunr[1] >= 0.85, lunr          # MRR@10, hit@1
    assert text[0] >= 0.85, text                             # the quick match, before lunr.json
    firsts = {q: folder(box["lunr"][q][0]) for q, _ in queries}
    assert firsts["simplify this convoluted code wibblewobble"] == "code-simplifier"
    assert firsts["schedule posts to linked"] == "social-publishing"


def test_a_word_no_skill_uses_does_not_empty_the_list(sample_site: Path) -> None:
    out = browser_search(sample_site, ["wibblewobble", "frobnicator", "simplify this convoluted code wibblewobble",
                                       "qdrant multi-tenant isolation frobnicator", "the of and", ""])
    assert out["lunr"][0] == [] and out["lunr"][1] == [] and out["text"][0] == []
    for hits in out["lunr"][2:4] + out["text"][2:4]:
        assert hits, "one unknown word emptied the list"
    assert folder(out["lunr"][2][0]["id"]) == "code-simplifier" and out["lunr"][2][0]["words"] == 2  # simplify, code
    assert folder(out["lunr"][3][0]["id"]) == "tenant-scaling"
    assert out["lunr"][4] == [] and out["lunr"][5] == []       # stop words only, nothing
    # what the page highlights: the words of the name and description that matched
    assert {"Simplifies", "code"} <= set(out["lunr"][2][0]["marks"])


def test_more_matched_words_rank_higher(sample_site: Path) -> None:
    out = browser_search(sample_site, ["qdrant", "latency", "qdrant latency"], k=50)
    qdrant = {h["id"] for h in out["lunr"][0]}
    latency = {h["id"] for h in out["lunr"][1]}
    both = qdrant & latency
    assert both and len(qdrant) > len(both)
    ranked = out["lunr"][2]
    assert {h["id"] for h in ranked[:len(both)]} == both     # every skill with both words first
    assert all(h["words"] == 2 for h in ranked[:len(both)]) and all(h["words"] == 1 for h in ranked[len(both):])
    text = out["text"][2]
    assert {h["id"] for h in text[:len(both)]} == both        # and so does the quick match


def test_the_box_agrees_with_the_cli_on_the_corpus(tmp_path: Path) -> None:
    """Over the corpus catalog's 1,060 real skills: for each of the 30 dev queries, the box's
    first result is the CLI's or close to it, and it shows something wherever the CLI does."""
    parity = json.loads(gzip.decompress(FIXTURE.read_bytes()).decode("utf-8"))
    entries, queries = parity["docs"], parity["queries"][:30]
    site = write_search_files(tmp_path / "site", entries, lunr_index.lunr_bytes(entries))
    index = SearchIndex(build_search_section(entries), [e["id"] for e in entries], [0] * len(entries),
                        [e["tags"] for e in entries])
    out = browser_search(site, queries)
    assert out["docs"] == len(entries) == 1060
    close = same = 0
    for query, box, text in zip(queries, out["lunr"], out["text"]):
        cli = [skill_id for skill_id, _ in index.search(query, k=10)]
        assert cli, query
        assert box and text, f"the box shows nothing for {query!r}"
        box_ids = [h["id"] for h in box]
        same += box_ids[0] == cli[0]
        close += cli[0] in box_ids[:3]
        assert len(set(box_ids) & set(cli)) >= 5, (query, box_ids, cli)
    assert same >= 25 and close >= 29, (same, close)


def test_a_triggers_field_in_the_index_is_searched(tmp_path: Path) -> None:
    """ranking.js reads the fields from lunr.json: a field added there is searched (and its boost
    applied) with no change to the page."""
    entries = [
        {"id": "alpha", "name": "alpha", "description": "Format dates in reports.", "tags": ["dates"], "tools": [],
         "triggers": "quarterly spreadsheet"},
        {"id": "beta", "name": "beta", "description": "Draw charts of quarterly numbers.", "tags": [], "tools": [],
         "triggers": ""},
        {"id": "gamma", "name": "gamma", "description": "Unrelated text about kites.", "tags": [], "tools": [],
         "triggers": ""},
    ]
    fields = {**lunr_index.lunr_boosts(), "triggers": 2}
    docs = [{"id": str(i), **{f: (" ".join(e[f]) if isinstance(e[f], list) else e[f]) for f in fields}}
            for i, e in enumerate(entries)]
    data = lunr_index.lunr_index(docs, fields, trim=lunr_index.trim_word, stem_word=stem)
    site = write_search_files(tmp_path / "site", entries, json.dumps(data).encode("utf-8"))
    out = browser_search(site, ["spreadsheet", "quarterly spreadsheet", "spreads"])
    assert out["fields"] == ["name", "description", "tags", "tools", "triggers"]
    assert [h["id"] for h in out["lunr"][0]] == ["alpha"]
    assert [h["id"] for h in out["lunr"][1]] == ["alpha", "beta"]
    assert out["lunr"][1][0]["words"] == 2
    assert [h["id"] for h in out["lunr"][2]] == ["alpha"]        # the last word as a prefix


def test_the_word_being_typed_matches_as_a_prefix(sample_site: Path) -> None:
    """The last word matches every term it begins; a lone letter is no word at all (the CLI makes
    no term of it, and it would begin nearly every term), and a finished known word (a space
    after it) matches itself only."""
    out = browser_search(sample_site, ["qdrant", "qdrant s", "s", "sched", "code", "code ", "scaling tenan"], k=50)
    assert [h["id"] for h in out["lunr"][1]] == [h["id"] for h in out["lunr"][0]]
    assert out["lunr"][2] == [] and out["text"][2] == []            # "s" alone: nothing, as the CLI
    assert folder(out["lunr"][3][0]["id"]) == "social-publishing"   # sched... -> schedule
    code, code_done = ({h["id"] for h in hits} for hits in out["lunr"][4:6])
    assert code_done < code                                          # "code" also found "codebase"...
    assert folder(out["lunr"][6][0]["id"]) == "tenant-scaling"
    assert "tenant" in out["lunr"][6][0]["marks"]


def test_a_part_of_a_word_joined_by_punctuation_finds_it(tmp_path: Path) -> None:
    """lunr cuts text at spaces and hyphens only: "AWS/GCP/Azure" was one term, so "gcp" found
    nothing on the page while the CLI found it. The parts are indexed beside the word now."""
    entries = [
        {"id": "cloud-deploy", "name": "cloud-deploy", "description": "Deploy services to AWS/GCP/Azure.",
         "tags": [], "tools": []},
        {"id": "mcp-audit", "name": "mcp-audit", "description": "Audit mcp.json and snake_case configs.",
         "tags": [], "tools": []},
        {"id": "kites", "name": "kites", "description": "Unrelated text about kites.", "tags": [], "tools": []},
    ]
    site = write_search_files(tmp_path / "site", entries, lunr_index.lunr_bytes(entries))
    out = browser_search(site, ["gcp", "azure ", "aws/gcp", "json ", "mcp.json", "case "])
    assert [[h["id"] for h in hits] for hits in out["lunr"]] == [["cloud-deploy"]] * 3 + [["mcp-audit"]] * 3
    assert "GCP" in out["lunr"][0][0]["marks"] or "AWS/GCP/Azure" in out["lunr"][0][0]["marks"]
    cli = SearchIndex(build_search_section(entries), [e["id"] for e in entries], [0] * 3, [[]] * 3)
    assert [skill_id for skill_id, _ in cli.search("gcp", k=3)] == ["cloud-deploy"]   # as the CLI always did


def test_the_box_takes_the_words_of_a_query_as_the_cli_does(sample_site: Path) -> None:
    """A word is what the CLI's tokenizer makes a term of (two letters or digits at least, no stop
    word): "a#b", "c#" and "x?y" find nothing, as `skillsite search` and the sharded page, and
    a one-letter piece beside other words changes no ranking."""
    manifest = json.loads((sample_site / "skills.json").read_text(encoding="utf-8"))
    skills = manifest["skills"]
    cli = SearchIndex(manifest["search"], [e["id"] for e in skills], [e.get("priority", 0) for e in skills],
                      [e.get("tags", []) for e in skills])
    lone = ["a#b", "c#", "x?y", "c", "q - z"]
    assert all(cli.search(q, k=10) == [] for q in lone)
    out = browser_search(sample_site, lone + ["review code ", "c# review code ", "review x?y code "], k=50)
    assert out["lunr"][:len(lone)] == [[]] * len(lone) and out["text"][:len(lone)] == [[]] * len(lone)
    plain, *pieced = out["lunr"][len(lone):]
    assert plain and all([h["id"] for h in hits] == [h["id"] for h in plain] for hits in pieced)
    assert all([h["score"] for h in hits] == [h["score"] for h in plain] for hits in pieced)
