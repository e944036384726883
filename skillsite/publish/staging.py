"""The staging folder: where a build writes, published only when everything succeeded.

Every build writes the whole new output into a folder beside the target
(``.<name>.building-<random>``); :meth:`Staging.commit` then puts it in the target's place in
one step (:func:`skillsite.folders.replace_folder`), so at every instant the target holds the
previous catalog or the new one, complete, whatever interrupts the build.

A rebuild does not write again what did not change: when the last build recorded the content
key of each of its files, a file whose key is unchanged, and which is still exactly as published
(same size and time, a regular file), is hard-linked from the current output into the staging
folder (:meth:`Staging.keep`) instead of being made again.
Worker processes write into the same staging folder and report what they placed
(:meth:`Staging.take_journal`), which this process adopts (:meth:`Staging.adopt`).

A rebuild trusts those records, as git trusts its index: it neither lists nor ``lstat``s the kept
files of a folder whose marker file (:data:`MARKER`, written anew by every build) is the one the
last build recorded (:func:`marker_identity`).  A folder a build starts writing into loses its
marker first, so a build killed there leaves it untrusted, and the next build looks at every file
of it again; so does ``--verify-output``.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, Iterable, Iterator, Sequence

from skillsite.agent.site_urls import OUTPUT_MARKER
from skillsite.source.discover import SKILL_FILES, inside_folder
from skillsite.folders import make_folders, remove_path, replace_folder, restore_moved_aside

MARKER = OUTPUT_MARKER  # written anew by every build (the agent side names it too)
MARKER_TEXT = "skillsite build output; safe to replace with a new build\n"
_CHUNK = 1 << 20

#: What a build records of each file of its output: content key ("" for a file that has none:
#: it is written by every build), size, mtime_ns.
Recorded = tuple[str, int, int]
#: A file of the folder a build writes into, as found: its content key when it is the file the
#: last build recorded with that key (None: unknown, or it changed since), size, mtime_ns.
Found = tuple["str | None", int, int]
#: Which file a folder's marker is: inode, size, mtime_ns.
MarkerIdentity = tuple[int, int, int]
#: What a commit gives of each file of the new output: content key (None: it has none), size, mtime_ns.
Published = tuple["str | None", int, int]
#: What a worker placed: (site path, content key if it has one, written rather than kept as found).
#: A file's length and sha256, known when this build wrote it (what signed file lists need).
Digest = tuple[int, str]
#: A file placed in the new output: its site path, content key, whether this build wrote it (or
#: took it as the folder held it), and its digest when known.
Placed = tuple[str, "str | None", bool, "Digest | None"]
#: A file of the new output published a second time under another name, as a hard link: (site
#: path, content key, site path of the file it links to).
Link = tuple[str, str, str]
#: The staging folder's name: ``.<target name>.building-<random>``.
BUILDING = "building"


class OutputError(Exception):
    """The output folder cannot be used (exit 2: a usage problem, not a skill problem)."""


def is_previous_output(folder: Path) -> bool:
    """True when ``folder`` was written by skillsite (it holds the marker file)."""
    return os.path.isfile(folder / MARKER)  # False too where the folder cannot be searched (mode 000)


def check_target(target: Path, force: bool) -> None:
    """Refuse to replace a non-empty folder that is not an earlier skillsite output."""
    if target.exists() and not target.is_dir():
        raise OutputError(f"{target} exists and is not a folder")
    if not target.is_dir() or force or is_previous_output(target):
        return
    try:
        if not any(target.iterdir()):
            return
    except PermissionError:
        raise OutputError(f"{target} cannot be opened (permission denied), so whether skillsite wrote it cannot be "
                          "told; choose another folder or pass --force to replace it") from None
    raise OutputError(f"{target} is not empty and was not written by skillsite; "
                      "choose another folder or pass --force to replace it")


#: Why an output may not be a folder the build reads, or a skill's, nor hold one.
NOT_REPLACED = ("a build replaces its output folder, so it cannot be written there (even with --force); choose "
                "another output folder")


#: The inputs every file of which the build may read: an output may not lie in one either.
READ_WHOLE = ("templates folder", "knowledge folder")


def check_inputs_kept(target: Path, inputs: Iterable[tuple[str, Path]]) -> None:
    """Refuse an output that is or holds a folder the build reads (``inputs``: what each is, and
    where: the sources, the templates, the knowledge documents, the configuration's folder, the
    current folder), ``--force`` or not: replacing it would take them (and whatever lies beside
    them) away."""
    where = Path(os.path.realpath(target))
    for what, folder in inputs:
        real = Path(os.path.realpath(folder))
        chain = _chain_within(real, where)
        if chain is not None:
            relation = "is" if len(chain) == 1 else "holds"
            raise OutputError(f"{target} {relation} the {what} {folder}: {NOT_REPLACED}")
        if what in READ_WHOLE and _chain_within(where, real) is not None:
            raise OutputError(f"{target} is inside the {what} {folder}, which the build reads whole: {NOT_REPLACED}")


def check_cache_outside(target: Path, cache_dir: Path | None) -> None:
    """Refuse a cache folder that is the output folder or inside it: a build replaces its output
    with a new folder, which would take the cache (and the catalog it keeps for the next build) away."""
    if cache_dir is None:
        return
    chain = _chain_within(Path(os.path.realpath(cache_dir)), Path(os.path.realpath(target)))
    if chain is not None:
        what = "is the output folder" if len(chain) == 1 else "is inside the output folder"
        raise OutputError(f"the cache folder {cache_dir} {what} {target}: a build replaces its output folder, so "
                          "the cache cannot be kept there; choose a cache folder outside it")


def check_outside_skills(target: Path, sources: Iterable[Path]) -> None:
    """Refuse an output folder inside a source that is a skill's folder, lies in one (one holding a
    SKILL.md, up to the source holding it: the build's lock file beside the output would be
    published as a file of the skill) or holds one (not a catalog skillsite wrote): ``--force`` or
    not, replacing it would take skills away."""
    where = Path(os.path.realpath(target))
    for source in sources:
        chain = _chain_within(where, Path(os.path.realpath(source)))
        if chain is None or len(chain) == 1:   # the source itself: check_inputs_kept's
            continue
        holder = next((folder for folder in chain if _holds_skill_file(folder)), None)
        if holder == where:
            raise OutputError(f"{target} is the skill folder {holder}: {NOT_REPLACED}")
        if holder is not None:
            raise OutputError(f"{target} is inside the skill folder {holder}: the build's files beside the output "
                              "would be published with the skill; choose an output folder outside the skill folders")
        held = None if is_previous_output(where) else _skill_below(where)
        if held is not None:
            raise OutputError(f"{target} holds the skill folder {held}: {NOT_REPLACED}")


def _chain_within(path: Path, folder: Path) -> list[Path] | None:
    """``path`` and its parents up to ``folder``, when it is ``folder`` or lies in it; else None.
    Folders are told apart by device and inode, not by spelling: a file system that ignores case
    or Unicode form (macOS, Windows) holds ``Skills`` and ``skills`` as one folder, which
    ``realpath`` does not spell alike."""
    if inside_folder(str(path), str(folder)):   # spelt alike: no file system call
        return [path, *[p for p in path.parents if inside_folder(str(p), str(folder))]]
    try:
        wanted = os.stat(folder)
    except OSError:
        return None
    chain: list[Path] = []
    for step in (path, *path.parents):
        chain.append(step)
        try:
            if os.path.samestat(os.stat(step), wanted):
                return chain
        except OSError:
            continue
    return None


def _holds_skill_file(folder: Path) -> bool:
    return any((folder / name).is_file() for name in SKILL_FILES)


def _skill_below(folder: Path) -> Path | None:
    """The first skill folder found under ``folder`` (symbolic links not followed), if any."""
    for parent, _folders, files in os.walk(folder):
        if any(name in files for name in SKILL_FILES):
            return Path(parent)
    return None


def site_path_parts(rel: str) -> list[str]:
    """The segments of a site-relative path; refuses anything that could leave the folder."""
    parts = rel.split("/")
    if rel.startswith("/") or any(p in ("", ".", "..") for p in parts) or "\x00" in rel:
        raise OutputError(f"refusing to write outside the output folder: {rel!r}")
    return parts


#: A file's size and modification time, what a build compares; (-1, -1): not a regular file.
Stamp = tuple[int, int]


def stamp_of(st: os.stat_result) -> Stamp:
    """The :data:`Stamp` of a file's lstat."""
    return (st.st_size, st.st_mtime_ns) if stat.S_ISREG(st.st_mode) else (-1, -1)


