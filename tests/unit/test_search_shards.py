"""The sharded search index (skillsite/search/shard_*.py): the writer's files are deterministic
and well cut, and the reader ranks exactly as the unsharded index (results and scores), on the
corpus's search fields, on real skills and on generated queries, loading only what it needs."""
from __future__ import annotations

import base64
import gzip
import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

from skillsite.search import shard_format
from skillsite.search.bm25 import MIN_PREFIX, SearchIndex, build_search_section
from skillsite.search.shard_format import SHARDS_FILE, decode_postings
from skillsite.search.shard_query import ShardedIndex, ShardIntegrityError
from skillsite.search.shard_writer import build_shards, card_row, doc_order, groups_json
from skillsite.search.terms import tokenize

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "data" / "search_parity.json.gz"


def parity_docs() -> tuple[list[dict[str, Any]], list[str]]:
    """The corpus catalog's search fields (1,060 skills) with priorities 0-2, and its queries."""
    parity = json.loads(gzip.decompress(FIXTURE.read_bytes()).decode("utf-8"))
    docs = [{**d, "priority": i % 3} for i, d in enumerate(parity["docs"])]
    return docs, parity["queries"]


def site_files(entries: list[dict[str, Any]], budget: int = shard_format.CHUNK_BYTES,
               flags: dict[str, tuple[str, bool, bool]] | None = None) -> dict[str, bytes]:
    """Every file of the sharded index of ``entries``, cards included (``flags``: risk, listed,
    offered by id)."""
    flags = flags or {}
    rows = [card_row(e["id"], e["name"], e["description"], f"skills/{e['id']}/", e["tags"],
                     *flags.get(e["id"], ("none", True, True))) for e in (entries[i] for i in doc_order(entries))]
    shards = build_shards(entries, rows, budget)
    return {**shards.files, "pointer": json.dumps(shards.section).encode()}


