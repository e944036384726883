"""What the scripts that write a generated file of the repository share (the literal table, the
golden files): write it, or with ``--check`` say whether the committed one is stale."""
from __future__ import annotations

import sys
from pathlib import Path


def write_or_check(path: Path, text: str, check: bool, shown: str, written: str = "") -> None:
    """With ``check``, print whether ``path`` holds ``text`` and exit 1 when it does not (0 when
    it does); else write ``text`` there.  ``shown``: the path as printed; ``written``: what to say
    of the file once written (say, how many entries it holds)."""
    if check:
        stale = not path.exists() or path.read_text(encoding="utf-8") != text
        print(f"{shown}: {'stale' if stale else 'up to date'}")
        sys.exit(1 if stale else 0)
    path.write_text(text, encoding="utf-8")
    print(f"wrote {shown}{written}")
