"""From parsed frontmatter to a :class:`~skillsite.models.Skill`: the extension keys real
catalogs use, normalised into typed fields (tags, tools, parameters, visibility, requirements)."""
from __future__ import annotations

import datetime as _dt
import functools
import hashlib
import json
import math
import re
from typing import Any, Callable, Iterable, Sequence

from skillsite.agent.entry import shared
from skillsite.agent.triggers import normalise_triggers
from skillsite.diagnostics import Diagnostic
from skillsite.models import NOTHING_REQUIRED, ParsedSkill, Requirements, Skill, SourceFile
from skillsite.source.dependencies import declared_dependencies
from skillsite.source.schema import extra_keys, fits_schema, known_keys, load_schema, read_as_unwritten_when_empty

_PLATFORM_ALIASES = {"macos": "darwin", "win32": "windows"}
_EXTRA_KEYS = ("argument-hint", "user-invocable")


def _extra(fm: dict[str, Any]) -> dict[str, Any]:
    """The manifest's ``extra``: the keys a runtime reads that the entry has no field for, and the
    keys skillsite does not know (SK207), kept as written (artifacts.md); another agent's keys the
    schema knows (``x-extra``) among the unknown ones, in the order they had as unknown keys; and
    the values skillsite ignores (:func:`_ignored`), which the entry's fields cannot hold."""
    others = set(fm) - known_keys("default") | set(fm) & extra_keys("default")
    ignored = _ignored(fm)
    return {k: jsonable(ignored.get(k, fm.get(k))) for k in (*_EXTRA_KEYS, *sorted(others | set(ignored)))
            if k in fm}


def _ignored(fm: dict[str, Any]) -> dict[str, Any]:
    """Known keys written in another tool's shape, by key, as written: a priority that is no whole
    number (SK233: ``CRITICAL``), and (SK234) a ``requires`` that is no mapping (``python3, ffmpeg``),
    a ``platforms`` naming no OS (``[claude-code, cursor]``), ``bins`` or ``env`` that are no names
    (``[{name: TOKEN}]``; under ``requires`` only those parts, as ``{env: ...}``), the
    specification's optional keys and skillsite's ``triggers``, ``tools`` and ``parameters`` in
    another shape (:data:`_SHAPES`) and any key written with nothing (:data:`_OPTIONAL_KEYS`)."""
    ignored: dict[str, Any] = {}
    if "priority" in fm and whole_priority(fm["priority"]) is None:
        ignored["priority"] = fm["priority"]
    requires = fm.get("requires")
    if "requires" in fm and not isinstance(requires, dict):
        ignored["requires"] = requires
    elif isinstance(requires, dict) and (parts := _unread(requires, ("bins", "env", "platforms"))):
        ignored["requires"] = parts
    ignored.update(_unread(fm, ("platforms", *_NEEDS["bins"], *_NEEDS["env"])))
    ignored.update({key: fm[key] for key, reads in _SHAPES.items() if key in fm and not reads(fm[key])})
    ignored.update({key: None for key, value in fm.items() if value is None and key in _OPTIONAL_KEYS})
    return ignored


#: The specification's optional keys, and the shape skillsite reads each in: any other value (a
#: ``compatibility`` list, a ``metadata`` string, a key with nothing) is ignored whole (SK234), as
#: the specification's guide for clients asks (a skill is skipped only for a missing description
#: or YAML that cannot be read).
_SPEC_SHAPES: dict[str, Callable[[Any], bool]] = {
    "license": lambda value: isinstance(value, str),
    "compatibility": lambda value: isinstance(value, str) and value != "",
    "metadata": lambda value: isinstance(value, dict),
    "allowed-tools": lambda value: isinstance(value, str) or isinstance(value, list) and all(
        isinstance(item, str) for item in value),
}


#: The keys a null (a key with nothing) is ignored in, as not written (SK234), as the schema's
#: diagnostics say it.
_OPTIONAL_KEYS = read_as_unwritten_when_empty("default")


#: skillsite's own keys read only in the shape their schema gives them: any other value (a
#: ``triggers`` list holding a mapping, a ``tools`` item without a name, a JSON Schema under
#: ``parameters``) is ignored whole (SK234), as a value read in part would publish part of it.
_OWN_SHAPES = ("triggers", "tools", "parameters")

