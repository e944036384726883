"""Reading a source's git history with the ``git`` command: no network, no hooks.

Every call runs ``git`` with an environment cleared of ``GIT_*`` variables (a ``GIT_DIR`` left
by a hook must not point the build at another repository) and with options that keep a
repository's configuration from running anything it can (no fsmonitor, no textconv, no
external diff, no pager, no clean filter but Git LFS's own, no submodule's git).  Skills are
untrusted input: paths come back as bytes and are checked by the caller; blobs and trees are read
by long-lived ``git cat-file`` processes.  A failure is a :class:`GitError` whose message says why,
never a traceback.
"""
from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from typing import IO, Iterator, Sequence

#: Options given to every git command.
GIT_OPTIONS = ("-c", "core.quotepath=off", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
               "-c", "diff.external=", "-c", "log.showSignature=false", "-c", "core.untrackedCache=false",
               "--no-pager", "--literal-pathspecs", "--no-replace-objects")
TIMEOUT = 600
SYMLINK_MODE = "120000"
SUBMODULE_MODE = "160000"


class GitError(Exception):
    """git is missing or failed; the message says why (for SK221)."""


def git_env() -> dict[str, str]:
    """The environment git runs with: this one without ``GIT_*`` variables, never prompting,
    taking no optional locks (``git status`` must not write the index)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "GIT_CONFIG_NOSYSTEM": "1",
                "LC_ALL": "C"})
    return env


def run_git(cwd: str | os.PathLike[str], *args: str) -> bytes:
    """The standard output of ``git <args>`` run in ``cwd``; GitError when it cannot run or fails."""
    done = _git(cwd, args)
    if done.returncode != 0:
        raise GitError(failure_reason(done.stderr, args[0], done.returncode))
    return done.stdout


def _git(cwd: str | os.PathLike[str], args: Sequence[str]) -> subprocess.CompletedProcess[bytes]:
    """``git <args>`` run in ``cwd``, whatever its exit status; GitError when it cannot run."""
    try:
        return subprocess.run(["git", *GIT_OPTIONS, *args], cwd=cwd, env=git_env(), stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=TIMEOUT, check=False)
    except FileNotFoundError:
        if not os.path.isdir(cwd):
            raise GitError(f"no folder {os.fspath(cwd)}") from None
        raise GitError("the git command is not installed") from None
    except (OSError, subprocess.SubprocessError) as exc:
        raise GitError(f"git could not run: {exc}") from None


def failure_reason(stderr: bytes, command: str, code: int) -> str:
    """Why git failed: its last ``fatal:`` or ``error:`` line (hint lines may follow it), else
    its last line."""
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    reasons = [line for line in lines if line.startswith(("fatal:", "error:"))]
    return (reasons or lines or [f"git {command} failed (exit {code})"])[-1]


@dataclass(frozen=True)
class Repository:
    """Where a source root is in its repository."""

    top: str       # the work tree's top folder
    prefix: str    # the root's path under it ("" or "a/b/")
    head: str      # HEAD's commit id


def open_repository(root: str | os.PathLike[str]) -> Repository:
    """The repository holding ``root``; GitError (saying why there is no history) when it is
    not in one, is a shallow clone or has no commit."""
    try:
        lines = run_git(root, "rev-parse", "--show-toplevel", "--is-shallow-repository", "--show-prefix",
                        "HEAD").decode("utf-8", "surrogateescape").split("\n")
    except GitError as exc:
        text = str(exc)
        if "not a git repository" in text:
            raise GitError("not a git repository") from None
        if "HEAD" in text:
            raise GitError("the git repository has no commit yet") from None
        raise
    if len(lines) < 4:
        raise GitError("git rev-parse gave an unexpected answer")
    if lines[1] == "true":
        raise GitError("a shallow clone (its history is cut short)")
    return Repository(lines[0], lines[2], lines[3])


def refs_state(root: str | os.PathLike[str]) -> str:
    """HEAD and every tag as git lists them (or why it cannot): what the releases depend on
    besides the files, for the build's no-op check."""
    try:
        return run_git(root, "show-ref", "--head", "--tags", "-d").decode("utf-8", "replace")
    except GitError as exc:
        return f"error: {exc}"


@dataclass(frozen=True)
class Change:
    """One file a commit changed, added or deleted (``blob`` None when deleted)."""

    path: str      # from the work tree's top
    mode: str
    blob: str | None


