"""`skillsite validate`'s verdict cache: the same report as a run without it, and safe to keep
in a place an attacker can write to."""
from __future__ import annotations

import os
import pickle
import shutil

import pytest

from support import EXAMPLES, write_skill
from skillsite import pipeline
from skillsite.cache import BuildCache, load_signed, save_signed
from skillsite.diagnostics import format_json_report
from skillsite.pipeline import check_catalog, read_catalog


@pytest.fixture
def trusting_fresh_files(monkeypatch):
    """The tests' files are seconds old; normally that is too recent to cache them."""
    monkeypatch.setattr(pipeline, "RACY_NS", 0)


def report(check) -> str:
    return format_json_report(check.verdicts(), list(check.diagnostics), check.summary())


def check(src, cache_dir=None, **options):
    cache = BuildCache(cache_dir, "scope") if cache_dir else None
    result = check_catalog([src], cache=cache, **options)
    if cache:
        cache.save()
    return result, cache


def tree(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(EXAMPLES, src)
    write_skill(src, "broken", "name: broken\n")                      # left out
    write_skill(src, "dup", "name: code-review\ndescription: d\n")    # SK212 beside code-review
    write_skill(src, "linked", body="See [the guide](guide.md).\n")   # SK303: never cached
    return src


def test_check_catalog_reports_what_read_catalog_does(tmp_path):
    src = tree(tmp_path)
    reading = read_catalog([src])
    checked, _ = check(src)
    assert checked.verdicts() == reading.verdicts()
    assert checked.diagnostics == reading.diagnostics
    assert checked.summary() == reading.summary()
    assert checked.summary()["left_out"] == 1 and "SK212" in checked.summary()["by_code"]


@pytest.mark.parametrize("jobs", [1, 2])
def test_unchanged_skills_come_from_the_cache_and_the_report_is_the_same(tmp_path, trusting_fresh_files, jobs):
    src, cache_dir = tree(tmp_path), tmp_path / "cache"
    first, cache = check(src, cache_dir, jobs=jobs)   # keys made by the workers (nothing to look up)
    assert cache.hits == 0
    second, cache = check(src, cache_dir, jobs=jobs)  # keys made here, to look verdicts up
    skills = len(second.sources)
    assert cache.hits == skills - 1  # all but the one with a SK303
    assert report(second) == report(first) == report(check(src)[0])


def test_a_changed_skill_is_read_again_even_at_the_same_size(tmp_path, trusting_fresh_files):
    src, cache_dir = tree(tmp_path), tmp_path / "cache"
    check(src, cache_dir)
    skill_md = src / "dup" / "SKILL.md"
    text = skill_md.read_text()
    skill_md.write_text(text.replace("name: code-review", "name: code-reviex"))  # same size, no longer a dup
    after, cache = check(src, cache_dir)
    assert cache.misses >= 1
    assert report(after) == report(check(src)[0])
    assert "SK212" not in after.summary()["by_code"]


def test_a_new_skill_and_a_new_file_are_seen(tmp_path, trusting_fresh_files):
    src, cache_dir = tree(tmp_path), tmp_path / "cache"
    check(src, cache_dir)
    (src / "linked" / "guide.md").write_text("# Guide\n")
    write_skill(src, "more", "name: more\ndescription: d\nauthor: me\n")
    after, _ = check(src, cache_dir)
    assert report(after) == report(check(src)[0])
    assert "SK303" not in after.summary()["by_code"]


def test_profiles_and_limits_never_share_verdicts(tmp_path, trusting_fresh_files):
    src, cache_dir = tree(tmp_path), tmp_path / "cache"
    check(src, cache_dir, profile="default")
    spec, _ = check(src, cache_dir, profile="spec")
    assert report(spec) == report(check(src, profile="spec")[0])
    tiny, _ = check(src, cache_dir, max_bytes=100)
    assert report(tiny) == report(check(src, max_bytes=100)[0])
    assert "SK106" in tiny.summary()["by_code"]


def test_recently_changed_files_are_not_cached(tmp_path):
    src, cache_dir = tree(tmp_path), tmp_path / "cache"
    check(src, cache_dir)
    _, cache = check(src, cache_dir)
    assert cache.hits == 0  # every file is younger than pipeline.RACY_NS


def test_the_cli_keeps_its_cache_in_the_user_cache_folder(tmp_path):
    from click.testing import CliRunner

    from skillsite.cli import main

    src = tree(tmp_path)
    user_cache = tmp_path / "user-cache"
    runner = CliRunner(env={"XDG_CACHE_HOME": str(user_cache)})
    first = runner.invoke(main, ["validate", str(src), "--format", "json"])
    again = runner.invoke(main, ["validate", str(src), "--format", "json"])
    nocache = runner.invoke(main, ["validate", str(src), "--format", "json", "--no-cache",
                                   "--cache-dir", str(tmp_path / "unused")])
    assert first.exit_code == again.exit_code == nocache.exit_code == 1
    assert first.output == again.output == nocache.output
    assert list((user_cache / "skillsite" / "validate").glob("*.pickle"))
    assert (user_cache / "skillsite" / "cache-key").stat().st_mode & 0o077 == 0
    assert not (tmp_path / "unused").exists()
    assert not list(src.rglob(".skillsite-cache"))  # nothing written into the sources


def test_a_planted_or_forged_cache_file_is_never_unpickled(tmp_path, monkeypatch):
    marker = tmp_path / "pwned"
    payload = pickle.dumps(_Evil(str(marker)))
    target = tmp_path / "cache.pickle"
    target.write_bytes(payload)                                    # a plain pickle, no signature
    assert load_signed(target) is None
    save_signed(target, {"ok": 1})
    data = bytearray(target.read_bytes())
    data[-3] ^= 1                                                  # tampered after signing
    target.write_bytes(bytes(data))
    assert load_signed(target) is None
    monkeypatch.setenv("SKILLSITE_CACHE_KEY", "another user's key")
    save_signed(target, {"ok": 1})
    monkeypatch.setenv("SKILLSITE_CACHE_KEY", "my key")
    assert load_signed(target) is None                             # signed with someone else's key
    save_signed(target, _Evil(str(marker)))                        # even signed: only allowed classes
    assert load_signed(target) is None
    assert not marker.exists()
    save_signed(target, {"ok": (1, b"x")})
    assert load_signed(target) == {"ok": (1, b"x")}


class _Evil:
    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (os.mkdir, (self.path,))
