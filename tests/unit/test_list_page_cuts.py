"""skillsite.mcp.list_pages: where resources/list and prompts/list are cut into pages."""
from __future__ import annotations

import dataclasses
import time
from typing import Any, Iterator

import anyio
import pytest

from support import run_async_in_thread
from skillsite.mcp.cursors import OtherBuild
from skillsite.mcp.list_pages import CutList, ListPages, entry_bytes, page_ends
from skillsite.mcp.unfolding import Unfolding

#: The build the lists below are of (the first hex digits of a skills.json's sha256).
BUILD = "3f9ac2e1b04d"


def test_pages_hold_what_fits_and_one_entry_at_least() -> None:
    """Entries go in order while a page stays within the limit; an entry over it is a page alone;
    an empty list is one empty page; each page but the last names the next by its start."""
    small, big = {"uri": "skill://a/SKILL.md"}, {"uri": "skill://b/SKILL.md", "description": "x" * 500}
    limit = 3 * entry_bytes(small)
    assert page_ends([small] * 7, limit) == {0: 3, 3: 6, 6: 7}
    assert page_ends([small, big, small], limit) == {0: 1, 1: 2, 2: 3}
    assert page_ends([], limit) == {0: 0}
    listed = CutList("resources", {"resources": [small] * 7, "ttlMs": 0}, Unfolding([small] * 7), limit, BUILD)
    assert listed.start_at("3") is None  # no page named it yet
    assert listed.page(0) == {"resources": [small] * 3, "ttlMs": 0, "nextCursor": f"3.{BUILD}"}
    assert listed.page(3) == {"resources": [small] * 3, "ttlMs": 0, "nextCursor": f"6.{BUILD}"}
    assert listed.page(6) == {"resources": [small], "ttlMs": 0}
    assert [listed.start_at(c) for c in (f"3.{BUILD}", "3", "6", "0", "4", f"4.{BUILD}", "03", "+3", "", None, 3,
                                         "٣", f"3.{BUILD}x", f"3.{BUILD.upper()}", "3.")] == \
        [3, 3, 6, 0, None, None, None, None, None, None, None, None, None, None, None]
    for other in (f"3.{'0' * 12}", f"7.{'0' * 12}"):  # a page of another build: refused as such
        with pytest.raises(OtherBuild, match="another build of the catalog"):
            listed.start_at(other)


def every_end(listed: CutList) -> dict[int, int]:
    """Each page's start and end, following the pages from the first."""
    start: int | None = 0
    while start is not None:
        cursor = listed.page(start).get("nextCursor")
        start = None if cursor is None else listed.start_at(cursor)
    return listed.ends


def test_pages_cut_as_asked_for_are_the_pages_cut_at_once() -> None:
    small, big = {"uri": "skill://a/SKILL.md"}, {"uri": "skill://b/SKILL.md", "description": "x" * 500}
    limit = 3 * entry_bytes(small)
    for entries in ([small] * 7, [small, big, small], [], [big, small, small, small, big], [small] * 6):
        assert every_end(CutList("prompts", {}, Unfolding(entries), limit, BUILD)) == page_ends(entries, limit), entries


def test_a_page_makes_its_entries_and_the_next_one_only() -> None:
    """The first page of a long list makes the entries it holds, and one more for its nextCursor."""
    made: list[int] = []

    def entries() -> Iterator[dict[str, Any]]:
        for number in range(1_000):
            made.append(number)
            yield {"uri": f"skill://s{number:04d}/SKILL.md"}

    limit = 3 * entry_bytes({"uri": "skill://s0000/SKILL.md"})
    listed = CutList("resources", {}, Unfolding(entries()), limit, BUILD)
    assert listed.page(0)["nextCursor"] == f"3.{BUILD}" and made == [0, 1, 2, 3]
    assert listed.page(3)["nextCursor"] == f"6.{BUILD}" and made == list(range(7))


class FlakySource:
    """Items 0 to 4, the third failing while ``failing`` holds (a page of the catalog that cannot
    be fetched yet); counts how often the list is read from the start."""

    def __init__(self) -> None:
        self.failing, self.reads = True, 0

    def items(self) -> Iterator[int]:
        self.reads += 1
        for item in range(5):
            if item == 2 and self.failing:
                raise OSError("page 2 cannot be fetched")
            yield item


def test_an_item_that_fails_is_the_readers_error_and_the_list_is_read_again_later() -> None:
    """A generator that raised is finished: the list took that for its end, and every later
    page (prompts/list, resources/list) was empty for as long as the server ran."""
    source = FlakySource()
    listed = Unfolding(source.items(), remake=source.items)
    assert listed.between(0, 2) == [0, 1]
    for _ in range(2):  # as often as asked while it fails, never an end
        try:
            listed.between(0, 5)
            raise AssertionError("the failure was not raised")
        except OSError as exc:
            assert "page 2" in str(exc)
    source.failing = False
    assert listed.between(0, 5) == [0, 1, 2, 3, 4] and list(listed) == [0, 1, 2, 3, 4]
    assert source.reads == 3   # read again past the items made, once after each failure
    once = Unfolding(FlakySource().items())  # nothing to read again with: the failure, each time
    for _ in range(2):
        try:
            once.reaches(5)
            raise AssertionError("the failure was not raised")
        except OSError:
            pass


