"""skillsite-lock.json (skillsite.agent.lockfile) and the digest of an installed folder
(skillsite.agent.installed)."""
from __future__ import annotations

import hashlib
import json
import os
import re
import unicodedata
from pathlib import Path

import pytest

from skillsite.agent.errors import InstallError, LockFileError, NotFoundError
from skillsite.agent.installed import installed_digest
from skillsite.agent.lockfile import (Lock, LockedSkill, lock_path_text, lock_text, locked_id, read_lock,
                                      resolve_locked_path, resolve_source, source_text, write_lock)
from skillsite.agent.release_digest import release_digest

DIGEST = "sha256:" + "ab" * 32


def locked(version: str | None = "1.2.0", **changes) -> LockedSkill:
    values = dict(source="https://skills.example.com/skills.json", version=version, digest=DIGEST,
                  path=".agents/skills/lib", dependencies={"base": "~0.3"})
    values.update(changes)
    return LockedSkill(**values)


def test_the_lock_text_is_sorted_indented_and_ends_with_a_newline() -> None:
    lock = Lock({"lib": locked(), "app": locked(path=".agents/skills/app", requested="^1.2", dependencies={})})
    text = lock_text(lock)
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True) + "\n"
    assert text.startswith('{\n  "lockfile_version": 1,\n  "skills": {\n    "app": {\n')
    assert "time" not in text and "date" not in text
    assert lock_text(Lock({"app": lock.skills["app"], "lib": lock.skills["lib"]})) == text


def test_a_written_lock_reads_back_the_same(tmp_path: Path) -> None:
    lock = Lock({"lib": locked(), "plain": locked(version=None, requested="*"), "base": locked(dependencies={})})
    path = tmp_path / "project" / "skillsite-lock.json"
    write_lock(path, lock)
    assert read_lock(path) == lock
    assert path.read_text("utf-8") == lock_text(lock)
    assert [p.name for p in path.parent.iterdir()] == ["skillsite-lock.json"]  # no temporary file left


def test_no_lock_file_is_an_empty_lock(tmp_path: Path) -> None:
    assert read_lock(tmp_path / "skillsite-lock.json") == Lock()


