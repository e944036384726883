"""Running another version of skillsite, for the benchmarks that compare versions side by side.

A version is a checkout put first on PYTHONPATH.  The folder a child process starts in comes
before PYTHONPATH on its ``sys.path``, so a child started inside a checkout (this repository's,
say) imports that checkout's skillsite whatever PYTHONPATH says, and every version would measure
the same code.  :func:`check_version` asks a child started the same way which skillsite it
imports, and stops the benchmark when it is not the version's.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def version_env(code: Path, **more: str) -> dict[str, str]:
    """The environment of a child process that runs the skillsite at ``code``, as an installed
    skillsite runs: its modules' bytecode kept once compiled (pip compiles a package as it
    installs it), even where this machine sets PYTHONDONTWRITEBYTECODE, with which every process
    would compile every module it imports again."""
    kept = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    return {**kept, "PYTHONPATH": str(code.resolve()), **more}


def run_in_version(what: str, code: Path, script: str, cwd: Path, **values: Any) -> str:
    """The last line ``script`` prints, run by the skillsite at ``code`` in a fresh process started
    in ``cwd``, each of ``values`` assigned first (as its ``repr``); stops (SystemExit) naming
    ``what`` when the process fails."""
    prelude = "".join(f"{name} = {value!r}\n" for name, value in values.items())
    done = subprocess.run([sys.executable, "-c", prelude + script], cwd=cwd, env=version_env(code),
                          capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{what} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return done.stdout.strip().splitlines()[-1]


def check_version(label: str, code: Path, cwd: Path) -> None:
    """Stop (SystemExit) unless a child started in ``cwd`` with :func:`version_env` imports the
    skillsite of ``code``."""
    done = subprocess.run([sys.executable, "-c", "import skillsite; print(skillsite.__file__)"], cwd=cwd,
                          env=version_env(code), capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{label}: skillsite cannot be imported from {code}:\n{done.stderr[-2000:]}")
    imported = Path(done.stdout.strip()).resolve()
    if not imported.is_relative_to(code.resolve()):
        raise SystemExit(f"{label}: a child started in {cwd} imports the skillsite of {imported}, not that of {code}")


def in_turns(codes: dict[str, str], number: int) -> list[tuple[str, str]]:
    """The versions in the order of round ``number``: as given, then reversed, and so on (the
    machine's drift then favours none of them)."""
    return list(codes.items()) if number % 2 == 0 else list(reversed(codes.items()))
