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
import secrets
import time
import urllib.parse
import warnings
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from skillsite.agent.catalog_format import (FORMAT, FORMAT_VERSION, MANIFEST_NAME, RISKS, above, offered_to_model,
                                            prompt_order)
from skillsite.agent.commands import close_commands, command_message, split_command_line
from skillsite.agent.eligibility import current_platform, ineligible_reasons, with_dependencies
from skillsite.agent.catalog_entries import CatalogEntries
from skillsite.agent.entry import ManifestEntry, is_hex_sha256, is_size
from skillsite.agent.errors import (CatalogFormatError, DependencyError, DestinationExistsError, FetchError,
                                    HTTPStatusError, InstallError, IntegrityError, LoaderError, LoaderWarning,
                                    LockFileError, MissingToolsError, MissingToolsWarning, NotFoundError,
                                    RedirectError, RiskError, StaleCatalogWarning, TooLargeError, TrustError,
                                    UnsafePathError, UnsupportedVersionError)
from skillsite.agent.fetch import Fetcher, read_local
from skillsite.agent.install_plan import REQUEST, UNVERSIONED, Ask, Needs, PlannedSkill, label, plan_install
from skillsite.agent.installed import installed_digest
from skillsite.agent.lockfile import (Lock, LockedSkill, holds_lock, lock_path_text, read_lock, resolve_locked_path,
                                      record_installed, resolve_source, source_text)
from skillsite.agent.release_digest import release_digest
from skillsite.agent.manifest_check import parse_manifest, safe_relpath, site_relative
from skillsite.agent.prompt_xml import (MAX_LISTED_RESOURCES, available_skills_xml, one_line, skill_content_xml,
                                        skill_entry_xml, xml_attr, xml_text)
from skillsite.agent.results import SearchResult, SkillContent, SubSkill, one_per_group
from skillsite.agent.search_files import SearchFiles
from skillsite.agent.semver import RangeError, max_satisfying, parse_version, satisfies
from skillsite.agent.site_urls import url_of
from skillsite.agent.utf8 import is_utf8_text
from skillsite.agent.skill_md import frontmatter_end, skill_body
from skillsite.agent.skill_tool import not_found_text, tool_definition, tool_description, tool_parameters
from skillsite.agent.status import SkillStatus, catalog_status, ineligibility
from skillsite.agent.store import LoaderCache, default_cache_dir, write_atomically
from skillsite.agent.tools import POLICIES, Decision, SkillSession, ToolCheck, tool_check, tool_matches
from skillsite.agent.triggers import fired_triggers
from skillsite.agent.trust import SignedCatalog, TrustStore
from skillsite.agent.trust_keys import PublicKey, keys_from_environment, read_keys as read_trusted_keys
from skillsite.agent.trust_policy import check_signature, site_getter
from skillsite.agent.versions import Release, VersionsFile, parse_dependencies, parse_versions
from skillsite.folders import remove_path, rename_no_replace, replace_folder
from skillsite.paths import user_cache_root
from skillsite.search.bm25 import SEARCH_VERSION, SearchIndex, build_search_section
from skillsite.search.shard_query import Card, ShardedIndex, ShardIntegrityError
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
    "UnsupportedVersionError", "IntegrityError", "TrustError", "NotFoundError", "UnsafePathError", "DestinationExistsError",
    "InstallError", "DependencyError", "LockFileError", "Release",
    "RiskError", "DEFAULT_MAX_RISK",
    "MissingToolsError", "LoaderWarning", "StaleCatalogWarning", "MissingToolsWarning",
]

DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
DEFAULT_MAX_RISK = "medium"


def _classify_source(source: str | os.PathLike[str]) -> tuple[str, str]:
    """``("url", url)`` or ``("path", path of skills.json)``; refuses other URL schemes."""
    if isinstance(source, os.PathLike):
        text = os.fspath(source)
    else:
        text = str(source)
        try:
            scheme = urllib.parse.urlsplit(text).scheme.lower()
        except ValueError as exc:  # a malformed URL, such as "http://[::1"
            raise FetchError(f"refusing {text!r}: {exc}", text) from None
        if scheme in ("http", "https"):
            return "url", _manifest_url(text)
        if len(scheme) > 1 and "://" in text or scheme in ("file", "ftp", "data"):
            raise FetchError(f"refusing {text!r}: a catalog is an http(s) URL or a local path", text)
    path = Path(text).expanduser()
    return "path", os.path.abspath(path / MANIFEST_NAME if os.path.isdir(path) else path)  # False on any OSError


def _manifest_url(url: str) -> str:
    """The URL of the manifest a catalog URL stands for: one whose path names a ``.json`` file
    is that file; any other is the site's folder (``https://host/sub`` as ``https://host/sub/``),
    so ``skills.json`` is read in it (the query is kept, the fragment dropped)."""
    parts = urllib.parse.urlsplit(url)
    path = parts.path
    if not path.lower().endswith(".json"):
        path = path + ("" if path.endswith("/") else "/") + MANIFEST_NAME
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def _fetch_manifest(url: str, fetcher: Fetcher, cache: LoaderCache, revalidate: bool = True
                    ) -> tuple[dict[str, Any], bytes, str, str]:
    """A remote manifest, its bytes, its final URL and how it was had (fetched, not-modified,
    offline); ``revalidate`` false: fetched whole, whatever the cache holds."""
    cached = cache.read_manifest(url)
    headers: dict[str, str] = {}
    if not revalidate:
        cached = None
    if cached and cached[1].get("etag"):
        headers["If-None-Match"] = cached[1]["etag"]
    if cached and cached[1].get("last_modified"):
        headers["If-Modified-Since"] = cached[1]["last_modified"]
    try:
        response = fetcher.get(url, headers)
    except FetchError as exc:
        if cached is None or not exc.transient:
            raise
        warnings.warn(StaleCatalogWarning(f"{exc}; using the cached copy from {_age(cached[1])} ago"),
                      stacklevel=3)
        return parse_manifest(cached[0], url), cached[0], cached[1].get("final_url") or url, "offline"
    if response.status == 304:
        if cached is None:
            raise HTTPStatusError(url, 304, "Not Modified to an unconditional request")
        cache.touch_manifest(url, cached[1])
        return parse_manifest(cached[0], url), cached[0], cached[1].get("final_url") or url, "not-modified"
    manifest = parse_manifest(response.body, url)
    cache.write_manifest(url, response)
    return manifest, response.body, response.url, "fetched"


