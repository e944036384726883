"""Reading a catalog: discover, parse and check every skill — the stage every command shares.

:func:`read_catalog` keeps the skills (the build needs them); :func:`check_catalog` keeps only
each skill's verdict (``skillsite validate``).  Skills are parsed and checked on every core,
each on its own; then the catalog-wide check (names used twice) runs on what that gave.

Both can skip the skills that did not change, with a :class:`~skillsite.cache.Cache`: each
keys a skill by its SKILL.md's content and place (so a fresh checkout, whose files all have new
times, still finds the cache of an earlier job).  ``check_catalog`` also keeps each SKILL.md's
content digest under its size, times and inode, so that a file whose stamp is unchanged is not
read (as git's index does).
The result never depends on the number of jobs or on the cache.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import posixpath
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import AbstractSet, Any, Callable, Iterable, Mapping, NamedTuple, Sequence

from skillsite.agent.budget import (SIMILAR_SCORE, ChangedPairs, ListedSkill, Similarity, description_terms,
                                    most_alike_first)
from skillsite.agent.catalog_format import prompt_rank
from skillsite.agent.regex_safety import verdicts_kept
from skillsite.agent.entry import Visibility, holding
from skillsite.agent.manifest_check import skill_folder_problem, windows_drive
from skillsite.agent.xml_chars import xml_forbidden
from skillsite.agent.site_urls import taken_name
from skillsite.agent.spellings import one_spelling
from skillsite.agent.triggers import within_catalog_budget
from skillsite.cache import RACY_NS, Cache, KeptObjects, Section, digest, kept_or_made
from skillsite.diagnostics import Diagnostic, Severity, SortedParts, make, sort_diagnostics
from skillsite.models import NOTHING_REQUIRED, CacheUse, CatalogCheck, CatalogReading, ParsedSkill, Skill, SourceFile
from skillsite.source.checks import (allowed_tools_diagnostics, body_diagnostics, catalog_budget_diagnostic,
                                     control_char_diagnostics, duplicate_name_diagnostics, name_diagnostics,
                                     published_patterns, self_conflict_diagnostics, tags_diagnostics,
                                     trigger_diagnostics)
from skillsite.source.codex_interface import CODEX_FILE, implicit_invocation_allowed, read_codex_file
from skillsite.source.copies import (COPY_CODE, Candidate, Comparisons, CopySettings, Fingerprint, copy_message,
                                     fingerprint, group_copies, name_claim_order, source_places)
from skillsite.source.dependencies import (Dependent, copy_aliases, current_releases, declared_dependencies,
                                           needing_erring, resolve_dependencies, syntax_diagnostics)
from skillsite.source.discover import SKILL_FILES, Discovery, discover
from skillsite.source.kept_grouping import KeptGrouping
from skillsite.source.knowledge import default_knowledge_dir, locate_all
from skillsite.source.links import (MissingPlace, MissingTarget, SkillsAsked, checked_links, missing_again,
                                    missing_places, skills_answer_alike)
from skillsite.bounded import read_limited
from skillsite.source.parse import DEFAULT_MAX_BYTES, parse_skill
from skillsite.source.relations import Member, relation_diagnostics
from skillsite.source.releases import VersionedSkill, release_versions
from skillsite.source.schema import said_commented, schema_diagnostics
from skillsite.source.skill import (build_skill, is_hidden, is_kept, is_unlisted, is_user_invocable_only, skill_fields,
                                    skill_name, skill_of_fields, skill_priority, skill_to_json, skill_version)
from skillsite.source.versioning import canonical_version, version_diagnostics
from skillsite.workers import parallel_map

@dataclass(frozen=True)
class Checking:
    """What checking the skills of a catalog needs; each worker process gets its own copy."""

    sources: tuple[SourceFile, ...]
    profile: str
    max_bytes: int
    skill_dirs: frozenset[tuple[str, str]]   # (root, folder relative to it) of every skill: link targets
    knowledge_dir: str | None = None         # the shared knowledge documents' folder (absolute): link targets too

    @classmethod
    def of(cls, found: Discovery, profile: str, max_bytes: int, siblings: bool = False,
           knowledge_dir: Path | None = None) -> Checking:
        """``siblings``: links from a root that is one skill to the skills beside it are fine (a
        single skill validated on its own); a build publishes no page for them, so they are not."""
        return cls(found.sources, profile, max_bytes, catalog_skill_dirs(found.sources, siblings),
                   os.path.abspath(knowledge_dir) if knowledge_dir is not None else None)

    def parsed(self, index: int) -> ParsedSkill:
        return parse_skill(self.sources[index], self.max_bytes)


def catalog_skill_dirs(sources: Iterable[SourceFile], siblings: bool = False) -> frozenset[tuple[str, str]]:
    """(root, folder relative to the root) of every skill: what links to other skills resolve
    against.  With ``siblings``, a root that is one skill (validating a single skill of a larger
    tree) also has the skill folders beside it (``../name``), as the whole tree's check would."""
    sources = list(sources)
    dirs = {(str(s.root), posixpath.dirname(s.rel_path)) for s in sources}
    for root in {str(s.root) for s in sources if siblings and s.rel_path in SKILL_FILES}:
        dirs |= {(root, f"../{name}") for name in _sibling_skills(Path(root))}
    return frozenset(dirs)


def _sibling_skills(folder: Path) -> list[str]:
    """The names of the folders beside ``folder`` that hold a SKILL.md."""
    try:
        with os.scandir(folder.absolute().parent) as entries:
            return [e.name for e in entries if e.is_dir() and os.path.isfile(os.path.join(e.path, "SKILL.md"))]
    except OSError:
        return []