def marker_identity(folder: Path | None) -> MarkerIdentity | None:
    """Which marker file ``folder`` holds (None: none, or not a regular file)."""
    if folder is None:
        return None
    try:
        st = os.lstat(folder / MARKER)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns) if stat.S_ISREG(st.st_mode) else None


def snapshot(folder: Path) -> dict[str, Stamp]:
    """Every entry under ``folder`` that is not a folder, by site-relative path: its stamp (only
    the stamp is kept: a catalog of 100,000 skills has over a million files)."""
    found: dict[str, Stamp] = {}
    stack = [("", str(folder))]
    while stack:
        rel, path = stack.pop()
        with os.scandir(path) as entries:
            for entry in entries:
                child = f"{rel}/{entry.name}" if rel else entry.name
                if entry.is_dir(follow_symlinks=False):
                    stack.append((child, entry.path))
                else:
                    found[child] = stamp_of(entry.stat(follow_symlinks=False))
    return found


#: This process's staging folders not yet committed or discarded (what an interrupt removes).
_OPEN: set[Path] = set()


def discard_open_staging() -> None:
    """Remove every staging folder of this process (the build was interrupted)."""
    for path in list(_OPEN):
        remove_path(path)
        _OPEN.discard(path)


class Staging:
    """Where a build writes; :meth:`commit` publishes it, :meth:`discard` drops it.

    ``back``: a folder holding an earlier catalog of this output (the one the last build
    replaced, kept in the cache folder, or that build's own: :func:`mirror_output`), with
    ``back_records`` as that build recorded them: the
    new catalog is made there by writing only what differs, and the catalog it replaces becomes
    the next build's ``back``.  Without one, a fresh folder beside the output.

    ``trust_output`` and ``trust_back``: the output and the back folder are as ``previous`` and
    ``back_records`` say (their markers are the recorded ones): their files are not looked at.
    """

    def __init__(self, target: Path, previous: dict[str, Recorded] | None = None, back: Path | None = None,
                 back_records: dict[str, Recorded] | None = None, digests: bool = False,
                 trust_output: bool = False, trust_back: bool = False):
        self.target = target.absolute()
        #: whether to note each written file's digest (a signed build lists them all)
        self.note_digests = digests
        #: the length and sha256 of the files this build wrote, where noted
        self.digests: dict[str, Digest] = {}
        self.previous = previous if previous and is_previous_output(self.target) else {}
        #: every file of the new output, by site path: its content key (None: it has none)
        self.placed: dict[str, str | None] = {}
        #: of which those taken as the folder written into held them (the rest were written or
        #: linked by this build): none in a cold build, so a catalog's million files are held once
        self.kept: set[str] = set()
        self._written: set[str] = set()  # the rest, kept apart as a rebuild writes few
        self._kept_keyless: set[str] = set()  # kept files first placed without a key (none in a build)
        self.journal: list[Placed] = []  # what this process placed since the last take_journal
        make_folders(self.target.parent)
        self.kept_back = back is not None
        self.trust_output = trust_output and bool(self.previous)
        self.path, made_anew = self._open_folder(back)
        self._made: set[str] = {""}  # folders known to exist in the staging folder (real ones, not links)
        self.found_records = back_records or {}
        #: the files of the folder written into as found (an earlier catalog: kept where intact); when
        #: trusted, the records themselves (shared with the build state, never changed here)
        self.found: dict[str, Found] = {}
        if back is not None:
            trusted = trust_back and not made_anew
            self.found = self.found_records if trusted else _as_found(snapshot(self.path), self.found_records)
            self._untrust_folder()

    @property
    def holds_earlier_output(self) -> bool:
        """Whether an earlier catalog's files can be kept (a cold build has none)."""
        return bool(self.previous or self.found_records)

    def _untrust_folder(self) -> None:
        """Remove the marker of the folder written into before anything else is written there:
        until the commit writes a new one, no build trusts its records of the folder."""
        marker = os.path.join(self.path, MARKER)
        with written(marker):
            try:
                os.unlink(marker)
            except FileNotFoundError:
                pass

    def _open_folder(self, back: Path | None) -> tuple[Path, bool]:
        """The folder the new catalog is made in: ``back``, else a fresh one; and whether it was
        made anew.  A ``back`` that is no folder (a symbolic link committed in a cache folder, a
        file) is removed, never followed: the build writes into and deletes from that folder, so a
        link would turn both on wherever it points."""
        if back is not None:
            with written(back):
                return back, real_folder(back)
        path = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.{BUILDING}-", dir=self.target.parent))
        _OPEN.add(path)
        return path, True

    def file(self, rel: str) -> str:
        """The staging path of a site-relative file, with its folder created (in a folder that
        holds an earlier catalog, a file of it where one of the folders goes is removed).  Every
        folder on the way is a real one: a symbolic link there is removed, never followed."""
        parts = site_path_parts(rel)
        if "/".join(parts[:-1]) not in self._made:
            for depth in range(1, len(parts)):
                self._make_folder("/".join(parts[:depth]))
        return os.path.join(self.path, rel)

    def _make_folder(self, folder: str) -> None:
        """Make ``folder`` of the staging folder (its parent is made): what is there and is no
        folder is removed (a link itself, not what it points to), a file only where an earlier
        catalog may have left it (a fresh staging folder holding one is this build's fault)."""
        if folder in self._made:
            return
        path = os.path.join(self.path, folder)
        with written(path):
            try:
                os.mkdir(path)
            except FileExistsError:
                if not _is_folder(path):
                    if not (self.found or os.path.islink(path)):
                        raise
                    os.unlink(path)
                    os.mkdir(path)
        self._made.add(folder)

    def current(self, rel: str) -> Path:
        """Where the new output's copy of ``rel`` is now."""
        site_path_parts(rel)
        return Path(self.path, rel)

    def _here(self, rel: str, key: str) -> bool:
        """Whether the folder written into already holds ``key``'s content as ``rel``, untouched."""
        found = self.found.get(rel)
        return found is not None and found[0] == key and rel != MARKER

    def _published(self, rel: str, key: str) -> bool:
        """Whether the current output holds ``key``'s content as ``rel``, untouched."""
        recorded = self.previous.get(rel)
        if recorded is None or recorded[0] != key:
            return False
        if self.trust_output:
            return True
        try:
            st = os.lstat(os.path.join(self.target, *site_path_parts(rel)))
        except OSError:
            return False
        return _untouched(recorded, key, stamp_of(st))

    def keep(self, rel: str, key: str) -> bool:
        """Take ``rel`` as it is when ``key``'s content need not be made again: the folder written
        into, or the current output, holds it as ``rel`` exactly as published (a hard link from the
        current output when the folder written into lacks it); True when taken."""
        if self._here(rel, key):
            self._placed(rel, key, written=False)
            return True
        if not self._published(rel, key):
            return False
        source, dest = os.path.join(self.target, rel), self.fresh(rel)
        with written(dest):
            try:
                os.link(source, dest)
            except FileNotFoundError:
                return False  # gone since it was looked at
            except OSError:   # a file system without hard links
                shutil.copy2(source, dest)
        self._placed(rel, key)
        return True

    def keep_all(self, files: Sequence[Sequence[str]]) -> bool:
        """Take every ``(rel, key)`` of ``files`` (one skill's, one page's) as it is when :meth:`keep` can take
        all of them, else none; True when taken.  Those the folder written into holds are
        recorded in bulk: most files of a rebuild are, and they need no journal."""
        if self._all_here(files):
            return True
        elsewhere = [(rel, key) for rel, key in files if not self._here(rel, key)]
        if not all(self._published(rel, key) for rel, key in elsewhere):
            return False
        if not all(self.keep(rel, key) for rel, key in elsewhere):
            return False  # a file went missing since it was looked at
        self.adopt((rel, key, False, None) for rel, key in files)  # those linked stay written
        return True

    def _all_here(self, files: Sequence[Sequence[str]]) -> bool:
        """Take ``files`` at once when the folder written into holds every one of them, untouched,
        and none was placed yet (the usual skill of a rebuild): their keys compared in one pass,
        without a call per file; else False, with nothing taken."""
        if not files:
            return False
        rels, keys = zip(*files)
        found = tuple(self.found.get(rel, _NOT_FOUND)[0] for rel in rels)
        if found != keys or MARKER in rels or not self.placed.keys().isdisjoint(rels):
            return False
        self.placed.update(zip(rels, keys))
        self.kept.update(rels)
        return True

    def fresh(self, rel: str) -> str:
        """The staging path of ``rel``, with nothing there: a file placed before is unlinked, never
        written over (it may be a hard link to the published output)."""
        path = self.file(rel)
        if rel in self.found or rel in self.placed:
            with written(path):
                try:
                    os.unlink(path)
                except FileNotFoundError:
                    pass
        elif self.found:   # an earlier catalog's folder, or its file spelt another way, may be there
            self._clear_other(path)
        return path

    @staticmethod
    def _clear_other(path: str) -> None:
        """Remove what an earlier catalog left at ``path`` under another name: a folder where the
        new one has a file, or a file whose name differs only in case or Unicode form, which a file
        system that ignores those (macOS, Windows) opens as ``path`` (``Notes.md`` for ``notes.md``:
        written through, the hard link it is would empty the published output's file)."""
        try:
            found = os.lstat(path)
        except OSError:
            return
        with written(path):
            if stat.S_ISDIR(found.st_mode):
                remove_path(Path(path))
            else:
                os.unlink(path)

    def write(self, rel: str, data: bytes, key: str | None = None) -> None:
        """Write ``data`` as the new output's ``rel`` (``key``: its content key, for the next build)."""
        path = self.fresh(rel)
        with written(path), open(path, "wb", opener=_no_follow) as out:
            out.write(data)
        self._placed(rel, key, digest=(len(data), hashlib.sha256(data).hexdigest()) if self.note_digests else None)

    def write_keyed(self, rel: str, key: str, make: Any) -> None:
        """Keep ``rel`` if unchanged (see :meth:`keep`), else write ``make()``."""
        if not self.keep(rel, key):
            self.write(rel, make(), key)

    def copy(self, source: str | os.PathLike[str], rel: str) -> tuple[int, str, bytes | None]:
        """Copy a file into the staging folder: its size, sha256 (its content key) and, when it
        is at most 1 MiB, its content.  An OSError names ``source`` when reading it failed, and
        the staging path when writing did (a full disk, a file-size limit: no fault of the file)."""
        sha, size, chunks = hashlib.sha256(), 0, []
        dest = self.fresh(rel)
        with open(source, "rb") as src, written(dest), open(dest, "wb", opener=_no_follow) as out:
            while chunk := _read_chunk(src, source):
                sha.update(chunk)
                out.write(chunk)
                size += len(chunk)
                chunks.append(chunk)
        key = sha.hexdigest()
        self._placed(rel, key, digest=(size, key))
        return size, key, chunks[0] if len(chunks) == 1 else (b"" if not chunks else None)

    def link(self, published: str, rel: str, key: str) -> None:
        """Publish the new output's ``published`` file a second time, as ``rel`` (content key
        ``key``): a hard link, as both names hold the same bytes and no file of the output is ever
        changed in place (a copy where the file system has no hard links)."""
        source, dest = self.current(published), self.fresh(rel)
        with written(dest):
            try:
                os.link(source, dest)
            except OSError:
                shutil.copyfile(source, dest)
        self._placed(rel, key, digest=self.digests.get(published))

    def keep_those_here(self, files: Sequence[tuple[str, str]]) -> list[bool]:
        """Whether each ``(rel, key)`` of ``files`` was taken: those the folder written into holds
        untouched, whose name no file placed before has, are taken as :meth:`keep` takes them, and
        recorded in bulk as :meth:`keep_all` records (a rebuild's files are nearly all unchanged);
        the others are left to the caller."""
        here: dict[str, str] = {}
        taken = []
        for rel, key in files:
            take = rel not in here and rel not in self.placed and self._here(rel, key)
            if take:
                here[rel] = key
            taken.append(take)
        self.placed.update(here)
        self.kept.update(here)
        return taken

    def keep_links_here(self, links: Sequence[Link]) -> list[Link]:
        """Take each of ``links`` the folder written into holds untouched (:meth:`keep_those_here`);
        the others, still to be placed (:meth:`link_all`)."""
        taken = self.keep_those_here([(rel, key) for rel, key, _ in links])
        return [link for link, took in zip(links, taken) if not took]

    def link_all(self, links: Iterable[Link]) -> None:
        """Publish each ``(rel, key, published)`` of ``links`` as :meth:`link` does, keeping ``rel``
        in place when it is unchanged (:meth:`keep`)."""
        for rel, key, published in links:
            if not self.keep(rel, key):
                self.link(published, rel, key)

    def _placed(self, rel: str, key: str | None, written: bool = True, digest: Digest | None = None) -> None:
        self.journal.append((rel, key, written, digest))
        self.adopt([(rel, key, written, digest)])

    def take_journal(self) -> list[Placed]:
        """What was placed since the last call (a worker sends it to the process that commits)."""
        taken, self.journal = self.journal, []
        return taken

    def adopt(self, placed: Iterable[Placed]) -> None:
        """Record files placed here or by a worker (a file once written stays written; a key
        once known stays known)."""
        for rel, key, wrote, digest in placed:
            if digest is not None:
                self.digests[rel] = digest
            elif wrote:
                self.digests.pop(rel, None)  # written again, its digest not noted
            if wrote:
                self.kept.discard(rel)
                self._written.add(rel)
            elif rel not in self.placed:
                self.kept.add(rel)
                if key is None:
                    self._kept_keyless.add(rel)
            if key is not None or rel not in self.placed:
                self.placed[rel] = key

    @property
    def written(self) -> set[str]:
        """The files of the new output this build wrote (or linked)."""
        return set(self._written)

    def commit(self) -> dict[str, Published]:
        """Put the new output in the target's place in one step; returns each file's content key
        and stamp, as :func:`snapshot` would find them (from what this build found and wrote: the
        files keep their sizes and times)."""
        stale = self.found.keys() - self.placed.keys()
        self._remove_stale(stale)
        marker = self.path / MARKER
        with written(marker):
            marker.write_text(MARKER_TEXT, encoding="utf-8")
        os.chmod(self.path, 0o755)
        published = self._published_files(stale)
        with written(self.target):
            previous = _replaced(self.path, self.target)
        _OPEN.discard(self.path)  # published (after an exchange the path holds the old catalog)
        if previous is not None and not self.kept_back:
            remove_path(previous)
        elif previous is not None and previous != self.path:  # moved aside: it is the next build's back
            replace_folder(previous, self.path)
        return published

    def _remove_stale(self, stale: set[str]) -> None:
        """Remove what the folder written into held that the new output lacks (``stale``)."""
        names: dict[Path, set[str]] = {}
        for rel in sorted(stale - {MARKER}):
            path = Path(self.path, rel)
            if not self._in_real_folders(rel) or not _spelt_so(path, names):
                continue   # gone, or a file of the new output answers to it (a name differing in case only)
            with written(path):
                try:
                    path.unlink(missing_ok=True)
                except NotADirectoryError:
                    continue  # in a folder of the earlier catalog whose place a file of the new one took
                except OSError:  # EISDIR (EPERM on macOS): a folder of the new one took the file's place
                    if _is_folder(str(path)):
                        continue
                    raise
            _remove_empty_parents(path.parent, self.path)

    def _in_real_folders(self, rel: str) -> bool:
        """Whether every folder holding ``rel`` in the folder written into is a real one (those
        found so are noted as made).  A symbolic link there (a build makes none) would take the
        removal of a stale file to wherever it points: the link itself is removed instead."""
        parts = rel.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            folder = "/".join(parts[:depth])
            if folder not in self._made:
                path = os.path.join(self.path, folder)
                if not _is_folder(path):
                    if os.path.islink(path):
                        with written(path):
                            os.unlink(path)
                    return False   # else a file of the new output took the folder's place
                self._made.add(folder)
        return True

    def _published_files(self, stale: set[str]) -> dict[str, Published]:
        """Content key, size and time of every file of the new output (its :func:`snapshot`,
        without listing it): one tuple a file, as a catalog has a million of them.  What was
        found is copied whole (a kept file is the one found under its placed key: its tuple is
        the one published), less the ``stale`` files, and the few written are stamped anew."""
        files: dict[str, Published] = dict(self.found)
        for rel in stale:
            del files[rel]
        for rel in self._kept_keyless:
            if rel in self.kept and self.placed[rel] is None:
                files[rel] = (None, *files[rel][1:])
        for rel in self._written:
            files[rel] = (self.placed[rel], *stamp_of(os.lstat(os.path.join(self.path, rel))))
        files[MARKER] = (None, *stamp_of(os.lstat(os.path.join(self.path, MARKER))))
        return files

    def discard(self, failed_writing: bool = False) -> None:
        """Drop the new output.  A folder kept for later builds stays (they check what it holds),
        unless writing failed (``failed_writing``: a full disk): what this build wrote into it would
        hold the space the next build needs, every build failing in turn, so it goes too (the next
        build links the catalog's files again)."""
        if not self.kept_back or failed_writing:
            remove_path(self.path)
        _OPEN.discard(self.path)


