"""The report file of ``skillsite build`` (a list of diagnostics too long to print): a rebuild
whose report would be the same bytes leaves the file as it is (issue #47), and one whose file
is not known to hold them (changed, deleted, replaced, written by another build, by ``validate``
or by another version) writes it again, byte for byte as a cold build does.

The commands run in this process (as ``skillsite`` would, through click; another version's in a
process of its own, from its copy of the code), so the window within which a file's stamp is too
recent to be trusted (``RACY_NS``) is set by each test rather than waited out: 0 by default (a
report is trusted by its stamp from the build after the one that wrote it), or so large that
every report is recent and known by its bytes only."""
from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support import edit_one_byte_in_place, file_identity, run_cli_in, write_skill
from skillsite.publish import state
from skillsite.publish.state import record_report, recorded_report

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)

REPO = Path(__file__).resolve().parents[2]
SKILLS = 48  # five unknown keys each: 240 warnings, more than a terminal lists
ALWAYS_RECENT = 10**18  # a window no file's stamp is ever out of


def write_project(folder: Path) -> Path:
    """A project whose build has more diagnostics than the text output lists."""
    for n in range(SKILLS):
        write_skill(folder / "src", f"s{n:03d}", f"name: s{n:03d}\ndescription: Thing number {n} of many.\n"
                                                 "author: me\nteam: x\ngroup: y\nlevel: 1\nstage: z\n")
    return folder



def build(project: Path, *args: str) -> Path:
    """``skillsite build src -o out`` (the cache beside it, one process: the tree is small); the
    report file it names."""
    said = run_cli_in(project, "build", "src", "-o", "out", "-q", "-j", "1", *args).splitlines()[0]
    assert "too many to list" in said, said
    return Path(said.split("all of them are in ")[1].split(" (or pass --all)")[0])


def cold_report(project: Path) -> bytes:
    """The report a cold build of ``project`` writes (an output and a cache of its own)."""
    cold = project / "cold"
    shutil.rmtree(cold, ignore_errors=True)
    report = build(project, "-o", str(cold / "out"), "--cache-dir", str(cold / "cache"))
    assert report == cold / "cache" / "diagnostics.json"
    return report.read_bytes()


@pytest.fixture(autouse=True)
def settled_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """No window: a report's stamp is trusted once a build has found it after the one that wrote it."""
    monkeypatch.setattr(state, "RACY_NS", 0)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_project(tmp_path_factory.mktemp("report-template"))


