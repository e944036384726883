"""Publishing each skill: its files, manifest entry, XML fragments, discovery archive and
rendered body.  Runs on every core, one skill at a time; each worker reports what it placed.

A file whose content is unchanged stays in place when the staging folder patches the previous
output (:meth:`~skillsite.publish.staging.Staging.keep`): the content key of a copied file is
its sha256 (known from the cache when its size and time are unchanged), that of a made file a
digest of what it is made of.  A skill whose publication depends on nothing that changed, and
whose published files are all intact, is not published again: the cache holds its manifest
entry and the files it placed (:func:`publish_all`).
"""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, Iterable, Iterator, Mapping, Sequence

from skillsite.agent.commands import assign_commands
from skillsite.agent.entry import (DEFAULT_VISIBILITY, NO_REQUIREMENTS, NO_TRIGGERS, DependencyRecord, FileRecord,
                                   ManifestEntry, holding)
from skillsite.agent.prompt_xml import skill_content_xml, skill_entry_xml
from skillsite.cache import Cache, KeptObjects, Section, digest, kept_or_made
from skillsite.config import SiteConfig
from skillsite.diagnostics import Diagnostic, make
from skillsite.agent.skill_md import skill_body
from skillsite.models import BundledFile, Skill, SkillChanged, Stamp, read_skill_md
from skillsite.publish.bundled_names import left_out, unpublished
from skillsite.publish.manifest import (ENTRY_FILE, XML_FILE, absolute, indented_json, is_paged, reserved_names,
                                        sha256_hex, skill_entry)
from skillsite.publish.markdown import Asked, LinkTargets, MarkdownRenderer, engine_version
from skillsite.publish.provider_layout import INDEX_NAME, skill_index
from skillsite.publish.staging import Placed, Staging
from skillsite.publish.wellknown import (EntryListing, archive_path, deterministic_archive, listable,
                                        skipped_by_installers)
from skillsite.source.codex_interface import CODEX_FILE, codex_interface
from skillsite.bounded import read_limited
from skillsite.source.dependencies import (NO_ALIASES, Aliases, Dependent, Unmet, current_releases,
                                           declared_dependencies, left_out_message, needing_left_out,
                                           parse_dependency, resolve_dependencies)
from skillsite.source.parse import parse_skill_bytes
from skillsite.source.relations import resolve_conflicts
from skillsite.source.versioning import canonical_version
from skillsite.workers import Workers

#: A bundled file's sha256 as worked out by a worker, for the cache: (path read, stamp, sha256).
FileSha = tuple[str, Stamp, str]
#: The sha256 the cache knows of bundled files: path read -> (stamp, sha256) when hashed.
KnownShas = dict[str, tuple[Stamp, str]]
#: What a worker is given to publish one skill: its index, and what the cache knows of its files.
SkillTask = tuple[int, KnownShas]


@dataclass
class SkillPublishing:
    """What publishing any skill needs; each worker process gets its own copy."""

    skills: Sequence[Skill]
    staging: Staging
    config: SiteConfig
    base_dir: str                      # the project folder source paths are shown relative to
    mtime: int                         # of archive members (SOURCE_DATE_EPOCH)
    targets: LinkTargets               # what bodies may link to
    rendered: frozenset[str]           # ids of the skills whose body the cache holds rendered already
    knowledge: dict[str, list[dict[str, Any]]]   # skill id -> records of its knowledge documents
    releases: Mapping[str, Sequence[str]] | None = None  # skill id -> its releases (None: its current version)
    copies: Mapping[str, tuple[str, int]] = field(default_factory=dict)  # skill id -> (canonical copy, group size)
    aliases: Mapping[str, str] = field(default_factory=dict)  # a name only copies share -> the copy it stands for
    # skill id -> its body's links to the shared knowledge documents it publishes -> their paths
    knowledge_links: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    claims: Sequence[int] | None = None  # the skills' positions in the order they take a name (None: theirs)
    # the catalog's relations hold only the skills that have some (most have none): what a build
    # makes of them grows with what skills declare, not with the catalog
    children: dict[str, list[str]] = field(init=False)   # skill id -> its published sub-skills
    commands: dict[str, str] = field(init=False)       # skill id -> its slash command (user-invocable ones)
    conflicts: dict[str, list[str]] = field(init=False)  # skill id -> ids it conflicts with
    dependencies: Mapping[str, Sequence[DependencyRecord]] = field(init=False)  # skill id -> what it needs, resolved
    archive_names: list[str | None] = field(init=False)  # per skill, the archive it owns
    by_id: dict[str, Skill] = field(init=False)
    reserved: frozenset[str] = field(init=False)         # names in a skill folder the catalog writes itself

    def __post_init__(self) -> None:
        self.reserved = reserved_names(is_paged(len(self.skills), self.config))
        self.children = children_of(self.skills)
        self.archive_names = archive_owners(self.skills, self.copies, self.claims)
        self.by_id = {s.id: s for s in self.skills}
        self.commands = slash_commands(self.skills)
        declared = {s.id: s.conflicts for s in self.skills if s.conflicts}
        self.conflicts = resolve_conflicts(declared, {s.id: s.name for s in self.skills}) if declared else {}
        self.dependencies = resolve_skill_dependencies(self.skills, self.releases, self.aliases)

    @functools.cached_property
    def renderer(self) -> MarkdownRenderer:
        """Made in the process that first renders a body."""
        return MarkdownRenderer(self.targets)

    def render(self, skill_id: str, body: str) -> str:
        """A skill's body rendered, its links resolved as its page sees them (its knowledge
        documents' included)."""
        return self.renderer.render(body, skill_id, self.knowledge_links.get(skill_id))

    def render_noting(self, skill_id: str, body: str) -> tuple[str, Asked]:
        """:meth:`render`, and what its links asked of the catalog's link targets."""
        return self.renderer.render_noting(body, skill_id, self.knowledge_links.get(skill_id))

    def sub_skills(self, skill_id: str) -> list[tuple[str, str, str]]:
        """(id, name, description) of a skill's direct children."""
        return [(c, self.by_id[c].name, self.by_id[c].description) for c in self.children.get(skill_id, ())]