def mirror_output(target: Path, rels: Iterable[str], folder: Path) -> bool:
    """Make ``folder`` a copy of the catalog at ``target`` (its files ``rels``) whose files are
    hard links to the catalog's own, the marker last: a back folder whose records are this
    catalog's.  Whatever ``folder`` held goes first.  False, with nothing left at ``folder``, on a
    file system without hard links or when a link cannot be made (a full disk): the next build
    then writes more, nothing else."""
    remove_path(folder)
    files = sorted(rel for rel in rels if rel != MARKER)
    try:
        for parent in sorted({"", *(os.path.dirname(rel) for rel in files)}):
            os.makedirs(os.path.join(folder, parent), exist_ok=True)
        for rel in [*files, MARKER]:
            os.link(os.path.join(target, rel), os.path.join(folder, rel))
    except OSError:
        remove_path(folder)
        return False
    return True


def real_folder(folder: Path) -> bool:
    """Make sure ``folder`` is a folder, not a symbolic link to one: what is there and is no folder
    (a link, a file) is removed itself, never what it points to, and a folder made in its place;
    True when the folder was made anew (it holds nothing)."""
    try:
        if stat.S_ISDIR(os.lstat(folder).st_mode):
            return False
        os.unlink(folder)
    except FileNotFoundError:
        make_folders(folder.parent)
    os.mkdir(folder)
    return True


