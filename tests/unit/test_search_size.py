"""The metadata search index stays under 2 MB at 10,000 skills (issue: compact TF-IDF in skills.json).

Uses the synthetic catalog of benchmarks/search_quality.py, whose vocabulary is larger than
real catalogs' (about 38,000 terms at 10,000 skills; the corpus has 3,740 at 1,060), so the
bound holds with margin for real text.  A size check, not a timing.
"""
from __future__ import annotations

import json
from skillsite.loader import SearchIndex, build_search_section
from support import REPO, load_script

BENCH = REPO / "benchmarks" / "search_quality.py"



def test_search_section_of_10000_skills_is_under_2_mb() -> None:
    entries = load_script(BENCH).synthetic_entries(10_000)
    section = build_search_section(entries)
    size = len(json.dumps(section, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    assert size < 2 * 1024 * 1024, f"{size:,} bytes"
    index = SearchIndex.from_manifest({"skills": entries, "search": section})
    top = index.search(entries[1234]["description"], k=3)
    assert entries[1234]["id"] in [sid for sid, _ in top]
