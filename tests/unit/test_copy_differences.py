"""How a published copy says it differs from its group's canonical member, and that each SKILL.md
is read and split once however many copies it is compared with."""
from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter

import pytest

from skillsite.agent import skill_md as skill_md_module
from skillsite.agent.entry import EntryUrls, ManifestEntry
from skillsite.cache import Cache
from skillsite.publish import copies as copies_module
from skillsite.publish.copies import apply_copies

FRONTMATTER = "---\nname: release\ndescription: Ships a release. Use when releasing.\n---\n"
BODY = "".join(f"Step {n}: check the {word} before the release goes out.\n"
               for n, word in enumerate(["tests", "changelog", "version", "tags", "notes"]))
SKILL_MDS = {
    "a": FRONTMATTER + BODY,
    "b": (FRONTMATTER + BODY).replace("\n", "  \r\n"),                        # line ends and trailing spaces
    "c": FRONTMATTER.replace("Ships", "Makes") + BODY,                        # the frontmatter
    "d": FRONTMATTER + BODY + "Step 5: announce it.\n",                       # one more line
    "e": FRONTMATTER + BODY,                                                  # the same bytes
    "f": "\ufeff" + BODY,                                                     # no frontmatter at all
}


def entry(skill_id: str) -> ManifestEntry:
    sha = hashlib.sha256(SKILL_MDS[skill_id].encode("utf-8")).hexdigest()
    return ManifestEntry(id=skill_id, name="release", description="Ships a release. Use when releasing.", sha256=sha,
                         urls=EntryUrls(skill_md=f"skills/{skill_id}/SKILL.md", files=f"skills/{skill_id}/"))


def test_each_copy_says_how_it_differs_and_each_skill_md_is_read_and_split_once(monkeypatch: pytest.MonkeyPatch):
    reads: Counter[str] = Counter()
    splits: Counter[str] = Counter()
    real_split = skill_md_module.split_skill_md

    def read(published: ManifestEntry) -> bytes:
        reads[published.id] += 1
        return SKILL_MDS[published.id].encode("utf-8")

    def split(text: str):
        splits[text] += 1
        return real_split(text)

    monkeypatch.setattr(skill_md_module, "split_skill_md", split)
    monkeypatch.setattr(copies_module, "split_skill_md", split)
    entries = [entry(skill_id) for skill_id in SKILL_MDS]
    apply_copies(entries, [tuple(SKILL_MDS)], read)
    differs = {e.id: e.copies.differs for e in entries if e.id != "a"}
    assert differs == {"b": "spacing differs", "c": "frontmatter differs", "d": "+1 -0 lines", "e": "same files",
                       "f": "frontmatter differs"}
    assert [r.id for r in entries[0].copies.members] == ["b", "c", "d", "e", "f"]
    assert reads == {"a": 1, "b": 1, "c": 1, "d": 1, "f": 1}  # "e": the same bytes, nothing to read
    assert set(splits.values()) == {1} and sum(splits.values()) == 5


def _read_counting(reads: Counter[str], texts: dict[str, str]):
    def read(published: ManifestEntry) -> bytes:
        reads[published.id] += 1
        return texts[published.id].encode("utf-8")
    return read


def test_a_rebuild_reads_only_the_copies_a_change_touched(tmp_path):
    """How two SKILL.md differ is kept in the cache by both files' digests: the next build reads
    none of the unchanged pairs, and a changed copy is compared again (not given its old answer)."""
    path = tmp_path / "cache.sqlite"
    first: Counter[str] = Counter()
    cache = Cache(path, "scope")
    entries = [entry(skill_id) for skill_id in SKILL_MDS]
    apply_copies(entries, [tuple(SKILL_MDS)], _read_counting(first, SKILL_MDS), cache)
    cache.save()
    assert sum(first.values()) == 5

    changed = {**SKILL_MDS, "d": SKILL_MDS["d"] + "Step 6: close the milestone.\n"}
    again: Counter[str] = Counter()
    cache = Cache(path, "scope")
    rebuilt = [entry(skill_id) for skill_id in SKILL_MDS]
    rebuilt[3] = dataclasses.replace(rebuilt[3], sha256=hashlib.sha256(changed["d"].encode()).hexdigest())
    apply_copies(rebuilt, [tuple(SKILL_MDS)], _read_counting(again, changed), cache)
    assert again == {"a": 1, "d": 1}  # the changed pair alone
    differs = {e.id: e.copies.differs for e in rebuilt if e.id != "a"}
    assert differs == {"b": "spacing differs", "c": "frontmatter differs", "d": "+2 -0 lines", "e": "same files",
                       "f": "frontmatter differs"}
    assert differs == {e.id: e.copies.differs for e in _applied_without_cache(changed, rebuilt) if e.id != "a"}


def _applied_without_cache(texts: dict[str, str], published: list[ManifestEntry]) -> list[ManifestEntry]:
    fresh = [dataclasses.replace(e, copies=None, visibility=entry(e.id).visibility) for e in published]
    apply_copies(fresh, [tuple(texts)], _read_counting(Counter(), texts))
    return fresh
