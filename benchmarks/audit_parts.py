"""Where the audit's time goes: each phase of auditing the corpus, in one process.

Reads every text file of every skill the way ``skillsite audit`` does, then times, over all of
them in turn: decoding, folding (the copy the rules match against), finding which of the patterns'
required literals each file holds, the rules of each module of ``skillsite.audit.rules`` (patterns
and checks, those of a SKILL.md's frontmatter apart), and the judgement of the hits (context and demotion).  Each phase
runs on the output of the one before, so the times add up to one audit of the corpus (less
listing folders and reading files, printed first).  The median of ``--repeat`` runs is printed.

This is what bounds the audit's share of a cold build (issue 21's target: under 20%): the first
rows are paid before any rule runs.

Run:  python benchmarks/audit_parts.py [--repeat 3] [--corpus ../shared/corpus]

Side by side (``--code LABEL=FOLDER``, twice or more: checkouts of the versions to compare): the
files are read once, then each version audits all of them in a process of its own, through
``skillsite.audit.engine.audit_document`` (every phase above, as one), once untimed, then
``--repeat`` times; the versions take turns, in alternating order, for ``--rounds`` rounds.  The phases are not split
there: they are each version's own internals.  Prints each version's median and its ratio to
the first version's, the 8x target of issue #47, and the floor under any engine that matches
this checkout's folded text: decoding and folding every file and, when the ``hyperscan`` package
is installed (skillsite does not use it), one native scan of every file for all the patterns.
"""
from __future__ import annotations

import argparse
import functools
import json
import operator
import pickle
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Callable, Iterable

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from code_versions import check_version, in_turns, version_env  # noqa: E402
from machine import describe  # noqa: E402

from skillsite.audit import engine  # noqa: E402
from skillsite.audit.declare import Check, Rule, SkillMd  # noqa: E402
from skillsite.audit.hit import Hit  # noqa: E402
from skillsite.audit.files import MAX_TEXT_BYTES, decode, read_capped, read_head, skill_files  # noqa: E402
from skillsite.audit.magic import looks_binary  # noqa: E402
from skillsite.audit.rules import MODULES, declared  # noqa: E402
from skillsite.audit.text import Document, make_document  # noqa: E402


def read_corpus(corpus: Path) -> list[tuple[str, str, bytes]]:
    """(skill folder name, path, bytes) of every text file the audit reads in the corpus."""
    found = []
    for skill_md in sorted(corpus.rglob("SKILL.md")):
        for file in skill_files(skill_md.parent):
            if looks_binary(read_head(file)) or file.size > MAX_TEXT_BYTES:
                continue
            raw = read_capped(file)
            if raw is not None and not looks_binary(raw):
                found.append((skill_md.parent.name, file.path, raw))
    return found


def find_literals(doc: Document) -> None:
    """What the first gate asks of a file: which of the patterns' literals it holds, all found in
    one pass (:mod:`skillsite.audit.prefilter`)."""
    engine.prepare()
    doc.found.present


def timed(work: Callable[[], object]) -> tuple[float, object]:
    started = time.perf_counter()
    result = work()
    return time.perf_counter() - started, result


def text_scans(module: ModuleType) -> list[Callable[[Document], Iterable[Hit]]]:
    """What runs on a text for the rules a module declares: each rule's patterns (where one of the
    rule's literals occurs, as the engine does), each text check."""
    return [functools.partial(_hits, rule) for rule in declared(Rule, (module,)) if rule.patterns] + \
        [check.function for check in declared(Check, (module,)) if check.scope == "text"]


def _hits(rule: Rule, doc: Document) -> Iterable[Hit]:
    return rule.hits(doc) if rule.may_match(doc) else ()


def skill_hits(doc: Document, folder_name: str) -> list[Hit]:
    """The hits of the checks of a SKILL.md's frontmatter and folder name (the frontmatter read
    once, as the engine does)."""
    read = engine._read_frontmatter(doc)
    skill = SkillMd(doc, read.values if read is not None else None, folder_name)
    return [hit for check in engine.SKILL_CHECKS for hit in check.function(skill)]