@dataclass(frozen=True)
class Commit:
    """A commit of the first-parent history and what it changed under the pathspec."""

    id: str
    date: str      # ISO 8601 committer date
    changes: tuple[Change, ...]


def first_parent_log(top: str, pathspec: str) -> list[Commit]:
    """The commits of HEAD's first-parent history that changed something under ``pathspec``
    (relative to ``top``), oldest first, with what each changed (merges: against their first parent)."""
    out = run_git(top, "log", "-m", "--first-parent", "--no-renames", "--no-textconv", "--no-ext-diff", "--raw",
                  "-z", "--no-abbrev", "--format=%x01%H %cI", "HEAD", "--", pathspec or ".")
    # NUL-separated fields, read in order: a header ("\x01<id> <date>"), or a record's meta
    # (":<modes> <blobs> <status>") followed by its path.  A path may hold any byte but NUL, so
    # it is never looked at for a header (a name holding "\x01<id> <date>" forged commits).
    found: list[tuple[str, str, list[Change]]] = []
    fields = out.split(b"\0")
    at = 0
    while at < len(fields):
        field = fields[at].lstrip(b"\n")
        at += 1
        if field.startswith(b"\x01"):
            commit_id, _, date = field[1:].decode("ascii", "replace").partition(" ")
            found.append((commit_id, date, []))
        elif field.startswith(b":") and found and at < len(fields):
            change = _change(field, fields[at])
            at += 1
            if change is not None:
                found[-1][2].append(change)
    return [Commit(commit_id, date, tuple(changes)) for commit_id, date, changes in reversed(found)]


def _change(meta: bytes, path: bytes) -> Change | None:
    """One ``--raw -z`` record: its meta field and its path."""
    parts = meta.decode("ascii", "replace").lstrip(":").split(" ")
    if len(parts) < 5:
        return None
    _, new_mode, _, new_blob, status = parts[:5]
    deleted = status.startswith("D") or set(new_blob) == {"0"}
    return Change(path.decode("utf-8", "surrogateescape"), new_mode, None if deleted else new_blob)


@dataclass(frozen=True)
class TreeFile:
    """A file of a commit's tree."""

    path: str      # from the work tree's top
    mode: str
    kind: str      # blob, tree (never listed with -r) or commit (a submodule)
    blob: str
    size: int      # -1 when not a blob


def list_tree(top: str, commit: str, folder: str) -> list[TreeFile]:
    """Every file under ``folder`` (from the top, ending in "/") at ``commit``, with its size."""
    out = run_git(top, "ls-tree", "-r", "-l", "-z", "--full-tree", commit, "--", folder)
    files = []
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        mode, kind, blob, size = meta.decode("ascii", "replace").split()
        files.append(TreeFile(path.decode("utf-8", "surrogateescape"), mode, kind, blob,
                              int(size) if size.isdigit() else -1))
    return files


_TAG_FORMAT = ("%(refname:strip=2)%00%(objecttype)%00%(objectname)%00%(committerdate:iso-strict)%00"
               "%(*objecttype)%00%(*objectname)%00%(*committerdate:iso-strict)")


def tags(top: str) -> dict[str, tuple[str, str]]:
    """Every tag that names a commit (annotated tags peeled): name -> (commit, ISO committer date)."""
    out = run_git(top, "for-each-ref", f"--format={_TAG_FORMAT}", "refs/tags")
    found = {}
    for line in out.decode("utf-8", "surrogateescape").splitlines():
        name, kind, oid, date, peeled_kind, peeled, peeled_date = (line.split("\0") + [""] * 7)[:7]
        if peeled_kind == "commit":
            found[name] = (peeled, peeled_date)
        elif kind == "commit":
            found[name] = (oid, date)
    return found


def is_ancestor(top: str, commit: str, head: str) -> bool:
    """Whether ``commit`` is ``head`` or in its history; GitError when git cannot tell."""
    done = _git(top, ("merge-base", "--is-ancestor", commit, head))
    if done.returncode > 1:  # 1: not an ancestor
        raise GitError(failure_reason(done.stderr, "merge-base", done.returncode))
    return done.returncode == 0