@dataclass(frozen=True, slots=True)
class PublishedSkill:
    """What publishing one skill gave."""

    entry: ManifestEntry
    html: str | None                    # its rendered body (None: the cache holds it)
    asked: Asked                        # what rendering it asked of the link targets (none when not rendered)
    placed: Sequence[Placed]            # what it wrote or kept, for the staging folder's record
    file_shas: Sequence[FileSha]        # its bundled files' sha256 the cache did not know
    archive: tuple[str, str] | None     # (site path, sha256) of its discovery archive, if it owns one
    diagnostics: Sequence[Diagnostic]
    listing: EntryListing               # what the discovery indexes make of its entry
    key: str | None = None              # what it is made of (publication_key), when the cache keeps it

    def to_json(self) -> list[Any]:
        """What the next build needs to take this publication as it is (:func:`_published_before`)."""
        return [self.entry.to_json(), [[rel, key] for rel, key, *_ in self.placed if key is not None], self.archive,
                self.listing.to_json()]


def resolve_skill_dependencies(skills: Sequence[Skill], releases: Mapping[str, Sequence[str]] | None,
                               aliases: Aliases = NO_ALIASES) -> Mapping[str, Sequence[DependencyRecord]]:
    """Each skill's dependencies resolved as the catalog check resolved them (``aliases``: the
    names only copies share, each -> the copy it stands for; a skill needing one left out for its
    errors never gets here: :func:`unpublished_dependencies`); none when no skill declares any."""
    if not any(s.depends for s in skills):
        return {}
    if releases is None:
        releases = current_releases({s.id: s.version for s in skills})
    return resolve_dependencies(_dependents(skills), releases, aliases=aliases).dependencies


def _dependents(skills: Sequence[Skill]) -> list[Dependent]:
    """What resolving needs of each skill (where each item is declared is not kept: line 0)."""
    return [Dependent(s.id, s.name, s.source.display_path, tuple((item, 0, 0) for item in s.depends))
            for s in skills]


def unpublished_dependencies(skills: Sequence[Skill], ignore: Iterable[str] = (), aliases: Aliases = NO_ALIASES,
                             left_out: Sequence[Skill] = ()) -> list[Diagnostic]:
    """SK223 for each of ``skills`` that needs a skill not among them, then for each that needs
    one of those, down the chain.  The catalog check found every dependency's skill, so such a
    skill was left out for its errors (under ``keep_going``: found while reading, or by an earlier
    pass of publishing); a skill whose dependency is ineligible is ineligible too, so it is left
    out as well rather than published with its dependency dropped (``aliases``: a name only copies
    share needs the copy it stands for, as when the catalog was checked; ``left_out``: the skills
    read and left out, whose ids and names each item is resolved among too, as when the catalog
    was checked: an id of one of them is needed, though a skill here has it as its name).  None
    when SK223 is ignored, as a dependency naming no skill is then published without it."""
    if "SK223" in ignore or not any(s.depends for s in skills):
        return []
    every = [*skills, *left_out]
    gone = frozenset(range(len(skills), len(every)))
    return [_unmet_diagnostic(every[unmet.index], unmet)
            for unmet in needing_left_out(_dependents(every), gone, aliases=aliases)]


def _unmet_diagnostic(skill: Skill, unmet: Unmet) -> Diagnostic:
    """SK223 at the item of ``skill`` that names a skill left out."""
    name, _ = parse_dependency(unmet.item)
    line, col = _declared_at(skill, unmet.item)
    return make("SK223", left_out_message(skill.id, name, unmet), skill.source.display_path,
                line, col)


