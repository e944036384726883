"""`skillsite validate`'s verdict cache: the same report as a run without it, and safe to keep
that never runs code when read."""
from __future__ import annotations

import os
import shutil
import sqlite3
import time
from contextlib import closing

import pytest

from support import EXAMPLES, write_skill
from skillsite.cache import Cache
from skillsite.source import catalog as source_catalog
from skillsite.source import links
from skillsite.diagnostics import format_json_report
from skillsite.models import CacheUse
from skillsite.source.catalog import check_catalog, read_catalog

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)


@pytest.fixture
def trusting_fresh_files(monkeypatch):
    """The tests' files are seconds old; normally that is too recent to cache them."""
    monkeypatch.setattr(source_catalog, "RACY_NS", 0)


def report(check) -> str:
    return format_json_report(check.verdicts(), list(check.diagnostics), check.summary())


def entries(cache_dir) -> dict[str, int]:
    """How many entries of each section the cache file holds."""
    with closing(sqlite3.connect(cache_dir / "verdicts.sqlite")) as db:
        return dict(db.execute("SELECT section, count(*) FROM entries GROUP BY section"))


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
    skills = len(first.sources)
    assert cache.hits == 0 and first.cache_use == CacheUse(by_stamp=0, hashed=skills, reused=0, checked=skills)
    second, cache = check(src, cache_dir, jobs=jobs)
    # every file known by its stamp (none read), every verdict reused
    assert second.cache_use == CacheUse(by_stamp=skills, hashed=0, reused=skills, checked=0)
    assert report(second) == report(first) == report(check(src)[0])


def test_a_changed_skill_is_read_again_even_at_the_same_size(tmp_path, trusting_fresh_files):
    src, cache_dir = tree(tmp_path), tmp_path / "cache"
    check(src, cache_dir)
    skill_md = src / "dup" / "SKILL.md"
    text = skill_md.read_text()
    skill_md.write_text(text.replace("name: code-review", "name: code-reviex"))  # same size, no longer a dup
    after, _ = check(src, cache_dir)
    assert after.cache_use.hashed == after.cache_use.checked == 1
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


def diagnostics_read_by(reader: str, src, cache_dir):
    """The diagnostics of ``src`` as ``validate`` or the build's reading gives them, with a cache in ``cache_dir``."""
    if reader == "validate":
        return check(src, cache_dir)[0].diagnostics
    cache = Cache(cache_dir / "skills.sqlite", "scope")
    diags = read_catalog([src], cache=cache).diagnostics
    cache.save()
    return diags


@pytest.mark.parametrize("reader", ["validate", "build"])
def test_a_missing_files_wording_follows_files_no_key_covers(tmp_path, trusting_fresh_files, reader):
    """A link's target appearing as a symlink that leaves the skill folder is not a file of the
    skill (no cache key changes), but it changes what SK303 says: the cached verdict is not reused."""
    src, cache_dir = tree(tmp_path), tmp_path / "cache"

    def run():
        return diagnostics_read_by(reader, src, cache_dir)

    def sk303(diags):
        return [d.message for d in diags if d.code == "SK303"]

    assert sk303(run()) == sk303(run()) == ["link 'guide.md' points to a file that does not exist in the skill folder"]
    (tmp_path / "outside.md").write_text("# Outside\n")
    (src / "linked" / "guide.md").symlink_to(tmp_path / "outside.md")
    assert sk303(run()) == ["link 'guide.md' points to a file that is not published with the skill "
                            "(a symlink leaving the skill folder)"]
    assert sk303(run()) == sk303(read_catalog([src]).diagnostics)


@pytest.mark.parametrize("reader", ["validate", "build"])
def test_a_cached_missing_file_warning_is_checked_again_without_reading_the_skill_md(tmp_path, trusting_fresh_files,
                                                                                     monkeypatch, reader):
    """A kept verdict's SK303 targets are looked at again on the file system, not by reading and
    parsing the SKILL.md once more: a directory with thousands of dead links rebuilds without them."""
    src, cache_dir = tree(tmp_path), tmp_path / "cache"

    def run():
        return diagnostics_read_by(reader, src, cache_dir)

    first = run()
    assert any(d.code == "SK303" for d in first)

    def no_body_read(body):
        raise AssertionError("a kept verdict's body was parsed again")

    monkeypatch.setattr(links, "iter_body_links", no_body_read)
    assert run() == first


def test_profiles_and_limits_never_share_verdicts(tmp_path, trusting_fresh_files):
    src, cache_dir = tree(tmp_path), tmp_path / "cache"
    check(src, cache_dir, profile="default")
    spec, _ = check(src, cache_dir, profile="spec")
    assert report(spec) == report(check(src, profile="spec")[0])
    tiny, _ = check(src, cache_dir, max_bytes=100)
    assert report(tiny) == report(check(src, max_bytes=100)[0])
    assert "SK106" in tiny.summary()["by_code"]