#: The filter commands Git LFS writes (``git lfs install``): the only clean filters ``git status`` may run.
LFS_FILTER = {"clean": "git-lfs clean -- %f", "smudge": "git-lfs smudge -- %f", "process": "git-lfs filter-process",
              "required": "true"}


def tracks_files_in(folder: str | os.PathLike[str]) -> bool:
    """Whether git tracks a file inside ``folder`` (False when no folder holding it has a ``.git``:
    outside a repository).  GitError when a repository may hold it but git cannot tell (git
    missing, or refusing the repository: "dubious ownership" in a container run as another user):
    the caller cannot take that for "nothing tracked"."""
    if not os.path.isdir(folder):
        return False
    try:
        done = _git(folder, ("ls-files", "-z", "--", "."))
    except GitError:
        if _in_work_tree(folder):
            raise
        return False
    if done.returncode == 0:
        return bool(done.stdout)
    if _in_work_tree(folder):
        raise GitError(failure_reason(done.stderr, "ls-files", done.returncode))
    return False


def _in_work_tree(folder: str | os.PathLike[str]) -> bool:
    """Whether ``folder`` or a folder holding it has a ``.git`` (a folder, or a file naming one):
    where git would look for a repository (``GIT_*`` variables are not passed to it)."""
    here = os.path.abspath(folder)
    while True:
        if os.path.lexists(os.path.join(here, ".git")):
            return True
        parent = os.path.dirname(here)
        if parent == here:
            return False
        here = parent


def dirty_paths(top: str, pathspec: str) -> list[str]:
    """The paths under ``pathspec`` whose work-tree state differs from HEAD (modified, added,
    deleted or untracked and not ignored).  A file whose stamp is not the index's is hashed
    again, through its clean filter: a repository's configuration (an unpacked archive's
    ``.git/config``) could name any command there, so every filter but Git LFS's is switched off,
    and submodules (each with a configuration of its own) are not looked into."""
    out = run_git(top, *_without_filters(top), "status", "--porcelain", "-z", "--untracked-files=all",
                  "--no-renames", "--ignore-submodules=all", "--", pathspec or ".")
    return [record[3:].decode("utf-8", "surrogateescape") for record in out.split(b"\0") if len(record) > 3]


def _without_filters(top: str) -> list[str]:
    """``-c`` options switching off every filter driver the configuration defines (but Git LFS's,
    as it writes it); GitError when a driver's name cannot be written in a ``-c`` option."""
    listed = run_git(top, "config", "--null", "--list").decode("utf-8", "surrogateescape")
    settings: dict[str, dict[str, str]] = {}
    for item in filter(None, listed.split("\0")):
        key, _, value = item.partition("\n")
        section, _, rest = key.partition(".")
        driver, _, variable = rest.rpartition(".")
        if section.lower() == "filter" and driver:
            settings.setdefault(driver, {})[variable.lower()] = value
    options: list[str] = []
    for driver, values in sorted(settings.items()):
        if all(LFS_FILTER.get(variable) == value for variable, value in values.items()):
            continue
        if "=" in driver or "\n" in driver:
            raise GitError(f"the repository configures a filter git cannot be told to skip ({driver!r})")
        options += ["-c", f"filter.{driver}.clean=", "-c", f"filter.{driver}.process=",
                    "-c", f"filter.{driver}.required=false"]
    return options


def _skip(stream: IO[bytes], size: int) -> None:
    """Read and drop ``size`` bytes."""
    while size > 0:
        chunk = stream.read(min(size, 1 << 20))
        if not chunk:
            return
        size -= len(chunk)


