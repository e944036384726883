"""One skill of a published catalog, typed: the manifest entry the build writes into
``skills.json``, the loader reads back and the pages show (standard library only).

:meth:`ManifestEntry.to_json` gives the entry exactly as ``skills.json`` holds it (key order
included), so the build makes entries as these objects and serialises them with it.
:meth:`ManifestEntry.from_json` reads one back and checks every field the loader relies on,
so a hostile entry is refused there (:class:`CatalogFormatError`) instead of failing wherever
it is used.  Fields the loader has always ignored when malformed stay ignored: a ``conflicts``,
``command`` or ``triggers`` of the wrong type counts as absent, an ``audit`` that is not
well formed counts as ``high`` risk (a tampered entry is not trusted), a malformed
``dependencies`` is refused (eligibility follows it), and the fields only pages show fall back
to empty values.

``from_json(e.to_json()) == e`` for every entry, and ``from_json(d).to_json() == d`` for
every entry a build writes; an entry of an older catalog comes back with the defaults the
loader assumes for what it lacks (``user_invocable`` true, priority 0, no command ...).
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any, Callable, Mapping, TypeVar

from skillsite.agent.catalog_format import RISKS
from skillsite.agent.errors import CatalogFormatError
from skillsite.agent.xml_chars import xml_forbidden, xml_unkept

__all__ = ["CODEX_POLICY", "HIDING_KEYS", "ManifestEntry", "FileRecord", "KnowledgeRecord", "ToolRecord", "Visibility",
           "EntryRequirements", "Triggers", "DependencyRecord", "EntrySource", "EntryUrls", "EntrySize", "EntryWarning",
           "AuditFinding", "AuditSummary",
           "DEFAULT_VISIBILITY", "NO_REQUIREMENTS", "NO_TRIGGERS", "NOTHING_FOUND", "shared", "holding",
           "PLATFORMS", "entry_problem", "is_hex_sha256", "is_size", "is_strings"]

_SHA256 = re.compile("[0-9a-f]{64}")
#: An endless ``str``: ``map(isinstance, items, _STR)`` checks every item of a list with no Python call for each.
_STR = repeat(str)
PLATFORMS = ("linux", "darwin", "windows")
#: Frontmatter keys that keep a skill from models, in the order the build names the one used.
#: The first two also keep it out of the site's listings; ``disable-model-invocation`` (Claude
#: Code's: only a person invokes it) leaves it listed for people.
HIDING_KEYS = ("hidden", "hideFromDiscovery", "disable-model-invocation")
#: What hid a skill whose Codex ``agents/openai.yaml`` allows no implicit invocation (set false
#: there, not true): only a person invokes it, so it stays listed, as with ``disable-model-invocation``.
CODEX_POLICY = "policy.allow_implicit_invocation"
#: The ``hidden_by`` values that leave a hidden skill in the site's listings.
LISTED_HIDDEN = ("disable-model-invocation", CODEX_POLICY)


class _Malformed(Exception):
    """What is wrong with a field of an entry, as the loader's messages end (``malformed size``)."""


# ---------------------------------------------------------------- value checks

def is_hex_sha256(value: Any) -> bool:
    """64 lower-case hex digits."""
    return isinstance(value, str) and _SHA256.fullmatch(value) is not None


def is_size(value: Any) -> bool:
    """A byte count: a non-negative integer (JSON true and false are not)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def is_strings(value: Any) -> bool:
    """A list of strings, as the manifest's ``strings`` type."""
    return isinstance(value, list) and (not value or all(map(isinstance, value, _STR)))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _text(value: Any, default: str | None = None) -> str | None:
    """A string field read leniently: anything else is ``default``."""
    return value if isinstance(value, str) else default


def _texts(value: Any) -> tuple[str, ...]:
    """A list of strings read leniently: its strings, or () when it is no list.  A list of
    strings only (what a build writes) is copied whole; another is filtered."""
    if not isinstance(value, list):
        return ()
    if is_strings(value):
        return tuple(value)
    return tuple(item for item in value if isinstance(item, str))


def _forbidden(text: str) -> str | None:
    """:func:`xml_forbidden`, at once for printable text (no character it looks for is printable)."""
    return None if text.isprintable() else xml_forbidden(text)