def check_skill(parsed: ParsedSkill, profile: str, skill_dirs: frozenset[tuple[str, str]],
                knowledge_dir: str | None = None
                ) -> tuple[list[Diagnostic], tuple[MissingTarget, ...], SkillsAsked]:
    """Every diagnostic of one skill on its own (the catalog-wide checks come after), the
    targets of its links to missing files, and what its links asked of ``skill_dirs`` (see
    :func:`_reads_as_now`)."""
    if parsed.fatal:
        return list(parsed.diagnostics), (), ()
    fm, src, lines = parsed.frontmatter or {}, parsed.source, parsed.key_lines
    links, missing, asked = checked_links(parsed, skill_dirs, knowledge_dir)
    return [*parsed.diagnostics,
            *said_commented(schema_diagnostics(fm, profile, src.display_path, lines), fm, parsed.raw),
            *name_diagnostics(fm, src, profile, lines),
            *allowed_tools_diagnostics(fm, src, lines),
            *tags_diagnostics(fm, src, lines),
            *control_char_diagnostics(fm, src, lines),
            *trigger_diagnostics(fm, src, lines),
            *self_conflict_diagnostics(parsed),
            *syntax_diagnostics(declared_dependencies(fm, lines), src.display_path),
            *version_diagnostics(fm, lines, src.display_path),
            *body_diagnostics(parsed),
            *links], missing, asked


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the catalog-wide checks need of a checked skill: whether it is kept, its name and
    where that name is (for names used twice), its priority and declared conflicts (for slash
    commands and conflicts), whether it takes a slash command, its version and declared
    dependencies (resolved over the catalog), and its own diagnostics."""

    kept: bool
    name: str
    name_at: tuple[int, int]
    diagnostics: tuple[Diagnostic, ...]
    priority: int = 0
    conflicts: tuple[tuple[str, int, int], ...] = ()   # each declared item, with its line and column
    knowledge: tuple[tuple[str, int, int], ...] = ()
    description: str = ""    # as a model's skill listing shows it (look-alike descriptions)
    offered: bool = True     # offered to a model (neither hidden nor user-invocable only)
    description_at: tuple[int, int] = (1, 1)
    user_invocable: bool = True   # false: no slash command (user-invocable: false)
    version: str | None = None    # as written
    depends: tuple[tuple[str, int, int], ...] = ()   # each declared item, with its line and column
    fingerprint: Fingerprint | None = None   # what finding its copies reads (a kept skill's)
    listed: bool = True      # in the site's lists (not hidden by ``hidden`` or ``hideFromDiscovery``)
    always: bool = False     # always on: first in prompt order
    patterns: tuple[tuple[str, int, int, int], ...] = ()   # each published trigger pattern: line, column, work
    missing: tuple[MissingTarget, ...] = ()   # the targets of its SK303 warnings, in order
    skills_asked: SkillsAsked = ()   # what its links asked of the catalog's skill folders, and the answers
    description_terms: tuple[str, ...] = ()   # its description's search terms (look-alike descriptions)

    @classmethod
    def of(cls, parsed: ParsedSkill, diags: Sequence[Diagnostic], missing: tuple[MissingTarget, ...] = (),
           skills_asked: SkillsAsked = ()) -> Verdict:
        fm = parsed.frontmatter or {}
        kept = is_kept(parsed)
        name, description = skill_name(parsed), fm["description"].strip() if kept else ""
        return cls(kept, name, parsed.key_lines.get("name", (1, 1)), tuple(diags),
                   skill_priority(fm),
                   _declared(fm.get("conflicts"), "conflicts", parsed.key_lines),
                   _declared(fm.get("knowledge"), "knowledge", parsed.key_lines),
                   description, not (is_hidden(fm) or is_user_invocable_only(fm)),
                   parsed.key_lines.get("description", (1, 1)), fm.get("user-invocable") is not False,
                   skill_version(fm), declared_dependencies(fm, parsed.key_lines),
                   fingerprint(name, description, parsed.body, hashlib.sha256(parsed.raw).hexdigest())
                   if kept else None, not is_unlisted(fm), fm.get("always") is True,
                   published_patterns(fm, parsed.key_lines) if kept else (), missing, skills_asked,
                   description_terms(description) if kept else ())

    def to_json(self) -> list[Any]:
        return [self.kept, self.name, list(self.name_at), [d.to_json() for d in self.diagnostics], self.priority,
                [list(c) for c in self.conflicts], [list(k) for k in self.knowledge], self.description,
                self.offered, list(self.description_at), self.user_invocable, self.version,
                [list(d) for d in self.depends], self.fingerprint.to_json() if self.fingerprint else None,
                self.listed, self.always, [list(p) for p in self.patterns], [list(m) for m in self.missing],
                [list(a) for a in self.skills_asked], list(self.description_terms)]

    @classmethod
    def from_json(cls, data: list[Any]) -> Verdict:
        (kept, name, name_at, diags, priority, conflicts, knowledge, description, offered, description_at,
         user_invocable, version, depends, printed, listed, always, patterns, missing, asked, terms) = data
        return cls(kept, name, tuple(name_at), tuple(Diagnostic.from_json(d) for d in diags), priority,
                   tuple((item, line, col) for item, line, col in conflicts),
                   tuple((item, line, col) for item, line, col in knowledge), description, offered,
                   tuple(description_at), user_invocable, version,
                   tuple((item, line, col) for item, line, col in depends),
                   Fingerprint.from_json(printed) if printed is not None else None, listed, always,
                   tuple((pattern, line, col, work) for pattern, line, col, work in patterns),
                   tuple((target, is_link, line, col) for target, is_link, line, col in missing),
                   tuple((folder, answer) for folder, answer in asked), tuple(terms))


def _declared(value: Any, key: str, key_lines: dict[str, tuple[int, int]]) -> tuple[tuple[str, int, int], ...]:
    """The names a list-of-names value (``conflicts``, ``knowledge``) declares, each with where it is written."""
    items = re.split(r"[,\s]+", value) if isinstance(value, str) else value if isinstance(value, list) else []
    where = key_lines.get(key, (1, 1))
    return tuple((item.strip(), *key_lines.get(f"{key}[{index}]", where))
                 for index, item in enumerate(items) if isinstance(item, str) and item.strip())


@dataclass(frozen=True, slots=True)
class StoredCheck:
    """A check as the cache holds it (:meth:`Checked.to_json`), its verdict made again: what it
    says of the skill apart from where the skill is."""

    verdict: Verdict
    skill: dict[str, Any] | None     # the kept skill's fields (:func:`~skillsite.source.skill.skill_fields`)

    @classmethod
    def of(cls, data: list[Any]) -> StoredCheck:
        return cls(Verdict.from_json(data[0]), skill_fields(data[1]) if data[1] is not None else None)


@dataclass(frozen=True, slots=True)
class Checked:
    """A skill read and checked on its own: its verdict, and the skill when it is kept (its
    final diagnostics are set after the catalog-wide checks), else its failed parse."""

    verdict: Verdict
    skill: Skill | None
    left_out: ParsedSkill | None

    def to_json(self) -> list[Any]:
        return [self.verdict.to_json(), skill_to_json(self.skill) if self.skill is not None else None]

    @classmethod
    def of_stored(cls, stored: StoredCheck, source: SourceFile, content: Content) -> Checked:
        """The check ``stored`` (:meth:`to_json`, read back), of the skill at ``source`` with this
        content (a left-out skill's bytes are not kept: nothing reads them)."""
        verdict = stored.verdict
        if stored.skill is None:
            return cls(verdict, None, ParsedSkill(source, None, {}, "", 1, b"", verdict.diagnostics))
        return cls(verdict, skill_of_fields(stored.skill, source, content.sha256, content.size, verdict.diagnostics),
                   None)

    def sha256(self) -> str:
        """The sha256 of the SKILL.md bytes this check was made of."""
        if self.skill is not None:
            return self.skill.sha256
        return hashlib.sha256(self.left_out.raw if self.left_out is not None else b"").hexdigest()


def _checked_alone(checking: Checking, index: int) -> tuple[ParsedSkill, Verdict]:
    """Skill ``index`` read, and its verdict on its own."""
    parsed = checking.parsed(index)
    return parsed, Verdict.of(parsed, *check_skill(parsed, checking.profile, checking.skill_dirs,
                                                    checking.knowledge_dir))


def _check(checking: Checking, index: int) -> Checked:
    with verdicts_kept():  # a skill's trigger patterns go through several checks: each is checked once
        parsed, verdict = _checked_alone(checking, index)
        if verdict.kept:
            return Checked(verdict, build_skill(parsed, verdict.diagnostics), None)
    return Checked(verdict, None, parsed)


def _check_all(checking: Checking, indexes: Sequence[int], jobs: int) -> list[Checked]:
    """Skills ``indexes`` checked on ``jobs`` processes, each skill given discovery's own source
    in place of the equal copy a worker sends back, and the one record of no requirements where
    it has none: a catalog holds each skill's paths and file list once."""
    return [_sharing_source(done, checking.sources[index])
            for index, done in zip(indexes, parallel_map(_check, checking, indexes, jobs))]


def _sharing_source(done: Checked, source: SourceFile) -> Checked:
    """``done`` with ``source`` as its skill's, when the two are equal (and :data:`NOTHING_REQUIRED`
    as its requirements, when they are)."""
    if done.skill is None:
        return done
    skill = holding(done.skill, {"source": source, "requirements": NOTHING_REQUIRED})
    return done if skill is done.skill else dataclasses.replace(done, skill=skill)


def _verdict(checking: Checking, index: int) -> Verdict:
    with verdicts_kept():  # see _check
        return _checked_alone(checking, index)[1]


def _catalog_diagnostics(found: Discovery, verdicts: Sequence[Verdict], knowledge_dir: Path | None,
                         cache: Cache | None, elsewhere: frozenset[str] = frozenset(), *,
                         exclude: Sequence[str] = (), max_bytes: int = DEFAULT_MAX_BYTES, jobs: int = 1,
                         copies: CopySettings | None = None, roots: Sequence[Path | str] = (),
                         ignored: frozenset[str] = frozenset()
                         ) -> tuple[tuple[Diagnostic, ...], dict[int, list], list[tuple[str, ...]], dict[str, str]]:
    """The diagnostics of the catalog beside each skill's own: discovery's (but those said again
    of a skill, :func:`_unread_places`), and those of the catalog-wide checks (names used twice,
    slash command clashes, unknown conflicts, dependencies, knowledge documents, look-alike
    descriptions, copies, trigger patterns past the catalog's budget), by skill index, for that
    skill's own list; the groups of copies (``copies``:
    how to group them, ``roots`` in source order); and the names dependencies resolved to one of
    a group's copies (:func:`_copy_aliases`).
    Only the look-alike pairs are cached (by every description): the others depend on other
    skills and files.  ``elsewhere``: names of skills beside a lone skill validated on its own,
    which its dependencies may name unchecked; ``exclude`` and ``max_bytes`` as the skills were
    discovered and read (they shape the releases dependencies are matched against); the look-alike
    pairs are scored on ``jobs`` processes.  ``ignored``: the codes dropped from what is said (an
    error of one of them leaves no skill out, so none that needs it either)."""
    kept = _kept_rows(found.sources, verdicts, cache.resident if cache is not None else None)
    shared: dict[int, list[Diagnostic]] = {}
    groups = _copies(kept, copies or CopySettings(), roots, cache)
    erring = _erring_alone(kept, ignored)
    unread = _unread_places(found.diagnostics, kept)
    standing = [standing_first(group, erring) for group in groups]
    prefer = (copies or CopySettings()).prefer
    names = _kept_check(cache, "names", kept, _naming, (tuple(standing), tuple(map(str, roots)), prefer),
                        lambda: _name_diagnostics(kept, standing, roots, prefer))
    before = [*unread.values(), *names,
              *_kept_check(cache, "relations", kept, _relating, (elsewhere,),
                           lambda: _relation_diagnostics(kept, elsewhere))]
    after = [*_knowledge_diagnostics(kept, knowledge_dir),
             *_kept_check(cache, "codex", kept, _bundling, (), lambda: _codex_diagnostics(kept)),
             *_kept_check(cache, "places", kept, _placing, (), lambda: _taken_place_diagnostics(kept)),
             *_kept_check(cache, "ids", kept, _naming_folder, (), lambda: [*_unheld_id_diagnostics(kept),
                                                                           *_folded_id_diagnostics(kept)])]
    aliases = _copy_aliases(kept, groups, erring | _refused(kept, [*before, *after], ignored))
    found_here = [*before, *_dependency_diagnostics(kept, elsewhere, cache, exclude, max_bytes, aliases), *after]
    for position, diag in found_here:
        shared.setdefault(kept[position][0], []).append(diag)
    refused = erring | _refused(kept, found_here, ignored)
    needing = _needing_erring(kept, refused, elsewhere, ignored, aliases)
    for position, diag in needing:
        shared.setdefault(kept[position][0], []).append(diag)
    refused |= _refused(kept, needing, ignored)
    groups = [standing_first(group, refused) for group in groups]
    copies_said = _copy_diagnostics(kept, groups, refused)
    budget = _kept_check(cache, "trigger budget", kept, _triggering, (_copies_of(groups),),
                         lambda: _trigger_budget_diagnostics(kept, groups))
    for position, diag in [*copies_said, *_look_alike_diagnostics(kept, cache, jobs, groups), *budget]:
        shared.setdefault(kept[position][0], []).append(diag)
    return tuple(d for d in found.diagnostics if d not in unread), shared, groups, aliases


#: Where a long-running process's resident objects keep the last result of each catalog-wide check
#: that :func:`_kept_check` keeps (by the check's name).
CATALOG_CHECKS = "catalog-wide checks"
Kept = Sequence[tuple[int, SourceFile, Verdict]]


def _kept_check(cache: Cache | None, name: str, kept: Kept, fields: Callable[[SourceFile, Verdict], Any],
                inputs: tuple[Any, ...], make: Callable[[], list[tuple[int, Diagnostic]]]
                ) -> list[tuple[int, Diagnostic]]:
    """``make()``, a catalog-wide check that reads of each kept skill (in order) only what
    ``fields`` gives of its source and verdict, and ``inputs``; in a long-running process, the
    last build's result when its skills, in the same places, were the very same objects or gave
    equal fields, and its inputs were equal (an edit of a skill's body changes no such check).
    The result is shared between builds: nothing may change it."""
    resident = cache.resident if cache is not None else None
    if resident is None:
        return make()
    last = resident.take(CATALOG_CHECKS, name)
    now = tuple(kept)
    found = last[2] if last is not None and last[1] == inputs and _same_fields(last[0], now, fields) else make()
    resident.keep(CATALOG_CHECKS, name, (now, inputs, found))  # the newest objects: compared by identity next time
    return found


def _same_fields(last: Kept, now: Kept, fields: Callable[[SourceFile, Verdict], Any]) -> bool:
    """Whether each skill of ``now`` is, in its place, the very one of ``last`` or gives equal ``fields``."""
    return len(last) == len(now) and all((was_src is src and was is verdict)
                                         or fields(was_src, was) == fields(src, verdict)
                                         for (_, was_src, was), (_, src, verdict) in zip(last, now))


def _naming(src: SourceFile, verdict: Verdict) -> Any:
    """What the check of names used twice reads of a skill."""
    return src.id, src.display_path, verdict.name, verdict.name_at, verdict.priority, src.root


def _relating(src: SourceFile, verdict: Verdict) -> Any:
    """What the slash command and conflicts checks read of a skill."""
    return src.id, src.display_path, verdict.name, verdict.priority, verdict.conflicts, verdict.user_invocable


def _bundling(src: SourceFile, verdict: Verdict) -> Any:
    """What a check reading a skill's bundled files (its Codex file) depends on: its place, and
    its files with their stamps (as the build trusts them; a change to its SKILL.md changes none),
    but nothing equal when its Codex file changed too recently for its stamp to show a second change."""
    return src.id, src.dir, src.display_path, src.files, _racy_codex_file(src)


def _racy_codex_file(src: SourceFile) -> object | None:
    """A new object (equal to no other) when the skill's Codex file changed within the file
    system's timestamp granularity, else None."""
    recent = time.time_ns() - RACY_NS
    return object() if any(f.path == CODEX_FILE and max(f.mtime_ns, f.ctime_ns) >= recent for f in src.files) \
        else None


def _placing(src: SourceFile, verdict: Verdict) -> Any:
    """What the check of folders taking the place of the catalog's files reads of a skill."""
    return src.id, src.parent_id, src.display_path, verdict.version


def _naming_folder(src: SourceFile, verdict: Verdict) -> Any:
    """What the checks of skill ids (XML characters, case and Unicode spelling) read of a skill."""
    return src.id, src.display_path


def _triggering(src: SourceFile, verdict: Verdict) -> Any:
    """What the trigger patterns' budget check reads of a skill."""
    return src.id, src.display_path, verdict.offered, verdict.patterns, verdict.always, verdict.priority


def _copies_of(groups: Sequence[tuple[str, ...]]) -> frozenset[str]:
    """Every member of a group of copies but the one standing for it."""
    return frozenset(copy for group in groups for copy in group[1:])


def _relation_diagnostics(kept: Kept, elsewhere: frozenset[str] = frozenset()) -> list[tuple[int, Diagnostic]]:
    """SK215 and SK217 (:func:`~skillsite.source.relations.relation_diagnostics`), by position in ``kept``."""
    return relation_diagnostics([Member(src, v.name, v.priority, v.conflicts, v.user_invocable) for _, src, v in kept],
                                elsewhere)


def _refused(kept: Sequence[tuple[int, SourceFile, Verdict]], found: Iterable[tuple[int, Diagnostic]],
             ignored: frozenset[str]) -> frozenset[str]:
    """The ids of the kept skills an error of ``found`` (by position in ``kept``) is about, of a
    code not ``ignored`` (an ignored error is dropped: it leaves no skill out)."""
    return frozenset(kept[position][1].id for position, diag in found
                     if diag.severity is Severity.ERROR and diag.code not in ignored)


def _erring_alone(kept: Sequence[tuple[int, SourceFile, Verdict]], ignored: frozenset[str]) -> frozenset[str]:
    """The ids of the kept skills whose own check found an error of a code not ``ignored``."""
    return frozenset(src.id for _, src, v in kept if _has_errors(v, ignored))


#: Where a long-running process's resident objects keep each kept skill's row for the catalog-wide checks (by its id).
KEPT_ROW = "kept row"


def _kept_rows(sources: Sequence[SourceFile], verdicts: Sequence[Verdict], resident: KeptObjects | None
               ) -> list[tuple[int, SourceFile, Verdict]]:
    """(index, source, verdict) of each skill kept; in a long-running process, the row made
    before of this very verdict at the same place, taken again: ten thousand rows made anew at
    each save would outlive the young collections of the garbage collector, and bring on full ones."""
    return [kept_or_made(resident, KEPT_ROW, src.id, v, (index, src), lambda index=index, src=src, v=v: (index, src, v))
            for index, (src, v) in enumerate(zip(sources, verdicts)) if v.kept]


def _copy_aliases(kept: Sequence[tuple[int, SourceFile, Verdict]], groups: Sequence[tuple[str, ...]],
                  refused: AbstractSet[str]) -> dict[str, str]:
    """The names that only copies of one skill share, each -> the copy a dependency on it needs
    (:func:`~skillsite.source.dependencies.copy_aliases`).

    That should be the copy standing for the group (the one listed, offered and published first),
    but which copy stands depends on every error of the catalog (:func:`standing_first`), and the
    dependency check, which needs the answer, finds some of them.  The order that is sound:

    1. group (:func:`_copies` reads what skills hold, no error: a copy with errors is a member);
    2. ``refused``: the ids with errors of their own or of the checks that read no dependency,
       of codes not ignored (an ignored error counts nowhere: the skill is published);
    3. each group's first member not refused is the one its name stands for;
    4. dependencies are resolved with that, once, then :func:`_needing_erring` leaves out the
       skills needing one with errors, down the chain;
    5. only then is the copy standing chosen again, over every error (SK229 names it, and the
       build's first published member is it).

    Should step 4 refuse the alias's copy (its own dependencies fail, it is on a cycle, it needs a
    skill with errors), another copy stands for the group, but the alias does not move: moving it
    would undo what the check said of the ranges and cycles of the skills needing it.  They need a
    member with errors, so they are left out with SK223 naming that copy (:func:`_needing_erring`),
    as ``validate`` and the build both say.  Otherwise the alias is the copy that stands, and the
    manifest's dependency names it."""
    if not groups:
        return {}
    return copy_aliases(((src.id, v.name) for _, src, v in kept), [standing_first(group, refused) for group in groups])


def _needing_erring(kept: Sequence[tuple[int, SourceFile, Verdict]], refused: AbstractSet[str],
                    elsewhere: frozenset[str], ignored: frozenset[str], aliases: Mapping[str, str]
                    ) -> list[tuple[int, Diagnostic]]:
    """SK223 for the skills that need one of ``refused`` (the ids with errors of their own or of the
    catalog's checks, of codes not ``ignored``: a build leaves them out), down the chain
    (:func:`~skillsite.source.dependencies.needing_erring`; ``aliases``: see :func:`_copy_aliases`);
    none when SK223 is ignored, as a build then publishes them without it."""
    if "SK223" in ignored or not refused or not any(v.depends for _, _, v in kept):
        return []
    erring = {position for position, (_, src, _) in enumerate(kept) if src.id in refused}
    dependents = _dependents(kept)
    return needing_erring(dependents, erring, elsewhere, aliases)


def _unread_places(found: Sequence[Diagnostic], kept: Sequence[tuple[int, SourceFile, Verdict]]
                   ) -> dict[Diagnostic, tuple[int, Diagnostic]]:
    """Discovery's SK006 for a file or folder inside a kept skill, said again of that skill (the
    deepest one holding it), at its SKILL.md: a skill missing what it holds is not whole, so it
    is not published, and ``validate`` calls it invalid.  By the discovery diagnostic it replaces.
    (No skill's folder is looked at when discovery said no SK006, as it mostly does.)"""
    if not any(diag.code == "SK006" for diag in found):
        return {}
    folders = sorted(((posixpath.dirname(src.display_path) + "/", position)
                      for position, (_, src, _) in enumerate(kept)), key=lambda held: -len(held[0]))
    moved: dict[Diagnostic, tuple[int, Diagnostic]] = {}
    for diag in found:
        holder = next(((folder, position) for folder, position in folders if diag.path.startswith(folder)), None) \
            if diag.code == "SK006" else None
        if holder is not None:
            folder, position = holder
            what, _, cause = diag.message.partition(":")
            moved[diag] = (position, make("SK006", f"{what} '{diag.path[len(folder):]}':{cause}",
                                          kept[position][1].display_path))
    return moved


def _copies(kept: Sequence[tuple[int, SourceFile, Verdict]], settings: CopySettings,
            roots: Sequence[Path | str], cache: Cache | None = None) -> list[tuple[str, ...]]:
    """The groups of copies among the kept skills, each in canonical order
    (:mod:`skillsite.source.copies`).  Grouping reads what the skills hold, never their errors: one
    with errors is a copy all the same, so a name only it and its copies hold is theirs
    (:func:`_copy_aliases`), and it is not published, so it does not stand for them
    (:func:`standing_first`); fixing it regroups nothing.  The pairs compared are kept for the next
    build, and so is the grouping (:mod:`skillsite.source.kept_grouping`): in the cache, and among
    its resident objects in a long-running process."""
    places = source_places(roots, (src.root for _, src, _ in kept))
    resident = cache.resident if cache is not None and settings.group else None
    candidates = [kept_or_made(resident, CANDIDATE, src.id, v, (places[src.root],), lambda src=src, v=v:
                               Candidate(src.id, v.fingerprint, places[src.root], v.priority, v.offered, v.listed))
                  for _, src, v in kept if v.fingerprint is not None]
    if cache is None or not settings.group:
        return group_copies(candidates, settings)
    last = _last_grouping(cache)
    if last is not None and (groups := last.reused(candidates, settings)) is not None:
        _keep_known_comparisons(cache, settings.similarity)
        # a long-running process keeps its grouping among its objects: the cache's is stored again
        # when a grouping is made anew (a later process checks what changed since, as this one does)
        _keep_grouping(cache, last, stored=not last.updated or cache.resident is not None)
        return groups
    comparisons, stored = _known_comparisons(cache, settings.similarity)
    groups = group_copies(candidates, settings, comparisons)
    if comparisons is not None:  # (a cache's always are: remembered, or none yet)
        _keep_comparisons(cache, comparisons, stored)
    _keep_grouping(cache, KeptGrouping.of(candidates, settings, groups), stored=False)
    return groups


def _last_grouping(cache: Cache) -> KeptGrouping | None:
    """The grouping the last build or check kept: among the resident objects of a long-running
    process (taken: it is kept again), else in the cache (None: none, or one that cannot be read)."""
    if cache.resident is not None and (kept := cache.resident.take(*GROUPING)) is not None:
        return kept
    stored = cache.get(Section.COPIES, _GROUPING_KEY)
    try:
        return KeptGrouping.from_json(stored) if stored is not None else None
    except (KeyError, TypeError, ValueError):  # another shape: grouped anew, and replaced
        return None


def _keep_grouping(cache: Cache, grouping: KeptGrouping, stored: bool) -> None:
    """Keep ``grouping`` for the next build: among the resident objects of a long-running
    process, and in the cache (left as it is when it is ``stored`` there already)."""
    if cache.resident is not None:
        cache.resident.keep(*GROUPING, grouping)
    if stored:
        cache.keep_many(Section.COPIES, [_GROUPING_KEY])
    else:
        cache.put(Section.COPIES, _GROUPING_KEY, grouping.to_json())


#: Where the cache's resident objects keep the pairs of skills grouping compared (:class:`Comparisons`),
#: and the last grouping (:class:`~skillsite.source.kept_grouping.KeptGrouping`).
COMPARISONS = ("copies", "comparisons")
GROUPING = ("copies", "grouping")
#: Where they keep each skill's candidate for grouping (by its id), made of its very verdict.
CANDIDATE = "copies candidate"
#: The cache key of the last grouping (:class:`~skillsite.source.kept_grouping.KeptGrouping`):
#: one per cache file, of whatever settings (the grouping holds them).
_GROUPING_KEY = digest("copies", "the last grouping")


def _comparisons_key(threshold: float) -> str:
    """The cache key of the pairs grouping compared at ``threshold`` (their answers depend on it
    and on the two SKILL.md files alone)."""
    return digest("comparisons", threshold)


def _known_comparisons(cache: Cache | None, threshold: float) -> tuple[Comparisons | None, bool]:
    """The comparisons an earlier build made (those the resident objects hold, else the cache's;
    None without a cache: nothing is remembered), and whether the cache holds them."""
    if cache is None:
        return None, False
    key = _comparisons_key(threshold)
    if cache.resident is not None and (kept := cache.resident.take(*COMPARISONS)) is not None:
        return Comparisons(threshold, kept), cache.has(Section.COPIES, key)
    stored = cache.get(Section.COPIES, key)
    return Comparisons.of_stored(threshold, stored), stored is not None


def _keep_known_comparisons(cache: Cache, threshold: float) -> None:
    """Keep the comparisons an earlier build made (among the resident objects, and in the cache
    file) when this build compared nothing (its grouping was the last one): a resident object
    taken is kept for the next build."""
    if cache.resident is not None:
        cache.resident.take(*COMPARISONS)
    cache.keep_many(Section.COPIES, [_comparisons_key(threshold)])


def _keep_comparisons(cache: Cache, comparisons: Comparisons, stored: bool) -> None:
    """Store this build's comparisons when they differ from those the cache holds, or it holds
    none and there are some, and keep them among the resident objects."""
    used = comparisons.used or {}
    if comparisons.learned or (used and not stored):
        cache.put(Section.COPIES, _comparisons_key(comparisons.threshold), comparisons.to_json())
    if cache.resident is not None:
        cache.resident.keep(*COMPARISONS, used)


def _name_diagnostics(kept: Sequence[tuple[int, SourceFile, Verdict]], groups: Sequence[tuple[str, ...]],
                      roots: Sequence[Path | str], prefer: Sequence[str]) -> list[tuple[int, Diagnostic]]:
    """SK212 for names used twice, among the skills shown (a copy is shown as its canonical
    member), each naming the skill that holds the name as the discovery indexes give it: the first
    in :func:`~skillsite.source.copies.name_claim_order` (``roots`` in source order, then
    priority, ``prefer``), so ``skills/foo`` holds it before a variant in ``.claude/skills/foo``."""
    copies = {copy for group in groups for copy in group[1:]}
    first: dict[str, int] = {}
    clashing = [position for position, (_, src, v) in enumerate(kept)
                if src.id not in copies and first.setdefault(v.name, position) != position]
    if not clashing:
        return []
    sharing = sorted({*clashing, *(first[kept[position][2].name] for position in clashing)})
    places = source_places(roots, (kept[position][1].root for position in sharing))
    order = name_claim_order([(kept[at][1].id, places[kept[at][1].root], kept[at][2].priority) for at in sharing],
                             prefer)
    named = [(kept[sharing[at]][1], kept[sharing[at]][2].name, kept[sharing[at]][2].name_at) for at in order]
    return sorted(((sharing[order[at]], diag) for at, diag in duplicate_name_diagnostics(named)),
                  key=lambda found: found[0])


def standing_first(group: tuple[str, ...], refused: AbstractSet[str]) -> tuple[str, ...]:
    """A group (in canonical order) with its first member the catalog-wide checks did not refuse
    first: that one stands for the group, as the refused one is not published."""
    standing = next((skill_id for skill_id in group if skill_id not in refused), group[0])
    return (standing, *(skill_id for skill_id in group if skill_id != standing))


def _copy_diagnostics(kept: Sequence[tuple[int, SourceFile, Verdict]], groups: Sequence[tuple[str, ...]],
                      refused: AbstractSet[str]) -> list[tuple[int, Diagnostic]]:
    """SK229 (info) for every copy a build publishes beside the member standing for its group
    (``groups``: standing member first; ``refused``: the skills with errors, left out): it is shown
    once, as that one.  Said of none that is left out and counting none, as the build publishes the
    group; a group with one member published is none."""
    position = {src.id: n for n, (_, src, _) in enumerate(kept)}
    found = []
    for group in groups:
        published = [skill_id for skill_id in group if skill_id not in refused]
        found += [(position[copy], make(COPY_CODE, copy_message(published[0], len(published)),
                                        kept[position[copy]][1].display_path, *kept[position[copy]][2].name_at))
                  for copy in published[1:]]
    return found


def _trigger_budget_diagnostics(kept: Sequence[tuple[int, SourceFile, Verdict]], groups: Sequence[tuple[str, ...]]
                                ) -> list[tuple[int, Diagnostic]]:
    """SK231 for every skill some of whose trigger patterns are past the catalog's budget, as the
    loader counts it (:func:`~skillsite.agent.triggers.within_catalog_budget`): the skills offered
    to a model in prompt order, copies left out.  A skill with errors counts too (it may be
    published with ``--keep-going`` or an ignored code): counting more never hides one left out."""
    copies = {copy for group in groups for copy in group[1:]}
    ordered = sorted((position for position, (_, src, v) in enumerate(kept) if v.offered and src.id not in copies
                      and v.patterns),
                     key=lambda at: prompt_rank(kept[at][2].always, kept[at][2].priority, kept[at][1].id))
    runs = within_catalog_budget([work for _, _, _, work in kept[at][2].patterns] for at in ordered)
    found = [(at, catalog_budget_diagnostic(kept[at][2].patterns, ran, kept[at][1].display_path))
             for at, ran in zip(ordered, runs)]
    return [(at, diag) for at, diag in found if diag is not None]


def _dependents(kept: Sequence[tuple[int, SourceFile, Verdict]]) -> list[Dependent]:
    """What the dependency checks know of each kept skill, in order."""
    return [Dependent(src.id, v.name, src.display_path, v.depends) for _, src, v in kept]


def _dependency_diagnostics(kept: Sequence[tuple[int, SourceFile, Verdict]], elsewhere: frozenset[str],
                            cache: Cache | None, exclude: Sequence[str], max_bytes: int,
                            aliases: Mapping[str, str]) -> list[tuple[int, Diagnostic]]:
    """SK223, SK224 and SK225: dependencies that name no skill (or a name different skills share:
    one only copies share is an alias, :func:`_copy_aliases`), that no release satisfies, or that
    go round in a circle.  Each skill's releases are the versions its history gives
    (:func:`~skillsite.source.releases.release_versions`; git is asked only when some skill declares
    a dependency).  None to look for when no skill declares one."""
    if not any(v.depends for _, _, v in kept):
        return []
    dependents = _dependents(kept)
    releases = current_releases({src.id: v.version for _, src, v in kept})
    versioned = [VersionedSkill(src.id, v.name, v.version, src) for _, src, v in kept]
    releases.update(release_versions(versioned, cache, exclude=exclude, max_bytes=max_bytes))
    return resolve_dependencies(dependents, releases, elsewhere, aliases).diagnostics


#: What the look-alike check knows of a skill's visibility: offered to a model or not (one
#: record each, shared by every skill).
_OFFERED, _NOT_OFFERED = Visibility(), Visibility(hidden=True)


def _look_alike_diagnostics(kept: Sequence[tuple[int, SourceFile, Verdict]], cache: Cache | None, jobs: int,
                            groups: Sequence[tuple[str, ...]] = ()) -> list[tuple[int, Diagnostic]]:
    """SK219 for every pair of skills offered to a model whose descriptions it could not tell
    apart (the pairs cached: they depend on the descriptions and visibility only); a copy of
    another skill (``groups``) is offered as that one, so it is no pair of it.  In a long-running
    process, the last check's diagnostics are taken again when every skill in its place is the
    very one of the last check or describes itself alike (:func:`_describing`), or when its listing
    and every skill's place are the same (a catalog of thousands has thousands of such pairs, each
    made anew)."""
    copies = _copies_of(groups)
    resident = cache.resident if cache is not None else None
    last: _Found | None = resident.take(*_LAST_FOUND) if resident is not None else None
    if cache is not None and last is not None and last.copies == copies and _same_fields(last.kept, kept, _describing):
        return _found_again(cache, last._replace(kept=tuple(kept)))
    listing = [ListedSkill(src.id, v.name, v.description, v.priority,
                           _NOT_OFFERED if not v.offered or src.id in copies else _OFFERED, terms=v.description_terms)
               for _, src, v in kept]
    key = digest("similar", [(s.id, s.description, s.visibility.hidden) for s in listing])
    places = tuple((src.display_path, v.description_at) for _, src, v in kept)
    if cache is not None and last is not None and (last.key, last.places) == (key, places):
        return _found_again(cache, _Found(key, places, copies, tuple(kept), last.found))
    found = _look_alike_found(kept, listing, key, cache, jobs)
    if resident is not None:
        resident.keep(*_LAST_FOUND, _Found(key, places, copies, tuple(kept), found))
    return found


def _describing(src: SourceFile, verdict: Verdict) -> Any:
    """What the look-alike check reads of a skill."""
    return src.id, src.display_path, verdict.name, verdict.description, verdict.priority, verdict.offered, \
        verdict.description_at


def _found_again(cache: Cache, found: _Found) -> list[tuple[int, Diagnostic]]:
    """The last look-alike check's diagnostics, taken again: its pairs stay stored (unread), its
    scoring and ``found`` kept for the next check."""
    cache.keep_many(Section.SIMILAR, (found.key,))
    if cache.resident is not None:
        cache.resident.take(*_LAST_SCORING)
        cache.resident.keep(*_LAST_FOUND, found)
    return found.found


def _look_alike_found(kept: Sequence[tuple[int, SourceFile, Verdict]], listing: list[ListedSkill], key: str,
                      cache: Cache | None, jobs: int) -> list[tuple[int, Diagnostic]]:
    """The SK219 diagnostics of ``listing`` (whose key is ``key``), its pairs from the cache or scored now."""
    pairs = cache.get(Section.SIMILAR, key) if cache is not None else None
    resident = cache.resident if cache is not None else None
    if pairs is None:
        pairs = [list(pair) for pair in _similar_pairs(listing, jobs, key, resident)]
        if cache is not None:
            cache.put(Section.SIMILAR, key, pairs)
    elif resident is not None:
        _keep_scoring(resident, key, listing, pairs)
    position = {src.id: index for index, (_, src, _) in enumerate(kept)}
    return [(position[second], make("SK219", f"description is too close to that of skill '{first}' (similarity "
                                             f"{score:.2f} of 1): a model choosing by description cannot tell "
                                             "them apart", kept[position[second]][1].display_path,
                                    *kept[position[second]][2].description_at))
            for score, first, second in pairs]


#: Where ``serve`` keeps the last look-alike check (a :class:`_Scoring`).
_LAST_SCORING = ("similar-scoring", "last")
#: Where ``serve`` keeps the last look-alike check's diagnostics (a :class:`_Found`).
_LAST_FOUND = ("similar-found", "last")


class _Found(NamedTuple):
    """The last look-alike check: its listing's key, the skills' places (of their descriptions),
    the copies not offered, the kept skills it read, and its diagnostics."""

    key: str
    places: tuple[tuple[str, tuple[int, int]], ...]
    copies: frozenset[str]
    kept: tuple[tuple[int, SourceFile, Verdict], ...]
    found: list[tuple[int, Diagnostic]]


class _Scoring(NamedTuple):
    """A look-alike check ``serve`` keeps for the next: its listing's key, its scoring and its pairs."""

    key: str
    similarity: Similarity
    pairs: list[tuple[float, str, str]]


def _similar_pairs(listing: list[ListedSkill], jobs: int, key: str = "", resident: KeptObjects | None = None
                   ) -> list[tuple[float, str, str]]:
    """:func:`~skillsite.agent.budget.similar_pairs` of ``listing``, its groups scored on ``jobs``
    processes (the pairs do not depend on it).  With ``resident`` objects (``serve``), only the
    groups whose descriptions' weights changed since the last check are scored again
    (:class:`~skillsite.agent.budget.ChangedPairs`); ``key``: the listing's, kept with them."""
    last: _Scoring | None = resident.take(*_LAST_SCORING) if resident is not None else None
    similarity = Similarity.of(listing, SIMILAR_SCORE, last.similarity if last is not None else None)
    changed = ChangedPairs.between(last.similarity, last.pairs, similarity) if last is not None else None
    if changed is None:
        pairs = most_alike_first(parallel_map(Similarity.pairs_of, similarity, range(len(similarity.groups)), jobs))
    else:
        pairs = most_alike_first([changed.kept, *parallel_map(ChangedPairs.pairs_of, changed, sorted(changed.changed),
                                                              jobs)])
    if resident is not None:
        resident.keep(*_LAST_SCORING, _Scoring(key, similarity, pairs))
    return pairs


def _keep_scoring(resident: KeptObjects, key: str, listing: list[ListedSkill], pairs: list[list[Any]]) -> None:
    """Keep the scoring of ``listing`` (whose pairs the cache held) for ``serve``'s next check:
    the one kept already when it is of this listing, else made again."""
    last: _Scoring | None = resident.take(*_LAST_SCORING)
    if last is None or last.key != key:
        last = _Scoring(key, Similarity.of(listing, SIMILAR_SCORE, last.similarity if last is not None else None),
                        [(score, first, second) for score, first, second in pairs])
    resident.keep(*_LAST_SCORING, last)


def _knowledge_diagnostics(kept: Sequence[tuple[int, SourceFile, Verdict]], knowledge_dir: Path | None
                           ) -> list[tuple[int, Diagnostic]]:
    """SK218 for every declared knowledge document that is missing or outside its folder."""
    found, listings = [], {}
    for position, (_, src, verdict) in enumerate(kept):
        if verdict.knowledge:
            _, diags = locate_all([k[0] for k in verdict.knowledge], src.id, src.dir, knowledge_dir,
                                  frozenset(f.path for f in src.files), src.display_path,
                                  [k[1:] for k in verdict.knowledge], listings)
            found += [(position, d) for d in diags]
    return found


def _codex_diagnostics(kept: Sequence[tuple[int, SourceFile, Verdict]]) -> list[tuple[int, Diagnostic]]:
    """SK220 for every problem of a skill's Codex ``agents/openai.yaml``."""
    return [(position, diag) for position, (_, src, _) in enumerate(kept)
            if any(f.path == CODEX_FILE for f in src.files)
            for diag in read_codex_file(src.dir, src.display_path, frozenset(f.path for f in src.files))[1]]


def _has_errors(verdict: Verdict, ignored: frozenset[str]) -> bool:
    """Whether a skill's own check found an error whose code is not ``ignored``."""
    return any(d.severity is Severity.ERROR and d.code not in ignored for d in verdict.diagnostics)


def _taken_place_diagnostics(kept: Sequence[tuple[int, SourceFile, Verdict]]) -> list[tuple[int, Diagnostic]]:
    """SK015 for every skill whose published folder would take the place of a file the catalog
    writes (``skills/index.json``, a file of the skill holding it, or that skill's releases when
    it is versioned): it cannot be published."""
    versioned = {src.id for _, src, verdict in kept if canonical_version(verdict.version) is not None}
    return [(position, make("SK015", f"skill folder '{name}' would take the place of the catalog's own "
                                     f"'{name}' there; rename the folder", src.display_path))
            for position, (_, src, _) in enumerate(kept)
            if (name := taken_name(src.id, src.parent_id, src.parent_id in versioned)) is not None]


def _unheld_id_diagnostics(kept: Sequence[tuple[int, SourceFile, Verdict]]) -> list[tuple[int, Diagnostic]]:
    """:func:`_unheld_id` of every skill: those whose ids cannot be published."""
    return [(position, diag) for position, (_, src, _) in enumerate(kept) if (diag := _unheld_id(src)) is not None]


def _unheld_id(src: SourceFile) -> Diagnostic | None:
    """SK018 when the skill's id (its folder's path) holds a character XML 1.0 forbids: its prompt
    fragment (skill.xml) could only name it otherwise than skills.json does; SK019 when it holds
    a backslash, which the loader and installers refuse in a path (Windows reads it as a
    separator), or a name installers refuse as a skill's folder (:func:`skill_folder_problem`:
    a hidden one, a ``:``, a Windows device name, a last dot or space); else None."""
    char = xml_forbidden(src.id)
    if char is not None:
        return make("SK018", f"skill folder '{src.id}' holds U+{ord(char):04X}, a character the skill's prompt "
                             "fragment (skill.xml, XML 1.0) cannot hold; not published: rename the folder",
                    src.display_path)
    if "\\" in src.id:
        return make("SK019", f"skill folder '{src.id}' holds a backslash, which agents refuse in a path (a "
                             "separator on Windows); not published: rename the folder", src.display_path)
    if windows_drive(src.id):
        return make("SK019", f"skill folder '{src.id}' starts as a Windows drive does ('{src.id[:2]}'), which "
                             "agents refuse as an absolute path; not published: rename the folder", src.display_path)
    if (problem := skill_folder_problem(src.id)) is not None:
        return make("SK019", f"skill folder '{src.id}' cannot be installed by agents: {problem}; not published: "
                             "rename the folder", src.display_path)
    return None


def _folded_id_diagnostics(kept: Sequence[tuple[int, SourceFile, Verdict]]) -> list[tuple[int, Diagnostic]]:
    """SK232 for every skill whose id another skill's id equals but for case or Unicode spelling
    (NFC against NFD): file systems that ignore those (macOS, Windows) hold one folder for both,
    so a copy of the catalog there loses one of them.  Said of each but the first, in id order."""
    folded = [one_spelling(src.id) for _, src, _ in kept]
    if len(set(folded)) == len(folded):  # the usual catalog: no two alike, nothing to group
        return []
    by_folded: dict[str, list[tuple[str, int]]] = {}
    for position, ((_, src, _), key) in enumerate(zip(kept, folded)):
        by_folded.setdefault(key, []).append((src.id, position))
    found = []
    for ids in by_folded.values():
        first, *others = sorted(ids)
        found += [(position, make("SK232", f"skill id '{skill_id}' differs from '{first[0]}' only in case or Unicode "
                                           "spelling; a file system that ignores those (macOS, Windows) holds one "
                                           "folder for both", kept[position][1].display_path))
                  for skill_id, position in others]
    return found


def read_catalog(roots: Sequence[Path | str], *, exclude: Sequence[str] = (), profile: str = "default",
                 ignore: Iterable[str] = (), max_bytes: int = DEFAULT_MAX_BYTES, jobs: int = 1,
                 found: Discovery | None = None, cache: Cache | None = None,
                 knowledge_dir: Path | None = None, copies: CopySettings | None = None) -> CatalogReading:
    """Discover, parse and validate every skill under ``roots`` (``found``: their discovery, if done).

    A skill whose description is missing or whose frontmatter cannot be read is left out;
    any other problem keeps it, with its diagnostics.  Codes in ``ignore`` are dropped.
    Knowledge documents are looked for in ``knowledge_dir`` (default: ``knowledge/`` in the
    first root).
    """
    found = found or discover(roots, exclude)
    knowledge_dir = knowledge_dir or default_knowledge_dir(roots)
    checking = Checking.of(found, profile, max_bytes, knowledge_dir=knowledge_dir)
    if cache is None:
        checked = _check_all(checking, range(len(found.sources)), jobs)
    else:
        checked = _cached_checks(checking, cache, jobs)
    checked = [_codex_policy(c, cache) for c in checked]
    ignored = frozenset(ignore)
    found_here, shared, groups, aliases = _catalog_diagnostics(found, [c.verdict for c in checked], knowledge_dir,
                                                               cache, exclude=exclude, max_bytes=max_bytes, jobs=jobs,
                                                               copies=copies, roots=roots, ignored=ignored)
    skills = tuple(_final_skill(cache, c.skill, _final_diagnostics(c.verdict.diagnostics, shared.get(index), ignored))
                   for index, c in enumerate(checked) if c.skill is not None)
    left_out = tuple(c.left_out for c in checked if c.left_out is not None)
    parts = _diagnostic_parts(found_here, checked, skills, cache.notes if cache else (), ignored)
    return CatalogReading(found.sources, skills, left_out, _sorted_parts(parts, cache), tuple(groups),
                          () if "SK303" in ignored else _missing_places(checking, checked),
                          tuple(sorted(aliases.items())))


def _final_diagnostics(own: tuple[Diagnostic, ...], shared: Sequence[Diagnostic] | None,
                       ignored: frozenset[str]) -> tuple[Diagnostic, ...]:
    """A kept skill's diagnostics: its own and the catalog-wide checks' (``shared``), but the
    ``ignored`` codes; its own tuple itself when that is all (so what is kept of it is found again)."""
    if not shared and not (ignored and any(d.code in ignored for d in own)):
        return own
    return tuple(d for d in (*own, *(shared or ())) if d.code not in ignored)


#: The keys of the parts of a catalog's diagnostics that are no skill's (skills' parts are keyed by id).
_DISCOVERY, _NOTES = ("discovery",), ("cache notes",)
#: Where a long-running process's resident objects keep the last reading's sorted diagnostics.
SORTED = ("catalog diagnostics", "sorted")


def _diagnostic_parts(found_here: Sequence[Diagnostic], checked: Sequence[Checked], skills: Sequence[Skill],
                      notes: Sequence[Diagnostic], ignored: frozenset[str]) -> dict[Any, tuple[Diagnostic, ...]]:
    """Every diagnostic of a reading but the ``ignored`` codes, in parts: discovery's (those not
    said again of a skill), the cache's notes, each kept skill's final ones and each left-out
    skill's, by id."""
    parts: dict[Any, tuple[Diagnostic, ...]] = {
        _DISCOVERY: tuple(d for d in found_here if d.code not in ignored),
        _NOTES: tuple(d for d in notes if d.code not in ignored)}
    parts.update((skill.id, skill.diagnostics) for skill in skills)
    parts.update((c.left_out.source.id, _final_diagnostics(c.verdict.diagnostics, None, ignored))
                 for c in checked if c.left_out is not None)
    return parts


def _sorted_parts(parts: dict[Any, tuple[Diagnostic, ...]], cache: Cache | None) -> tuple[Diagnostic, ...]:
    """The diagnostics of ``parts``, sorted (:func:`~skillsite.diagnostics.sort_diagnostics`); in a
    long-running process, the last reading's sorted list patched where parts changed
    (:class:`~skillsite.diagnostics.SortedParts`)."""
    resident = cache.resident if cache is not None else None
    if resident is None:
        return tuple(sort_diagnostics(d for part in parts.values() for d in part))
    last: SortedParts | None = resident.take(*SORTED)
    made = SortedParts.of(parts) if last is None else last.updated(parts)
    resident.keep(*SORTED, made)
    return made.ordered


def _missing_places(checking: Checking, checked: Sequence[Checked]) -> tuple[MissingPlace, ...]:
    """Where every SK303 target lies and what its warning said is there: what a rebuild with
    nothing to read looks at again (:func:`~skillsite.source.links.places_as_said`)."""
    return tuple(place for src, c in zip(checking.sources, checked) if c.verdict.missing
                 for place in missing_places(src, checking.skill_dirs, c.verdict.missing, c.verdict.diagnostics))


def _with_diagnostics(skill: Skill, diags: tuple[Diagnostic, ...]) -> Skill:
    """The skill with these diagnostics (itself when it has them already, as most skills do)."""
    return skill if diags == skill.diagnostics else dataclasses.replace(skill, diagnostics=diags)


def _missing_file_warnings(diags: Iterable[Diagnostic]) -> list[tuple[int, int, str]]:
    """Where and how a check said a link names a missing file (SK303), in order."""
    return sorted((d.line, d.col, d.message) for d in diags if d.code == "SK303")


def _reads_as_now(verdict: Verdict, source: SourceFile, checking: Checking) -> bool:
    """Whether a cached verdict holds now: its links asked the same of the catalog's skill
    folders and got the same answers (as ninja's depfiles: a skill added or removed elsewhere
    leaves every other check as it was, unless a link names its folder), and its
    missing-file warnings read as they would (:func:`_still_missing`)."""
    return (skills_answer_alike(source, checking.skill_dirs, verdict.skills_asked)
            and _still_missing(verdict, source, checking))


def _still_missing(verdict: Verdict, source: SourceFile, checking: Checking) -> bool:
    """Whether a cached verdict's missing-file warnings (SK303) read as they would now.  Their
    wording depends on what the file system holds at each target (a file left out of the skill,
    a symlink leaving it), which no cache key covers: each target the verdict kept is looked at
    again (the rest of the check is what its key says)."""
    cached = _missing_file_warnings(verdict.diagnostics)
    return not cached or missing_again(source, checking.skill_dirs, verdict.missing) == cached


@dataclass(frozen=True, slots=True)
class Content:
    """What identifies a SKILL.md's bytes, without keeping them."""

    sha256: str
    size: int

    def to_json(self) -> list[Any]:
        return [self.sha256, self.size]

    @classmethod
    def from_json(cls, data: list[Any]) -> Content:
        sha256, size = data
        return cls(sha256, size)


def _content(source: SourceFile, max_bytes: int) -> Content | None:
    """A SKILL.md's sha256 and size within the size limit; None when the parser should say why not."""
    try:
        raw = read_limited(source.skill_md, max_bytes)[0]
    except OSError:
        return None
    return Content(hashlib.sha256(raw).hexdigest(), len(raw)) if len(raw) <= max_bytes else None


def _file_stamp(src: SourceFile) -> tuple[int, ...] | None:
    """A SKILL.md's size, times, inode and device; None when it changed too recently to trust
    them (a second change within the file system's timestamp granularity could keep them all),
    or cannot be read."""
    try:
        st = os.stat(src.skill_md)
    except OSError:
        return None
    if max(st.st_mtime_ns, st.st_ctime_ns) >= time.time_ns() - RACY_NS:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev


#: Where a long-running process's resident objects keep each SKILL.md's stamp key (by its skill's id).
STAMP_KEY = "stamp key"


def _stamp_key(src: SourceFile, resident: KeptObjects | None = None) -> str | None:
    """Where the :class:`Content` of a SKILL.md is kept: its path and stamp (None: no stamp to
    trust).  In a long-running process, the key worked out last time for this very source, not
    looked at again: discovery keeps a source object only while the file watcher reports no
    change in its folder (#47 decided to trust it, as ``serve`` trusts it for the tree's shape)."""
    kept = resident.take(STAMP_KEY, src.id) if resident is not None else None
    if kept is not None and kept[0] is src:
        return kept[1]
    stamp = _file_stamp(src)
    if stamp is None:  # too recent to trust: looked at again next time
        return None
    key = digest("stamp", os.path.abspath(src.skill_md), stamp)
    if resident is not None:
        resident.keep(STAMP_KEY, src.id, (src, key))
    return key


def _contents(sources: Sequence[SourceFile], cache: Cache, max_bytes: int) -> tuple[list[Content | None], int]:
    """Every SKILL.md's :class:`Content` (None: unreadable or too big, left to the check to say
    why), and how many were known by their stamp.  As git's index does, the cache keeps each
    file's sha256 and size under its path and stamp (size, times, inode): a file whose stamp is
    unchanged is not read again.  The others are read and hashed, and kept under the stamp taken
    before reading: a change after it gives the file a new stamp."""
    keys = [_stamp_key(src, cache.resident) for src in sources]
    contents: list[Content | None] = []
    by_stamp = 0
    for src, key, known in zip(sources, keys, cache.made_many(Section.STAMPS, keys, Content.from_json)):
        if known is not None:
            contents.append(known)
            by_stamp += 1
            continue
        content = _content(src, max_bytes)
        if key is not None and content is not None:
            cache.put(Section.STAMPS, key, content.to_json())
        contents.append(content)
    return contents, by_stamp


#: Where a long-running process's resident objects keep each skill's check as made for its
#: source (by the check's key), and each skill's final form (by its id): see :func:`_stored_check`
#: and :func:`_final_skill`; each check with its Codex policy (:func:`_codex_policy`), and each
#: skill hidden by it.
CHECKED, FINAL, CODEX_HIDDEN, CODEX_POLICY = "checked", "final skill", "hidden by codex", "codex policy"


def _kept_checks(cache: Cache, keys: Sequence[str | None], sources: Sequence[SourceFile]) -> dict[int, Checked]:
    """In a long-running process, the checks the last build made or took under the same keys (the
    same bytes and place) for these very sources (discovery keeps the source of a skill whose files
    did not change), by index: their skills are not made again, nor their cached values read (a
    second copy of every verdict would be kept beside them, for the garbage collector to walk)."""
    resident = cache.resident
    if resident is None:
        return {}
    kept = {}
    for index, (key, source) in enumerate(zip(keys, sources)):
        checked = resident.take(CHECKED, key) if key is not None else None
        if checked is not None and checked.skill is not None and checked.skill.source is source:
            kept[index] = checked
    cache.keep_many(Section.SKILLS, (keys[index] for index in kept))  # still in the file for the next build
    return kept


def _codex_policy(checked: Checked, cache: Cache | None) -> Checked:
    """The check, its skill hidden from models when its Codex ``agents/openai.yaml`` allows no
    implicit invocation, as ``disable-model-invocation`` hides one (a person still invokes it).
    Read each time the check is new: no check's key covers that file.  In a long-running
    process, the policy applied to this very check before is taken again (a kept check is of the
    very source discovery kept, so of the same files), and so is the hidden skill made of this
    very skill (:func:`~skillsite.cache.kept_or_made`)."""
    skill = checked.skill
    if skill is None:
        return checked
    resident = cache.resident if cache is not None else None
    return kept_or_made(resident, CODEX_POLICY, skill.id, checked, (),
                        lambda: _codex_policy_of(checked, skill, resident))


def _codex_policy_of(checked: Checked, skill: Skill, resident: KeptObjects | None) -> Checked:
    """:func:`_codex_policy` of a check whose policy is not kept (``skill``: its skill)."""
    verdict = _offered_by_codex(checked.verdict, skill.source)
    if verdict is checked.verdict:
        return checked
    hidden = kept_or_made(resident, CODEX_HIDDEN, skill.id, skill, (), lambda: dataclasses.replace(skill, hidden=True))
    return dataclasses.replace(checked, verdict=verdict, skill=hidden)


def _offered_by_codex(verdict: Verdict, source: SourceFile | None) -> Verdict:
    """The verdict, not offered to a model when the skill's Codex file allows no implicit invocation."""
    if source is None or not verdict.offered or not any(f.path == CODEX_FILE for f in source.files) \
            or implicit_invocation_allowed(source.dir):
        return verdict
    return dataclasses.replace(verdict, offered=False)


def _final_skill(cache: Cache | None, skill: Skill, diags: tuple[Diagnostic, ...]) -> Skill:
    """``skill`` with its final diagnostics (:func:`_with_diagnostics`); in a long-running process,
    the one the last build made of this very skill when its diagnostics are the same
    (:func:`~skillsite.cache.kept_or_made`).  The skill itself when these are its very diagnostics
    (no catalog-wide check said more of it, as of most skills): nothing to keep or look up."""
    if diags is skill.diagnostics:
        return skill
    return kept_or_made(cache.resident if cache is not None else None, FINAL, skill.id, skill, (diags,),
                        lambda: _with_diagnostics(skill, diags))


#: Where a long-running process's resident objects keep each skill's check key (by its id): the one worked
#: out for this very source (discovery keeps each unchanged one) of an equal content and options.
CHECK_KEY = "check key"


def _cached_checks(checking: Checking, cache: Cache, jobs: int) -> list[Checked]:
    """Every skill checked, or taken from the cache when its SKILL.md's content and place, and
    everything its checks depend on, are what a cached check was made of."""
    contents, _ = _contents(checking.sources, cache, checking.max_bytes)
    # not the catalog's skill folders: what a check read of them is compared instead (_reads_as_now)
    shared = digest(checking.knowledge_dir, checking.profile, checking.max_bytes)
    resident = cache.resident
    keys = [kept_or_made(resident, CHECK_KEY, src.id, src, (shared, content.sha256), lambda src=src, content=content:
                         digest(shared, src.id, src.display_path, src.rel_path, str(src.root), str(src.dir),
                                src.parent_id, [f.path for f in src.files], content.sha256))
            if content is not None else None for src, content in zip(checking.sources, contents)]
    kept = _kept_checks(cache, keys, checking.sources)
    stored_checks = cache.made_many(Section.SKILLS, [None if index in kept else key for index, key in enumerate(keys)],
                                    StoredCheck.of)
    checked: list[Checked | None] = []
    for index, (src, content, stored) in enumerate(zip(checking.sources, contents, stored_checks)):
        done = kept.get(index) or (Checked.of_stored(stored, src, content)
                                   if stored is not None and content is not None else None)
        if done is not None and not _reads_as_now(done.verdict, src, checking):
            done = None
        if done is not None and done.skill is not None and cache.resident is not None:
            cache.resident.keep(CHECKED, keys[index], done)
        checked.append(done)
    todo = [index for index, c in enumerate(checked) if c is None]
    for index, done in zip(todo, _check_all(checking, todo, jobs)):
        checked[index] = done
        content = contents[index]
        if keys[index] is not None and content is not None and done.sha256() == content.sha256:
            cache.put(Section.SKILLS, keys[index], done.to_json())  # not when the file changed since it was hashed
            if cache.resident is not None and done.skill is not None:
                cache.resident.keep(CHECKED, keys[index], done)
    return [c for c in checked if c is not None]


# ---------------------------------------------------------------- verdicts only, for skillsite validate
#
# A verdict is kept by its SKILL.md's content and place, as the build keeps its checks, so a fresh
# checkout (every file new) finds the verdicts of an earlier job.  As in the build, a SKILL.md whose
# stamp is unchanged is not even read (:func:`_contents`).

def _verdict_key(shared: str, src: SourceFile, sha256: str) -> str:
    """Where a skill's verdict is kept: what the whole check shares, the skill's place and file
    list, and its SKILL.md's content."""
    return digest(shared, src.id, src.display_path, src.rel_path, str(src.root), src.parent_id,
                  [f.path for f in src.files], sha256)


def _checked_verdict(checking: Checking, index: int) -> tuple[Verdict, str]:
    """A skill's verdict, and the sha256 of the SKILL.md bytes it was made of (a worker's read may
    see a file changed since it was hashed: such a verdict is not kept under the old content)."""
    with verdicts_kept():  # see _check
        parsed, verdict = _checked_alone(checking, index)
    return verdict, hashlib.sha256(parsed.raw).hexdigest()


def _cached_verdicts(found: Discovery, checking: Checking, cache: Cache, jobs: int
                     ) -> tuple[list[Verdict], CacheUse]:
    """Every skill's verdict, from the cache where its SKILL.md's content and place (and what the
    whole check shares) are unchanged, else checked (and kept); and how the cache was used."""
    sources = found.sources
    shared = digest(checking.knowledge_dir, [d.to_json() for d in found.diagnostics], checking.profile,
                    checking.max_bytes)  # the catalog's skill folders are compared instead (_reads_as_now)
    contents, by_stamp = _contents(sources, cache, checking.max_bytes)
    shas = [content.sha256 if content is not None else None for content in contents]
    keys = [_verdict_key(shared, src, sha) if sha is not None else None for src, sha in zip(sources, shas)]
    verdicts: list[Verdict | None] = []
    for src, stored in zip(sources, cache.get_many(Section.VERDICTS, keys)):
        verdict = Verdict.from_json(stored) if stored is not None else None
        verdicts.append(verdict if verdict is not None and _reads_as_now(verdict, src, checking)
                        else None)
    todo = [index for index, verdict in enumerate(verdicts) if verdict is None]
    for index, (verdict, sha) in zip(todo, parallel_map(_checked_verdict, checking, todo, jobs)):
        verdicts[index] = verdict
        if keys[index] is not None and sha == shas[index]:
            cache.put(Section.VERDICTS, keys[index], verdict.to_json())
    use = CacheUse(by_stamp=by_stamp, hashed=len(sources) - by_stamp, reused=len(sources) - len(todo),
                   checked=len(todo))
    return [v for v in verdicts if v is not None], use


#: What a build would say of the bundled files it does not publish, given the readable skills with
#: their versions as written (:func:`skillsite.publish.bundled_names.unpublished_files`, which
#: this package cannot import: publishing builds on reading)
UnpublishedFiles = Callable[[Sequence[tuple[SourceFile, str | None]]], Sequence[Diagnostic]]


def check_catalog(roots: Sequence[Path | str], *, exclude: Sequence[str] = (), profile: str = "default",
                  ignore: Iterable[str] = (), max_bytes: int = DEFAULT_MAX_BYTES, jobs: int = 1,
                  cache: Cache | None = None, found: Discovery | None = None,
                  knowledge_dir: Path | None = None, copies: CopySettings | None = None,
                  unpublished: UnpublishedFiles | None = None) -> CatalogCheck:
    """The diagnostics and verdicts :func:`read_catalog` gives, without keeping the skills; with
    ``unpublished``, the warnings a build gives of bundled files it would not publish too (of the
    readable skills, each with its version; said afresh each run, from discovery's file list)."""
    found = found or discover(roots, exclude, stat_files=False)
    knowledge_dir = knowledge_dir or default_knowledge_dir(roots)
    checking = Checking.of(found, profile, max_bytes, siblings=True, knowledge_dir=knowledge_dir)
    use = None
    if cache is None:
        verdicts = parallel_map(_verdict, checking, range(len(found.sources)), jobs)
    else:
        verdicts, use = _cached_verdicts(found, checking, cache, jobs)
    verdicts = [_offered_by_codex(v, src) for src, v in zip(found.sources, verdicts)]
    beside = frozenset(rel[3:] for _, rel in checking.skill_dirs if rel.startswith("../"))
    ignored = frozenset(ignore)
    found_here, shared, _, _ = _catalog_diagnostics(found, verdicts, knowledge_dir, cache, beside, exclude=exclude,
                                                    max_bytes=max_bytes, jobs=jobs, copies=copies, roots=roots,
                                                    ignored=ignored)
    every = [*found_here, *(d for v in verdicts for d in v.diagnostics), *(d for ds in shared.values() for d in ds)]
    if unpublished is not None:
        every += unpublished([(src, v.version) for src, v in zip(found.sources, verdicts) if v.kept])
    left_out = frozenset(src.id for src, v in zip(found.sources, verdicts) if not v.kept)
    return CatalogCheck(found.sources, left_out, tuple(sort_diagnostics(
        d for d in [*every, *(cache.notes if cache is not None else ())] if d.code not in ignored)), use)
