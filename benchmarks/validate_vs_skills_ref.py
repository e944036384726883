"""Time `skillsite validate --profile spec` against the reference validator skills-ref.

Whole processes are timed (interpreter start-up and imports included), each N times;
the table reports the median and the minimum.

    python benchmarks/validate_vs_skills_ref.py [TREE] [-n 5] [--no-cli-loop]

TREE defaults to ../shared/corpus relative to the repository root.

Rows:
  skillsite, no cache `python -m skillsite validate TREE --profile spec --format json --no-cache`
                      (exit code ignored: it is 1 when the tree has errors).
  skillsite, first    the same without --no-cache, in an empty user cache folder (a fresh
                      XDG_CACHE_HOME each run): what a CI runner that restores no cache does;
                      it also hashes every SKILL.md and writes the cache.  (A CI job that restores
                      the cache folder is timed by benchmarks/validate_cache.py.)
  skillsite, warm     the same without --no-cache, after one run that filled the verdict cache
                      (a temporary XDG_CACHE_HOME, removed afterwards).
  skills-ref, 1 proc  one Python process that imports skills_ref and validates every folder
                      holding a SKILL.md -- the fair comparison (the same walk skillsite does).
  skills-ref CLI loop `agentskills validate DIR` once per folder, as its CLI forces; run once
                      only (it is slow), for information.

If skillsite cannot be run yet, its row says so and the script still finishes.
This is a measuring script, not a test: it asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_TREE = (REPO / ".." / "shared" / "corpus").resolve()
SKIP_DIRS = {".git", "node_modules"}

# One process: walk the tree (same rule as skill_dirs below) and validate every skill folder.
SKILLS_REF_ONE_PROCESS = """\
import os, sys
from pathlib import Path
from skills_ref.validator import validate
root = sys.argv[1]
n = bad = crashed = 0
for dirpath, dirnames, filenames in os.walk(root):
    dirnames[:] = [d for d in dirnames if d not in ('.git', 'node_modules')]
    if 'SKILL.md' in filenames:
        n += 1
        try:
            if validate(Path(dirpath)):
                bad += 1
        except Exception:
            crashed += 1
