"""The benchmark scripts cheap enough for CI run against today's code and print their tables.

Nothing else runs benchmarks/: its scripts reach into skillsite's modules, so a renamed function or
a new argument there broke them unnoticed (audit_parts.py's phase table, audit_build_cost.py's build
without the audit).  Each script runs here at its smallest size, in a process of its own, and must
exit 0 having printed its table: the machine it ran on, a Markdown table's rule where it prints one,
and rows named here.  No time is asserted (docs/contributing.md: speed targets live in benchmarks/).
"""
from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

from support import EXAMPLES, REPO, SAMPLE

BENCHMARKS = REPO / "benchmarks"
MACHINE = re.compile(r"^(- )?machine( \(at start\))?: \d+ (cores|CPUs)", re.MULTILINE)
RULE = re.compile(r"^\|---", re.MULTILINE)


#: catalog_sizes.py's estimate at twice the example's skills, far under ``shard_above``: one skills.json.
UNPAGED = re.compile(r"^estimate at .*\nskills\.json \(root\) .*\nmanifest page +-\nmanifest index +-\n", re.MULTILINE)

#: A skill that builds (the shared corpus has skills without frontmatter besides such ones).
GOOD_SKILL = "---\nname: good\ndescription: Builds, beside a skill that does not.\n---\n\nA body.\n"

#: Two dev queries (query TAB relevant folder names), for the scripts that take them.
QUERIES = "write a failing test first then implement\ttest-first\nreview a pull request\tcode-review\n"


@dataclass(frozen=True)
class Run:
    """One script at its smallest size: its arguments (``{tmp}``: a folder of its own, ``{site}``:
    the example catalog built), the files written into ``{tmp}`` first, and the rows its output
    must hold."""

    script: str
    args: tuple[str, ...]
    rows: tuple[str | re.Pattern[str], ...]
    table: bool = True   # prints a Markdown table (a ``|---`` rule)
    machine: bool = True  # names the machine (a comparison of outputs, or of sizes, does not)
    files: tuple[tuple[str, str], ...] = ()  # (path under {tmp}, text)
    tidy: bool = False   # leaves nothing in the temporary folder (TMPDIR) but ``others``
    others: tuple[str, ...] = ()  # folders of other runs made in TMPDIR first, which must be left there
    exits: tuple[int, ...] = (0,)  # audit_same_findings.py: 1 lists the differences (an audit being changed)
    chromium: bool = False  # drives chromium (skipped, as the browser tests are, where there is none)

    @property
    def id(self) -> str:
        return self.script.removesuffix(".py")


