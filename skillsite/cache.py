"""The cache of work already done: one sqlite file of JSON values, keyed by digests.

Every value is stored under a digest of everything that determines it (content, place in the
tree, the options it was made with), so a stale entry is never used: it is simply not found.
The file as a whole belongs to one *scope* (skillsite's version and code, the configuration):
a file of another scope starts empty.  Values are plain JSON, so reading a cache never runs
code and needs no key: a CI job can restore the folder from its own cache and go on.

A file that is damaged or not a skillsite cache is ignored (and replaced on the next save),
with an info diagnostic; so is a file with a value that no longer matches the checksum stored
beside it (sqlite checks its own structure, not what a value says: a flipped bit or a hand
edit would hand a run a value its code never wrote; ccache checks each result it reads so).
A file that cannot be written is an error of the environment (:meth:`Cache.save` raises
OSError).  Each kind of value lives in a :class:`Section` of its own.
Values are read when looked up (many keys per query), never all at once, and what a run
adds is held in memory only up to :data:`SPILL_BYTES`: past that it goes to a side file
(``<cache>.pending-<pid>``, or a temporary file for a run without a cache folder) until the run
saves.  Entries a run did not use are dropped when it saves, so the file tracks the current
catalog (a run that stopped early keeps them all).  Beside them the file keeps a command's notes
of its last run (:meth:`Cache.set_note`: ``validate``'s record of its report), of its scope.
"""
from __future__ import annotations

import enum
import hashlib
import json
import os
import secrets
import sqlite3
import sys
import tempfile
import zlib
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Protocol, TypeVar

from skillsite import __version__
from skillsite.diagnostics import Diagnostic, make

FORMAT = "skillsite-cache 6"
#: What an earlier version's file says it is: replaced by the next save, without a note (a new
#: skillsite reads none of an older one's entries anyway, their scope being another).
_EARLIER_FORMAT = "skillsite-cache "
#: A file changed this recently (nanoseconds) is not trusted to keep its size and time: a second
#: change within the file system's timestamp granularity would go unnoticed.
RACY_NS = 2_000_000_000
#: What a run adds is held in memory up to about this many bytes, then written to its side file.
SPILL_BYTES = 64 << 20
PENDING = ".pending-"
#: The names of the meta table's rows that keep a command's notes (:meth:`Cache.set_note`).
NOTE = "note:"
#: The meta row naming the save that last wrote the file (a random token, new at each save).
GENERATION = "generation"
#: Many keys are looked up in key order (nearby keys share the file's pages), this many per query
#: (well within sqlite's limit of parameters) ...
LOOKUP_CHUNK = 500
#: ... and values this many keys at a time (their texts are held until given).
LOOKUP_WINDOW = 5000
#: A table with row ids, its keys in an index of their own: a value may be megabytes (a catalog's
#: copy groups, a manifest page), and a lookup in a table that is its primary key's index
#: (``WITHOUT ROWID``) reads in full every row it compares its key with on the way down, however
#: big: looking up the small values stored beside a big one read the big one each time.
_SCHEMA = ("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);"
           "CREATE TABLE IF NOT EXISTS entries (section TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,"
           " checksum INTEGER NOT NULL, PRIMARY KEY (section, key));")


class Section(str, enum.Enum):
    """The kinds of work kept in the cache, each under keys of its own."""

    SKILLS = "skills"            # a skill read and checked, by its SKILL.md's content and place (build)
    VERDICTS = "verdicts"        # a skill's verdict, by its SKILL.md's content and place (validate)
    STAMPS = "stamps"            # a SKILL.md's sha256 and size, by its path and stamp (an unchanged file is not read)
    PUBLICATION = "publication"  # what publishing a skill placed, by everything it depends on
    HTML = "html"                # a rendered body, by the Markdown and the renderer
    BODY_LINKS = "body-links"    # what a body's rendering asked of the link targets, by its source (HTML's depfile)
    FILE_SHA = "file-sha"        # a bundled file's sha256, by its path, size and time
    AUDIT = "audit"              # a skill's audit findings, by its files
    AUDIT_KEY = "audit-key"      # a skill's audit key (of AUDIT), by its files' stamps
    SEARCH = "search"            # the search indexes, by every skill's searchable fields
    MANIFEST_PAGE = "manifest-page"  # a page of a paged skills.json, by what its entries are made of
    SIMILAR = "similar"          # pairs of look-alike descriptions, by every skill's listing
    COPIES = "copies"            # the pairs of skills grouping compared and their answers, by its threshold;
                                 # the last grouping
    COPY_DIFFERENCE = "copy-difference"  # how a copy's SKILL.md differs from its canonical's, by both
    HISTORY = "history"          # git history of versioned skills (by HEAD), a past release's files (by commit),
                                 # a git blob's sha256 (by blob id)