def one_run(files: list[tuple[str, str, bytes]]) -> dict[str, float]:
    """Seconds of each phase over every file."""
    seconds: dict[str, float] = {}
    seconds["decode"], texts = timed(lambda: [(path, decode(raw)) for _, path, raw in files])
    seconds["fold (make_document)"], docs = timed(lambda: [make_document(path, text) for path, text in texts])
    seconds["required literals (one pass per file)"], _ = timed(lambda: [find_literals(doc) for doc in docs])
    hits: dict[int, list] = {i: [] for i in range(len(docs))}
    for module in MODULES:
        scans = text_scans(module)
        seconds[f"rules.{module.__name__.rsplit('.', 1)[1]}"], _ = timed(
            lambda: [hits[i].extend(hit for scan in scans for hit in scan(doc)) for i, doc in enumerate(docs)])
    seconds["frontmatter checks (SKILL.md)"], _ = timed(lambda: [
        hits[i].extend(skill_hits(doc, files[i][0])) for i, doc in enumerate(docs) if doc.kind == "skill"])
    seconds["judge the hits"], _ = timed(lambda: [list(engine._document_findings(doc, doc.path, hits[i]))
                                                  for i, doc in enumerate(docs)])
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "corpus")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--code", action="append", default=[], metavar="LABEL=FOLDER",
                        help="a version to compare (twice or more): its checkout")
    parser.add_argument("--rounds", type=int, default=2, help="with --code: turns of every version")
    args = parser.parse_args()
    print(f"machine: {describe()}")
    print(f"command: python benchmarks/audit_parts.py --repeat {args.repeat} --corpus {args.corpus}"
          + "".join(f" --code {code}" for code in args.code) + (f" --rounds {args.rounds}" if args.code else ""))
    read_seconds, files = timed(lambda: read_corpus(args.corpus))
    if not files:  # a checkout outside the project's folder has no ../shared/corpus: say so, time nothing
        parser.error(f"no SKILL.md under {args.corpus}: give --corpus the shared corpus")
    size = sum(len(raw) for _, _, raw in files)
    print(f"{len(files)} text files, {size / 2**20:.1f} MiB; listing and reading them: {read_seconds:.2f} s\n")
    if args.code:
        side_by_side(files, dict(code.split("=", 1) for code in args.code), args.repeat, args.rounds)
        return
    runs = [one_run(files) for _ in range(args.repeat)]
    print(f"| phase (median of {args.repeat}, one process) | seconds | share |")
    print("|---|---:|---:|")
    medians = {phase: statistics.median(run[phase] for run in runs) for phase in runs[0]}
    total = sum(medians.values())
    for phase, seconds in medians.items():
        print(f"| {phase} | {seconds:.2f} | {seconds / total:.0%} |")
    print(f"| **all phases** | **{total:.2f}** | |")


#: Run by each version, in a process of its own: the seconds of each of ``repeat`` audits of the
#: files (pickled by the parent) through the engine's entry point for one document, after one
#: untimed audit of them all (what a version compiles on first use is a cost per process, not
#: per byte, and some compile a pattern when a text first asks for it).
WHOLE_AUDIT = """
import json, pickle, sys, time
from skillsite.audit.engine import audit_document
from skillsite.audit.files import decode
files = pickle.load(open(sys.argv[1], "rb"))
seconds = []
for _ in range(int(sys.argv[2]) + 1):
    started = time.perf_counter()
    for folder, path, raw in files:
        audit_document(path, decode(raw), folder)
    seconds.append(time.perf_counter() - started)
print(json.dumps(seconds[1:]))  # the first pass compiles what the version compiles on first use
"""


