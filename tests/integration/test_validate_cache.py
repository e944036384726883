"""`skillsite validate`'s verdict cache: the same report as a run without it, and safe to keep
that never runs code when read."""
from __future__ import annotations

import shutil
import sqlite3

import pytest

from support import EXAMPLES, write_skill
from skillsite.cache import Cache
from skillsite.source import catalog as source_catalog
from skillsite.diagnostics import format_json_report
from skillsite.source.catalog import check_catalog, read_catalog

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)


@pytest.fixture
def trusting_fresh_files(monkeypatch):
    """The tests' files are seconds old; normally that is too recent to cache them."""
    monkeypatch.setattr(source_catalog, "RACY_NS", 0)


def report(check) -> str:
    return format_json_report(check.verdicts(), list(check.diagnostics), check.summary())


def check(src, cache_dir=None, **options):
    cache = Cache(cache_dir / "verdicts.sqlite", "scope") if cache_dir else None
    result = check_catalog([src], cache=cache, **options)
    if cache:
        cache.save()
    return result, cache


def tree(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(EXAMPLES, src)
    write_skill(src, "broken", "name: broken\n")                      # left out
    write_skill(src, "dup", "name: code-review\ndescription: d\n")    # SK212 beside code-review
    write_skill(src, "linked", body="See [the guide](guide.md).\n")   # SK303
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
    first, cache = check(src, cache_dir, jobs=jobs)
    assert cache.hits == 0
    second, cache = check(src, cache_dir, jobs=jobs)
    skills = len(second.sources)
    assert cache.hits == skills + 1  # every verdict, and the look-alike pairs
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


@pytest.mark.parametrize("reader", ["validate", "build"])
def test_a_missing_files_wording_follows_files_no_key_covers(tmp_path, trusting_fresh_files, reader):
    """A link's target appearing as a symlink that leaves the skill folder is not a file of the
    skill (no cache key changes), but it changes what SK303 says: the cached verdict is not reused."""
    src, cache_dir = tree(tmp_path), tmp_path / "cache"

    def run():
        if reader == "validate":
            return check(src, cache_dir)[0].diagnostics
        cache = Cache(cache_dir / "skills.sqlite", "scope")
        diags = read_catalog([src], cache=cache).diagnostics
        cache.save()
        return diags

    def sk303(diags):
        return [d.message for d in diags if d.code == "SK303"]

    assert sk303(run()) == sk303(run()) == ["link 'guide.md' points to a file that does not exist in the skill folder"]
    (tmp_path / "outside.md").write_text("# Outside\n")
    (src / "linked" / "guide.md").symlink_to(tmp_path / "outside.md")
    assert sk303(run()) == ["link 'guide.md' points to a file that is not published with the skill "
                            "(a symlink leaving the skill folder)"]
    assert sk303(run()) == sk303(read_catalog([src]).diagnostics)


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
    assert cache.hits == 1  # the look-alike pairs only: no verdict, every file is younger than RACY_NS


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
    assert list((user_cache / "skillsite" / "validate").glob("*.sqlite"))
    assert not (tmp_path / "unused").exists()
    assert not list(src.rglob(".skillsite-cache"))  # nothing written into the sources


def test_a_damaged_or_foreign_cache_file_is_ignored_with_a_note(tmp_path, trusting_fresh_files):
    src, cache_dir = tree(tmp_path), tmp_path / "cache"
    expected = report(check(src)[0])
    cache_dir.mkdir()
    (cache_dir / "verdicts.sqlite").write_bytes(b"not a database at all" * 100)
    damaged, cache = check(src, cache_dir)
    assert [d.code for d in damaged.diagnostics if d.code == "SK402"] == ["SK402"]
    assert damaged.summary()["infos"] == check(src)[0].summary()["infos"] + 1
    _, cache = check(src, cache_dir)            # replaced by a good file on save
    assert cache.hits > 0 and not cache.notes
    (cache_dir / "verdicts.sqlite").unlink()
    with sqlite3.connect(cache_dir / "verdicts.sqlite") as db:  # some other program's database
        db.execute("CREATE TABLE meta (name TEXT, value TEXT)")
        db.execute("INSERT INTO meta VALUES ('format', 'something else')")
    foreign, cache = check(src, cache_dir)
    assert [d.code for d in foreign.diagnostics if d.code == "SK402"] == ["SK402"] and cache.hits == 0
    assert report(check(src, cache_dir)[0]) == expected


def test_a_cache_restored_elsewhere_is_used(tmp_path, trusting_fresh_files):
    """A CI job restores the cache folder from an earlier job: no key, no secret, it just works."""
    src, cache_dir = tree(tmp_path), tmp_path / "cache"
    check(src, cache_dir)
    restored = tmp_path / "restored"
    shutil.copytree(cache_dir, restored)
    again, cache = check(src, restored)
    assert cache.hits == len(again.sources) + 1 and report(again) == report(check(src)[0])


def test_cached_values_are_plain_json(tmp_path, trusting_fresh_files):
    src, cache_dir = tree(tmp_path), tmp_path / "cache"
    check(src, cache_dir)
    import json

    with sqlite3.connect(cache_dir / "verdicts.sqlite") as db:
        values = [value for (value,) in db.execute("SELECT value FROM entries")]
    assert values and all(isinstance(json.loads(v), list) for v in values)