RUNS = [
    Run("audit_parts.py", ("--repeat", "1", "--corpus", str(SAMPLE)),
        ("| decode |", "| rules.injection |", "| frontmatter checks (SKILL.md) |", "| judge the hits |")),
    Run("literal_search.py", ("--repeat", "1", "--corpus", str(SAMPLE)),
        ("| re: one alternation (non-overlapping) |", "| ahocorasick-rs (DFA, the audit's) |")),
    Run("audit_quality.py", ("--corpus", str(SAMPLE)),
        ("  overall ", "skillsite audit, 1 process", "skillsite audit, -j 2"), table=False),
    Run("audit_same_findings.py", ("--base", "HEAD", "--corpus", str(SAMPLE)),
        ("\nfindings: ", " skills with a difference: ", "\npattern matches: ", " files with a difference: "),
        table=False, machine=False, exits=(0, 1)),
    Run("audit_send_lines.py", ("--size", "2000"), ("| `http -` | scripts/a.sh | ", "| `send.to.` | README.md | ")),
    Run("discover_walk.py", ("--repeat", "1"), ("/example-skills | this | ",)),
    Run("hostile_gitignore.py", ("--limit", "0.2"),
        (re.compile(r"^\| `a\*c\*b` \| 2,000 \| [\d.]+ s \| [\d.]+ s \| True \|$", re.MULTILINE),
         "| `a*c*c*c*c*b` | 320 | not run (over 0.2 s) | ")),
    Run("entry_parse.py", ("{site}", "--rounds", "1", "--repeat", "1"),
        ("| well formed | this |", "| one field damaged | this |", "catalog: ")),
    Run("command_lookup.py", ("--site", "{site}", "--runs", "1"),
        ("| code | open to message, s | requests | fetched, KB |", "| this | ")),
    Run("catalog_sizes.py", ("{site}", "--scale", "2"),
        ("skills.json (root) ", "\nestimate at ", " (2 copies, ", UNPAGED), table=False, machine=False),
    Run("loader_latency.py", ("--skills", "20", "--runs", "1", "--searches", "1", "--keep", "{tmp}/work"),
        ("cold open + first search (empty cache)", "warm open (304) + first search"), table=False),
    Run("validate_vs_skills_ref.py", (str(SAMPLE), "-n", "1", "--no-cli-loop"),
        ("| skillsite, no cache |", "| skills-ref, 1 process |")),
    Run("audit_build_cost.py", ("--runs", "1", "--corpus", str(SAMPLE), "--settle", "0"),
        ("| with the audit (skillsite build) |", "| the same build, audit left out |", "the audit adds "), tidy=True),
    Run("trust_cost.py", ("--skip-signing", "--opens", "1", "--skills", "0"),
        ("| example | warm |", "| example | cold |")),
    Run("copies_quality.py", (str(EXAMPLES), "--builds", "1", "--queries", "{tmp}/queries.tsv"),
        ("| not grouped |", "| grouped |", "| one result a group |"), files=(("queries.tsv", QUERIES),)),
    # the corpus report on the sample corpus, then search shards of one synthetic skill (the page
    # drawing no result for a query it does not answer; the agent's sample of descriptions from one)
    Run("search_quality.py", ("--corpus", str(SAMPLE), "--queries", "{tmp}/queries.tsv", "--synthetic", "0",
                              "--shards-synthetic", "1"),
        ("  skillsite search (CLI, shipped) ", "## Search shards of 1 corpus-shaped skills",
         "  1 description word, k=10 "), table=False, files=(("queries.tsv", QUERIES),)),
    Run("stage_memory.py", ("{tmp}/tree", "--jobs", "2"),
        ("\n1 skills published, ok=True, ", " (1 left out with errors)", "| skills |", "| pages |"),
        files=(("tree/good/SKILL.md", GOOD_SKILL), ("tree/no-frontmatter/SKILL.md", "Only a body.\n"))),
    Run("browser_search_latency.py", ("--site", "{site}", "--runs", "1", "--query", "test"),
        ("- catalog: 13 skills", "| test | "), chromium=True),
    Run("cold_parts.py", (str(EXAMPLES), "--repeat", "1", "--settle", "0"),
        ("| render (skillsite's renderer) |", "| audit (read and scan each skill's files) |",
         "| output files (write, copy, link) |", "| **cold build, one job** |"),
        tidy=True, others=("skillsite-bench-trash/1",)),
    Run("render_cost.py", ("--size", "2000", "--only", "#\n", "--only", "![", "--code", f"before={REPO}", "--code",
                           f"after={REPO}"),
        ("| construct repeated | before: s, peak MB, HTML MB | after: s, peak MB, HTML MB |", "| '#\\n' | ",
         "| '![' | ")),
    # synthetic skills (benchmarks/synth.py), copied from the sample corpus
    Run("similar_pairs.py", ("--sizes", "20", "--rounds", "1", "--keep", "{tmp}/work"),
        ("| 20 | this | MAX_COMMON |",)),
    Run("near_copies.py", ("--sizes", "20,40", "--rounds", "1"),
        ("| skills | code | seconds (min-max) | peak MB | exit | printed digest |",
         re.compile(r"\| 40 \| this \| [\d.]+ "))),
    Run("rebuild_floor.py", ("--skills", "20", "--repeat", "1", "--work", "{tmp}/work"),
        ("| discovery (walk, stat every file) |", "| read every skill's stored record |",
         "| today's one-change rebuild |")),
    Run("resident_rebuild.py", ("--skills", "20", "--edits", "2", "--rounds", "1", "--work", "{tmp}/work"),
        ("| code | first rebuild, after a build that worked | after one with nothing to do |",
         "| catalog in place, seconds (min-max) |", "| full collections, all rebuilds | their seconds |",
         "| mean rebuild, seconds | memory held after, MB |", "| this |")),
    # the example catalog grown with 20 user-invocable skills, one server of this version
    Run("mcp_startup.py", ("--sizes", "20", "--runs", "1", "--work", "{tmp}/work"),
        ("| catalog | skills | code | initialize answered, s |", "| 20 grown | 33 | this |")),
]