def _unkept(text: str) -> str | None:
    """:func:`xml_unkept`, at once for printable text (no character it looks for is printable)."""
    return None if text.isprintable() else xml_unkept(text)


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _count(value: Any) -> int:
    return value if _is_int(value) else 0


#: A record type of an entry (frozen: one instance may stand for many).
_Record = TypeVar("_Record")


def shared(record: _Record, common: _Record) -> _Record:
    """``common`` when ``record`` equals it, else ``record``.  Most skills of a big catalog have
    the default visibility, no requirements, no triggers and nothing the audit found: one frozen
    record held for all of them keeps each entry small (fewer objects to make, hold and walk)."""
    return common if record == common else record


def holding(record: _Record, values: Mapping[str, Any]) -> _Record:
    """``record`` (a frozen dataclass) holding the very objects of ``values`` for the fields whose
    value equals theirs: a copy a worker sends back, or one read from JSON, holds equal objects
    of its own, and a big catalog should hold each value once (``record`` itself when it does)."""
    same = {name: value for name, value in values.items()
            if (held := getattr(record, name)) is not value and held == value}
    return dataclasses.replace(record, **same) if same else record  # type: ignore[type-var]


# ---------------------------------------------------------------- parts of an entry

@dataclass(frozen=True, slots=True)
class FileRecord:
    """A bundled file: its path in the skill folder, size and sha256."""

    path: str
    sha256: str
    bytes: int | None = None        # absent only in hand-made catalogs

    @classmethod
    def from_json(cls, data: Any) -> FileRecord:
        if not isinstance(data, dict):
            raise _Malformed("malformed files")
        path, sha, size = data.get("path"), data.get("sha256"), data.get("bytes")
        if not (isinstance(path, str) and is_hex_sha256(sha)
                and (is_size(size) or size is None and "bytes" not in data)):  # bytes: absent or a size
            raise _Malformed("malformed files")
        if (char := _unkept(path)) is not None:  # skill.xml would list a file that is not there
            raise _Malformed(_unheld("a file path", path, char))
        return cls(path, sha, size)

    def to_json(self) -> dict[str, Any]:
        if self.bytes is None:
            return {"path": self.path, "sha256": self.sha256}
        return {"path": self.path, "bytes": self.bytes, "sha256": self.sha256}


@dataclass(frozen=True, slots=True)
class KnowledgeRecord:
    """A knowledge document the skill points to, published once under ``knowledge/``."""

    path: str
    title: str
    sha256: str
    url: str                        # site-relative
    size: int | None = None

    @classmethod
    def from_json(cls, data: Any) -> KnowledgeRecord:
        if not (isinstance(data, dict) and isinstance(data.get("path"), str) and isinstance(data.get("title"), str)
                and isinstance(data.get("url"), str) and is_hex_sha256(data.get("sha256"))
                and ("size" not in data or is_size(data["size"]))):
            raise _Malformed("malformed knowledge records")
        if (char := _forbidden(data["path"])) is not None:  # skill.xml would name a document knowledge() lacks
            raise _Malformed(_unheld("a knowledge path", data["path"], char))
        return cls(data["path"], data["title"], data["sha256"], data["url"], data.get("size"))

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"path": self.path, "title": self.title}
        if self.size is not None:
            data["size"] = self.size
        data.update(sha256=self.sha256, url=self.url)
        return data


@dataclass(frozen=True, slots=True)
class ToolRecord:
    """A tool the skill declares it uses, with what for and whether it cannot do without it."""

    name: str
    purpose: str = ""
    required: bool = False

    @classmethod
    def from_json(cls, data: Any) -> ToolRecord | None:
        """The record, or None for an item that names no tool (the loader has always skipped those)."""
        if not isinstance(data, dict):
            return None
        if not isinstance(data.get("name", ""), str):
            raise _Malformed("malformed tools")
        return cls(data["name"], _text(data.get("purpose"), ""), bool(data.get("required"))) \
            if data.get("name") else None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "purpose": self.purpose, "required": self.required}


@dataclass(frozen=True, slots=True)
class DependencyRecord:
    """A skill this one needs: the name as written, the id it stands for, the range as written
    (``*`` when none) and the release the build chose (None: the skill has no release)."""

    name: str
    id: str
    version: str = "*"
    resolved: str | None = None

    @classmethod
    def from_json(cls, data: Any) -> DependencyRecord:
        if not (isinstance(data, dict) and all(isinstance(data.get(k), str) and data[k] for k in ("name", "id"))
                and isinstance(data.get("version"), str) and isinstance(data.get("resolved", ""), (str, type(None)))):
            raise _Malformed("malformed dependencies")
        return cls(data["name"], data["id"], data["version"], data.get("resolved"))

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "id": self.id, "version": self.version, "resolved": self.resolved}


