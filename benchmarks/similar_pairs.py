"""How the look-alike descriptions check (SK219, ``similar_pairs``) grows with the catalog, by
each version of the code, side by side.

    python benchmarks/similar_pairs.py [--sizes 10000,30000,100000] [--code LABEL=FOLDER ...]
                                       [--rounds 3] [--src TREE] [--keep DIR] [--uncapped]

Descriptions of each size: the first that many of synthetic skills (benchmarks/synth.py, the
corpus's vocabulary), or of a real tree (``--src``, every SKILL.md's frontmatter).  Each version
(``--code LABEL=FOLDER``, a checkout put first on PYTHONPATH; default: this repository) checks
them in a fresh process of its own, the versions taking turns for ``--rounds`` rounds.  Printed:
the median seconds of one check in one process (the build spreads it over its cores), the pairs
found, and a digest of them, which must be the same for every version.  ``--uncapped`` also runs
the check without leaving out the terms of more than ``MAX_COMMON`` descriptions (5 % of the
descriptions only), for the pairs that limit leaves out and the time it saves.  ``--keep DIR``
reuses (or leaves) the synthetic sources there.
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

from code_versions import check_version, in_turns, run_in_version  # noqa: E402
from machine import describe  # noqa: E402
from synth import generate  # noqa: E402

_DESCRIPTION = re.compile(r"^description:\s*(.*)$", re.M)

#: One check of one version, in a fresh process (given ``descriptions``, a JSON file, ``size`` and
#: ``uncapped``): prints, as JSON, its seconds, its pairs and their digest.
CHECK = """
import hashlib, json, sys, time
from skillsite.agent import budget
every = json.loads(open(descriptions, encoding="utf-8").read())[:size]
if uncapped:
    budget.MAX_COMMON = sys.maxsize
started = time.perf_counter()
pairs = budget.similar_pairs(every)
seconds = time.perf_counter() - started
print(json.dumps({"seconds": seconds, "pairs": len(pairs),
                  "digest": hashlib.sha256(json.dumps(pairs).encode()).hexdigest()[:12]}))
"""


def synthetic_descriptions(src: Path) -> list[dict[str, str]]:
    """id, name and description of every synthetic skill (their descriptions are one line)."""
    found = []
    for index, path in enumerate(sorted(src.glob("*/*/SKILL.md"))):
        match = _DESCRIPTION.search(path.read_text(encoding="utf-8", errors="replace"))
        text = match.group(1).strip().strip("'\"") if match else ""
        found.append({"id": f"s{index:06d}", "name": path.parent.name, "description": text or "none"})
    return found


def real_descriptions(src: Path) -> list[dict[str, str]]:
    """id, name and description of every SKILL.md under ``src`` whose frontmatter has a
    description (the others are left out, as the build leaves them out of the check)."""
    found = []
    for index, path in enumerate(sorted(src.rglob("SKILL.md"))):
        parts = path.read_text(encoding="utf-8", errors="replace").split("---", 2)
        try:
            front = yaml.safe_load(parts[1]) if len(parts) == 3 and not parts[0].strip() else None
        except yaml.YAMLError:
            continue
        if isinstance(front, dict) and isinstance(front.get("description"), str):
            found.append({"id": f"r{index:06d}", "name": path.parent.name, "description": front["description"]})
    return found


def check(label: str, code: Path, descriptions: Path, size: int, uncapped: bool, cwd: Path) -> dict:
    """One check by the version at ``code`` in a fresh process: its seconds, pairs and digest."""
    return json.loads(run_in_version(f"{label}: the check", code, CHECK, cwd, descriptions=str(descriptions),
                                     size=size, uncapped=uncapped))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,30000,100000")
    parser.add_argument("--code", action="append", default=[], metavar="LABEL=FOLDER")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--src", type=Path, help="a real tree of skills instead of synthetic ones")
    parser.add_argument("--keep", type=Path, metavar="DIR")
    parser.add_argument("--uncapped", action="store_true")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    codes = dict(item.split("=", 1) for item in args.code) or {"this": str(REPO)}
    work = args.keep or Path(tempfile.mkdtemp(prefix="similar-pairs-"))
    work.mkdir(parents=True, exist_ok=True)
    if args.src:
        every = real_descriptions(args.src)
    else:
        src = work / f"synthetic-{max(sizes)}"
        if not src.is_dir():
            generate(src, max(sizes), files=False)
        every = synthetic_descriptions(src)
    sizes = [size for size in sizes if size <= len(every)] or [len(every)]
    descriptions = work / "descriptions.json"
    descriptions.write_text(json.dumps(every), encoding="utf-8")
    for label, code in codes.items():
        check_version(label, Path(code), work)
    modes = [False, True] if args.uncapped else [False]
    results: dict[tuple[str, int, bool], list[dict]] = {}
    for number in range(args.rounds):
        for size in sizes:
            for label, code in in_turns(codes, number):
                for uncapped in modes:
                    found = check(label, Path(code), descriptions, size, uncapped, work)
                    results.setdefault((label, size, uncapped), []).append(found)
    print(f"machine: {describe()}")
    print(f"command: python benchmarks/similar_pairs.py --sizes {args.sizes} "
          f"{''.join(f'--code {c} ' for c in args.code)}--rounds {args.rounds}"
          f"{f' --src {args.src}' if args.src else ''}{' --uncapped' if args.uncapped else ''}")
    print(f"descriptions: {'of ' + str(args.src) if args.src else 'synthetic'}; medians of {args.rounds} rounds, "
          "versions in turns\n")
    print("| skills | code | terms left out | seconds (min-max) | pairs | their digest |")
    print("|---:|---|---|---:|---:|---|")
    for (label, size, uncapped), runs in results.items():
        seconds = [run["seconds"] for run in runs]
        print(f"| {size:,} | {label} | {'5 % only' if uncapped else 'MAX_COMMON'} | "
              f"{statistics.median(seconds):.2f} ({min(seconds):.2f}-{max(seconds):.2f}) | "
              f"{runs[0]['pairs']:,} | {runs[0]['digest']} |")


if __name__ == "__main__":
    main()
