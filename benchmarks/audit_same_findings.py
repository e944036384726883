"""The audit's findings, finding by finding, against another revision's: the same, or each difference.

Audits every skill of the shared corpus and of the labelled fixtures (tests/data/audit-fixtures)
with this tree and with a git revision of it (``--base``, default ``main``, unpacked from git into a
temporary folder), each in a process of its own, and compares every finding: code, category,
severity, path, line, column and message, in the order the audit reports them.  Then, as findings
keep one match per rule and line, it compares what lies under them too: the matches (start and
end) of every declared pattern in every text file of those skills.  Prints how many skills,
findings and matches each side has and how many are equal; lists the differences, and exits 1
when there are any.

Run:  python benchmarks/audit_same_findings.py [--base main] [--corpus ../shared/corpus]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = (REPO / ".." / "shared" / "corpus").resolve()
FIXTURES = REPO / "tests" / "data" / "audit-fixtures"

#: Run in a child process: the findings of every skill under each root, as JSON, one skill a line.
DUMP = """
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from skillsite.audit import audit_skill
for root in map(Path, sys.argv[2:]):
    folders = sorted({p.parent for p in root.rglob("SKILL.md")} | {p for p in root.iterdir() if p.is_dir()})
    for folder in folders:
        findings = [f.to_json() for f in audit_skill(folder)]
        print(json.dumps([str(folder.relative_to(root.parent)), findings], ensure_ascii=False))
"""

#: Run in a child process: the matches of every declared pattern in every text file, as JSON, one
#: (skill, file) a line with its matches by pattern number (the patterns in declaration order).
MATCHES = """
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from skillsite.audit import engine
from skillsite.audit.files import decode, read_capped, skill_files
from skillsite.audit.magic import looks_binary
from skillsite.audit.rules import PATTERNS
from skillsite.audit.text import make_document
engine.prepare()
for root in map(Path, sys.argv[2:]):
    folders = sorted({p.parent for p in root.rglob("SKILL.md")} | {p for p in root.iterdir() if p.is_dir()})
    for folder in folders:
        for file in skill_files(folder):
            raw = read_capped(file)
            if raw is None or looks_binary(raw):
                continue
            doc = make_document(file.path, decode(raw))
            found = {i: [m.span() for m in p.finditer(doc)] for i, p in enumerate(PATTERNS)}
            name = str(folder.relative_to(root.parent)) + "/" + file.path
            print(json.dumps([name, {i: spans for i, spans in found.items() if spans}], ensure_ascii=False))
"""


def run(script: str, tree: Path, roots: list[Path]) -> list[tuple[str, object]]:
    """What ``script`` prints (one JSON pair a line) for every skill under ``roots``, run with the
    code in ``tree``."""
    out = subprocess.run([sys.executable, "-c", script, str(tree), *map(str, roots)], capture_output=True,
                         text=True, check=True, cwd=tempfile.gettempdir()).stdout
    return [tuple(json.loads(line)) for line in out.splitlines()]  # type: ignore[misc]


def unpacked(revision: str, into: Path) -> Path:
    """The tree of ``revision`` of this repository, unpacked into ``into``."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", revision], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def compare(base: list[tuple[str, list]], ours: list[tuple[str, list]]) -> list[str]:
    """Each difference between two audits, as a line (none when every finding is the same)."""
    differences = []
    if [skill for skill, _ in base] != [skill for skill, _ in ours]:
        differences.append("the skills (or files) audited differ")
    for (skill, before), (_, after) in zip(base, ours):
        if before != after:
            gone = [f for f in before if f not in after]
            new = [f for f in after if f not in before]
            differences.append(f"{skill}: only before {gone}, only after {new}" if gone or new
                               else f"{skill}: the same findings in another order")
    return differences


def report(what: str, unit: str, base: list[tuple[str, list]], ours: list[tuple[str, list]],
           size: Callable[[object], int]) -> list[str]:
    """Print the counts of one comparison; return its differences."""
    same = sum(size(b) for (_, b), (_, o) in zip(base, ours) if b == o)
    differences = compare(base, ours)
    print(f"{what}: {len(base)} {unit} before, {len(ours)} after; {sum(size(b) for _, b in base)} before, "
          f"{sum(size(o) for _, o in ours)} after, {same} of them in {unit} where all are the same and in order; "
          f"{unit} with a difference: {len(differences)}")
    for line in differences:
        print("  " + line)
    return differences


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", default="main", help="git revision to compare with (default: main)")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = parser.parse_args()
    roots = [args.corpus.resolve(), FIXTURES]
    print(f"command: python benchmarks/audit_same_findings.py --base {args.base} --corpus {args.corpus}")
    with tempfile.TemporaryDirectory() as folder:
        tree = unpacked(args.base, Path(folder))
        base = {script: run(script, tree, roots) for script in (DUMP, MATCHES)}
    ours = {script: run(script, REPO, roots) for script in (DUMP, MATCHES)}
    differences = report("findings", "skills", base[DUMP], ours[DUMP], len) + report(
        "pattern matches", "files", base[MATCHES], ours[MATCHES], lambda spans: sum(map(len, spans.values())))
    sys.exit(1 if differences else 0)


if __name__ == "__main__":
    main()