#: The scripts too slow for this file even at their smallest size, and what makes them so; and the
#: helpers the others import.
LEFT_OUT = {
    "build_speed.py": "the render floor and five builds a size",
    "scale.py": "three builds, a serve, an agent and chromium a size",
    "serve_watch.py": "waits for a serve to settle and be idle",
    "hostile_input.py": "over a thousand audits of an 11 KB footer, and a skill of 8,000 trigger patterns validated "
                        "(test_hostile_input_repeats_one_literal_of_each_gate_set_by_default)",
    "hostile_patterns.py": "thousands of shapes built from every audit pattern, each audited at two sizes as two "
                           "kinds of file (tests/unit/test_audit_hostile_shapes.py holds what it found)",
    "history_cost.py": "a git history made, then eight builds",
    "validate_cache.py": "validations in six situations, on copies of the tree",
    "rebuild_trust.py": "a cold build and four rebuilds, in processes of their own",
    "ci_rebuild.py": "three builds, each on a fresh copy of the tree",
    "rebuild_code.py": "a cold build and three rebuilds a version",
    "rebuild_collections.py": "rebuilds of the 10,000-skill folder rebuild_code.py leaves, each version in turn",
    "machine.py": "a helper", "code_versions.py": "a helper",
    "synth.py": "a helper (test_synthetic_skills_without_real_ones_to_copy_are_a_one_line_refusal)",
}


def test_every_script_is_run_or_left_out_for_a_reason() -> None:
    scripts = sorted(path.name for path in BENCHMARKS.glob("*.py"))
    assert sorted([run.script for run in RUNS] + list(LEFT_OUT)) == scripts


def has_chromium() -> bool:
    """Whether the benchmarks find chromium and Playwright (as browser_search_latency.py looks)."""
    found = [os.environ.get("SKILLSITE_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")]
    return importlib.util.find_spec("playwright") is not None and any(path and os.path.exists(path) for path in found)