def _declared_at(skill: Skill, item: str) -> tuple[int, int]:
    """Where SKILL.md declares ``item``: a skill keeps what it declares, not where, so the file is
    read again (only for a skill left out this way); 0, 0 when it changed since it was checked."""
    try:
        parsed = parse_skill_bytes(read_skill_md(skill), skill.source, skill.size)
    except OSError:
        return 0, 0
    declared = declared_dependencies(parsed.frontmatter or {}, parsed.key_lines)
    return next(((line, col) for found, line, col in declared if found == item), (0, 0))


def slash_commands(skills: Sequence[Skill]) -> dict[str, str]:
    """Each user-invocable skill's slash command, by id (:func:`assign_commands`, which takes the
    last assignment again for the same skills: ``serve`` asks at every build)."""
    assigned = assign_commands((s.id, s.priority) for s in skills if s.user_invocable)
    return {sid: command for sid, (command, _) in assigned.items()}


def children_of(skills: Sequence[Skill]) -> dict[str, list[str]]:
    """The published sub-skills of each skill that has some, by id."""
    published = {s.id for s in skills}
    children: dict[str, list[str]] = {}
    for s in skills:
        if s.parent_id in published:
            children.setdefault(s.parent_id, []).append(s.id)
    return children


def archive_owners(skills: Sequence[Skill], copies: Mapping[str, tuple[str, int]] | None = None,
                   claims: Sequence[int] | None = None) -> list[str | None]:
    """Per skill, the name of the discovery archive it would own: installers accept only
    specification names, and the first skill with a name in ``claims`` order (the skills'
    positions, as :func:`~skillsite.publish.wellknown.discovery_index` reads them; None: theirs)
    takes it, but a copy of another skill (``copies``: a member's canonical one and group size),
    which the discovery index lists as that one, and a skill installers skip (SK016), which it
    does not list."""
    names: set[str] = set()
    owned: list[str | None] = [None] * len(skills)
    for at in claims if claims is not None else range(len(skills)):
        skill = skills[at]
        copy = copies is not None and copies.get(skill.id, (skill.id, 1))[0] != skill.id
        taken = listable(skill.name, skill.description) and not copy and not skipped_by_installers(skill.diagnostics)
        if taken and skill.name not in names:
            owned[at] = skill.name
            names.add(skill.name)
    return owned


def publish_skill(job: SkillPublishing, task: SkillTask) -> PublishedSkill:
    """Everything of the task's skill that depends on it alone."""
    index, known_shas = task
    skill = job.skills[index]
    raw, diags = _skill_md(skill, job.config.max_bytes)
    raw_sha = sha256_hex(raw)
    folder = f"skills/{skill.id}/"
    job.staging.write_keyed(folder + "SKILL.md", raw_sha, lambda: raw)
    files, shas, contents = _publish_files(job, skill, known_shas, diags)
    entry = skill_entry(skill, files, raw_sha, job.children.get(skill.id, ()), job.config,
                        job.base_dir, command=job.commands.get(skill.id), conflicts=job.conflicts.get(skill.id, ()),
                        dependencies=job.dependencies.get(skill.id, ()),
                        knowledge=job.knowledge.get(skill.id, []), interface=_interface(skill, files), skill_md=raw)
    body = skill_body(raw)
    _write_xml(job, skill, entry, body)
    _write_listing(job, entry)
    archive = _write_archive(job, skill, entry, raw, contents, job.archive_names[index])
    html, asked = (None, ()) if skill.id in job.rendered else job.render_noting(skill.id, body)
    listing = EntryListing.of(entry, archive[1] if archive else None)
    return PublishedSkill(entry, html, asked, job.staging.take_journal(), shas, archive, diags, listing)


def _skill_md(skill: Skill, max_bytes: int) -> tuple[bytes, list[Diagnostic]]:
    """A skill's SKILL.md bytes, read again: as checked; else as they are now (or none), with
    an error that fails the build (the skill changed during it, or cannot be read)."""
    try:
        return read_skill_md(skill), []
    except SkillChanged as exc:
        message = str(exc)
    except OSError as exc:
        return b"", [make("SK006", f"cannot read SKILL.md: {exc.strerror or exc}", skill.source.display_path)]
    try:
        raw = read_limited(skill.source.skill_md, max_bytes)[0][:max_bytes]
    except OSError:
        raw = b""
    return raw, [make("SK006", message, skill.source.display_path)]


#: Where a long-running process's resident objects keep each skill's publication key (by its id).
PUBLICATION_KEY = "publication key"


