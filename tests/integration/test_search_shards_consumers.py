"""A catalog forced into search shards (``shard_above: 1``) searches exactly as the same catalog
unsharded, through every consumer: skillsite.loader (local and over HTTP on 127.0.0.1, fetching
only the files a query needs, revalidating them, offline from its cache), ``skillsite search``
and ``skillsite mcp``'s search_skills; the build writes the shards deterministically, and small
catalogs keep their inline index and lunr files."""
from __future__ import annotations

import hashlib
import json
import random
import warnings
from pathlib import Path
from typing import Iterator

import pytest
from click.testing import CliRunner

from skillsite.cli import main
from skillsite.config import SiteConfig
from skillsite.loader import Catalog, CatalogFormatError, IntegrityError, StaleCatalogWarning, TrustError
from skillsite.publish.build import build
from support import EXAMPLES, SAMPLE, CountingServer, run_async_in_thread, tree_bytes

REPO = Path(__file__).resolve().parents[2]
AUDIT_FIXTURES = REPO / "tests" / "data" / "audit-fixtures"
QUERIES = ["find N+1 queries in my django app", "schedule posts to linked", "roll back a release",
           "audit mcp.json server configs for security holes", "write a failing test first", "deplo",
           "secrets", "curl pipe to shell", "kubernetes", "wibblewobble", "the of and", ""]


def built(source: Path, out: Path, shard_above: int) -> Path:
    result = build([source], out, SiteConfig(shard_above=shard_above), keep_going=True)
    assert result.ok and len(result.published) >= 10
    return out


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    """Per source tree: (the catalog as built by default, the same forced into shards)."""
    out = {}
    for name, source in (("sample", SAMPLE), ("examples", EXAMPLES), ("audit", AUDIT_FIXTURES)):
        root = tmp_path_factory.mktemp(name)
        out[name] = (built(source, root / "inline", 2000), built(source, root / "sharded", 1))
    return out


def queries_of(site: Path, count: int = 40) -> list[str]:
    """QUERIES and words of the catalog's own descriptions, some of them cut short."""
    rng = random.Random(4)
    words = [w for e in json.loads((site / "skills.json").read_text("utf-8"))["skills"]
             for w in e["description"].split()]
    return QUERIES + [" ".join(rng.choice(words)[:rng.choice((3, 5, 20))] for _ in range(rng.randint(1, 3)))
                      for _ in range(count)]


def test_the_sharded_build_has_shards_and_no_inline_index_or_lunr_files(pairs) -> None:
    inline, sharded = pairs["sample"]
    assert (inline / "search" / "lunr.json").is_file() and not (inline / "search" / "shards.json").exists()
    assert json.loads((inline / "skills.json").read_text("utf-8"))["search"]["version"] == 2
    section = json.loads((sharded / "skills.json").read_text("utf-8"))["search"]
    meta = (sharded / section["sharded"]).read_bytes()
    assert section == {"sharded": "search/shards.json", "sha256": hashlib.sha256(meta).hexdigest(), "size": len(meta)}
    assert not (sharded / "search" / "lunr.json").exists() and not (sharded / "search" / "docs.json").exists()
    assert sorted(p.name for p in (sharded / "search").iterdir()) == ["card-digests", "cards", "digests.json",
                                                                       "groups.json", "shards.json", "tags", "terms"]


def test_the_sharded_build_is_deterministic(pairs, tmp_path: Path) -> None:
    _, sharded = pairs["sample"]
    again = built(SAMPLE, tmp_path / "again", 1)
    assert tree_bytes(again / "search") == tree_bytes(sharded / "search")
    assert (again / "skills.json").read_bytes() == (sharded / "skills.json").read_bytes()