@dataclass(frozen=True, slots=True)
class Visibility:
    """Who may be offered the skill: ``hidden`` and ``user_invocable_only`` skills never reach a
    model; ``always`` ones come first; ``user_invocable`` ones answer to a slash command.
    ``hidden_by`` names the key that hid it (one of :data:`HIDING_KEYS`; None in catalogs built
    before it was recorded), which decides whether the site lists it (:attr:`listed`)."""

    hidden: bool = False
    user_invocable_only: bool = False
    always: bool = False
    user_invocable: bool = True     # absent in catalogs built before it: true
    hidden_by: str | None = None    # present only for a hidden skill
    copy_of: str | None = None      # a copy of another skill (its group's canonical member): shown as that one

    @property
    def listed(self) -> bool:
        """Whether the site's search finds it and, unless it is a copy, its listings show it
        (home, tags, risk pages, llms.txt, sitemap): not when ``hidden`` or ``hideFromDiscovery``
        hid it (or an older catalog does not say which)."""
        return not self.hidden or self.hidden_by in LISTED_HIDDEN

    @property
    def in_lists(self) -> bool:
        """Whether the site's lists show it: listed, and no copy of another skill."""
        return self.listed and self.copy_of is None

    @classmethod
    def from_json(cls, data: Any) -> Visibility:
        """The visibility of a mapping; DEFAULT_VISIBILITY itself for the default one (most skills')."""
        hidden, only, always = data.get("hidden"), data.get("user_invocable_only"), data.get("always")
        invocable = data.get("user_invocable", True)
        if hidden is only is always is False and invocable is True and "hidden_by" not in data \
                and "copy_of" not in data:
            return DEFAULT_VISIBILITY
        if not all(isinstance(flag, bool) for flag in (hidden, only, always, invocable)):
            raise _Malformed("malformed visibility")
        visibility = cls(hidden, only, always, invocable, _text(data.get("hidden_by")), _text(data.get("copy_of")))
        return shared(visibility, DEFAULT_VISIBILITY)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"hidden": self.hidden, "user_invocable_only": self.user_invocable_only,
                                "always": self.always, "user_invocable": self.user_invocable}
        if self.hidden_by is not None:
            data["hidden_by"] = self.hidden_by
        if self.copy_of is not None:
            data["copy_of"] = self.copy_of
        return data


@dataclass(frozen=True, slots=True)
class CopyRecord:
    """One copy of a skill, as its group's canonical member lists it: its id and how it differs."""

    id: str
    differs: str

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "differs": self.differs}


@dataclass(frozen=True, slots=True)
class Copies:
    """The group of copies a skill belongs to: its canonical member and how many they are; a
    copy says how it differs from the canonical member, the canonical member lists its copies."""

    canonical: str
    count: int
    differs: str = ""
    members: tuple[CopyRecord, ...] = ()

    @classmethod
    def from_json(cls, data: Any) -> Copies | None:
        if data is None:
            return None
        if not (isinstance(data, dict) and isinstance(data.get("canonical"), str) and is_size(data.get("count"))
                and isinstance(data.get("differs", ""), str) and isinstance(data.get("members", []), list)):
            raise _Malformed("malformed copies")
        members = []
        for item in data.get("members", []):
            if not (isinstance(item, dict) and isinstance(item.get("id"), str)
                    and isinstance(item.get("differs"), str)):
                raise _Malformed("malformed copies")
            members.append(CopyRecord(item["id"], item["differs"]))
        return cls(data["canonical"], data["count"], data.get("differs", ""), tuple(members))

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"canonical": self.canonical, "count": self.count}
        if self.differs:
            data["differs"] = self.differs
        if self.members:
            data["members"] = [m.to_json() for m in self.members]
        return data