def _age(meta: dict[str, Any]) -> str:
    """How long ago a cached manifest was fetched, in words."""
    age = time.time() - float(meta.get("fetched_at", 0))
    return f"{age / 3600:.1f} h" if age >= 3600 else f"{age / 60:.0f} min" if age >= 60 else f"{age:.0f} s"


class Catalog:
    """A published skill catalog: search it, load verified skills, build the prompt block.

    Make one with :meth:`Catalog.open`.  ``status`` says where the manifest came from:
    ``local``, ``fetched``, ``not-modified`` (revalidated with a 304) or ``offline``
    (the cached copy, after a StaleCatalogWarning).  Skills the catalog's audit rates above
    ``max_risk`` are never loaded, installed, offered or found by search (:class:`RiskError`).
    """

    def __init__(self, manifest: dict[str, Any], location: str, *, remote: bool, status: str,
                 fetcher: Fetcher, cache: LoaderCache | None, max_bytes: int,
                 max_risk: str = DEFAULT_MAX_RISK) -> None:
        if max_risk not in RISKS:
            raise ValueError(f"max_risk must be one of {', '.join(RISKS)}, not {max_risk!r}")
        self.max_risk = max_risk
        self.manifest = manifest
        self.location = location            # the manifest's URL (final, after redirects) or absolute path
        self.remote = remote
        self.status = status
        self._fetcher = fetcher
        self._cache = cache
        self._max_bytes = max_bytes
        # the entries as JSON, parsed into ManifestEntry on first use (check_manifest made sure
        # each has a string id, name and description): one malformed entry spoils only its uses;
        # a paged catalog's are fetched as they are asked for
        self._source = CatalogEntries(manifest, self._fetch_verified, location)
        self._by_id = self._source.by_id    # those known so far (all of them once ``skills`` was read)
        self._index: SearchIndex | ShardedIndex | None = None
        self._entries: dict[str, ManifestEntry] = {}
        self._histories: dict[str, VersionsFile | None] = {}
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
        remote catalog this cache accepted signed must stay so (trust on first use).  A catalog
        that fails is refused with :class:`TrustError` (:mod:`skillsite.agent.trust_policy`).
        """
        if timeout <= 0 or max_bytes <= 0:
            raise ValueError("timeout and max_bytes must be positive")
        if isinstance(allowed_hosts, str):
            allowed_hosts = [allowed_hosts]
        hosts = None if allowed_hosts is None else frozenset(h.lower().strip() for h in allowed_hosts)
        fetcher = Fetcher(timeout, max_bytes, hosts)
        keys = keys_from_environment() if trusted_keys is None else read_trusted_keys(trusted_keys)
        kind, where = _classify_source(source)
        if kind == "path":
            raw = read_local(Path(where), max_bytes)
            manifest = parse_manifest(raw, where)
            catalog = cls(manifest, where, remote=False, status="local", fetcher=fetcher, cache=None,
                          max_bytes=max_bytes, max_risk=max_risk)
            if keys:
                catalog._trust(raw, TrustStore(None), keys)
            return catalog
        cache = LoaderCache(Path(cache_dir) if cache_dir is not None else default_cache_dir())
        manifest, raw, final_url, status = _fetch_manifest(where, fetcher, cache)
        catalog = cls(manifest, final_url, remote=True, status=status, fetcher=fetcher, cache=cache,
                      max_bytes=max_bytes, max_risk=max_risk)
        store = TrustStore(cache.trust_folder(where))
        try:
            catalog._trust(raw, store, keys)
        except TrustError:
            if status == "fetched":
                raise
            # the cached skills.json may predate the signed metadata (a 304 from a stale cache)
            manifest, raw, final_url, status = _fetch_manifest(where, fetcher, cache, revalidate=False)
            catalog = cls(manifest, final_url, remote=True, status=status, fetcher=fetcher, cache=cache,
                          max_bytes=max_bytes, max_risk=max_risk)
            catalog._trust(raw, store, keys)
        return catalog

    def _trust(self, raw: bytes, store: TrustStore, keys: tuple[PublicKey, ...]) -> None:
        """Check the catalog's signature as its policy asks (``self.signed``: what was accepted;
        None: an unsigned catalog read without a policy); TrustError when it fails."""
        get = site_getter(self.location, self.remote, self._fetcher, self._max_bytes)
        self.signed = check_signature(self.manifest, raw, get, store, keys, self.location)
        self._pin_all_fetches = self.signed is not None

    # -- lookup

    @property
    def skills(self) -> list[dict[str, Any]]:
        """The manifest entries as JSON objects, in manifest order (unchecked; see :attr:`entries`);
        a paged catalog fetches its pages on first use."""
        return self._source.all()

    @property
    def entries(self) -> list[ManifestEntry]:
        """The manifest entries, typed and checked, in manifest order (CatalogFormatError on a malformed one)."""
        return [self._checked(data) for data in self.skills]

    def __len__(self) -> int:
        return len(self._source)

    def __contains__(self, id_or_name: object) -> bool:
        return isinstance(id_or_name, str) and (self._source.find(id_or_name) is not None
                                                or bool(self._source.named(id_or_name)))

    def entry(self, id_or_name: str) -> dict[str, Any]:
        """The manifest entry of a skill as its JSON object, by id or else by (unique) name, once
        it is checked (:meth:`manifest_entry` gives it typed)."""
        return self._by_id[self.manifest_entry(id_or_name).id]

    def manifest_entry(self, id_or_name: str) -> ManifestEntry:
        """The manifest entry of a skill, by id or else by (unique) name; checked on first use
        (a paged catalog fetches the skill's entry file, or its indexes for a name)."""
        data = self._source.find(id_or_name)
        if data is not None:
            return self._checked(data)
        ids = self._source.named(id_or_name)
        data = self._source.find(ids[0]) if len(ids) == 1 else None
        if data is not None:
            return self._checked(data)
        if len(ids) > 1:
            raise NotFoundError(f"name {id_or_name!r} is shared by skills {', '.join(ids)}; use an id")
        raise NotFoundError(f"no skill {id_or_name!r} in the catalog")

    def _checked(self, data: dict[str, Any]) -> ManifestEntry:
        """The entry of a JSON object of the manifest, parsed and checked once (CatalogFormatError)."""
        entry = self._entries.get(data["id"])
        if entry is None:
            try:
                entry = ManifestEntry.from_json(data)
            except CatalogFormatError as exc:
                raise CatalogFormatError(f"{self.location}: {exc}") from None
            self._entries[entry.id] = entry
        return entry

    def _well_formed(self) -> list[ManifestEntry]:
        """The entries that pass their check, in manifest order (a malformed one cannot be used anyway)."""
        entries = []
        for data in self.skills:
            try:
                entries.append(self._checked(data))
            except CatalogFormatError:
                continue
        return entries

    def _summary(self, skill_id: str) -> tuple[str, str]:
        """Name and description of any entry, checked to be strings when the catalog was opened:
        search results and sub-skill lists never fail on an entry malformed elsewhere."""
        data = self._source.find(skill_id)
        if data is None:
            raise NotFoundError(f"no skill {skill_id!r} in the catalog")
        return data["name"], data["description"]

    def _url(self, rel: str) -> str:
        """Absolute URL or path of a site-relative URL (checked to stay inside the site)."""
        clean = site_relative(rel, "catalog URL")
        if self.remote:
            return urllib.parse.urljoin(self.location, url_of(clean))
        path = os.path.join(os.path.dirname(self.location), *clean.rstrip("/").split("/"))
        return path + os.sep if clean.endswith("/") else path

    def skill_location(self, id_or_name: str) -> str:
        """Absolute URL (remote catalogs) or path (local ones) of a skill's SKILL.md."""
        return self._url(self.manifest_entry(id_or_name).urls.skill_md)

    # -- search

    def search(self, query: str, k: int = 5, tags: Sequence[str] | None = None, *,
               for_model: bool = False, copies: bool = False) -> list[SearchResult]:
        """The ``k`` best skills for ``query`` (optionally only with all of ``tags``), as ``skillsite search`` ranks them.

        Skills the audit rates above ``max_risk`` are left out (they cannot be loaded).
        ``for_model``: only skills that may be offered to a model, as in :meth:`prompt` (not
        hidden, not user-invocable only); use it when the results go to a model.  A group of
        copies of one skill is one result, its canonical member at the place of its best
        member (``copies``: every copy, each at its own place).
        """
        section = self.manifest.get("search")
        if isinstance(section, dict) and "sharded" in section:
            return self._search_shards(section, query, k, tags, for_model, copies)
        if not isinstance(self._index, SearchIndex):
            try:
                self._index = SearchIndex.from_manifest({**self.manifest, "skills": self.skills})
            except (ValueError, KeyError, TypeError, IndexError) as exc:
                raise CatalogFormatError(f"{self.location}: unusable search index ({exc})") from None
        entries = {e.id: e for e in self._well_formed()}
        hidden = frozenset(i for i, e in entries.items() if for_model and not offered_to_model(e, copies_too=True))
        withheld = self._above_max_risk() | hidden
        if copies:
            hits = self._index.search(query, k=k, tags=tags, exclude=withheld)
            return [SearchResult(sid, *self._summary(sid), float(score), _group_size(entries.get(sid)))
                    for sid, score in hits]
        ranked = self._index.search(query, k=len(self._index), tags=tags, exclude=withheld)
        shown = one_per_group(ranked, {i: e.visibility.copy_of for i, e in entries.items() if e.visibility.copy_of},
                              lambda sid: sid not in withheld, k)
        return [SearchResult(sid, *self._summary(sid), float(score), _group_size(entries.get(sid))) for sid, score in shown]

    def _search_shards(self, section: dict[str, Any], query: str, k: int, tags: Sequence[str] | None,
                       for_model: bool, copies: bool) -> list[SearchResult]:
        """Search a sharded index (#29): fetch its meta file once, then only the chunks of the
        query's words and the cards of its results; cards say what to leave out, as ``search``.
        When every fetch must be pinned, each of those files is verified too (IntegrityError)."""
        def keep(card: Card) -> bool:
            offered = card.offered and (copies or card.copy_of < 0)  # a card's "offered" leaves copies aside
            return card.risk in RISKS and not above(card.risk, self.max_risk) and (offered or not for_model)
        try:
            if not isinstance(self._index, ShardedIndex) or self._index.pinned != self._pin_all_fetches:
                files = SearchFiles(self._url, self._fetcher, self._cache, self._max_bytes, remote=self.remote,
                                    offline=self.status == "offline")
                self._index = ShardedIndex.open(section, files, pinned=self._pin_all_fetches)
            hits = self._index.search(query, k=k, tags=tags, keep=keep, groups=not copies)
        except ShardIntegrityError as exc:
            raise self._mismatch(f"{self.location}: {exc}", exc.expected, exc.actual) from None
        except (ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
            raise CatalogFormatError(f"{self.location}: unusable search index ({exc})") from None
        return [SearchResult(card.id, card.name, card.description, float(score), card.copies) for card, score in hits]

    def _above_max_risk(self) -> frozenset[str]:
        """Ids of the skills the audit rates above ``max_risk``: never loaded, offered or found."""
        return frozenset(e.id for e in self._well_formed() if above(e.risk, self.max_risk))

    def _withheld_from_models(self) -> frozenset[str]:
        """Ids of the skills never offered to a model: hidden, user-invocable only, or malformed."""
        offered = {e.id for e in self._well_formed() if offered_to_model(e)}
        return frozenset(self._by_id.keys() - offered)

    # -- content

    def _fetch_verified(self, rel: str, sha: str, size: int | None, what: str) -> bytes:
        """Bytes of a site file whose sha256 must be ``sha``; IntegrityError otherwise."""
        data = self._cache.get_object(sha) if self._cache else None
        if data is not None:
            return data
        limit = self._max_bytes if size is None else min(self._max_bytes, size + 1)
        try:
            if self.remote:
                data = self._fetcher.get(self._url(rel), limit=limit).body
            else:
                data = read_local(Path(self._url(rel)), limit)
        except TooLargeError:
            if size is None or size >= self._max_bytes:
                raise
            raise self._mismatch(f"{what} is larger than the {size:,} bytes the catalog records; refusing it",
                                 sha) from None
        actual = hashlib.sha256(data).hexdigest()
        if actual != sha:
            raise self._mismatch(f"{what} does not match the catalog: sha256 is {actual}, the manifest says {sha}; "
                                 "refusing it", sha, actual)
        if self._cache:
            self._cache.put_object(sha, data)
        return data

    def verified_file(self, url: str, sha256: str, what: str) -> bytes:
        """A site file (by its site-relative URL) whose sha256 must be ``sha256``."""
        return self._fetch_verified(url, sha256, None, what)

    def site_file(self, path: str) -> bytes:
        """A file of the site by its path, as published, unchecked (for auditors such as
        ``skillsite verify``, which check it themselves); FetchError when the site has none."""
        data = site_getter(self.location, self.remote, self._fetcher, self._max_bytes)(path)
        if data is None:
            raise NotFoundError(f"{self.location}: the site has no {path}")
        return data

    def entry_files(self) -> list[tuple[str, str, str]]:
        """(id, site-relative URL, sha256) of every entry file of a paged catalog ([] for a whole one)."""
        return self._source.entry_files()

    def _mismatch(self, message: str, expected: str, actual: str = "") -> IntegrityError:
        """The error of a file that is not the one the catalog pins: a TrustError in a signed catalog."""
        if self.signed is not None:
            return TrustError(f"{message} (a file of another build, or altered)", self.location)
        return IntegrityError(message, expected, actual)

    def _skill_md(self, entry: ManifestEntry) -> bytes:
        size = entry.size.bytes if entry.size is not None else None
        return self._fetch_verified(entry.urls.skill_md, entry.sha256, size, f"SKILL.md of {entry.id}")

    def _usable(self, entry: ManifestEntry) -> ManifestEntry:
        """``entry``, unless its audit risk is above ``max_risk`` (RiskError)."""
        if above(entry.risk, self.max_risk):
            raise RiskError(entry.id, entry.risk, self.max_risk)
        return entry

    def load(self, id_or_name: str, version: str | None = None) -> SkillContent:
        """Fetch and verify a skill's SKILL.md; its body, resources, sub-skills and XML fragment.

        ``version`` (an exact version or a range such as ``^1.2``) loads the highest release
        that satisfies it, from its release folder, verified against the release's file list
        (whose digest versions.json gives); without it, the current files.
        """
        entry = self._usable(self.manifest_entry(id_or_name))
        release = None if version is None else self._release_for(entry, version)
        if release is None:
            raw, sha, base_rel = self._skill_md(entry), entry.sha256, entry.urls.files
            resources = tuple(f.path for f in entry.files)
        else:
            record = next(f for f in release.files if f.path == "SKILL.md")
            raw = self._release_file(entry, release, "SKILL.md")
            sha, base_rel = record.sha256, release.url
            resources = tuple(f.path for f in release.skill_files if f.path != "SKILL.md")
        body = skill_body(raw)
        base = self._url(base_rel)
        subs = tuple(SubSkill(c, *self._summary(c)) for c in entry.children if self._source.find(c) is not None)
        docs = [(k.path, k.title, self._url(k.url)) for k in entry.knowledge]
        xml = skill_content_xml(entry.name, entry.id, body, base, resources, subs, docs)
        location = self._url(entry.urls.skill_md if release is None else release.url + "SKILL.md")
        return SkillContent(entry.id, entry.name, entry.description, body, resources, subs, xml, location, base,
                            entry.allowed_tools, sha, raw, None if release is None else release.version)

    def resource(self, skill_id: str, path: str, version: str | None = None) -> bytes:
        """A bundled file of a skill (of the release ``version`` selects, as :meth:`load`),
        verified; refuses paths that escape the skill folder."""
        entry = self._usable(self.manifest_entry(skill_id))
        clean = safe_relpath(path, "resource path")
        release = None if version is None else self._release_for(entry, version)
        if release is not None:
            return self._release_file(entry, release, clean)
        if clean == "SKILL.md":
            return self._skill_md(entry)
        record = next((f for f in entry.files if f.path == clean), None)
        if record is None:
            raise NotFoundError(f"skill {entry.id} has no bundled file {clean!r}")
        rel = entry.urls.files + url_of(clean)
        return self._fetch_verified(rel, record.sha256, record.bytes, f"{clean} of {entry.id}")

    # -- versions

    def versions(self, id_or_name: str) -> list[str]:
        """The skill's released versions (canonical), oldest first; [] when the catalog publishes
        no versions.json for it.  That file is fetched on first use and verified against the
        sha256 its entry gives (kept in the cache by it); a catalog built before entries gave one
        has it kept in the cache and revalidated as the manifest is (read from the cache when
        the catalog is offline)."""
        history = self._history(self.manifest_entry(id_or_name).id)
        return list(history.versions) if history else []

    def releases(self, id_or_name: str) -> dict[str, Release]:
        """The skill's releases by version, as its versions.json records them ({} when none)."""
        history = self._history(self.manifest_entry(id_or_name).id)
        return dict(history.releases) if history else {}

    def release_digests(self, id_or_name: str) -> dict[str, str]:
        """The digest (``sha256:<hex>``) of each release of a skill, by version; for a skill
        without releases, its current files' digest under its version ("" when it has none)."""
        entry = self.manifest_entry(id_or_name)
        history = self._history(entry.id)
        if history is not None:
            return {v: r.digest for v, r in history.releases.items()}
        return {_canonical(entry.version) or UNVERSIONED: _current_digest(entry)}

    def _history(self, skill_id: str) -> VersionsFile | None:
        """The checked versions.json of a skill, fetched once per catalog; None when it has none."""
        if skill_id not in self._histories:
            data = self._source.find(skill_id) or {}
            url = data.get("versions_url")
            if url is None:
                self._histories[skill_id] = None
            else:
                if not isinstance(url, str):
                    raise CatalogFormatError(f"{self.location}: skill {skill_id} has a malformed versions_url")
                checked = url_of(site_relative(url, f"versions_url of {skill_id}"))
                sha, size = data.get("versions_sha256"), data.get("versions_bytes")
                if sha is None:
                    body = self._site_file(checked)
                elif is_hex_sha256(sha) and (size is None or is_size(size)):
                    body = self._fetch_verified(checked, sha, size, f"versions.json of {skill_id} ({checked})")
                else:
                    raise CatalogFormatError(f"{self.location}: skill {skill_id} has a malformed versions_sha256 "
                                             "or versions_bytes")
                self._histories[skill_id] = parse_versions(body, skill_id, self._url(checked))
        return self._histories[skill_id]

    def _site_file(self, rel: str) -> bytes:
        """A site file no digest names (a versions.json of a catalog built before entries gave
        its sha256): read from disk, or fetched, cached and revalidated as the manifest is, from
        the cache when offline.  Refused (IntegrityError) when every fetch must be pinned."""
        if self._pin_all_fetches:
            raise self._mismatch(f"{rel}: no digest in the catalog names this file, and this catalog fetches "
                                 "only files a digest pins; refusing it", "")
        files = SearchFiles(self._url, self._fetcher, self._cache, self._max_bytes, remote=self.remote,
                            offline=self.status == "offline")
        return files(rel, None)

    def _release_for(self, entry: ManifestEntry, wanted: str) -> Release | None:
        """The highest release of ``entry`` satisfying ``wanted``; None for the current files of a
        skill without releases whose version satisfies it.  NotFoundError when none does."""
        history = self._history(entry.id)
        try:
            if history is None:
                current = _canonical(entry.version)
                if wanted.strip() in ("", "*", "x", "X") or (current and satisfies(current, wanted)):
                    return None
                published = f" ({current})" if current else ""
                raise NotFoundError(f"skill {entry.id} has no release matching {wanted!r}: the catalog publishes only "
                                    f"its current version{published}")
            best = max_satisfying(history.versions, wanted)
        except RangeError as exc:
            raise NotFoundError(f"{wanted!r} is not a version or a version range ({exc})") from None
        if best is None:
            raise NotFoundError(f"no release of {entry.id} satisfies {wanted!r}; its releases: "
                                f"{', '.join(history.versions)}")
        return history.releases[best]

    def _release_file(self, entry: ManifestEntry, release: Release, path: str) -> bytes:
        """One file of a release, verified against the sha256 its file list gives."""
        record = next((f for f in release.files if f.path == path), None)
        if record is None:
            raise NotFoundError(f"release {release.version} of {entry.id} has no file {path!r}")
        rel = release.url + url_of(path)
        return self._fetch_verified(rel, record.sha256, record.size, f"{path} of {entry.id}@{release.version}")

    def _needs(self, skill_id: str) -> dict[str, Needs] | None:
        """Every release of a skill and what it needs (for :func:`plan_install`); None when the
        catalog has no such skill.  A skill without releases is its current version."""
        data = self._source.find(skill_id)
        if data is None:
            return None
        history = self._history(skill_id)
        if history is not None:
            return {v: tuple((d.id, d.range) for d in r.dependencies) for v, r in history.releases.items()}
        entry = self._checked(data)
        deps = parse_dependencies(data.get("dependencies", []), f"{self.location}: skill {skill_id}")
        return {_canonical(entry.version) or UNVERSIONED: tuple((d.id, d.range) for d in deps)}

    def knowledge(self, path: str) -> bytes:
        """A knowledge document (by the path its skills' records give), verified against its
        digest; only for a skill this catalog may load (RiskError when every skill naming it is
        above ``max_risk``)."""
        refused: RiskError | None = None
        for entry in self.entries:
            for record in entry.knowledge:
                if record.path != path:
                    continue
                try:
                    self._usable(entry)
                except RiskError as exc:
                    refused = refused or exc
                    continue
                return self._fetch_verified(record.url, record.sha256, record.size, f"knowledge document {path}")
        if refused is not None:
            raise refused
        raise NotFoundError(f"no knowledge document {path!r} in the catalog")

    def install(self, skill_id: str, dest: str | os.PathLike[str], overwrite: bool = False, *,
                children: bool = True, version: str | None = None,
                lock: str | os.PathLike[str] | None = None) -> Path:
        """Write the verified skill folder (and, by default, its nested sub-skills) to ``dest``,
        after the skills it depends on, each beside it (``dest.parent / <last part of its id>``).

        ``version`` (an exact version or a range) picks the highest release that satisfies it
        (default: the current version).  Each dependency gets the highest release satisfying
        every range asking for it (and, with ``lock``, the ranges of the skills the lock file
        already holds); :class:`DependencyError` names the ranges when none does.  Everything is
        fetched and verified first; each skill is then written into a temporary folder beside
        its own and put in place in one step, whatever other installs run at the same time.
        An existing ``dest`` is replaced only with ``overwrite=True`` (DestinationExistsError
        otherwise); an existing dependency folder is kept when it holds that release already,
        replaced when the lock says it was installed there and it is unchanged, else refused.
        With ``lock`` (the path of a ``skillsite-lock.json``), every skill installed is recorded
        in it; a release whose digest is not the one the lock records for its version is
        refused (IntegrityError).  A destination that cannot be written raises :class:`InstallError`.
        """
        entry = self.manifest_entry(skill_id)
        target = Path(os.path.abspath(dest))
        if os.path.lexists(target) and not overwrite:
            raise DestinationExistsError(f"{target} already exists; pass overwrite=True to replace it")
        wanted = version if version is not None else self._current_range(entry)
        lock_path = None if lock is None else Path(os.path.abspath(lock))
        requested = version if version is not None else _default_request(wanted)
        self._install_closure(entry.id, Ask(REQUEST, wanted), target, overwrite, children, lock_path, requested)
        return target

    def update(self, skill_id: str, lock: str | os.PathLike[str], *, overwrite: bool = False,
               children: bool = True) -> list[PlannedSkill]:
        """Re-install a skill the lock file holds (from this catalog) where the lock says, at the
        highest release its locked ranges allow: the range it was installed with and those of
        the locked skills that need it; its dependencies with it, the lock keeping its ranges.

        A release changed under a locked version is refused (IntegrityError), and so is a
        folder whose files differ from what the lock records (DestinationExistsError), unless
        ``overwrite``.  Returns what was planned, dependencies first.
        """
        lock_path = Path(os.path.abspath(lock))
        locked = read_lock(lock_path).skills.get(skill_id)
        if locked is None or not self._is_source(locked.source, lock_path):
            raise NotFoundError(f"{lock_path} holds no skill {skill_id!r} installed from {self.location}")
        target = resolve_locked_path(locked.path, lock_path)
        present = installed_digest(target)
        if os.path.lexists(target) and present != locked.digest and not overwrite:
            raise DestinationExistsError(f"{target} has local changes (its files are not those {lock_path} records "
                                         f"for {skill_id}); pass overwrite=True to replace them")
        ask = Ask(REQUEST if locked.requested else f"{lock_path.name}", locked.requested or "*")
        return self._install_closure(skill_id, ask, target, overwrite, children, lock_path, locked.requested,
                                     replace_root=True)

    def _current_range(self, entry: ManifestEntry) -> str:
        """The range that stands for "the current version": the latest release, exactly, or any."""
        history = self._history(entry.id)
        return history.latest if history is not None else "*"

    def _install_closure(self, skill_id: str, ask: Ask, target: Path, overwrite: bool, children: bool,
                         lock_path: Path | None, requested: str | None, *,
                         replace_root: bool = False) -> list[PlannedSkill]:
        """Install ``skill_id`` at ``target`` and its dependencies beside it, recording them in the lock."""
        lock = read_lock(lock_path) if lock_path is not None else Lock()
        ours = {sid: locked for sid, locked in lock.skills.items() if self._is_source(locked.source, lock_path)}
        others = {sid: (label(sid, locked.version or UNVERSIONED), tuple(locked.dependencies.items()))
                  for sid, locked in ours.items()}
        plan = plan_install([(skill_id, ask)], self._needs, others)
        targets = self._targets(plan, skill_id, target, ours, lock_path)
        for planned in plan:
            if lock_path is not None and holds_lock(targets[planned.id], lock_path):
                raise UnsafePathError(f"{targets[planned.id]} holds the lock file {lock_path}: installing "
                                      f"{planned.id} there would replace it and everything beside it")
            if lock_path is not None and not is_utf8_text(lock_path_text(targets[planned.id], lock_path)):
                raise UnsafePathError(f"{targets[planned.id]!r} is not UTF-8 text: it cannot be recorded in the lock "
                                      "file")
            if lock_path is not None and not is_utf8_text(planned.id):
                raise CatalogFormatError(f"{self.location}: skill id {planned.id!r} is not UTF-8 text: it cannot be "
                                         "recorded in the lock file")
        for planned in plan:
            self._check_locked_digest(planned.id, ours.get(planned.id), lock_path)
        fetched = {p.id: self._planned_files(p, children) for p in plan}
        actions = {p.id: self._placement(p, targets[p.id], fetched[p.id][1], overwrite, ours.get(p.id), lock_path,
                                         root=p.id == skill_id, replace_root=replace_root) for p in plan}
        source = source_text(self.location, self.remote, lock_path) if lock_path is not None else self.location
        if lock_path is not None and not is_utf8_text(source):
            raise UnsafePathError(f"{source!r} is not UTF-8 text: it cannot be recorded in the lock file")
        for planned in plan:
            files, digest = fetched[planned.id]
            if actions[planned.id] != "keep":
                self._put_dependency_or_root(planned.id == skill_id, planned.id, targets[planned.id], files, digest,
                                             replace=actions[planned.id] == "replace")
            if lock_path is not None:
                path = lock_path_text(targets[planned.id], lock_path)
                locked = LockedSkill(source, planned.version or None, digest, path, dict(planned.dependencies),
                                     requested if planned.id == skill_id else None)
                record_installed(lock_path, planned.id, locked)
        return plan

    def _is_source(self, text: str, lock_path: Path | None) -> bool:
        """Whether a lock's ``source`` names this catalog."""
        return lock_path is not None and resolve_source(text, lock_path) == self.location

    def _targets(self, plan: list[PlannedSkill], root: str, target: Path, locked: Mapping[str, LockedSkill],
                 lock_path: Path | None) -> dict[str, Path]:
        """Where each planned skill goes: the root at ``target``, a dependency where the lock
        has it, else beside the root; DependencyError when two would share a folder."""
        out: dict[str, Path] = {}
        for planned in plan:
            if planned.id == root:
                where = target
            elif planned.id in locked and lock_path is not None:
                where = resolve_locked_path(locked[planned.id].path, lock_path)
            else:
                where = target.parent / safe_relpath(planned.id, "skill id").rsplit("/", 1)[-1]
            clash = next((sid for sid, path in out.items() if path == where), None)
            if clash is not None:
                raise DependencyError(f"{clash} and {planned.id} would both be installed into {where}", planned.id)
            out[planned.id] = where
        return out

    def _planned_files(self, planned: PlannedSkill, children: bool) -> tuple[dict[str, bytes], str]:
        """The verified files of a planned skill and their digest: its release's files, or the
        current ones for a skill without releases; nested sub-skills with the current version."""
        entry = self.manifest_entry(planned.id)
        history = self._history(entry.id)
        if history is None:
            return self._install_files(entry, children), _current_digest(entry)
        self._usable(entry)
        release = history.releases[planned.version]
        nested = self._nested_plan(entry) if children and planned.version == history.latest else []
        clash = _path_clash([f.path for f in release.skill_files] + [rel for rel, _, _ in nested])
        if clash:  # before anything is fetched: a listing that cannot be installed is refused as it is
            raise CatalogFormatError(f"{self.location}: release {planned.label} has files that clash when installed: "
                                     f"{clash}")
        files = {f.path: self._release_file(entry, release, f.path) for f in release.skill_files}
        files.update((rel, self.resource(sid, path)) for rel, sid, path in nested)
        return files, release.digest

    def _check_locked_digest(self, skill_id: str, locked: LockedSkill | None, lock_path: Path | None) -> None:
        """Refuse a skill whose locked version the catalog now publishes with another digest:
        a release changed under the same version is tampered (IntegrityError)."""
        if locked is None or not locked.version:
            return
        published = self.release_digests(skill_id).get(locked.version)
        if published is not None and published != locked.digest:
            raise IntegrityError(f"{skill_id}@{locked.version} is tampered: the catalog gives it the digest "
                                 f"{published}, but {lock_path} records {locked.digest} for that version; refusing it",
                                 locked.digest, published)

    @staticmethod
    def _placement(planned: PlannedSkill, target: Path, digest: str, overwrite: bool, locked: LockedSkill | None,
                   lock_path: Path | None, *, root: bool, replace_root: bool) -> str:
        """What to do at ``target``: ``new`` (nothing there), ``replace`` or ``keep`` (it holds the
        planned release already); DestinationExistsError when it holds something else that may
        not be replaced.  The root's folder was checked by the caller (install, update)."""
        if root and not replace_root:
            return "replace" if overwrite else "new"  # install() refused an existing dest unless overwrite
        if not os.path.lexists(target):
            return "replace" if root and overwrite else "new"
        present = installed_digest(target)
        if present == digest:
            return "keep"
        ours = (locked is not None and lock_path is not None and present == locked.digest
                and resolve_locked_path(locked.path, lock_path) == target)
        if overwrite or ours or root:
            return "replace"
        raise DestinationExistsError(f"{target} already exists and does not hold {planned.label}, the dependency "
                                     "to install there; pass overwrite=True to replace it")

    def _put_dependency_or_root(self, root: bool, skill_id: str, target: Path, files: dict[str, bytes], digest: str,
                                *, replace: bool) -> None:
        """Put a planned skill in place; a dependency another install put there first, with the
        same release, is left as it is."""
        try:
            self._put_folder(skill_id, target, files, overwrite=replace)
        except DestinationExistsError:
            if root or installed_digest(target) != digest:
                raise

    def _put_folder(self, skill_id: str, target: Path, files: dict[str, bytes], *, overwrite: bool) -> None:
        """Write ``files`` into a new folder beside ``target`` and put it in place in one step."""
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            staging = _new_folder(target.parent, f".{target.name}.tmp-")
        except OSError as exc:
            raise _install_error(skill_id, target, exc) from exc
        try:
            _write_tree(staging, files, target)
            _swap_in(staging, target, overwrite)
        except LoaderError:
            raise
        except OSError as exc:
            raise _install_error(skill_id, target, exc) from exc
        finally:
            remove_path(staging)  # after a swap it holds what ``target`` held before

    def _install_files(self, entry: ManifestEntry, children: bool) -> dict[str, bytes]:
        """Relative path -> verified bytes of everything ``install`` writes; the paths are checked
        not to clash before anything is fetched (CatalogFormatError)."""
        plan = self._install_plan(entry, children)
        clash = _path_clash([rel for rel, _, _ in plan])
        if clash:
            raise CatalogFormatError(f"{self.location}: skill {entry.id} has files that clash when installed: "
                                     f"{clash}")
        return {rel: self.resource(skill_id, path) for rel, skill_id, path in plan}

    def _install_plan(self, entry: ManifestEntry, children: bool) -> list[tuple[str, str, str]]:
        """(path written, skill id, path in that skill) of every file ``install`` writes; each
        nested skill is checked, like ``entry``, before it is used."""
        self._usable(entry)
        plan = [("SKILL.md", entry.id, "SKILL.md")]
        plan += [(safe_relpath(r.path, "bundled file"), entry.id, r.path) for r in entry.files]
        return plan + (self._nested_plan(entry) if children else [])

    def _nested_plan(self, entry: ManifestEntry) -> list[tuple[str, str, str]]:
        """The :meth:`_install_plan` rows of the nested sub-skills of ``entry`` (current files)."""
        plan = []
        for child_id in entry.children:
            data = self._source.find(child_id) if child_id.startswith(entry.id + "/") else None
            if data is None:
                continue
            prefix = safe_relpath(child_id[len(entry.id) + 1:], "sub-skill folder")
            child = self._checked(data)
            plan += [(f"{prefix}/{rel}", sid, path) for rel, sid, path in self._install_plan(child, True)]
        return plan

    # -- prompt and tools

    def ineligible(self, id_or_name: str, env: Mapping[str, str] | None = None,
                   platform: str | None = None) -> list[str]:
        """Why a skill is not eligible here; [] when it is: its requirements (see
        :func:`ineligible_reasons`), and those of every skill it needs, down the chain."""
        entry = self.manifest_entry(id_or_name)
        needed = self._needed(entry)
        which: dict[str, bool] = {}
        own = {e.id: ineligible_reasons(e, env, platform, which) for e in needed}
        return with_dependencies(needed, own)[entry.id]

    def _needed(self, entry: ManifestEntry) -> list[ManifestEntry]:
        """``entry`` and every skill it needs, directly or not, that the catalog has (each once)."""
        found = {entry.id: entry}
        todo = [entry]
        while todo:
            for dep in todo.pop().dependencies:
                if dep.id not in found and (data := self._source.find(dep.id)) is not None:
                    found[dep.id] = self._checked(data)
                    todo.append(found[dep.id])
        return list(found.values())

    def prompt(self, budget: int = 30000, env: Mapping[str, str] | None = None, *,
               platform: str | None = None, triggers: bool = False) -> str:
        """The ``<available_skills>`` block of the skills eligible here, never longer than ``budget``.

        Hidden and user-invocable-only skills are left out, ``always`` skills come first, and
        a ``<notice>`` counts the skills left out for the budget or as ineligible.  With
        ``triggers``, each entry lists its trigger phrases, keywords and verbs.
        """
        if budget < len("<available_skills>\n</available_skills>\n"):
            raise ValueError(f"a budget of {budget} characters cannot hold an <available_skills> block")
        eligible, excluded = self._offered(env, platform)
        locations = [self._url(e.urls.skill_md) for e in eligible]
        return available_skills_xml(eligible, locations, budget, excluded=excluded, triggers=triggers)

    def _offered(self, env: Mapping[str, str] | None, platform: str | None,
                 active: Iterable[str] = ()) -> tuple[list[ManifestEntry], int]:
        """The skills offered to a model here, in prompt order, and how many more are ineligible
        (requirements unmet, or kept off by a conflicting skill that is on)."""
        entries = self.entries
        blocked = ineligibility(entries, env, platform, active, self.max_risk)
        shown = prompt_order(entries)
        eligible = [e for e in shown if not blocked[e.id]]
        return eligible, len(shown) - len(eligible)

    def skill_status(self, env: Mapping[str, str] | None = None, active: Iterable[str] = (), *,
                     platform: str | None = None) -> list[SkillStatus]:
        """Every skill's state here (eligible, ineligible, hidden, user-only) with its reasons,
        sorted by id; ``active`` names the skills the runtime has on (their conflicts count)."""
        return catalog_status(self.entries, env, platform, active, self.max_risk)

    def triggered(self, message: str, env: Mapping[str, str] | None = None, k: int = 5, *,
                  platform: str | None = None) -> list[SearchResult]:
        """The skills offered here whose triggers fire on a user message: most triggers fired
        first, then priority, then id; ``score`` is the number fired."""
        hits = []
        for entry in self._offered(env, platform)[0]:
            fired = fired_triggers(entry.triggers.to_json(), message) if entry.triggers is not None else []
            if fired:
                hits.append((-len(fired), -entry.priority, entry.id, entry))
        return [SearchResult(e.id, e.name, e.description, float(-count))
                for count, _, _, e in sorted(hits, key=lambda h: h[:3])[:max(0, k)]]

    def command_message(self, line: str) -> str:
        """What a slash command line (``/release_manager/changelog since v1.2``) sends the model:
        the skill's Markdown body, a blank line and ``Task: ...`` (no task line without text).
        Every user-invocable skill answers to its command, user-invocable-only ones included;
        a skill that says ``user-invocable: false`` answers to none."""
        command, task = split_command_line(line)
        entries = self._well_formed()
        by_command = {e.slash_command: e for e in entries if e.slash_command is not None}
        entry = by_command.get(command)
        if entry is None:
            refused = next((e for e in entries if e.command == command and e.slash_command is None), None)
            if refused is not None:  # a catalog built before user-invocable: false removed its command
                raise NotFoundError(f"no skill answers to /{command}: skill {refused.id} has no slash command "
                                    "(user-invocable: false)")
            close = close_commands(command, sorted(by_command))
            hint = f"; did you mean {', '.join('/' + c for c in close)}?" if close else ""
            raise NotFoundError(f"no skill answers to /{command}{hint}")
        return command_message(self.load(entry.id).body, task)

    def skill_tool(self, style: str = "openai", env: Mapping[str, str] | None = None, budget: int = 30000, *,
                   platform: str | None = None) -> dict[str, Any]:
        """The function-calling ``skill`` tool (JSON-ready) in ``style`` ``openai``, ``anthropic`` or ``mcp``.

        Its ``skill_name`` enum holds the ids of the skills offered to the model here (eligible,
        not hidden, not user-invocable only), in prompt order; its description lists them as
        ``<available_skills>`` within ``budget`` characters, with :meth:`prompt`'s notice.
        """
        offered, excluded = self._offered(env, platform)
        locations = [self._url(e.urls.skill_md) for e in offered]
        description = tool_description(offered, locations, budget, excluded)
        return tool_definition(style, description, tool_parameters([e.id for e in offered]))

    def call_skill_tool(self, arguments: Mapping[str, Any], env: Mapping[str, str] | None = None, *,
                        platform: str | None = None) -> str:
        """The ``skill`` tool's result: the skill's ``<skill_content>``; for a name it does not
        offer, or a skill that cannot be fetched or verified, a short error text (never an exception)."""
        name = arguments.get("skill_name") if isinstance(arguments, Mapping) else None
        if not isinstance(name, str) or not name:
            return "Error: the skill tool needs a skill_name (a string, one of the names in its description)."
        version = arguments.get("version")
        if version is not None and not isinstance(version, str):
            return "Error: the skill tool's version is a string: a version ('1.2.0') or a range ('^1.2')."
        try:
            offered_ids = [e.id for e in self._offered(env, platform)[0]]
        except LoaderError as exc:
            return f"Error: the skill catalog cannot be used: {exc}"
        try:
            skill_id = self.manifest_entry(name).id
        except LoaderError:
            return not_found_text(name, offered_ids)
        if skill_id not in offered_ids:
            status = next(s for s in self.skill_status(env, platform=platform) if s.id == skill_id)
            reasons = status.reasons or ["it is not offered to models"]
            return f"Error: skill {name!r} is not available here: {'; '.join(reasons)}."
        try:
            return self.load(skill_id, version or None).xml
        except LoaderError as exc:
            return f"Error: skill {name!r} could not be loaded: {exc}"

    def check_tools(self, skill_id: str, available_tools: Iterable[str], mode: str = "warn") -> ToolCheck:
        """Which tools a skill needs that the runtime lacks (see :func:`skillsite.agent.tools.tool_check`).

        ``mode``: ``strict`` raises MissingToolsError, ``warn`` issues a MissingToolsWarning,
        ``ignore`` only returns the result.
        """
        if mode not in ("strict", "warn", "ignore"):
            raise ValueError(f"mode must be strict, warn or ignore, not {mode!r}")
        check = tool_check(self.manifest_entry(skill_id), available_tools)
        if check.missing and mode != "ignore":
            message = f"skill {check.skill_id} needs tools this runtime lacks: {', '.join(check.missing)}"
            if mode == "strict":
                raise MissingToolsError(message, check)
            warnings.warn(MissingToolsWarning(message), stacklevel=2)
        return check

    def session(self, policy: str = "strict") -> SkillSession:
        """A :class:`SkillSession` over this catalog."""
        return SkillSession(self, policy)


def _canonical(version: str | None) -> str | None:
    """A manifest's version as written, made canonical; None when it is no semantic version."""
    parsed = parse_version(version) if version else None
    return None if parsed is None else str(parsed)


def _current_digest(entry: ManifestEntry) -> str:
    """The release digest of a skill's current files (SKILL.md and its bundled files)."""
    return release_digest([("SKILL.md", entry.sha256)] + [(f.path, f.sha256) for f in entry.files])


def _default_request(wanted: str) -> str:
    """The range a lock records for a skill installed without one: ``^`` the version installed
    (as npm records ``npm install x``), any for a skill without releases."""
    return f"^{wanted}" if parse_version(wanted) is not None else "*"


def _new_folder(parent: Path, prefix: str) -> Path:
    """A new empty folder in ``parent`` with a random name, made as ``mkdir`` makes folders (the
    umask decides who may read it: ``mkdtemp``'s is private, and an installed skill is not)."""
    for _ in range(100):
        folder = parent / f"{prefix}{secrets.token_hex(6)}"
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        return folder
    raise FileExistsError(f"no free temporary name in {parent}")


def _path_clash(paths: Sequence[str]) -> str | None:
    """How two of ``paths`` clash (one path twice, or a file where another needs a folder), or None."""
    seen: set[str] = set()
    for path in paths:
        if path in seen:
            return f"{path!r} is listed twice"
        seen.add(path)
    for path in paths:
        parts = path.split("/")
        folder = next((f for f in ("/".join(parts[:i]) for i in range(1, len(parts))) if f in seen), None)
        if folder is not None:
            return f"{path!r} clashes with {folder!r}"
    return None


def _write_tree(folder: Path, files: dict[str, bytes], target: Path) -> None:
    """Write ``files`` (relative path -> bytes) under ``folder``, never outside it and never one
    over another: paths that differ only in case are one file on some file systems."""
    real_folder = os.path.realpath(folder)
    for rel, data in files.items():
        out = folder.joinpath(*rel.split("/"))
        if os.path.commonpath([os.path.realpath(out.parent), real_folder]) != real_folder:
            raise UnsafePathError(f"{rel!r} would be written outside {target}")
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            with open(out, "xb") as handle:
                handle.write(data)
        except (FileExistsError, NotADirectoryError, IsADirectoryError):
            raise UnsafePathError(f"{rel!r} clashes with another file written to {target}") from None


def _swap_in(staging: Path, target: Path, overwrite: bool) -> None:
    """Put ``staging`` at ``target`` in one step; an existing target is replaced only when allowed."""
    if not overwrite:
        try:
            rename_no_replace(staging, target)
        except FileExistsError:
            raise DestinationExistsError(f"{target} already exists; pass overwrite=True to replace it") from None
        return
    previous = replace_folder(staging, target)
    if previous is not None and previous != staging:
        remove_path(previous)


def _install_error(skill_id: str, target: Path, exc: OSError) -> InstallError:
    """The loader's own error for a destination the machine would not let ``install`` write."""
    path = exc.filename or str(target)
    return InstallError(exc.errno, f"cannot install {skill_id} into {target}: {path}: {exc.strerror or exc}", path)


def _group_size(entry: ManifestEntry | None) -> int:
    """How many skills a search result stands for: its group of copies, else itself."""
    return entry.copies.count if entry is not None and entry.copies is not None else 1


def open_catalog(source: str | os.PathLike[str], **options: Any) -> Catalog:
    """Shorthand for :meth:`Catalog.open`."""
    return Catalog.open(source, **options)