def _no_follow(path: str, flags: int) -> int:
    """An ``open`` opener that never writes through a symbolic link at ``path`` itself."""
    return os.open(path, flags | _O_NOFOLLOW, 0o666)


_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _replaced(new: Path, target: Path) -> Path | None:
    """:func:`replace_folder`, a refusal named by the output, not by the folder it was swapped
    with (a folder moved to another parent must itself be writable: its ``..`` changes)."""
    try:
        return replace_folder(new, target)
    except PermissionError as exc:
        raise PermissionError(exc.errno, f"{exc.strerror}: cannot replace it (the output folder and the folder "
                              "holding it must both be writable)", str(target)) from exc


def records(files: dict[str, Published]) -> dict[str, Recorded]:
    """The records of a committed output's files (:meth:`Staging.commit`), for the next build: a
    file without a content key has "" (no key is "").  The others' tuples are taken as they are:
    a catalog has a million files, and a rebuild need not make a tuple for each."""
    recorded: dict[str, Recorded] = dict(files)  # type: ignore[arg-type]  # the keyless ones follow
    for rel, (key, size, mtime) in files.items():
        if key is None:
            recorded[rel] = ("", size, mtime)
    return recorded


#: What a file not found has (no content key).
_NOT_FOUND: Found = (None, -1, -1)


