"""Audit quality and speed: `skillsite audit` beside cisco-ai-skill-scanner's static mode.

    python benchmarks/audit_quality.py [--fixtures DIR] [--corpus DIR] [--cisco-python PATH]
                                       [--build] [-j N]

1. Fixtures (tests/data/audit-fixtures, labelled in labels.json: malicious skills and benign
   look-alikes): precision and recall per category and overall.  A skill is *flagged* when
   skillsite rates it high (what `skillsite audit` fails on by default), and, for the reference
   scanner, when its worst finding is HIGH or CRITICAL (what its `--fail-on-findings` fails on).
   A second table flags at medium and above for both.  Per-category precision counts the
   fixtures (malicious and benign) of that category.
2. Corpus (../shared/corpus): the share of skills rated high, each one listed with its id and
   codes (reviewed in benchmarks/audit_corpus_review.md), then the time to audit the whole
   corpus in one process (and with -j processes) and per skill.  With --build, the time of a
   cold `skillsite build` of the corpus (one process, no cache) for comparison.
3. The same figures for cisco-ai-skill-scanner 2.3.2 in its default static mode (static, bytecode
   and pipeline analyzers; no LLM, no VirusTotal, no cloud), run as `skill-scanner scan-all DIR
   --recursive --format json` on the same folders; its time is the whole process (start-up
   included) divided by the number of skills.

The reference scanner pulls in about a hundred packages (litellm, onnxruntime, magika, numpy,
fastapi ...), so it is not a dependency of skillsite, not even of the ``bench`` extra: install it in
a virtual environment of its own and pass that environment's Python:

    python3 -m venv /tmp/cisco-venv
    /tmp/cisco-venv/bin/pip install cisco-ai-skill-scanner==2.3.2
    python benchmarks/audit_quality.py --cisco-python /tmp/cisco-venv/bin/python

Without --cisco-python its rows say so.  This is a measuring script: it asserts nothing (the
quality gate is tests/unit/test_audit_fixtures.py).
"""
from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(REPO))
from machine import describe as describe_machine  # noqa: E402

from skillsite.audit import audit_paths, audit_skill, risk_of  # noqa: E402
from skillsite.audit.model import RANK  # noqa: E402

DEFAULT_FIXTURES = REPO / "tests" / "data" / "audit-fixtures"
DEFAULT_CORPUS = (REPO / ".." / "shared" / "corpus").resolve()
CISCO_MAIN = "import sys; from skill_scanner.cli.cli import main; sys.argv[0] = 'skill-scanner'; sys.exit(main())"
CISCO_RANK = {"INFO": 0, "LOW": 1, "MEDIUM": 2, "HIGH": 3, "CRITICAL": 3}


@dataclass(frozen=True)
class Verdicts:
    """One scanner's verdict on each skill: its worst severity as a rank (0 none/info .. 3 high)."""

    name: str
    rank: dict[str, int]          # skill folder (relative to the scanned root) -> rank
    codes: dict[str, list[str]]   # skill -> rule ids at the worst rank
    seconds: float


def skillsite_verdicts(root: Path, jobs: int) -> Verdicts:
    """`skillsite audit` on every skill under ``root`` (one process when jobs is 1)."""
    start = time.perf_counter()
    report = audit_paths([root], jobs=jobs)
    seconds = time.perf_counter() - start
    rank, codes = {}, {}
    for skill in report.skills:
        key = skill.folder.resolve().relative_to(root.resolve()).as_posix()
        rank[key] = RANK[skill.risk]
        codes[key] = sorted({f.code for f in skill.findings if RANK[f.severity] == RANK[skill.risk]})
    return Verdicts("skillsite", rank, codes, seconds)