@pytest.mark.parametrize("text, message", [
    ('{"lockfile_version": 1, "skills": {', r"lock\.json \(line 1 column \d+\): the lock file is not valid JSON"),
    ('[]', "not a skillsite lock file"),
    ('{"lockfile_version": 9, "skills": {}}', "lockfile_version 9 is not 1; upgrade skillsite"),
    ('{"lockfile_version": true, "skills": {}}', "lockfile_version True is not 1; upgrade skillsite"),
    ('{"lockfile_version": 1.0, "skills": {}}', "lockfile_version 1.0 is not 1; upgrade skillsite"),
    ('{"lockfile_version": 1, "skills": {"a": {"source": "s", "version": "1.0.0", "digest": "md5:x", '
     '"path": "a", "dependencies": {}}}}', r"skill 'a' is malformed: digest 'md5:x' is not sha256"),
    ('{"lockfile_version": 1, "skills": {"a": {"source": "s", "version": 1, "digest": "%s", "path": "a"}}}' % DIGEST,
     r"skill 'a' is malformed \(it needs source, version, digest, dependencies and path\)"),
    ('{"lockfile_version": 1, "skills": {"a": {"source": "s", "version": "1.0.0", "digest": "%s", "path": "a", '
     '"dependencies": {"b": "garbage!!"}}}}' % DIGEST, r"skill 'a' is malformed: dependency 'b' range 'garbage!!' "),
    ('{"lockfile_version": 1, "skills": {"a": {"source": "s", "version": "1.0.0", "digest": "%s", "path": "a", '
     '"requested": "^^1"}}}' % DIGEST, r"skill 'a' is malformed: requested range '\^\^1' does not parse"),
    *[('{"lockfile_version": 1, "skills": {"a": {"source": "s", "version": "%s", "digest": "%s", "path": "a", '
       '"dependencies": {}}}}' % (version, DIGEST), rf"skill 'a' is malformed: version '{re.escape(version)}' is not "
       "a release's version") for version in ("banana", "1.2.0+local", "v1.2.0", "1.2", " 1.2.0", "")],
])
def test_an_unusable_lock_file_is_named_with_what_is_wrong(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "lock.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LockFileError, match=message) as caught:
        read_lock(path)
    assert str(caught.value).startswith(str(path))


def test_a_lock_that_cannot_be_written_is_an_install_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(InstallError, match="cannot write the lock file .*file/skillsite-lock.json"):
        write_lock(tmp_path / "file" / "skillsite-lock.json", Lock())


def test_paths_are_relative_to_the_lock_folder_when_inside_it(tmp_path: Path) -> None:
    lock = tmp_path / "project" / "skillsite-lock.json"
    inside = tmp_path / "project" / ".agents" / "skills" / "lib"
    outside = tmp_path / "elsewhere" / "lib"
    assert lock_path_text(inside, lock) == ".agents/skills/lib"
    assert lock_path_text(outside, lock) == str(outside)
    assert resolve_locked_path(".agents/skills/lib", lock) == inside
    assert resolve_locked_path(str(outside), lock) == outside
    site = tmp_path / "project" / "site" / "skills.json"
    assert source_text(str(site), False, lock) == "site/skills.json"
    assert resolve_source("site/skills.json", lock) == str(site)
    assert source_text("https://h/skills.json", True, lock) == resolve_source("https://h/skills.json", lock)


def test_a_new_record_keeps_the_range_the_skill_was_installed_with() -> None:
    lock = Lock({"lib": locked(requested="^1.2")})
    assert lock.with_skill("lib", locked(version="1.3.0")).skills["lib"].requested == "^1.2"
    assert lock.with_skill("lib", locked(requested="~1.3")).skills["lib"].requested == "~1.3"


def _write(folder: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)


def test_the_installed_digest_is_the_release_digest_of_the_skill_files(tmp_path: Path) -> None:
    files = {"SKILL.md": b"---\nname: a\n---\n", "references/r.md": b"R", "scripts/x.sh": b"echo"}
    _write(tmp_path / "a", files)
    _write(tmp_path / "a" / "child", {"SKILL.md": b"a nested skill is not part of it", "more.md": b"m"})
    expected = release_digest((rel, hashlib.sha256(data).hexdigest()) for rel, data in files.items())
    assert installed_digest(tmp_path / "a") == expected
    (tmp_path / "a" / "references" / "r.md").write_bytes(b"changed")
    assert installed_digest(tmp_path / "a") != expected


def test_an_added_file_or_a_link_changes_the_installed_digest(tmp_path: Path) -> None:
    _write(tmp_path / "a", {"SKILL.md": b"x"})
    before = installed_digest(tmp_path / "a")
    os.symlink("/etc", tmp_path / "a" / "refs")
    linked = installed_digest(tmp_path / "a")
    assert linked not in (None, before)
    (tmp_path / "a" / "refs").unlink()
    (tmp_path / "a" / "new.md").write_bytes(b"")
    assert installed_digest(tmp_path / "a") not in (before, linked)


def test_no_skill_folder_has_no_installed_digest(tmp_path: Path) -> None:
    assert installed_digest(tmp_path / "missing") is None
    (tmp_path / "empty").mkdir()
    assert installed_digest(tmp_path / "empty") is None


@pytest.mark.parametrize("field, value", [("path", "skills/a\u0000b"), ("source", "site/\u0000skills.json")])
def test_a_nul_character_in_a_locked_path_is_a_lock_file_error(tmp_path: Path, field: str, value: str) -> None:
    """A hand-edited lock holding NUL in a path is unusable (LockFileError), not a ValueError from the OS."""
    record = {"source": "site/skills.json", "version": "1.0.0", "digest": DIGEST, "path": "skills/a",
              "dependencies": {}, field: value}
    path = tmp_path / "skillsite-lock.json"
    path.write_text(json.dumps({"lockfile_version": 1, "skills": {"a": record}}), encoding="utf-8")
    with pytest.raises(LockFileError, match="skill 'a' is malformed"):
        read_lock(path)


def test_a_fifo_or_socket_in_an_installed_folder_is_a_change_never_read(tmp_path: Path) -> None:
    """``outdated`` and ``update`` read the installed folder: a named pipe must not block them
    (open() on a FIFO waits for a writer) and a socket must not raise; either is a change."""
    import socket
    import threading

    _write(tmp_path / "a", {"SKILL.md": b"x"})
    before = installed_digest(tmp_path / "a")
    os.mkfifo(tmp_path / "a" / "pipe")
    found: list[str | None] = []
    reader = threading.Thread(target=lambda: found.append(installed_digest(tmp_path / "a")), daemon=True)
    reader.start()
    reader.join(5)
    if reader.is_alive():  # unblock the reader so the test run can end
        with open(tmp_path / "a" / "pipe", "wb"):
            pass
        pytest.fail("installed_digest blocked on a named pipe")
    assert found[0] not in (None, before)
    (tmp_path / "a" / "pipe").unlink()
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(tmp_path / "a" / "sock"))
        assert installed_digest(tmp_path / "a") not in (None, before)
    finally:
        server.close()


