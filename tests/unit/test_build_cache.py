"""BuildCache on disk: a base file plus a small delta, and exactly the entries the last run used."""
from __future__ import annotations

from skillsite.cache import BuildCache


def fill(cache: BuildCache, keys: range, tag: str = "") -> None:
    for k in keys:
        if cache.get("html", f"k{k}") is None:
            cache.put("html", f"k{k}", f"value {k}{tag}")


def run(folder, keys: range) -> BuildCache:
    """One build's use of the cache: load, look up (or store) ``keys``, save."""
    cache = BuildCache(folder, "scope")
    fill(cache, keys)
    cache.save()
    return cache


def test_a_small_change_writes_only_the_delta(tmp_path):
    run(tmp_path, range(100))
    base = (tmp_path / "build-cache.pickle").read_bytes()
    second = run(tmp_path, range(3, 105))  # 3 entries no longer used, 5 new
    assert second.hits == 97
    assert (tmp_path / "build-cache.pickle").read_bytes() == base
    assert len((tmp_path / "build-cache.pickle.delta").read_bytes()) < len(base) // 5

    third = BuildCache(tmp_path, "scope")
    assert all(third.get("html", f"k{k}") == f"value {k}" for k in range(3, 105))
    assert third.get("html", "k200") is None


def test_the_base_is_rewritten_when_much_changed_and_unused_entries_go(tmp_path):
    run(tmp_path, range(100))
    base = (tmp_path / "build-cache.pickle").read_bytes()
    run(tmp_path, range(50, 150))
    assert (tmp_path / "build-cache.pickle").read_bytes() != base
    third = BuildCache(tmp_path, "scope")
    assert third.get("html", "k10") is None
    assert third.get("html", "k120") == "value 120"
    assert third.old["html"].keys() == {f"k{k}" for k in range(50, 150)}


def test_a_delta_of_another_base_or_scope_is_ignored(tmp_path):
    run(tmp_path, range(100))
    run(tmp_path, range(101))
    delta = (tmp_path / "build-cache.pickle.delta").read_bytes()
    run(tmp_path, range(500, 600))                          # a new base: the old delta no longer belongs
    assert not (tmp_path / "build-cache.pickle.delta").exists()  # and is removed
    (tmp_path / "build-cache.pickle.delta").write_bytes(delta)
    assert BuildCache(tmp_path, "scope").get("html", "k100") is None
    assert BuildCache(tmp_path, "other scope").get("html", "k550") is None
    assert BuildCache(tmp_path, "scope").get("html", "k550") == "value 550"


def test_values_that_change_every_run_override_the_base(tmp_path):
    first = BuildCache(tmp_path, "scope")
    fill(first, range(100))
    first.put("search", "index", "one")
    first.save()
    second = BuildCache(tmp_path, "scope")
    fill(second, range(100))
    assert second.get("search", "index") == "one"
    second.put("search", "index", "two")
    second.save()
    assert BuildCache(tmp_path, "scope").get("search", "index") == "two"


def test_value_bytes_depend_on_values_not_on_how_they_are_shared():
    from skillsite.cache import value_bytes

    word = "".join(["sha", "red"])
    shared = [word, word, {"k": word, "t": (word, 1)}]
    separate = ["".join(["sh", "ared"]), "".join(["s", "hared"]), {"k": "shared" + "", "t": ("".join("shared"), 1)}]
    assert shared == separate
    assert value_bytes(shared) == value_bytes(separate)
    assert value_bytes([1, "a"]) != value_bytes([1, "b"])
    assert value_bytes({"a": 1, "b": 2}) != value_bytes({"b": 2, "a": 1})  # order is part of a page


def test_digests_tell_kinds_and_groupings_apart_and_last_across_processes():
    import os
    import subprocess
    import sys

    from skillsite.cache import digest
    from skillsite.diagnostics import make

    distinct = [("a", "b"), ("ab",), ("a", b"b"), (1,), (True,), (1.0,), ([1],), ((1,),), ({"a": 1},), ()]
    assert len({digest(*parts) for parts in distinct}) == len(distinct)
    diag = make("SK303", "missing", "a/SKILL.md", 3, 1)
    assert digest("k", [diag]) == digest("k", [make("SK303", "missing", "a/SKILL.md", 3, 1)])
    assert digest("k", [diag]) != digest("k", [make("SK303", "missing", "a/SKILL.md", 4, 1)])
    # cache keys are kept between builds: another process (another hash seed) makes the same ones
    code = ("from skillsite.cache import digest; from skillsite.diagnostics import make; "
            "print(digest('k', [make('SK303', 'missing', 'a/SKILL.md', 3, 1)], {'x': (1, 2.5)}))")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": "12345"}).stdout.strip()
    assert other == digest("k", [diag], {"x": (1, 2.5)})