def test_a_cursor_of_the_build_served_names_its_page_in_the_list_cut_anew() -> None:
    """A server that opens its catalog again (its signed metadata expired) and finds the same build
    cuts its lists anew: the nextCursor it had just given was refused ("list from the first page"),
    though it names a page of this very list.  A cursor naming the build served is taken: the pages
    are cut from the first up to it; one that is no page's start is still refused."""
    small = {"uri": "skill://a/SKILL.md"}
    limit = 3 * entry_bytes(small)
    before = CutList("resources", {}, Unfolding([small] * 7), limit, BUILD)
    cursors = [before.page(0)["nextCursor"], before.page(3)["nextCursor"]]
    again = CutList("resources", {}, Unfolding([small] * 7), limit, BUILD)
    assert again.start_at("6") is None   # a bare start: only one this list gave
    assert [again.start_at(c) for c in cursors] == [3, 6] and again.page(6) == before.page(6)
    fresh = CutList("resources", {}, Unfolding([small] * 7), limit, BUILD)
    assert [fresh.start_at(f"{n}.{BUILD}") for n in (4, 7, 9, 0, "03", "+3")] == [None, None, None, 0, None, None]


@dataclasses.dataclass(frozen=True)
class Request:
    """What the middleware reads of a request's context."""

    method: str
    params: dict[str, Any] | None
    protocol_version: str = "2025-11-25"


def test_a_list_read_while_the_catalog_is_opened_anew_names_the_build_it_was_asked_of() -> None:
    """Another request may have the server open its catalog again (a new build) while a list is
    read: the list, of either build, was named as the new one's, and the next page, cut from the
    new build's list, was served for its cursor (skills skipped or repeated).  Its cursors name
    the build asked of: the next page is refused as another build's."""
    from mcp.shared.exceptions import MCPError

    small = {"name": "p"}
    served = {"build": BUILD, "version": 0}

    async def whole_list(ctx: Any) -> dict[str, Any]:
        served.update(build="0" * 12, version=1)   # opened anew meanwhile
        return {"prompts": [small] * 7}

    pages = ListPages(lambda: served["build"], 3 * entry_bytes(small), lambda: served["version"])

    async def both() -> tuple[dict[str, Any], str]:
        first = await pages(Request("prompts/list", None), whole_list)
        try:
            await pages(Request("prompts/list", {"cursor": first["nextCursor"]}), whole_list)
        except MCPError as exc:
            return first, exc.error.message
        return first, ""

    first, refused = run_async_in_thread(both)
    assert first["nextCursor"] == f"3.{BUILD}" and "another build of the catalog" in refused, refused


def test_a_list_read_before_a_reopening_is_not_kept_in_place_of_the_new_build_s() -> None:
    """Request A reads the list of one build; meanwhile the catalog is opened anew and request B
    cuts the new build's list; A then kept its list in place of B's, and every later first page
    was the old build's, B's own nextCursor refused.  A's list serves A alone."""
    small = {"name": "p"}
    served = {"build": BUILD, "version": 0}
    gate = anyio.Event()

    async def whole_list(ctx: Any) -> dict[str, Any]:
        of = served["build"]
        if of == BUILD:
            await gate.wait()   # A's list is read slowly
        return {"prompts": [dict(small, of=of)] * 7}

    pages = ListPages(lambda: served["build"], 3 * entry_bytes(dict(small, of=BUILD)), lambda: served["version"])
    out: dict[str, Any] = {}

    async def read_a() -> None:
        out["a"] = await pages(Request("prompts/list", None), whole_list)

    async def all_three() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(read_a)
            await anyio.sleep(0.01)
            served.update(build="0" * 12, version=1)   # opened anew meanwhile
            out["b"] = await pages(Request("prompts/list", None), whole_list)
            gate.set()
        out["c"] = await pages(Request("prompts/list", None), whole_list)
        out["b2"] = await pages(Request("prompts/list", {"cursor": out["b"]["nextCursor"]}), whole_list)

    run_async_in_thread(all_three)
    assert out["a"]["nextCursor"] == f"3.{BUILD}" and out["b"]["nextCursor"] == f"3.{'0' * 12}"
    assert out["c"] == out["b"] and out["b2"]["prompts"][0]["of"] == "0" * 12


def test_a_cursor_of_a_list_cut_anew_has_its_pages_cut_off_the_event_loop() -> None:
    """A cursor of the build served, into a list cut anew, has the pages up to it cut: every
    entry up to it made (a paged catalog's pages fetched), on the event loop, where no other
    request was answered meanwhile (a cursor far into the list, by anyone who saw one)."""
    small = {"name": "p"}
    made: list[int] = []

    def slowly_made() -> Iterator[dict[str, Any]]:
        for number in range(40):
            time.sleep(0.02)   # an entry made: a manifest page fetched, an entry checked
            made.append(number)
            yield small

    async def whole_list(ctx: Any) -> dict[str, Any]:
        return {"prompts": Unfolding(slowly_made())}

    pages = ListPages(lambda: BUILD, 3 * entry_bytes(small), lambda: 1)
    seen: list[int] = []   # how many entries were made, each time the event loop ran the ticker

    async def ticker(stop: anyio.Event) -> None:
        while not stop.is_set():
            seen.append(len(made))
            await anyio.sleep(0.01)

    async def cut_far() -> dict[str, Any]:
        stop = anyio.Event()
        async with anyio.create_task_group() as group:
            group.start_soon(ticker, stop)
            await anyio.sleep(0.02)
            page = await pages(Request("prompts/list", {"cursor": f"36.{BUILD}"}), whole_list)
            stop.set()
        return page

    page = run_async_in_thread(cut_far)
    assert len(page["prompts"]) == 3 and len(made) == 40
    assert any(0 < count < 36 for count in seen), seen   # the loop ran while the pages up to the cursor were cut
