"""Every file the loader fetches is pinned by a digest from skills.json down: a versions.json by
its manifest entry (``versions_sha256``, ``versions_bytes``).  A tampered file is refused
(IntegrityError naming it); a catalog built before the digests reads as it always did, and a
loader that must pin every fetch (``_pin_all_fetches``) refuses what no digest names."""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from git_repo import GitRepo, skill_md
from skillsite.cli import main
from skillsite.loader import Catalog, IntegrityError
from support import CountingServer


# ---------------------------------------------------------------- versions.json


@pytest.fixture(scope="module")
def versioned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A built catalog whose skill ``a`` has releases 1.0.0, 1.1.0 and 2.0.0 (``b`` has none)."""
    root = tmp_path_factory.mktemp("versioned")
    repo = GitRepo(root / "repo")
    repo.write("skills/b/SKILL.md", skill_md("b", None).replace("does one thing well", "writes short poems"))
    for version in ("1.0.0", "1.1.0", "2.0.0"):
        repo.write("skills/a/SKILL.md", skill_md("a", version, body=f"Steps of {version}."))
        repo.commit(f"a {version}")
    result = CliRunner().invoke(main, ["build", str(repo.path / "skills"), "-o", str(root / "site"), "-q",
                                       "--no-cache"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return root / "site"


@pytest.fixture
def own_versioned(versioned: Path, tmp_path: Path) -> Path:
    copied = tmp_path / "site"
    shutil.copytree(versioned, copied)
    return copied


def roll_back(site: Path) -> None:
    """Rewrite a's versions.json as a host hiding its newest release would: 1.1.0 the latest."""
    path = site / "skills/a/versions.json"
    data = json.loads(path.read_text("utf-8"))
    data["versions"].remove("2.0.0")
    del data["releases"]["2.0.0"]
    data["latest"] = "1.1.0"
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def unpinned(site: Path) -> None:
    """The catalog as a build before versions_sha256 wrote it."""
    path = site / "skills.json"
    manifest = json.loads(path.read_text("utf-8"))
    for entry in manifest["skills"]:
        entry.pop("versions_sha256", None)
        entry.pop("versions_bytes", None)
    path.write_text(json.dumps(manifest), encoding="utf-8")


def test_the_entry_pins_the_versions_json_the_loader_reads(versioned: Path) -> None:
    entry = Catalog.open(versioned).entry("a")
    data = (versioned / "skills/a/versions.json").read_bytes()
    assert (entry["versions_sha256"], entry["versions_bytes"]) == (hashlib.sha256(data).hexdigest(), len(data))
    assert Catalog.open(versioned).versions("a") == ["1.0.0", "1.1.0", "2.0.0"]


def test_a_tampered_versions_json_is_refused_naming_it(own_versioned: Path) -> None:
    roll_back(own_versioned)
    catalog = Catalog.open(own_versioned)
    with pytest.raises(IntegrityError, match=r"versions.json of a \(skills/a/versions.json\) does not match"):
        catalog.versions("a")
    with pytest.raises(IntegrityError, match="versions.json of a"):
        catalog.load("a", "^1")
    assert catalog.versions("b") == [] and catalog.load("b").id == "b"


def test_over_http_a_tampered_versions_json_is_refused_and_a_sound_one_cached_by_its_digest(
        own_versioned: Path, tmp_path: Path) -> None:
    server = CountingServer(own_versioned)
    try:
        cache = tmp_path / "cache"
        assert Catalog.open(server.url, cache_dir=cache).versions("a") == ["1.0.0", "1.1.0", "2.0.0"]
        assert server.take_paths() == ["/skills.json", "/skills/a/versions.json"]
        assert Catalog.open(server.url, cache_dir=cache).versions("a") == ["1.0.0", "1.1.0", "2.0.0"]
        assert server.take_paths() == ["/skills.json"]              # the cache holds it by its sha256
        roll_back(own_versioned)
        with pytest.raises(IntegrityError, match="versions.json of a"):
            Catalog.open(server.url, cache_dir=tmp_path / "fresh-cache").versions("a")
    finally:
        server.stop()


def test_a_catalog_built_before_the_digest_reads_versions_json_as_before(own_versioned: Path) -> None:
    unpinned(own_versioned)
    roll_back(own_versioned)
    assert Catalog.open(own_versioned).versions("a") == ["1.0.0", "1.1.0"]      # nothing can tell


def test_a_loader_pinning_every_fetch_refuses_a_versions_json_no_digest_names(own_versioned: Path) -> None:
    pinned = Catalog.open(own_versioned)
    pinned._pin_all_fetches = True
    assert pinned.versions("a") == ["1.0.0", "1.1.0", "2.0.0"]
    unpinned(own_versioned)
    pinned = Catalog.open(own_versioned)
    pinned._pin_all_fetches = True
    with pytest.raises(IntegrityError, match="skills/a/versions.json: no digest in the catalog names this file"):
        pinned.versions("a")
    assert Catalog.open(own_versioned).versions("a") == ["1.0.0", "1.1.0", "2.0.0"]   # unpinned: as before
