"""skillsite.loader on hostile or malformed local catalogs: every problem is one of the
loader's own errors (CatalogFormatError, UnsafePathError, ...), never a raw Python exception."""
from __future__ import annotations

import copy
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any, Callable

import pytest

from skillsite.mcp.skills import SkillsIndex
from skillsite.agent.install import write_tree as _write_tree
from skillsite.loader import Catalog, CatalogFormatError, LoaderError, UnsafePathError
from skillsite.agent.release_digest import release_digest
from versioned_site import repin_versions

FIRST = "api-design-checklist"          # the example catalog's first entry: no children, risk none
PARENT, CHILD = "release-manager", "release-manager/changelog"

Change = Callable[[dict[str, Any]], None]


@pytest.fixture
def own_site(site: Path, tmp_path: Path) -> Path:
    """A copy of the example catalog as a catalog built without releases publishes it: the
    loader takes each skill's files from its manifest entry (the release path has tests of its
    own below)."""
    copied = tmp_path / "site"
    shutil.copytree(site, copied)
    edit_manifest(copied, lambda data: [drop_versions(entry) for entry in data["skills"]])
    return copied


def drop_versions(entry: dict[str, Any]) -> None:
    """The entry as a catalog without releases has it: no versions.json, nor its digest."""
    for key in ("versions_url", "versions_sha256", "versions_bytes"):
        entry.pop(key, None)


def edit_manifest(site: Path, change: Change) -> None:
    path = site / "skills.json"
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")))   # compact, as the build writes it


def edit_release(site: Path, skill_id: str, change: Callable[[list[dict[str, Any]]], None]) -> None:
    """Change the file list of a skill's current release in its versions.json."""
    path = site / "skills" / skill_id / "versions.json"
    data = json.loads(path.read_text())
    release = data["releases"][data["latest"]]
    change(release["files"])
    release["digest"] = release_digest((f["path"], f["sha256"]) for f in release["files"])   # a consistent lie
    path.write_text(json.dumps(data))
    repin_versions(site, skill_id)   # ... down from skills.json


def entry_of(data: dict[str, Any], skill_id: str) -> dict[str, Any]:
    return next(e for e in data["skills"] if e["id"] == skill_id)


def set_field(skill_id: str, key: str, value: Any) -> Change:
    return lambda data: entry_of(data, skill_id).update({key: value})


def set_requirement(key: str, value: Any) -> Change:
    return lambda data: entry_of(data, FIRST)["requirements"].update({key: value})


def nothing_written(dest: Path) -> bool:
    """Neither ``dest`` nor a staging folder beside it exists."""
    return not dest.exists() and not (dest.parent.exists() and any(
        ".tmp-" in p.name or ".old-" in p.name for p in dest.parent.iterdir()))


# ---- bug 1: every field the loader reads is checked in entry_problem

MALFORMED_FIELDS = [
    pytest.param(set_field(FIRST, "size", [1]), "size", id="size-list"),
    pytest.param(set_field(FIRST, "size", {"bytes": -5}), "size", id="size-negative"),
    pytest.param(set_field(FIRST, "size", {"bytes": "12"}), "size", id="size-string"),
    pytest.param(set_field(FIRST, "children", 5), "children", id="children-int"),
    pytest.param(set_field(FIRST, "children", [[1]]), "children", id="children-nested"),
    pytest.param(set_field(FIRST, "allowed-tools", 5), "allowed-tools", id="allowed-tools-int"),
    pytest.param(set_field(FIRST, "allowed-tools", "Read Bash"), "allowed-tools", id="allowed-tools-string"),
    pytest.param(set_field(FIRST, "visibility", {}), "visibility", id="visibility-empty"),
    pytest.param(set_field(FIRST, "visibility", {"hidden": "no", "user_invocable_only": False, "always": False}),
                 "visibility", id="visibility-not-bool"),
    pytest.param(set_field(FIRST, "priority", "high"), "priority", id="priority-string"),
    pytest.param(set_field(FIRST, "priority", None), "priority", id="priority-null"),
    pytest.param(set_requirement("bins", 5), "requirements", id="bins-int"),
    pytest.param(set_requirement("bins", "git"), "requirements", id="bins-string"),
    pytest.param(set_requirement("env", [[1]]), "requirements", id="env-nested"),
    pytest.param(set_requirement("platforms", "linux-only"), "requirements", id="platforms-string"),
    pytest.param(lambda d: entry_of(d, FIRST)["files"][0].update(bytes=-5), "files", id="file-bytes-negative"),
    pytest.param(set_field(FIRST, "tools", [{"name": ["Bash"], "purpose": "", "required": True}]), "tools",
                 id="tools-name-list"),
]


