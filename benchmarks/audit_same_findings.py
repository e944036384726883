"""The audit's findings, finding by finding, against another revision's: the same, or each difference.

Audits every skill of the shared corpus and of the labelled fixtures (tests/data/audit-fixtures)
with this tree and with a git revision of it (``--base``, default ``main``, unpacked from git into a
temporary folder), each in a process of its own, and compares every finding: code, category,
severity, path, line, column and message, in the order the audit reports them.  Then, as findings
keep one match per rule and line, it compares what lies under them too: the matches (start and
end) of every declared pattern in every text file of those skills.  Prints how many skills,
findings and matches each side has and how many are equal, and lists the differences.

Exits 1 when a finding differs.  Matches that differ while every finding is the same (a pattern
rewritten to read less, its finding placed where the old match started: SK622's link
definitions, matched from their own line since 4cff9f7) are listed and said to be such, and
exit 0 unless ``--spans`` makes them fail too.

Run:  python benchmarks/audit_same_findings.py [--base main] [--corpus ../shared/corpus] [--spans]
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
import hashlib, json, sys
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
#: (skill, file) a line with its matches by pattern, each named by a digest of what it matches
#: and says (not its place in the list: a pattern added before it would change every later number).
MATCHES = """
import hashlib, json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from skillsite.audit import engine
from skillsite.audit.files import decode, read_capped, skill_files
from skillsite.audit.magic import looks_binary
from skillsite.audit.rules import PATTERNS
from skillsite.audit.text import make_document
engine.prepare()
names = [hashlib.sha256(repr((p.source, p.detail, getattr(p, 'scope', None))).encode()).hexdigest()[:10]
         for p in PATTERNS]
for root in map(Path, sys.argv[2:]):
    folders = sorted({p.parent for p in root.rglob("SKILL.md")} | {p for p in root.iterdir() if p.is_dir()})
    for folder in folders:
        for file in skill_files(folder):
            raw = read_capped(file)
            if raw is None or looks_binary(raw):
                continue
            doc = make_document(file.path, decode(raw))
            found = {names[i]: [m.span() for m in p.finditer(doc)] for i, p in enumerate(PATTERNS)}
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


def compare(base: list[tuple[str, object]], ours: list[tuple[str, object]]) -> list[str]:
    """Each difference between two audits, as a line (none when all is the same): findings (a
    list per skill) or pattern matches (spans by pattern number, per file)."""
    differences = []
    if [skill for skill, _ in base] != [skill for skill, _ in ours]:
        differences.append("the skills (or files) audited differ")
    for (skill, before), (_, after) in zip(base, ours):
        if before == after:
            continue
        if isinstance(before, dict) and isinstance(after, dict):
            differences.append(f"{skill}: " + "; ".join(_spans_differing(before, after)))
            continue
        gone = [f for f in before if f not in after]  # type: ignore[attr-defined, operator]
        new = [f for f in after if f not in before]  # type: ignore[attr-defined, operator]
        differences.append(f"{skill}: only before {gone}, only after {new}" if gone or new
                           else f"{skill}: the same findings in another order")
    return differences


def _spans_differing(before: dict[str, list], after: dict[str, list]) -> list[str]:
    """Each pattern whose matches in one file differ, with the spans only one side has."""
    lines = []
    for name in sorted(before.keys() | after.keys()):
        old, new = before.get(name, []), after.get(name, [])
        if old != new:
            gone, added = [s for s in old if s not in new], [s for s in new if s not in old]
            lines.append(f"pattern {name}: only before {gone[:5]}, only after {added[:5]}" if gone or added
                         else f"pattern {name}: the same matches in another order")
    return lines


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
    parser.add_argument("--spans", action="store_true",
                        help="fail (exit 1) when pattern matches differ, even with every finding the same")
    args = parser.parse_args()
    roots = [args.corpus.resolve(), FIXTURES]
    print(f"command: python benchmarks/audit_same_findings.py --base {args.base} --corpus {args.corpus}"
          + (" --spans" if args.spans else ""))
    with tempfile.TemporaryDirectory() as folder:
        tree = unpacked(args.base, Path(folder))
        base = {script: run(script, tree, roots) for script in (DUMP, MATCHES)}
    ours = {script: run(script, REPO, roots) for script in (DUMP, MATCHES)}
    findings = report("findings", "skills", base[DUMP], ours[DUMP], len)
    spans = report("pattern matches", "files", base[MATCHES], ours[MATCHES],
                   lambda spans: sum(map(len, spans.values())))  # type: ignore[attr-defined]
    sys.exit(verdict(findings, spans, args.spans))


def verdict(findings: list[str], spans: list[str], strict: bool) -> int:
    """The exit status, said in a line: 1 when a finding differs, or (``strict``: ``--spans``) a match."""
    if findings:
        print(f"FAIL: findings differ in {len(findings)} skills")
        return 1
    if spans:
        print(f"{'FAIL' if strict else 'ok'}: every finding is the same; pattern matches differ ({len(spans)} "
              + ("listed above, --spans)" if strict else "listed above), which changes no finding (--spans makes "
                 "this fail)"))
        return 1 if strict else 0
    print("ok: every finding and every pattern match is the same")
    return 0


if __name__ == "__main__":
    main()
