"""Where the pages of a paged ``skills.json`` end (:func:`~skillsite.publish.manifest.page_bounds`):
by count for small pages, else where the entries' ids say, so that a skill added or removed
changes its own page, not every page after it."""
from __future__ import annotations

import random

from hypothesis import given, settings, strategies as st

from skillsite.config import SiteConfig
from skillsite.publish.catalog_files import most_on_a_page, page_layout
from skillsite.publish.manifest import page_bounds

IDS = sorted(f"group-{i // 100:04d}/skill-{i:06d}" for i in range(10_010))


def _pages(ids: list[str], size: int = 250, most: int | None = 375) -> list[tuple[int, tuple[str, ...]]]:
    """Each page after a root of 25, numbered as the catalog numbers them, with its ids."""
    bounds = page_bounds(ids, 25, size, most)
    return [(number, tuple(ids[start:stop])) for number, (start, stop) in enumerate(bounds, 2)]


def test_pages_cover_every_entry_in_order_about_size_entries_each_and_never_more_than_most() -> None:
    bounds = list(page_bounds(IDS, 25, 250, 375))
    assert bounds[0][0] == 25 and bounds[-1][1] == len(IDS)
    assert all(stop == start for (_, stop), (start, _) in zip(bounds, bounds[1:]))
    sizes = [stop - start for start, stop in bounds]
    assert all(125 <= size <= 375 for size in sizes[:-1]) and 1 <= sizes[-1] <= 375
    assert 200 <= sum(sizes) / len(sizes) <= 260   # about as many pages as pages of 250 make (40)


def test_without_most_or_with_most_equal_to_size_pages_are_cut_by_count() -> None:
    fixed = [(start, min(start + 250, len(IDS))) for start in range(25, len(IDS), 250)]
    assert list(page_bounds(IDS, 25, 250)) == fixed == list(page_bounds(IDS, 25, 250, 250))
    assert list(page_bounds(IDS[:3], 3, 4, 6)) == [] and list(page_bounds(IDS[:4], 3, 4, 6)) == [(3, 4)]


def test_a_skill_added_or_removed_changes_its_own_page_and_rarely_the_next_not_every_page_after_it() -> None:
    before = set(_pages(IDS))
    rng = random.Random(47)
    added = [len(set(_pages(sorted([*IDS, f"group-{rng.randrange(100):04d}/added-{n}"]))) - before)
             for n in range(100)]
    removed = [len(set(_pages(IDS[:at] + IDS[at + 1:])) - before) for at in rng.sample(range(25, len(IDS)), 100)]
    assert sum(added) <= 150 and sum(removed) <= 150 and max(added) < 40
    # pages cut by count: each addition changes every page from its place on, half the catalog's on average
    fixed = set(_pages(IDS, most=None))
    by_count = [len(set(_pages(sorted([*IDS, f"group-{rng.randrange(100):04d}/added-{n}"]), most=None)) - fixed)
                for n in range(100)]
    assert sum(by_count) > 1_000


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=12), unique=True, max_size=300), st.integers(0, 30),
       st.integers(1, 40), st.integers(0, 40))
def test_pages_are_contiguous_non_empty_and_within_most_for_any_ids(ids: list[str], start: int, size: int,
                                                                      more: int) -> None:
    ids = sorted(ids)
    most = size + more
    bounds = list(page_bounds(ids, start, size, most))
    covered = [index for begin, stop in bounds for index in range(begin, stop)]
    assert covered == list(range(start, len(ids)))
    assert all(0 < stop - begin <= most for begin, stop in bounds)
    assert bounds == list(page_bounds(list(ids), start, size, most))   # the same cuts every time


def test_small_pages_are_cut_by_count_and_big_ones_hold_at_most_half_as_many_again_within_shard_above() -> None:
    assert most_on_a_page(SiteConfig(shard_above=3), 3) == 3
    assert most_on_a_page(SiteConfig(shard_above=15), 15) == 15
    assert most_on_a_page(SiteConfig(), 250) == 375
    assert most_on_a_page(SiteConfig(shard_above=300), 250) == 300


def _pages_changed_by_additions(size: int, most: int, additions: int = 60) -> float:
    """How many pages (of IDS, cut with ``size`` and ``most``) a skill added at random changes, on average."""
    before = set(_pages(IDS, size, most))
    rng = random.Random(260)
    return sum(len(set(_pages(sorted([*IDS, f"group-{rng.randrange(100):04d}/added-{n}"]), size, most)) - before)
               for n in range(additions)) / additions


def test_a_shard_above_just_over_the_page_size_leaves_pages_room_to_end_where_their_ids_say() -> None:
    # pages of 250 with at most 260 ended at 260, by count, a third of the time: an addition shifted
    # the pages after it until one ended where its ids say
    size, most = page_layout(SiteConfig(shard_above=260), len(IDS))
    assert (size, most) == (173, 260)
    assert _pages_changed_by_additions(size, most) <= 1.3 < 1.8 <= _pages_changed_by_additions(250, 260)
    assert page_layout(SiteConfig(shard_above=300), len(IDS)) == (200, 300)
    assert page_layout(SiteConfig(), len(IDS)) == page_layout(SiteConfig(shard_above=375), len(IDS)) == (250, 375)
    assert page_layout(SiteConfig(shard_above=20), len(IDS)) == (20, 20)   # small pages: cut by count