def publication_key(job: SkillPublishing, index: int, resident: KeptObjects | None = None) -> str:
    """What publishing skill ``index`` depends on, besides the configuration and skillsite's
    code (the cache's scope): its SKILL.md and place, its bundled files' names and stamps, its
    diagnostics, and what the catalog gives it (sub-skills, command, conflicts,
    dependencies, knowledge documents, archive name; the names it may not publish, which a
    catalog grown past ``shard_above`` adds to).  In a long-running process, the key the
    last build worked out for this very skill (``serve`` keeps each unchanged skill, and with it
    its source, files and diagnostics) when what the catalog gives it is equal."""
    return _publication_keys(job, index, resident)[0]


def _publication_keys(job: SkillPublishing, index: int, resident: KeptObjects | None) -> tuple[str, tuple[str, ...]]:
    """:func:`publication_key` of skill ``index``, and the cache keys of its bundled files'
    sha256 (:func:`_file_key`: made of the skill's files alone), kept together in a long-running process."""
    skill = job.skills[index]
    # tuples, not lists: what is kept between rebuilds should give the garbage collector nothing to walk
    given = (tuple(job.sub_skills(skill.id)), job.commands.get(skill.id), tuple(job.conflicts.get(skill.id, ())),
             tuple(job.dependencies.get(skill.id, ())), tuple(job.knowledge.get(skill.id, ())),
             job.archive_names[index], job.mtime, job.base_dir, job.reserved)
    return kept_or_made(resident, PUBLICATION_KEY, skill.id, skill, given,
                        lambda: (_publication_key(skill, given),
                                 tuple(_file_key(f.abspath, f.stamp) for f in skill.source.files)))


def _publication_key(skill: Skill, given: tuple[Any, ...]) -> str:
    """:func:`publication_key` of ``skill``, given what the catalog gives it."""
    source = skill.source
    sub_skills, command, conflicts, dependencies, knowledge, archive_name, mtime, base_dir, reserved = given
    return digest("publication", skill.id, skill.sha256, skill.size, str(source.root), str(source.dir), source.rel_path,
                  source.display_path, [(f.path, f.abspath, f.stamp) for f in source.files],
                  [d.to_json() for d in skill.diagnostics], sub_skills, command, conflicts,
                  [d.to_json() for d in dependencies], knowledge, archive_name, mtime, base_dir, sorted(reserved))


def publish_all(job: SkillPublishing, bodies: BodyKeys, workers: Workers[SkillPublishing],
                cache: Cache) -> list[PublishedSkill]:
    """Every skill published, in order: as the last build published it when nothing it depends
    on changed (see :func:`_published_before`), else by the workers.  What each one placed is
    recorded in the staging folder, and what it made is kept in the cache (its rendered body
    too, under the key ``bodies`` then holds: the bodies are read back from there when pages
    need them), as it comes: the results returned hold neither."""
    # two lists, not zip(*pairs): that holds an iterator per skill for the whole of its run
    pairs = [_publication_keys(job, index, cache.resident) for index in range(len(job.skills))]
    keys, file_keys = [key for key, _ in pairs], [files for _, files in pairs]
    done: dict[int, PublishedSkill] = {}
    for index, stored in enumerate(cache.made_many(Section.PUBLICATION, keys, StoredPublication.of)):
        before = _published_before(job, index, stored, keys[index], cache.resident)
        if before is None:
            continue
        done[index] = before
        if stored is not None and stored.sharing is not job.skills[index]:  # sharing the skill's values from now on
            cache.keep_made(Section.PUBLICATION, keys[index],
                            dataclasses.replace(stored, entry=before.entry, sharing=job.skills[index]))
    job.staging.take_journal()  # kept as whole skills (keep_all), recorded already
    todo = [index for index in range(len(keys)) if index not in done]
    # the files of a skill taken as stored need no sha256 now; the next edit of the skill will
    cache.keep_many(Section.FILE_SHA, chain.from_iterable(file_keys[index] for index in done))
    tasks = list(zip(todo, _known_shas([job.skills[index] for index in todo], cache)))
    for index, published in zip(todo, workers.imap(publish_skill, tasks)):
        _record(job, published, cache, bodies, index, keys[index])
        entry = sharing_skill_values(published.entry, job.skills[index])
        if not published.diagnostics:  # what the next build of a long-running process takes as stored
            cache.keep_made(Section.PUBLICATION, keys[index],
                            StoredPublication.of_published(published, entry, job.skills[index]))
        done[index] = dataclasses.replace(published, entry=entry, html=None, asked=(), placed=(), file_shas=(),
                                          key=None if published.diagnostics else keys[index])
    return [done[index] for index in range(len(keys))]


#: The entry fields that hold a value the skill itself holds, under the same name.
SHARED_WITH_SKILL = ("id", "name", "description", "sha256", "tags")
#: The entry fields whose usual value one record stands for in every entry
#: (see :func:`~skillsite.agent.entry.shared`).
COMMON_RECORDS = {"visibility": DEFAULT_VISIBILITY, "requirements": NO_REQUIREMENTS, "triggers": NO_TRIGGERS}