@pytest.mark.parametrize("change, field", MALFORMED_FIELDS)
def test_malformed_entry_fields_are_format_errors_everywhere(own_site: Path, change: Change, field: str) -> None:
    edit_manifest(own_site, change)
    catalog = Catalog.open(own_site)
    uses: list[Callable[[], object]] = [
        lambda: catalog.load(FIRST), lambda: catalog.resource(FIRST, catalog.skills[0]["files"][0]["path"]),
        lambda: catalog.prompt(), lambda: catalog.triggered("api"), lambda: catalog.skill_status(),
        lambda: catalog.skill_tool(), lambda: catalog.check_tools(FIRST, ["Read"], mode="ignore"),
        lambda: catalog.ineligible(FIRST),
    ]
    for use in uses:
        with pytest.raises(CatalogFormatError, match=f"{FIRST}.*{field}"):
            use()


@pytest.mark.parametrize("change, field", MALFORMED_FIELDS)
def test_the_skill_tool_answers_malformed_catalogs_with_an_error_text(own_site: Path, change: Change,
                                                                       field: str) -> None:
    edit_manifest(own_site, change)
    text = Catalog.open(own_site).call_skill_tool({"skill_name": "code-review"})
    assert text.startswith("Error:") and field in text and FIRST in text


def test_skills_index_leaves_out_an_entry_with_a_malformed_size(own_site: Path) -> None:
    edit_manifest(own_site, set_field(FIRST, "size", [1]))
    index = SkillsIndex(Catalog.open(own_site))
    assert FIRST not in index.by_id and "code-review" in index.by_id


