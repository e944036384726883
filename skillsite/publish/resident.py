"""What ``skillsite serve`` keeps in memory between its builds (#47): each build is still the
one ``skillsite build`` would make, byte for byte, but a rebuild takes from here what the last
build learned instead of finding it again.

- **Objects made from the cache** (manifest entries, skills' checks, files' digests): a cached
  value never changes under its key (a digest of everything it is made of), so an object made
  from it stays right while the scope is the same.  A build keeps those it used; the next one
  drops the rest, and everything when the scope changed.  The objects are shared between
  builds: nothing may change them.  Each skill, as its check made it for its source and with
  its final diagnostics, is kept the same way (:mod:`skillsite.source.catalog`): taken again
  for the very source object discovery keeps for an unchanged skill; so is the digest of the
  search entry made of each such skill (:func:`~skillsite.publish.catalog_files.search_digests`).
- **Pieces of the catalog-wide steps, per skill** (each with :func:`~skillsite.cache.kept_or_made`,
  keyed by the very skill or entry object and the values it is made of): reading's sorted
  diagnostics, patched with the changed skills' parts (:class:`~skillsite.diagnostics.SortedParts`),
  and the catalog-wide checks' last results while what they read is the same; publishing's link
  targets and each kept publication's entry; the pages' cards, tag counts and page keys
  (:mod:`~skillsite.publish.page_pieces`); each skill's discovery listing and rows, composed into
  the listings (:mod:`~skillsite.publish.composed_json`), and its audit findings.
- **The last grouping of copies**, taken again when no skill that changed was in a group or
  shares a key with another (:mod:`skillsite.source.kept_grouping`): most edits are of such skills.
- **The last look-alike check** (SK219): its descriptions' terms and weights and its pairs, so
  that after a description edit only the descriptions whose weights moved are weighed and paired
  again (:class:`~skillsite.agent.budget.ChangedPairs`, in :mod:`skillsite.source.catalog`).
- **The state the last build saved** (:mod:`skillsite.publish.state`), taken while the state
  file still holds it (no other build saved since), instead of reading its rows again; and the
  names of the entries the cache file held after that save (:class:`~skillsite.cache.SavedNames`),
  so that the next save drops those it did not use without listing the file.
- **The last discovery and audit listings**, patched with the paths the file watcher reported
  since (:mod:`skillsite.source.rediscover`): when only files discovery listed changed, their
  sizes and times are read again instead of walking the tree, and only the skill folders
  holding a reported path are listed again for the audit.  When the watcher cannot say what
  changed (it polls, or lost track), or the tree's shape may have changed, the build walks.
  A SKILL.md whose source discovery kept is not even looked at: its stamp key is the last
  build's (:func:`skillsite.source.catalog._stamp_key`).
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Collection, Iterator, Sequence

from skillsite.audit.files import audited_stamps
from skillsite.cache import SavedNames
from skillsite.publish.state import AuditListing, BuildState, InputRows
from skillsite.publish.watch import SKIP_DIRS
from skillsite.source.discover import Discovery, discover
from skillsite.source.rediscover import Places, as_reached, rediscover


class Resident:
    """What a long-running process keeps between its builds (see the module's docstring)."""

    def __init__(self) -> None:
        self.scope: str | None = None
        self.hits = 0                 # objects taken from an earlier build
        self.walks = 0                # discoveries that walked the tree
        # section -> key -> object, of the builds before, and those the current build took or made (by
        # section: no new (section, key) pair per object and build for the garbage collector to count)
        self._earlier: dict[str, dict[str, Any]] = {}
        self._used: dict[str, dict[str, Any]] = {}
        self._found: tuple[tuple[str, ...], Discovery, Places] | None = None  # (roots and exclude, found, places)
        self._listings: dict[str, tuple[AuditListing, bool]] = {}  # skill folder -> (listing, holds unwatched folders)
        self._changed: Collection[str] | None = None  # real paths changed since the last build (None: unknown)
        self.saved_state: BuildState | None = None     # the state the last build saved (taken while the file holds it)
        self.saved_names: SavedNames | None = None     # what the cache file held after the last save (while it does)
        self.input_parts: InputRows = {}  # each skill's part of the inputs' digest, as the last build made it

    # ---------------------------------------------------------------- objects made from the cache

    def begin(self, scope: str) -> None:
        """A build of ``scope`` starts: keep what the last build used (nothing when the scope changed)."""
        self._earlier = self._used if scope == self.scope else {}
        self._used = {}
        self.scope = scope

    def take(self, section: str, key: str) -> Any:
        """The object kept under ``key``, now used by this build; None when none is.  (Called a
        few times per skill and build: no dict is made for a section that has one.)"""
        used = self._used.get(section)
        if used is None:
            used = self._used[section] = {}
        found = used.get(key)
        if found is None:
            earlier = self._earlier.get(section)
            if earlier is None or (found := earlier.get(key)) is None:
                return None
            used[key] = found
        self.hits += 1
        return found

    def keep(self, section: str, key: str, made: Any) -> None:
        """Keep ``made``, the object made of the value under ``key``, for the next builds."""
        used = self._used.get(section)
        if used is None:
            used = self._used[section] = {}
        used[key] = made

    # ---------------------------------------------------------------- what changed in the tree

    def saw(self, paths: Collection[str] | None) -> None:
        """Every path that changed since the last build (real paths, as the file watcher reports
        them; None: not known), for the next build.  Untold, the next build walks the tree."""
        self._changed = paths

    def discover(self, roots: Sequence[Path], exclude: Sequence[str]) -> Discovery:
        """What discovery finds under ``roots``: the last discovery patched with the reported
        changes when they allow it, else a walk."""
        what = (*map(str, roots), "\0", *exclude)
        found = None
        if self._found is not None and self._found[0] == what and self._changed is not None:
            found = rediscover(self._found[1], self._found[2], roots, self._changed)
        if found is None:
            self.walks += 1
            found = discover(roots, exclude)
            self._found = (what, found, Places.of(found))
        else:
            self._found = (what, found, self._found[2])  # the same files in the same places
        return found

    def listings(self, found: Discovery, roots: Sequence[Path]) -> list[AuditListing]:
        """Each skill folder's audit listing: the last one, for a folder under which no path was
        reported (and that holds no folder the watcher leaves out), else listed again."""
        touched = self._touched_folders(found, roots)
        listings, kept = [], {}
        for source in found.sources:
            folder = os.path.abspath(source.dir)
            before = self._listings.get(folder)
            if before is None or before[1] or touched is None or folder in touched:
                seen = source.audited is not None and (touched is None or folder not in touched)  # a walk's, just now
                stamps = list(source.audited) if seen else audited_stamps(source.dir)
                before = (AuditListing.of_stamps(stamps), any(_unwatched(path) for path, *_ in stamps))
            kept[folder] = before
            listings.append(before[0])
        self._listings = kept
        return listings

    @contextmanager
    def building(self) -> Iterator[None]:
        """One build, which takes the changes it was told: done (failed or not), its discovery
        holds them and the next build starts from it, once told what changed since; raised
        midway (what it saw may be half patched), the next build walks.  Either way, what the
        builds before kept and this one did not take again is let go now: between builds the
        process holds one set of objects, not two for the garbage collector to walk."""
        try:
            yield
        except BaseException:
            self._found, self._listings = None, {}
            raise
        finally:
            self._changed = None
            self._earlier = {}

    def _touched_folders(self, found: Discovery, roots: Sequence[Path]) -> set[str] | None:
        """The skill folders at or above a reported path (as discovery reaches them); None: all."""
        if self._changed is None:
            return None
        folders = {os.path.abspath(source.dir) for source in found.sources}
        touched: set[str] = set()
        for path in self._changed:
            reached = as_reached(path, roots)
            if reached is None:
                return None
            while True:
                if reached in folders:
                    touched.add(reached)
                parent = os.path.dirname(reached)
                if parent == reached:
                    break
                reached = parent
        return touched


def _unwatched(path: str) -> bool:
    """Whether a file of a skill (POSIX, relative to its folder) is in a folder the file watcher leaves out."""
    return not SKIP_DIRS.isdisjoint(path.split("/")[:-1])