def _as_found(stamps: dict[str, Stamp], recorded: dict[str, Recorded]) -> dict[str, Found]:
    """The files of a folder listed (:func:`snapshot`) as :class:`Staging` finds them: with the
    content key the last build recorded for a file still exactly as recorded, else None (the
    marker aside: it is removed before anything is written)."""
    found = {rel: (_recorded_key(recorded.get(rel), stamp), *stamp) for rel, stamp in stamps.items()}
    found.pop(MARKER, None)
    return found


def _recorded_key(recorded: Recorded | None, stamp: Stamp) -> str | None:
    """The content key ``recorded`` gives a file found with ``stamp``: None unless it is the file recorded."""
    return recorded[0] if recorded is not None and _untouched(recorded, recorded[0], stamp) else None


def _untouched(recorded: Recorded | None, key: str, stamp: Stamp | None) -> bool:
    """Whether a file (its stamp) is the one a build recorded with content key ``key`` (a
    recorded size is never -1: what is not a regular file is never untouched)."""
    return recorded is not None and recorded[0] == key and stamp is not None and stamp == recorded[1:]


def _spelt_so(path: Path, names: dict[Path, set[str]]) -> bool:
    """Whether ``path``'s folder holds an entry of exactly its name (``names``: the folders listed
    so far).  A file system that ignores case finds ``Notes.md`` when ``notes.md`` is there, and
    unlinking the earlier catalog's name would remove the new output's file."""
    listed = names.get(path.parent)
    if listed is None:
        try:
            listed = names[path.parent] = set(os.listdir(path.parent))
        except OSError:
            listed = names[path.parent] = set()
    return path.name in listed


