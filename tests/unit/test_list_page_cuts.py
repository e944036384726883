"""skillsite.mcp.list_pages: where resources/list and prompts/list are cut into pages."""
from __future__ import annotations

from skillsite.mcp.list_pages import CutList, entry_bytes, page_ends


def test_pages_hold_what_fits_and_one_entry_at_least() -> None:
    """Entries go in order while a page stays within the limit; an entry over it is a page alone;
    an empty list is one empty page; each page but the last names the next by its start."""
    small, big = {"uri": "skill://a/SKILL.md"}, {"uri": "skill://b/SKILL.md", "description": "x" * 500}
    limit = 3 * entry_bytes(small)
    assert page_ends([small] * 7, limit) == {0: 3, 3: 6, 6: 7}
    assert page_ends([small, big, small], limit) == {0: 1, 1: 2, 2: 3}
    assert page_ends([], limit) == {0: 0}
    listed = CutList("resources", {"resources": [small] * 7, "ttlMs": 0}, page_ends([small] * 7, limit))
    assert listed.page(0) == {"resources": [small] * 3, "ttlMs": 0, "nextCursor": "3"}
    assert listed.page(6) == {"resources": [small], "ttlMs": 0}
    assert [listed.start_at(c) for c in ("3", "6", "0", "4", "03", "+3", "", None, 3, "٣")] == \
        [3, 6, 0, None, None, None, None, None, None, None]