@dataclass(frozen=True, slots=True)
class EntryRequirements:
    """What the skill needs where it runs: programs on PATH, environment variables, platforms."""

    bins: tuple[str, ...] = ()
    env: tuple[str, ...] = ()
    platforms: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EntryRequirements:
        """The requirements of a mapping; NO_REQUIREMENTS itself when it lists none (most skills')."""
        bins, env = _strings(data, "bins", "requirements.bins"), _strings(data, "env", "requirements.env")
        platforms = _strings(data, "platforms", "requirements.platforms")
        return cls(bins, env, platforms) if bins or env or platforms else NO_REQUIREMENTS

    def to_json(self) -> dict[str, list[str]]:
        return {"bins": list(self.bins), "env": list(self.env), "platforms": list(self.platforms)}


@dataclass(frozen=True, slots=True)
class Triggers:
    """When the skill applies, normalised: phrases, keywords and verbs (whole words) and patterns."""

    phrases: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, data: Any) -> Triggers | None:
        """The triggers, or None when the entry has none (or a value that is no mapping)."""
        if not isinstance(data, dict):
            return None
        phrases, keywords = _texts(data.get("phrases")), _texts(data.get("keywords"))
        verbs, patterns = _texts(data.get("verbs")), _texts(data.get("patterns"))
        return cls(phrases, keywords, verbs, patterns) if phrases or keywords or verbs or patterns else NO_TRIGGERS

    def to_json(self) -> dict[str, list[str]]:
        return {"phrases": list(self.phrases), "keywords": list(self.keywords), "verbs": list(self.verbs),
                "patterns": list(self.patterns)}


@dataclass(frozen=True, slots=True)
class EntrySource:
    """Where the SKILL.md comes from: its path in the project, browse and edit URLs if known."""

    path: str = ""
    url: str | None = None
    edit_url: str | None = None

    @classmethod
    def from_json(cls, data: Any) -> EntrySource:
        data = _mapping(data)
        return cls(_text(data.get("path"), ""), _text(data.get("url")), _text(data.get("edit_url")))

    def to_json(self) -> dict[str, str | None]:
        return {"path": self.path, "url": self.url, "edit_url": self.edit_url}


@dataclass(frozen=True, slots=True)
class EntryUrls:
    """Site-relative URLs: the skill's page, raw SKILL.md, XML fragment and folder of files."""

    skill_md: str
    files: str                      # base URL of bundled files: files + path
    page: str = ""
    xml: str = ""

    @classmethod
    def from_json(cls, data: Any) -> EntryUrls:
        if not (isinstance(data, dict) and isinstance(skill_md := data.get("skill_md"), str)
                and isinstance(files := data.get("files"), str)):
            raise _Malformed("no urls.skill_md / urls.files")
        return cls(skill_md, files, _text(data.get("page"), ""), _text(data.get("xml"), ""))

    def to_json(self) -> dict[str, str]:
        return {"page": self.page, "skill_md": self.skill_md, "xml": self.xml, "files": self.files}


@dataclass(frozen=True, slots=True)
class EntrySize:
    """Size of SKILL.md in bytes, and of its body in characters, lines and estimated tokens."""

    bytes: int | None = None
    chars: int = 0
    lines: int = 0
    tokens: int = 0

    @classmethod
    def from_json(cls, data: Any) -> EntrySize:
        if not isinstance(data, dict) or ("bytes" in data and not is_size(data["bytes"])):
            raise _Malformed("malformed size")
        return cls(data.get("bytes"), _count(data.get("chars")), _count(data.get("lines")),
                   _count(data.get("tokens")))

    def to_json(self) -> dict[str, int]:
        data = {} if self.bytes is None else {"bytes": self.bytes}
        data.update(chars=self.chars, lines=self.lines, tokens=self.tokens)
        return data


@dataclass(frozen=True, slots=True)
class EntryWarning:
    """A warning the build reported for the skill (its SKILL.md line; 0 for the whole file)."""

    code: str
    severity: str
    message: str
    line: int = 0

    @classmethod
    def from_json(cls, data: Any) -> EntryWarning | None:
        if not (isinstance(data, dict) and all(isinstance(data.get(k), str) for k in ("code", "severity", "message"))):
            return None
        return cls(data["code"], data["severity"], data["message"], _count(data.get("line")))

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "severity": self.severity, "message": self.message, "line": self.line}