def _is_folder(path: str) -> bool:
    """Whether ``path`` is a folder (not a link to one)."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _remove_empty_parents(folder: Path, stop: Path) -> None:
    """Remove ``folder`` and its parents, up to ``stop``, while they are empty."""
    while folder != stop and stop in folder.parents:
        try:
            os.rmdir(folder)
        except OSError:
            return
        folder = folder.parent


def _read_chunk(file: BinaryIO, path: str | os.PathLike[str]) -> bytes:
    """The next chunk of ``file`` (read from ``path``); an OSError reading it names ``path``, not
    the file being written (:func:`written` names that one in any error without a name)."""
    try:
        return file.read(_CHUNK)
    except OSError as exc:
        raise type(exc)(exc.errno, exc.strerror, os.fspath(path)) from exc


@contextmanager
def written(path: str | os.PathLike[str]) -> Iterator[None]:
    """Name ``path`` in an OSError raised while writing it (a full disk says no file name)."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None:
            raise type(exc)(exc.errno, exc.strerror, os.fspath(path)) from exc
        raise


def clear_remains(target: Path) -> None:
    """Remove what interrupted builds of ``target`` left beside it (the caller holds the
    output's lock, so no build of it is running); put back a target left moved aside."""
    target = target.absolute()
    restore_moved_aside(target)
    for kind in (BUILDING, "old"):
        for remains in target.parent.glob(f".{target.name}.{kind}-*"):
            remove_path(remains)