def test_a_file_name_that_is_not_utf8_in_an_installed_folder_is_a_change(tmp_path: Path) -> None:
    """``outdated`` reads installed folders: a file whose name is not UTF-8 (os.walk gives it
    with surrogates) changes the digest instead of raising UnicodeEncodeError."""
    _write(tmp_path / "a", {"SKILL.md": b"x"})
    before = installed_digest(tmp_path / "a")
    with open(os.fsencode(tmp_path / "a") + b"/\xff.md", "wb") as handle:
        handle.write(b"1")
    assert installed_digest(tmp_path / "a") not in (None, before)


@pytest.mark.parametrize("change", [
    lambda r: r.update(path="skills/\udcff"), lambda r: r.update(version="\udcff"), lambda r: r.update(source="\ud800"),
    lambda r: r.update(requested="^\udcff"), lambda r: r.update(dependencies={"lib": "\udcff"}),
    lambda r: r.update(dependencies={"\udcff": "^1"}),
])
def test_a_lone_surrogate_in_a_lock_is_a_lock_file_error(tmp_path: Path, change) -> None:
    """JSON escapes can spell a lone surrogate, which no later write or print can encode
    (outdated, update and install ended in UnicodeEncodeError)."""
    record = {"source": "site/skills.json", "version": "1.0.0", "digest": DIGEST, "path": "skills/a",
              "dependencies": {}}
    change(record)
    path = tmp_path / "skillsite-lock.json"
    path.write_text(json.dumps({"lockfile_version": 1, "skills": {"a": record}}), encoding="utf-8")
    with pytest.raises(LockFileError, match="skill 'a' is malformed"):
        read_lock(path)
    path.write_text(json.dumps({"lockfile_version": 1, "skills": {"\udcff": {**record, "path": "x"}}}))
    with pytest.raises(LockFileError, match="is malformed"):
        read_lock(path)


def test_a_folder_name_too_long_for_the_file_system_has_no_installed_digest(tmp_path: Path) -> None:
    """A hand-edited lock path of 5,000 characters: nothing is installed there (not an OSError)."""
    assert installed_digest(tmp_path / ("v" * 5000)) is None


#: One id in three Unicode spellings: composed (as Linux keeps a typed name), decomposed (as
#: macOS spells a folder and its shells give a typed one), and half of each.
COMPOSED = "repos/caf\u00e9/r\u00e9sum\u00e9"
DECOMPOSED = unicodedata.normalize("NFD", COMPOSED)
MIXED = "repos/caf\u00e9/re\u0301sum\u00e9"


def test_a_locked_id_is_found_in_any_unicode_spelling_of_it() -> None:
    lock = Lock({COMPOSED: locked(), "repos/a+b@x/100% sure": locked()})
    for typed in (COMPOSED, DECOMPOSED, MIXED):
        assert locked_id(lock, typed, "lock.json") == COMPOSED
    assert locked_id(lock, "repos/a+b@x/100% sure", "lock.json") == "repos/a+b@x/100% sure"
    assert locked_id(Lock({DECOMPOSED: locked()}), COMPOSED, "lock.json") == DECOMPOSED
    with pytest.raises(NotFoundError, match="^lock.json holds no skill 'repos/cafe/resume'$"):
        locked_id(lock, "repos/cafe/resume", "lock.json")


def test_two_locked_spellings_of_one_id_are_each_found_only_as_written() -> None:
    lock = Lock({COMPOSED: locked(), DECOMPOSED: locked(path=".agents/skills/other")})
    assert locked_id(lock, COMPOSED, "lock.json") == COMPOSED
    assert locked_id(lock, DECOMPOSED, "lock.json") == DECOMPOSED
    with pytest.raises(NotFoundError) as raised:
        locked_id(lock, MIXED, "lock.json")
    assert str(raised.value) == (f"{ascii(MIXED)} is the Unicode text of several skills' ids in lock.json "
                                 f"({ascii(DECOMPOSED)}, {ascii(COMPOSED)}); give one of them exactly")


def _lock_of(tmp_path: Path, **changes) -> Path:
    """A lock file in ``tmp_path/project`` holding app (needing lib) and lib, lib's record changed by ``changes``."""
    record = {"source": "https://h/skills.json", "version": "1.0.0", "digest": DIGEST, "dependencies": {}}
    data = {"lockfile_version": 1, "skills": {"app": {**record, "path": "skills/app", "dependencies": {"lib": "^1"}},
                                              "lib": {**record, "path": "skills/lib", **changes}}}
    path = tmp_path / "project" / "skillsite-lock.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("changes, message", [
    ({"path": "skills\\lib"}, r"path 'skills\\\\lib' holds a backslash, a folder separator on Windows"),
    ({"path": "skills/x/../lib"}, r"path 'skills/x/\.\./lib' holds a '\.\.' part, which skillsite never writes"),
    ({"dependencies": {"ghost": "*"}}, r"its dependency 'ghost' has no record in the lock file"),
    ({"source": "ftp://h/skills.json"}, r"source 'ftp://h/skills.json' is neither an http\(s\) URL nor the path"),
    ({"source": "https:///skills.json"}, r"source 'https:///skills.json' names no host"),
    ({"source": "http://[::1/skills.json"}, r"source 'http://\[::1/skills.json' is not a URL"),
])
def test_a_hand_edited_record_skillsite_never_writes_is_refused_naming_the_field(tmp_path: Path, changes: dict,
                                                                                 message: str) -> None:
    """A lock is anyone's to edit: a record whose path, dependency or source names nothing
    skillsite would record is refused, naming the skill and the field (update rewrote it, or
    installed into a folder named ``skills\\lib``)."""
    with pytest.raises(LockFileError, match=r"skill 'lib' is malformed: " + message):
        read_lock(_lock_of(tmp_path, **changes))