class _CatFile:
    """One ``git cat-file`` process answering object names line by line (``--batch``: header and
    content; ``--batch-check``: header only)."""

    def __init__(self, top: str, mode: str):
        self.contents = mode == "--batch"
        try:
            self.process = subprocess.Popen(["git", *GIT_OPTIONS, "cat-file", mode], cwd=top, env=git_env(),
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=subprocess.DEVNULL)
        except FileNotFoundError:
            raise GitError("the git command is not installed") from None
        except OSError as exc:
            raise GitError(f"git could not run: {exc}") from None

    def ask(self, name: str, limit: int = 0) -> tuple[str, int, bytes | None] | None:
        """(type, size, content when asked for and at most ``limit`` bytes) of an object; None when missing."""
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        try:
            stdin.write(name.encode("utf-8", "surrogateescape") + b"\n")
            stdin.flush()
            header = stdout.readline().split()
            if len(header) != 3:
                return None
            kind, size = header[1].decode("ascii", "replace"), int(header[2])
            if not self.contents:
                return kind, size, None
            if size > limit:
                _skip(stdout, size + 1)
                return kind, size, None
            return kind, size, stdout.read(size + 1)[:size]  # the content, then a newline
        except (OSError, ValueError) as exc:
            raise GitError(f"git cat-file failed: {exc}") from None

    def sizes(self, names: list[str]) -> list[int]:
        """The size of each object (-1 when missing), asked in groups (a pipe holds only so much)."""
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None and not self.contents
        found = []
        try:
            for start in range(0, len(names), 500):
                group = names[start:start + 500]
                stdin.write(b"".join(name.encode("ascii", "replace") + b"\n" for name in group))
                stdin.flush()
                for _ in group:
                    header = stdout.readline().split()
                    found.append(int(header[2]) if len(header) == 3 else -1)
        except (OSError, ValueError) as exc:
            raise GitError(f"git cat-file failed: {exc}") from None
        return found

    def close(self) -> None:
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()
        self.process.wait()


#: A tree read from git holding more entries than this is not read further (a hostile repository).
MAX_TREE_FILES = 100_000
MAX_TREE_BYTES = 64 << 20


class ObjectReader:
    """Blob contents and folder listings of any commit, by two long-lived ``git cat-file``
    processes (one for contents, one for sizes), each started when first needed."""

    def __init__(self, top: str):
        self.top = top
        self._batch: _CatFile | None = None
        self._check: _CatFile | None = None

    def _contents(self) -> _CatFile:
        if self._batch is None:
            self._batch = _CatFile(self.top, "--batch")
        return self._batch

    def _sizes(self) -> _CatFile:
        if self._check is None:
            self._check = _CatFile(self.top, "--batch-check")
        return self._check

    def read(self, blob: str, limit: int) -> bytes | None:
        """A blob's bytes; None when it is missing, not a blob or bigger than ``limit``."""
        found = self._contents().ask(blob, limit)
        return found[2] if found is not None and found[0] == "blob" else None

    def tree(self, commit: str, folder: str) -> list[TreeFile]:
        """What :func:`list_tree` gives (``folder``: from the top, "" or ending in "/"), read
        through the running processes instead of one ``git ls-tree`` each."""
        if "\n" in folder:
            return list_tree(self.top, commit, folder)
        root = self._contents().ask(f"{commit}:{folder.rstrip('/')}" if folder else f"{commit}^{{tree}}",
                                    MAX_TREE_BYTES)
        if root is None or root[0] != "tree" or root[2] is None:
            return []
        files: list[TreeFile] = []
        pending = [(folder, root[2])]
        width = len(commit) // 2
        while pending and len(files) < MAX_TREE_FILES:
            where, data = pending.pop()
            for mode, name, oid in _tree_entries(data, width):
                path = where + name
                if mode == "40000":
                    sub = self._contents().ask(oid, MAX_TREE_BYTES)
                    if sub is not None and sub[0] == "tree" and sub[2] is not None:
                        pending.append((path + "/", sub[2]))
                elif mode == SUBMODULE_MODE:
                    files.append(TreeFile(path, mode, "commit", oid, -1))
                else:
                    files.append(TreeFile(path, mode.rjust(6, "0"), "blob", oid, -1))
        blobs = [f for f in files if f.kind == "blob"]
        sizes = dict(zip((f.blob for f in blobs), self._sizes().sizes([f.blob for f in blobs])))
        return sorted((TreeFile(f.path, f.mode, f.kind, f.blob, sizes.get(f.blob, -1)) for f in files),
                      key=lambda f: f.path)

    def close(self) -> None:
        for process in (self._batch, self._check):
            if process is not None:
                process.close()


def _tree_entries(data: bytes, width: int) -> Iterator[tuple[str, str, str]]:
    """(mode, name, object id) of each entry of a raw tree object (ids of ``width`` bytes)."""
    at = 0
    while at < len(data):
        space = data.index(b" ", at)
        nul = data.index(b"\0", space)
        yield (data[at:space].decode("ascii", "replace"), data[space + 1:nul].decode("utf-8", "surrogateescape"),
               data[nul + 1:nul + 1 + width].hex())
        at = nul + 1 + width