T = TypeVar("T")


class CacheNotSaved(OSError):
    """The cache could not be written (after the catalog was published)."""


class CacheFolderUnusable(OSError):
    """The cache folder cannot be made, read or written (before any work is done)."""


def digest(*parts: Any) -> str:
    """A hex sha256 of ``parts`` (JSON-able values: strings, numbers, lists, tuples, dicts)."""
    text = _DIGEST_ENCODER.encode(parts)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _jsonable(value: Any) -> Any:
    """What :func:`digest` makes of values JSON lacks: sets sorted, paths and the rest as text."""
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if isinstance(value, bytes):
        return hashlib.sha256(value).hexdigest()
    if hasattr(value, "_asdict"):
        return value._asdict()
    return str(value)


#: The encoders of :func:`digest` and of stored values, made once: :func:`json.dumps` with any
#: option makes a new encoder at every call, and a rebuild digests and stores a hundred thousand values.
_DIGEST_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=_jsonable)
_VALUE_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def code_scope(*more: Any) -> str:
    """A scope for cache files: skillsite's version, the content of its own modules and schemas
    (a changed installation never reuses a cache, a fresh install of the same code does), and
    ``more`` (say, the configuration)."""
    package = Path(__file__).resolve().parent
    code = hashlib.sha256()
    for path in sorted([*package.rglob("*.py"), *package.glob("schemas/*.json")]):
        code.update(f"{path.relative_to(package).as_posix()}\0".encode())
        code.update(path.read_bytes())
    return digest(__version__, code.hexdigest(), *more)


class _Json(str):
    """A value put in the cache, already as JSON text."""


#: What a run put in the cache: a string as it is, anything else as its JSON text.
Added = "str | _Json"


def _encode(value: Any) -> str:
    return _VALUE_ENCODER.encode(value)


def _held(text: str) -> int:
    """The memory a string takes: 1, 2 or 4 bytes a character, by its widest character (a
    rendered body with one emoji takes four times its length)."""
    return sys.getsizeof(text)


def _text(added: str) -> str:
    """The JSON text of a value put in the cache."""
    return added if isinstance(added, _Json) else _encode(added)


def _checksum(text: str) -> int:
    """The checksum stored beside a value's text, which a lookup checks (CRC-32: it is there to
    catch damage, not an adversary; the file is the user's own)."""
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


def _rows(added: dict[tuple[str, str], Added]) -> Iterator[tuple[str, str, str, int]]:
    """The rows of the entries table that keep what a run added."""
    for (section, key), value in added.items():
        text = _text(value)
        yield section, key, text, _checksum(text)


class DamagedEntry(sqlite3.DatabaseError):
    """A value that does not match its checksum."""

    def __init__(self, section: str, key: str):
        super().__init__(f"the value of {section} {key} does not match its checksum")


class _AsPut:
    """A string put in the cache by this run, as a lookup finds it: given back as it is (a
    rendered body, which the pages read back), not made JSON and read again."""

    __slots__ = ("value",)

    def __init__(self, value: str):
        self.value = value


def _value(text: str | _AsPut) -> Any:
    """The value of a text :meth:`Cache._texts` gives."""
    return text.value if isinstance(text, _AsPut) else json.loads(text)


@dataclass
class SavedNames:
    """The names (section, key) a cache file held after a save of this process, and which save
    that was: the next save drops the unused ones without listing the file, when the file still
    holds that save (no other process saved since).  It may name more than the file holds (a
    name kept unread that was never stored): dropping those drops nothing.  The set is the one
    the save used, kept (not copied) and added to by the next save, which replaces this record.
    It holds a name per entry, as the file does (at 10,000 skills, 110,000 names); a run that
    spilled to its side file (:data:`SPILL_BYTES`, as a cold build of a big catalog does) keeps
    none, and the next save lists the file."""

    path: str
    generation: str
    names: set[tuple[str, str]]