class Served:
    """A fetch function over ``files`` that records what it served, and the sha256 asked for."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files, self.fetched, self.shas = files, [], {}

    def __call__(self, path: str, sha256: str | None) -> bytes:
        self.fetched.append(path)
        self.shas[path] = sha256
        return self.files[path]

    def open(self, pinned: bool = False) -> ShardedIndex:
        return ShardedIndex.open(json.loads(self.files["pointer"]), self, pinned=pinned)


def unsharded(entries: list[dict[str, Any]]) -> SearchIndex:
    return SearchIndex(build_search_section(entries), [e["id"] for e in entries],
                       [int(e.get("priority") or 0) for e in entries], [e["tags"] for e in entries])


def generated_queries(entries: list[dict[str, Any]], count: int, seed: int = 5) -> list[str]:
    """Queries of 1-4 words of the descriptions, and word beginnings (prefix matches)."""
    rng = random.Random(seed)
    words = [w for e in entries for w in e["description"].split()]
    return ([" ".join(rng.choice(words) for _ in range(rng.randint(1, 4))) for _ in range(count)]
            + [w[:rng.randint(2, 7)] for w in rng.sample(words, count // 2)])


def same_results(reference: SearchIndex, index: ShardedIndex, query: str, k: int = 10,
                 tags: list[str] | None = None) -> None:
    expected = reference.search(query, k=k, tags=tags)
    assert [(c.id, s) for c, s in index.search(query, k=k, tags=tags)] == expected, (query, tags)


# ---------------------------------------------------------------- the writer

def test_the_files_are_deterministic_and_do_not_depend_on_entry_order() -> None:
    docs, _ = parity_docs()
    first = site_files(docs)
    shuffled = list(docs)
    random.Random(3).shuffle(shuffled)
    assert site_files(list(docs)) == first
    assert site_files(shuffled) == first
    assert len([p for p in first if p.startswith("search/terms/")]) > 10


def test_chunks_hold_sorted_disjoint_ranges_within_the_budget() -> None:
    docs, _ = parity_docs()
    files = site_files(docs, budget=4000)
    meta = json.loads(files[SHARDS_FILE])
    assert meta["docs"] == len(docs) and meta["index"] and meta["version"] == shard_format.SHARDS_VERSION
    previous_last = ""
    every = []
    for number, first in enumerate(meta["terms"]["first"]):
        path = shard_format.chunk_path(meta["terms"]["path"], number)
        chunk = json.loads(files[path])
        assert chunk["index"] == meta["index"]
        assert chunk["terms"] == sorted(chunk["terms"]) and chunk["terms"][0] == first > previous_last
        previous_last = chunk["terms"][-1]
        # a chunk closes at the budget: only its last term may carry it over
        assert len(files[path]) < 4000 + 200 + max(len(p) for p in chunk["postings"]), path
        for df, data in zip(chunk["df"], chunk["postings"]):
            skills, weights = decode_postings(data, df, True, len(docs))
            assert skills == sorted(set(skills)) and len(weights) == df and min(weights) >= 1
        every += chunk["terms"]
    assert every == sorted(build_search_section(docs)["terms"])
    assert f"search/terms/{len(meta['terms']['first']):04d}.json" not in files


def test_a_card_holds_texts_and_numbers_the_garbage_collector_stops_walking() -> None:
    """``serve`` keeps every skill's result card between builds: made of tuples of texts, numbers
    and flags, a card is untracked by the collector's first pass instead of being walked by every
    full collection (#47); written, it is the same JSON array."""
    import gc

    card = card_row("a/b", "b", "words", "skills/a/b/", ["A", "A", "b"], "none", True, False, 3, 2)
    gc.collect()
    gc.collect()
    assert not gc.is_tracked(card)
    assert json.loads(json.dumps(card)) == ["a/b", "b", "words", "skills/a/b/", ["A", "b"], "none", True, False, 3, 2]


def test_cards_are_in_skill_order_by_priority_then_id_and_clip_long_descriptions() -> None:
    entries = [{"id": f"s{i}", "name": f"s{i}", "description": "word " * 300 if i == 2 else "words",
                "tags": ["A", "A", "b"], "priority": i % 2} for i in range(6)]
    files = site_files(entries)
    rows = [row for path in sorted(p for p in files if p.startswith("search/cards/"))
            for row in json.loads(files[path])["cards"]]
    assert [r[0] for r in rows] == ["s1", "s3", "s5", "s0", "s2", "s4"]
    assert rows[0][4] == ["A", "b"] and rows[0][5:] == ["none", True, True, -1, 1]
    clipped = rows[4][2]
    assert len(clipped) == shard_format.DESCRIPTION_LIMIT and clipped.endswith("…")
    assert sorted(p for p in files if p.startswith("search/cards/")) == [
        "search/cards/000/00000.json", "search/cards/000/00001.json"]


def test_postings_round_trip_and_corruption_is_refused() -> None:
    docs = [0, 1, 127, 128, 300, 70000, 2 ** 21 + 5]
    data = shard_format.encode_postings(docs, bytes(range(1, 8)))
    assert decode_postings(data, 7, True, 2 ** 22) == (docs, bytes(range(1, 8)))
    assert decode_postings(shard_format.encode_postings(docs), 7, False, 2 ** 22) == (docs, b"")
    with pytest.raises(ValueError):
        decode_postings(data, 7, True, 70000)                       # names a skill the index does not have
    with pytest.raises(ValueError):
        decode_postings(data, 6, True, 2 ** 22)                     # one posting more than it says


# ---------------------------------------------------------------- the reader: same ranking

def test_same_results_and_scores_as_the_unsharded_index_on_the_corpus_fields() -> None:
    docs, queries = parity_docs()
    reference, files = unsharded(docs), site_files(docs)
    index = Served(files).open()
    for query in queries + generated_queries(docs, 200):
        same_results(reference, index, query)
    for query in queries[:20]:
        same_results(reference, index, query, k=3, tags=["python"])
        same_results(reference, index, query, k=50, tags=["Security", "devops"])
    same_results(reference, index, "", k=20, tags=["python"])   # no words: every tagged skill, score 0
    assert index.search("", k=5) == [] and index.search("python", k=0) == []


def test_same_results_over_real_skills(real_skills) -> None:
    """The sample corpus, and the shared corpus when it is there, as the build indexes them."""
    from skillsite.publish.catalog_files import search_entry
    from skillsite.source.catalog import read_catalog

    skills = [s for s in read_catalog([real_skills.path]).skills if not s.has_errors]
    entries = [search_entry(s) for s in skills]
    assert len(entries) >= real_skills.skills - real_skills.left_out - 5
    reference, index = unsharded(entries), Served(site_files(entries, budget=2000)).open()
    for query in generated_queries(entries, 150, seed=9):
        same_results(reference, index, query, k=10)


def test_a_prefix_range_that_spans_chunks_is_read_across_them() -> None:
    words = ["deplo" + end for end in ("mat", "nik", "rix", "sta", "uk", "van", "wiz", "zed")]
    entries = [{"id": f"s{i}", "name": f"s{i}", "description": f"{w} filler{i}", "tags": []}
               for i, w in enumerate(words + ["zebra", "alpha"])]
    served = Served(site_files(entries, budget=60))
    firsts = json.loads(served.files[SHARDS_FILE])["terms"]["first"]
    assert sum(f.startswith("deplo") for f in firsts) >= 2, firsts   # and the chunk before them
    index, reference = served.open(), unsharded(entries)
    assert tokenize("deplo") == ["deplo"] and len("deplo") >= MIN_PREFIX
    same_results(reference, index, "deplo", k=20)
    assert {c.id for c, _ in index.search("deplo", k=20)} == {f"s{i}" for i in range(len(words))}
    chunks = [p for p in served.fetched if p.startswith("search/terms/")]
    assert len(chunks) == len(set(chunks)) >= 3
    same_results(reference, index, "deplov zebr", k=20)


def test_a_query_loads_only_the_chunks_of_its_words_and_the_cards_it_shows() -> None:
    docs, _ = parity_docs()
    served = Served(site_files(docs, budget=4000))
    index = served.open()
    chunks = len(json.loads(served.files[SHARDS_FILE])["terms"]["first"])
    hits = index.search("kubernetes network policies", k=5)
    assert len(hits) == 5
    terms = [p for p in served.fetched if p.startswith("search/terms/")]
    cards = [p for p in served.fetched if p.startswith("search/cards/")]
    assert 1 <= len(terms) <= 3 < chunks and len(set(terms)) == len(terms)
    assert 1 <= len(cards) <= 5 and served.fetched[0] == SHARDS_FILE
    served.fetched.clear()
    index.search("kubernetes network policies", k=5)
    assert served.fetched == []                                  # everything is kept


def test_keep_leaves_out_cards_and_takes_the_k_best_of_the_others() -> None:
    docs, _ = parity_docs()
    reference = unsharded(docs)
    best = [skill_id for skill_id, _ in reference.search("python testing", k=6)]
    risky = {best[0]: ("high", True, True), best[2]: ("none", False, True), best[3]: ("low", True, False)}
    index = Served(site_files(docs, flags=risky)).open()
    kept = index.search("python testing", k=3, keep=lambda c: c.risk != "high" and c.listed and c.offered)
    assert [c.id for c, _ in kept] == [i for i, _ in reference.search("python testing", k=3,
                                                                         exclude=set(best[:1] + best[2:4]))]
    card = index.cards([kept[0][0].doc])[0]
    assert card.url == f"skills/{card.id}/" and isinstance(card.tags, tuple)


def test_files_of_another_build_are_refused() -> None:
    docs, _ = parity_docs()
    files = site_files(docs)
    other = site_files(docs[:-1])
    pointer = json.loads(files["pointer"])
    with pytest.raises(ValueError, match="sha256"):
        ShardedIndex.open(pointer, lambda path, sha: other[SHARDS_FILE] if path == SHARDS_FILE else files[path])
    mixed = {**files, "search/terms/0000.json": other["search/terms/0000.json"]}
    index = Served(mixed).open()
    with pytest.raises(ValueError, match="another build"):
        index.search("abc " + " ".join(json.loads(files["search/terms/0000.json"])["terms"][:1]))
    newer = json.loads(files[SHARDS_FILE])
    newer["version"] = shard_format.SHARDS_VERSION + 1
    with pytest.raises(ValueError, match="version"):
        ShardedIndex(newer, Served(files))


# ---------------------------------------------------------------- pinned: every file checked


def named_digests(files: dict[str, bytes]) -> dict[str, str]:
    """Every chunk, card-digest and card file the digests file names (through the card-digest
    files), with the sha256 it gives."""
    meta = json.loads(files[SHARDS_FILE])
    digests = json.loads(files[meta["digests"]["url"]])
    named = {}
    for kind in ("terms", "tags"):
        for n, sha in enumerate(shard_format.unpack_digests(digests[kind], len(meta[kind]["first"]), kind)):
            named[shard_format.chunk_path(meta[kind]["path"], n)] = sha
    buckets = -(-meta["docs"] // meta["cards"]["bucket"])
    group = digests["card_digests"]["group"]
    for g, sha in enumerate(shard_format.unpack_digests(digests["card_digests"]["sha256"], -(-buckets // group), "")):
        path = shard_format.group_path(g, digests["card_digests"]["path"])
        named[path] = sha
        pins = json.loads(files[path])
        count = min(group, buckets - pins["first"])
        for bucket, card_sha in enumerate(shard_format.unpack_digests(pins["sha256"], count, path), pins["first"]):
            named[shard_format.card_path(bucket)] = card_sha
    return named


def test_the_digests_name_every_chunk_and_card_file_with_its_sha256() -> None:
    docs, _ = parity_docs()
    files = site_files(docs, budget=4000)
    meta = json.loads(files[SHARDS_FILE])
    assert meta["digests"] == {"url": shard_format.DIGESTS_FILE, "bytes": len(files[shard_format.DIGESTS_FILE]),
                               "sha256": hashlib.sha256(files[shard_format.DIGESTS_FILE]).hexdigest()}
    assert meta["groups"] == {"url": shard_format.GROUPS_FILE, "bytes": len(files[shard_format.GROUPS_FILE]),
                              "sha256": hashlib.sha256(files[shard_format.GROUPS_FILE]).hexdigest(),
                              "unlisted": 0, "copies": 0}
    named = named_digests(files)
    assert set(named) == set(files) - {SHARDS_FILE, shard_format.DIGESTS_FILE, shard_format.GROUPS_FILE, "pointer"}
    assert all(hashlib.sha256(files[path]).hexdigest() == sha for path, sha in named.items())
    groups = [p for p in files if p.startswith(shard_format.CARD_DIGESTS_DIR)]
    cards = [p for p in files if p.startswith("search/cards/")]
    assert len(groups) == -(-len(cards) // shard_format.CARD_DIGEST_GROUP) >= 2   # 1,060 skills: 265 buckets


def test_a_pinned_index_ranks_the_same_and_fetches_the_digests_only_beside_what_it_needs() -> None:
    docs, queries = parity_docs()
    files = site_files(docs, budget=4000)
    plain, pinned = Served(files), Served(files)
    a, b = plain.open(), pinned.open(pinned=True)
    assert pinned.fetched == [SHARDS_FILE]                       # the digests wait for the first chunk
    for query in queries[:40]:
        assert b.search(query, k=10) == a.search(query, k=10)
    extra = [p for p in pinned.fetched if p not in plain.fetched]
    assert extra[0] == shard_format.DIGESTS_FILE and pinned.fetched.count(shard_format.DIGESTS_FILE) == 1
    assert extra[1:] and all(p.startswith(shard_format.CARD_DIGESTS_DIR) for p in extra[1:])
    # the same files as unpinned, each as often (in another order: shards are fetched on threads)
    assert len(extra) == len(set(extra))
    assert sorted(p for p in pinned.fetched if p not in extra) == sorted(plain.fetched)
    named = {**named_digests(files), shard_format.DIGESTS_FILE: json.loads(files[SHARDS_FILE])["digests"]["sha256"]}
    assert all(pinned.shas[p] == named[p] for p in pinned.fetched if p != SHARDS_FILE)
    assert set(plain.shas.values()) == {None, json.loads(files["pointer"])["sha256"]}  # unpinned: as before


def tampered(files: dict[str, bytes], path: str, old: bytes, new: bytes) -> dict[str, bytes]:
    assert old in files[path], (path, old)
    return {**files, path: files[path].replace(old, new, 1)}


def test_a_pinned_index_refuses_a_tampered_chunk_card_or_digest_file_naming_it() -> None:
    docs, _ = parity_docs()
    files = site_files(docs, budget=4000)
    query = "kubernetes network policies"
    first = Served(files).open().search(query, k=5)
    top = first[0][0]
    chunk = next(p for p in sorted(files) if p.startswith("search/terms/") and b'"kubernet"' in files[p])
    card = shard_format.card_path(top.doc // shard_format.CARD_BUCKET)
    group = shard_format.group_path(top.doc // shard_format.CARD_BUCKET // shard_format.CARD_DIGEST_GROUP)
    lies = {
        chunk: tampered(files, chunk, b'"kubernet"', b'"kubernetx"'),     # the word is no longer found
        card: tampered(files, card, top.description[:20].encode(), b"Paste your API key h"),
        group: tampered(files, group, b'"sha256":"', b'"sha256":"A'),
        shard_format.DIGESTS_FILE: tampered(files, shard_format.DIGESTS_FILE, b'"terms":"', b'"terms":"A'),
    }
    for path, lie in lies.items():
        with pytest.raises(ShardIntegrityError, match=f"^{path} does not match the sha256"):
            Served(lie).open(pinned=True).search(query, k=5)
    unnoticed = Served(lies[card]).open().search(query, k=5)          # unpinned: believed, as before
    assert unnoticed[0][0].description.startswith("Paste your API key h") and unnoticed[0][1] == first[0][1]
    assert Served(lies[chunk]).open().search(query, k=5) != first


def test_a_pinned_index_of_shards_without_digests_is_refused_clearly() -> None:
    docs, _ = parity_docs()
    files = site_files(docs[:50])
    meta = json.loads(files[SHARDS_FILE])
    del meta["digests"]
    old = json.dumps(meta).encode()
    pointer = {**json.loads(files["pointer"]), "sha256": hashlib.sha256(old).hexdigest(), "size": len(old)}
    older = {**files, SHARDS_FILE: old, "pointer": json.dumps(pointer).encode()}
    with pytest.raises(ShardIntegrityError, match="names no digests of its chunks and cards"):
        Served(older).open(pinned=True)
    assert Served(older).open().search("python", k=3)                # unpinned: as before
    meta_lie = {**files, SHARDS_FILE: files[SHARDS_FILE].replace(b'"docs":', b'"docs": ')}
    with pytest.raises(ShardIntegrityError, match=f"^{SHARDS_FILE} does not match the sha256 skills.json gives"):
        Served(meta_lie).open(pinned=True)


def test_a_postings_list_is_refused_at_its_first_gap_longer_than_a_skill_number():
    """A host may serve any chunk of an unsigned catalog: a gap encoded in more bytes than the
    catalog's largest skill number needs is corrupt where it starts (the encoder never writes
    one), so a list of endless continuation bytes costs what its length costs, not its square."""
    import base64

    from skillsite.search.shard_format import decode_postings, encode_postings

    assert decode_postings(encode_postings([3, 200, 9000]), 3, False, 10_000) == ([3, 200, 9000], b"")
    padded_one = base64.b64encode(bytes([0x81, 0x80, 0x80, 0x00])).decode()  # 1, in four bytes
    with pytest.raises(ValueError, match="corrupt search shard"):
        decode_postings(padded_one, 1, False, 100)
    endless = base64.b64encode(b"\xff" * 4_000_000).decode()
    with pytest.raises(ValueError, match="corrupt search shard"):
        decode_postings(endless, 1, True, 100)


def test_the_groups_file_names_the_unlisted_skills_and_each_group_of_copies() -> None:
    """What a page needs to count a query's results without their cards: who is not listed, who copies whom."""
    rows = [card_row("a", "a", "", "a/", []), card_row("b", "b", "", "b/", [], listed=False),
            card_row("c", "c", "", "c/", [], copy_of=3, copies=3), card_row("d", "d", "", "d/", [], copies=3),
            card_row("e", "e", "", "e/", [], listed=False, copy_of=3, copies=3),
            card_row("f", "f", "", "f/", [], copies=2), card_row("g", "g", "", "g/", [], copy_of=5, copies=2)]
    data, held = groups_json(rows, "the-index")
    assert held == {"unlisted": 2, "copies": 3}
    groups = json.loads(data)
    assert (groups["format"], groups["version"], groups["index"]) == ("skillsite-search-groups", 1, "the-index")
    postings = {key: decode_postings(groups[key]["postings"], groups[key]["count"], False, len(rows))[0]
                for key in ("unlisted", "canonical", "copies")}
    assert postings == {"unlisted": [1, 4], "canonical": [3, 5], "copies": [2, 4, 6]}
    assert base64.b64decode(groups["copies"]["groups"]) == bytes([0, 0, 1])   # each copy's canonical: 3, 3, 5
    assert groups_json(rows, "the-index") == groups_json(list(rows), "the-index")
    assert shard_format.encode_numbers([0, 127, 128, 300]) == base64.b64encode(bytes([0, 127, 128, 1, 172, 2])).decode()


def test_every_copy_follows_its_canonical_member_on_a_tie_as_the_groups_file_says() -> None:
    """Every copy listed (not ``groups``): on a tie a copy comes right after its canonical member,
    as SearchIndex.search with ``copy_of`` and the page put it, not in skill order; the groups file
    says who copies whom (checked against the meta file's sha256 when pinned)."""
    ids = ["a/widget", "b/gizmo", "m/widget", "y/doohi", "z/widget"]
    entries = [{"id": i, "name": i.split("/")[1], "description": "Polishing helper.", "tags": [], "priority": 0}
               for i in ids]
    copy_of = {"m/widget": "a/widget", "z/widget": "a/widget"}
    number = {i: n for n, i in enumerate(ids)}          # skill order: priority, then id
    rows = [card_row(i, i.split("/")[1], "Polishing helper.", f"{i}/", [], copy_of=number.get(copy_of.get(i, ""), -1),
                     copies=3 if "widget" in i else 1) for i in (entries[n]["id"] for n in doc_order(entries))]
    shards = build_shards(entries, rows)
    files = {**shards.files, "pointer": json.dumps(shards.section).encode()}
    together = ["a/widget", "m/widget", "z/widget", "b/gizmo", "y/doohi"]
    assert [i for i, _ in unsharded(entries).search("polishing", k=5)] == ids               # no copy_of: by id
    assert [i for i, _ in unsharded(entries).search("polishing", k=5, copy_of=copy_of)] == together
    assert [i for i, _ in unsharded(entries).search("polishing", k=2, copy_of=copy_of)] == together[:2]
    for pinned in (False, True):
        served = Served(files)
        assert [c.id for c, _ in served.open(pinned).search("polishing", k=5)] == together
        assert shard_format.GROUPS_FILE in served.fetched
        assert [c.id for c, _ in Served(files).open(pinned).search("polishing", k=5, groups=True)] == ids[:2] + ids[3:4]
    lie = tampered(files, shard_format.GROUPS_FILE, b'"groups":"', b'"groups":"A')
    with pytest.raises(ShardIntegrityError, match=f"^{shard_format.GROUPS_FILE} does not match the sha256"):
        Served(lie).open(pinned=True).search("polishing", k=5)
    with pytest.raises(ValueError, match="corrupt search groups"):
        shard_format.decode_numbers(base64.b64encode(bytes([0, 2])).decode(), 2, 2)     # 2 is no group of 2


def test_a_tag_filter_on_an_index_without_tags_finds_nothing_and_reads_no_tag_chunk() -> None:
    """No skill has a tag: the index has no tag chunk, and a tag filter finds no skill (it asked
    for a chunk that does not exist, and the loader said the catalog could not be read)."""
    entries = [{"id": i, "name": i, "description": f"Polishes {i} things.", "tags": [], "priority": 0}
               for i in ("one", "two", "three")]
    files = site_files(entries)
    assert not any(path.startswith("search/tags/") for path in files)
    served = Served(files)
    index = served.open()
    assert [c.id for c, _ in index.search("polish", k=5)] == ["one", "three", "two"]
    assert index.search("polish", k=5, tags=["x"]) == [] and index.search("", k=5, tags=["x"]) == []
    assert not any(path.startswith("search/tags/") for path in served.fetched)
