"""The signed lists of every published file (``tuf/files/``): one list for a small catalog, bins
by the path's hash past FILES_PER_LIST files, each entry the file's length and sha256."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from skillsite.agent.verify import OUTPUT_MARKER, published_files
from skillsite.publish.signing import FILES_PER_LIST, file_lists
from skillsite.publish.staging import MARKER


def _site(root: Path, count: int) -> list[str]:
    paths = [f"skills/s{n}/index.html" for n in range(count)] + ["index.html", "tuf/root.json", ".skillsite-output"]
    for rel in paths:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"<p>{rel}</p>")
    return paths


def test_a_small_catalog_has_one_list_of_every_file_but_its_metadata_and_marker(tmp_path: Path) -> None:
    assert OUTPUT_MARKER == MARKER  # one name, the agent side's: the published format's
    _site(tmp_path, 3)
    published = published_files(tmp_path)
    assert sorted(published) == ["index.html", "skills/s0/index.html", "skills/s1/index.html", "skills/s2/index.html"]
    lists = file_lists(tmp_path, published)
    assert list(lists) == ["files/all.json"]
    files = json.loads(lists["files/all.json"])["files"]
    data = (tmp_path / "skills/s1/index.html").read_bytes()
    assert files["skills/s1/index.html"] == {"length": len(data),
                                             "hashes": {"sha256": hashlib.sha256(data).hexdigest()}}
    assert file_lists(tmp_path, list(reversed(published))) == lists   # the same bytes whatever the order


def test_a_big_catalog_is_listed_in_bins_by_the_paths_hash_none_over_the_limit(tmp_path: Path) -> None:
    _site(tmp_path, FILES_PER_LIST + 100)
    published = published_files(tmp_path)
    lists = file_lists(tmp_path, published)
    assert sorted(lists) == [f"files/{digit}.json" for digit in "0123456789abcdef"]
    union: dict[str, object] = {}
    for name, data in lists.items():
        files = json.loads(data)["files"]
        assert 0 < len(files) <= FILES_PER_LIST
        assert all(hashlib.sha256(rel.encode()).hexdigest()[0] == name[len("files/")] for rel in files)
        union.update(files)
    assert sorted(union) == sorted(published)
