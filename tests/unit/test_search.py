"""The search section of skillsite.loader: tokenizer, stemmer, index format, ranking; the search stage
of the build; and `skillsite search`."""
from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from skillsite.search import lunr_index as search_stage, lunr_reference
from skillsite.cli import main
from skillsite.loader import (SEARCH_FIELDS, Catalog, SearchIndex, build_search_section, search_fields, stem,
                              tokenize)
from skillsite.source.schema import load_schema

REPO = Path(__file__).resolve().parents[2]


def entry(skill_id: str, description: str, *, name: str | None = None, tags: tuple[str, ...] = (),
          priority: int = 0, tools: tuple[dict, ...] = (), allowed: tuple[str, ...] = ()) -> dict:
    """The manifest fields search reads."""
    return {"id": skill_id, "name": name or skill_id.rsplit("/", 1)[-1], "description": description,
            "tags": list(tags), "priority": priority, "tools": list(tools), "allowed-tools": list(allowed)}


def make_index(*entries: dict) -> SearchIndex:
    return SearchIndex.from_manifest({"skills": list(entries), "search": build_search_section(entries)})


CATALOG = [
    entry("ops/deploy-app", "Deploy web applications to Kubernetes clusters with rolling updates.",
          tags=("kubernetes", "Ops")),
    entry("ops/helm", "Package Kubernetes manifests as Helm charts.", tags=("kubernetes",)),
    entry("sec/keyvault", "Store API keys and secrets in a key vault; rotate keys.", tags=("security",)),
    entry("web/display-grid", "Display arrays of data in a responsive grid and play animations."),
    entry("dev/tdd", "Write a failing test first, then the implementation.", name="test-driven-development"),
]


# ---------------------------------------------------------------- tokenizer and stemmer

@pytest.mark.parametrize("word, stemmed", [
    ("deploy", "deploy"), ("deploying", "deploy"), ("deployed", "deploy"), ("deploys", "deploy"),
    ("key", "key"), ("keys", "key"), ("array", "array"), ("gateway", "gateway"), ("display", "display"),
    ("play", "play"), ("try", "tri"), ("lay", "lay"), ("ponies", "poni"), ("caresses", "caress"),
    ("relational", "relat"), ("generalization", "gener"), ("hopping", "hop"), ("filing", "file"),
    ("yelling", "yell"), ("by", "by"), ("k8s", "k8"),
])
def test_stem_is_lunr_js_porter(word: str, stemmed: str) -> None:
    assert stem(word) == stemmed


def test_stem_counts_astral_characters_as_two_units_like_javascript() -> None:
    # "😀s" is three UTF-16 units: lunr.js strips the plural "s", so must we.
    assert stem("\U0001f600s") == "\U0001f600"
    assert stem("caf\u00e9s") == "caf\u00e9"


def test_tokenize_splits_lowercases_drops_stop_words_and_stems() -> None:
    assert tokenize("Deploying the K8s-gateway, quickly!") == ["deploy", "k8", "gateway", "quickli"]
    assert tokenize("a I x y of the") == []
    assert tokenize("snake_case and café") == ["snake", "case", "caf\u00e9"]


def test_tokenize_keeps_runs_of_symbols_as_terms() -> None:
    """An emoji tag ("🚀") is searchable: runs of Unicode "other symbols", with their marks, skin
    tones and joiners, come after the words, unstemmed (ranking.js's tokenize cuts them alike)."""
    text = "🚀 ❤️ 👍🏽, 👨\u200d👩\u200d👧 ©2024 → ^_^ 😀s"
    assert tokenize(text) == ["2024", "🚀", "❤️", "👍🏽", "👨\u200d👩\u200d👧", "©", "😀"]
    assert tokenize("→ ^_^ ∑") == []                     # math and modifier symbols alone are no terms


def test_search_fields_add_folder_name_and_tool_purposes_not_allowed_tools() -> None:
    fields = search_fields(entry("a/pdf-tools", "Edit PDFs.", name="PDF Helper", tags=("pdf", "docs"),
                                 tools=({"name": "qpdf", "purpose": "merge files", "required": True},),
                                 allowed=("Read", "Write")))
    assert fields == {"name": "PDF Helper pdf-tools", "description": "Edit PDFs.", "tags": "pdf docs",
                      "tools": "qpdf merge files", "triggers": ""}
    assert list(fields) == list(SEARCH_FIELDS)


def test_search_fields_hold_trigger_words_but_not_patterns() -> None:
    base = entry("deploy", "Ship it.")
    fields = search_fields({**base, "triggers": {"phrases": ["roll out"], "keywords": ["canary"],
                                                 "verbs": ["deploy"], "patterns": [r"v\d+"]}})
    assert fields["triggers"] == "roll out canary deploy"
    index = SearchIndex.from_manifest({"skills": [{**base, "triggers": {"phrases": [], "keywords": ["canary"],
                                                                         "verbs": [], "patterns": []}},
                                                  entry("other", "Something else.")]})
    assert [sid for sid, _ in index.search("canary")] == ["deploy"]


# ---------------------------------------------------------------- the index format