def sharing_skill_values(entry: ManifestEntry, skill: Skill) -> ManifestEntry:
    """``entry`` holding ``skill``'s own objects for the values the two have equal, and the
    common records where it has their value: an entry from a worker is a copy (and one read
    back from the cache holds its own strings), and a big catalog should hold each description,
    name and tag list once, and its usual records once in all."""
    return holding(entry, {**{name: getattr(skill, name) for name in SHARED_WITH_SKILL}, **COMMON_RECORDS})


def _record(job: SkillPublishing, published: PublishedSkill, cache: Cache, bodies: BodyKeys, index: int,
            key: str) -> None:
    """Record what a worker placed in the staging folder, and keep what it made in the cache
    (skill ``index``'s rendered body under its key in ``bodies``)."""
    job.staging.adopt(published.placed)
    for path, stamp, sha in published.file_shas:
        cache.put(Section.FILE_SHA, _file_key(path, stamp), sha)
    if published.html is not None:
        # rendered from the bytes it was checked as? else (SK006: changed since) kept under no key of them
        checked_bytes = published.entry.sha256 == job.skills[index].sha256
        html_key = bodies.rendered(index, published.asked, job.targets, cache, keep=checked_bytes)
        if checked_bytes:
            cache.put(Section.HTML, html_key, published.html)
    if not published.diagnostics:  # an unreadable file is tried again next time
        cache.put(Section.PUBLICATION, key, published.to_json())


@dataclass(frozen=True, slots=True)
class StoredPublication:
    """A publication as the cache holds it (:meth:`PublishedSkill.to_json`), its entry made again."""

    entry: ManifestEntry
    placed: tuple[tuple[str, str], ...]     # (site path, content key) of each file it placed
    archive: tuple[str, str] | None
    listing: EntryListing
    sharing: Skill | None = None            # the skill whose values the entry holds (sharing_skill_values)

    @classmethod
    def of(cls, stored: list[Any]) -> StoredPublication:
        entry, placed, archive, listing = stored
        return cls(ManifestEntry.from_json(entry), tuple((rel, key) for rel, key in placed),
                   (archive[0], archive[1]) if archive else None, EntryListing.from_json(listing))

    @classmethod
    def of_published(cls, published: PublishedSkill, entry: ManifestEntry, sharing: Skill) -> StoredPublication:
        """What :meth:`of` makes of ``published``'s stored value (:meth:`PublishedSkill.to_json`),
        holding ``entry``, its entry as the build holds it, sharing the values of the skill ``sharing``."""
        return cls(entry, tuple((rel, key) for rel, key, *_ in published.placed if key is not None),
                   published.archive, published.listing, sharing)


#: Where a long-running process's resident objects keep each skill's publication as taken from
#: the cache (by its id): the one made of the same stored publication and entry is taken again.
TAKEN = "publication taken"


def _published_before(job: SkillPublishing, index: int, stored: StoredPublication | None, key: str,
                      resident: KeptObjects | None = None) -> PublishedSkill | None:
    """The stored publication of skill ``index`` (under ``key``), when its body is rendered in the cache and
    every file it placed is still in the output as published (then taken: see
    :meth:`~skillsite.publish.staging.Staging.keep_all`); else None."""
    if stored is None or job.skills[index].id not in job.rendered:
        return None
    if not job.staging.keep_all(stored.placed):
        return None  # a file changed or went missing: publish the skill again
    skill = job.skills[index]
    entry = stored.entry if stored.sharing is skill else sharing_skill_values(stored.entry, skill)
    # empty tuples, not lists: ten thousand kept publications add nothing for the garbage collector to walk
    return kept_or_made(resident, TAKEN, skill.id, stored, (entry, key),
                        lambda: PublishedSkill(entry, None, (), (), (), stored.archive, (), stored.listing, key))


def _interface(skill: Skill, files: Sequence[FileRecord]) -> dict[str, Any] | None:
    """What the skill's Codex ``agents/openai.yaml`` says to show, if it has one (an icon only
    when it is one of the ``files`` published)."""
    if not any(f.path == CODEX_FILE for f in skill.source.files):
        return None
    return codex_interface(skill.source.dir, skill.source.display_path, frozenset(f.path for f in files))