class KeptObjects(Protocol):
    """Objects made from cached values that a long-running process keeps between its runs
    (:class:`skillsite.publish.resident.Resident`): see :meth:`Cache.made_many`.  It keeps
    what the cache file held after its last save too (:class:`SavedNames`)."""

    saved_names: SavedNames | None

    def begin(self, scope: str) -> None:
        """A run of ``scope`` starts."""

    def take(self, section: str, key: str) -> Any:
        """The object kept under ``key``, now used by this run; None when none is."""

    def keep(self, section: str, key: str, made: Any) -> None:
        """Keep ``made``, the object made of the value under ``key``."""


def kept_or_made(resident: KeptObjects | None, section: str, key: str, source: object, inputs: tuple[Any, ...],
                 make: Callable[[], T]) -> T:
    """``make()``, a value made of the object ``source`` and of ``inputs`` alone; with ``resident``
    objects, the value an earlier run made under ``key`` of this very object (not an equal one:
    ``serve`` keeps each unchanged skill, and what is made of it shares its objects) and of equal
    inputs, taken as it is.  Nothing may change the value: the runs share it."""
    if resident is None:
        return make()
    kept = resident.take(section, key)
    if kept is not None and kept[0] is source and kept[1] == inputs:
        return kept[2]  # kept as it was (take keeps it): new objects for it would only add to what the collector walks
    made = make()
    resident.keep(section, key, (source, inputs, made))
    return made