def test_section_is_deterministic_sorted_and_valid_against_the_schema() -> None:
    section = build_search_section(CATALOG)
    again = build_search_section([dict(e) for e in CATALOG])
    assert json.dumps(section, sort_keys=True) == json.dumps(again, sort_keys=True)
    assert section["terms"] == sorted(set(section["terms"]))
    assert len(section["terms"]) == len(section["idf"]) == len(section["postings"])
    assert section["docs"] == len(CATALOG) and section["doc_bytes"] == 2
    schema = load_schema("skills.schema.json")
    jsonschema.validate(section, {**schema["$defs"]["search"], "$defs": schema["$defs"]})


def test_postings_decode_to_ascending_skill_numbers_and_byte_weights() -> None:
    section = build_search_section(CATALOG)
    raw = base64.b64decode(section["postings"][section["terms"].index("kubernet")])
    count = len(raw) // 3
    docs = [int.from_bytes(raw[2 * i:2 * i + 2], "little") for i in range(count)]
    assert docs == [0, 1]
    assert all(1 <= w <= 255 for w in raw[2 * count:])


def test_description_outweighs_name() -> None:
    index = make_index(entry("a/graph", "Draw charts."), entry("b/other", "Graph databases."))
    assert [sid for sid, _ in index.search("graph")] == ["b/other", "a/graph"]


def test_large_catalogs_use_four_byte_skill_numbers() -> None:
    many = [entry(f"s/{i}", "common words" + (" rare" if i == 70_000 else "")) for i in range(70_001)]
    section = build_search_section(many)
    assert section["doc_bytes"] == 4
    index = SearchIndex.from_manifest({"skills": many, "search": section})
    assert index.search("rare") == [("s/70000", pytest.approx(index.search("rare")[0][1]))]


# ---------------------------------------------------------------- ranking

def test_deploying_finds_deploy_and_every_named_word_matches() -> None:
    index = make_index(*CATALOG)
    assert index.search("deploying")[0][0] == "ops/deploy-app"
    assert index.search("keys")[0][0] == "sec/keyvault"
    assert index.search("displayed arrays playing")[0][0] == "web/display-grid"


def test_prefix_of_an_unknown_word_matches_at_lower_weight() -> None:
    index = make_index(*CATALOG)
    kube = index.search("kube")
    assert [sid for sid, _ in kube] == ["ops/helm", "ops/deploy-app"]
    full = dict(index.search("kubernetes"))
    assert kube[0][1] == pytest.approx(full["ops/helm"] / 2, abs=1e-6)
    assert index.search("ku") == []  # too short to expand


def test_ties_break_by_priority_then_id() -> None:
    index = make_index(entry("b/two", "lint code"), entry("a/one", "lint code"),
                       entry("c/three", "lint code", priority=5))
    ranked = index.search("lint")
    assert [sid for sid, _ in ranked] == ["c/three", "a/one", "b/two"]
    assert len({score for _, score in ranked}) == 1


def test_k_and_scores() -> None:
    index = make_index(*CATALOG)
    results = index.search("kubernetes", k=1)
    assert len(results) == 1 and results[0][1] > 0 and round(results[0][1], 6) == results[0][1]
    assert index.search("kubernetes", k=0) == []
    assert index.search("") == [] and index.search("the of and") == []


def test_tags_filter_needs_every_tag_case_insensitively() -> None:
    index = make_index(*CATALOG)
    assert [sid for sid, _ in index.search("kubernetes", tags=["ops"])] == ["ops/deploy-app"]
    assert index.search("kubernetes", tags=["OPS", "kubernetes"])[0][0] == "ops/deploy-app"
    assert index.search("kubernetes", tags=["security"]) == []
    assert index.search("", tags=["kubernetes"]) == [("ops/deploy-app", 0.0), ("ops/helm", 0.0)]


def test_manifest_without_or_with_a_newer_index_is_indexed_on_the_fly() -> None:
    built = make_index(*CATALOG).search("kubernetes deploy")
    assert SearchIndex.from_manifest({"skills": CATALOG, "search": None}).search("kubernetes deploy") == built
    newer = {**build_search_section(CATALOG), "version": 99, "terms": "unreadable"}
    assert SearchIndex.from_manifest({"skills": CATALOG, "search": newer}).search("kubernetes deploy") == built


@pytest.mark.parametrize("damage", [
    {"docs": 3},
    {"idf": []},
    {"doc_bytes": 3},
])
def test_inconsistent_index_is_refused(damage: dict) -> None:
    with pytest.raises(ValueError):
        SearchIndex.from_manifest({"skills": CATALOG, "search": {**build_search_section(CATALOG), **damage}})


def test_corrupt_postings_raise_value_error_when_read() -> None:
    section = build_search_section(CATALOG)
    at = section["terms"].index("kubernet")
    for bad in ("AAE", base64.b64encode(b"\x09\x00\x80").decode()):  # truncated; skill 9 of 5
        postings = list(section["postings"])
        postings[at] = bad
        index = SearchIndex.from_manifest({"skills": CATALOG, "search": {**section, "postings": postings}})
        with pytest.raises(ValueError):
            index.search("kubernetes")


