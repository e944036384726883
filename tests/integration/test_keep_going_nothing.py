"""A build with no skill free of errors (every source empty or unreadable, or every skill with
errors, found while reading or while publishing): ``--keep-going`` publishes nothing either,
leaving the catalog published before as it was (a mistyped or unreadable source never replaces
it with an empty one), and the last line offers --keep-going only when it would publish a skill.
``serve``'s catalog, a preview of the sources as they are, is still built with none."""
from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support import REPO, as_an_ordinary_user, run_cli_in, tree_bytes, write_skill
from skillsite.config import SiteConfig
from skillsite.publish.build import build
from skillsite.publish.serve import DevServer

REFUSED = "--keep-going publishes no catalog without a skill"
#: the sources each case builds, its exit status and the advice its last line ends with
CASES = {
    "empty": (5, "(no skill to publish: check the source paths{})"),
    "closed": (1, "(no skill to publish: check the source paths{})"),
    "broken": (1, "(every skill has errors: fix them{})"),
    "broken empty": (5, "(a source folder holds no skill and every other has errors: check its path, fix them{})"),
}


def _skillsite(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real command, in a process that cannot read a folder of mode 000 (even as root)."""
    return subprocess.run([*as_an_ordinary_user(), sys.executable, "-m", "skillsite", *args], cwd=project,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture
def project(tmp_path: Path):
    """A published catalog of one skill (site), and beside it the sources that hold none to publish."""
    write_skill(tmp_path / "good", "hello")
    (tmp_path / "empty").mkdir()
    (tmp_path / "closed" / "inside").mkdir(parents=True)
    write_skill(tmp_path / "broken", "half-done", "name: half-done\n")  # no description: an error
    run_cli_in(tmp_path, "build", "good", "-o", "site", "-q")
    (tmp_path / "closed").chmod(0)
    try:
        yield tmp_path
    finally:
        (tmp_path / "closed").chmod(0o755)


@pytest.mark.parametrize("source", list(CASES))
def test_keep_going_with_no_skill_to_publish_leaves_the_published_catalog(project: Path, source: str) -> None:
    status, advice = CASES[source]
    before = tree_bytes(project / "site")
    done = _skillsite(project, "build", *source.split(), "-o", "site", "-q", "--keep-going")
    assert done.returncode == status, done.stdout + done.stderr
    assert done.stderr.splitlines()[-1].endswith(advice.format(f"; {REFUSED}")), done.stderr
    assert "Built " not in done.stdout
    assert tree_bytes(project / "site") == before
    assert json.loads((project / "site" / "skills.json").read_text("utf-8"))["skills"][0]["name"] == "hello"


@pytest.mark.parametrize("source", list(CASES))
def test_a_build_with_no_skill_to_publish_does_not_offer_keep_going(project: Path, source: str) -> None:
    status, advice = CASES[source]
    done = _skillsite(project, "build", *source.split(), "-o", "site", "-q")
    assert done.returncode == status, done.stdout + done.stderr
    last = done.stderr.splitlines()[-1]
    assert last.endswith(advice.format("")) and "--keep-going" not in last, done.stderr


def test_keep_going_is_offered_and_publishes_when_some_skill_is_free_of_errors(project: Path) -> None:
    done = _skillsite(project, "build", "good", "broken", "-o", "other", "-q")
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1].endswith("(fix the errors, or pass --keep-going to publish the other skills)")
    kept = _skillsite(project, "build", "good", "broken", "-o", "other", "-q", "--keep-going")
    assert kept.returncode == 0 and "\nBuilt 1 skill into other (1 skipped;" in kept.stdout, kept.stdout


@pytest.mark.parametrize("sources, keep_going", [("risky", True), ("risky", False), ("risky broken", True)])
def test_no_catalog_when_publishing_finds_an_error_in_every_skill(project: Path, sources: str,
                                                                  keep_going: bool) -> None:
    """Errors found while publishing count as those found while reading: a skill whose audit
    finding ``audit.fail_on`` blocks is no skill free of errors, so --keep-going publishes no
    catalog of it (beside others with errors), and a build without it does not offer it."""
    shutil.copytree(REPO / "tests" / "data" / "audit-fixtures" / "m-curl-sh", project / "risky" / "m-curl-sh")
    (project / "blocking.yml").write_text("audit:\n  fail_on: high\n", encoding="utf-8")
    before = tree_bytes(project / "site")
    flags = ["--keep-going"] if keep_going else []
    done = _skillsite(project, "build", *sources.split(), "-o", "site", "-q", "--config", "blocking.yml", *flags)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "error SK630 audit: download piped into a shell" in done.stdout
    last = done.stderr.splitlines()[-1]
    assert last.endswith(f"(every skill has errors: fix them{f'; {REFUSED}' if keep_going else ''})"), done.stderr
    assert "Built " not in done.stdout
    assert tree_bytes(project / "site") == before


def test_serve_still_previews_a_source_with_no_skill(tmp_path: Path) -> None:
    """``serve`` builds with keep_going and publish_empty: an empty source is an empty catalog served,
    and ``build`` itself, with keep_going alone, publishes none."""
    (tmp_path / "empty").mkdir()
    assert not build([tmp_path / "empty"], tmp_path / "site", keep_going=True).ok
    assert not (tmp_path / "site").exists()
    server = DevServer([tmp_path / "empty"], SiteConfig(), port=0, log=io.StringIO())
    try:
        assert server.start()
        assert json.loads((server.out / "skills.json").read_text("utf-8"))["skills"] == []
    finally:
        server.stop()
