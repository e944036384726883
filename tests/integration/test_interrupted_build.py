"""A build killed at any instant leaves the previous catalog or the new one, complete; the next
build clears what it left; its workers end with it; two builds into one folder never mix."""
from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Iterator

import pytest

from support import EXAMPLES, REPO, append_line, tree_bytes, write_skill
from skillsite.publish.build import build

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)

SCRIPT = REPO / "tests" / "fixtures" / "build_with_faults.py"


class FaultyBuilds:
    """``build_with_faults.py``: counted builds, each killed (or not) at a chosen move, in
    processes forked from one that has Python and skillsite loaded already; ``stop()`` when done."""

    def __init__(self) -> None:
        self.marker = f"skillsite-fault-{uuid.uuid4().hex}"
        self.process = subprocess.Popen([sys.executable, str(SCRIPT), self.marker], cwd=REPO, text=True,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def run(self, source: Path, out: Path, cache: Path | None, kill_at: int, jobs: int = 2, *options: str
            ) -> subprocess.CompletedProcess[str]:
        request = [str(source), str(out), str(cache) if cache else None, kill_at, jobs, list(options)]
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        if not select.select([self.process.stdout], [], [], 300)[0]:
            self.process.kill()
            raise AssertionError(f"no answer in 300 s to {request}")
        answer = self.process.stdout.readline()
        assert answer, f"build_with_faults.py ended (exit code {self.process.wait(timeout=60)})"
        code, stdout, stderr = json.loads(answer)
        _assert_no_process_left(self.marker, but=self.process.pid)
        return subprocess.CompletedProcess(request, code, stdout, stderr)

    def stop(self) -> None:
        self.process.stdin.close()
        assert self.process.wait(timeout=60) == 0


@pytest.fixture
def builds() -> Iterator[FaultyBuilds]:
    started = FaultyBuilds()
    yield started
    started.stop()


def _assert_no_process_left(marker: str, but: int | None = None) -> None:
    """No process of the run (the build or one of its workers) is alive a few seconds on."""
    deadline = time.monotonic() + 10
    while True:
        alive = [pid for pid in os.listdir("/proc") if pid.isdigit() and int(pid) != but and _cmdline_has(pid, marker)]
        if not alive or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert alive == [], f"processes of the killed build still running: {alive}"


def _cmdline_has(pid: str, marker: str) -> bool:
    try:
        return marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _two_versions(tmp_path: Path, with_cache: bool) -> tuple[Path, dict[str, bytes], dict[str, bytes]]:
    """Two builds into ``work/`` (so that, with a cache, the catalog the second one replaced waits
    in the cache's back folder), kept aside in ``kept/`` to restore; then the source changed (a
    skill edited, one removed, one added): the source, the old and the new catalog."""
    src, work = tmp_path / "src", tmp_path / "work"
    for name, topic in [("deploy", "deploying the API"), ("rollback", "rolling back a release"),
                        ("triage", "triaging an alert")]:
        _small_skill(src, name, topic)
    cache = work / "cache" if with_cache else None
    assert build([src], work / "site", cache_dir=cache).ok
    append_line(src / "triage" / "SKILL.md", "A line of the first change.")
    assert build([src], work / "site", cache_dir=cache).ok
    shutil.copytree(work, tmp_path / "kept", symlinks=True)
    append_line(src / "deploy" / "SKILL.md", "A new closing line.")
    shutil.rmtree(src / "rollback")
    _small_skill(src, "audit-logs", "reading audit logs")
    assert build([src], tmp_path / "new").ok
    return src, tree_bytes(work / "site"), tree_bytes(tmp_path / "new")


def _small_skill(root: Path, name: str, topic: str) -> None:
    """A skill with a tag, a bundled file and a link to it: small, but every kind of output file."""
    write_skill(root, name, f"name: {name}\ndescription: Guides {topic}. Use when asked about {topic}.\n"
                            f"tags: [{name}, ops]\n", body=f"# {topic}\n\nSee [the notes](references/notes.md).\n")
    (root / name / "references").mkdir()
    (root / name / "references" / "notes.md").write_text(f"# Notes on {topic}\n")
    stamp = time.time() - 60
    for path in (root / name).rglob("*"):
        os.utime(path, (stamp, stamp))


def _restore(kept: Path, work: Path) -> None:
    """``work`` as ``kept``: a fresh copy of the output and cache (times kept; same place, so the
    build state, which names its output, still applies)."""
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(kept, work, symlinks=True)


def _remains(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".site."))


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["cache", "no-cache", "no-exchange"])
def test_a_build_killed_before_any_move_or_deletion_leaves_a_whole_catalog(tmp_path, mode, builds):
    src, old, new = _two_versions(tmp_path, mode != "no-cache")
    kept, work = tmp_path / "kept", tmp_path / "work"
    out, cache = work / "site", (work / "cache" if mode != "no-cache" else None)
    options = ("no-exchange",) if mode == "no-exchange" else ()
    _restore(kept, work)
    counting = builds.run(src, out, cache, 0, 2, *options)
    assert counting.returncode == 0, counting.stderr
    moves = int(counting.stdout.split()[-1])
    assert moves >= 2  # at least the swap, and the state file or the removal of the old catalog
    for kill_at in range(1, moves + 1):
        _restore(kept, work)
        killed = builds.run(src, out, cache, kill_at, 2, *options)
        assert killed.returncode == -9, f"kill {kill_at}: {killed.stderr}"
        if mode == "no-exchange" and not out.exists():
            # without an exchange the target is missing between two renames; the next build
            # (or serve) puts the old catalog back before anything else
            pass
        else:
            assert tree_bytes(out) in (old, new), f"killed before move {kill_at} of {moves}: a mixed catalog"
        again = builds.run(src, out, cache, 0, 2, *options)
        assert again.returncode == 0, again.stderr
        assert tree_bytes(out) == new
        assert _remains(work) == [], f"after the build that followed kill {kill_at}"