# ---------------------------------------------------------------- build stage and CLI



def test_build_writes_both_indexes_deterministically(site: Path, tmp_path: Path) -> None:
    from skillsite.publish.build import build

    manifest = json.loads((site / "skills.json").read_text(encoding="utf-8"))
    assert manifest["search"] == build_search_section(manifest["skills"])
    lunr = json.loads((site / search_stage.LUNR_FILE).read_text(encoding="utf-8"))
    assert lunr["version"] == "2.3.9" and lunr["pipeline"] == ["stemmer"]
    assert lunr["fields"] == list(SEARCH_FIELDS)
    # refs are the rows of search/docs.json: the listed skills (not hidden ones), in manifest order
    skills = [e for e in manifest["skills"] if e["visibility"].get("hidden_by") != "hidden"]
    assert 0 < len(skills) < len(manifest["skills"])
    assert {ref.split("/", 1)[1] for ref, _ in lunr["fieldVectors"]} == {str(i) for i in range(len(skills))}
    docs = json.loads((site / search_stage.DOCS_FILE).read_text(encoding="utf-8"))
    assert docs["format"] == "skillsite-search-docs" and docs["version"] == 1
    assert docs["fields"] == ["id", "name", "description", "url", "tags", "copy_of", "copies", "hidden_tags"]
    assert docs["docs"] == [[e["id"], e["name"], e["description"], e["urls"]["page"], e["tags"], -1, 1, []]
                            for e in skills]
    assert build([REPO / "example-skills"], tmp_path / "again").ok
    for rel in ("skills.json", search_stage.LUNR_FILE, search_stage.DOCS_FILE):
        assert (tmp_path / "again" / rel).read_bytes() == (site / rel).read_bytes()


def test_lunr_postings_are_written_in_javascript_key_order() -> None:
    """lunr.js iterates numeric refs in numeric order whatever the file says; lunr.py keeps the
    file's order: written numerically, both break ties between equal scores alike."""
    docs = [dict(e, id=f"{e['id']}-{i}") for i in range(3) for e in CATALOG]
    assert len(docs) > 10
    data = json.loads(lunr_reference.lunr_json(lunr_reference.build_lunr(docs)))
    for _, posting in data["invertedIndex"]:
        for name in SEARCH_FIELDS:
            refs = list(posting[name])
            assert refs == sorted(refs, key=int)


def test_lunr_field_boosts_follow_the_search_weights() -> None:
    builder = lunr_reference.lunr_builder()
    assert {name: f.boost for name, f in builder._fields.items()} == SEARCH_FIELDS


def test_cli_json_ranks_as_the_loader(site: Path) -> None:
    query = "review a pull request"
    result = CliRunner().invoke(main, ["search", query, "--catalog", str(site), "--json", "-k", "3"])
    assert result.exit_code == 0, result.output
    printed = json.loads(result.output)
    expected = Catalog.open(site).search(query, k=3)
    assert [(r["id"], r["score"]) for r in printed] == [(r.id, r.score) for r in expected]
    assert printed and set(printed[0]) == {"id", "name", "description", "score"}


def test_cli_text_default_catalog_tags_and_errors(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(site.parent)  # the default --catalog is ./_site
    runner = CliRunner()
    result = runner.invoke(main, ["search", "pull request"])
    assert result.exit_code == 0 and result.output.startswith(" 1. ")
    tag = json.loads((site / "skills.json").read_text(encoding="utf-8"))["skills"][0]
    if tag["tags"]:
        tagged = runner.invoke(main, ["search", "", "--tag", tag["tags"][0], "--json"])
        assert tag["id"] in [r["id"] for r in json.loads(tagged.output)]
    nothing = runner.invoke(main, ["search", "zzqx", "--json"])
    assert nothing.exit_code == 0 and json.loads(nothing.output) == []
    missing = runner.invoke(main, ["search", "x", "--catalog", str(site / "nope")])
    assert missing.exit_code == 1 and missing.output.startswith("skillsite: ")   # as every catalog command


def test_indexes_do_not_depend_on_the_hash_seed() -> None:
    """Byte-identical search/lunr.json and search section whatever PYTHONHASHSEED is."""
    script = ("import hashlib, json, sys; from skillsite.search import lunr_reference as reference;"
              " from skillsite.loader import build_search_section;"
              "docs = json.load(sys.stdin);"
              "from skillsite.search.lunr_index import lunr_bytes;"
              "print(hashlib.sha256(reference.lunr_json(reference.build_lunr(docs))).hexdigest(),"
              " hashlib.sha256(lunr_bytes(docs)).hexdigest(),"
              " hashlib.sha256(json.dumps(build_search_section(docs)).encode()).hexdigest())")
    docs = json.dumps([dict(e, id=f"{e['id']}-{i}") for i in range(3) for e in CATALOG])
    digests = {subprocess.run([sys.executable, "-c", script], input=docs, capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": seed}).stdout
               for seed in ("1", "2", "3")}
    assert len(digests) == 1