print(f'{n} skills, {bad} invalid, {crashed} crashed')
"""


def skill_dirs(tree: Path) -> list[Path]:
    found = []
    for dirpath, dirnames, filenames in os.walk(tree):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        if "SKILL.md" in filenames:
            found.append(Path(dirpath))
    return found


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def run_once(cmd: list[str], cwd: Path, env: dict[str, str] | None = None
             ) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    return time.perf_counter() - start, proc


def skillsite_usable(cwd: Path) -> tuple[bool, str]:
    """True when `python -m skillsite validate --help` runs; otherwise the reason."""
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "skillsite", "validate", "--help"],
            cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, str(exc)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).decode("utf-8", "replace").strip().splitlines()
        return False, tail[-1] if tail else f"exit {proc.returncode}"
    return True, ""


def find_agentskills() -> list[str] | None:
    beside = Path(sys.executable).parent / "agentskills"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("agentskills")
    return [found] if found else None


def fmt(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds:.3f} s"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree", nargs="?", type=Path, default=DEFAULT_TREE,
                    help=f"tree of skills (default: {DEFAULT_TREE})")
    ap.add_argument("-n", "--repeat", type=int, default=5, help="repetitions per command (default 5)")
    ap.add_argument("--no-cli-loop", action="store_true",
                    help="skip the slow one-process-per-folder agentskills loop")
    args = ap.parse_args(argv)

    tree = args.tree.resolve()
    if not tree.is_dir():
        print(f"error: {tree} is not a directory", file=sys.stderr)
        return 2
    dirs = skill_dirs(tree)
    n = max(1, args.repeat)
    rows: list[tuple[str, str, float | None, float | None, str]] = []  # label, cmd, median, min, note

    # skillsite without and with its verdict cache, and skills-ref in one process for the whole
    # tree (the fair comparison), run in turn so that load from elsewhere falls on all alike.
    # skillsite's modules are byte-compiled first, as `pip install` does for skills-ref's.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "skillsite")], check=False)
    cache_home = tempfile.mkdtemp(prefix="skillsite-bench-cache-")
    env = {**os.environ, "XDG_CACHE_HOME": cache_home}
    env.pop("SKILLSITE_CACHE_KEY", None)
    base_cmd = [sys.executable, "-m", "skillsite", "validate", str(tree), "--profile", "spec", "--format", "json"]
    cold_cmd = base_cmd + ["--no-cache"]
    one_cmd = [sys.executable, "-c", SKILLS_REF_ONE_PROCESS, str(tree)]
    ok, why = skillsite_usable(REPO)
    times: dict[str, list[float]] = {"cold": [], "first": [], "warm": [], "ref": []}
    procs: dict[str, subprocess.CompletedProcess] = {}
    try:
        if ok:
            run_once(base_cmd, REPO, env)  # fills the cache for the warm runs
        for _ in range(n):
            for label, cmd in (("cold", cold_cmd), ("first", base_cmd), ("warm", base_cmd), ("ref", one_cmd)):
                if label != "ref" and not ok:
                    continue
                run_env = env
                if label == "first":
                    run_env = {**env, "XDG_CACHE_HOME": tempfile.mkdtemp(prefix="skillsite-bench-empty-")}
                elapsed, procs[label] = run_once(cmd, REPO, run_env)
                times[label].append(elapsed)
                if label == "first":
                    shutil.rmtree(run_env["XDG_CACHE_HOME"], ignore_errors=True)
    finally:
        shutil.rmtree(cache_home, ignore_errors=True)
    ss_median = statistics.median(times["cold"]) if times["cold"] else None
    for label, cmd, what in (("cold", cold_cmd, "skillsite, no cache"), ("first", base_cmd, "skillsite, first run"),
                             ("warm", base_cmd, "skillsite, warm cache")):
        shown = " ".join(["python"] + cmd[1:])
        if not ok or label not in procs:
            rows.append((what, shown, None, None, f"skillsite not available ({why})"))
            continue
        proc = procs[label]
        note = f"exit {proc.returncode}"
        if proc.returncode not in (0, 1):
            tail = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            note += ": " + (tail[-1] if tail else "?")
        rows.append((what, shown, statistics.median(times[label]), min(times[label]), note))
    sr_proc = procs["ref"]
    sr_times = times["ref"]
    if sr_proc.returncode == 0:
        sr_median = statistics.median(sr_times)
        rows.append(("skills-ref, 1 process", "python -c '<import skills_ref; validate() every folder>' TREE",
                     sr_median, min(sr_times), sr_proc.stdout.decode().strip()))
    else:
        sr_median = None
        tail = sr_proc.stderr.decode("utf-8", "replace").strip().splitlines()
        rows.append(("skills-ref, 1 process", "python -c '...' TREE", None, None,
                     "failed: " + (tail[-1] if tail else f"exit {sr_proc.returncode}")))
    paired = {label: [sr / ss for ss, sr in zip(times[label], sr_times)] if times[label] and sr_median else []
              for label in ("cold", "first", "warm")}

    # (b') skills-ref CLI, one process per folder, once
    loop_time = None
    if not args.no_cli_loop:
        exe = find_agentskills()
        if exe is None:
            rows.append(("skills-ref CLI loop", "agentskills validate DIR (per folder)", None, None,
                         "agentskills not found"))
        else:
            start = time.perf_counter()
            failed = 0
            for d in dirs:
                proc = subprocess.run(exe + ["validate", str(d)], stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL)
                failed += proc.returncode != 0
            loop_time = time.perf_counter() - start
            rows.append(("skills-ref CLI loop", f"agentskills validate DIR × {len(dirs)} processes",
                         loop_time, loop_time, f"run once; {failed} folders invalid"))

    print("## skillsite validate vs skills-ref\n")
    print(f"- machine: {os.cpu_count()} CPUs, {cpu_model()} ({platform.machine()}), "
          f"{platform.system()} {platform.release()}")
    print(f"- Python {platform.python_version()} ({sys.executable})")
    print(f"- tree: {tree} — {len(dirs)} folders holding a SKILL.md")
    print(f"- whole processes, start-up included; {n} runs each, taking turns (CLI loop: 1 run)")
    print("- first run: the default command (cache on) in an empty user cache folder, as on a fresh CI runner")
    print("- warm cache: a run after an earlier one over the same unchanged tree (verdicts cached by each "
          "SKILL.md's content, which its unchanged size, times and inode vouch for)\n")
    print("| what | command | median | min | ÷ skillsite (no cache) median | note |")
    print("|---|---|---:|---:|---:|---|")
    for label, cmd, med, mn, note in rows:
        ratio = f"{med / ss_median:.2f}×" if med and ss_median else ""
        print(f"| {label} | `{cmd}` | {fmt(med)} | {fmt(mn)} | {ratio} | {note} |")
    for label, what in (("cold", "no cache"), ("first", "first run"), ("warm", "warm cache")):
        if paired[label]:
            ratios = paired[label]
            print(f"\nskills-ref ÷ skillsite ({what}), run by run: median {statistics.median(ratios):.2f}×, "
                  f"best {max(ratios):.2f}×, worst {min(ratios):.2f}×.")
    if sr_median and dirs:
        print(f"skills-ref in one process: {sr_median / len(dirs) * 1000:.2f} ms per skill (median run).")
    if loop_time and dirs:
        print(f"skills-ref CLI loop: {loop_time / len(dirs) * 1000:.1f} ms per skill.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