class Cache:
    """Lookups and stores of one run, in one sqlite file (``path`` None: a cache that keeps nothing).

    Values are read from the file when asked for, not all at once: a run holds in memory only what
    it looked up and what it added, however large the catalog.  Each process opens its own
    connection (a connection must not cross a fork; workers read bodies from the cache too).
    """

    def __init__(self, path: Path | None, scope: str, resident: KeptObjects | None = None):
        self.path = path
        self.scope = scope
        self.resident = resident                 # objects kept from earlier builds (see :meth:`made_many`)
        if resident is not None:
            resident.begin(scope)
        self.notes: list[Diagnostic] = []       # what was wrong with the file, if anything
        self._used: set[tuple[str, str]] = set()  # names found in the file (the save keeps them)
        self._added: dict[tuple[str, str], Added] = {}
        self._added_size = 0
        self._pending = _Pending(path)           # what was added beyond SPILL_BYTES
        self._file_scope: str | None = None     # the scope of the file as found (None: no usable file)
        self._unusable = False
        self._readable = False                  # the file holds entries of this scope
        self._db: sqlite3.Connection | None = None
        self._db_pid = 0                        # the process that opened ``_db``
        self.hits = 0
        self.misses = 0
        if path is not None and path.exists():
            self._load(path)
        if path is not None:
            _remove_abandoned_pending(path)

    def _load(self, path: Path) -> None:
        """Check that the file is a skillsite cache, and whether its entries are of this scope."""
        try:
            with closing(_connect(path)) as db:
                meta = dict(db.execute("SELECT name, value FROM meta"))
                if meta.get("format") != FORMAT and str(meta.get("format")).startswith(_EARLIER_FORMAT):
                    self._unusable = True  # another version's layout: the save makes the file anew
                    return
                if meta.get("format") != FORMAT:
                    raise sqlite3.DatabaseError(f"not a skillsite cache (format {meta.get('format')!r})")
                self._file_scope = meta.get("scope")
                self._readable = self._file_scope == self.scope
        except sqlite3.Error as exc:
            self._damaged(exc)

    def _damaged(self, exc: sqlite3.Error) -> None:
        """Stop reading a file found damaged (now or halfway through the run), with a note."""
        self._unusable = True
        self._readable = False
        self.close()
        self.notes.append(make("SK402", f"cache file cannot be used ({exc}); starting with an empty cache",
                               str(self.path)))

    def _connection(self) -> sqlite3.Connection | None:
        """This process's connection to the file (opened on first use), or None when the file
        holds nothing of this scope."""
        if not self._readable or self.path is None:
            return None
        if self._db is None or self._db_pid != os.getpid():
            self._db, self._db_pid = _connect(self.path), os.getpid()
        return self._db

    def _stored(self, section: str, keys: list[str], values: bool) -> dict[str, str]:
        """The stored text of each of ``keys`` the file holds (``values`` False: "" for each, the
        values left unread)."""
        try:
            if not keys or (db := self._connection()) is None:
                return {}
            return _select(db, section, keys, values)
        except sqlite3.Error as exc:
            self._damaged(exc)
        return {}

    def get(self, section: Section, key: str) -> Any:
        """The value stored under ``key`` (kept for the next run), or None."""
        return next(self.get_many(section, [key]))

    def has(self, section: Section, key: str) -> bool:
        """Whether a value is stored under ``key`` (kept for the next run, as by :meth:`get`)."""
        return next(self.has_many(section, [key]))

    def get_many(self, section: Section, keys: Iterable[str | None]) -> Iterator[Any]:
        """The value of each of ``keys`` in turn, as :meth:`get` gives it (None, and not counted as a
        miss, for a key None), looked up :data:`LOOKUP_WINDOW` keys at a time as they are taken:
        a few queries, not one per key."""
        for window in _chunks(keys, LOOKUP_WINDOW):
            texts = self._texts(section.value, window, values=True)
            for key in window:
                text = texts.get(key) if key is not None else None
                yield None if text is None else _value(text)

    def made_many(self, section: Section, keys: Iterable[str | None], make: Callable[[Any], T]) -> Iterator[T | None]:
        """``make(value)`` of the value of each of ``keys`` in turn, None where :meth:`get_many`
        gives None.  ``make`` must depend on the value alone and return a new object that
        nothing changes: with ``resident`` objects (:class:`KeptObjects`), one made in an
        earlier run is taken as it is, its value not read again."""
        resident = self.resident
        if resident is None:
            for value in self.get_many(section, keys):
                yield None if value is None else make(value)
            return
        for window in _chunks(keys, LOOKUP_WINDOW):
            kept = self._kept(resident, section.value, section.value, window)
            texts = self._texts(section.value, [key for key in window if key not in kept], values=True)
            for key in window:
                made = kept.get(key) if key is not None else None
                if made is None and key is not None and (text := texts.get(key)) is not None:
                    made = make(_value(text))
                    if made is not None:
                        resident.keep(section.value, key, made)
                yield made

    def keep_many(self, section: Section, keys: Iterable[str]) -> None:
        """Keep whatever is stored under ``keys`` for the next run, without reading it (a value
        this run does not need, but a later one may)."""
        self._used.update((section.value, key) for key in keys)

    def keep_made(self, section: Section, key: str, made: Any) -> None:
        """Keep ``made`` in place of the object :meth:`made_many` gave for ``key`` (one equal to
        it, sharing more with what the run holds), when there are resident objects."""
        if self.resident is not None:
            self.resident.keep(section.value, key, made)

    def has_many(self, section: Section, keys: Iterable[str | None]) -> Iterator[bool]:
        """Whether a value is stored under each of ``keys`` in turn, as :meth:`has` tells it (False,
        and not counted, for a key None): all looked up at once, without reading the values (nor
        those ``resident`` saw in an earlier run)."""
        wanted = list(keys)
        if self.resident is None:
            found = self._texts(section.value, wanted, values=False)
            return (key is not None and key in found for key in wanted)
        name = f"{section.value} held"  # what is kept of a key found: that it was there
        held = self._kept(self.resident, name, section.value, wanted)
        found = self._texts(section.value, [key for key in wanted if key not in held], values=False)
        for key in found:
            self.resident.keep(name, key, True)
        return (key is not None and (key in held or key in found) for key in wanted)

    def _kept(self, resident: KeptObjects, name: str, section: str, keys: Iterable[str | None]) -> dict[str, Any]:
        """What ``resident`` kept under ``name`` for each of ``keys`` that it holds, counted as
        hits and as used (they are still in the file: the save keeps them)."""
        kept = {key: made for key in keys if key is not None and (made := resident.take(name, key)) is not None}
        self._used.update((section, key) for key in kept)
        self.hits += len(kept)
        return kept

    def _texts(self, section: str, keys: list[str | None], values: bool) -> dict[str, str | _AsPut]:
        """The text of each of ``keys`` found, added in this run (a string as it was put, as an
        :class:`_AsPut`) or in the file ("" for each when not ``values``), counting hits and
        misses.  Only what was found in the file is remembered as used (the save keeps it): what
        this run added is saved anyway, and a cold build of a big catalog adds millions of names."""
        wanted = [key for key in keys if key is not None]
        texts: dict[str, str | _AsPut] = {}
        for key in wanted:
            if (added := self._added.get((section, key))) is not None:
                texts[key] = "" if not values else added if isinstance(added, _Json) else _AsPut(added)
        texts.update(self._pending.texts(section, [k for k in wanted if k not in texts], values))
        stored = self._stored(section, [k for k in wanted if k not in texts], values)
        texts.update(stored)
        self.hits += sum(key in texts for key in wanted)
        self.misses += sum(key not in texts for key in wanted)
        self._used.update((section, key) for key in stored)
        return texts

    def put(self, section: Section, key: str, value: Any) -> None:
        """Store ``value`` (JSON-able) under ``key`` for the next run."""
        name = (section.value, key)
        # a string (a rendered body, the biggest values) is kept as it is, not a second time as JSON
        added = value if isinstance(value, str) else _Json(_encode(value))
        replaced = self._added.get(name)
        self._added_size += _held(added) - (_held(replaced) if replaced is not None else 0)
        self._added[name] = added
        if self._added_size > SPILL_BYTES:
            self._spill()

    def _spill(self) -> None:
        """Move what this run added to its side file: memory stays bounded however many values it adds."""
        try:
            self._pending.write(self._added)
        except (OSError, sqlite3.Error):
            return  # kept in memory instead: the run goes on, the save says if the disk is the problem
        self._added.clear()
        self._added_size = 0

    def close(self) -> None:
        """Close this process's connection to the file (reopened if asked again)."""
        if self._db is not None and self._db_pid == os.getpid():
            self._db.close()
        self._db = None

    def save(self, keep_unused: bool = False) -> None:
        """Write what this run added and drop what it did not use (unless ``keep_unused``: a run
        that stopped early, whose next run needs what it did not get to), in one transaction.

        Raises OSError naming the file when it cannot be written (a full disk, a read-only or
        forbidden folder).
        """
        if self.path is None:
            self._pending.discard()
            return
        self.close()
        try:
            self._write(self.path, keep_unused)
        except sqlite3.Error as exc:  # "database or disk is full", "attempt to write a readonly database"
            raise OSError(None, f"cannot write the cache: {exc}", str(self.path)) from exc
        finally:
            self._pending.discard()

    def note(self, name: str) -> str | None:
        """The text the saved file keeps under ``name`` beside its entries (:meth:`set_note`), when it
        is a cache of this scope; None otherwise, or when it cannot be read."""
        if self.path is None or not self.path.is_file():
            return None
        try:
            with closing(_connect(self.path)) as db:
                meta = dict(db.execute("SELECT name, value FROM meta WHERE name IN ('format', 'scope', ?)",
                                       (NOTE + name,)))
        except sqlite3.Error:
            return None
        return meta.get(NOTE + name) if self._of_this_scope(meta) else None

    def _of_this_scope(self, meta: dict[str, str]) -> bool:
        """Whether a saved file's meta rows (``format``, ``scope``) say it is a cache of this scope."""
        return (meta.get("format"), meta.get("scope")) == (FORMAT, self.scope)

    def set_note(self, name: str, text: str | None) -> None:
        """Keep ``text`` under ``name`` in the saved file (None: keep nothing there), when it is a
        cache of this scope: what a command records of its last run (``validate``'s report).  Best
        effort: a note not kept is only a note the next run does not find."""
        if self.path is None or not self.path.is_file():
            return
        try:
            with closing(_connect(self.path)) as db:
                db.execute("BEGIN IMMEDIATE")  # closing without COMMIT rolls back
                meta = dict(db.execute("SELECT name, value FROM meta WHERE name IN ('format', 'scope')"))
                if not self._of_this_scope(meta):
                    return
                if text is None:
                    db.execute("DELETE FROM meta WHERE name = ?", (NOTE + name,))
                else:
                    db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (NOTE + name, text))
                db.execute("COMMIT")
        except sqlite3.Error:
            pass

    def _write(self, path: Path, keep_unused: bool) -> None:
        make_cache_folder(path.parent)
        if self._unusable:
            path.unlink(missing_ok=True)
        generation = secrets.token_hex(16)
        with closing(_connect(path)) as db:
            _prepare_to_write(db)
            db.executescript(_SCHEMA)
            self._pending.attach(db)  # before the transaction: sqlite attaches no file inside one
            with db:
                db.execute("BEGIN IMMEDIATE")  # the file locked before its generation is read
                held = self._write_entries(db, path, keep_unused)
                db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                               [("format", FORMAT), ("scope", self.scope), (GENERATION, generation)])
        self._remember_names(path, generation, held)

    def _write_entries(self, db: sqlite3.Connection, path: Path, keep_unused: bool) -> set[tuple[str, str]] | None:
        """Drop what the file should no longer hold and add what this run added, inside the
        caller's transaction; the names the file held before the adding (None: not known)."""
        held: set[tuple[str, str]] | None
        if self._file_scope != self.scope:
            db.execute("DELETE FROM entries")
            db.execute("DELETE FROM meta WHERE name LIKE ?", (NOTE + "%",))
            held = set()
        elif keep_unused:
            held = self._names_held(db, path)
        else:
            _drop_unused(db, self._used, self._names_held(db, path))
            held = self._used  # all the file kept of its names, and maybe names it never held
        self._pending.copy_into(db)
        db.executemany("INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?)", _rows(self._added))
        return held

    def _names_held(self, db: sqlite3.Connection, path: Path) -> set[tuple[str, str]] | None:
        """The names the file holds as the resident objects' last save left it, when it still holds
        that save; None when not known (the save lists the file instead)."""
        saved = self.resident.saved_names if self.resident is not None else None
        if saved is None or saved.path != str(path):
            return None
        found = db.execute("SELECT value FROM meta WHERE name = ?", (GENERATION,)).fetchone()
        return saved.names if found is not None and found[0] == saved.generation else None

    def _remember_names(self, path: Path, generation: str, held: set[tuple[str, str]] | None) -> None:
        """Keep, with the resident objects, the names the file holds after this save (``held``:
        those it held before this run's were added, None when not known), for the next save."""
        if self.resident is None:
            return
        if held is None or self._pending.path is not None:  # what was spilled is copied unnamed
            self.resident.saved_names = None
            return
        held.update(self._added)  # the run's own set, or the last save's, which this one replaces
        self.resident.saved_names = SavedNames(str(path), generation, held)