@dataclass(frozen=True, slots=True)
class AuditFinding:
    """One finding of the catalog's audit, in the skill's files."""

    code: str
    severity: str
    path: str                       # relative to the skill folder
    line: int
    message: str
    category: str | None = None
    column: int | None = None

    @classmethod
    def from_json(cls, data: Any) -> AuditFinding | None:
        """The finding, or None when it is not well formed."""
        if not (isinstance(data, dict) and all(isinstance(data.get(k), str) for k in ("code", "severity", "path",
                                                                                          "message"))
                and _is_int(data.get("line")) and isinstance(data.get("category", ""), str)
                and _is_int(data.get("column", 0))):
            return None
        return cls(data["code"], data["severity"], data["path"], data["line"], data["message"],
                   data.get("category"), data.get("column"))

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"code": self.code, "severity": self.severity}
        if self.category is not None:
            data["category"] = self.category
        data.update(path=self.path, line=self.line)
        if self.column is not None:
            data["column"] = self.column
        data["message"] = self.message
        return data


@dataclass(frozen=True, slots=True)
class AuditSummary:
    """What the catalog's audit found: the risk (the worst finding's severity) and the findings."""

    risk: str
    findings: tuple[AuditFinding, ...] = ()

    @classmethod
    def from_json(cls, data: Any) -> AuditSummary:
        """The audit; one that is not well formed (an unknown risk, a broken finding) is ``high``."""
        if not isinstance(data, dict) or (risk := data.get("risk")) not in RISKS \
                or not isinstance(found := data.get("findings"), list):
            return TAMPERED
        if not found:
            return NOTHING_FOUND if risk == NOTHING_FOUND.risk else cls(risk)
        findings = tuple(map(AuditFinding.from_json, found))
        if None in findings:
            return TAMPERED
        return cls(risk, findings)  # type: ignore[arg-type]

    def to_json(self) -> dict[str, Any]:
        return {"risk": self.risk, "findings": [f.to_json() for f in self.findings]}


#: The records most entries have (see :func:`shared`).
DEFAULT_VISIBILITY = Visibility()
NO_REQUIREMENTS = EntryRequirements()
NO_TRIGGERS = Triggers()
NOTHING_FOUND = AuditSummary("none")
#: What the audit of an entry says when it is not well formed (the entry is not trusted).
TAMPERED = AuditSummary("high")


# ---------------------------------------------------------------- the entry