def test_a_skill_whose_path_with_its_name_is_another_skill_s_id_is_served_at_its_id(tmp_path: Path) -> None:
    """``toolsx`` named ``toolkit`` holds the skill ``toolsx/toolkit``: its path with its name
    appended would be the other skill's, which skills/list then never showed and skills/get
    never reached. Both are served: the renamed one at its id."""
    from skillsite.publish.build import build

    for folder, name in (("toolsx", "toolkit"), ("toolsx/toolkit", "toolkit")):
        (tmp_path / "src" / folder).mkdir(parents=True)
        (tmp_path / "src" / folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: The {folder} skill, for a test of paths.\n---\n# {folder}\n")
    build([tmp_path / "src"], tmp_path / "site", keep_going=True)
    index = SkillsIndex(Catalog.open(tmp_path / "site"))
    assert index.skills == {"skill://toolsx/SKILL.md": "toolsx", "skill://toolsx/toolkit/SKILL.md": "toolsx/toolkit"}
    listed = [s["uri"] for s in index.list_page(None)["skills"]]
    assert listed == ["skill://toolsx/SKILL.md", "skill://toolsx/toolkit/SKILL.md"]
    assert index.get("skill://toolsx/toolkit/SKILL.md")["skill"]["frontmatter"]["description"].startswith(
        "The toolsx/toolkit skill")
    assert index.read("skill://toolsx/SKILL.md").startswith(b"---\nname: toolkit\ndescription: The toolsx skill")


def test_knowledge_record_with_a_negative_size_is_a_format_error(own_site: Path) -> None:
    """A malformed entry spoils only its own uses: the document comes through the other skill
    naming it, and is the entry's error when every skill naming it is malformed."""
    path = "runbooks/database-restore.md"
    edit_manifest(own_site, lambda d: entry_of(d, "incident-response")["knowledge"][0].update(size=-5))
    catalog = Catalog.open(own_site, max_risk="high")
    assert catalog.knowledge(path).startswith(b"#")  # prod-db-restore names it too
    edit_manifest(own_site, lambda d: next(k for k in entry_of(d, "prod-db-restore")["knowledge"]
                                           if k["path"] == path).update(size=-5))
    catalog = Catalog.open(own_site, max_risk="high")
    with pytest.raises(CatalogFormatError, match="incident-response.*knowledge"):
        catalog.knowledge(path)


def test_well_formed_optional_fields_may_be_absent(own_site: Path) -> None:
    def strip(data: dict[str, Any]) -> None:
        entry = entry_of(data, FIRST)
        for key in ("size", "children", "allowed-tools", "priority", "tools"):
            del entry[key]
        entry["requirements"] = {}
        del entry["visibility"]["user_invocable"]
    edit_manifest(own_site, strip)
    catalog = Catalog.open(own_site)
    assert catalog.load(FIRST).allowed_tools == () and FIRST in catalog.prompt(env={"PATH": ""})


# ---- bug 5: numbers too long to read


def test_a_number_too_long_to_read_is_a_format_error(own_site: Path) -> None:
    path = own_site / "skills.json"
    path.write_text(path.read_text().replace('"format_version":1', '"format_version":1' + "0" * 5000, 1))
    assert "0" * 5000 in path.read_text()
    with pytest.raises(CatalogFormatError, match="number"):
        Catalog.open(own_site)


# ---- bug 2: duplicate ids, unchecked child skills


def test_duplicate_ids_are_a_format_error(own_site: Path) -> None:
    def duplicate(data: dict[str, Any]) -> None:
        twin = copy.deepcopy(data["skills"][0])
        del twin["visibility"]
        data["skills"].append(twin)
    edit_manifest(own_site, duplicate)
    with pytest.raises(CatalogFormatError, match=f"duplicate.*{FIRST}"):
        Catalog.open(own_site)


@pytest.mark.parametrize("files", [None, "abc"], ids=["no-files", "files-string"])
def test_install_checks_each_child_before_using_it(own_site: Path, tmp_path: Path, files: Any) -> None:
    def change(data: dict[str, Any]) -> None:
        child = entry_of(data, CHILD)
        if files is None:
            del child["files"]
        else:
            child["files"] = files
    edit_manifest(own_site, change)
    catalog = Catalog.open(own_site)
    dest = tmp_path / "out" / "rm"
    with pytest.raises(CatalogFormatError, match=f"{CHILD}.*files"):
        catalog.install(PARENT, dest)
    assert nothing_written(dest)
    assert catalog.install(PARENT, dest, children=False).is_dir()   # the parent itself is fine


# ---- bug 3: paths that clash when installed


def add_file(skill_id: str, path: str, data: bytes = b"clash") -> Change:
    """Add a file to a skill's manifest entry, and drop its versions_url: an install of a
    versioned skill writes its release's files, not the entry's."""
    def change(manifest: dict[str, Any]) -> None:
        record = {"path": path, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        entry_of(manifest, skill_id)["files"].append(record)
        drop_versions(entry_of(manifest, skill_id))
    return change


@pytest.mark.parametrize("skill_id, path", [
    (FIRST, "references"),                         # a file where a folder of files goes
    (FIRST, "references/pagination.md/x"),         # a folder where a file goes
    (PARENT, "changelog"),                         # a file named like a child skill's folder
    (PARENT, "changelog/SKILL.md"),                # a file a child skill also writes
    (FIRST, "SKILL.md"),                           # a bundled file over SKILL.md
])
def test_install_refuses_clashing_paths_and_writes_nothing(own_site: Path, tmp_path: Path, skill_id: str,
                                                          path: str) -> None:
    edit_manifest(own_site, add_file(skill_id, path))
    catalog = Catalog.open(own_site)
    dest = tmp_path / "out" / "skill"
    with pytest.raises(CatalogFormatError, match="clash"):
        catalog.install(skill_id, dest)
    assert nothing_written(dest)


@pytest.mark.parametrize("path", [".git/config", "hooks/.git/hooks/post-checkout", ".GIT/config", ".g\u200cit/config",
                                  ".git. /config", "GIT~1/config", ".git", ".hg/hgrc", "a/.svn/entries", ".jj/repo",
                                  ".git::$INDEX_ALLOCATION/config", ".hg:x/hgrc"])
def test_install_refuses_a_file_in_a_version_control_folder_and_writes_nothing(own_site: Path, tmp_path: Path,
                                                                              path: str) -> None:
    """A catalog naming a file under .git (however a file system may spell it) would plant git's
    config or hooks in the installed skill: the next git command there runs them."""
    edit_manifest(own_site, add_file(FIRST, path, b"[core]\n\tfsmonitor = touch /tmp/pwned\n"))
    dest = tmp_path / "out" / "skill"
    with pytest.raises(LoaderError, match="version-control folder"):
        Catalog.open(own_site).install(FIRST, dest)
    assert nothing_written(dest)


@pytest.mark.parametrize("path", [".github/workflows/ci.yml", ".gitignore", "a.git/x", "gitlab/x", ".gitkeep"])
def test_names_near_a_version_control_folder_install(own_site: Path, tmp_path: Path, path: str) -> None:
    edit_manifest(own_site, add_file(FIRST, path, b"ok\n"))
    served = own_site / "skills" / FIRST / path
    served.parent.mkdir(parents=True, exist_ok=True)
    served.write_bytes(b"ok\n")
    dest = Catalog.open(own_site).install(FIRST, tmp_path / "out" / "skill")
    assert (dest / path).read_bytes() == b"ok\n"


def test_install_refuses_a_file_and_a_file_under_it(own_site: Path, tmp_path: Path) -> None:
    def change(data: dict[str, Any]) -> None:
        entry_of(data, FIRST)["files"] = [
            {"path": p, "bytes": 1, "sha256": hashlib.sha256(p.encode()).hexdigest()} for p in ("x", "x/y")]
        drop_versions(entry_of(data, FIRST))
    edit_manifest(own_site, change)
    with pytest.raises(CatalogFormatError, match="'x/y' clashes with 'x'"):
        Catalog.open(own_site).install(FIRST, tmp_path / "dest")
    assert nothing_written(tmp_path / "dest")


@pytest.mark.parametrize("files", [{"x": b"1", "x/y": b"2"}, {"x/y": b"2", "x": b"1"}])
def test_writing_a_tree_turns_clashes_into_unsafe_path_errors(tmp_path: Path, files: dict[str, bytes]) -> None:
    folder = tmp_path / "staging"
    folder.mkdir()
    with pytest.raises(UnsafePathError, match="clashes"):
        _write_tree(folder, files, tmp_path / "dest")


def test_no_malformed_field_escapes_as_a_raw_exception(own_site: Path, tmp_path: Path) -> None:
    """A sweep over odd values of every checked field: only loader errors, or success."""
    odd_values: list[Any] = [None, 5, -1, "x", [], [1], [[1]], {}, {"bytes": -1}, True]
    keys = ["size", "children", "allowed-tools", "visibility", "priority", "requirements", "files", "tools"]
    original = json.loads((own_site / "skills.json").read_text())
    for key in keys:
        for value in odd_values:
            data = copy.deepcopy(original)
            entry_of(data, FIRST)[key] = value
            (own_site / "skills.json").write_text(json.dumps(data))
            catalog = Catalog.open(own_site)
            for use in (lambda: catalog.load(FIRST), lambda: catalog.prompt(), lambda: catalog.triggered("api"),
                        lambda: catalog.skill_status(), lambda: catalog.install(FIRST, tmp_path / "d", True),
                        lambda: catalog.check_tools(FIRST, ["Read"], mode="ignore")):
                try:
                    use()
                except LoaderError:
                    pass
            assert catalog.call_skill_tool({"skill_name": FIRST}).startswith(("Error:", "<skill_content"))


@pytest.mark.parametrize("paths", [("x", "x/y"), ("references", "references/pagination.md/x"), ("SKILL.md",)])
def test_a_release_listing_clashing_paths_installs_nothing(site: Path, tmp_path: Path, paths: tuple[str, ...]) -> None:
    copied = tmp_path / "site"
    shutil.copytree(site, copied)
    edit_release(copied, FIRST, lambda files: files.extend(
        {"path": p, "sha256": hashlib.sha256(p.encode()).hexdigest(), "size": 1} for p in paths))
    dest = tmp_path / "out" / "skill"
    with pytest.raises(CatalogFormatError, match="clash"):
        Catalog.open(copied).install(FIRST, dest)
    assert nothing_written(dest)


def test_a_clash_found_while_writing_leaves_no_staging_folder(site: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from skillsite.agent.catalog_versions import Histories
    from skillsite.agent.install import Installer

    monkeypatch.setattr(Installer, "_install_files",
                        lambda self, entry, children: [("x", entry.id, lambda: b"1"), ("x/y", entry.id, lambda: b"2")])
    monkeypatch.setattr(Histories, "of", lambda self, skill_id: None)     # the current files, not a release
    dest = tmp_path / "dest"
    with pytest.raises(UnsafePathError, match="clashes"):
        Catalog.open(site).install(FIRST, dest)
    assert nothing_written(dest) and list(tmp_path.iterdir()) == []


def test_a_release_file_where_a_nested_skill_goes_is_a_clash(site: Path, tmp_path: Path) -> None:
    """A versioned skill installs its release's files and, at its latest version, its nested
    skills: a release listing a file a nested skill also writes must be refused, not silently
    replaced by the nested skill's file (the lock would record a digest the folder never had)."""
    own_site = tmp_path / "site"
    shutil.copytree(site, own_site)   # with its releases (the own_site fixture has none)
    path = own_site / "skills" / PARENT / "versions.json"
    data = json.loads(path.read_text())
    release = data["releases"][data["latest"]]
    release["files"].append({"path": "changelog/SKILL.md", "sha256": hashlib.sha256(b"clash").hexdigest(), "size": 5})
    release["digest"] = release_digest((f["path"], f["sha256"]) for f in release["files"] if f["path"] != "skill.xml")
    path.write_text(json.dumps(data))
    repin_versions(own_site, PARENT)
    (own_site / "skills" / PARENT / "versions" / data["latest"] / "changelog").mkdir(exist_ok=True)
    (own_site / "skills" / PARENT / "versions" / data["latest"] / "changelog" / "SKILL.md").write_bytes(b"clash")
    dest = tmp_path / "out" / "rm"
    with pytest.raises(CatalogFormatError, match="clash"):
        Catalog.open(own_site).install(PARENT, dest)
    assert nothing_written(dest)


@pytest.mark.parametrize("limit, value", [("MAX_INSTALL_FILES", 4), ("MAX_INSTALL_BYTES", 2000)])
def test_an_install_past_its_total_limit_is_refused_and_writes_nothing(own_site: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch,
                                                                       limit: str, value: int) -> None:
    """Each response is capped, and so is an install as a whole (it holds what it fetched until
    it writes it): a catalog listing many files, each under the cap, must not fill memory or disk.
    release-manager, with its nested skills, has more files and bytes than these limits."""
    from skillsite.agent import install_limits
    from skillsite.loader import TooLargeError

    from skillsite.agent.catalog_versions import Histories

    fetched = []
    real_release_file, real_resource = Histories.release_file, Catalog.resource
    monkeypatch.setattr(Histories, "release_file", lambda *a: fetched.append(a[-1]) or real_release_file(*a))
    monkeypatch.setattr(Catalog, "resource", lambda *a: fetched.append(a[-1]) or real_resource(*a))
    monkeypatch.setattr(install_limits, limit, value)
    dest = tmp_path / "out" / "skill"
    with pytest.raises(TooLargeError, match="in all; refusing it"):
        Catalog.open(own_site).install("release-manager", dest)
    assert nothing_written(dest)
    assert fetched == [] if limit == "MAX_INSTALL_FILES" else fetched   # too many files: refused before fetching
    monkeypatch.setattr(install_limits, limit, value * 1000)
    assert (Catalog.open(own_site).install("release-manager", dest) / "changelog" / "SKILL.md").is_file()
