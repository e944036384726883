"""What a build leaves for the next one, beside the cache: a state file (sqlite).

It says what the last build read (a digest of every input's size and modification time),
what it published (the content key, size and time of each file of its output: see
:class:`~skillsite.publish.staging.Staging`, and which marker file the output and the back
folder hold), and its result.  A rebuild whose inputs and output are both as the last build left
them, and whose links to missing files still point at what their warnings (SK303) said is there,
stops after discovery and reports that result.  That the output is as it was left, a rebuild
trusts when its marker file is the recorded one (as git trusts its index); ``--verify-output``
compares every file's size and time with those records instead.

A large catalog has many records (one per keyed file, for the output and for the catalog it
replaced) that change little from one build to the next: the file keeps them as table rows, the
replaced catalog's only where they differ from the output's, and a build rewrites only the rows
that changed since the state it loaded.  Each save is one transaction: a build killed at any
instant leaves the previous state or the new one.  A file that is damaged, of another format,
scope or output is no state, and the next save writes it anew.

An input changed within two seconds of a build may change again within the file system's
timestamp granularity and keep its stamp.  As git does with its "racily clean" entries, the build
then records which inputs were that recent and folds a hash of their content into the input
digest; the next build hashes those files again, so an edit that kept the stamp is still seen
and an untouched tree is still a rebuild with nothing to do (which then records the files that
have settled since: :func:`settle_inputs`).

The file also records the report of a long list of diagnostics the command line wrote last
(:class:`ReportRecord`), which a build whose report would be the same bytes leaves as it is.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.util
import json
import os
import secrets
import sqlite3
import stat
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence, overload

from skillsite.audit.files import audited_stamps, skill_files
from skillsite.cache import RACY_NS, digest, make_cache_folder
from skillsite.diagnostics import Diagnostic
from skillsite.publish.staging import MarkerIdentity, Recorded, marker_identity, snapshot
from skillsite.models import NO_STAMP, SourceFile, Stamp, stamp_of
from skillsite.source.discover import Discovery
from skillsite.source.links import MissingPlace, places_as_said
from skillsite.workers import parallel_map

STATE_FILE = "build-state.sqlite"
#: The state file of earlier versions (one JSON text): removed by a save.
OLD_STATE_FILE = "build-state.json"
FORMAT = "skillsite-build-state 12"
_SCHEMA = (
    "CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE outputs (rel TEXT PRIMARY KEY, key TEXT NOT NULL, size INTEGER NOT NULL, mtime INTEGER NOT NULL)"
    " WITHOUT ROWID",
    # the back folder's records where they differ from the output's (key NULL: a file it lacks)
    "CREATE TABLE back (rel TEXT PRIMARY KEY, key TEXT, size INTEGER, mtime INTEGER) WITHOUT ROWID",
)
_ROW = "rel, key, size, mtime"
#: A row of the ``back`` table.
BackRow = tuple[str, "str | None", "int | None", "int | None"]


class StoredDiagnostics(Sequence[Diagnostic]):
    """A build's diagnostics as the state file holds them (their JSON text), made into
    :class:`~skillsite.diagnostics.Diagnostic` objects only when read: a rebuild with work to do
    never reads the last build's (at 10,000 skills, tens of thousands of objects the build would
    hold, and the garbage collector walk, to the end); a save compares texts to know whether
    the file's copy needs writing again.  Made by a save (``items``: the build's own objects,
    held anyway), they are kept too: the next save of a long-running process finds its
    diagnostics equal to them and takes this text instead of encoding them again."""

    def __init__(self, text: str, items: tuple[Diagnostic, ...] | None = None, parts: tuple[str, ...] = ()):
        self.text = text
        self.parts = parts  # each item's JSON text, when made by a save (the next save reuses those of the same items)
        if items is not None:
            self.__dict__["_items"] = items  # what the cached property would make of ``text``

    def holds(self, diagnostics: Sequence[Diagnostic]) -> bool:
        """Whether these are the diagnostics of this text, known without reading it (only when
        made with them: as a rule the same objects, compared by identity first)."""
        items = self.__dict__.get("_items")
        return items is not None and items == tuple(diagnostics)

    def texts_by_identity(self) -> dict[int, str]:
        """Each item's JSON text by the item's ``id()``, when made by a save with its items (which it
        holds, so no other object has their ids while it lives); else empty."""
        items = self.__dict__.get("_items")
        return {id(item): text for item, text in zip(items, self.parts)} if items is not None and self.parts else {}

    @functools.cached_property
    def _items(self) -> tuple[Diagnostic, ...]:
        return tuple(Diagnostic.from_json(d) for d in json.loads(self.text))

    @overload
    def __getitem__(self, index: int) -> Diagnostic: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Diagnostic]: ...

    def __getitem__(self, index: int | slice) -> Diagnostic | Sequence[Diagnostic]:
        return self._items[index]

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self._items)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, StoredDiagnostics):
            return self.text == other.text
        return isinstance(other, Sequence) and self._items == tuple(other)

    __hash__ = None  # type: ignore[assignment]  # equal to a tuple of the same diagnostics, which hashes otherwise

    def __repr__(self) -> str:
        return f"StoredDiagnostics({len(self.text)} characters)"


def diagnostics_text(diagnostics: Sequence[Diagnostic]) -> str:
    """The JSON text the state file holds of ``diagnostics`` (as given when read from it)."""
    if isinstance(diagnostics, StoredDiagnostics):
        return diagnostics.text
    return json.dumps([d.to_json() for d in diagnostics])


def stored_diagnostics(diagnostics: Sequence[Diagnostic], last: Sequence[Diagnostic] | None) -> StoredDiagnostics:
    """``diagnostics`` as a save keeps them: with ``last``'s text (the last state's diagnostics)
    when they are the same, as they are after most edits, else encoded, each item that ``last``
    holds as well (the very object: ``serve`` keeps an unchanged skill's) taking its text from
    there.  The text is :func:`diagnostics_text`'s: a JSON list is its items' texts joined."""
    if isinstance(diagnostics, StoredDiagnostics):
        return diagnostics
    items = tuple(diagnostics)
    if isinstance(last, StoredDiagnostics) and last.holds(items):
        return StoredDiagnostics(last.text, items, last.parts)
    known = last.texts_by_identity() if isinstance(last, StoredDiagnostics) else {}
    parts = tuple(known.get(id(d)) or json.dumps(d.to_json()) for d in items)
    return StoredDiagnostics(f"[{', '.join(parts)}]", items, parts)


@dataclass(frozen=True)
class BuildState:
    """What a build published, and from which inputs."""

    scope: str                          # skillsite and the configuration (the cache's scope)
    out: str                            # the output folder (absolute): a state is for one output
    inputs: str                         # digest of the inputs (:class:`Inputs`; "" when one was unreadable)
    outputs: dict[str, Recorded]        # content key, size and mtime of every keyed file of the output
    back: dict[str, Recorded]           # the same of the catalog it replaced (in the cache's back folder)
    published: tuple[str, ...]
    skipped: tuple[str, ...]
    diagnostics: Sequence[Diagnostic]   # as built, or as the file holds them (StoredDiagnostics)
    output_bytes: int
    budget: tuple[dict[str, Any], ...] = ()   # how the catalog fits agents' listings (BuildResult.budget)
    generation: str = field(default="", compare=False)  # which save wrote the file it was loaded from
    output_marker: MarkerIdentity | None = None   # the marker file of the output it published
    back_marker: MarkerIdentity | None = None     # the back folder's, when it holds what ``back`` records
    recent: tuple[str, ...] = ()        # the inputs too recent to be known by their stamps (Inputs.recent)
    missing: tuple[MissingPlace, ...] = ()   # where its SK303 targets lie, and what each warning said is there

    def summary(self) -> StateSummary:
        """What a rebuild with nothing changed needs of this state."""
        return StateSummary(self.inputs, self.output_marker, self.published, self.skipped, self.diagnostics,
                            self.output_bytes, self.budget, self.recent, self.missing)

    def trusts_output(self, out: Path) -> bool:
        """Whether ``out`` holds the marker this build left there: its files are as recorded."""
        return _holds(out, self.output_marker)

    def trusts_back(self, back: Path | None) -> bool:
        """Whether ``back`` holds the marker of the catalog ``back`` records."""
        return _holds(back, self.back_marker)

    def to_json(self) -> dict[str, Any]:
        """Everything but the records and the diagnostics (the file keeps those apart)."""
        return {"scope": self.scope, "out": self.out, "inputs": self.inputs, "published": self.published,
                "skipped": self.skipped, "output_bytes": self.output_bytes, "budget": list(self.budget),
                "output_marker": self.output_marker, "back_marker": self.back_marker, "recent": self.recent,
                "missing": self.missing}

    @classmethod
    def from_json(cls, data: dict[str, Any], diagnostics: str, outputs: dict[str, Recorded],
                  back: dict[str, Recorded], generation: str = "") -> BuildState:
        """The state :meth:`to_json` gave, with its diagnostics (their JSON text) and records."""
        summary = StateSummary.from_json(data, diagnostics)
        return cls(data["scope"], data["out"], summary.inputs, outputs, back, summary.published,
                   summary.skipped, summary.diagnostics, summary.output_bytes, summary.budget, generation,
                   summary.output_marker, _identity(data["back_marker"]), summary.recent, summary.missing)


@dataclass(frozen=True)
class StateSummary:
    """What the last build left, but the records of its output's files: all a rebuild with nothing
    changed needs (a catalog of 100,000 skills has over a million records)."""

    inputs: str                         # digest of the inputs (:class:`Inputs`; "" when one was unreadable)
    output_marker: MarkerIdentity | None
    published: tuple[str, ...]
    skipped: tuple[str, ...]
    diagnostics: Sequence[Diagnostic]   # read only by a rebuild with nothing to do
    output_bytes: int
    budget: tuple[dict[str, Any], ...]
    recent: tuple[str, ...] = ()        # the inputs whose content ``inputs`` holds (Inputs.recent)
    missing: tuple[MissingPlace, ...] = ()   # (BuildState.missing)

    @classmethod
    def from_json(cls, data: dict[str, Any], diagnostics: str) -> StateSummary:
        """The summary of the state :meth:`BuildState.to_json` gave, with its diagnostics' JSON text."""
        return cls(data["inputs"], _identity(data["output_marker"]), _texts(data["published"]),
                   _texts(data["skipped"]), StoredDiagnostics(diagnostics), data["output_bytes"], tuple(data["budget"]),
                   _texts(data["recent"]), tuple((folder, path, said) for folder, path, said in data["missing"]))

    def unchanged(self, inputs: str, out: Path, verify: bool = False, records: Mapping[str, Recorded] | None = None
                  ) -> bool:
        """Whether every input and the output are as the last build left them: the output as its
        marker says, or (``verify``) every file of it as ``records`` say (the last build's
        records of its files; None: none could be read, so the output may have changed).  What
        each SK303 warning said is at its target is looked at again: no input covers it."""
        if not self.inputs or self.inputs != inputs or not _readable(self.diagnostics) \
                or not places_as_said(self.missing):
            return False
        if not verify:
            return _holds(out, self.output_marker)
        return records is not None and output_as_recorded(out, records)


def _readable(diagnostics: Sequence[Diagnostic]) -> bool:
    """Whether the diagnostics a state file holds can be read (a damaged file's cannot: the build
    then reads the skills again, and says what it finds)."""
    try:
        len(diagnostics)
    except (ValueError, KeyError, TypeError):
        return False
    return True


def _holds(folder: Path | None, marker: MarkerIdentity | None) -> bool:
    """Whether ``folder`` holds the marker file a build recorded (None: it recorded none)."""
    return marker is not None and marker_identity(folder) == marker


def _identity(value: Any) -> MarkerIdentity | None:
    """A marker identity as the state file holds it (a JSON list of three integers), or None;
    ValueError for anything else (a damaged or hand-edited file: the state is not used)."""
    if value is None:
        return None
    if not (isinstance(value, list) and len(value) == 3 and all(type(n) is int for n in value)):
        raise ValueError(f"not a marker identity: {value!r:.80}")
    return (value[0], value[1], value[2])


def _texts(value: Any) -> tuple[str, ...]:
    """A list of strings as the state file holds it; ValueError for anything else."""
    if not (isinstance(value, list) and all(isinstance(text, str) for text in value)):
        raise ValueError(f"not a list of strings: {value!r:.80}")
    return tuple(value)


def output_as_recorded(out: Path, records: Mapping[str, Recorded]) -> bool:
    """Whether the folder ``out`` holds exactly the files ``records`` lists, each of the size and
    time recorded (nothing else there, nothing missing, nothing but regular files)."""
    try:
        found = snapshot(out)
    except OSError:
        return False
    return found.keys() == records.keys() and all(found[rel] == (size, mtime)
                                                  for rel, (_, size, mtime) in records.items())


def inputs_digest(found: Discovery, settings: Any, templates: list[tuple[str, Stamp]],
                  listings: Sequence[AuditListing], kept: InputRows | None = None) -> str:
    """A digest of every input as discovery saw it (where each skill is, its SKILL.md's and
    bundled files' stamps), of what the audit reads in each skill folder (``listings``:
    discovery leaves some of it out), of the templates' stamps and of ``settings``: of each
    skill's part's digest, so that a long-running process (``kept``: what it made last time,
    replaced by this build's) works out only the parts of the skills whose source or listing
    changed."""
    made: InputRows = {}
    parts = []
    for source, listing in zip(found.sources, listings):
        last = kept.get(source.id) if kept is not None else None
        if last is None or last[0] is not source or last[1] is not listing:
            last = (source, listing, _input_part(source, listing))
        made[source.id] = last
        parts.append(last[2])
    if kept is not None:
        kept.clear()
        kept.update(made)
    return digest(settings, templates, parts, [d.to_json() for d in found.diagnostics])


def _input_part(s: SourceFile, listing: AuditListing) -> str:
    """The digest of one skill's part of :func:`inputs_digest`."""
    return digest(s.id, s.display_path, s.rel_path, str(s.root), str(s.dir), s.parent_id, s.stamp,
                  [(f.path, f.abspath, f.stamp) for f in s.files], listing.digest)


def recent_inputs(found: Discovery, templates: list[tuple[str, Stamp]], since_ns: int,
                  listings: Sequence[AuditListing]) -> tuple[str, ...]:
    """The input files (their paths, sorted) changed at or after ``since_ns``: a later change to
    one may keep its stamp."""
    recent = {path for path, stamp in templates if stamp[1] >= since_ns}
    for source, listing in zip(found.sources, listings):
        if source.stamp[1] >= since_ns:
            recent.add(str(source.skill_md))
        recent.update(f.abspath for f in source.files if f.mtime_ns >= since_ns)
        if listing.newest_ns >= since_ns:
            recent.update(f.abspath for f in skill_files(source.dir) if f.stamp[1] >= since_ns)
    return tuple(sorted(recent))


def with_contents(stamps_digest: str, paths: Sequence[str]) -> str:
    """``stamps_digest`` with the content of the files at ``paths`` ("" when one cannot be read)."""
    contents = []
    for path in paths:
        content = _content_digest(path)
        if content is None:
            return ""
        contents.append(content)
    return digest(stamps_digest, list(zip(paths, contents))) if paths else stamps_digest


def _content_digest(path: str) -> str | None:
    """The sha256 of a file's bytes (None when it cannot be read as a regular file)."""
    hashed = hashlib.sha256()
    try:  # opened non-blocking: a FIFO put in a file's place cannot hang the build
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        with open(fd, "rb") as file:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            for block in iter(functools.partial(file.read, 1 << 20), b""):
                hashed.update(block)
    except OSError:
        return None
    return hashed.hexdigest()


@dataclass(frozen=True, slots=True)
class AuditListing:
    """What the audit reads in a skill folder: the newest time of its files, and a digest of
    their stamps (not the stamps: a big catalog holds every skill's at once)."""

    newest_ns: int
    digest: str

    @classmethod
    def of(cls, folder: Path) -> AuditListing:
        return cls.of_stamps(audited_stamps(folder))

    @classmethod
    def of_stamps(cls, stamps: list[tuple[str, Stamp, bool]]) -> AuditListing:
        """The listing of a folder whose files have these stamps (:func:`~skillsite.audit.files.audited_stamps`)."""
        return cls(max((stamp[1] for _, stamp, _ in stamps), default=0), digest(stamps))


#: What a long-running process keeps of each source's part of :func:`inputs_digest`, by skill
#: id: the source and audit listing it was made of, and its digest.
InputRows = dict[str, tuple[SourceFile, AuditListing, str]]


def _audit_listing(sources: Sequence[SourceFile], index: int) -> AuditListing:
    return AuditListing.of(sources[index].dir)


def audit_listings(sources: Sequence[SourceFile], jobs: int = 1) -> list[AuditListing]:
    """Each skill folder's :class:`AuditListing`: from what discovery saw of it where it saw
    every file the audit reads (:attr:`~skillsite.models.SourceFile.audited`), else listed again
    on ``jobs`` processes."""
    again = iter(parallel_map(_audit_listing, sources, [i for i, s in enumerate(sources) if s.audited is None], jobs))
    return [AuditListing.of_stamps(list(s.audited)) if s.audited is not None else next(again) for s in sources]


@dataclass(frozen=True)
class Inputs:
    """What a build saw of its inputs before reading any: the digest of their stamps
    (:func:`inputs_digest`); the files among them too recent to be known by their stamps
    (:func:`recent_inputs`); the digest a build records (the stamps' and those files' content,
    hashed before the build reads them: an edit while it runs is seen by the next one); and, by
    skill id, the digest of what the audit reads in its folder, where no file of it is that
    recent (one that is may change again within its time's resolution)."""

    stamps: str
    recent: tuple[str, ...]
    digest: str
    audit_listings: Mapping[str, str]

    def digest_with(self, recent: tuple[str, ...]) -> str:
        """The digest of the stamps and of the content of ``recent`` (the files a last build
        found recent): equal to its digest when nothing changed since."""
        return self.digest if recent == self.recent else with_contents(self.stamps, recent)


NO_INPUTS = Inputs("", (), "", {})  # a build without a cache compares nothing


def read_inputs(found: Discovery, settings: Any, templates: list[tuple[str, Stamp]], since_ns: int,
                listings: Sequence[AuditListing] | None = None, jobs: int = 1, kept: InputRows | None = None) -> Inputs:
    """The :class:`Inputs` of a discovery: every skill folder's audit listing is made once, on
    ``jobs`` processes (``listings``: made already, in the order of the skills; ``kept``: see
    :func:`inputs_digest`)."""
    if listings is None:
        listings = audit_listings(found.sources, jobs)
    settled = {s.id: listing.digest for s, listing in zip(found.sources, listings) if listing.newest_ns < since_ns}
    stamps = inputs_digest(found, settings, templates, listings, kept)
    recent = recent_inputs(found, templates, since_ns, listings)
    return Inputs(stamps, recent, with_contents(stamps, recent), settled)


def library_stamps(*modules: str) -> list[tuple[str, Stamp]]:
    """Where each library is installed, with its package file's stamp: a changed installation
    changes it (without importing the library)."""
    stamps = []
    for name in modules:
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec is not None and spec.origin else ""
        st = os.stat(origin) if origin else None
        stamps.append((origin, stamp_of(st) if st else NO_STAMP))
    return stamps


def load_state(folder: Path, scope: str, out: Path, saved: BuildState | None = None) -> BuildState | None:
    """The state the last build left in ``folder``, if it is of this scope, of the output ``out``
    (a cache folder shared by two outputs) and readable; ``saved`` (the state this process saved
    last, as :func:`save_state` gave it) when the file still holds it: its rows are not read."""
    path = folder / STATE_FILE
    if not path.is_file():
        return None
    try:
        with closing(_connect(path)) as db:
            db.execute("BEGIN")  # the meta and the rows of one save, whoever saves meanwhile
            if saved is not None and _holds_saved(db, saved, scope, out):
                return saved
            found = _meta(db, scope, out)
            if found is None:
                return None
            data, meta = found
            outputs = {rel: (key, size, mtime) for rel, key, size, mtime in db.execute(f"SELECT {_ROW} FROM outputs")}
            back = _overlay(outputs, db.execute(f"SELECT {_ROW} FROM back"))
        return BuildState.from_json(data, meta["diagnostics"], outputs, back, meta["generation"])
    except (sqlite3.Error, ValueError, KeyError, TypeError):
        return None


def load_summary(folder: Path, scope: str, out: Path, saved: BuildState | None = None) -> StateSummary | None:
    """:func:`load_state`'s state, but the records of the output's files, which are not read: what
    the check for a rebuild with nothing changed needs."""
    path = folder / STATE_FILE
    if not path.is_file():
        return None
    try:
        with closing(_connect(path)) as db:
            if saved is not None and _holds_saved(db, saved, scope, out):
                return saved.summary()
            found = _meta(db, scope, out)
        return StateSummary.from_json(found[0], found[1]["diagnostics"]) if found is not None else None
    except (sqlite3.Error, ValueError, KeyError, TypeError):
        return None


def _holds_saved(db: sqlite3.Connection, saved: BuildState, scope: str, out: Path) -> bool:
    """Whether the state file ``db`` still holds ``saved``, a state of this scope and output."""
    return saved.scope == scope and saved.out == str(out.absolute()) and bool(saved.generation) \
        and _generation(db) == saved.generation


def _meta(db: sqlite3.Connection, scope: str, out: Path) -> tuple[dict[str, Any], dict[str, str]] | None:
    """The state's summary (:meth:`BuildState.to_json`) and the file's meta rows, when the file is
    of this format, scope and output; else None."""
    meta = dict(db.execute("SELECT name, value FROM meta"))
    if meta.get("format") != FORMAT:
        return None
    data = json.loads(meta["summary"])
    if data["scope"] != scope or data["out"] != str(out.absolute()):
        return None
    return data, meta


def settle_inputs(folder: Path, scope: str, out: Path, verified: str, inputs: Inputs) -> None:
    """After a rebuild with nothing changed, whose inputs matched the recorded digest ``verified``:
    record ``inputs`` instead, fewer of its files being recent now, so the next rebuild hashes
    only those still recent (as git refreshes its index).  The rest of the state stays as it is
    (its generation too: a ``serve`` process's copy of it still holds).  Best effort: a cache
    that cannot be written only costs the next rebuild the hashing again."""
    try:
        with closing(_connect(folder / STATE_FILE)) as db:
            db.execute("BEGIN IMMEDIATE")  # closing without COMMIT rolls back
            found = _meta(db, scope, out)
            if found is None or found[0]["inputs"] != verified:
                return  # another build saved since
            summary = dict(found[0], inputs=inputs.digest, recent=inputs.recent)
            db.execute("INSERT OR REPLACE INTO meta VALUES ('summary', ?)", (json.dumps(summary),))
            db.execute("COMMIT")
    except (sqlite3.Error, ValueError, KeyError, TypeError):
        pass


#: A file's size, modification and change times (ns), inode and device: what writing it changes.
FileStamp = tuple[int, int, int, int, int]


@dataclass(frozen=True)
class ReportRecord:
    """The diagnostics report (the command line's ``--report`` file) a build wrote last: where, a
    digest of what decides its bytes (``key``: the code and every diagnostic), their sha256 and the
    file's stamp.  A build whose report has the same key leaves a file of that stamp as it is,
    trusted as git trusts its index; one changed as late as ``RACY_NS`` before ``since`` (when
    the file was last written or read) may have kept its stamp through a second change, so its
    bytes are hashed instead."""

    path: str           # absolute (os.path.abspath): a different path is another report
    key: str
    sha256: str
    stamp: FileStamp
    since: int          # time.time_ns() before the file was written or read

    @property
    def racy(self) -> bool:
        """Whether its file changed too close to :attr:`since` to be known by its stamp."""
        return max(self.stamp[1], self.stamp[2]) >= self.since - RACY_NS

    def holds(self, path: Path, key: str) -> bool:
        """Whether the file at ``path`` holds this record's bytes for a report of ``key``: it has the
        recorded stamp (and, where that is racy, the recorded sha256)."""
        if os.path.abspath(path) != self.path or key != self.key:
            return False
        try:
            found = os.lstat(self.path)
        except OSError:
            return False
        return stat.S_ISREG(found.st_mode) and file_stamp(found) == self.stamp and \
            (not self.racy or _content_digest(self.path) == self.sha256)

    def settled(self, since: int) -> ReportRecord | None:
        """This record as of ``since`` (a time before its file was found to hold its bytes again),
        when its stamp was racy and is no longer: the next build trusts it (None: nothing to record)."""
        later = dataclasses.replace(self, since=since)
        return later if self.racy and not later.racy else None

    def to_json(self) -> str:
        """The record as the text a state file (or ``validate``'s verdict cache) keeps."""
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> ReportRecord:
        """The record :meth:`to_json` wrote; ValueError, KeyError or TypeError for any other text."""
        data = json.loads(text)
        try:
            size, mtime, ctime, inode, device = (int(n) for n in data["stamp"])
            since = int(data["since"])
        except OverflowError as exc:  # json reads 1e400 and Infinity as infinite floats, which no int holds
            raise ValueError(f"not a report record: {exc}") from None
        return cls(str(data["path"]), str(data["key"]), str(data["sha256"]), (size, mtime, ctime, inode, device),
                   since)


def file_stamp(found: os.stat_result) -> FileStamp:
    """The :data:`FileStamp` of a file's status."""
    return (*stamp_of(found), found.st_dev)


def recorded_report(folder: Path) -> ReportRecord | None:
    """The report the state file in ``folder`` records (:func:`record_report`), if it records one."""
    path = folder / STATE_FILE
    if not path.is_file():
        return None
    try:
        with closing(_connect(path)) as db:
            meta = dict(db.execute("SELECT name, value FROM meta WHERE name IN ('format', 'report')"))
        if meta.get("format") != FORMAT or "report" not in meta:
            return None
        return ReportRecord.from_json(meta["report"])
    except (sqlite3.Error, ValueError, KeyError, TypeError):
        return None


def record_report(folder: Path, record: ReportRecord | None) -> None:
    """Record in the state file in ``folder`` the report a build wrote (None: the file is not known
    to hold any), when it is a state file of this format.  Best effort: a report not recorded
    is only written again by the next build (the state's other rows and its generation stay)."""
    path = folder / STATE_FILE
    if not path.is_file() or any(name.is_symlink() for name in _files_of(path)):
        return  # a link is never written through (save_state replaces it)
    try:
        with closing(_connect(path)) as db:
            db.execute("BEGIN IMMEDIATE")  # closing without COMMIT rolls back
            if _generation(db) is None:
                return
            if record is None:
                db.execute("DELETE FROM meta WHERE name = 'report'")
            else:
                db.execute("INSERT OR REPLACE INTO meta VALUES ('report', ?)", (record.to_json(),))
            db.execute("COMMIT")
    except sqlite3.Error:
        pass


def _overlay(outputs: dict[str, Recorded], rows: Iterable[BackRow]) -> dict[str, Recorded]:
    """The back folder's records: the output's, but for the rows of the ``back`` table."""
    back = dict(outputs)
    for rel, key, size, mtime in rows:
        if key is None or size is None or mtime is None:
            back.pop(rel, None)
        else:
            back[rel] = (key, size, mtime)
    return back


def save_state(folder: Path, state: BuildState, previous: BuildState | None = None) -> BuildState:
    """Write the state file in one transaction: only the rows that differ from ``previous`` (the
    state this build loaded) when the file still holds it, else all of them; returns ``state``
    with the generation the file now holds, and its diagnostics as the file holds them (the next
    save compares texts without making this one's again; ``previous``'s text, not encoded again,
    when its diagnostics are these).  OSError (naming the file) when it cannot be written."""
    make_cache_folder(folder)
    path = folder / STATE_FILE
    generation = secrets.token_hex(16)
    state = dataclasses.replace(state, diagnostics=stored_diagnostics(
        state.diagnostics, previous.diagnostics if previous is not None else None))
    if any(name.is_symlink() for name in _files_of(path)):  # a link committed in the cache folder:
        _remove(path)                                          # never written through
    try:
        try:
            _write(path, state, previous, generation)
        except sqlite3.OperationalError:  # the disk or the folder, not the file: no use writing it anew
            raise
        except sqlite3.DatabaseError:     # damaged, or not an sqlite file
            _remove(path)
            _write(path, state, None, generation)
        (folder / OLD_STATE_FILE).unlink(missing_ok=True)
    except sqlite3.Error as exc:
        raise OSError(None, f"cannot write the build state: {exc}", str(path)) from exc
    return dataclasses.replace(state, generation=generation)


def _write(path: Path, state: BuildState, previous: BuildState | None, generation: str) -> None:
    """One save: the changed rows when the file holds ``previous`` (no other save since), else every row."""
    with closing(_connect(path)) as db:
        db.execute("BEGIN IMMEDIATE")  # closing without COMMIT (an error) rolls back
        held = _held(db, previous)
        if held is not None:
            _write_changes(db, state, held)
        else:
            _write_all(db, state)
        meta = [("format", FORMAT), ("generation", generation), ("summary", json.dumps(state.to_json()))]
        text = diagnostics_text(state.diagnostics)
        if held is None or text != diagnostics_text(held.diagnostics):  # as a rule the same from one build to the next
            meta.append(("diagnostics", text))
        db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", meta)
        db.execute("COMMIT")


def _held(db: sqlite3.Connection, previous: BuildState | None) -> BuildState | None:
    """``previous`` when the file holds it (no other save since it was loaded), else None."""
    if previous is None or not previous.generation:
        return None
    return previous if _generation(db) == previous.generation else None


def _generation(db: sqlite3.Connection) -> str | None:
    """Which save wrote the file (None: not a state file of this format)."""
    try:
        meta = dict(db.execute("SELECT name, value FROM meta WHERE name IN ('format', 'generation')"))
    except sqlite3.OperationalError:  # no such table (a new file) or columns: written anew
        return None
    return meta.get("generation") if meta.get("format") == FORMAT else None


def _write_all(db: sqlite3.Connection, state: BuildState) -> None:
    """Every row of ``state``, in place of whatever the file held."""
    for table in ("meta", "outputs", "back"):
        db.execute(f"DROP TABLE IF EXISTS {table}")
    for statement in _SCHEMA:
        db.execute(statement)
    db.executemany("INSERT INTO outputs VALUES (?, ?, ?, ?)", ((rel, *rec) for rel, rec in state.outputs.items()))
    db.executemany("INSERT INTO back VALUES (?, ?, ?, ?)", _back_rows(state, _changed(state.back, state.outputs)))


def _write_changes(db: sqlite3.Connection, state: BuildState, previous: BuildState) -> None:
    """The rows of ``state`` that differ from those of ``previous``, which the file holds."""
    changed = _changed(previous.outputs, state.outputs)
    db.executemany("DELETE FROM outputs WHERE rel = ?", ((rel,) for rel in changed if rel not in state.outputs))
    db.executemany("INSERT OR REPLACE INTO outputs VALUES (?, ?, ?, ?)",
                   ((rel, *state.outputs[rel]) for rel in changed if rel in state.outputs))
    # as a rule the back folder holds the catalog ``previous`` published: it differs where the output changed
    differing = changed if state.back is previous.outputs else _changed(state.back, state.outputs)
    db.execute("DELETE FROM back")
    db.executemany("INSERT INTO back VALUES (?, ?, ?, ?)", _back_rows(state, differing))


def _changed(old: dict[str, Recorded], new: dict[str, Recorded]) -> list[str]:
    """The site paths whose record differs from ``old`` to ``new`` (changed, added or removed)."""
    return [rel for rel, rec in new.items() if old.get(rel) != rec] + [rel for rel in old if rel not in new]


def _back_rows(state: BuildState, differing: list[str]) -> list[BackRow]:
    """The rows of the ``back`` table: the back folder's record of each path where it differs from
    the output's (a file it lacks: no record)."""
    return [(rel, *state.back[rel]) if rel in state.back else (rel, None, None, None) for rel in differing]


def _remove(path: Path) -> None:
    """Remove a damaged state file and its journal (the next save starts a new file)."""
    for name in _files_of(path):
        name.unlink(missing_ok=True)


def _files_of(path: Path) -> tuple[Path, Path]:
    """The state file at ``path`` and its journal."""
    return path, path.with_name(f"{path.name}-journal")


def _connect(path: Path) -> sqlite3.Connection:
    # isolation_level None: the transactions are the ones written out (BEGIN ... COMMIT)
    return sqlite3.connect(path, timeout=10, isolation_level=None)


def racy_since(started_ns: int) -> int:
    """Inputs changed at or after this time (nanoseconds) are too recent to trust their stamps."""
    return started_ns - RACY_NS