@dataclass(frozen=True, kw_only=True, slots=True)
class ManifestEntry:
    """One skill of ``skills.json`` (see ``skills.schema.json``), fields in the manifest's order.

    ``metadata``, ``parameters``, ``examples``, ``interface`` and ``extra`` hold the JSON values
    the frontmatter gave; treat them as read-only.
    """

    id: str
    name: str
    description: str
    version: str | None = None
    license: str | None = None
    compatibility: str | None = None
    tags: tuple[str, ...] = ()
    allowed_tools: tuple[str, ...] = ()             # "allowed-tools"
    metadata: dict[str, Any] = field(default_factory=dict)
    tools: tuple[ToolRecord, ...] = ()
    parameters: tuple[dict[str, Any], ...] = ()
    examples: tuple[Any, ...] = ()
    priority: int = 0
    visibility: Visibility = DEFAULT_VISIBILITY
    command: str | None = None                      # absent when not user-invocable, or built before commands
    triggers: Triggers | None = None
    conflicts: tuple[str, ...] = ()
    dependencies: tuple[DependencyRecord, ...] = ()  # absent in catalogs built before dependencies: none
    knowledge: tuple[KnowledgeRecord, ...] = ()
    interface: dict[str, str] | None = None         # what Codex's agents/openai.yaml says to show
    requirements: EntryRequirements = NO_REQUIREMENTS
    parent: str | None = None
    children: tuple[str, ...] = ()
    files: tuple[FileRecord, ...] = ()
    sha256: str                                     # of SKILL.md as published
    digest: str = ""                                # of the whole folder
    source: EntrySource = EntrySource()
    urls: EntryUrls
    versions_url: str | None = None                 # its versions.json, when it has releases
    versions_sha256: str | None = None              # ... that file's sha256 and size (absent in catalogs
    versions_bytes: int | None = None               # built before them: versions.json is then unpinned)
    size: EntrySize | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    warnings: tuple[EntryWarning, ...] = ()
    audit: AuditSummary | None = None               # absent when the build did not audit
    copies: Copies | None = None                    # present for a skill with copies in the catalog

    @property
    def slash_command(self) -> str | None:
        """The command a user invokes it by: none for a skill that says ``user-invocable: false``
        (a catalog built before that rule may still record one for it)."""
        return self.command if self.visibility.user_invocable else None

    @property
    def risk(self) -> str:
        """The audit's risk: ``none`` when the skill was not audited."""
        return "none" if self.audit is None else self.audit.risk

    @classmethod
    def from_json(cls, data: Any) -> ManifestEntry:
        """A ``skills.json`` entry, checked; CatalogFormatError (``skill (id) has ...``) if unusable."""
        try:
            return _parse_entry(data)
        except _Malformed as exc:
            raise CatalogFormatError(f"skill {exc}") from None

    def to_json(self) -> dict[str, Any]:
        """The entry as ``skills.json`` holds it, key order included."""
        data: dict[str, Any] = {
            "id": self.id, "name": self.name, "description": self.description, "version": self.version,
            "license": self.license, "compatibility": self.compatibility, "tags": list(self.tags),
            "allowed-tools": list(self.allowed_tools), "metadata": self.metadata,
            "tools": [t.to_json() for t in self.tools], "parameters": list(self.parameters),
            "examples": list(self.examples), "priority": self.priority, "visibility": self.visibility.to_json()}
        if self.command is not None:
            data["command"] = self.command
        if self.triggers is not None:
            data["triggers"] = self.triggers.to_json()
        data.update({
            "conflicts": list(self.conflicts), "dependencies": [d.to_json() for d in self.dependencies],
            "knowledge": [k.to_json() for k in self.knowledge],
            "interface": self.interface, "requirements": self.requirements.to_json(), "parent": self.parent,
            "children": list(self.children), "files": [f.to_json() for f in self.files], "sha256": self.sha256,
            "digest": self.digest, "source": self.source.to_json(), "urls": self.urls.to_json()})
        if self.versions_url is not None:
            data["versions_url"] = self.versions_url
        if self.versions_sha256 is not None:
            data["versions_sha256"] = self.versions_sha256
        if self.versions_bytes is not None:
            data["versions_bytes"] = self.versions_bytes
        if self.size is not None:
            data["size"] = self.size.to_json()
        data["extra"] = self.extra
        data["warnings"] = [w.to_json() for w in self.warnings]
        if self.audit is not None:
            data["audit"] = self.audit.to_json()
        if self.copies is not None:
            data["copies"] = self.copies.to_json()
        return data


def entry_problem(data: Any) -> str | None:
    """What is wrong with one manifest entry (``has no name``, ``(id) has malformed size``), or None."""
    try:
        _parse_entry(data)
    except _Malformed as exc:
        return str(exc)
    return None