@pytest.fixture
def temporary() -> Iterator[Path]:
    """A TMPDIR of a script's own, with a short path (chromium's socket in it has a length limit)."""
    folder = Path(tempfile.mkdtemp(prefix="bench-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def run_script(run: Run, tmp: Path, temporary: Path,
               request: pytest.FixtureRequest) -> subprocess.CompletedProcess[str]:
    """``run``'s script with this Python, started in ``tmp`` (its files written there first), with
    ``temporary`` as its TMPDIR and synthetic skills made from the sample corpus."""
    for name, text in run.files:
        (tmp / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp / name).write_text(text, encoding="utf-8")
    site = request.getfixturevalue("site") if any("{site}" in arg for arg in run.args) else None
    args = [arg.format(tmp=tmp, site=site) for arg in run.args]
    return subprocess.run([sys.executable, str(BENCHMARKS / run.script), *args], cwd=tmp,
                          env={**os.environ, "TMPDIR": str(temporary), "SKILLSITE_BENCH_CORPUS": str(SAMPLE)},
                          capture_output=True, text=True, timeout=600)


def printed(row: str | re.Pattern[str], output: str) -> bool:
    """Whether ``output`` holds ``row`` (a pattern: matches it)."""
    return bool(row.search(output)) if isinstance(row, re.Pattern) else row in output


@pytest.mark.parametrize("run", RUNS, ids=[run.id for run in RUNS])
def test_benchmark_prints_its_table(run: Run, tmp_path: Path, temporary: Path, request: pytest.FixtureRequest) -> None:
    if run.chromium and not has_chromium():
        pytest.skip("chromium or playwright is not installed (apt-get install chromium, or set SKILLSITE_CHROMIUM)")
    for other in run.others:
        (temporary / other).mkdir(parents=True)
    done = run_script(run, tmp_path, temporary, request)
    said = f"{run.script} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert done.returncode in run.exits and "Traceback" not in done.stderr, said
    gone = [other for other in run.others if not (temporary / other).is_dir()]
    assert not gone, f"{run.script} deleted {gone}, another run's, from its temporary folder"
    left = sorted(path.relative_to(temporary).as_posix() for path in temporary.rglob("*"))
    ours = [path for path in left if not any(other == path or other.startswith(path + "/") for other in run.others)]
    assert not run.tidy or not ours, f"{run.script} left {ours} in its temporary folder"
    assert not run.machine or MACHINE.search(done.stdout), done.stdout[:2000]
    assert not run.table or RULE.search(done.stdout), done.stdout[-3000:]
    missing = [row for row in run.rows if not printed(row, done.stdout)]
    assert not missing, f"{run.script} printed no {missing}:\n{done.stdout[-3000:]}"


def test_synthetic_skills_without_real_ones_to_copy_are_a_one_line_refusal(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(BENCHMARKS / "synth.py"), str(tmp_path / "out"), "3"], cwd=tmp_path,
                          env={**os.environ, "SKILLSITE_BENCH_CORPUS": str(tmp_path / "no-such-tree")},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr == f"synth: no valid skill to copy under {tmp_path / 'no-such-tree'} " \
                          "(SKILLSITE_BENCH_CORPUS names another tree of real skills)\n"


def test_browser_latency_refuses_a_sharded_catalog_in_one_line(tmp_path: Path) -> None:
    """A catalog above its shard_above has no search/lunr.json to time (it crashed reading it)."""
    from skillsite.config import SiteConfig
    from skillsite.publish.build import build

    site = tmp_path / "site"
    assert build([EXAMPLES], site, SiteConfig(shard_above=1)).ok
    done = subprocess.run([sys.executable, str(BENCHMARKS / "browser_search_latency.py"), "--site", str(site),
                           "--runs", "1"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr == f"browser_search_latency: {site} is a sharded catalog (13 skills, above its shard_above): " \
                          "its page searches search/shards.json, not search/lunr.json; benchmarks/scale.py measures " \
                          "that page\n"


#: What hostile_input.py repeats, printed as JSON by a process of its own (it puts benchmarks/ on sys.path).
HOSTILE_LITERALS = """
import json, sys
sys.path.insert(0, sys.argv[1])
import hostile_input as h
cover = h.covering_literals()
print(json.dumps({"cover": cover, "again": h.covering_literals(), "all": h.all_literals(), "extra": h.EXTRA_WORDS,
                  "sets": [sorted(group) for group in h.gate_sets()],
                  "cases": len(h.audit_cases(cover, h.SEPARATORS, h.AUDITED_AS))}))
"""


def test_hostile_input_repeats_one_literal_of_each_gate_set_by_default() -> None:
    """hostile_input.py's default run stays as long as its docstring says (the literal table grew
    from 260 literals to over a thousand, and a full run past 12 minutes): a cover of the table,
    no more cases than the 2,080 it had when "a few minutes" was measured, the same every run;
    --all-literals repeats every literal."""
    done = subprocess.run([sys.executable, "-c", HOSTILE_LITERALS, str(BENCHMARKS)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    cover, sets = set(found["cover"]), [set(group) for group in found["sets"]]
    assert all(group & cover for group in sets)
    assert set(found["extra"]) <= cover and found["cover"] == sorted(cover) == found["again"]
    assert found["cases"] <= 2080
    assert cover < set(found["all"]) == set().union(*sets) | set(found["extra"])
