"""skillsite.loader catalog access on local catalogs: open, search, load, resource, install, prompt."""
from __future__ import annotations

import json
import os
import re
import shutil
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillsite.loader import (Catalog, CatalogFormatError, DestinationExistsError, FetchError, IntegrityError,
                              NotFoundError, SearchIndex, SearchResult, UnsafePathError, UnsupportedVersionError,
                              current_platform, ineligible_reasons, skill_body)
from skillsite.source.parse import split_frontmatter
from versioned_site import repin_versions

HIDDEN = {"internal-oncall-handbook", "prod-db-restore"}
USER_ONLY = {"release-manager/version-bump/prerelease"}
FULL_ENV_BINS = ("docker", "dive", "kubectl", "jq", "curl")




@pytest.fixture(scope="module")
def catalog(site: Path) -> Catalog:
    return Catalog.open(site)


@pytest.fixture
def own_site(site: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    return copy


def edit_manifest(site: Path, change) -> None:
    path = site / "skills.json"
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    """A PATH folder with executables named like every binary the example skills require."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for name in FULL_ENV_BINS:
        exe = folder / name
        exe.write_text("#!/bin/sh\n")
        exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return folder


# ---- opening


def test_open_folder_file_and_pathlike(site: Path) -> None:
    for source in (site, str(site), site / "skills.json", str(site / "skills.json")):
        catalog = Catalog.open(source)
        assert catalog.status == "local" and not catalog.remote
        assert catalog.location == str(site / "skills.json") and len(catalog) == 13


@pytest.mark.parametrize("source", ["file:///etc/passwd", "ftp://example.org/skills.json",
                                    "data:application/json,{}", "gopher://x/skills.json"])
def test_non_http_schemes_are_refused(source: str) -> None:
    with pytest.raises(FetchError, match="refusing"):
        Catalog.open(source)


def test_missing_catalog_is_a_fetch_error(tmp_path: Path) -> None:
    with pytest.raises(FetchError, match="no such file"):
        Catalog.open(tmp_path / "nothing")


@pytest.mark.parametrize("text, message", [
    (b"", "not valid JSON"),
    (b'{"format": "skillsite-catalog", "format_', "truncated"),
    (b'{"format": "skillsite-catalog", "format_', r"\(Unterminated string starting at: line 1 column 33\)"),
    (b"[1, 2]", "top level is not an object"),
    (b'{"format": "mkdocs"}', "not a skillsite catalog"),
    (b'{"format": "skillsite-catalog", "format_version": "1"}', "not a positive integer"),
    (b'{"format": "skillsite-catalog", "format_version": 1, "skills": {}}', "'skills' is not a list"),
    (b'{"format": "skillsite-catalog", "format_version": 1, "skills": [{"id": "a"}]}', r"skills\[0\] has no name"),
    (b"\xff\xfe{}", "not UTF-8 JSON|not valid JSON"),
])
def test_bad_manifests_are_format_errors(tmp_path: Path, text: bytes, message: str) -> None:
    (tmp_path / "skills.json").write_bytes(text)
    with pytest.raises(CatalogFormatError, match=message):
        Catalog.open(tmp_path)


@pytest.mark.parametrize("encoding, message", [
    ("utf-16", "is not UTF-8 JSON"), ("utf-32", "is not UTF-8 JSON"),
    ("utf-16-be", "is not valid JSON"),  # no BOM: NUL bytes are UTF-8, and no JSON
])
def test_a_manifest_in_another_unicode_encoding_is_refused(own_site: Path, encoding: str, message: str) -> None:
    """JSON between systems is UTF-8 (RFC 8259); json.loads would guess UTF-16 or UTF-32 from bytes."""
    manifest = own_site / "skills.json"
    manifest.write_bytes(manifest.read_text("utf-8").encode(encoding))
    with pytest.raises(CatalogFormatError, match=message):
        Catalog.open(own_site)


def test_newer_format_version_names_the_supported_one(own_site: Path) -> None:
    edit_manifest(own_site, lambda d: d.update(format_version=3))
    with pytest.raises(UnsupportedVersionError, match="format_version 3.*supports format_version 2"):
        Catalog.open(own_site)


def test_entry_with_bad_digest_is_a_format_error(own_site: Path) -> None:
    edit_manifest(own_site, lambda d: d["skills"][0].update(sha256="not-hex"))
    catalog = Catalog.open(own_site)                 # entries are checked in full on first use
    with pytest.raises(CatalogFormatError, match="sha256"):
        catalog.load(catalog.skills[0]["id"])
    with pytest.raises(CatalogFormatError, match="sha256"):
        catalog.prompt()


def test_max_bytes_applies_to_local_files(site: Path) -> None:
    with pytest.raises(FetchError, match="over the limit"):
        Catalog.open(site, max_bytes=1000)


# ---- lookup and search


def test_entry_by_id_and_by_name(catalog: Catalog) -> None:
    assert catalog.entry("release-manager/changelog")["name"] == "changelog"
    assert catalog.entry("changelog")["id"] == "release-manager/changelog"
    assert "changelog" in catalog and "nope" not in catalog
    with pytest.raises(NotFoundError, match="no skill 'nope'"):
        catalog.entry("nope")



#: Unicode ids as folders spell them: NFC (as Linux keeps a typed name), NFD (as macOS spells
#: folders), and two published ids that are the same text in Unicode (U+1EC7 and e + U+0323 U+0302).
ACCENTED, DECOMPOSED = "caf\u00e9/accented", "cv/re\u0301sume\u0301"
#: A Japanese id: Han, kana and fullwidth brackets, as Japanese names are written.
JAPANESE = "\u65e5\u672c\u8a9e/\u30c7\u30fc\u30bf\uff08\u5206\u6790\uff09"
TWINS = ("twin/\u1ec7", "twin/e\u0323\u0302")


@pytest.fixture(scope="module", params=["whole", "paged"])
def unicode_catalog(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    from skillsite.config import SiteConfig
    from skillsite.publish.build import build

    src = tmp_path_factory.mktemp("unicode") / "src"
    for skill_id in (ACCENTED, DECOMPOSED, JAPANESE, *TWINS, "plain"):
        name = skill_id.rsplit("/", 1)[-1]
        (src / skill_id).mkdir(parents=True)
        (src / skill_id / "SKILL.md").write_text(f"---\nname: {name}\ndescription: The {name} skill. Use when "
                                                 f"testing Unicode ids.\n---\n# {name}\n\nBody of {skill_id}.\n",
                                                 "utf-8")
    out = src.parent / "_site"
    config = SiteConfig(shard_above=2) if request.param == "paged" else SiteConfig()
    assert build([src], out, config, keep_going=True).ok
    # at the default max_risk: neither decomposed accents nor Japanese are a deceptive name (SK606)
    return Catalog.open(out)


def test_an_id_or_name_in_another_unicode_spelling_finds_its_skill(unicode_catalog: Catalog) -> None:
    import unicodedata

    catalog = unicode_catalog
    assert {e.id for e in catalog.entries} == {ACCENTED, DECOMPOSED, JAPANESE, *TWINS, "plain"}
    for skill_id in (ACCENTED, DECOMPOSED, JAPANESE):
        for form in ("NFC", "NFD"):
            spelt = unicodedata.normalize(form, skill_id)
            assert catalog.load(spelt).id == skill_id and catalog.manifest_entry(spelt).id == skill_id
            assert spelt in catalog and catalog.resource(spelt, "SKILL.md").endswith(f"{skill_id}.\n".encode())
    name = DECOMPOSED.rsplit("/", 1)[-1]
    assert catalog.load(unicodedata.normalize("NFC", name)).id == DECOMPOSED      # by name, in the other spelling


def test_two_published_ids_that_are_one_in_unicode_are_found_exactly_or_refused(unicode_catalog: Catalog) -> None:
    """Each twin is found by its own spelling; a third spelling of both is ambiguous: refused,
    never taken for one of them."""
    catalog = unicode_catalog
    for skill_id in TWINS:
        assert catalog.load(skill_id).id == skill_id
    third = "twin/\u00ea\u0323"
    assert third not in TWINS
    ambiguous = r"^'twin/\\xea\\u0323' is the Unicode text of several skills' ids"
    with pytest.raises(NotFoundError, match=ambiguous) as refused:
        catalog.load(third)
    assert all(ascii(skill_id) in str(refused.value) for skill_id in TWINS) and "exactly" in str(refused.value)
    with pytest.raises(NotFoundError, match="shared by skills"):
        catalog.load(third.split("/")[1])

def test_search_ranks_exactly_as_the_search_index(catalog: Catalog) -> None:
    index = SearchIndex.from_manifest(catalog.manifest)
    for query in ("release", "review a pull request", "docker image too large", "incident outage", "zzz"):
        results = catalog.search(query, k=4)
        assert [(r.id, r.score) for r in results] == index.search(query, k=4)
        assert all(isinstance(r, SearchResult) and r.name and r.description for r in results)
    tagged = catalog.search("review", k=10, tags=["api"])
    assert [r.id for r in tagged] == [i for i, _ in index.search("review", k=10, tags=["api"])]


def test_search_for_a_model_leaves_out_what_is_never_offered_to_models(catalog: Catalog) -> None:
    withheld = {e["id"] for e in catalog.manifest["skills"]
                if e["visibility"]["hidden"] or e["visibility"]["user_invocable_only"]}
    assert "internal-oncall-handbook" in withheld
    everyone = catalog.search("on-call escalation hand-over paging", k=20)
    assert everyone[0].id == "internal-oncall-handbook"          # people may still find it
    for_model = catalog.search("on-call escalation hand-over paging", k=20, for_model=True)
    assert for_model and not {r.id for r in for_model} & withheld
    assert [r.id for r in for_model] == [r.id for r in everyone if r.id not in withheld][:20]
    tagged = catalog.search("", k=50, tags=["release"], for_model=True)
    assert not {r.id for r in tagged} & withheld


def test_search_matches_the_cli(catalog: Catalog, site: Path) -> None:
    from click.testing import CliRunner

    from skillsite.cli import main
    result = CliRunner().invoke(main, ["search", "roll back a release", "--catalog", str(site), "-k", "5", "--json"])
    assert result.exit_code == 0, result.output
    cli = [(r["id"], r["score"]) for r in json.loads(result.output)]
    assert cli == [(r.id, r.score) for r in catalog.search("roll back a release", k=5)]


# ---- load


def test_load_gives_body_resources_sub_skills_and_xml(catalog: Catalog, site: Path) -> None:
    skill = catalog.load("release-manager")
    assert skill.id == skill.name == "release-manager"
    assert skill.body.startswith("\n# Release manager") or skill.body.startswith("# Release manager")
    assert "---" not in skill.body.splitlines()[0]
    assert "references/rollback.md" in skill.resources
    assert [s.id for s in skill.sub_skills] == ["release-manager/changelog", "release-manager/version-bump"]
    assert skill.location == str(site / "skills" / "release-manager" / "SKILL.md")
    assert skill.base_url == str(site / "skills" / "release-manager") + os.sep
    assert skill.xml.startswith('<skill_content name="release-manager" id="release-manager">')
    assert "Bash(git:*)" in skill.allowed_tools
    assert skill.raw == (site / "skills/release-manager/SKILL.md").read_bytes()


def test_loaded_xml_is_the_published_fragment_with_an_absolute_base(catalog: Catalog, site: Path) -> None:
    for entry in catalog.skills:
        published = (site / "skills" / entry["id"] / "skill.xml").read_text("utf-8")
        loaded = catalog.load(entry["id"]).xml
        assert strip_locations(loaded, site) == strip_locations(published, site), entry["id"]


def strip_locations(xml: str, site: Path) -> str:
    """A fragment without its base URL, and with knowledge document URLs relative to the site."""
    return re.sub(r"<base_url>.*?</base_url>", "", xml, count=1).replace(f">{site}{os.sep}knowledge/", ">knowledge/")


def test_knowledge_documents_are_listed_on_load_and_verified(catalog: Catalog, site: Path) -> None:
    xml = catalog.load("sql-migration-review").xml
    assert '<doc path="databases/lock-matrix.md" title="PostgreSQL lock matrix">' in xml
    assert "load on demand" in xml
    doc = catalog.knowledge("databases/lock-matrix.md")
    assert doc == (site / "knowledge/databases/lock-matrix.md").read_bytes()
    with pytest.raises(NotFoundError):
        catalog.knowledge("databases/no-such.md")


def test_tampered_local_skill_md_is_refused(own_site: Path) -> None:
    path = own_site / "skills/test-first/SKILL.md"
    path.write_bytes(path.read_bytes().replace(b"test", b"tset", 1))
    with pytest.raises(IntegrityError, match="does not match the catalog") as info:
        Catalog.open(own_site).load("test-first")
    assert info.value.expected != info.value.actual


def test_missing_local_file_is_a_fetch_error(own_site: Path) -> None:
    (own_site / "skills/test-first/SKILL.md").unlink()
    with pytest.raises(FetchError):
        Catalog.open(own_site).load("test-first")


def test_manifest_urls_may_not_leave_the_site(own_site: Path) -> None:
    edit_manifest(own_site, lambda d: d["skills"][0]["urls"].update(skill_md="../../etc/passwd"))
    catalog = Catalog.open(own_site)
    with pytest.raises(CatalogFormatError, match="escapes"):
        catalog.load(catalog.skills[0]["id"])
    edit_manifest(own_site, lambda d: d["skills"][0]["urls"].update(skill_md="http://evil.example/SKILL.md"))
    with pytest.raises(CatalogFormatError, match="not a site-relative URL"):
        Catalog.open(own_site).load(catalog.skills[0]["id"])


# ---- resources


def test_resource_returns_verified_bytes(catalog: Catalog, site: Path) -> None:
    data = catalog.resource("api-design-checklist", "references/pagination.md")
    assert data == (site / "skills/api-design-checklist/references/pagination.md").read_bytes()
    assert catalog.resource("api-design-checklist", "./references//pagination.md") == data
    assert catalog.resource("test-first", "SKILL.md") == catalog.load("test-first").raw


@pytest.mark.parametrize("path", ["../house-style/SKILL.md", "/etc/passwd", "references/../../x",
                                  "..", "", "C:/Windows/win.ini", "references\\..\\..\\x", "a\x00b"])
def test_resource_refuses_escaping_paths(catalog: Catalog, path: str) -> None:
    with pytest.raises(UnsafePathError):
        catalog.resource("api-design-checklist", path)


def test_resource_must_be_listed(catalog: Catalog) -> None:
    with pytest.raises(NotFoundError, match="no bundled file"):
        catalog.resource("api-design-checklist", "skill.xml")


def test_tampered_resource_is_refused(own_site: Path) -> None:
    (own_site / "skills/api-design-checklist/references/pagination.md").write_text("cursor? no.\n")
    with pytest.raises(IntegrityError):
        Catalog.open(own_site).resource("api-design-checklist", "references/pagination.md")


# ---- install


def test_install_writes_the_skill_and_its_sub_skills(catalog: Catalog, site: Path, tmp_path: Path) -> None:
    dest = catalog.install("release-manager", tmp_path / ".agents" / "skills" / "release-manager")
    written = sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file())
    assert "SKILL.md" in written and "references/rollback.md" in written
    assert "version-bump/prerelease/SKILL.md" in written and "changelog/SKILL.md" in written
    assert "skill.xml" not in written and "index.html" not in written
    for rel in written:
        assert (dest / rel).read_bytes() == (site / "skills/release-manager" / rel).read_bytes()
    assert sorted(p.name for p in dest.parent.iterdir()) == ["release-manager"]  # no staging left


def test_an_installed_folder_is_made_as_mkdir_makes_folders(catalog: Catalog, tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        dest = catalog.install("test-first", tmp_path / "shared" / "test-first")
    finally:
        os.umask(old)
    assert stat.S_IMODE(dest.stat().st_mode) == 0o755  # readable by others, like its sub-folders
    assert stat.S_IMODE((dest / "SKILL.md").stat().st_mode) == 0o644


def test_install_without_children(catalog: Catalog, tmp_path: Path) -> None:
    dest = catalog.install("release-manager", tmp_path / "rm", children=False)
    assert not (dest / "version-bump").exists() and (dest / "scripts/check_release_ready.py").is_file()


def test_install_never_overwrites_without_permission(catalog: Catalog, tmp_path: Path) -> None:
    dest = tmp_path / "skill"
    dest.mkdir()
    (dest / "mine.txt").write_text("keep me")
    with pytest.raises(DestinationExistsError, match="overwrite=True"):
        catalog.install("test-first", dest)
    assert (dest / "mine.txt").read_text() == "keep me"
    catalog.install("test-first", dest, overwrite=True)
    assert not (dest / "mine.txt").exists() and (dest / "SKILL.md").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["skill"]


def test_install_refuses_a_symlink_destination_without_overwrite(catalog: Catalog, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "link").symlink_to(elsewhere)
    with pytest.raises(DestinationExistsError):
        catalog.install("test-first", tmp_path / "link")
    catalog.install("test-first", tmp_path / "link", overwrite=True)
    assert not (tmp_path / "link").is_symlink() and list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("where", ["entry", "release"])
def test_install_refuses_escaping_file_paths_and_writes_nothing(own_site: Path, tmp_path: Path, where: str) -> None:
    poisoned = {"path": "../../escaped.txt", "bytes": 1, "sha256": "0" * 64}

    def poison(data: dict) -> None:
        entry = next(e for e in data["skills"] if e["id"] == "test-first")
        entry["files"].append(poisoned)
        if where == "entry":   # the skill as a catalog without releases lists it
            for key in ("versions_url", "versions_sha256", "versions_bytes"):
                del entry[key]
    edit_manifest(own_site, poison)
    if where == "release":     # its current release, as versions.json lists it
        versions = own_site / "skills/test-first/versions.json"
        data = json.loads(versions.read_text())
        data["releases"][data["latest"]]["files"].append({"path": "../../escaped.txt", "sha256": "0" * 64,
                                                           "size": 1})
        versions.write_text(json.dumps(data))
        repin_versions(own_site, "test-first")   # the host rewrote skills.json's digest of it too
    dest = tmp_path / "out" / "test-first"
    refused = UnsafePathError if where == "entry" else CatalogFormatError   # versions.json: refused as it is read
    with pytest.raises(refused, match="escape"):
        Catalog.open(own_site).install("test-first", dest)
    assert not dest.exists() and not (tmp_path / "escaped.txt").exists()
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_install_of_tampered_skill_writes_nothing(own_site: Path, tmp_path: Path) -> None:
    (own_site / "skills/release-manager/version-bump/scripts/bump.py").write_text("import os\n")
    dest = tmp_path / "rm"
    with pytest.raises(IntegrityError):
        Catalog.open(own_site).install("release-manager", dest)
    assert not dest.exists() and [p.name for p in tmp_path.iterdir()] == ["site"]


# ---- prompt


def names_in(block: str) -> list[str]:
    return re.findall(r"<name>(.*?)</name>", block)


def test_prompt_lists_only_eligible_visible_skills_always_first(catalog: Catalog) -> None:
    block = catalog.prompt(env={"PATH": ""}, platform="linux")
    names = names_in(block)
    assert block.startswith("<available_skills>") and block.endswith("</available_skills>\n")
    assert names[0] == "house-style"
    assert not {"internal-oncall-handbook", "prod-db-restore", "prerelease"} & set(names)
    assert not {"docker-image-slimming", "incident-response"} & set(names)
    assert "2 skills not eligible here" in block


def test_prompt_with_requirements_met(catalog: Catalog, bin_dir: Path) -> None:
    env = {"PATH": str(bin_dir), "PAGERDUTY_API_TOKEN": "x", "GRAFANA_URL": "https://g"}
    names = names_in(catalog.prompt(env=env, platform="linux"))
    assert {"docker-image-slimming", "incident-response"} <= set(names)
    assert len(names) == 13 - len(HIDDEN) - len(USER_ONLY)
    assert "<notice>" not in catalog.prompt(env=env, platform="linux")
    windows = names_in(catalog.prompt(env=env, platform="windows"))
    assert "docker-image-slimming" not in windows and "incident-response" in windows
    assert "incident-response" not in names_in(catalog.prompt(env={**env, "GRAFANA_URL": ""}, platform="linux"))


def test_prompt_locations_are_absolute(catalog: Catalog, site: Path) -> None:
    for location in re.findall(r"<location>(.*?)</location>", catalog.prompt(env={"PATH": ""})):
        assert os.path.isabs(location) and Path(location).is_file()


@pytest.mark.parametrize("budget", [39, 60, 200, 400, 777, 1500, 2400, 3000, 5000, 30000])
def test_prompt_never_exceeds_its_budget(catalog: Catalog, budget: int) -> None:
    block = catalog.prompt(budget=budget, env={"PATH": ""})
    assert block.startswith("<available_skills") and len(block) <= budget


def test_prompt_budget_too_small(catalog: Catalog) -> None:
    with pytest.raises(ValueError, match="budget"):
        catalog.prompt(budget=10)


def test_prompt_notice_counts_skills_left_out_for_the_budget(catalog: Catalog) -> None:
    block = catalog.prompt(budget=1200, env={"PATH": ""})
    listed = len(names_in(block))
    visible_eligible = 13 - len(HIDDEN) - len(USER_ONLY) - 2
    assert f"{visible_eligible - listed} more skill" in block


def test_eligibility_reasons(catalog: Catalog, bin_dir: Path) -> None:
    reasons = catalog.ineligible("incident-response", env={"PATH": ""})
    assert "needs 'kubectl' on PATH" in reasons and "needs $GRAFANA_URL set" in reasons
    assert ineligible_reasons(catalog.manifest_entry("docker-image-slimming"), {"PATH": str(bin_dir)}, "windows") == [
        "runs on linux, darwin, not windows"]
    assert current_platform("linux") == "linux" and current_platform("win32") == "windows"
    assert current_platform("darwin") == "darwin"


# ---- the body rule is the build's


_LINE = st.sampled_from(["---", "--- ", "---\t", " ---", "----", "name: x", "description: y", "", "body",
                         "text with --- inside", "\u2028", "\x0c", "é"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINE, max_size=12), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_skill_body_matches_the_parser(lines: list[str], newline: str, bom: bool) -> None:
    text = newline.join(lines)
    raw = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")
    try:
        split = split_frontmatter(text)
    except Exception:  # unclosed frontmatter: the build never publishes it
        return
    if split is not None:
        assert skill_body(raw) == split[2]


def test_a_named_pipe_in_a_local_catalog_is_an_error_not_a_wait(own_site: Path) -> None:
    """A catalog folder unpacked from anywhere may hold a named pipe where a file should be:
    opening it for reading would wait for a writer forever (``show`` and ``mcp`` hung)."""
    import threading

    skill_md = own_site / "skills" / "code-review" / "SKILL.md"
    skill_md.unlink()
    os.mkfifo(skill_md)
    outcome: list[BaseException] = []

    def load() -> None:
        try:
            Catalog.open(own_site).load("code-review")
        except BaseException as exc:  # what the load raised, for the assertions below
            outcome.append(exc)

    worker = threading.Thread(target=load, daemon=True)
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), "the load is still waiting on the pipe"
    assert len(outcome) == 1 and isinstance(outcome[0], FetchError) and "not a regular file" in str(outcome[0])


@pytest.mark.parametrize("source", [None, b"http://127.0.0.1/skills.json", 7])
def test_a_source_that_is_no_url_and_no_path_is_a_type_error(source: object) -> None:
    """str() of None or of bytes named a folder (``./None/skills.json``): a caller's mistake read as
    a missing catalog."""
    with pytest.raises(TypeError, match="a catalog is a URL or a path"):
        Catalog.open(source)  # type: ignore[arg-type]


@pytest.mark.parametrize("timeout", [0, -1.0, float("inf"), float("nan"), 1e300])
def test_a_timeout_no_timer_takes_is_a_value_error(site: Path, timeout: float) -> None:
    with pytest.raises(ValueError, match="timeout must be above 0 and at most 86400 seconds"):
        Catalog.open(site, timeout=timeout)


def test_trusted_keys_may_be_one_text(site: Path) -> None:
    """One text of keys, as ``allowed_hosts`` takes one host: it was split into its characters
    (``key 'e' ...``); now it pins the key, and this unsigned catalog is refused as with a list."""
    from skillsite.loader import TrustError

    key = "ed25519:" + "A" * 43 + "="
    with pytest.raises(TrustError) as as_text:
        Catalog.open(site, trusted_keys=key)
    with pytest.raises(TrustError) as as_list:
        Catalog.open(site, trusted_keys=[key])
    assert str(as_text.value) == str(as_list.value)
