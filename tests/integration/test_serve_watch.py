"""``skillsite serve``'s watcher: file events (one rebuild per burst, another for edits made
during a build, skipped and own folders ignored), polling when events are unavailable, and a
clean stop on Ctrl-C and SIGTERM."""
from __future__ import annotations

import io
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from support import EXAMPLES, REPO, record_kept_rows, tree_bytes
from skillsite.config import SiteConfig
from skillsite.publish.serve import DevServer
from skillsite.publish.watch import EventWatcher, PollingWatcher

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)

TIMEOUT = 120.0


class Serve:
    """``skillsite serve SOURCE --port 0`` in a process of its own, its stderr read line by line
    (no SOURCE: the configuration's sources, of the folder ``cwd``)."""

    def __init__(self, source: Path | None, tmp: Path, prefix: tuple[str, ...] = (), cwd: Path = REPO):
        tmp.mkdir(exist_ok=True)
        self.tmp = tmp
        # a test run that ignores SIGINT (a background job of a non-interactive shell) would pass
        # that on: an ignored signal stays ignored across exec, a handled one gets its default
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            self.proc = subprocess.Popen([*prefix, sys.executable, "-m", "skillsite", "serve",
                                          *([str(source)] if source is not None else []), "--port", "0"],
                                         stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, cwd=cwd,
                                         env={**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(REPO)})
        finally:
            signal.signal(signal.SIGINT, previous)
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        serving = self.next_line(lambda line: line.startswith("Serving "))
        self.url = serving.split()[1]

    def _read(self) -> None:
        for line in self.proc.stderr:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def next_line(self, test) -> str:
        """The next line that passes ``test`` (failing after TIMEOUT or at the end of the output)."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            line = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
            assert line is not None, "serve ended:\n" + "\n".join(self.lines)
            self.lines.append(line)
            if test(line):
                return line

    def rebuilt(self) -> None:
        """Wait for the next "Change detected" and the build that follows it."""
        self.next_line(lambda line: line.startswith("Change detected"))
        self.next_line(lambda line: line.startswith("Built ") or "build failed" in line)

    def quiet_for(self, seconds: float) -> list[str]:
        """The lines printed over the next ``seconds``."""
        said = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._queue.get(timeout=left)
            except queue.Empty:
                break
            if line is not None:
                said.append(line)
                self.lines.append(line)
        return said

    def descendants(self) -> list[int]:
        return _descendants(self.proc.pid)

    def stop(self, signum: int) -> int:
        """Send ``signum``; the exit status, once every line printed is in ``lines``."""
        self.proc.send_signal(signum)
        status = self.proc.wait(timeout=60)
        while (line := self._queue.get(timeout=TIMEOUT)) is not None:
            self.lines.append(line)
        return status


def _descendants(pid: int) -> list[int]:
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        for child in Path(f"/proc/{pid}/task/{task}/children").read_text().split():
            found += [int(child), *_descendants(int(child))]
    return found


def _empties(folder: Path) -> bool:
    """Whether ``folder`` is empty within TIMEOUT seconds."""
    deadline = time.monotonic() + TIMEOUT
    while any(folder.iterdir()):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def edit(skill: Path, text: str) -> None:
    skill.write_text(skill.read_text(encoding="utf-8") + f"\n{text}\n", encoding="utf-8")


def page(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read().decode("utf-8")


@pytest.fixture
def source(tmp_path) -> Path:
    shutil.copytree(EXAMPLES, tmp_path / "skills")
    return tmp_path / "skills"


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_burst_of_saves_is_one_rebuild_an_edit_during_a_build_another_and_a_signal_stops_all(
        source, tmp_path, signum):
    serve = Serve(source, tmp_path / "tmp")
    assert not any("polling" in line for line in serve.lines)
    skills = sorted(source.glob("*/SKILL.md"))
    for skill in skills:                                   # a burst: every skill saved at once
        edit(skill, "Saved in a burst.")
    serve.rebuilt()
    assert not any(line.startswith("Change detected") for line in serve.quiet_for(2.0))

    edit(skills[0], "First edit.")
    serve.next_line(lambda line: line.startswith("Change detected"))
    edit(skills[1], "Second edit, made while the first one builds.")
    serve.next_line(lambda line: line.startswith("Built "))
    serve.rebuilt()                                        # the second edit gets a build of its own
    assert "Second edit, made while the first one builds." in page(f"{serve.url}skills/{skills[1].parent.name}/")

    processes = serve.descendants()
    assert len(processes) == 2                             # the pages' server and the file-event process
    assert serve.stop(signum) == 0
    assert "Stopping." in serve.lines and not any("Traceback" in line for line in serve.lines)
    assert not [pid for pid in processes if _alive(pid)]
    assert _empties(serve.tmp)                              # the temporary folder goes, after the exit


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_signal_in_the_middle_of_a_rebuild_stops_serving_at_once(tmp_path, signum):
    """Raised into a rebuild, Ctrl-C was lost in a fork's callbacks (serve went on), or left the
    worker pool waiting for ever for a result a killed worker had half sent.  The signal is sent
    as soon as the rebuild of 48 skills starts, which then works in worker processes."""
    source = tmp_path / "skills"
    shutil.copytree(REPO / "tests" / "data" / "sample-corpus", source)
    serve = Serve(source, tmp_path / "tmp")
    for number, skill in enumerate(sorted(source.rglob("SKILL.md"))):
        edit(skill, f"Edit {number}.")
    serve.next_line(lambda line: line.startswith("Change detected"))
    processes = serve.descendants()
    assert serve.stop(signum) == 0
    assert "Stopping." in serve.lines and not any("Traceback" in line or "Exception" in line for line in serve.lines)
    assert not [pid for pid in processes if _alive(pid)]
    assert _empties(serve.tmp)                              # the temporary folder goes, after the exit


def _user_namespaces_work() -> bool:
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-r", "true"], capture_output=True).returncode == 0


def test_without_file_events_serve_says_why_and_polls(source, tmp_path):
    """The inotify watch limit reached (set to 1 in a user namespace of this test's own)."""
    if not _user_namespaces_work():
        pytest.skip("unshare -r (user namespaces) unavailable")
    limit = ("unshare", "-r", "sh", "-c", 'echo 1 > /proc/sys/user/max_inotify_watches && exec "$@"', "sh")
    serve = Serve(source, tmp_path / "tmp", prefix=limit)
    said = [line for line in serve.lines if "polling" in line]
    assert len(said) == 1 and "file watch limit is reached" in said[0], serve.lines
    skill = source / "code-review" / "SKILL.md"
    edit(skill, "Seen by polling.")
    serve.rebuilt()
    assert "Seen by polling." in page(f"{serve.url}skills/code-review/")
    assert serve.stop(signal.SIGINT) == 0
    assert not any("Traceback" in line for line in serve.lines)


def test_what_builds_read_is_watched_and_git_s_other_files_are_not(source, tmp_path):
    """A file in node_modules is audited, and git's HEAD decides the releases: a change to either
    is a rebuild; the rest of .git is read by no build (nor is an ignored folder)."""
    (source / "node_modules" / "pkg").mkdir(parents=True)
    (source / ".git").mkdir()
    config = tmp_path / "skillsite.yml"
    config.write_text("title: Skills\n", encoding="utf-8")
    extra = tmp_path / "templates"
    extra.mkdir()
    server = DevServer([source], SiteConfig(), port=0, log=io.StringIO(), watch=[config, extra])
    try:
        assert server.start()
        assert isinstance(server.folders, EventWatcher)
        assert server.check() is False
        (source / ".git" / "index").write_text("git's own\n", encoding="utf-8")
        assert server.check() is False
        (source / "node_modules" / "pkg" / "index.js").write_text("x", encoding="utf-8")
        assert server.check() is True
        (source / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
        assert server.check() is True
        replacement = tmp_path / "skillsite.yml.new"       # saved as many editors do: a new file renamed over it
        replacement.write_text("title: Other skills\n", encoding="utf-8")
        os.replace(replacement, config)
        assert server.check() is True
        config.write_text("title: Skills, again\n", encoding="utf-8")
        assert server.check() is True                      # the replaced file is still watched
        (extra / "page.html").write_text("<p>", encoding="utf-8")
        assert server.check() is True
        assert server.check() is False
    finally:
        server.stop()


def test_polling_sees_what_events_see_and_ignores_the_same_folders(source, tmp_path):
    """Both watchers report a change in a tool's folder as that folder (an install there is one
    path), pass over .git, and leave an ignored folder out."""
    from skillsite.publish.watch import reported_path

    ours = tmp_path / "ours"
    (source / "node_modules").mkdir()
    (source / ".git").mkdir()
    watcher = PollingWatcher([source], ignore=[source / "knowledge"])
    assert watcher.look() is False
    (source / "knowledge" / "new.md").write_text("x", encoding="utf-8")
    (source / ".git" / "index").write_text("x", encoding="utf-8")
    assert watcher.look() is False
    (source / "node_modules" / "index.js").write_text("x", encoding="utf-8")
    assert watcher.look() is True and watcher.take_paths() == {str(source / "node_modules")}
    edit(source / "code-review" / "SKILL.md", "Polled.")
    assert watcher.look() is True and watcher.look() is False
    events = EventWatcher([source], [source / "knowledge"], ours)
    real = os.path.realpath(source)
    try:
        assert events.look() is False
        (source / "knowledge" / "new.md").write_text("y", encoding="utf-8")
        (source / ".git" / "index").write_text("y", encoding="utf-8")
        assert events.look() is False
        (source / "node_modules" / "pkg").mkdir()
        (source / "node_modules" / "pkg" / "index.js").write_text("y", encoding="utf-8")
        assert events.look() is True and events.take_paths() == {os.path.join(real, "node_modules")}
        (source / "code-review" / "SKILL.md").unlink()
        assert events.look() is True and events.look() is False
    finally:
        events.close()
    assert events.process.poll() is not None
    assert reported_path("/r/a/node_modules/x/y.js", ["/r"]) == "/r/a/node_modules"
    assert reported_path("/r/a/.venv", ["/r"]) == "/r/a/.venv" and reported_path("/r/a/b.md", ["/r"]) == "/r/a/b.md"


def test_a_rebuild_takes_the_changed_paths_from_the_file_events_and_equals_a_cold_build(source, tmp_path):
    """#47: an edit of files discovery listed is rebuilt without walking the tree (their sizes and
    times read again), anything else with a walk; each catalog is the one ``build`` makes."""
    from support import tree_bytes
    from skillsite.publish.build import build

    (source / "code-review" / "node_modules").mkdir()  # audited and watched
    server = DevServer([source], SiteConfig(), port=0, log=io.StringIO())
    edits = [  # (an edit, whether the rebuild walks the tree)
        (lambda: edit(source / "code-review" / "SKILL.md", "Edited while served."), False),
        (lambda: (source / "code-review" / "references" / "shell.md").write_text("# Shell\n", encoding="utf-8"), False),
        (lambda: (source / "code-review" / "references" / "new.md").write_text("# New\n", encoding="utf-8"), True),
        (lambda: shutil.rmtree(source / "test-first"), True),
    ]
    try:
        assert server.start()
        for number, (change, walks) in enumerate(edits):
            before = server.resident.walks
            time.sleep(0.05)  # another modification time than the last build saw, on any file system
            change()
            assert server.check() is True
            assert server.resident.walks == before + walks
            cold = tmp_path / f"cold-{number}"
            assert build([source], cold).ok
            assert tree_bytes(server.out) == tree_bytes(cold)
    finally:
        server.stop()


def test_an_edited_configuration_is_read_again_and_a_bad_one_keeps_the_last(source, tmp_path):
    """serve watched skillsite.yml but built every time with the configuration read at its
    start: a new title or exclude never showed. Each rebuild now reads it again, as ``build``
    would; an edit that breaks it is said, and the last good one is built with."""
    from support import tree_bytes
    from skillsite.config import load_config
    from skillsite.publish.build import build

    config_file = tmp_path / "skillsite.yml"
    config_file.write_text("title: Title One\n", encoding="utf-8")
    log = io.StringIO()
    server = DevServer([source], load_config(config_file), port=0, log=log, watch=[config_file],
                       configure=lambda: load_config(config_file))
    expected = None
    try:
        assert server.start()
        for number, text in enumerate(['title: Title Two\nexclude: ["test-first/*"]\n', "title: [unclosed\n"]):
            time.sleep(0.05)
            config_file.write_text(text, encoding="utf-8")
            expected = expected or load_config(config_file)  # the good one, read where serve reads it
            assert server.check() is True
            cold = tmp_path / f"cold-{number}"
            assert build([source], cold, expected).ok
            assert tree_bytes(server.out) == tree_bytes(cold)
        assert b"Title Two" in (server.out / "index.html").read_bytes()
        assert "the configuration has errors; building with the last one read" in log.getvalue()
    finally:
        server.stop()


def test_the_sources_and_templates_an_edited_configuration_names_are_built_and_watched(tmp_path):
    """serve worked out its sources and the folders it watched once, from the configuration read
    at its start: ``sources: [b]`` written while it ran rebuilt ``a`` again, and a templates
    folder named after its start was never watched (its edits showed at some other change)."""
    from support import write_skill

    work = tmp_path / "work"
    shutil.copytree(EXAMPLES, work / "a")
    write_skill(work / "b", "lone-skill", description="Say what the lone skill does. Use when asked.")
    (work / "tpl").mkdir()
    (work / "tpl" / "404.html").write_text("<p>Not here.</p>\n", encoding="utf-8")
    (work / "skillsite.yml").write_text("sources: [a]\n", encoding="utf-8")
    serve = Serve(None, tmp_path / "tmp", cwd=work)
    try:
        assert "code-review" in page(serve.url)
        (work / "skillsite.yml").write_text("sources: [b]\ntemplates: tpl\n", encoding="utf-8")
        serve.rebuilt()
        home = page(serve.url)
        assert "lone-skill" in home and "code-review" not in home
        assert page(serve.url + "404.html").startswith("<p>Not here.</p>\n")  # and serve's reload script
        (work / "tpl" / "404.html").write_text("<p>Not here, nor there.</p>\n", encoding="utf-8")
        serve.rebuilt()
        assert page(serve.url + "404.html").startswith("<p>Not here, nor there.</p>\n")
        edit(work / "b" / "lone-skill" / "SKILL.md", "An edit of the source now watched.")
        serve.rebuilt()
        assert "An edit of the source now watched." in page(serve.url + "skills/lone-skill/")
    finally:
        assert serve.stop(signal.SIGTERM) == 0


def test_pages_reload_once_the_new_catalog_is_in_place_not_after_the_cache_is_saved(source, tmp_path, monkeypatch):
    """#47 (edit to reloaded page): serve's pages reloaded when the whole build returned, after
    the cache and the state were saved.  The build now says "save" once its catalog is in place,
    and serve tells its pages then: once per rebuild; a rebuild that replaced nothing (nothing
    changed) tells them when it is done, as before."""
    from skillsite.publish import pipeline

    server = DevServer([source], SiteConfig(), port=0, log=io.StringIO())
    seen_by_the_save: list[tuple[int, bool]] = []  # (pages' version, the edit served) when the state is saved
    saving = pipeline.save_state

    def watched_save(*args, **kwargs):
        served = (server.out / "skills" / "code-review" / "SKILL.md").read_text(encoding="utf-8")
        seen_by_the_save.append((server.state.version, "Edited while served." in served))
        return saving(*args, **kwargs)

    monkeypatch.setattr(pipeline, "save_state", watched_save)
    try:
        assert server.start()
        first = server.state.version
        time.sleep(0.05)
        edit(source / "code-review" / "SKILL.md", "Edited while served.")
        assert server.check() is True
        assert seen_by_the_save[-1] == (first + 1, True)  # told before the state was saved, the edit in place
        assert server.state.version == first + 1          # and not told again when the build returned
        time.sleep(2.1)  # the edit is older than the racy window: a rebuild now finds nothing to do
        saves = len(seen_by_the_save)
        assert server.rebuild() is True
        assert len(seen_by_the_save) == saves              # nothing replaced, nothing saved
        assert server.state.version == first + 2
    finally:
        server.stop()


def test_serve_prepares_the_audit_for_its_first_rebuild_before_any_change(tmp_path):
    """#47: serve's first save after its cold build compiled every audit pattern in the serving
    process (the cold build audited in workers); the watch loop now prepares the audit before it
    waits for the first change.  Run in a fresh interpreter, whose audit nothing prepared yet."""
    script = (
        "import io, sys\n"
        "from skillsite.audit import engine\n"
        "from skillsite.config import SiteConfig\n"
        "from skillsite.publish.serve import DevServer\n"
        "server = DevServer([sys.argv[1]], SiteConfig(), port=0, log=io.StringIO())\n"
        "before = engine.prepare.cache_info().currsize\n"
        "def first_look(wait):\n"
        "    print(before, engine.prepare.cache_info().currsize)\n"
        "    raise KeyboardInterrupt\n"
        "server._changed = first_look\n"
        "server.run()\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(EXAMPLES)], capture_output=True, text=True,
                          cwd=REPO, env={**os.environ, "TMPDIR": str(tmp_path)}, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "1"]  # nothing prepared at first; prepared before the first look


def test_serve_publishes_once_more_before_the_first_change_and_that_change_makes_rows_for_its_skill_alone(
        source, tmp_path, monkeypatch):
    """#47: serve's cold build publishes in worker processes, so its first save made, in the
    serving process, a row of every kind for every skill (a publication taken from the cache,
    a row of the catalog-wide checks, a grouping candidate, a card's tags), and the full garbage
    collection they set off: slower than the saves after it.  The watch loop now
    publishes once more before the first change, with nothing changed: the same files, no reload
    of the pages.  The first save then makes rows for the edited skill alone, and equals a cold
    build."""
    from skillsite.publish import page_pieces, skills
    from skillsite.publish.build import build
    from skillsite.source import catalog

    stamp = time.time() - 120  # older than the racy window: no skill is read again for its time alone
    for path in [source, *source.rglob("*")]:
        os.utime(path, (stamp, stamp))
    made = record_kept_rows(monkeypatch)
    server = DevServer([source], SiteConfig(), port=0, log=io.StringIO())
    try:
        assert server.start()
        version, served = server.state.version, tree_bytes(server.out)
        skill_ids = sorted(p.parent.relative_to(source).as_posix() for p in source.rglob("SKILL.md"))
        assert made[skills.TAKEN] == []   # the cold build published in worker processes
        server.prepare()
        assert sorted(made[skills.TAKEN]) == skill_ids   # every publication taken from the cache, once
        assert server.state.version == version and tree_bytes(server.out) == served
        for each in made.values():
            each.clear()
        edit(source / "code-review" / "SKILL.md", "Edited while served.")
        assert server.check() is True
        assert made == {catalog.KEPT_ROW: ["code-review"], catalog.CANDIDATE: ["code-review"],
                        page_pieces.TAGGED: ["code-review"], skills.TAKEN: []}
        assert server.state.version == version + 1
        assert build([source], tmp_path / "cold").ok
        assert tree_bytes(server.out) == tree_bytes(tmp_path / "cold")
    finally:
        server.stop()
