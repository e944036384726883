"""Write tests/data/literal_counts.json: how often the shared corpus holds each literal a pattern's
windows may be built around.

    python tests/data/make_literal_counts.py [--corpus ../shared/corpus]           # writes the counts
    python tests/data/make_literal_counts.py [--corpus ../shared/corpus] --check   # exit 1 when stale

The literal derivation ranks sets of literals by an estimate from their characters
(``literal_derivation.bits``), which cannot tell that "rm" is mostly inside words ("format") and
"rm " is not.  For every pattern the one-pass search filters, this counts, in the lower-cased
folded text of every text file of the corpus (as the audit reads it), each literal of its rarest
set by that estimate and of its other choices (``literal_derivation.anchor_choices``); the
derivation then builds the pattern's windows around a choice found at most half as often
(``literal_derivation.measured_anchor``).  Only literals found at least once are written, and
the patterns measured, so a pattern added or changed since is derived as before until this is
run again.  Only the audit's speed depends on these counts; the output is deterministic for a
given corpus.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE.parents[1] / "benchmarks"))

from ahocorasick_rs import AhoCorasick  # noqa: E402
from audit_parts import read_corpus  # noqa: E402
from golden_file import write_or_check  # noqa: E402
from literal_derivation import COUNTS, _root, anchor_choices, ranked  # noqa: E402

from skillsite.audit.files import decode  # noqa: E402
from skillsite.audit.rules import PATTERNS  # noqa: E402
from skillsite.audit.text import make_document  # noqa: E402

DEFAULT_CORPUS = HERE.parents[2] / "shared" / "corpus"


def measured_patterns() -> list[tuple[str, int]]:
    """(source as compiled, flags) of each pattern the one-pass search filters, sorted."""
    return sorted({(each.compiled_source, int(each.flags)) for each in PATTERNS if each.prefiltered})


def candidate_literals(source: str, flags: int) -> set[str]:
    """The literals of the pattern's rarest set by estimate and of its other anchor choices."""
    root = _root(source, flags)
    rarest = ranked((*root.needs, root.prefixes, root.suffixes, root.exact))[:1]
    return {literal for each in (*rarest, *anchor_choices(source, flags)) for literal in each}


def count(literals: list[str], corpus: Path) -> dict[str, int]:
    """How many times each of ``literals`` occurs (overlapping occurrences too) in the text the
    one-pass search reads of every text file of the corpus; those found at least once."""
    automaton = AhoCorasick(literals)
    found = [0] * len(literals)
    for _folder, path, raw in read_corpus(corpus):
        for number, _start, _end in automaton.find_matches_as_indexes(make_document(path, decode(raw)).scanned,
                                                                     overlapping=True):
            found[number] += 1
    return {literal: times for literal, times in zip(literals, found) if times}


def render(corpus: Path) -> str:
    """The text of literal_counts.json: the patterns measured, one a line, and the counts, one a line."""
    patterns = measured_patterns()
    literals = sorted(set().union(*(candidate_literals(source, flags) for source, flags in patterns)))
    counts = count(literals, corpus)
    rows = [json.dumps([source, flags], ensure_ascii=False) for source, flags in patterns]
    lines = [f"{json.dumps(literal, ensure_ascii=False)}: {times}" for literal, times in counts.items()]
    return ('{\n"patterns": [\n' + ",\n".join(rows) + '\n],\n"counts": {\n' + ",\n".join(lines) + "\n}\n}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--check", action="store_true", help="exit 1 when the committed counts are stale")
    args = parser.parse_args()
    text = render(args.corpus)
    write_or_check(COUNTS, text, args.check, str(COUNTS.relative_to(HERE.parents[1])),
                   f": {text.count(chr(10)) - 6} lines")


if __name__ == "__main__":
    main()
