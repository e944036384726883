"""skillsite.loader: use a published skill catalog from an agent runtime.

Standard library only (and only the stdlib-only modules of :mod:`skillsite.agent` and
:mod:`skillsite.search`), so an agent can vendor the ``skillsite`` package folder and import
this module without installing anything.

    catalog = Catalog.open("https://skills.example.com/skills.json")
    best = catalog.search("roll back a release")[0]
    system_prompt += catalog.prompt(); skill = catalog.load(best.id)   # skill.xml, skill.body

``Catalog.open()`` reads a published ``skills.json`` (an http(s) URL, a file, or a built site
folder).  Everything fetched is checked against the manifest's sha256 before it is returned
or written; remote manifests are cached on disk and revalidated with ETag /
If-Modified-Since, and used offline (with a StaleCatalogWarning) when the server cannot be
reached.  A big catalog's ``skills.json`` is the root of a paged one (format 2): ``open``
reads the root only, ``load`` one skill's entry file, and what needs every entry (``skills``,
``prompt``, ``skill_status`` ...) its pages, each verified and kept in the cache by sha256.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from skillsite.agent.catalog_entries import CatalogEntries
from skillsite.agent.catalog_format import (DEFAULT_MAX_RISK, FORMAT, FORMAT_VERSION, RISKS, offered_to_model,
                                            prompt_order, within_max_risk)
from skillsite.agent.catalog_search import CatalogSearch
from skillsite.agent.catalog_versions import Histories
from skillsite.agent.eligibility import current_platform, ineligible_reasons
from skillsite.agent.entry import ManifestEntry
from skillsite.agent.errors import (CatalogFormatError, DependencyError, DestinationExistsError, FetchError,
                                    HTTPStatusError, InstallError, IntegrityError, LoaderError, LoaderWarning,
                                    LockFileError, MissingToolsError, MissingToolsWarning, NotFoundError,
                                    RedirectError, RiskError, StaleCatalogWarning, TooLargeError, TrustError,
                                    UnsafePathError, UnsupportedVersionError)
from skillsite.agent.fetch import Fetcher, read_local
from skillsite.agent.install import Installer
from skillsite.agent.install_plan import PlannedSkill
from skillsite.agent.manifest_check import parse_manifest, safe_relpath
from skillsite.agent.offers import Offers, checked_tools
from skillsite.agent.opening import classify_source, fetch_manifest
from skillsite.agent.prompt_xml import (MAX_LISTED_RESOURCES, available_skills_xml, one_line, skill_content_xml,
                                        skill_entry_xml, xml_attr, xml_text)
from skillsite.agent.results import SearchResult, SkillContent, SubSkill
from skillsite.agent.site_files import SiteFiles
from skillsite.agent.site_urls import url_of
from skillsite.agent.skill_md import frontmatter_end, skill_body
from skillsite.agent.status import SkillStatus, catalog_status
from skillsite.agent.store import LoaderCache, conditional_headers, default_cache_dir, write_atomically
from skillsite.agent.tools import POLICIES, Decision, SkillSession, ToolCheck, tool_matches
from skillsite.agent.trust import SignedCatalog, TrustStore
from skillsite.agent.trust_keys import PublicKey, keys_from_environment, read_keys as read_trusted_keys
from skillsite.agent.trust_policy import check_signature, site_getter
from skillsite.agent.versions import Release
from skillsite.paths import user_cache_root
from skillsite.search.bm25 import SEARCH_VERSION, SearchIndex, build_search_section
from skillsite.search.stemmer import stem
from skillsite.search.terms import SEARCH_FIELDS, STOP_WORDS, search_fields, tokenize

__all__ = [
    "FORMAT", "FORMAT_VERSION", "xml_text", "xml_attr", "one_line", "skill_entry_xml",
    "available_skills_xml", "skill_content_xml", "frontmatter_end", "prompt_order", "offered_to_model",
    "MAX_LISTED_RESOURCES", "SEARCH_VERSION", "SEARCH_FIELDS", "STOP_WORDS", "stem", "tokenize", "search_fields",
    "build_search_section", "SearchIndex",
    # catalog access
    "Catalog", "open_catalog", "ManifestEntry", "SearchResult", "SkillContent", "SubSkill", "SkillStatus",
    "ToolCheck", "Decision",
    "SkillSession", "POLICIES", "tool_matches", "ineligible_reasons", "current_platform", "skill_body",
    "default_cache_dir", "user_cache_root", "write_atomically", "DEFAULT_TIMEOUT", "DEFAULT_MAX_BYTES",
    "LoaderError", "FetchError", "HTTPStatusError", "RedirectError", "TooLargeError", "CatalogFormatError",
    "UnsupportedVersionError", "IntegrityError", "TrustError", "NotFoundError", "UnsafePathError",
    "DestinationExistsError", "InstallError", "DependencyError", "LockFileError", "Release",
    "RiskError", "DEFAULT_MAX_RISK",
    "MissingToolsError", "LoaderWarning", "StaleCatalogWarning", "MissingToolsWarning",
]

DEFAULT_TIMEOUT = 10.0
#: The longest ``timeout`` taken: a day (the system's timers overflow past some bound, and no request
#: is meant to take longer).
LONGEST_TIMEOUT = 86400.0
DEFAULT_MAX_BYTES = 64 * 1024 * 1024


class Catalog:
    """A published skill catalog: search it, load verified skills, build the prompt block.

    Make one with :meth:`Catalog.open`.  ``status`` says where the manifest came from:
    ``local``, ``fetched``, ``not-modified`` (revalidated with a 304) or ``offline``
    (the cached copy, after a StaleCatalogWarning).  Skills the catalog's audit rates above
    ``max_risk`` are never loaded, installed, offered or found by search (:class:`RiskError`).
    """

    def __init__(self, manifest: dict[str, Any], location: str, *, remote: bool, status: str,
                 fetcher: Fetcher, cache: LoaderCache | None, max_bytes: int,
                 max_risk: str = DEFAULT_MAX_RISK, asked_for: str | None = None) -> None:
        if max_risk not in RISKS:
            raise ValueError(f"max_risk must be one of {', '.join(RISKS)}, not {max_risk!r}")
        self.max_risk = max_risk
        self.manifest = manifest
        self.location = location            # the manifest's URL (final, after redirects) or absolute path
        # the manifest's URL as asked for, before any redirect (what a lock file records), or its path
        self.asked_for = asked_for or location
        self.remote = remote
        self.status = status
        self._fetcher = fetcher
        self._cache = cache
        self._max_bytes = max_bytes
        # the entries as JSON, parsed into ManifestEntry on first use (check_manifest made sure
        # each has a string id, name and description): one malformed entry spoils only its uses;
        # a paged catalog's are fetched as they are asked for
        self._files = SiteFiles(self)
        self._source = CatalogEntries(manifest, self._files.verified, location)
        self._by_id = self._source.by_id    # those known so far (all of them once ``skills`` was read)
        self._histories = Histories(self)
        self._search = CatalogSearch(self)
        self._offers = Offers(self)
        #: the signed metadata the catalog was accepted with (None: not signed, or read without a policy)
        self.signed: SignedCatalog | None = None
        # every file fetched must be pinned by a digest (chunks and cards of the search shards
        # included): set for a signed catalog, once skills.json itself is verified
        self._pin_all_fetches = False

    # -- opening

    @classmethod
    def open(cls, source: str | os.PathLike[str], *, cache_dir: str | os.PathLike[str] | None = None,
             timeout: float = DEFAULT_TIMEOUT, max_bytes: int = DEFAULT_MAX_BYTES,
             allowed_hosts: Iterable[str] | None = None, max_risk: str = DEFAULT_MAX_RISK,
             trusted_keys: Iterable[str] | None = None) -> Catalog:
        """Open a catalog from an http(s) URL of skills.json (or of the site: a URL whose path
        does not end in ``.json`` is a folder, its ``skills.json`` is read), a path to one, or a site folder.

        Remote manifests are cached under ``cache_dir`` (default :func:`default_cache_dir`)
        and revalidated with If-None-Match / If-Modified-Since.  When fetching fails with a
        transient error (network, timeout, HTTP 5xx) and a cached copy exists, that copy is
        used with a :class:`StaleCatalogWarning`.  ``timeout`` bounds each request as a
        whole, ``max_bytes`` each response; with ``allowed_hosts`` only those host names are
        contacted, redirects included.  ``max_risk`` (``none``, ``low``, ``medium``, ``high``)
        is the highest audit risk of a skill this catalog loads, installs or offers;
        ``"high"`` allows everything.

        ``trusted_keys`` (``ed25519:<base64>``; default: ``$SKILLSITE_TRUSTED_KEYS``): the catalog
        must be signed by one of them, or by a key one of them handed trust to.  Without any, a
        remote catalog this cache accepted signed must stay so (trust on first use), and a signed
        catalog is checked against its own signed metadata (a file changed since it was signed
        is refused, on disk as over HTTP).  A catalog
        that fails is refused with :class:`TrustError` (:mod:`skillsite.agent.trust_policy`).
        """
        if not 0 < timeout <= LONGEST_TIMEOUT or max_bytes <= 0:  # NaN fails the comparison too
            raise ValueError(f"timeout must be above 0 and at most {LONGEST_TIMEOUT:g} seconds, and max_bytes "
                             "positive")
        if isinstance(allowed_hosts, str):
            allowed_hosts = [allowed_hosts]
        if isinstance(trusted_keys, str):  # one text of keys, as $SKILLSITE_TRUSTED_KEYS holds them
            trusted_keys = [trusted_keys]
        hosts = None if allowed_hosts is None else frozenset(h.lower().strip() for h in allowed_hosts)
        fetcher = Fetcher(timeout, max_bytes, hosts)
        keys = keys_from_environment() if trusted_keys is None else read_trusted_keys(trusted_keys)
        kind, where = classify_source(source)
        if kind == "path":
            raw = read_local(Path(where), max_bytes)
            catalog = cls(parse_manifest(raw, where), where, remote=False, status="local", fetcher=fetcher, cache=None,
                          max_bytes=max_bytes, max_risk=max_risk)
            catalog._trust(raw, TrustStore(None), keys)  # signed: checked against its own metadata at least
            return catalog
        cache = LoaderCache(Path(cache_dir) if cache_dir is not None else default_cache_dir())
        store = TrustStore(cache.trust_folder(where))
        refused: TrustError | None = None
        for revalidate in (True, False):  # a cached skills.json may predate the signed metadata: fetch it again
            try:
                manifest, raw, final_url, status = fetch_manifest(where, fetcher, cache, revalidate)
            except FetchError as exc:
                if refused is None:
                    raise
                # offline, the cached copy refused (its metadata expired): that is the reason to give
                raise TrustError(f"{refused.reason}; no newer copy can be fetched ({exc})", refused.catalog) from None
            catalog = cls(manifest, final_url, remote=True, status=status, fetcher=fetcher, cache=cache,
                          max_bytes=max_bytes, max_risk=max_risk, asked_for=where)
            try:
                catalog._trust(raw, store, keys)
                return catalog
            except TrustError as exc:
                if status == "fetched":
                    raise
                refused = exc
        raise AssertionError("a catalog fetched anew is returned or refused above")

    def _trust(self, raw: bytes, store: TrustStore, keys: tuple[PublicKey, ...]) -> None:
        """Check the catalog's signature as its policy asks (``self.signed``: what was accepted;
        None: an unsigned catalog read without a policy); TrustError when it fails.  ``raw`` is
        the skills.json this object reads (:meth:`changed_since_open` compares with it)."""
        self._opened_sha256 = hashlib.sha256(raw).hexdigest()
        get = site_getter(self.location, self.remote, self._fetcher, self._max_bytes)
        self.signed = check_signature(self.manifest, raw, get, store, keys, self.location)
        self._pin_all_fetches = self.signed is not None

    @property
    def manifest_sha256(self) -> str:
        """The sha256 (hex) of the skills.json this object read: which build of the catalog it is."""
        return self._opened_sha256

    @property
    def longest_path_bytes(self) -> int | None:
        """The longest id, nested skill id or bundled file path of any entry, in UTF-8 bytes, as
        skills.json says (``counts.longest_path_bytes``); None for a catalog built before it gave
        one.  Nothing is fetched: a reader with a limit on those learns that no entry is over it
        without reading every page (the entries themselves are not checked against it)."""
        return self._source.longest_path_bytes

    def still_signed(self) -> None:
        """TrustError once the signed metadata this catalog was opened with has expired (nothing
        for an unsigned one): a reader that answers from what it read already (``skillsite mcp``'s
        lists) asks first, as every read of a file does."""
        self._files.still_signed()

    def changed_since_open(self, *, conditional: bool = False) -> bool:
        """Whether the catalog's skills.json is now another file than the one this object read: a
        build published since, whose new pieces fail this object's digests.  A reader that keeps
        a catalog open (``skillsite mcp``) then opens it again.  One read of skills.json past every
        cache; ``conditional``, for a check made often on weaker grounds (a skill asked for by a
        name the catalog lacks), asks with the validators of the copy the loader cached when it is
        this object's, and a 304 answers False (a host whose ETag is only a time and a size may
        answer so for a file rewritten within its second).  False when it cannot be read."""
        try:
            if not self.remote:
                raw = read_local(Path(self.location), self._max_bytes)
                return hashlib.sha256(raw).hexdigest() != self._opened_sha256
            response = self._fetcher.get(self.location, self._opened_copy_validators() if conditional else None)
        except (LoaderError, OSError):
            return False
        if response.status == 304:
            return False
        changed = hashlib.sha256(response.body).hexdigest() != self._opened_sha256
        if changed and self._cache is not None:  # the next open revalidates this copy, not the one it replaced
            try:
                parse_manifest(response.body, self.location)  # not a half-written one, over the last good copy
                self._cache.write_manifest(self.asked_for, response)
            except CatalogFormatError:
                pass
        return changed

    def _opened_copy_validators(self) -> dict[str, str]:
        """The validators of the cached skills.json when it is the very file this object read
        (none otherwise: a 304 would then say nothing of that file)."""
        cached = self._cache.read_manifest(self.asked_for) if self._cache is not None else None
        return conditional_headers(cached[1]) if cached and cached[1].get("sha256") == self._opened_sha256 else {}

    # -- lookup

    @property
    def skills(self) -> list[dict[str, Any]]:
        """The manifest entries as JSON objects, in manifest order (unchecked; see :attr:`entries`);
        a paged catalog fetches its pages on first use."""
        return self._source.all()

    @property
    def entries(self) -> list[ManifestEntry]:
        """The manifest entries, typed and checked, in manifest order (CatalogFormatError on a malformed one)."""
        return [self._source.checked(data) for data in self.skills]

    def __len__(self) -> int:
        return len(self._source)

    def __contains__(self, id_or_name: object) -> bool:
        return isinstance(id_or_name, str) and (self._source.find(id_or_name) is not None
                                                or bool(self._source.named(id_or_name))
                                                or bool(self._source.spelt_otherwise(id_or_name)))

    def entry(self, id_or_name: str) -> dict[str, Any]:
        """The manifest entry of a skill as its JSON object, by id or else by (unique) name, once
        it is checked (:meth:`manifest_entry` gives it typed)."""
        return self._by_id[self.manifest_entry(id_or_name).id]

    def manifest_entry(self, id_or_name: str) -> ManifestEntry:
        """The manifest entry of a skill, by id or else by (unique) name, as spelt or in another
        Unicode spelling (NFC and NFD alike); checked on first use (a paged catalog fetches the
        skill's entry file, or its indexes for a name or another spelling)."""
        return self._source.lookup(id_or_name)

    def skill_location(self, id_or_name: str) -> str:
        """Absolute URL (remote catalogs) or path (local ones) of a skill's SKILL.md."""
        return self._files.url(self.manifest_entry(id_or_name).urls.skill_md)

    # -- search

    def search(self, query: str, k: int = 5, tags: Sequence[str] | None = None, *,
               for_model: bool = False, copies: bool = False) -> list[SearchResult]:
        """The ``k`` best skills for ``query`` (optionally only with all of ``tags``), as
        ``skillsite search`` ranks them.

        Skills the audit rates above ``max_risk`` are left out (they cannot be loaded).
        ``for_model``: only skills that may be offered to a model, as in :meth:`prompt` (not
        hidden, not user-invocable only); use it when the results go to a model.  A group of
        copies of one skill is one result, its canonical member at the place of its best
        member (``copies``: every copy, each at its own place).  Only the query's first 4,000
        characters are read.
        """
        return self._search.search(query, k, tags, for_model, copies)

    def search_withheld(self, query: str, k: int = 5, tags: Sequence[str] | None = None, *,
                        copies: bool = False) -> list[str]:
        """The audit risks of the skills :meth:`search` leaves out as above ``max_risk`` among the
        ``k`` best matches for ``query`` at any risk, best first (none when ``max_risk`` is
        ``high``): what a caller tells its user was withheld, and which ``max_risk`` would show
        it.  Neither their ids nor their text are given: they stay unusable."""
        return self._search.withheld(query, k, tags, copies)

    # -- content

    def verified_file(self, url: str, sha256: str, what: str) -> bytes:
        """A site file (by its site-relative URL) whose sha256 must be ``sha256``."""
        return self._files.verified(url, sha256, None, what)

    def site_file(self, path: str) -> bytes:
        """A file of the site by its path, as published, unchecked (for auditors such as
        ``skillsite verify``, which check it themselves); NotFoundError when the site has none."""
        return self._files.as_published(path)

    def raw_entry(self, skill_id: str, *, with_page: bool = False) -> dict[str, Any] | None:
        """The entry of ``skill_id`` (an id, not a name) as its JSON object, unchecked, or None when
        the catalog has no such id (a paged catalog fetches its page's index and its entry file;
        ``with_page``: its whole page, for a reader going through many entries in order)."""
        return self._source.find(skill_id, with_page=with_page)

    def entry_at(self, index: int) -> dict[str, Any] | None:
        """The entry at ``index`` of :attr:`skills` (manifest order) as its JSON object, unchecked,
        None past the last: a paged catalog fetches only the page that holds it."""
        return self._source.at(index)

    def commands(self) -> list[tuple[str, str]]:
        """(id, slash command) of each skill whose entry names one, unchecked, in manifest order (a
        paged catalog reads its indexes, not its pages: see ``docs/artifacts.md``)."""
        return self._source.commands()

    def order_key(self, skill_id: str) -> tuple[int, int | str]:
        """A sort key of an id of the catalog that puts ids in manifest order (:attr:`skills`'s), with
        nothing fetched."""
        return self._source.order_key(skill_id)

    def ids_under(self, prefix: str) -> list[str]:
        """The ids of the catalog that begin with ``prefix`` (a paged catalog reads only the indexes of
        the pages whose id range may hold one)."""
        return self._source.ids_under(prefix)

    def entry_files(self) -> list[tuple[str, str, str]]:
        """(id, site-relative URL, sha256) of every entry file of a paged catalog ([] for a whole one)."""
        return self._source.entry_files()

    def _usable(self, entry: ManifestEntry) -> ManifestEntry:
        """``entry``, unless its audit risk is above ``max_risk`` (RiskError)."""
        if not within_max_risk(entry, self.max_risk):
            raise RiskError(entry.id, entry.risk, self.max_risk)
        return entry

    def load(self, id_or_name: str, version: str | None = None) -> SkillContent:
        """Fetch and verify a skill's SKILL.md; its body, resources, sub-skills and XML fragment.

        ``version`` (an exact version or a range such as ``^1.2``) loads the highest release
        that satisfies it, from its release folder, verified against the release's file list
        (whose digest versions.json gives); without it, the current files.
        """
        entry = self._usable(self.manifest_entry(id_or_name))
        release = None if version is None else self._histories.release_for(entry, version)
        if release is None:
            raw, sha, base_rel = self._files.skill_md(entry), entry.sha256, entry.urls.files
            resources = tuple(f.path for f in entry.files)
        else:
            record = next(f for f in release.files if f.path == "SKILL.md")
            raw = self._histories.release_file(entry, release, "SKILL.md")
            sha, base_rel = record.sha256, release.url
            resources = tuple(f.path for f in release.skill_files if f.path != "SKILL.md")
        body = skill_body(raw)
        base = self._files.url(base_rel)
        subs = tuple(SubSkill(c, *self._source.summary(c)) for c in entry.children if self._source.find(c) is not None)
        docs = [(k.path, k.title, self._files.url(k.url)) for k in entry.knowledge]
        xml = skill_content_xml(entry.name, entry.id, body, base, resources, subs, docs)
        location = self._files.url(entry.urls.skill_md if release is None else release.url + "SKILL.md")
        return SkillContent(entry.id, entry.name, entry.description, body, resources, subs, xml, location, base,
                            entry.allowed_tools, sha, raw, None if release is None else release.version)

    def resource(self, skill_id: str, path: str, version: str | None = None) -> bytes:
        """A bundled file of a skill (of the release ``version`` selects, as :meth:`load`),
        verified; refuses paths that escape the skill folder."""
        entry = self._usable(self.manifest_entry(skill_id))
        clean = safe_relpath(path, "resource path")
        release = None if version is None else self._histories.release_for(entry, version)
        if release is not None:
            return self._histories.release_file(entry, release, clean)
        if clean == "SKILL.md":
            return self._files.skill_md(entry)
        record = next((f for f in entry.files if f.path == clean), None)
        if record is None:
            raise NotFoundError(f"skill {entry.id} has no bundled file {clean!r}")
        rel = entry.urls.files + url_of(clean)
        return self._files.verified(rel, record.sha256, record.bytes, f"{clean} of {entry.id}")

    # -- versions

    def versions(self, id_or_name: str) -> list[str]:
        """The skill's released versions (canonical), oldest first; [] when the catalog publishes
        no versions.json for it (fetched on first use, verified against the sha256 its entry gives)."""
        history = self._histories.of(self.manifest_entry(id_or_name).id)
        return list(history.versions) if history else []

    def releases(self, id_or_name: str) -> dict[str, Release]:
        """The skill's releases by version, as its versions.json records them ({} when none)."""
        history = self._histories.of(self.manifest_entry(id_or_name).id)
        return dict(history.releases) if history else {}

    def release_digests(self, id_or_name: str, *, exact: bool = False) -> dict[str, str]:
        """The digest (``sha256:<hex>``) of each release of a skill, by version; for a skill
        without releases, its current files' digest under its version ("" when it has none).
        ``exact``: ``id_or_name`` is an id (a lock file's), never taken for another skill's name
        (NotFoundError when the catalog has no skill of that id)."""
        if exact and self._source.find(id_or_name) is None:
            raise NotFoundError(f"no skill {id_or_name!r} in the catalog")
        return self._histories.digests(self.manifest_entry(id_or_name))

    def knowledge(self, path: str) -> bytes:
        """A knowledge document (by the path its skills' records give), verified against its
        digest; only for a skill this catalog may load (RiskError when every skill naming it is
        above ``max_risk``)."""
        return self._files.knowledge(path)

    # -- installing (skillsite.agent.install)

    def install(self, skill_id: str, dest: str | os.PathLike[str], overwrite: bool = False, *,
                children: bool = True, version: str | None = None,
                lock: str | os.PathLike[str] | None = None, follow_links: bool = False) -> Path:
        """Write the verified skill folder (and, by default, its nested sub-skills) to ``dest``,
        after the skills it depends on, each beside it; with ``lock``, record them in that lock
        file.  See :meth:`skillsite.agent.install.Installer.install`."""
        return Installer(self).install(skill_id, dest, overwrite, children=children, version=version, lock=lock,
                                       follow_links=follow_links)

    def update(self, skill_id: str, lock: str | os.PathLike[str], *, overwrite: bool = False,
               children: bool = True, follow_links: bool = False) -> list[PlannedSkill]:
        """Re-install a skill the lock file holds at the highest release its locked ranges allow;
        see :meth:`skillsite.agent.install.Installer.update`."""
        return Installer(self).update(skill_id, lock, overwrite=overwrite, children=children,
                                      follow_links=follow_links)

    # -- what a model is offered here (skillsite.agent.offers)

    def ineligible(self, id_or_name: str, env: Mapping[str, str] | None = None,
                   platform: str | None = None) -> list[str]:
        """Why a skill is not eligible here; [] when it is: its requirements (see
        :func:`ineligible_reasons`), and those of every skill it needs, down the chain."""
        return self._offers.ineligible(self.manifest_entry(id_or_name), env, platform)

    def prompt(self, budget: int = 30000, env: Mapping[str, str] | None = None, *,
               platform: str | None = None, triggers: bool = False,
               entries: Sequence[ManifestEntry] | None = None) -> str:
        """The ``<available_skills>`` block of the skills eligible here, never longer than ``budget``.

        Hidden and user-invocable-only skills are left out, ``always`` skills come first, and
        a ``<notice>`` counts the skills left out for the budget or as ineligible.  With
        ``triggers``, each entry lists its trigger phrases, keywords and verbs.  ``entries``:
        only these of the catalog's entries (a server that serves only some, such as
        ``skillsite mcp``; a skill needing one left out is ineligible); default every entry.
        """
        return self._offers.prompt(budget, env, platform, triggers, entries)

    def skill_status(self, env: Mapping[str, str] | None = None, active: Iterable[str] = (), *,
                     platform: str | None = None) -> list[SkillStatus]:
        """Every skill's state here (eligible, ineligible, hidden, user-only, copy) with its reasons,
        sorted by id; ``active`` names the skills the runtime has on (their conflicts count)."""
        return catalog_status(self.entries, env, platform, active, self.max_risk)

    def triggered(self, message: str, env: Mapping[str, str] | None = None, k: int = 5, *,
                  platform: str | None = None) -> list[SearchResult]:
        """The skills offered here whose triggers fire on a user message: most triggers fired
        first, then priority, then id; ``score`` is the number fired.  Only the patterns within
        the catalog's budget run (``skillsite.agent.triggers.MAX_CATALOG_WORK``, docs/security.md)."""
        return self._offers.triggered(message, env, k, platform)

    def command_message(self, line: str) -> str:
        """What a slash command line (``/release_manager/changelog since v1.2``) sends the model:
        the skill's Markdown body, a blank line and ``Task: ...`` (no task line without text).
        Every user-invocable skill answers to its command, user-invocable-only ones included
        (written in any case: commands are lower-case); a skill that says ``user-invocable: false``
        answers to none."""
        return self._offers.command(line)

    def skill_tool(self, style: str = "openai", env: Mapping[str, str] | None = None, budget: int = 30000, *,
                   platform: str | None = None) -> dict[str, Any]:
        """The function-calling ``skill`` tool (JSON-ready) in ``style`` ``openai``, ``anthropic`` or ``mcp``.

        Its ``skill_name`` enum holds the ids of the skills offered to the model here (eligible,
        not hidden, not user-invocable only), in prompt order; its description lists them as
        ``<available_skills>`` within ``budget`` characters, with :meth:`prompt`'s notice.
        """
        return self._offers.tool(style, env, budget, platform)

    def call_skill_tool(self, arguments: Mapping[str, Any], env: Mapping[str, str] | None = None, *,
                        platform: str | None = None) -> str:
        """The ``skill`` tool's result: the skill's ``<skill_content>``; for a name it does not
        offer, or a skill that cannot be fetched or verified, a short error text (never an exception)."""
        return self._offers.tool_result(arguments, env, platform)

    def check_tools(self, skill_id: str, available_tools: Iterable[str], mode: str = "warn") -> ToolCheck:
        """Which tools a skill needs that the runtime lacks (see :func:`skillsite.agent.tools.tool_check`).

        ``mode``: ``strict`` raises MissingToolsError, ``warn`` issues a MissingToolsWarning,
        ``ignore`` only returns the result.
        """
        return checked_tools(self.manifest_entry(skill_id), available_tools, mode)

    def session(self, policy: str = "strict") -> SkillSession:
        """A :class:`SkillSession` over this catalog."""
        return SkillSession(self, policy)


def open_catalog(source: str | os.PathLike[str], **options: Any) -> Catalog:
    """Shorthand for :meth:`Catalog.open`."""
    return Catalog.open(source, **options)