def _publish_files(job: SkillPublishing, skill: Skill, known_shas: KnownShas, diags: list[Diagnostic]
                   ) -> tuple[list[FileRecord], list[FileSha], dict[str, bytes]]:
    """Copy (or keep) a skill's bundled files under ``skills/<id>/``: their manifest records, the
    shas the cache does not know yet (``known_shas``: those it knows), and the content of those
    copied (up to 1 MiB each, for the archive)."""
    records, shas, contents = [], [], {}
    versioned = is_versioned(skill)
    refused = left_out((f.path for f in skill.source.files), job.reserved, versioned)
    for f in skill.source.files:
        if f.path in refused:
            diags.append(unpublished(f.path, skill.source.display_path, refused[f.path]))
            continue
        try:
            size, sha, content = _publish_file(job, f, f"skills/{skill.id}/{f.path}", known_shas.get(f.abspath))
        except OSError as exc:
            if not _names(exc, f.abspath):  # writing the output failed: the build's environment, not the skill
                raise
            diags.append(make("SK006", f"cannot read bundled file '{f.path}': {exc.strerror or exc}",
                              skill.source.display_path))
            continue
        if content is not None:
            contents[f.path] = content
        if known_shas.get(f.abspath) != (f.stamp, sha):
            shas.append((f.abspath, f.stamp, sha))
        records.append(FileRecord(f.path, sha, size))
    return records, shas, contents


def _names(exc: OSError, path: str) -> bool:
    """Whether ``exc`` is about ``path`` (reading it failed), not about a file the build writes."""
    return exc.filename == path


def _publish_file(job: SkillPublishing, f: BundledFile, rel: str, known: tuple[Stamp, str] | None
                  ) -> tuple[int, str, bytes | None]:
    """Keep one bundled file when its sha is ``known`` (the same stamp as when it was hashed)
    and its published copy is intact; else copy it: (size, sha256, content if copied and small)."""
    if known is not None and known[0] == f.stamp and job.staging.keep(rel, known[1]):
        return f.bytes, known[1], None
    return job.staging.copy(f.abspath, rel)


def _write_xml(job: SkillPublishing, skill: Skill, entry: ManifestEntry, body: str) -> None:
    """A skill's ``<skill_content>`` fragment and its tier-1 ``<skill>`` entry."""
    page_url = absolute(job.config, entry.urls.page)
    files = [f.path for f in entry.files]
    subs = job.sub_skills(skill.id)
    docs = [(k.path, k.title, absolute(job.config, k.url)) for k in entry.knowledge]
    job.staging.write_keyed(
        f"skills/{skill.id}/{XML_FILE}", digest(XML_FILE, skill.name, skill.id, entry.digest, page_url, subs, docs),
        lambda: skill_content_xml(skill.name, skill.id, body, page_url, files, subs, docs).encode("utf-8"))
    md_url = absolute(job.config, entry.urls.skill_md)
    job.staging.write_keyed(
        f"skills/{skill.id}/{ENTRY_FILE}", digest(ENTRY_FILE, skill.name, skill.description, md_url),
        lambda: skill_entry_xml(skill.name, skill.description, md_url).encode("utf-8"))


def _write_listing(job: SkillPublishing, entry: ManifestEntry) -> None:
    """The skill's ``index.json`` in the static provider layout (kept in place when unchanged)."""
    listing = skill_index(entry)
    job.staging.write_keyed(f"skills/{entry.id}/{INDEX_NAME}", digest(INDEX_NAME, listing),
                            lambda: indented_json(listing))


def _write_archive(job: SkillPublishing, skill: Skill, entry: ManifestEntry, raw: bytes,
                   contents: dict[str, bytes], name: str | None) -> tuple[str, str] | None:
    """The skill's discovery archive, when it owns one and has bundled files: (site path, sha256);
    a .tar.gz, or a .zip when a path is too long for a tar header (:func:`.wellknown.archive_suffix`)."""
    if name is None or not entry.files:
        return None
    rel = archive_path(name, (f.path for f in entry.files))
    key = digest("archive", entry.digest, job.mtime)
    if job.staging.keep(rel, key):
        return rel, sha256_hex(job.staging.current(rel).read_bytes())
    folder = f"skills/{entry.id}/"
    members = [("SKILL.md", raw)] + [
        (f.path, contents.get(f.path) or job.staging.current(folder + f.path).read_bytes())
        for f in entry.files]
    data = deterministic_archive(members, job.mtime)
    job.staging.write(rel, data, key)
    return rel, sha256_hex(data)


class RenderedBodies(Mapping[str, str]):
    """The rendered body of every skill, by id, taken from the cache when a page needs it (those
    rendered by this build were put there): never all of them in memory at once."""

    def __init__(self, keys: dict[str, str], cache: Cache, job: SkillPublishing):
        self.keys, self.cache, self.job = keys, cache, job

    def __getitem__(self, skill_id: str) -> str:
        html = self.cache.get(Section.HTML, self.keys[skill_id])
        if html is None:  # held when publishing began, found damaged since (SK402): rendered again
            raw, _ = _skill_md(self.job.by_id[skill_id], self.job.config.max_bytes)
            html = self.job.render(skill_id, skill_body(raw))
        return html

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys)

    def __len__(self) -> int:
        return len(self.keys)