@pytest.mark.parametrize("name", ["sample", "examples", "audit"])
def test_the_loader_finds_the_same_results_with_the_same_scores(pairs, name: str) -> None:
    """Every risk limit, for models or not, with and without tags: the very same SearchResults."""
    inline, sharded = pairs[name]
    tags = sorted({t for e in json.loads((inline / "skills.json").read_text("utf-8"))["skills"] for t in e["tags"]})
    compared = found = 0
    for max_risk in ("none", "medium", "high"):
        a, b = Catalog.open(inline, max_risk=max_risk), Catalog.open(sharded, max_risk=max_risk)
        for query in queries_of(inline):
            for for_model in (False, True):
                expected = a.search(query, k=7, for_model=for_model)
                assert b.search(query, k=7, for_model=for_model) == expected, (max_risk, query, for_model)
                compared += 1
                found += bool(expected)
        for tag in tags[:8]:
            assert b.search("", k=50, tags=[tag]) == a.search("", k=50, tags=[tag]), tag
            assert b.search("code review", k=5, tags=[tag.upper()]) == a.search("code review", k=5, tags=[tag.upper()])
    assert compared > 300 and found > compared / 3


def test_risk_and_visibility_leave_out_the_same_skills(pairs) -> None:
    """The audit fixtures hold high-risk skills; examples hold hidden and user-invoked ones."""
    inline, sharded = pairs["audit"]
    everything = Catalog.open(sharded, max_risk="high").search("key secret token", k=50)
    careful = Catalog.open(sharded, max_risk="none").search("key secret token", k=50)
    assert len(careful) < len(everything)
    assert careful == Catalog.open(inline, max_risk="none").search("key secret token", k=50)
    inline, sharded = pairs["examples"]
    for_people = {r.id for r in Catalog.open(sharded).search("on-call handbook escalation", k=20)}
    for_models = {r.id for r in Catalog.open(sharded).search("on-call handbook escalation", k=20, for_model=True)}
    assert "internal-oncall-handbook" in for_people - for_models


def test_skillsite_search_prints_the_same_json(pairs) -> None:
    inline, sharded = pairs["sample"]
    runner = CliRunner()
    for query in QUERIES[:6]:
        args = ["search", "--json", "-k", "10", "--", query]
        a = runner.invoke(main, ["search", "--catalog", str(inline), *args[1:]])
        b = runner.invoke(main, ["search", "--catalog", str(sharded), *args[1:]])
        assert a.exit_code == b.exit_code == 0, b.output
        assert json.loads(b.output) == json.loads(a.output) and json.loads(a.output)
    tagged = runner.invoke(main, ["search", "--catalog", str(sharded), "--tag", "python", "testing"])
    assert tagged.exit_code == 0


def test_skillsite_mcp_search_skills_returns_the_same_hits(pairs) -> None:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    import os
    import sys

    async def hits(site: Path) -> list[str]:
        params = StdioServerParameters(command=sys.executable, args=["-m", "skillsite", "mcp", "--catalog", str(site)],
                                       env={"PYTHONPATH": str(REPO), "PATH": os.environ.get("PATH", ""),
                                            "XDG_CACHE_HOME": os.environ.get("XDG_CACHE_HOME", "")}, cwd=str(REPO))
        out = []
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                for query in QUERIES[:8]:
                    result = await session.call_tool("search_skills", {"query": query, "k": 10})
                    out.append("".join(getattr(b, "text", "") for b in result.content))
        return out

    inline, sharded = pairs["examples"]
    expected = run_async_in_thread(hits, inline)
    assert run_async_in_thread(hits, sharded) == expected
    assert any(json.loads(text) for text in expected)


# ---------------------------------------------------------------- over HTTP

@pytest.fixture
def served(pairs, tmp_path: Path) -> Iterator[CountingServer]:
    import shutil

    copy = tmp_path / "site"
    shutil.copytree(pairs["sample"][1], copy)
    server = CountingServer(copy)
    yield server
    server.stop()