class _Pending:
    """The side file of what a run added beyond :data:`SPILL_BYTES` (created on first use): beside
    the cache file, or a temporary file when the run keeps no cache; removed when the run saves."""

    def __init__(self, cache_path: Path | None):
        self.cache_path = cache_path
        self.path: Path | None = None
        self._db: sqlite3.Connection | None = None
        self._db_pid = 0

    def _connection(self) -> sqlite3.Connection:
        if self.path is None:
            folder = self.cache_path.parent if self.cache_path is not None else None
            prefix = f"{self.cache_path.name if self.cache_path else 'skillsite-cache'}{PENDING}{os.getpid()}-"
            fd, name = tempfile.mkstemp(prefix=prefix, dir=folder)
            os.close(fd)
            self.path = Path(name)
        if self._db is None or self._db_pid != os.getpid():  # a worker process reads with a connection of its own
            self._db, self._db_pid = _connect(self.path), os.getpid()
            self._db.executescript(_SCHEMA)
        return self._db

    def write(self, added: dict[tuple[str, str], Added]) -> None:
        """Add what a run holds (by name: section and key) to the side file."""
        db = self._connection()
        with db:
            db.executemany("INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?)", _rows(added))

    def texts(self, section: str, keys: list[str], values: bool) -> dict[str, str]:
        """The text of each of ``keys`` the side file holds (as :meth:`Cache._stored` gives them);
        none before the first spill."""
        if self.path is None or not keys:
            return {}
        try:
            return _select(self._connection(), section, keys, values)
        except sqlite3.Error:
            return {}  # made again, then: the save says if the disk is the problem

    def attach(self, db: sqlite3.Connection) -> None:
        """Attach the side file, if there is one, to the cache file ``db`` (as ``pending``)."""
        if self.path is not None:
            db.execute("ATTACH DATABASE ? AS pending", (str(self.path),))

    def copy_into(self, db: sqlite3.Connection) -> None:
        """Add every pending entry to the cache file ``db`` it is attached to (inside the caller's
        transaction): sqlite copies them, so no value passes through this process (a page of a
        paged skills.json is a megabyte, and a side file holds hundreds)."""
        if self.path is not None:
            db.execute("INSERT OR REPLACE INTO main.entries SELECT section, key, value, checksum"
                       " FROM pending.entries")

    def discard(self) -> None:
        if self._db is not None and self._db_pid == os.getpid():
            self._db.close()
        self._db = None
        if self.path is not None:
            self.path.unlink(missing_ok=True)
            self.path = None


