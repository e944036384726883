"""Publishing each skill: its files, manifest entry, XML fragments, discovery archive and
rendered body, on every core; then what depends on all of them: the catalog's XML block,
the discovery index, the search indexes.

The build (:mod:`skillsite.build`) calls these in order; a worker process publishes one
skill at a time and reports what it placed, so the output never depends on the number of
processes.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple, Sequence

from skillsite import __version__
from skillsite.cache import BuildCache, digest
from skillsite.config import SiteConfig
from skillsite.diagnostics import Diagnostic, Severity, make
from skillsite.agent.catalog_format import prompt_order
from skillsite.agent.prompt_xml import available_skills_xml, skill_content_xml, skill_entry_xml
from skillsite.manifest import (ENTRY_FILE, RESERVED_NAMES, XML_FILE, absolute, sha256_hex, skill_dir_url,
                                skill_entry)
from skillsite.models import Skill
from skillsite.output import Staging
from skillsite.parallel import parallel_map_beside
from skillsite.wellknown import (ARCHIVE_DIR, INDEX_PATH, deterministic_tar_gz, discovery_entry, fits_ustar,
                                 index_document, listable)

__all__ = ["publish_skills", "Publication", "write_catalog_xml", "discovery_index", "write_discovery_index",
           "search_entry", "search_key",
           "build_search", "write_search", "AVAILABLE_SKILLS_FILE"]

AVAILABLE_SKILLS_FILE = "available_skills.xml"


def _children(skills: Sequence[Skill]) -> dict[str, list[str]]:
    published = {s.id for s in skills}
    children: dict[str, list[str]] = {s.id: [] for s in skills}
    for s in skills:
        if s.parent_id in published:
            children[s.parent_id].append(s.id)
    return children


# A bundled file's sha256 as found by a worker, for the parent's cache: (path, size, mtime_ns, sha).
_FileSha = tuple[str, int, int, str]


def _publish_files(skill: Skill, raw_sha: str, staging: Staging, diags: list[Diagnostic], cache: BuildCache | None
                   ) -> tuple[list[dict[str, Any]], list[_FileSha], dict[str, bytes]]:
    """Copy a skill's SKILL.md (whose sha256 is ``raw_sha``) and bundled files under ``skills/<id>/``.

    Returns the bundled files' records, their shas for the cache, and the content of the
    files copied (up to 1 MiB each; for the skill's archive).

    A file whose content the cache knows (same path, size and modification time) and
    whose previous published copy is intact is kept from the previous output (see :meth:`Staging.reuse`).
    """
    folder = f"skills/{skill.id}/"
    if not staging.reuse(folder + "SKILL.md", raw_sha):
        staging.write_bytes(folder + "SKILL.md", skill.raw, key=raw_sha)
    records, shas, contents = [], [], {}
    for f in skill.source.files:
        if f.path in RESERVED_NAMES:
            diags.append(make("SK009", f"bundled file '{f.path}' has a name the catalog uses for its own "
                                       "pages; not published", skill.source.display_path))
            continue
        rel = folder + f.path
        try:
            # size and time as discovery saw them: a known file's previous copy is kept as it was then
            stamp = (f.bytes, f.mtime_ns)
            known = cache.file_sha(f.abspath, *stamp) if cache else None
            if known and staging.reuse(rel, known):
                size, sha = f.bytes, known
            else:  # recorded with the stamp discovery saw before copying: a later change is never this one
                size, sha, content = staging.copy_hashing(f.abspath, rel)
                if content is not None:
                    contents[f.path] = content
        except OSError as exc:
            diags.append(make("SK006", f"cannot read bundled file '{f.path}': {exc.strerror or exc}",
                              skill.source.display_path))
            continue
        shas.append((str(f.abspath), *stamp, sha))
        records.append({"path": f.path, "bytes": size, "sha256": sha})
    return records, shas, contents


def _write_xml(skill: Skill, entry: dict[str, Any], subs: list[tuple[str, str, str]], config: SiteConfig,
               staging: Staging) -> None:
    """A skill's ``<skill_content>`` fragment and its tier-1 ``<skill>`` entry.

    Each fragment is keyed by everything it is made of, so an unchanged one is reused.
    """
    page_url = absolute(config, entry["urls"]["page"])
    files = [f["path"] for f in entry["files"]]
    staging.write_keyed(
        f"skills/{skill.id}/{XML_FILE}", digest(XML_FILE, skill.name, skill.id, entry["digest"], page_url, subs),
        lambda: skill_content_xml(skill.name, skill.id, skill.body, page_url, files, subs).encode("utf-8"))
    md_url = absolute(config, entry["urls"]["skill_md"])
    staging.write_keyed(
        f"skills/{skill.id}/{ENTRY_FILE}", digest(ENTRY_FILE, skill.name, skill.description, md_url),
        lambda: skill_entry_xml(skill.name, skill.description, md_url).encode("utf-8"))


def write_catalog_xml(entries: Sequence[dict[str, Any]], config: SiteConfig, staging: Staging) -> None:
    """``available_skills.xml``: the catalog block of every published skill, in prompt order."""
    ordered = prompt_order(entries)
    staging.write_text(AVAILABLE_SKILLS_FILE, available_skills_xml(
        ordered, [absolute(config, e["urls"]["skill_md"]) for e in ordered], config.prompt_budget))


@dataclass
class _Publishing:
    """What publishing one skill needs; set before workers fork, so each inherits it."""

    skills: Sequence[Skill]
    staging: Staging
    config: SiteConfig
    base_dir: str
    children: dict[str, list[str]]
    render_context: str               # what every rendered body depends on (see keys)
    cache: BuildCache | None
    archive_names: list[str | None]   # per skill: the discovery archive it owns (None: none)
    mtime: int                        # of archive members (SOURCE_DATE_EPOCH)
    targets: Any                      # skillsite.render.LinkTargets: what bodies may link to
    # per skill, :meth:`keys` made up front when the cache may hold some (else each is made by
    # the process publishing the skill)
    made_keys: list[tuple[str, str, str]] = field(default_factory=list)
    renderer: Any = None   # skillsite.render.MarkdownRenderer, made on first use

    def keys(self, index: int) -> tuple[str, str, str]:
        """Skill ``index``'s rendered body's cache key, its SKILL.md's sha256, and its unit key
        (everything its publishing depends on)."""
        if self.made_keys:
            return self.made_keys[index]
        skill = self.skills[index]
        html_key, raw_sha = digest(self.render_context, skill.id, skill.body), sha256_hex(skill.raw)
        return html_key, raw_sha, _unit_key(self, index, html_key, raw_sha)

    def subs(self, skill_id: str) -> list[tuple[str, str, str]]:
        """The sub-skills of a skill as (id, name, description)."""
        children = self.children[skill_id]
        if not children:
            return []
        by_id = {s.id: s for s in self.skills if s.id in children}
        return [(c, by_id[c].name, by_id[c].description) for c in children]


@dataclass(frozen=True)
class _Published:
    """One published skill, as a worker reports it to the parent."""

    entry: dict[str, Any]
    html_key: str
    unit_key: str
    html: str | None                                   # None: the cache holds it (under the skill's html key)
    diagnostics: list[Diagnostic]
    placed: list[tuple[str, str, tuple[int, int] | None]]   # what it wrote or kept (Staging.adopt)
    file_shas: list[_FileSha]
    archive_sha: str | None           # sha256 of the archive it made (None: none made, or one kept)
    kept: bool = False                # published as the cache's unit says (its entry carried over already)


_PUBLISHING: _Publishing | None = None


def _render_one(skill: Skill) -> str:
    """The HTML of one skill's body."""
    assert _PUBLISHING is not None
    if _PUBLISHING.renderer is None:
        from skillsite.render import MarkdownRenderer

        _PUBLISHING.renderer = MarkdownRenderer(_PUBLISHING.targets)
    return _PUBLISHING.renderer.render(skill.body, skill.id)


def _publish_one(index: int) -> _Published:
    """Everything of skill ``index`` that depends on it alone: its files, manifest entry, XML
    fragments and rendered body (in a worker process, or here)."""
    job = _PUBLISHING
    assert job is not None
    skill = job.skills[index]
    html_key, raw_sha, unit_key = job.keys(index)
    unit = job.cache.get("units", unit_key) if job.cache else None
    if unit is not None and (kept := _keep_unit(unit, html_key, unit_key, job.staging)) is not None:
        return kept
    diags: list[Diagnostic] = []
    with job.staging.recording() as placed:
        files, shas, contents = _publish_files(skill, raw_sha, job.staging, diags, job.cache)
        entry = skill_entry(skill, files, raw_sha, job.children[skill.id], job.config, job.base_dir)
        _write_xml(skill, entry, job.subs(skill.id), job.config, job.staging)
        archive_sha = _write_archive(skill, entry, contents, job.archive_names[index], job.mtime, job.staging)
    cached = job.cache.get("html", html_key) is not None if job.cache else False
    html = None if cached else _render_one(skill)
    return _Published(entry, html_key, unit_key, html, diags, placed, shas, archive_sha)


# What publishing a skill placed, kept by the cache under the skill's unit key: its manifest
# entry, (site path, content key) of every file it wrote or kept, and its bundled files' shas.
_Unit = tuple[dict[str, Any], list[tuple[str, str]], list[_FileSha]]


def _keep_unit(unit: _Unit, html_key: str, unit_key: str, staging: Staging) -> _Published | None:
    """A skill whose every input is as when it was last published: its files are kept from the
    previous output, if every one of them is still there as published (else None)."""
    entry, files, shas = unit
    with staging.recording() as placed:
        if not all(staging.reuse(rel, key) for rel, key in files):
            return None
    return _Published(entry, html_key, unit_key, None, [], placed, shas, None, kept=True)


def _unit_key(job: _Publishing, index: int, html_key: str, raw_sha: str) -> str:
    """Everything a skill's publishing depends on (besides skillsite and the configuration,
    which scope the whole cache): its SKILL.md, place, diagnostics, bundled files' stamps,
    rendered body, sub-skills, the project folder, archive time and name."""
    skill, src = job.skills[index], job.skills[index].source
    return digest(html_key, raw_sha, skill.id, src.display_path, src.rel_path,
                  str(src.root), str(src.dir), skill.parent_id, [(f.path, f.abspath, f.bytes, f.mtime_ns)
                                                                 for f in src.files],
                  skill.diagnostics, job.subs(skill.id), job.base_dir, job.mtime, job.archive_names[index])


def _archive_names(skills: Sequence[Skill]) -> list[str | None]:
    """Per skill, the name of the discovery archive it would own: installers accept only
    specification names, and the first skill with a name takes it (see write_discovery_index)."""
    names: set[str] = set()
    owned: list[str | None] = []
    for skill in skills:
        name = skill.name if listable({"name": skill.name, "description": skill.description}) else None
        owned.append(name if name is not None and name not in names else None)
        if name is not None:
            names.add(name)
    return owned


def _archive_path(name: str) -> str:
    return f"{ARCHIVE_DIR}/{name}.tar.gz"


def _write_archive(skill: Skill, entry: dict[str, Any], contents: dict[str, bytes], name: str | None, mtime: int,
                   staging: Staging) -> str | None:
    """The skill's discovery archive when it owns one and has bundled files (every path fitting
    a tar header): kept from the previous output if unchanged, else made (from ``contents``, the
    files just copied, or their published copies); the sha256 of a made one."""
    if name is None or not entry["files"] or not all(fits_ustar(f["path"]) for f in entry["files"]):
        return None
    rel, key = _archive_path(name), digest("archive", entry["digest"], mtime)
    if staging.reuse(rel, key):
        return None
    folder = f"skills/{entry['id']}/"
    members: list[tuple[str, str | bytes]] = [("SKILL.md", skill.raw)] + [
        (f["path"], contents.get(f["path"]) or staging.current(folder + f["path"])) for f in entry["files"]]
    data = deterministic_tar_gz(members, mtime)
    staging.write_bytes(rel, data, key=key)
    return sha256_hex(data)


def _link_targets(skills: Sequence[Skill]) -> Any:
    """What bodies may link to: every published skill and its bundled files (reserved names aside)."""
    from skillsite.render import LinkTargets

    return LinkTargets(frozenset(s.id for s in skills),
                       frozenset(f"{s.id}/{f.path}" for s in skills for f in s.source.files
                                 if f.path not in RESERVED_NAMES))


class Publication(NamedTuple):
    """What :func:`publish_skills` gives."""

    entries: list[dict[str, Any]]   # in the skills' order
    html: dict[str, str]            # rendered bodies by skill id
    archives: dict[str, str]        # sha256 of the archives made, by site path
    diagnostics: list[Diagnostic]
    keys: dict[str, str]            # by skill id: a digest of everything its publishing depended on
    also: Any = None                # what the ``also`` function returned


def publish_skills(skills: Sequence[Skill], staging: Staging, config: SiteConfig, base_dir: str, mtime: int,
                   jobs: int, cache: BuildCache | None, also: Callable[[], Any] | None = None) -> Publication:
    """Every skill's files, manifest entry, XML fragments, discovery archive and rendered body,
    on every core; and ``also()``, a piece of work of its own, taken by whichever process is
    free first (the search indexes: in a process of their own they were left to finish alone).

    A skill whose rendered body the cache holds is published here: it has little left to do
    (its unchanged files are kept), and a worker would only send the cached HTML back.  The
    keys that tell are made up front then; with no rendered body cached, each skill's keys are
    made by the process that publishes it.
    """
    global _PUBLISHING
    from skillsite.render import engine_version

    targets = _link_targets(skills)
    context = digest(__version__, engine_version(), sorted(targets.skills), sorted(targets.files))
    job = _PUBLISHING = _Publishing(skills, staging, config, base_dir, _children(skills), context, cache,
                                    _archive_names(skills), mtime, targets)
    known = [False] * len(skills)
    if cache and cache.holds("html"):
        job.made_keys = [job.keys(i) for i in range(len(skills))]
        known = [cache.old["html"].get(html_key) is not None for html_key, _, _ in job.made_keys]
    try:
        heavy = [i for i in range(len(skills)) if not known[i]]
        results: list[_Published | None] = [None] * len(skills)
        published, also_results = parallel_map_beside(_publish_one, heavy, jobs, [also] if also else [])
        for i, done in zip(heavy, published):
            results[i] = done
        for i in range(len(skills)):
            if known[i]:
                results[i] = _publish_one(i)
    finally:
        _PUBLISHING = None
    entries, html, archive_shas, diags, unit_keys = [], {}, {}, [], {}
    for skill, done in zip(skills, results):
        assert done is not None
        unit_keys[skill.id] = done.unit_key
        for rel, content_key, kept in done.placed:
            staging.adopt(rel, content_key, kept)
        if cache:
            for path, size, mtime_ns, sha in done.file_shas:
                cache.remember_file_sha(path, size, mtime_ns, sha)
            if done.kept:  # carried over as it is (a put would make it look new, and save it again)
                cache.get("units", done.unit_key)
            elif not done.diagnostics:  # one not published whole is published again next time
                cache.put("units", done.unit_key,
                          (done.entry, [(rel, content_key) for rel, content_key, _ in done.placed], done.file_shas))
            if done.html is None:
                html[skill.id] = cache.get("html", done.html_key)
            else:
                cache.put("html", done.html_key, done.html)
        if done.html is not None:
            html[skill.id] = done.html
        if done.archive_sha is not None:
            archive_shas[_archive_path(done.entry["name"])] = done.archive_sha
        entries.append(done.entry)
        diags += done.diagnostics
    return Publication(entries, html, archive_shas, diags, unit_keys, also_results[0] if also_results else None)


def discovery_index(entries: Sequence[dict[str, Any]], made: dict[str, str], staging: Staging,
                    diags: list[Diagnostic], paths: dict[str, str], cache: BuildCache | None) -> dict[str, Any]:
    """What ``.well-known/agent-skills/index.json`` holds (see :func:`write_discovery_index`): a raw
    SKILL.md or an archive per skill (archives were made or kept by :func:`_write_archive`;
    ``made`` has the sha256 of those made)."""
    index = []
    names: set[str] = set()
    for entry in entries:
        if not listable(entry):
            continue
        if entry["name"] in names:
            diags.append(make("SK212", f"name '{entry['name']}' is already in the discovery index; "
                                       f"skill '{entry['id']}' is not listed there", paths[entry["id"]],
                              severity=Severity.INFO))
            continue
        names.add(entry["name"])
        if not entry["files"]:
            index.append(discovery_entry(entry["name"], entry["description"], "skill-md",
                                         "../../" + entry["urls"]["skill_md"], entry["sha256"]))
            continue
        too_long = next((f["path"] for f in entry["files"] if not fits_ustar(f["path"])), None)
        if too_long is not None:
            diags.append(make("SK010", f"bundled file '{too_long}' has a path too long for a tar archive (USTAR: "
                                       "100 bytes, or 255 split at a '/'); skill not listed in the discovery index",
                              paths[entry["id"]]))
            continue
        rel = _archive_path(entry["name"])
        key = staging.keys[rel]
        sha = made.get(rel) or (cache.get("archives", key) if cache else None) \
            or sha256_hex(staging.current(rel).read_bytes())
        if cache:
            cache.put("archives", key, sha)
        index.append(discovery_entry(entry["name"], entry["description"], "archive",
                                     f"archives/{entry['name']}.tar.gz", sha))
    return index_document(index)


def write_discovery_index(document: dict[str, Any], staging: Staging) -> None:
    staging.write_json(INDEX_PATH, document)


def search_entry(skill: Skill) -> dict[str, Any]:
    """What search reads of a skill's manifest entry (see :func:`skillsite.manifest.skill_entry`):
    known before its files are published, so the indexes are made meanwhile."""
    return {"id": skill.id, "name": skill.name, "description": skill.description, "tags": list(skill.tags),
            "tools": [dict(t) for t in skill.tools], "priority": skill.priority,
            "urls": {"page": skill_dir_url(skill.id)}}


def search_key(entries: Sequence[dict[str, Any]]) -> str:
    """What the search indexes are made of: only the searchable fields, so a change to a body or
    a file reuses them."""
    from skillsite.search.bm25 import SEARCH_VERSION
    from skillsite.search.terms import search_fields

    return digest(__version__, SEARCH_VERSION, [(e["id"], search_fields(e), e["priority"]) for e in entries])


def build_search(entries: Sequence[dict[str, Any]]) -> tuple[tuple[Any, dict[str, bytes]], float]:
    """TF-IDF for skills.json and the lunr files for the browser (see skillsite.index), and the
    seconds it took (in a background process, or here)."""
    from skillsite import index

    started = time.perf_counter()
    result = index.build_indexes((), entries)
    return (result.manifest_search, result.files), time.perf_counter() - started


def write_search(key: str, files: dict[str, bytes], staging: Staging) -> None:
    for rel, data in files.items():
        staging.write_keyed(rel, digest(key, rel), lambda: data)
