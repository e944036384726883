"""One pass for the audit's literals over the corpus: which search engine earns its place.

Takes the literals of every declared pattern as the audit does (skillsite/audit/literal_table.py),
then finds every occurrence of every one of them in the lower-cased folded text of every text file
of the corpus, with: the standard library's ``re`` (one alternation of all the literals, longest
first), ``pyahocorasick`` (when installed; not a dependency) and ``ahocorasick-rs`` (the audit's
choice, in its default and DFA forms).  Prints the seconds of each (median of ``--repeat``) and
the occurrences each found.  ``re`` is given a sample of the files (``--re-share``) and its time
scaled up, as it takes minutes on the whole corpus.

Run:  python benchmarks/literal_search.py [--repeat 3] [--corpus ../shared/corpus]
"""
from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from audit_parts import read_corpus  # noqa: E402
from machine import describe  # noqa: E402

from skillsite.audit import engine  # noqa: E402
from skillsite.audit.files import decode  # noqa: E402
from skillsite.audit.text import _prefilter, make_document  # noqa: E402


def engines(literals: list[str]) -> dict[str, Callable[[str], int]]:
    """Each engine as a function from a text to how many occurrences it found."""
    import ahocorasick_rs

    found: dict[str, Callable[[str], int]] = {}
    alternation = re.compile("|".join(map(re.escape, sorted(literals, key=len, reverse=True))))
    found["re: one alternation (non-overlapping)"] = lambda text: len(alternation.findall(text))
    try:
        import ahocorasick
    except ImportError:
        pass
    else:
        automaton = ahocorasick.Automaton()
        for number, literal in enumerate(literals):
            automaton.add_word(literal, number)
        automaton.make_automaton()
        found["pyahocorasick"] = lambda text: sum(1 for _ in automaton.iter(text))
    default = ahocorasick_rs.AhoCorasick(literals)
    dfa = ahocorasick_rs.AhoCorasick(literals, implementation=ahocorasick_rs.Implementation.DFA)
    found["ahocorasick-rs (default)"] = lambda text: len(default.find_matches_as_indexes(text, overlapping=True))
    found["ahocorasick-rs (DFA, the audit's)"] = lambda text: len(dfa.find_matches_as_indexes(text, overlapping=True))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "corpus")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--re-share", type=int, default=20, help="re reads one file in this many")
    args = parser.parse_args()
    print(f"machine: {describe()}")
    print(f"command: python benchmarks/literal_search.py --repeat {args.repeat} --corpus {args.corpus}")
    engine.prepare()
    literals = list(_prefilter().literals)
    texts = [make_document(path, decode(raw)).scanned for _, path, raw in read_corpus(args.corpus)]
    print(f"{len(literals)} literals, {len(texts)} texts, {sum(map(len, texts)) / 2**20:.1f} MiB\n")
    print(f"| engine (median of {args.repeat}) | seconds | occurrences |")
    print("|---|---:|---:|")
    for name, search in engines(literals).items():
        sample = texts[::args.re_share] if name.startswith("re:") else texts
        runs = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            count = sum(map(search, sample))
            runs.append(time.perf_counter() - started)
        scale = len(texts) / len(sample)
        shown = f"{statistics.median(runs) * scale:.2f}" + (f" (1 file in {args.re_share}, scaled)" if scale > 1 else "")
        print(f"| {name} | {shown} | {count if scale == 1 else '-'} |")


if __name__ == "__main__":
    main()
