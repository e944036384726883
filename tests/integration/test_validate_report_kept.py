"""The report file of ``skillsite validate`` (``validate.json`` in the user cache folder, or
``--report``: a list of diagnostics too long to print): a run with the same diagnostics leaves the
file as it is, as ``build`` leaves its own, the record of what it wrote kept in the verdict cache;
a file not known to hold them (changed, deleted, replaced, written by another tree's run or by a
build, or other diagnostics) is written again, byte for byte as a run without a cache writes it.
Every run rewrote the file.

The commands run in this process (as ``skillsite`` would, through click), with no window within
which a file's stamp is too recent to be trusted (``RACY_NS``): a report is trusted by its stamp
from the run after the one that wrote it."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillsite.publish import state
from support import edit_one_byte_in_place, file_identity, run_cli_in, write_skill

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)

SKILLS = 48  # five unknown keys each: 240 warnings, more than a terminal lists


def write_tree(folder: Path, skills: int = SKILLS) -> Path:
    """A tree of skills with more diagnostics than the text output lists."""
    for n in range(skills):
        write_skill(folder, f"s{n:03d}", f"name: s{n:03d}\ndescription: Thing number {n} of many.\n"
                                         "author: me\nteam: x\ngroup: y\nlevel: 1\nstage: z\n")
    return folder



def validate(project: Path, *args: str) -> Path:
    """``skillsite validate src`` (one process: the tree is small); the report file it names."""
    said = run_cli_in(project, "validate", "src", "-j", "1", *args)
    assert "too many to list" in said, said
    return Path(said.split("all of them are in ")[1].split(" (or pass --all)")[0])


def uncached(project: Path) -> bytes:
    """The report a run without a cache writes (at a path of its own)."""
    report = validate(project, "--no-cache", "--report", str(project / "uncached.json"))
    return report.read_bytes()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project of its own user cache folder (its validate.json and verdict caches)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    monkeypatch.setattr(state, "RACY_NS", 0)
    write_tree(tmp_path / "project" / "src")
    return tmp_path / "project"


def test_a_run_with_nothing_changed_leaves_the_report_as_it_is(project: Path, tmp_path: Path) -> None:
    report = validate(project)
    assert report == tmp_path / "user-cache" / "skillsite" / "reports" / "validate.json"
    written = file_identity(report)
    validate(project)
    validate(project)
    assert file_identity(report) == written and report.read_bytes() == uncached(project)


def test_a_report_at_another_path_is_left_as_it_is_too(project: Path) -> None:
    report = validate(project, "--report", "mine.json")
    written = file_identity(project / report)
    validate(project, "--report", "mine.json")
    validate(project, "--report", "mine.json")
    assert file_identity(project / report) == written


def edit_in_place(report: Path, project: Path) -> None:
    edit_one_byte_in_place(report)


def deleted(report: Path, project: Path) -> None:
    report.unlink()


def replaced_with_a_link(report: Path, project: Path) -> None:
    """The report moved away, a symbolic link to it in its place (the same bytes to read)."""
    moved = report.with_name("moved.json")
    os.replace(report, moved)
    os.symlink(moved, report)


def written_by_another_tree(report: Path, project: Path) -> None:
    """Another tree validated (a verdict cache of its own) writes its report there."""
    other = project.parent / "other"
    write_tree(other / "src", SKILLS - 1)
    assert validate(other) == report


def written_by_a_build(report: Path, project: Path) -> None:
    run_cli_in(project, "build", "src", "-o", "out", "-q", "-j", "1", "--report", str(report))


def other_diagnostics(report: Path, project: Path) -> None:
    skill_md = project / "src" / "s007" / "SKILL.md"
    skill_md.write_text(skill_md.read_text(encoding="utf-8").replace("author:", "owner:"), encoding="utf-8")


@pytest.mark.parametrize("change", [edit_in_place, deleted, replaced_with_a_link, written_by_another_tree,
                                    written_by_a_build, other_diagnostics])
def test_a_report_not_known_to_hold_the_diagnostics_is_written_again(project: Path, change) -> None:
    """Once its record settled, then again just after it was written."""
    report = validate(project)
    validate(project)
    for _ in range(2):
        change(report, project)
        validate(project)
        assert not report.is_symlink() and report.read_bytes() == uncached(project)