def test_recently_changed_files_are_read_each_time_and_their_verdicts_reused(tmp_path):
    """Every file is younger than RACY_NS: none is trusted by its stamp (none is kept), but its
    verdict is found by its content."""
    src, cache_dir = tree(tmp_path), tmp_path / "cache"
    check(src, cache_dir)
    again, _ = check(src, cache_dir)
    skills = len(again.sources)
    assert again.cache_use == CacheUse(by_stamp=0, hashed=skills, reused=skills, checked=0)
    assert entries(cache_dir) == {"verdicts": skills, "similar": 1, "copies": 1}  # copies: the last grouping


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
    again, _ = check(src, restored)
    assert again.cache_use.reused == len(again.sources) and report(again) == report(check(src)[0])


def test_cached_values_are_plain_json(tmp_path, trusting_fresh_files):
    src, cache_dir = tree(tmp_path), tmp_path / "cache"
    check(src, cache_dir)
    import json

    with sqlite3.connect(cache_dir / "verdicts.sqlite") as db:
        values = [value for (value,) in db.execute("SELECT value FROM entries")]
    assert values and all(isinstance(json.loads(v), (list, str, dict)) for v in values)


# ------------------------------------------------------------ the situations of a CI job

def skill_files(src):
    return sorted(src.rglob("SKILL.md"))


def make_stale(src) -> None:
    """chmod and touch every SKILL.md: the same bytes, a new stamp (mode, times)."""
    for path in skill_files(src):
        path.chmod(path.stat().st_mode ^ 0o020)
        os.utime(path, ns=(time.time_ns(), time.time_ns()))


def replace_by_fresh_copy(src, tmp_path) -> None:
    """The tree replaced by a copy of itself at the same path, as a fresh checkout gives it:
    every file new (a new inode, new times)."""
    fresh = tmp_path / "fresh-checkout"
    shutil.copytree(src, fresh, symlinks=True, copy_function=shutil.copyfile)
    src.rename(tmp_path / "old-checkout")
    fresh.rename(src)


def edit_every_skill(src) -> None:
    """Every SKILL.md's bytes changed (a line added at the end): no verdict of the cache fits."""
    for path in skill_files(src):
        path.write_bytes(path.read_bytes() + b"\n")


@pytest.mark.parametrize("jobs", [1, 2])
def test_every_situation_of_a_ci_job_gives_the_report_of_no_cache(tmp_path, trusting_fresh_files, jobs):
    """Warm, all stale, restored onto a fresh copy of the tree at the same path, every skill
    edited: the report is the one of a run without the cache, byte for byte, and only what
    changed is checked again."""
    src, cache_dir = tree(tmp_path), tmp_path / "cache"
    expected = report(check(src, jobs=jobs)[0])
    skills = len(skill_files(src))

    def run(cache_folder=cache_dir):
        result, _ = check(src, cache_folder, jobs=jobs)
        assert report(result) == report(check(src, jobs=jobs)[0])
        return report(result), result.cache_use

    assert run() == (expected, CacheUse(by_stamp=0, hashed=skills, reused=0, checked=skills))
    assert run() == (expected, CacheUse(by_stamp=skills, hashed=0, reused=skills, checked=0))      # warm
    make_stale(src)
    assert run() == (expected, CacheUse(by_stamp=0, hashed=skills, reused=skills, checked=0))      # all stale
    restored = tmp_path / "restored-cache"   # actions/cache restores the folder
    shutil.copytree(cache_dir, restored)
    replace_by_fresh_copy(src, tmp_path)
    assert run(restored) == (expected, CacheUse(by_stamp=0, hashed=skills, reused=skills, checked=0))
    edit_every_skill(src)
    assert run(restored)[1] == CacheUse(by_stamp=0, hashed=skills, reused=0, checked=skills)


def test_a_stale_cache_holds_no_more_than_a_fresh_one(tmp_path, trusting_fresh_files):
    """What a run does not use is dropped when it saves: stamps of files gone or changed, verdicts
    of content no longer there."""
    src, cache_dir = tree(tmp_path), tmp_path / "cache"
    skills = len(skill_files(src))
    check(src, cache_dir)
    fresh = entries(cache_dir)
    assert fresh == {"stamps": skills, "verdicts": skills, "similar": 1, "copies": 1}
    for change in (make_stale, lambda s: replace_by_fresh_copy(s, tmp_path / "checkout"), edit_every_skill):
        change(src)
        check(src, cache_dir)
        assert entries(cache_dir) == fresh


def test_the_cli_restored_onto_a_fresh_checkout_prints_what_no_cache_does(tmp_path, trusting_fresh_files):
    from click.testing import CliRunner

    from skillsite.cli import main

    src, cache_dir = tree(tmp_path), tmp_path / "cache"
    runner = CliRunner()
    for fmt in ("text", "json", "github"):
        args = ["validate", str(src), "--format", fmt, "--all"]
        nocache = runner.invoke(main, [*args, "--no-cache"])
        first = runner.invoke(main, [*args, "--cache-dir", str(cache_dir)])
        restored = tmp_path / f"restored-{fmt}"
        shutil.copytree(cache_dir, restored)
        replace_by_fresh_copy(src, tmp_path / f"checkout-{fmt}")
        again = runner.invoke(main, [*args, "--cache-dir", str(restored)])
        assert nocache.exit_code == first.exit_code == again.exit_code == 1
        assert nocache.output == first.output == again.output


