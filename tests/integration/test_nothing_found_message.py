"""SK013 on the command line: a source folder where no SKILL.md was found says why the search
may have missed one in words of its own (folders skipped, and why; folders ``exclude`` and
.gitignore left out), never by pointing at a diagnostic that ``--ignore`` silenced; exit status 5
as always."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from skillsite.source.discover import MAX_DEPTH
from support import write_skill

SEARCHED = "no SKILL.md found in the part of this folder that was searched; "


def _skillsite(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "skillsite", *args], cwd=project, capture_output=True, text=True,
                          timeout=300)


def _sk013(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stdout.splitlines() if " SK013 " in line]


def _undecodable(project: Path) -> None:
    """A skill whose folder's name is not UTF-8 (SK011 skips it), alone in ``src``."""
    folder = os.path.join(os.fsencode(project), b"src", b"team", b"tools\xff")
    write_skill(Path(os.fsdecode(folder)), "helper")


def _too_deep(project: Path) -> None:
    """A skill nested deeper than discovery searches (SK008), alone in ``src``."""
    write_skill(project / "src", "/".join(["d"] * (MAX_DEPTH + 1)))


@pytest.mark.parametrize("code, make, said", [
    ("SK011", _undecodable, "1 folder whose name is not valid UTF-8 was skipped"),
    ("SK008", _too_deep, f"1 folder more than {MAX_DEPTH} levels deep was skipped"),
])
@pytest.mark.parametrize("command", ["validate", "build"])
def test_sk013_says_why_folders_were_skipped_when_their_code_is_silenced(tmp_path: Path, code: str, make,
                                                                         said: str, command: str) -> None:
    make(tmp_path)
    done = _skillsite(tmp_path, command, "src", "--ignore", code, *(["-o", "site", "-q"] if command == "build" else []))
    assert done.returncode == 5, done.stdout + done.stderr
    assert _sk013(done) == [f"src: error SK013 {SEARCHED}{said}"]
    assert code not in done.stdout + done.stderr


def test_sk013_counts_the_folders_gitignore_and_exclude_left_out(tmp_path: Path) -> None:
    """The newcomer's tree: its skills folder gitignored, its drafts excluded; SK013 says how many
    folders each left out (beside those skipped) and the exit status is still 5."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("skills/\n", encoding="utf-8")
    write_skill(tmp_path, "skills/review")
    write_skill(tmp_path, "drafts/plan")
    os.makedirs(os.path.join(os.fsencode(tmp_path), b"odd\xff"))
    for command in ("validate", "build"):
        done = _skillsite(tmp_path, command, ".", "--exclude", "drafts",
                          *(["-o", "site", "-q"] if command == "build" else []))
        assert done.returncode == 5, done.stdout + done.stderr
        assert _sk013(done) == [f".: error SK013 {SEARCHED}1 folder whose name is not valid UTF-8 was skipped; "
                                "1 folder was left out by exclude and 1 by .gitignore"]


@pytest.mark.parametrize("silenced", [["--ignore", "SK013"], []])
def test_an_empty_tree_with_sk013_silenced_exits_5_and_replaces_no_catalog(tmp_path: Path, silenced: list[str]) -> None:
    """SK013 ignored (on the command line, or in skillsite.yml): the empty tree was "0 skills
    checked", exit 0, and the build published a catalog of no skill over the last one, exit 0,
    --keep-going or not."""
    write_skill(tmp_path / "src", "review")
    assert _skillsite(tmp_path, "build", "src", "-o", "site", "-q").returncode == 0
    (tmp_path / "empty").mkdir()
    if not silenced:
        (tmp_path / "skillsite.yml").write_text("ignore: [SK013]\n", encoding="utf-8")
    published = (tmp_path / "site" / "skills.json").read_bytes()
    assert _skillsite(tmp_path, "validate", "empty", *silenced).returncode == 5
    for going_on in ([], ["--keep-going"]):
        done = _skillsite(tmp_path, "build", "empty", "-o", "site", "-q", *silenced, *going_on)
        assert done.returncode == 5, done.stdout + done.stderr
        assert "site was left as it was (no skill to publish: check the source paths" in done.stderr
    assert (tmp_path / "site" / "skills.json").read_bytes() == published