def _version(src: Path, which: str) -> None:
    """``src`` made anew as the old or the new version of ``_two_versions``' tree, or a third one
    ("mid": every skill of both, each edited otherwise); the same bytes each time, the times a
    minute ago."""
    if src.exists():
        shutil.rmtree(src)
    skills = [("deploy", "deploying the API"), ("triage", "triaging an alert")]
    if which in ("old", "mid"):
        skills.append(("rollback", "rolling back a release"))
    if which in ("new", "mid"):
        skills.append(("audit-logs", "reading audit logs"))
    for name, topic in skills:
        _small_skill(src, name, topic)
    append_line(src / "triage" / "SKILL.md", "A line of the first change." if which != "mid" else "Another line.")
    if which != "old":
        append_line(src / "deploy" / "SKILL.md", "A new closing line." if which == "new" else "A closing line.")


def _trusted_markers(cache: Path, out: Path) -> bool:
    """Whether the last build's state trusts the output and the back folder (their markers are
    the ones it recorded): the next build lists neither."""
    import sqlite3

    from skillsite.publish.pipeline import BACK_PREFIX
    from skillsite.publish.staging import marker_identity

    with sqlite3.connect(cache / "build-state.sqlite") as db:
        summary = json.loads(db.execute("SELECT value FROM meta WHERE name = 'summary'").fetchone()[0])
    back = next(cache.glob(f"{BACK_PREFIX}*"))
    return (summary["output_marker"] is not None and tuple(summary["output_marker"]) == marker_identity(out)
            and summary["back_marker"] is not None and tuple(summary["back_marker"]) == marker_identity(back))


