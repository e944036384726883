"""The benchmark scripts cheap enough for CI run against today's code and print their tables.

Nothing else runs benchmarks/: its scripts reach into skillsite's modules, so a renamed function or
a new argument there broke them unnoticed (audit_parts.py's phase table, audit_build_cost.py's build
without the audit).  Each script runs here at its smallest size, in a process of its own, and must
exit 0 having printed its table: the machine it ran on, a Markdown table's rule where it prints one,
and rows named here.  No time is asserted (docs/contributing.md: speed targets live in benchmarks/).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from support import EXAMPLES, REPO, SAMPLE

BENCHMARKS = REPO / "benchmarks"
MACHINE = re.compile(r"^machine: \d+ cores; ", re.MULTILINE)
RULE = re.compile(r"^\|---", re.MULTILINE)


#: Two dev queries (query TAB relevant folder names), for the scripts that take them.
QUERIES = "write a failing test first then implement\ttest-driven-development\nreview a pull request\tcode-review\n"


@dataclass(frozen=True)
class Run:
    """One script at its smallest size: its arguments (``{tmp}``: a folder of its own, ``{site}``:
    the example catalog built), the files written into ``{tmp}`` first, and the rows its output
    must hold."""

    script: str
    args: tuple[str, ...]
    rows: tuple[str, ...]
    table: bool = True   # prints a Markdown table (a ``|---`` rule)
    files: tuple[tuple[str, str], ...] = ()
    tidy: bool = False   # leaves nothing in the temporary folder (TMPDIR)

    @property
    def id(self) -> str:
        return self.script.removesuffix(".py")


RUNS = [
    Run("audit_build_cost.py", ("--runs", "1", "--corpus", str(SAMPLE), "--settle", "0"),
        ("| with the audit (skillsite build) |", "| the same build, audit left out |", "the audit adds "), tidy=True),
    Run("trust_cost.py", ("--skip-signing", "--opens", "1", "--skills", "0"),
        ("| example | warm |", "| example | cold |")),
    Run("copies_quality.py", (str(SAMPLE), "--builds", "1", "--queries", "{tmp}/queries.tsv"),
        ("| not grouped |", "| grouped |", "| one result a group |"), files=(("queries.tsv", QUERIES),)),
    Run("stage_memory.py", (str(EXAMPLES), "--jobs", "2"), ("13 skills published, ok=True", "| skills |", "| pages |")),
    # synthetic skills (benchmarks/synth.py), copied from the sample corpus
    Run("similar_pairs.py", ("--sizes", "20", "--rounds", "1", "--keep", "{tmp}/work"),
        ("| 20 | this | MAX_COMMON |",)),
    Run("rebuild_floor.py", ("--skills", "20", "--repeat", "1", "--work", "{tmp}/work"),
        ("| discovery (walk, stat every file) |", "| read every skill's stored record |",
         "| today's one-change rebuild |")),
    Run("resident_rebuild.py", ("--skills", "20", "--edits", "2", "--rounds", "1", "--work", "{tmp}/work"),
        ("| this |",)),
]


def run_script(run: Run, tmp: Path, request: pytest.FixtureRequest) -> subprocess.CompletedProcess[str]:
    """``run``'s script with this Python, started in ``tmp`` (its files written there first), with
    ``tmp/temporary`` as its TMPDIR and synthetic skills made from the sample corpus."""
    for name, text in run.files:
        (tmp / name).write_text(text, encoding="utf-8")
    (tmp / "temporary").mkdir()
    site = request.getfixturevalue("site") if any("{site}" in arg for arg in run.args) else None
    args = [arg.format(tmp=tmp, site=site) for arg in run.args]
    return subprocess.run([sys.executable, str(BENCHMARKS / run.script), *args], cwd=tmp,
                          env={**os.environ, "TMPDIR": str(tmp / "temporary"),
                               "SKILLSITE_BENCH_CORPUS": str(SAMPLE)},
                          capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("run", RUNS, ids=[run.id for run in RUNS])
def test_benchmark_prints_its_table(run: Run, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    done = run_script(run, tmp_path, request)
    left = sorted(path.name for path in (tmp_path / "temporary").iterdir())
    assert not run.tidy or not left, f"{run.script} left {left} in its temporary folder"
    assert done.returncode == 0, f"{run.script} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert MACHINE.search(done.stdout), done.stdout[:2000]
    assert not run.table or RULE.search(done.stdout), done.stdout[-3000:]
    missing = [row for row in run.rows if row not in done.stdout]
    assert not missing, f"{run.script} printed no {missing}:\n{done.stdout[-3000:]}"


def test_synthetic_skills_without_real_ones_to_copy_are_a_one_line_refusal(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(BENCHMARKS / "synth.py"), str(tmp_path / "out"), "3"], cwd=tmp_path,
                          env={**os.environ, "SKILLSITE_BENCH_CORPUS": str(tmp_path / "no-such-tree")},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr == f"synth: no valid skill to copy under {tmp_path / 'no-such-tree'} " \
                          "(SKILLSITE_BENCH_CORPUS names another tree of real skills)\n"