@pytest.mark.parametrize("spelling", ["skills/lib/", "./skills/lib", "skills//./lib", "ABSOLUTE"])
def test_another_spelling_of_a_locked_folder_reads_as_skillsite_writes_it(tmp_path: Path, spelling: str) -> None:
    """A trailing '/', '.' parts, doubled '/' and an absolute path inside the lock's folder name the
    folder skillsite records as ``skills/lib``: read so, an update writing it back changes nothing."""
    spelling = str(tmp_path / "project" / "skills" / "lib") if spelling == "ABSOLUTE" else spelling
    lock = read_lock(_lock_of(tmp_path, path=spelling))
    assert lock.skills["lib"].path == "skills/lib"
    assert lock.skills["lib"] == read_lock(_lock_of(tmp_path)).skills["lib"]


def test_a_recorder_adds_each_skill_to_the_lock_it_wrote_without_reading_the_file_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One install records its skills one at a time: the lock is read and checked once, not once
    a skill (which made a closure of a thousand skills take minutes)."""
    import skillsite.agent.lockfile as lockfile

    path = tmp_path / "skillsite-lock.json"
    parse_and_check = lockfile._lock_of
    reads = []
    monkeypatch.setattr(lockfile, "_lock_of", lambda body, where: reads.append(where) or parse_and_check(body, where))
    path.write_text(lock_text(Lock()), encoding="utf-8")
    recorder = lockfile.LockRecorder(path)
    for number in range(30):
        recorder.record(f"dep{number:02}", locked(path=f".agents/skills/dep{number:02}", dependencies={}))
    assert len(reads) == 1
    assert read_lock(path) == Lock({f"dep{n:02}": locked(path=f".agents/skills/dep{n:02}", dependencies={})
                                    for n in range(30)})


def test_a_recorder_keeps_what_another_install_wrote_in_between(tmp_path: Path) -> None:
    """Two installs sharing a lock: a record written by the other one since this recorder's last
    write is read again, not written over."""
    from skillsite.agent.lockfile import LockRecorder

    path = tmp_path / "skillsite-lock.json"
    recorder = LockRecorder(path)
    recorder.record("app", locked(path=".agents/skills/app", dependencies={}))
    write_lock(path, read_lock(path).with_skill("other", locked(path=".agents/skills/other", dependencies={})))
    recorder.record("lib", locked(dependencies={}))
    assert sorted(read_lock(path).skills) == ["app", "lib", "other"]


def test_a_recorder_leaves_a_lock_that_already_holds_the_record_as_it_is(tmp_path: Path) -> None:
    """As write_lock does: the fields a newer skillsite (or its user) added are kept."""
    from skillsite.agent.lockfile import LockRecorder

    path = tmp_path / "skillsite-lock.json"
    record = locked(dependencies={})
    data = json.loads(lock_text(Lock({"lib": record})))
    data["added_by_a_newer_version"] = True
    path.write_text(json.dumps(data), encoding="utf-8")
    before = path.read_bytes()
    LockRecorder(path).record("lib", record)
    assert path.read_bytes() == before


def test_a_recorder_refuses_a_record_the_lock_could_not_be_read_back_with(tmp_path: Path) -> None:
    """A catalog at ``file:/site`` inside the project is recorded as the source
    ``file:/site/skills.json``, which read_lock refuses: the record is refused before it is
    written, not left for every later command to refuse the lock."""
    from skillsite.agent.lockfile import LockRecorder

    path = tmp_path / "skillsite-lock.json"
    with pytest.raises(LockFileError, match=r"\(the record to write\): skill 'lib' is malformed: source "
                                            r"'file:/site/skills.json' is neither an http\(s\) URL"):
        LockRecorder(path).record("lib", locked(source="file:/site/skills.json", dependencies={}))
    assert not path.exists()
    with pytest.raises(LockFileError, match="would be recorded before its dependency 'base'"):
        LockRecorder(path).record("lib", locked())
    assert not path.exists()