# ------------------------------------------------------------ stamps and the racy-timestamp guard

class _VfatStat:
    """A SKILL.md's stat as a file system without a change time of its own gives it (vfat: the
    change time is the modification time), so an edit that keeps size and mtime keeps the stamp."""

    def __init__(self, st):
        self._st = st

    def __getattr__(self, name):
        return getattr(self._st, name)

    @property
    def st_ctime_ns(self):
        return self._st.st_mtime_ns


@pytest.fixture
def vfat_times(monkeypatch):
    real_stat = os.stat

    def stat(path, *args, **kwargs):
        st = real_stat(path, *args, **kwargs)
        return _VfatStat(st) if os.fspath(path).endswith("SKILL.md") else st

    monkeypatch.setattr(os, "stat", stat)


def edit_keeping_size_and_mtime(skill_md) -> None:
    """What a second change within the file system's timestamp granularity looks like: new bytes,
    the same size and modification time."""
    before = os.stat(skill_md)
    skill_md.write_text(skill_md.read_text().replace("name: code-review", "name: code-reviex"))
    os.utime(skill_md, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(skill_md).st_size == before.st_size


def test_an_edit_keeping_size_and_times_right_after_a_run_is_seen(tmp_path, vfat_times, monkeypatch):
    """A file changed within RACY_NS of a run is not known by its stamp, so a second change that
    keeps its size and times (as one within the same timestamp tick does) is read and checked.
    The window is made ten minutes long and every other SKILL.md older than it, so the test does
    not depend on how fast the machine runs it."""
    window = 600 * 10**9
    monkeypatch.setattr(source_catalog, "RACY_NS", window)
    src, cache_dir = tree(tmp_path), tmp_path / "cache"
    edited = src / "dup" / "SKILL.md"
    past = time.time_ns() - 2 * window
    for path in skill_files(src):
        if path != edited:
            os.utime(path, ns=(past, past))
    check(src, cache_dir)
    edit_keeping_size_and_mtime(edited)
    after, _ = check(src, cache_dir)
    assert report(after) == report(check(src)[0]) and "SK212" not in after.summary()["by_code"]
    # every other file known by its stamp; the edited one, too young to be, read and checked
    assert after.cache_use == CacheUse(by_stamp=len(after.sources) - 1, hashed=1, reused=len(after.sources) - 1,
                                       checked=1)


def test_without_the_racy_guard_that_edit_would_go_unseen(tmp_path, vfat_times, monkeypatch):
    """The control of the test above: trusting fresh stamps, the same edit keeps the old verdict."""
    monkeypatch.setattr(source_catalog, "RACY_NS", 0)
    src, cache_dir = tree(tmp_path), tmp_path / "cache"
    check(src, cache_dir)
    edit_keeping_size_and_mtime(src / "dup" / "SKILL.md")
    after, _ = check(src, cache_dir)
    assert after.cache_use.checked == 0 and "SK212" in after.summary()["by_code"]
    assert report(after) != report(check(src)[0])


def test_files_older_than_the_racy_window_are_known_by_their_stamp(tmp_path, vfat_times):
    """With the real RACY_NS, files last changed before the window are trusted by their stamps:
    the next run reads none of them."""
    src, cache_dir = tree(tmp_path), tmp_path / "cache"
    past = time.time_ns() - 10 * source_catalog.RACY_NS
    for path in skill_files(src):
        os.utime(path, ns=(past, past))
    check(src, cache_dir)
    again, _ = check(src, cache_dir)
    skills = len(skill_files(src))
    assert again.cache_use == CacheUse(by_stamp=skills, hashed=0, reused=skills, checked=0)
    assert report(again) == report(check(src)[0])


def test_a_skill_added_or_removed_checks_again_only_itself_and_the_skills_whose_links_name_it(tmp_path,
                                                                                               trusting_fresh_files):
    """A verdict keeps what its links asked of the catalog's skill folders and the answers (is
    ``../newcomer`` a skill?), and is taken again while the folders answer alike: a skill added
    checks itself and the one linking to it, not every skill; removed, the linking one alone.
    Each report is a run's without the cache."""
    src, cache_dir = tree(tmp_path), tmp_path / "cache"
    append = src / "house-style" / "SKILL.md"
    append.write_text(append.read_text("utf-8") + "\nAsk the [newcomer](../newcomer/SKILL.md).\n", "utf-8")
    first, _ = check(src, cache_dir)
    assert "SK304" in first.summary()["by_code"]  # a link out of the folder to no skill
    write_skill(src, "newcomer", description="Answers what a new team member asks. Use when onboarding.")
    added, _ = check(src, cache_dir)
    assert added.cache_use.checked == 2 and added.cache_use.reused == len(added.sources) - 2
    assert report(added) == report(check(src)[0])
    assert "SK304" not in added.summary()["by_code"]
    shutil.rmtree(src / "newcomer")
    removed, _ = check(src, cache_dir)
    assert removed.cache_use.checked == 1 and report(removed) == report(check(src)[0]) == report(first)
