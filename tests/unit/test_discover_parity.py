"""``discover`` finds in a tree holding every feature of its walk what the golden file says it
found before its walk was made cheaper (tests/data/make_discover_golden.py writes the file)."""
from __future__ import annotations

import json
from pathlib import Path

from support import load_script

DATA = Path(__file__).resolve().parents[1] / "data"


def test_discover_finds_what_the_golden_file_holds() -> None:
    maker = load_script(DATA / "make_discover_golden.py")
    golden = json.loads(maker.GOLDEN.read_text(encoding="utf-8"))
    found = json.loads(maker.render())
    for run in maker.RUNS:
        for kind in ("sources", "diagnostics"):
            assert found[run][kind] == golden[run][kind], f"{run}: {kind} differ"
    assert found == golden