def _parse_entry(data: Any) -> ManifestEntry:
    """The entry, checked in the order the loader has always reported problems; _Malformed if not."""
    if not isinstance(data, dict):
        raise _Malformed("is not an object")
    for key in ("id", "name", "description"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise _Malformed(f"has no {key}")
    if (char := _forbidden(data["id"])) is not None:  # skill.xml would name another skill than skills.json
        raise _Malformed(_unheld("has the id", data["id"], char))
    try:
        return _parse_fields(data, data["id"])
    except _Malformed as exc:
        raise _Malformed(f"({data['id']}) has {exc}") from None


def _parse_fields(data: dict[str, Any], skill_id: str) -> ManifestEntry:
    """Everything after id, name and description; _Malformed says what the entry has wrong."""
    if not is_hex_sha256(data.get("sha256")):
        raise _Malformed("no valid sha256")
    urls = EntryUrls.from_json(data.get("urls"))
    files = _records(data.get("files"), FileRecord.from_json, "malformed files")
    if not isinstance(data.get("visibility"), dict) or not isinstance(data.get("requirements"), dict):
        raise _Malformed("no visibility / requirements")
    visibility = Visibility.from_json(data["visibility"])
    size = EntrySize.from_json(data["size"]) if "size" in data else None
    children = _children(data)
    allowed_tools = _strings(data, "allowed-tools")
    priority = _priority(data)
    tools = _tools(data.get("tools", []))
    requirements = EntryRequirements.from_json(data["requirements"])
    knowledge = _records(data.get("knowledge") or [], KnowledgeRecord.from_json, "malformed knowledge records")
    dependencies = _records(data.get("dependencies", []), DependencyRecord.from_json, "malformed dependencies")
    versions_sha256, versions_bytes = _versions_pin(data)
    return ManifestEntry(
        id=skill_id, name=data["name"], description=data["description"], version=_text(data.get("version")),
        license=_text(data.get("license")), compatibility=_text(data.get("compatibility")),
        tags=_texts(data.get("tags")), allowed_tools=allowed_tools, metadata=_mapping(data.get("metadata")),
        tools=tools, parameters=_dicts(data.get("parameters")), examples=tuple(_items(data.get("examples"))),
        priority=priority, visibility=visibility, command=_text(data.get("command")),
        triggers=Triggers.from_json(data.get("triggers")), conflicts=_texts(data.get("conflicts")),
        dependencies=dependencies, knowledge=knowledge,
        interface=data["interface"] if isinstance(data.get("interface"), dict) else None,
        requirements=requirements, parent=_text(data.get("parent")), children=children, files=files,
        sha256=data["sha256"], digest=_text(data.get("digest"), ""), source=EntrySource.from_json(data.get("source")),
        urls=urls, versions_url=_text(data.get("versions_url")), versions_sha256=versions_sha256,
        versions_bytes=versions_bytes, size=size, extra=_mapping(data.get("extra")),
        warnings=_warnings(data.get("warnings")),
        audit=None if data.get("audit") is None else AuditSummary.from_json(data["audit"]),
        copies=Copies.from_json(data.get("copies")))


def _dicts(value: Any) -> tuple[dict[str, Any], ...]:
    """The mappings of a list read leniently (``parameters``): () when it is no list."""
    return tuple(item for item in value if isinstance(item, dict)) if isinstance(value, list) and value else ()


def _warnings(value: Any) -> tuple[EntryWarning, ...]:
    """The well-formed warnings of a list read leniently: () when it is no list."""
    if not isinstance(value, list) or not value:
        return ()
    return tuple(w for w in map(EntryWarning.from_json, value) if w is not None)


def _versions_pin(data: dict[str, Any]) -> tuple[str | None, int | None]:
    """The sha256 and size of the entry's versions.json, each absent or well formed."""
    sha, size = data.get("versions_sha256"), data.get("versions_bytes")
    if sha is not None and not is_hex_sha256(sha):
        raise _Malformed("malformed versions_sha256")
    if size is not None and not is_size(size):
        raise _Malformed("malformed versions_bytes")
    return sha, size


def _records(value: Any, parse: Callable[[Any], Any], problem: str) -> tuple[Any, ...]:
    """A list of records, each parsed; ``problem`` when the value is no list."""
    if not isinstance(value, list):
        raise _Malformed(problem)
    return tuple(map(parse, value))


def _children(data: dict[str, Any]) -> tuple[str, ...]:
    """The ids of the sub-skills, each one skill.xml can name as written."""
    children = _strings(data, "children")
    for child in children:
        if (char := _forbidden(child)) is not None:
            raise _Malformed(_unheld("a child id", child, char))
    return children


def _unheld(what: str, value: str, char: str) -> str:
    """Why an entry naming ``value`` is refused: ``char`` cannot be written in the prompt fragment."""
    if "\ud800" <= char <= "\udfff":  # a JSON escape: no UTF-8 file, URL or lock file can hold it either
        return f"{what} {value!r}, which is not valid Unicode text (a lone surrogate)"
    return f"{what} {value!r}, whose U+{ord(char):04X} its prompt fragment (skill.xml, XML 1.0) cannot hold as written"


def _strings(data: dict[str, Any], key: str, what: str = "") -> tuple[str, ...]:
    """A list-of-strings field that may be absent but not malformed (``malformed {what or key}``)."""
    value = data.get(key)
    if value is None and key not in data:
        return ()
    if not is_strings(value):
        raise _Malformed(f"malformed {what or key}")
    return tuple(value)


def _priority(data: dict[str, Any]) -> int:
    if "priority" in data and not _is_int(data["priority"]):
        raise _Malformed("malformed priority")
    return data.get("priority", 0)


def _tools(value: Any) -> tuple[ToolRecord, ...]:
    """The declared tools; items that name no tool are left out, as the loader always did."""
    if not isinstance(value, list):
        raise _Malformed("malformed tools")
    return tuple(t for t in map(ToolRecord.from_json, value) if t is not None) if value else ()