def _select(db: sqlite3.Connection, section: str, keys: list[str], values: bool) -> dict[str, str]:
    """The text (``values`` False: "") of each of ``keys`` a cache file holds in ``section``, asked
    for in key order (nearby keys share the file's pages), a chunk at a time.  Raises
    :class:`DamagedEntry` for a text that does not match its checksum."""
    column = "value, checksum" if values else "'', 0"
    ordered = sorted(set(keys))
    found: dict[str, str] = {}
    for start in range(0, len(ordered), LOOKUP_CHUNK):
        chunk = ordered[start:start + LOOKUP_CHUNK]
        for key, text, checksum in db.execute(f"SELECT key, {column} FROM entries WHERE section = ? AND key IN"
                                              f" ({','.join('?' * len(chunk))})", (section, *chunk)):
            if values and (not isinstance(text, str) or _checksum(text) != checksum):
                raise DamagedEntry(section, key)
            found[key] = text
    return found


def _chunks(items: Iterable[str | None], size: int) -> Iterator[list[str | None]]:
    """``items`` in lists of at most ``size``."""
    chunk: list[str | None] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _remove_abandoned_pending(cache_path: Path) -> None:
    """Remove the side files of runs that ended without saving (killed): their process is gone."""
    for path in cache_path.parent.glob(f"{cache_path.name}{PENDING}*"):
        pid = path.name[len(cache_path.name) + len(PENDING):].split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            path.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _drop_unused(db: sqlite3.Connection, used: set[tuple[str, str]], held: set[tuple[str, str]] | None) -> None:
    """Delete every entry of the file that is not in ``used``: of the names it is known to hold
    (``held``), else of those it lists (most are used, and listing them costs less than handing
    sqlite every used one)."""
    if held is not None:
        unused: Iterable[tuple[str, str]] = held - used
    else:
        unused = [name for name in db.execute("SELECT section, key FROM entries") if name not in used]
    db.executemany("DELETE FROM entries WHERE section = ? AND key = ?", unused)