@dataclass(frozen=True)
class Publication:
    """What publishing every skill gave."""

    entries: list[ManifestEntry]      # manifest entries, in the skills' order
    html: RenderedBodies              # rendered bodies, by skill id
    html_keys: dict[str, str]         # what each rendered body is made of (a digest), by skill id
    archives: dict[str, str]          # site path -> sha256 of each discovery archive
    diagnostics: list[Diagnostic]
    keys: list[str | None]            # what each entry's publication is made of, when the cache keeps it
    listings: list[EntryListing]      # what the discovery indexes make of each entry


def _file_key(path: str, stamp: Stamp) -> str:
    """A bundled file's cache key: where it is read from and its stamp (as it was hashed)."""
    return "\0".join((path, *map(str, stamp)))


def _known_shas(skills: Sequence[Skill], cache: Cache) -> list[KnownShas]:
    """For each skill, the sha256 the cache knows of its bundled files with their current stamp
    (asked only for the skills published again: the others' files are in their stored publication)."""
    files = [f for skill in skills for f in skill.source.files]
    shas = iter(cache.made_many(Section.FILE_SHA, (_file_key(f.abspath, f.stamp) for f in files), str))
    known: list[KnownShas] = []
    for skill in skills:
        pairs = [(f, next(shas)) for f in skill.source.files]
        known.append({f.abspath: (f.stamp, sha) for f, sha in pairs if sha is not None})
    return known


#: Where a long-running process's resident objects keep each skill's body's source key (by its id) ...
BODY_SOURCE_KEY = "body source key"
#: ... and its rendered body's key (by its id).
HTML_KEY = "html key"


@dataclass
class BodyKeys:
    """Each skill's rendered body's cache key, by the skill's position.

    A body's HTML is made of its source (SKILL.md, the skill's id, its links to knowledge
    documents, the Markdown engine: its *source key*) and of the catalog's link targets, of
    which only what its links asked matters (:data:`~skillsite.publish.markdown.Asked`).  As
    ninja's depfiles keep the headers each compile read, the cache keeps under each source key
    what its last rendering asked (:attr:`Section.BODY_LINKS`), and the HTML under a key made
    of the source key, those questions and the answers the targets gave.  A build asks them of
    its own targets: adding a skill or renaming a file renders again only the bodies whose
    links are answered otherwise, not every body."""

    ids: list[str]
    sources: list[str]
    #: None where no rendering of the source is recorded: known once the body is rendered
    keys: list[str | None]

    def rendered(self, index: int, asked: Asked, targets: LinkTargets, cache: Cache, keep: bool = True) -> str:
        """Record that body ``index`` was rendered with ``targets``, asking ``asked``: its key now
        (in a long-running process, kept as :func:`body_keys` would work it out next time).
        Not ``keep``: a body rendered from other bytes than its source's, whose key is given but
        nothing kept under it (its page renders it again)."""
        source = self.sources[index]
        if not keep:
            self.keys[index] = digest("html not kept", source, asked, targets.answers(asked))
            return self.keys[index]
        cache.put(Section.BODY_LINKS, source, [list(question) for question in asked])
        cache.keep_made(Section.BODY_LINKS, source, asked)  # not what an earlier run asked
        key = self.keys[index] = _html_key(cache.resident, self.ids[index], source, asked, targets)
        return key

    def by_id(self, skills: Sequence[Skill]) -> dict[str, str]:
        """Every key, by skill id: once publishing is done, every body's is known."""
        keys = {skill.id: key for skill, key in zip(skills, self.keys) if key is not None}
        if len(keys) != len(skills):
            raise AssertionError("a body was neither rendered nor found in the cache")
        return keys


def _html_key(resident: KeptObjects | None, skill_id: str, source: str, asked: Asked, targets: LinkTargets) -> str:
    """The key of skill ``skill_id``'s body's HTML rendered from ``source``, asking ``asked``, with
    targets that answer those as ``targets`` do; in a long-running process, the one worked out
    before of this very ``asked`` and equal answers."""
    answers = targets.answers(asked)
    return kept_or_made(resident, HTML_KEY, skill_id, asked, (source, answers),
                        lambda: digest("html", source, asked, answers))


def _asked_of(stored: list[list[str]]) -> Asked:
    """What a rendering asked, as :meth:`BodyKeys.rendered` stores it."""
    return tuple((kind, path) for kind, path in stored)


def body_keys(skills: Sequence[Skill], targets: LinkTargets, knowledge_links: Mapping[str, Mapping[str, str]],
              cache: Cache) -> BodyKeys:
    """Each skill's rendered body's key (:class:`BodyKeys`) with the catalog's ``targets``: in a
    long-running process, the one the last build worked out for this very skill when its links
    are answered alike."""
    resident = cache.resident
    sources = [kept_or_made(resident, BODY_SOURCE_KEY, skill.id, skill, more, lambda skill=skill, more=more:
                            digest("body", engine_version(), skill.id, skill.sha256, skill.size, *more))
               for skill in skills for more in [_knowledge_part(knowledge_links, skill.id)]]
    keys = [None if asked is None else _html_key(resident, skill.id, source, asked, targets)
            for skill, source, asked in zip(skills, sources, cache.made_many(Section.BODY_LINKS, sources, _asked_of))]
    return BodyKeys([skill.id for skill in skills], sources, keys)