@pytest.fixture(scope="module")
def cold(template: Path, tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """What a cold build of the template writes (its diagnostics name paths relative to the project)."""
    project = tmp_path_factory.mktemp("report-cold") / "project"
    shutil.copytree(template, project)
    return cold_report(project)


@pytest.fixture
def project(template: Path, tmp_path: Path) -> Path:
    shutil.copytree(template, tmp_path / "project")
    return tmp_path / "project"


def test_a_rebuild_with_nothing_changed_leaves_the_report_as_it_is(project: Path, cold: bytes) -> None:
    """The first rebuild reads the report (written too recently to be known by its stamp) and
    records that it is settled; the next ones trust its stamp.  The file is never written again."""
    report = build(project)
    assert report == project / ".skillsite-cache" / "diagnostics.json" and report.read_bytes() == cold
    written = file_identity(report)
    assert recorded_report(project / ".skillsite-cache").racy
    build(project)
    build(project)
    assert file_identity(report) == written and report.read_bytes() == cold
    settled = recorded_report(project / ".skillsite-cache")
    assert settled is not None and not settled.racy and settled.path == str(report)


@pytest.mark.parametrize("window, kept", [(0, True), (ALWAYS_RECENT, False)])
def test_within_the_window_a_report_is_known_by_its_bytes(project: Path, cold: bytes, monkeypatch: pytest.MonkeyPatch,
                                                        window: int, kept: bool) -> None:
    """A record of other bytes at the file's very stamp, as a second change within the tick of the
    first would leave (the kernel's clock for file times is coarse): trusted when the stamp is out
    of the window (the bytes are not read, so the file is left as it is), found out within it."""
    monkeypatch.setattr(state, "RACY_NS", window)
    report = build(project)
    build(project)
    build(project)
    written = file_identity(report)
    record = recorded_report(project / ".skillsite-cache")
    assert record is not None and record.racy == (window == ALWAYS_RECENT) and file_identity(report) == written
    record_report(project / ".skillsite-cache", dataclasses.replace(record, sha256="0" * 64))
    build(project)
    assert (file_identity(report) == written) == kept and report.read_bytes() == cold


def test_a_rebuild_of_one_changed_skill_with_the_same_diagnostics_leaves_the_report(project: Path) -> None:
    report = build(project)
    written = file_identity(report)
    with open(project / "src" / "s030" / "SKILL.md", "a", encoding="utf-8") as skill_md:
        skill_md.write("\nOne more line.\n")
    build(project)
    assert file_identity(report) == written


def test_a_report_of_other_diagnostics_is_written(project: Path) -> None:
    """A diagnostic of another message, then one of another line: each rewrites the report."""
    report = build(project)
    skill_md = project / "src" / "s007" / "SKILL.md"
    skill_md.write_text(skill_md.read_text(encoding="utf-8").replace("author:", "owner:"), encoding="utf-8")
    build(project)
    assert report.read_bytes() == cold_report(project) and b"unknown key 'owner'" in report.read_bytes()
    skill_md.write_text(skill_md.read_text(encoding="utf-8").replace("owner: me\n", "team: x\nowner: me\n")
                        .replace("team: x\n", "", 1), encoding="utf-8")
    build(project)
    assert report.read_bytes() == cold_report(project)


def replace_with_a_link(report: Path) -> None:
    """The report moved away, a symbolic link to it in its place (the same bytes to read)."""
    moved = report.with_name("moved.json")
    os.replace(report, moved)
    os.symlink(moved, report)


def replace_with_a_copy(report: Path) -> None:
    data = report.read_bytes()
    report.unlink()
    report.write_bytes(data.replace(b'"warning"', b'"error"', 1))


def written_by_validate(report: Path) -> None:
    run_cli_in(report.parents[1], "validate", "src", "--report", str(report))


def written_by_another_build(report: Path) -> None:
    """A build of fewer skills (its own output and cache) told to write its report there."""
    build(report.parents[1], "-o", "other-out", "--cache-dir", "other-cache", "--exclude", "s000",
          "--report", str(report))


@pytest.mark.parametrize("change", [edit_one_byte_in_place, Path.unlink, replace_with_a_link, replace_with_a_copy,
                                    written_by_validate, written_by_another_build])
def test_a_report_changed_since_is_written_again(project: Path, cold: bytes, change) -> None:
    """Whatever became of the file, the rebuild leaves the bytes a cold build writes, in a regular
    file: once changed after its stamp settled, then again just after it was written."""
    report = build(project)
    build(project)
    assert not recorded_report(project / ".skillsite-cache").racy
    for _ in range(2):
        change(report)
        build(project)
        assert not report.is_symlink() and report.read_bytes() == cold


def test_a_report_at_another_path_is_written_there(project: Path, cold: bytes) -> None:
    first = build(project)
    other = build(project, "--report", "other.json")
    assert other == Path("other.json") and (project / "other.json").read_bytes() == cold
    os.unlink(project / "other.json")
    assert build(project, "--report", str(project / "other.json")) == project / "other.json"
    assert (project / "other.json").read_bytes() == cold and first.read_bytes() == cold


def test_a_report_written_by_another_version_is_written_again(project: Path, tmp_path: Path, cold: bytes) -> None:
    """Another version of skillsite (a copy of this one, with another version number and report
    indentation) wrote the report; this one writes its own."""
    other = tmp_path / "other-version"
    for folder in ("skillsite", "templates"):
        shutil.copytree(REPO / folder, other / folder, ignore=shutil.ignore_patterns("__pycache__"))
    for name, old, new in (("__init__.py", '__version__ = "', '__version__ = "0.0.1-other+'),
                           ("diagnostics.py", "indent: int = 2", "indent: int = 1")):
        code = other / "skillsite" / name
        assert old in code.read_text(encoding="utf-8")
        code.write_text(code.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "skillsite", "build", "src", "-o", "out", "-q", "-j", "1"],
                          cwd=project, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(other)})
    assert done.returncode == 0 and "too many to list" in done.stdout, done.stdout + done.stderr
    report = project / ".skillsite-cache" / "diagnostics.json"
    assert report.read_bytes() != cold
    build(project)
    assert report.read_bytes() == cold