def make_cache_folder(folder: Path) -> None:
    """Create the cache folder with a ``.gitignore`` that keeps it out of git.

    A folder that already exists is the user's (``--cache-dir .`` is allowed): its own
    ``.gitignore`` is never touched.
    """
    if folder.is_dir():
        return
    folder.mkdir(parents=True)
    ignore = folder / ".gitignore"
    try:
        ignore.write_text("*\n", encoding="utf-8")
    except OSError as exc:  # a full disk says it on close, naming no file: name it
        raise type(exc)(exc.errno, exc.strerror, str(exc.filename or ignore)) from exc


def prepare_cache_folder(folder: Path) -> None:
    """Make sure the cache folder can be written before any work is done:
    :class:`CacheFolderUnusable` naming it when it cannot (read-only, forbidden, no space)."""
    try:
        make_cache_folder(folder)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise CacheFolderUnusable(exc.errno, exc.strerror, str(folder)) from exc


#: The page cache of the connection that saves (sqlite's default is 2 MB): dropping the entries of
#: a catalog whose every skill changed touches every page of the file, and with too small a cache
#: each page is read and written more than once.
WRITE_CACHE_KIB = 64 << 10


def _prepare_to_write(db: sqlite3.Connection) -> None:
    """Settings of the connection that saves: a page cache of :data:`WRITE_CACHE_KIB`, and dropped
    entries not overwritten with zeros (``secure_delete``, on in some builds of sqlite, would write
    every freed page once more; the values are the catalog's own checks, nothing secret, and the
    file keeps none of them once their pages are reused)."""
    db.execute(f"PRAGMA cache_size = -{WRITE_CACHE_KIB}")
    db.execute("PRAGMA secure_delete = OFF")


def _connect(path: Path) -> sqlite3.Connection:
    # check_same_thread off: a connection serves one process, whichever of its threads asks
    return sqlite3.connect(path, timeout=10, check_same_thread=False)
