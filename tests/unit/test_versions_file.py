"""A skill's versions.json as the loader reads it (skillsite.agent.versions): untrusted input,
checked before anything it names is fetched."""
from __future__ import annotations

import copy
import hashlib
import json

import pytest

from skillsite.agent.errors import CatalogFormatError, IntegrityError
from skillsite.agent.release_digest import release_digest
from skillsite.agent.versions import parse_versions

SKILL_MD = hashlib.sha256(b"skill").hexdigest()
REF = hashlib.sha256(b"ref").hexdigest()
XML = hashlib.sha256(b"xml").hexdigest()


def release(version: str, **changes) -> dict:
    data = {"digest": release_digest([("SKILL.md", SKILL_MD), ("references/r.md", REF)]),
            "url": f"skills/lib/versions/{version}/", "commit": "a" * 40, "date": "2026-01-02T03:04:05+00:00",
            "dependencies": [{"name": "base", "id": "tools/base", "version": "~0.3", "resolved": "0.3.1"}],
            "files": [{"path": "SKILL.md", "sha256": SKILL_MD, "size": 5},
                      {"path": "references/r.md", "sha256": REF, "size": 3},
                      {"path": "skill.xml", "sha256": XML, "size": 3}]}
    data.update(changes)
    return data


GOOD = {"latest": "1.10.0", "versions": ["1.2.0", "1.10.0", "1.10.0-rc.1"],
        "releases": {v: release(v) for v in ("1.2.0", "1.10.0", "1.10.0-rc.1")}}


def parse(data: dict):
    return parse_versions(json.dumps(data).encode("utf-8"), "lib", "https://h/skills/lib/versions.json")


def test_a_good_file_gives_its_releases_oldest_first() -> None:
    history = parse(GOOD)
    assert history.versions == ("1.2.0", "1.10.0-rc.1", "1.10.0") and history.latest == "1.10.0"
    lib = history.releases["1.2.0"]
    assert [f.path for f in lib.skill_files] == ["SKILL.md", "references/r.md"]     # skill.xml is no part of it
    assert lib.dependencies[0].id == "tools/base" and lib.dependencies[0].range == "~0.3"
    assert lib.url == "skills/lib/versions/1.2.0/" and lib.commit == "a" * 40


def broken(change) -> dict:
    data = copy.deepcopy(GOOD)
    change(data)
    return data


@pytest.mark.parametrize("change, message", [
    (lambda d: d.pop("versions"), "is not a versions.json"),
    (lambda d: d.update(latest="9.9.9"), "latest '9.9.9' is not one of its versions"),
    (lambda d: d["versions"].append("v2"), "'v2' is not a canonical semantic version"),
    (lambda d: d["versions"].append("1.2.0"), "a version is listed twice"),
    (lambda d: d["releases"].pop("1.2.0"), "version 1.2.0 has no release record"),
    (lambda d: d["releases"]["1.2.0"].update(url="https://evil.example/x/"), "is not a site-relative URL"),
    (lambda d: d["releases"]["1.2.0"].update(url="../../../etc/"), "escapes its folder"),
    (lambda d: d["releases"]["1.2.0"].update(url="skills/lib/versions/1.2.0"), "is not a folder"),
    (lambda d: d["releases"]["1.2.0"]["files"][1].update(path="../../secrets"), "escapes its folder"),
    (lambda d: d["releases"]["1.2.0"]["files"][1].update(path="/etc/passwd"), "is absolute"),
    (lambda d: d["releases"]["1.2.0"]["files"].pop(0), "files must list SKILL.md"),
    (lambda d: d["releases"]["1.2.0"].pop("files"), "has no 'files' list"),
    (lambda d: d["releases"]["1.2.0"].update(digest="md5:1"), "is not sha256:<64 hex digits>"),
    (lambda d: d["releases"]["1.2.0"]["dependencies"][0].update(version="^^1"), "which does not parse"),
    (lambda d: d["releases"]["1.2.0"].update(dependencies=[{"name": "x"}]), "malformed dependencies"),
    (lambda d: d["releases"]["1.2.0"].update(commit=7), "'commit' is neither a string nor null"),
])
def test_a_malformed_file_is_refused_saying_what_is_wrong(change, message: str) -> None:
    with pytest.raises(CatalogFormatError, match=message.replace("(", r"\(").replace("^", r"\^")) as caught:
        parse(broken(change))
    assert str(caught.value).startswith("https://h/skills/lib/versions.json")


def test_a_digest_that_is_not_that_of_the_listed_files_is_an_integrity_error() -> None:
    data = broken(lambda d: d["releases"]["1.2.0"]["files"][1].update(sha256="0" * 64))
    with pytest.raises(IntegrityError, match="release 1.2.0: its digest sha256:[0-9a-f]{64} is not the digest of the "
                                             "files it lists"):
        parse(data)
    # skill.xml is published but outside the digest: changing its record changes nothing
    assert parse(broken(lambda d: d["releases"]["1.2.0"]["files"][2].update(sha256="1" * 64))).latest == "1.10.0"


def test_not_json_is_a_format_error() -> None:
    with pytest.raises(CatalogFormatError, match="is not valid JSON"):
        parse_versions(b"{", "lib", "versions.json")


@pytest.mark.parametrize("path", ["references/\udcff.md", "\ud800"])
def test_a_file_path_that_is_no_unicode_text_is_a_format_error(path: str) -> None:
    """JSON can hold a lone surrogate; such a path must be refused as a format error, not crash
    the digest (UnicodeEncodeError) or the install that would write it."""
    with pytest.raises(CatalogFormatError, match="is not valid Unicode text"):
        parse(broken(lambda d: d["releases"]["1.2.0"]["files"][1].update(path=path)))