def side_by_side(files: list[tuple[str, str, bytes]], codes: dict[str, str], repeat: int, rounds: int) -> None:
    """Each version's whole audit of ``files``, taking turns (see the module's docstring)."""
    seconds: dict[str, list[float]] = {label: [] for label in codes}
    with tempfile.TemporaryDirectory() as scratch:
        held = Path(scratch) / "files.pickle"
        held.write_bytes(pickle.dumps(files))
        for label, folder in codes.items():  # run from the scratch folder: a checkout's own skillsite comes first
            check_version(label, Path(folder), Path(scratch))
        for number in range(rounds):
            for label, folder in in_turns(codes, number):
                done = subprocess.run([sys.executable, "-c", WHOLE_AUDIT, str(held), str(repeat)], cwd=scratch,
                                      env=version_env(Path(folder)), capture_output=True, text=True)
                if done.returncode:
                    raise SystemExit(f"{label} failed:\n{done.stderr[-3000:]}")
                seconds[label] += json.loads(done.stdout)
        floors = [floor_run(files) for _ in range(repeat)]
    first = statistics.median(next(iter(seconds.values())))
    print(f"| version (median of {rounds} x {repeat}, one process each) | seconds (min-max) | throughput against the first |")
    print("|---|---:|---:|")
    for label, runs in seconds.items():
        median = statistics.median(runs)
        print(f"| {label} ({codes[label]}) | {median:.2f} ({min(runs):.2f}-{max(runs):.2f}) | {first / median:.2f}x |")
    print(f"| 8x the first (issue #47's target) | {first / 8:.2f} | 8.00x |")
    for phase in floors[0]:
        median = statistics.median(run[phase] for run in floors)
        print(f"| floor: {phase} | {median:.2f} | {first / median:.2f}x |")


def floor_run(files: list[tuple[str, str, bytes]]) -> dict[str, float]:
    """What any engine matching this checkout's folded text pays before its rules' own work:
    decoding and folding every file, then (with the ``hyperscan`` package installed, which
    skillsite does not need) one native scan of every file for every pattern at once, in
    Hyperscan's prefilter mode, each place it reports handed to Python as the engine would be."""
    seconds: dict[str, float] = {}
    started = time.perf_counter()
    docs = [make_document(path, decode(raw)) for _, path, raw in files]
    seconds["decoding and folding"] = time.perf_counter() - started
    database = _hyperscan_database()
    if database is not None:
        places: list[tuple[int, int]] = []
        started = time.perf_counter()
        for doc in docs:  # one byte a character (what is not ASCII read as "?"): a scan's cost, not its answers
            database.scan(doc.folded.encode("ascii", "replace"), match_event_handler=_report, context=places)
        seconds["decoding, folding and one Hyperscan scan"] = \
            seconds["decoding and folding"] + time.perf_counter() - started
    return seconds


def _report(pattern: int, _start: int, end: int, _flags: int, places: list[tuple[int, int]]) -> None:
    places.append((pattern, end))


@functools.lru_cache(maxsize=None)
def _hyperscan_database() -> object | None:
    """Every audit pattern compiled by Hyperscan in prefilter mode (a superset of each one's
    matches), or None without the ``hyperscan`` package."""
    try:
        import hyperscan  # type: ignore[import-not-found]
    except ImportError:
        print("(install the hyperscan package for the floor of a native multi-pattern scan)")
        return None
    from skillsite.audit.rules import PATTERNS

    flags = {re.IGNORECASE: hyperscan.HS_FLAG_CASELESS, re.DOTALL: hyperscan.HS_FLAG_DOTALL,
             re.MULTILINE: hyperscan.HS_FLAG_MULTILINE}
    sources, modes = [], []
    for each in PATTERNS:
        compiled = each.gate.pattern
        numbered = _GROUP_REFERENCE.sub(lambda m: f"\\{compiled.groupindex[m.group(1)]}", compiled.pattern)
        sources.append(_NAMED_GROUP.sub("(", numbered).encode())
        modes.append(functools.reduce(operator.or_, (hs for flag, hs in flags.items() if compiled.flags & flag),
                                      hyperscan.HS_FLAG_PREFILTER | hyperscan.HS_FLAG_ALLOWEMPTY))
    database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    database.compile(expressions=sources, ids=list(range(len(sources))), elements=len(sources), flags=modes)
    return database


#: Named groups and references to them, which Hyperscan reads as numbered ones (a reference is
#: widened in prefilter mode).
_NAMED_GROUP = re.compile(r"\(\?P<\w+>")
_GROUP_REFERENCE = re.compile(r"\(\?P=(\w+)\)")


if __name__ == "__main__":
    main()