def test_over_http_a_search_fetches_only_what_it_needs(served: CountingServer, pairs, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    local = Catalog.open(pairs["sample"][0])
    catalog = Catalog.open(served.url, cache_dir=cache, timeout=5)
    assert served.take_paths() == ["/skills.json"]
    chunks = len(json.loads((served.root / "search" / "shards.json").read_text("utf-8"))["terms"]["first"])
    assert chunks >= 3
    assert catalog.search("django queries", k=3) == local.search("django queries", k=3)
    first = served.take_paths()
    assert first[0] == "/search/shards.json"
    terms = [p for p in first if p.startswith("/search/terms/")]
    cards = [p for p in first if p.startswith("/search/cards/")]
    assert 1 <= len(terms) <= 2 < chunks and 1 <= len(cards) <= 3 and len(first) == 1 + len(terms) + len(cards)
    assert catalog.search("django queries", k=3) == local.search("django queries", k=3)
    assert served.take_paths() == []                                   # kept by the catalog
    # a new process: skills.json and the files are revalidated (304), the meta file is cached by its sha256
    again = Catalog.open(served.url, cache_dir=cache, timeout=5)
    assert again.search("django queries", k=3) == local.search("django queries", k=3)
    revalidated = served.take_paths()
    assert "/search/shards.json" not in revalidated and sorted(revalidated) == sorted(["/skills.json", *terms, *cards])


def test_offline_the_cached_files_answer(served: CountingServer, pairs, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    expected = Catalog.open(served.url, cache_dir=cache, timeout=5).search("roll back a release", k=5)
    assert expected == Catalog.open(pairs["sample"][0]).search("roll back a release", k=5)
    served.stop()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        offline = Catalog.open(served.url, cache_dir=cache, timeout=2)
        assert offline.status == "offline" and offline.search("roll back a release", k=5) == expected
    assert any(issubclass(w.category, StaleCatalogWarning) for w in caught)


def test_a_deploy_in_the_middle_of_a_search_is_an_error_not_a_mix(served: CountingServer, tmp_path: Path) -> None:
    catalog = Catalog.open(served.url, cache_dir=tmp_path / "cache", timeout=5)
    for chunk in (served.root / "search" / "terms").iterdir():
        data = json.loads(chunk.read_text("utf-8"))
        chunk.write_text(json.dumps({**data, "index": "0" * 64}), encoding="utf-8")
    with pytest.raises(IntegrityError, match="another build"):
        catalog.search("django queries")
    meta = served.root / "search" / "shards.json"
    meta.write_bytes(meta.read_bytes().replace(b'"docs":', b'"docs": '))
    with pytest.raises(IntegrityError, match="sha256"):
        Catalog.open(served.url, cache_dir=tmp_path / "other-cache", timeout=5).search("django")


@pytest.fixture(scope="module")
def signed_sharded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example catalog forced into shards and signed."""
    from skillsite.publish.signing import Signing, SigningKey, new_key_file

    folder = tmp_path_factory.mktemp("signed-shards")
    new_key_file(folder / "key.pem")
    signing = Signing(SigningKey.from_file(folder / "key.pem"))
    assert build([EXAMPLES], folder / "_site", SiteConfig(shard_above=1), signing=signing, cache_dir=None).ok
    return folder / "_site"


def _changed_search_file(site: Path, tmp: Path, change: str) -> Path:
    """A copy of ``site`` with one search file changed after the build: ``meta`` (shards.json,
    still valid JSON) or ``chunk`` (every term chunk, as one of another build)."""
    import shutil

    copy = Path(shutil.copytree(site, tmp / "changed"))
    files = [copy / "search" / "shards.json"] if change == "meta" else sorted((copy / "search" / "terms").iterdir())
    for path in files:
        data = json.loads(path.read_bytes())
        path.write_bytes(json.dumps({**data, "index": "0" * 64} if change == "chunk" else data, indent=1).encode())
    return copy


@pytest.mark.parametrize("change", ["meta", "chunk"])
@pytest.mark.parametrize("signed", [False, True], ids=["unsigned", "signed"])
def test_a_search_file_changed_after_the_build_is_an_integrity_error(pairs, signed_sharded: Path, tmp_path: Path,
                                                                     signed: bool, change: str) -> None:
    """As any other file changed on the host: it parses, but it is not the one published
    (its sha256, or the build it names, differs); a TrustError when the catalog is signed."""
    site = _changed_search_file(signed_sharded if signed else pairs["examples"][1], tmp_path, change)
    catalog = Catalog.open(site)
    assert (catalog.signed is not None) == signed
    with pytest.raises(TrustError if signed else IntegrityError, match="sha256|another build") as refused:
        catalog.search("roll back a release", k=3)
    assert not isinstance(refused.value, CatalogFormatError)


def test_a_meta_file_pinned_by_skills_json_that_is_not_json_is_a_format_error(pairs, tmp_path: Path) -> None:
    """What matches its recorded sha256 but is no search index at all is the catalog's format at fault."""
    import shutil

    site = Path(shutil.copytree(pairs["examples"][1], tmp_path / "site"))
    (site / "search" / "shards.json").write_bytes(b"<html>not an index</html>")
    edit = json.loads((site / "skills.json").read_bytes())
    edit["search"].update(sha256=hashlib.sha256(b"<html>not an index</html>").hexdigest(), size=25)
    (site / "skills.json").write_text(json.dumps(edit), "utf-8")
    with pytest.raises(CatalogFormatError, match="unusable search index.*not JSON"):
        Catalog.open(site).search("roll back a release", k=3)


def _hostile(site: Path, tmp: Path, kind: str) -> Path:
    """A copy of ``site`` as a hostile host could serve it (unsigned: it may re-pin what it changes)."""
    import shutil

    copy = Path(shutil.copytree(site, tmp / "hostile"))
    root = json.loads((copy / "skills.json").read_text("utf-8"))
    if kind == "an inline index with postings that are not base64":
        root["search"]["postings"] = ["!!!!" for _ in root["search"]["postings"]]
    elif kind == "an infinite priority":
        root["skills"][0]["priority"] = "INFINITE"
    elif kind == "every term chunk nested deeper than Python parses":
        for chunk in (copy / "search" / "terms").glob("*.json"):
            chunk.write_bytes(b"[" * 100_000 + b"]" * 100_000)
    else:  # cards in buckets of none: the meta file, re-pinned by the root
        meta = json.loads((copy / "search" / "shards.json").read_bytes())
        meta["cards"]["bucket"] = 0
        data = json.dumps(meta).encode()
        (copy / "search" / "shards.json").write_bytes(data)
        root["search"].update(sha256=hashlib.sha256(data).hexdigest(), size=len(data))
    (copy / "skills.json").write_text(json.dumps(root).replace('"INFINITE"', "1e999"), "utf-8")
    return copy


@pytest.mark.parametrize("kind", ["an inline index with postings that are not base64", "an infinite priority",
                                  "every term chunk nested deeper than Python parses", "cards in buckets of none"])
def test_a_hostile_search_index_is_an_unusable_index_not_an_internal_error(pairs, tmp_path: Path, kind: str) -> None:
    inline, sharded = pairs["examples"]
    site = _hostile(inline if kind.startswith(("an inline", "an infinite")) else sharded, tmp_path, kind)
    catalog = Catalog.open(site, cache_dir=tmp_path / "cache")
    with pytest.raises(CatalogFormatError, match="unusable search index"):
        catalog.search("roll back a release", k=3)


def test_tags_that_are_not_a_list_of_strings_are_the_caller_s_mistake(pairs) -> None:
    for site in pairs["examples"]:
        catalog = Catalog.open(site)
        for tags in ("git", [None]):
            with pytest.raises(TypeError, match="tags must be a list of strings"):
                catalog.search("release", tags=tags)


def test_a_query_of_megabytes_is_read_up_to_its_first_4000_characters(pairs) -> None:
    """An MCP client may send any query: only its start is read (its cost grew with its length,
    16 s of CPU for 8.8 MB), so results are those of that start."""
    from skillsite.agent.catalog_search import MAX_QUERY_CHARS

    start = ("roll back a release " * 400)[:MAX_QUERY_CHARS]
    for site in pairs["examples"]:
        catalog = Catalog.open(site)
        assert catalog.search(start + " kubernetes" * 500_000, k=5) == catalog.search(start, k=5)