def _knowledge_part(knowledge_links: Mapping[str, Mapping[str, str]], skill_id: str) -> tuple[Any, ...]:
    """What a body's source key holds of its links to knowledge documents: nothing without any."""
    links = sorted(knowledge_links.get(skill_id, {}).items())
    return (links,) if links else ()


def is_versioned(skill: Skill) -> bool:
    """Whether the catalog publishes the skill's releases (``versions.json``, ``versions/``)."""
    return canonical_version(skill.version) is not None


#: Where a long-running process keeps what each skill gives bodies to link to (by its id) ...
LINKABLE = "linkable"
#: ... and, under one key, the catalog's link targets.
LINK_TARGETS = "link targets"


def _link_targets(skills: Sequence[Skill], reserved: frozenset[str], resident: KeptObjects | None) -> LinkTargets:
    """What bodies may link to (every published skill and its bundled files, those it cannot
    publish aside); in a long-running process, each skill's part as the last build made it of
    this very skill, and the whole as it made it when every part is the one it was made of."""
    parts = tuple(kept_or_made(resident, LINKABLE, skill.id, skill, (reserved,),
                               lambda skill=skill: _linkable(skill, reserved)) for skill in skills)
    # made of the parts alone (the inputs, compared part by part, each the very object when kept)
    return kept_or_made(resident, LINK_TARGETS, LINK_TARGETS, LinkTargets, parts, lambda: _targets_of(parts))


def _linkable(skill: Skill, reserved: frozenset[str]) -> tuple[str, tuple[str, ...]]:
    """A skill's id and the targets of its bundled files (``<id>/<path>``: those it can publish)."""
    versioned = is_versioned(skill)
    refused = left_out((f.path for f in skill.source.files), reserved, versioned)
    return skill.id, tuple(f"{skill.id}/{f.path}" for f in skill.source.files if f.path not in refused)


def _targets_of(parts: Sequence[tuple[str, tuple[str, ...]]]) -> LinkTargets:
    """The link targets of the skills whose :func:`_linkable` parts are ``parts``."""
    return LinkTargets(frozenset(skill_id for skill_id, _ in parts),
                       frozenset(chain.from_iterable(files for _, files in parts)))


def plan_publishing(skills: Sequence[Skill], staging: Staging, config: SiteConfig, base_dir: str, mtime: int,
                    cache: Cache, knowledge: dict[str, list[dict[str, Any]]],
                    releases: Mapping[str, Sequence[str]] | None = None,
                    copies: Mapping[str, tuple[str, int]] | None = None, aliases: Aliases = NO_ALIASES,
                    knowledge_links: Mapping[str, Mapping[str, str]] | None = None,
                    claims: Sequence[int] | None = None) -> tuple[SkillPublishing, BodyKeys]:
    """What publishing the skills needs (the bodies and file hashes the cache holds), and each
    skill's rendered body's cache key: give the first to the workers, then :func:`collect`.
    ``releases``: each versioned skill's releases, which dependencies resolve to (None: the
    current versions only); ``copies``: each copy's canonical member and group size (search shows a group once);
    ``aliases``: the names only copies share, each -> the copy dependencies on it need;
    ``knowledge_links``: each skill's links to its shared knowledge documents (:class:`Knowledge`);
    ``claims``: the skills' positions in the order they take a name two of them use (:func:`archive_owners`)."""
    targets = _link_targets(skills, reserved_names(is_paged(len(skills), config)), cache.resident)
    bodies = body_keys(skills, targets, knowledge_links or {}, cache)
    rendered = frozenset(s.id for s, cached in zip(skills, cache.has_many(Section.HTML, bodies.keys)) if cached)
    job = SkillPublishing(skills, staging, config, base_dir, mtime, targets, rendered, knowledge, releases,
                          copies or {}, aliases, knowledge_links or {}, claims)
    return job, bodies


def collect(job: SkillPublishing, bodies: BodyKeys, published: list[PublishedSkill], cache: Cache) -> Publication:
    """What the workers published (:func:`publish_all`), as the catalog-wide steps read it."""
    archives, diags = {}, []
    for done in published:
        if done.archive is not None:
            archives[done.archive[0]] = done.archive[1]
        diags += done.diagnostics
    keys = bodies.by_id(job.skills)
    return Publication([done.entry for done in published], RenderedBodies(keys, cache, job), keys, archives, diags,
                       [done.key for done in published], [done.listing for done in published])
