"""How many entries a page of a paged ``skills.json`` holds: 250, or more in a catalog so big
that the root's list of pages would cost an agent more than one bigger page's index."""
from __future__ import annotations

import json

from skillsite.agent.manifest_pages import MAX_PAGE_SIZE, PAGE_SIZE, entries_per_page
from skillsite.agent.entry import EntryUrls, ManifestEntry
from skillsite.publish.manifest import (CatalogDigest, MadePage, canonical_json, entries_json, paged_manifest_files,
                                       sha256_hex)


def test_pages_grow_with_the_square_root_of_the_catalog_past_30000_skills() -> None:
    assert [entries_per_page(n) for n in (1, 2_001, 10_000, 30_000, 100_000, 1_000_000)] == [
        PAGE_SIZE, PAGE_SIZE, PAGE_SIZE, 300, 500, MAX_PAGE_SIZE]
    sizes = [entries_per_page(n) for n in range(0, 500_000, 997)]
    assert sizes == sorted(sizes) and all(size % 50 == 0 for size in sizes)


def _entries(skills: int) -> list[ManifestEntry]:
    return [ManifestEntry(id=f"group-{i // 100:04d}/skill-{i:06d}", name=f"skill-{i:06d}", description="Does it.",
                          sha256="0" * 64, urls=EntryUrls(skill_md=f"skills/{i}/SKILL.md", files=f"skills/{i}/"))
            for i in range(skills)]


def _agent_bytes(skills: int, size: int) -> int:
    """What an agent reads to find one skill's entry file: the root and one page's index."""
    files = dict(paged_manifest_files({"search": None}, _entries(skills), size, 25, CatalogDigest()))
    return len(files["skills.json"]) + len(files["manifest/index/0002.json"])


def test_the_chosen_size_costs_an_agent_less_than_the_default_on_a_big_catalog() -> None:
    skills = 60_000
    chosen = entries_per_page(skills)
    assert chosen == 400 and _agent_bytes(skills, chosen) < _agent_bytes(skills, PAGE_SIZE)


def test_a_paged_root_has_the_digest_of_the_whole_list_though_made_a_page_at_a_time() -> None:
    entries = _entries(1_003)
    files = dict(paged_manifest_files({"digest": None, "search": None}, entries, 100, 7, CatalogDigest()))
    root = json.loads(files["skills.json"])
    assert root["digest"] == "sha256:" + sha256_hex(canonical_json(entries_json(entries)))
    assert len(root["pages"]) == 10 and [k for k in root][:1] == ["digest"]   # the key stays where it was


class KeptPages:
    """Pages made once, given back on the next call (as the build's cache does)."""

    def __init__(self) -> None:
        self.pages: dict[tuple[int, int, int], MadePage] = {}

    def taken(self, number: int, start: int, stop: int) -> MadePage | None:
        return self.pages.get((number, start, stop))

    def made(self, number: int, start: int, stop: int, page: MadePage) -> None:
        self.pages[(number, start, stop)] = page


def test_pages_taken_from_a_store_are_not_made_again_and_the_root_is_the_same() -> None:
    entries, store = _entries(1_003), KeptPages()
    made = dict(paged_manifest_files({"digest": None, "search": None}, entries, 100, 7, CatalogDigest(), store))
    again = dict(paged_manifest_files({"digest": None, "search": None}, entries, 100, 7, CatalogDigest(), store))
    assert sorted(number for number, _, _ in store.pages) == list(range(2, 12))
    assert set(again) == {"skills.json", *(f"skills/{e.id}/entry.json" for e in entries[:7])}
    assert again["skills.json"] == made["skills.json"]
    for page in store.pages.values():
        assert all(sha256_hex(made[rel]) == sha for rel, sha in page.files())
        assert MadePage.from_json(json.loads(json.dumps(page.to_json()))) == page