def cisco_verdicts(python: str, root: Path) -> Verdicts | str:
    """cisco-ai-skill-scanner's static mode on every skill under ``root``, or why it could not run."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        command = [python, "-c", CISCO_MAIN, "scan-all", str(root), "--recursive", "--format", "json",
                   "--output", str(out)]
        start = time.perf_counter()
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=3600)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"cannot run: {exc}"
        seconds = time.perf_counter() - start
        if not out.is_file():
            return f"no report (exit {done.returncode}): {done.stderr.strip()[-300:]}"
        data = json.loads(out.read_text(encoding="utf-8"))
    rank, codes = {}, {}
    for result in data.get("results", []):
        key = Path(result["skill_path"]).resolve().relative_to(root.resolve()).as_posix()
        worst = CISCO_RANK.get(str(result.get("max_severity", "INFO")).upper(), 0)
        rank[key] = worst
        codes[key] = sorted({f["rule_id"] for f in result.get("findings", [])
                             if CISCO_RANK.get(str(f.get("severity")).upper(), 0) == worst})
    return Verdicts("cisco-ai-skill-scanner 2.3.2 (static)", rank, codes, seconds)


def prf(labels: list[dict], verdicts: Verdicts, threshold: int) -> dict[str, tuple[float, float, int, int, int]]:
    """Per category and overall: (precision, recall, true positives, flagged, malicious)."""
    groups: dict[str, list[dict]] = {}
    for fx in labels:
        groups.setdefault(fx["category"], []).append(fx)
    groups["overall"] = labels
    table = {}
    for category, items in groups.items():
        flagged = [fx for fx in items if verdicts.rank.get(fx["id"], 0) >= threshold]
        malicious = [fx for fx in items if fx["label"] == "malicious"]
        tp = sum(1 for fx in flagged if fx["label"] == "malicious")
        precision = tp / len(flagged) if flagged else 1.0
        recall = tp / len(malicious) if malicious else 1.0
        table[category] = (precision, recall, tp, len(flagged), len(malicious))
    return table


def print_quality(labels: list[dict], scanners: list[Verdicts | str], names: list[str], threshold: int,
                  title: str) -> None:
    print(f"\n## Fixtures: {title}")
    categories = sorted({fx["category"] for fx in labels}) + ["overall"]
    header = f"  {'category':<18}" + "".join(f"{n:>34}" for n in names)
    print(header)
    print(f"  {'':<18}" + "".join(f"{'precision  recall   (TP/flag/mal)':>34}" for _ in names))
    tables = [prf(labels, s, threshold) if isinstance(s, Verdicts) else None for s in scanners]
    for category in categories:
        cells = []
        for table, scanner in zip(tables, scanners):
            if table is None:
                cells.append(f"{'n/a (' + str(scanner)[:24] + ')':>34}")
                continue
            p, r, tp, flagged, mal = table[category]
            cells.append(f"{p:>10.3f}{r:>8.3f}   ({tp:>2}/{flagged:>2}/{mal:>2})")
        print(f"  {category:<18}" + "".join(f"{c:>34}" for c in cells))


def misses(labels: list[dict], verdicts: Verdicts, threshold: int) -> tuple[list[str], list[str]]:
    """Malicious fixtures not flagged, benign ones flagged."""
    fn = [fx["id"] for fx in labels if fx["label"] == "malicious" and verdicts.rank.get(fx["id"], 0) < threshold]
    fp = [fx["id"] for fx in labels if fx["label"] == "benign" and verdicts.rank.get(fx["id"], 0) >= threshold]
    return fn, fp


def corpus_section(corpus: Path, jobs: int, cisco: str | None) -> None:
    ours = skillsite_verdicts(corpus, 1)
    n = len(ours.rank)
    high = sorted(k for k, r in ours.rank.items() if r == 3)
    print(f"\n## Corpus: {corpus} ({n} skills)")
    print(f"  skillsite: {len(high)} rated high = {len(high) / n:.2%} (target < 2%); "
          f"risk counts {dict(sorted(Counter(ours.rank.values()).items()))} (0 none .. 3 high)")
    for key in high:
        print(f"    {key}: {', '.join(ours.codes[key])}")
    parallel = skillsite_verdicts(corpus, jobs) if jobs > 1 else None
    print(f"\n## Time on the corpus ({n} skills)")
    print(f"  {'scanner':<44}{'whole corpus':>14}{'per skill':>12}")
    print(f"  {'skillsite audit, 1 process':<44}{ours.seconds:>13.2f}s{ours.seconds / n * 1000:>10.2f}ms")
    if parallel is not None:
        label = f"skillsite audit, -j {jobs}"
        print(f"  {label:<44}{parallel.seconds:>13.2f}s{parallel.seconds / n * 1000:>10.2f}ms")
    if cisco is None:
        print(f"  {'cisco-ai-skill-scanner (static)':<44}{'n/a (no --cisco-python)':>26}")
        return
    theirs = cisco_verdicts(cisco, corpus)
    if isinstance(theirs, str):
        print(f"  {'cisco-ai-skill-scanner (static)':<44}  n/a ({theirs})")
        return
    m = len(theirs.rank)
    print(f"  {'cisco-ai-skill-scanner 2.3.2, scan-all':<44}{theirs.seconds:>13.2f}s{theirs.seconds / max(m, 1) * 1000:>10.2f}ms")
    their_high = sorted(k for k, r in theirs.rank.items() if r == 3)
    print(f"\n  cisco-ai-skill-scanner: {len(their_high)} of {m} skills HIGH or CRITICAL = "
          f"{len(their_high) / max(m, 1):.2%}; most frequent rules among them: "
          + ", ".join(f"{rule} ({count})" for rule, count in Counter(
              rule for k in their_high for rule in theirs.codes[k]).most_common(8)))


def build_section(corpus: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "skillsite", "build", str(corpus), "-o", str(Path(tmp) / "_site"),
                   "--no-cache", "-j", "1", "--keep-going", "--quiet"]
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        seconds = time.perf_counter() - start
    print(f"  {'cold skillsite build, 1 process (exit ' + str(done.returncode) + ')':<44}{seconds:>13.2f}s")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--fixtures", type=Path, default=DEFAULT_FIXTURES)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--cisco-python", default=None, help="Python of a venv with cisco-ai-skill-scanner")
    parser.add_argument("--build", action="store_true", help="also time a cold build of the corpus")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    print(f"command: {shlex.join([sys.executable, *sys.argv])}")
    print(f"machine: {describe_machine()}")

    labels = json.loads((args.fixtures / "labels.json").read_text(encoding="utf-8"))["fixtures"]
    counts = Counter(fx["label"] for fx in labels)
    print(f"\nfixtures: {args.fixtures} ({counts['malicious']} malicious, {counts['benign']} benign)")
    start = time.perf_counter()
    ours = Verdicts("skillsite", {fx["id"]: RANK[risk_of(audit_skill(args.fixtures / fx["id"]))] for fx in labels},
                    {}, 0.0)
    ours = Verdicts(ours.name, ours.rank, ours.codes, time.perf_counter() - start)
    theirs: Verdicts | str = "no --cisco-python" if args.cisco_python is None else \
        cisco_verdicts(args.cisco_python, args.fixtures)
    names = ["skillsite audit", "cisco-ai-skill-scanner 2.3.2"]
    print_quality(labels, [ours, theirs], names, 3, "flagged = rated high (skillsite) / HIGH or CRITICAL (cisco)")
    print_quality(labels, [ours, theirs], names, 2, "flagged = medium or above, both scanners")
    for verdicts in (ours, theirs):
        if isinstance(verdicts, Verdicts):
            fn, fp = misses(labels, verdicts, 3)
            print(f"  {verdicts.name}: missed {fn or 'none'}; false alarms {fp or 'none'}; "
                  f"{verdicts.seconds / len(labels) * 1000:.1f} ms per fixture")
    if args.corpus.is_dir():
        corpus_section(args.corpus, args.jobs, args.cisco_python)
        if args.build:
            build_section(args.corpus)
    else:
        print(f"\n(no corpus at {args.corpus})")


if __name__ == "__main__":
    main()