@pytest.mark.slow
def test_a_rebuild_trusting_its_records_killed_anywhere_leaves_a_whole_catalog(tmp_path, builds):
    """A rebuild that trusts the last build's records of the output and the back folder (#47:
    it lists neither) killed before any move or deletion leaves the old catalog or the new one,
    and the back folder it was writing into is not trusted again: the next build, of the
    version that folder held before, publishes that version.  The folders are never copied in
    between (a copy has other inodes, so its markers would not be trusted): each round builds
    "old" after "mid" (the back folder then holds "mid", as recorded), then "new" killed, then
    "mid" again.  One job: workers never move or delete, and three builds a kill point add up."""
    src, out, cache = tmp_path / "src", tmp_path / "work" / "site", tmp_path / "work" / "cache"
    catalogs = {}
    for which in ("old", "new", "mid"):
        _version(src, which)
        assert build([src], tmp_path / f"cold-{which}").ok
        catalogs[which] = tree_bytes(tmp_path / f"cold-{which}")
    moves = 0
    for which in ("mid", "old", "new", "mid"):  # "new" as the rounds build it, counting its moves
        _version(src, which)
        counting = builds.run(src, out, cache, 0, 1)
        assert counting.returncode == 0, counting.stderr
        moves = int(counting.stdout.split()[-1]) if which == "new" else moves
    assert moves >= 3  # the back folder's marker, the swap, the state file
    for kill_at in range(1, moves + 1):
        _version(src, "old")
        assert builds.run(src, out, cache, 0, 1).returncode == 0 and tree_bytes(out) == catalogs["old"]
        assert _trusted_markers(cache, out)
        _version(src, "new")
        killed = builds.run(src, out, cache, kill_at, 1)
        assert killed.returncode == -9, f"kill {kill_at}: {killed.stderr}"
        assert tree_bytes(out) in (catalogs["old"], catalogs["new"]), f"killed before move {kill_at} of {moves}"
        _version(src, "mid")
        again = builds.run(src, out, cache, 0, 1)
        assert again.returncode == 0, again.stderr
        assert tree_bytes(out) == catalogs["mid"], f"after the build that followed kill {kill_at} of {moves}"
        assert _remains(out.parent) == []


def test_an_interrupted_swap_without_exchange_is_undone_by_the_next_build(tmp_path):
    """The two-rename swap (systems without an exchange) killed between its renames: the next
    build puts the previous catalog back first, then publishes."""
    _, old, _ = _two_versions(tmp_path, False)
    out = tmp_path / "work" / "site"
    os.rename(out, out.parent / ".site.old-0123456789ab")    # what the first rename of a swap leaves
    from skillsite.publish.staging import clear_remains

    clear_remains(out)
    assert tree_bytes(out) == old
    assert _remains(out.parent) == []