#: Every key whose value is read only in one shape, and whether a value is in it.
_SHAPES: dict[str, Callable[[Any], bool]] = {
    **_SPEC_SHAPES, **{key: functools.partial(fits_schema, "default", key) for key in _OWN_SHAPES}}


def read_value(fm: dict[str, Any], key: str) -> Any:
    """The value of ``key`` (one of :data:`_SHAPES`) as skillsite reads it: None when written in a
    shape it does not (SK234: ignored whole, so no tool is allowed and no trigger fires by a value
    read in part). Every reader of these keys reads through this."""
    value = fm.get(key)
    return value if value is None or _SHAPES[key](value) else None


def _unread(mapping: dict[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    """Of ``keys``, those ``mapping`` writes in a shape :func:`_needs` does not read, as written."""
    return {key: mapping[key] for key in keys if key in mapping and _needs(key, mapping[key]) is None}


def _needs(key: str, value: Any) -> Sequence[str] | None:
    """A written requirement (``bins``, ``env``, ``platforms``, ``requires_bins``, ...) as read."""
    return os_platforms(value) if key == "platforms" else needed_names(value)


#: The operating systems a ``platforms`` may name: the schema's.
_OS_NAMES = frozenset(load_schema("skill.default.schema.json")["$defs"]["platforms"]["anyOf"][1]["enum"])


def os_platforms(value: Any) -> tuple[str, ...] | None:
    """A written ``platforms`` as requirements hold it (``macos`` is ``darwin``): an OS name or a
    list of them; None for any other value, ignored whole (SK234: ``[ios, android]``), as a list
    read in part would require the platforms it knows only."""
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else None
    if items is None or not all(isinstance(p, str) and p in _OS_NAMES for p in items):
        return None
    return tuple(_PLATFORM_ALIASES.get(p, p) for p in items)


#: The top-level keys that add programs and variables to ``requires``' ``bins`` and ``env``.
_NEEDS = {"bins": ("requires_bins", "requires-bins"), "env": ("requires_env", "requires-env")}


def needed_names(value: Any) -> list[str] | None:
    """A written ``bins`` or ``env`` as requirements hold it: a list of names, or one string of them
    split on commas and spaces; None for any other value, ignored whole (SK234: another tool's
    ``[{name: TOKEN, description: ...}]``), as a list read in part would require too little."""
    if not isinstance(value, (str, list)) or isinstance(value, list) and not all(
            isinstance(item, str) and item for item in value):
        return None
    return _names(value)


def whole_priority(value: Any) -> int | None:
    """A written priority as skillsite ranks by it: a whole number (``2.0`` is 2, as the schema's
    ``integer`` reads it) from -2**53 to 2**53 (what a JSON reader holds exactly; past it a float's
    digits are rounding noise); None for anything else (``CRITICAL``, ``true``, ``1.5``, ``1e300``: SK233)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or abs(value) > 2 ** 53:
        return None
    return int(value) if isinstance(value, int) or value.is_integer() else None


def skill_priority(fm: dict[str, Any]) -> int:
    """The skill's priority: the whole number written, else 0, as when none is written."""
    return whole_priority(fm.get("priority")) or 0


#: A float JSON has no number for, as YAML writes it: kept as that text (NaN was null, no value at all).
_NOT_FINITE = {"nan": ".nan", "inf": ".inf", "-inf": "-.inf"}


def jsonable(value: Any) -> Any:
    """Frontmatter values as JSON can hold them (dates become ISO text; ``.nan`` and ``.inf`` the
    text YAML writes them as)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):  # not JSON
        return _NOT_FINITE[str(value)]
    return value


def split_tools(text: str) -> list[str]:
    """Split an allowed-tools string on spaces or commas outside parentheses."""
    tools, current, depth = [], [], 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        if depth == 0 and (ch.isspace() or ch == ","):
            if current:
                tools.append("".join(current))
                current = []
            continue
        current.append(ch)
    if current:
        tools.append("".join(current))
    return tools


def has_top_level_comma(text: str) -> bool:
    """Whether an allowed-tools string has a comma outside parentheses."""
    depth = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth <= 0:
            return True
    return False


def normalise_allowed_tools(value: Any) -> tuple[str, ...]:
    """allowed-tools as a tuple of tool patterns, from a string or a list."""
    if isinstance(value, str):
        return tuple(split_tools(value))
    if isinstance(value, list):
        return tuple(t for item in value if isinstance(item, str) for t in [item.strip()] if t)
    return ()


def _names(value: Any) -> list[str]:
    if isinstance(value, str):
        return [v for v in re.split(r"[,\s]+", value) if v]
    if isinstance(value, list):
        return [v.strip() for v in value if isinstance(v, str) and v.strip()]
    return []


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


#: Around a tag in a comma-separated string that was meant as a list: brackets and quotes.
_TAG_WRAPPING = "[]\"' \t"


def list_in_string(value: Any) -> list[str] | None:
    """The items of a list written inside a string (``'["a", "b"]'``, ``"[a, b]"``), as the
    wild writes tags; None for any other value."""
    if not isinstance(value, str) or not (value.strip().startswith("[") and value.strip().endswith("]")):
        return None
    try:
        items = json.loads(value)
    except ValueError:
        items = value.strip()[1:-1].split(",")
    return [str(item).strip(_TAG_WRAPPING) for item in items] if isinstance(items, list) else None


def _tags(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = list_in_string(value) or [part.strip(_TAG_WRAPPING) for part in value.split(",")]
    if not isinstance(value, list):
        return ()
    return _unique(t.strip() for t in value if isinstance(t, str) and t.strip())


def _tools(value: Any) -> tuple[dict[str, Any], ...]:
    if not isinstance(value, list):
        return ()
    tools = []
    for item in value:
        if isinstance(item, str) and item.strip():
            tools.append({"name": item.strip(), "purpose": "", "required": False})
        elif isinstance(item, dict) and isinstance(item.get("name"), str):
            purpose = item.get("purpose", item.get("description", ""))
            tools.append({"name": item["name"], "purpose": purpose if isinstance(purpose, str) else "",
                          "required": item.get("required") is True})
    return tuple(tools)


def _parameters(value: Any) -> tuple[dict[str, Any], ...]:
    if isinstance(value, dict):
        value = [{"name": str(k), **(v if isinstance(v, dict) else {"description": str(v)})}
                 for k, v in value.items()]
    if not isinstance(value, list):
        return ()
    return tuple(jsonable(p) for p in value if isinstance(p, dict) and isinstance(p.get("name"), str))


def _examples(value: Any) -> tuple[Any, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(jsonable(e) for e in value if isinstance(e, (str, dict)))


def _requirements(fm: dict[str, Any]) -> Requirements:
    """What the skill needs, from ``requires`` and the top-level keys; a value in another shape
    adds nothing (SK234)."""
    req = fm.get("requires") if isinstance(fm.get("requires"), dict) else {}
    bins, env = (_needed(req, fm, "bins"), _needed(req, fm, "env"))
    platforms = [*(os_platforms(req.get("platforms")) or ()), *(os_platforms(fm.get("platforms")) or ())]
    return shared(Requirements(_unique(bins), _unique(env), _unique(platforms)), NOTHING_REQUIRED)


def _needed(req: dict[str, Any], fm: dict[str, Any], kind: str) -> list[str]:
    """The programs (``bins``) or variables (``env``) ``requires`` and the top-level keys name."""
    return [name for value in (req.get(kind), *(fm.get(key) for key in _NEEDS[kind]))
            for name in needed_names(value) or ()]


def _is_true(fm: dict[str, Any], *keys: str) -> bool:
    return any(fm.get(k) is True for k in keys)


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def is_hidden(fm: dict[str, Any]) -> bool:
    """Whether the frontmatter keeps the skill from being offered to a model."""
    return _is_true(fm, "hidden", "hideFromDiscovery", "disable-model-invocation")


def is_unlisted(fm: dict[str, Any]) -> bool:
    """Whether the frontmatter keeps the skill out of the site's lists too (``hidden``,
    ``hideFromDiscovery``; ``disable-model-invocation`` leaves it listed for people)."""
    return _is_true(fm, "hidden", "hideFromDiscovery")


def is_user_invocable_only(fm: dict[str, Any]) -> bool:
    return _is_true(fm, "user_invocable_only", "user-invocable-only")


def skill_name(parsed: ParsedSkill) -> str:
    """The name a skill is known by: its frontmatter name, else its folder's."""
    return _text((parsed.frontmatter or {}).get("name")) or parsed.source.folder_name


def is_kept(parsed: ParsedSkill) -> bool:
    """False when the skill is left out of every output (unreadable, or no usable description)."""
    fm = parsed.frontmatter
    return fm is not None and isinstance(fm.get("description"), str) and bool(fm["description"].strip())


def skill_version(fm: dict[str, Any]) -> str | None:
    """The version as written: top-level ``version``, else ``metadata.version``."""
    meta = fm.get("metadata") if isinstance(fm.get("metadata"), dict) else {}
    return _text(fm.get("version")) or _text(meta.get("version"))


def build_skill(parsed: ParsedSkill, diags: Sequence[Diagnostic]) -> Skill:
    """Normalise a kept skill's frontmatter into a :class:`Skill`."""
    fm = parsed.frontmatter or {}
    src = parsed.source
    meta = fm.get("metadata") if isinstance(fm.get("metadata"), dict) else {}
    return Skill(
        id=src.id, name=skill_name(parsed), description=fm["description"].strip(), source=src,
        body_line=parsed.body_line, sha256=hashlib.sha256(parsed.raw).hexdigest(), size=len(parsed.raw),
        frontmatter=jsonable(fm),
        license=_text(fm.get("license")), compatibility=_text(fm.get("compatibility")),
        version=skill_version(fm),
        tags=_tags(fm.get("tags")), allowed_tools=normalise_allowed_tools(read_value(fm, "allowed-tools")),
        metadata=jsonable(meta), tools=_tools(read_value(fm, "tools")),
        parameters=_parameters(read_value(fm, "parameters")),
        examples=_examples(fm.get("examples")),
        priority=skill_priority(fm),
        hidden=is_hidden(fm), user_invocable_only=is_user_invocable_only(fm), always=_is_true(fm, "always"),
        requirements=_requirements(fm),
        user_invocable=fm.get("user-invocable") is not False,
        # the kinds it declares only: most skills declare none, and a catalog holds one dict a skill
        triggers={kind: words for kind, words in normalise_triggers(read_value(fm, "triggers")).items() if words},
        conflicts=_unique(_names(fm.get("conflicts"))),
        depends=tuple(item for item, _, _ in declared_dependencies(fm, parsed.key_lines)),
        knowledge=_unique(_names(fm.get("knowledge")) if isinstance(fm.get("knowledge"), list) else ()),
        extra=_extra(fm),
        diagnostics=tuple(diags),
    )


# Skill fields kept as they are in JSON, and those that are tuples (lists in JSON).
_PLAIN_FIELDS = ("name", "description", "body_line", "frontmatter", "license", "compatibility", "version",
                 "metadata", "priority", "hidden", "user_invocable_only", "always", "user_invocable", "triggers",
                 "extra")
_TUPLE_FIELDS = ("tags", "allowed_tools", "tools", "parameters", "examples", "conflicts", "knowledge",
                 "depends")


def skill_to_json(skill: Skill) -> dict[str, Any]:
    """A skill as the cache keeps it: every field but its source, SKILL.md's sha256 and size, and diagnostics."""
    data = {name: getattr(skill, name) for name in _PLAIN_FIELDS + _TUPLE_FIELDS}
    data["requirements"] = [list(skill.requirements.bins), list(skill.requirements.env),
                            list(skill.requirements.platforms)]
    return data


def skill_fields(data: dict[str, Any]) -> dict[str, Any]:
    """The fields of the skill :func:`skill_to_json` gave, as the skill holds them (all but its
    source, SKILL.md's sha256 and size, and diagnostics: see :func:`skill_of_fields`)."""
    return {"requirements": shared(Requirements(*(tuple(values) for values in data["requirements"])), NOTHING_REQUIRED),
            **{name: data[name] for name in _PLAIN_FIELDS}, **{name: tuple(data[name]) for name in _TUPLE_FIELDS}}


def skill_of_fields(fields: dict[str, Any], source: SourceFile, sha256: str, size: int,
                    diags: Sequence[Diagnostic]) -> Skill:
    """The skill of ``fields`` (:func:`skill_fields`, shared: not copied), with its source, its
    SKILL.md's sha256 and size, and its diagnostics."""
    return Skill(id=source.id, source=source, sha256=sha256, size=size, diagnostics=tuple(diags), **fields)
