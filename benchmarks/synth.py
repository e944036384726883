"""Synthetic skill catalogs with the size distribution of the real corpus.

Each synthetic skill copies a randomly chosen real skill of ``../shared/corpus`` (its
body and bundled files: the same Markdown complexity and file sizes), under a unique
name, with a description and tags salted from the corpus vocabulary so the search
index grows as a real catalog's would.  Its body ends with a few lines of its own (one for
every eight of the template's), so that no two synthetic skills are copies of one skill
(``skillsite build`` would group them: see docs/configuration.md) and a catalog of N synthetic
skills shows N skills.  Bundled files are hard-linked when possible, so a 100,000-skill catalog
costs little disk.  Deterministic for a given seed.  ``SKILLSITE_BENCH_CORPUS`` names another
tree of real skills to copy (tests/integration/test_benchmarks_run.py gives the checked-in sample,
so the benchmarks run in a clone without the shared corpus beside it).

    python benchmarks/synth.py DEST N [--seed S] [--no-files]
"""
from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("SKILLSITE_BENCH_CORPUS") or REPO.parent / "shared" / "corpus")
sys.path.insert(0, str(REPO))


@dataclass(frozen=True)
class Template:
    description: str
    body: str
    files: tuple[tuple[str, Path], ...]


def load_templates(corpus: Path = CORPUS) -> list[Template]:
    """Every valid skill of the corpus, as a template; stops (SystemExit) when there is none, as
    where the shared corpus is not beside the repository (reading a missing tree finds nothing)."""
    from skillsite.source.catalog import read_catalog

    reading = read_catalog([corpus])
    templates = [Template(s.description, s.body, tuple((f.path, f.abspath) for f in s.source.files))
                 for s in reading.skills]
    if not templates:
        raise SystemExit(f"synth: no valid skill to copy under {corpus} "
                         "(SKILLSITE_BENCH_CORPUS names another tree of real skills)")
    return templates


def _vocabulary(templates: list[Template]) -> list[str]:
    words = set()
    for t in templates:
        words.update(w.lower() for w in re.findall(r"[A-Za-z][A-Za-z-]{3,14}", t.description))
    return sorted(words)


def _link_or_copy(source: Path, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, dest)
    except OSError:
        shutil.copyfile(source, dest)


def own_lines(rng: random.Random, vocab: list[str], body: str) -> str:
    """Lines of one synthetic skill's own, one for every eight of its template's body (at least
    three): with them, two skills made from one template share under 0.9 of their lines."""
    count = max(3, sum(1 for line in body.splitlines() if line.strip()) // 8)
    lines = [" ".join(rng.sample(vocab, 8)).capitalize() + "." for _ in range(count)]
    return "\n\n## Notes\n\n" + "\n".join(f"- {line}" for line in lines) + "\n"


def scratch_catalog(work: Path | None, prefix: str, count: int) -> tuple[Path, Path]:
    """A benchmark's scratch folder (``work``, else a new temporary one named ``prefix``...) and,
    in its ``src``, a synthetic catalog of ``count`` skills (made unless it is there already)."""
    work = (work or Path(tempfile.mkdtemp(prefix=prefix))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    src = work / "src"
    if not src.exists():
        generate(src, count)
    return work, src


def generate(dest: Path, count: int, seed: int = 0, files: bool = True, corpus: Path = CORPUS) -> Path:
    """Write ``count`` synthetic skills under ``dest`` (grouped 100 to a folder, like real trees)."""
    rng = random.Random(seed)
    templates = load_templates(corpus)
    vocab = _vocabulary(templates)
    tags = rng.sample(vocab, 80)  # real catalogs share a few dozen tags, used with a long tail
    tag_weights = [1 / (rank + 1) for rank in range(len(tags))]
    for i in range(count):
        t = templates[rng.randrange(len(templates))]
        name = f"syn-{i:06d}"
        folder = dest / f"group-{i // 100:04d}" / name
        folder.mkdir(parents=True, exist_ok=True)
        salt = " ".join(rng.sample(vocab, 6))
        front = {"name": name, "description": (t.description[:900] + f" Also covers {salt}.")[:1024],
                 "tags": sorted(set(rng.choices(tags, weights=tag_weights, k=3))), "priority": rng.randrange(5)}
        text = ("---\n" + yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=1000) + "---\n" + t.body
                + own_lines(rng, vocab, t.body))
        (folder / "SKILL.md").write_text(text, encoding="utf-8")
        if files:
            for rel, source in t.files:
                _link_or_copy(source, folder / rel)
    return dest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dest", type=Path)
    parser.add_argument("count", type=int)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-files", action="store_true")
    args = parser.parse_args()
    generate(args.dest, args.count, args.seed, not args.no_files)
    print(f"wrote {args.count} skills under {args.dest}")


if __name__ == "__main__":
    main()