def test_sigterm_ends_a_build_its_workers_and_its_staging_folder(tmp_path):
    """SIGTERM (what CI runners send on cancel) ends the build at once: no worker lives on and
    the staging folder is gone; the previous output stays."""
    src = tmp_path / "src"
    shutil.copytree(EXAMPLES, src)
    for n in range(60):  # enough skills that the workers are busy when the signal comes
        shutil.copytree(EXAMPLES / "code-review", src / f"copy-{n:02d}")
        path = src / f"copy-{n:02d}" / "SKILL.md"
        path.write_text(path.read_text().replace("name: code-review", f"name: copy-{n:02d}"))
    out = tmp_path / "site"
    marker = f"skillsite-term-{uuid.uuid4().hex}"
    process = subprocess.Popen([sys.executable, "-m", "skillsite", "build", str(src), "-o", str(out), "-j", "2",
                                "--no-cache", "-q", "--title", marker], cwd=REPO,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for_staging(tmp_path, process)
    process.terminate()
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 128 + 15, stderr
    assert stderr.endswith("skillsite: stopped by SIGTERM\n")
    assert "Traceback" not in stderr and "Exception" not in stderr
    _assert_no_process_left(marker)
    assert not out.exists()
    assert _remains(tmp_path) == []


def _wait_for_staging(folder: Path, process: subprocess.Popen[str]) -> None:
    """Until the build has made its staging folder (it is then publishing)."""
    deadline = time.monotonic() + 60
    while not _remains(folder):
        assert process.poll() is None and time.monotonic() < deadline, "the build ended before publishing"
        time.sleep(0.02)


def _skill_tree(folder: Path, count: int) -> Path:
    """``count`` copies of an example skill, named ``skill-NN``."""
    for n in range(count):
        skill = folder / f"skill-{n:02d}"
        shutil.copytree(EXAMPLES / "code-review", skill)
        path = skill / "SKILL.md"
        path.write_text(path.read_text().replace("name: code-review", f"name: skill-{n:02d}"))
    return folder


def _consistent(out: Path) -> list[str]:
    """The ids the catalog publishes, once manifest, search rows and skill folders are checked to agree."""
    import json

    manifest = [entry["id"] for entry in json.loads((out / "skills.json").read_text())["skills"]]
    rows = [row[0] for row in json.loads((out / "search" / "docs.json").read_text())["docs"]]
    folders = sorted(p.name for p in (out / "skills").iterdir() if p.is_dir())
    assert manifest == rows == folders
    return manifest


@pytest.mark.slow
def test_two_builds_into_one_folder_take_turns(tmp_path):
    """Two builds of different trees into one folder at once, several rounds: both succeed (the
    second waits for the first), and the catalog is one of them, whole."""
    small, large = _skill_tree(tmp_path / "small", 9), _skill_tree(tmp_path / "large", 10)
    out = tmp_path / "site"
    for round_ in range(4):
        first, second = (small, large) if round_ % 2 == 0 else (large, small)
        runs = [subprocess.Popen([sys.executable, "-m", "skillsite", "build", str(tree), "-o", str(out), "-q"],
                                 cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for tree in (first, second)]
        results = [(run.wait(timeout=300), run.stderr.read(), run.stdout.read()) for run in runs]
        for code, stderr, _ in results:
            assert code == 0, stderr
            assert "Traceback" not in stderr
        assert len(_consistent(out)) in (9, 10)
        assert _remains(tmp_path) == []


def test_a_build_told_not_to_wait_refuses_while_another_holds_the_folder(tmp_path):
    import fcntl

    out = tmp_path / "site"
    holder = os.open(tmp_path / ".site.lock", os.O_RDONLY | os.O_CREAT)
    fcntl.flock(holder, fcntl.LOCK_EX)  # what a running build of ``site`` holds
    try:
        done = subprocess.run([sys.executable, "-m", "skillsite", "build", str(EXAMPLES), "-o", str(out), "-q",
                               "--no-wait"], cwd=REPO, capture_output=True, text=True, timeout=120)
    finally:
        os.close(holder)
    assert done.returncode == 4
    assert done.stderr.strip() == (f"skillsite: another skillsite build is writing into {out}; try again "
                                   "when it is done (or leave out --no-wait to wait)")
    assert not out.exists()


def test_ctrl_c_before_any_build_is_one_line_and_exit_130_as_during_one(tmp_path):
    """Ctrl-C while a command waits on a catalog host (or reads its configuration, before a
    build's own handler is set) was click's "Aborted!" and exit 1; it is the line and status a
    build stopped by it gives."""
    import socket

    with socket.socket() as silent:  # accepts the connection, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/"
        # SIGINT caught here is SIG_DFL in the child, as a terminal's is; ignored (a run started with
        # '&', as CI's may be) it would stay ignored there, and Ctrl-C would do nothing
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            process = subprocess.Popen([sys.executable, "-m", "skillsite", "show", "--catalog", url,
                                        "--cache-dir", str(tmp_path / "cache"), "any"], cwd=REPO,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        finally:
            signal.signal(signal.SIGINT, previous)
        connection, _ = silent.accept()  # the command is waiting for skills.json
        with connection:
            process.send_signal(signal.SIGINT)
            _, stderr = process.communicate(timeout=60)
    assert process.returncode == 128 + signal.SIGINT, stderr
    assert stderr.endswith("skillsite: stopped by SIGINT\n") and "Aborted" not in stderr
    assert "Traceback" not in stderr
