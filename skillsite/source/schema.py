"""Frontmatter validation by jsonschema, driven by the JSON Schema files in ``skillsite/schemas``.

Each schema annotates its keywords with ``x-codes`` (the diagnostic code of a failing
keyword), ``x-severity`` (when it is not an error) and ``x-message`` (a friendlier text),
so the rules live in the schema and this module only translates failures; ``x-extra`` marks a
key kept in the manifest's ``extra`` (:func:`extra_keys`).
"""
from __future__ import annotations

import dataclasses
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from skillsite.diagnostics import Diagnostic, Severity, make

PROFILES = ("default", "spec")

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"


@lru_cache(maxsize=None)
def load_schema(name: str) -> dict[str, Any]:
    """A JSON schema shipped in the package, by file name."""
    return json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def validator(profile: str) -> Draft202012Validator:
    """The validator of a profile's frontmatter schema, made once per process."""
    return Draft202012Validator(load_schema(f"skill.{profile}.schema.json"))


@lru_cache(maxsize=None)
def known_keys(profile: str) -> frozenset[str]:
    """The top-level frontmatter keys a profile understands."""
    return frozenset(load_schema(f"skill.{profile}.schema.json")["properties"])


#: The keys whose value, when nothing is written (``name:``), has its own code saying more of it
#: (SK203, SK201, SK233) than that it reads as not written.
_SAID_EMPTY = frozenset({"name", "description", "priority"})


@lru_cache(maxsize=None)
def read_as_unwritten_when_empty(profile: str) -> frozenset[str]:
    """The top-level keys that read as not written when written with nothing (a YAML null:
    ``triggers:``; SK234, a warning, as Claude Code reads it, and as the specification's guide for
    clients skips a skill only for a missing description or YAML that cannot be read): every key
    skillsite knows but those :data:`_SAID_EMPTY`; none in the spec profile, which refuses them."""
    return frozenset() if profile == "spec" else known_keys(profile) - _SAID_EMPTY


@lru_cache(maxsize=None)
def extra_keys(profile: str) -> frozenset[str]:
    """The known top-level keys the manifest's ``extra`` keeps as written (``x-extra``: another
    agent's keys, such as Claude Code's ``model``, that the entry has no field for)."""
    properties = load_schema(f"skill.{profile}.schema.json")["properties"]
    return frozenset(key for key, rule in properties.items() if rule.get("x-extra"))


@lru_cache(maxsize=None)
def _key_validator(profile: str, key: str) -> Draft202012Validator:
    """The validator of one top-level key's schema (with the schema's ``$defs`` its ``$ref`` names)."""
    schema = load_schema(f"skill.{profile}.schema.json")
    return Draft202012Validator({"$defs": schema.get("$defs", {}), **schema["properties"][key]})


def fits_schema(profile: str, key: str, value: Any) -> bool:
    """Whether ``value`` is in the shape a profile's schema gives the top-level ``key``."""
    return _key_validator(profile, key).is_valid(value)


def type_name(value: Any) -> str:
    """The YAML-ish name of a Python value's type, for messages."""
    if value is None:
        return "null"
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "list",
            dict: "mapping"}.get(type(value), type(value).__name__)


def short(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _field(path) -> str:
    """A value's place in the frontmatter as messages and ``key_lines`` name it: ``metadata.tags``,
    an item of a list by its index (``knowledge[1]``)."""
    field = ""
    for part in path:
        field += f"[{part}]" if isinstance(part, int) else f".{part}" if field else str(part)
    return field


def _describe(schema: dict[str, Any]) -> str:
    if "anyOf" in schema:
        return " or ".join(_describe(s) for s in schema["anyOf"])
    if "enum" in schema:
        return "one of " + ", ".join(map(str, schema["enum"]))
    if schema.get("type") == "array":
        items = schema.get("items")
        if isinstance(items, dict) and items.get("type") in ("string", "object"):
            return "a list of " + {"string": "strings", "object": "mappings"}[items["type"]]
        return "a list"
    if schema.get("type") == "object":
        return "a mapping"
    return {"string": "a string", "integer": "an integer", "boolean": "true or false",
            "number": "a number"}.get(schema.get("type", ""), "a valid value")


def _failing_part(err: Any) -> Any:
    """Of an ``anyOf`` failure, the error of the part that failed when the value has the type of a
    branch (jsonschema's :func:`best_match`, which descends into that branch): a list's wrong item
    (``tags[1]``, ``conflicts[0]``); the failure itself when no branch fits the value's type."""
    return best_match([err]) if err.validator == "anyOf" else err


def _message(err, field: str) -> str:
    kw, schema, inst = err.validator, err.schema, err.instance
    custom = schema.get("x-message", {}).get(kw)
    if kw in ("type", "minimum", "maximum", "minLength", "anyOf") and custom:  # what was written, what becomes of it
        return f"'{field}' {repr(short(inst)) if isinstance(inst, str) else short(inst)} {custom}"
    if kw == "type":
        return f"'{field}' must be {_describe(schema)}, not {type_name(inst)}"
    if kw == "anyOf":
        return f"'{field}' must be {_describe(schema)}, not {type_name(inst)} ({short(inst)})"
    if kw == "required":
        missing = ", ".join(repr(key) for key in err.validator_value if key not in inst)
        return f"'{field}' is a mapping without the key {missing} it needs ({short(inst)})"
    if kw == "maxLength":
        return f"'{field}' is {len(inst)} characters long; the limit is {err.validator_value}"
    if kw == "minLength":
        return f"'{field}' is empty"
    if kw == "pattern":
        return f"'{field}' {short(inst)!r} {custom or 'does not match ' + err.validator_value}"
    if kw == "enum":
        return f"'{field}' must be one of {', '.join(map(str, err.validator_value))}, not {short(inst)!r}"
    return f"'{field}': {custom or err.message[:200]}"


def _where(field: str, key_lines: dict[str, tuple[int, int]]) -> tuple[int, int]:
    """The line and column of a field, or of its nearest parent that has one."""
    while field:
        if field in key_lines:
            return key_lines[field]
        field = field[:field.rindex("[")] if field.endswith("]") else field.rsplit(".", 1)[0] if "." in field else ""
    return (1, 1)


def _severity(schema: dict[str, Any], keyword: str, key: str | None = None) -> Severity | None:
    """The severity a schema gives a failing keyword (``x-severity``); None: the code's own."""
    value = schema.get("x-severity", {}).get(keyword)
    if key is not None:
        value = (value or {}).get(key)
    return Severity(value) if value else None


def _one_cause_each(errors: list[Any]) -> list[Any]:
    """The errors less the pattern failure of a value that is empty, which its ``minLength``
    failure says already (``description: ""`` was both "is empty" and "'' is only whitespace")."""
    empty = {tuple(e.absolute_path) for e in errors if e.validator == "minLength" and e.instance == ""}
    return [e for e in errors if not (e.validator == "pattern" and tuple(e.absolute_path) in empty)]


def _empty_optional(err: Any, profile: str) -> bool:
    """Whether ``err`` is of a top-level key written with nothing that reads as not written
    (:func:`read_as_unwritten_when_empty`)."""
    path = err.absolute_path
    return err.instance is None and len(path) == 1 and path[0] in read_as_unwritten_when_empty(profile)


def _error_diagnostics(err: Any, profile: str, path: str, key_lines: dict[str, tuple[int, int]]
                       ) -> list[Diagnostic]:
    """The diagnostics of one jsonschema error, with the code and severity its schema names."""
    kw, schema = err.validator, err.schema
    codes = schema.get("x-codes", {})
    field = _field(err.absolute_path)
    if kw == "required":
        return [make(codes["required"][key], f"required key '{key}' is missing", path, 1, 1,
                     _severity(schema, "required", key)) for key in err.validator_value if key not in err.instance]
    if kw == "additionalProperties" and not field:
        allowed = ", ".join(sorted(schema.get("properties", {})))
        return [make(codes.get(kw, "SK207"), f"unknown key '{key}' (the {profile} profile allows only {allowed})",
                     path, *_where(key, key_lines))
                for key in sorted(set(err.instance) - set(schema.get("properties", {})))]
    if _empty_optional(err, profile):
        return [make("SK234", f"'{field}' is empty (nothing after '{field}:'); ignored, as if not written, and kept "
                              "in the manifest's extra", path, *_where(field, key_lines), Severity.WARNING)]
    # what failed inside a value of the right type, said at its own line; a value ignored whole
    # (x-message: SK234's platforms) is said whole, at its key
    part = err if kw in schema.get("x-message", {}) else _failing_part(err)
    part_field = _field(part.absolute_path)
    return [make(codes.get(kw, "SK208"), _message(part, part_field), path, *_where(part_field, key_lines),
                 _severity(schema, kw))]


#: Codes of a name or description installers refuse (the discovery index's ``listable``), and the
#: field each is about: as a warning the skill is still published, but the discovery index
#: leaves it out, so say so.
_UNLISTED_FIELDS = {"SK203": "name", "SK205": "name", "SK206": "description"}


def _published_fails(frontmatter: dict[str, Any], profile: str, field: str) -> bool:
    """Whether ``field`` still fails its schema as the catalog publishes it: stripped of the
    spaces around it (``'tidy  '`` is listed as ``tidy``)."""
    value = frontmatter.get(field)
    if not isinstance(value, str):
        return True
    schema = load_schema(f"skill.{profile}.schema.json")["properties"][field]
    return not validator(profile).evolve(schema=schema).is_valid(value.strip())


def _said_unlisted(diag: Diagnostic, frontmatter: dict[str, Any], profile: str) -> Diagnostic:
    """``diag``, saying the skill is not in the discovery index when its warning keeps it out, or
    how the catalog publishes the value when only the spaces around it were wrong."""
    if diag.code not in _UNLISTED_FIELDS or diag.severity is not Severity.WARNING:
        return diag
    if _published_fails(frontmatter, profile, _UNLISTED_FIELDS[diag.code]):
        return dataclasses.replace(diag, message=diag.message + "; installers refuse it, so the skill is not listed "
                                                                "in the discovery index")
    return dataclasses.replace(diag, message=diag.message + "; the catalog publishes it without the spaces around it")


def schema_diagnostics(frontmatter: dict[str, Any], profile: str, path: str,
                       key_lines: dict[str, tuple[int, int]]) -> list[Diagnostic]:
    """Validate frontmatter against a profile's schema; every failure becomes a diagnostic.

    Outside the ``spec`` profile a key the schema does not list is a warning (SK207).
    """
    diags: list[Diagnostic] = []
    errors = list(validator(profile).iter_errors(frontmatter))
    for err in _one_cause_each(errors):
        for diag in _error_diagnostics(err, profile, path, key_lines):
            diag = _said_unlisted(diag, frontmatter, profile)
            if diag not in diags:
                diags.append(diag)
    if profile != "spec":
        for key in sorted(set(frontmatter) - known_keys(profile)):
            diags.append(make("SK207", f"unknown key '{key}'; kept in the manifest's extra but not "
                                       "understood", path, *_where(key, key_lines), Severity.WARNING))
    return diags


#: A top-level key whose value starts with ``#``: YAML reads a comment there, and no value.
_COMMENT_FOR_VALUE = re.compile(r"([^\s#:][^:]*):[ \t]+#")


def said_commented(diags: list[Diagnostic], frontmatter: dict[str, Any], raw: bytes) -> list[Diagnostic]:
    """``diags``, each failure of a top-level value read as null saying why where its line goes on
    with a ``#`` (``description: # Chemistry & Drug Discovery``): "must be a string, not null" named
    no cause for a value the author sees written."""
    if not any(value is None for value in frontmatter.values()):
        return diags
    lines = raw.decode("utf-8", "replace").split("\n")
    said = []
    for diag in diags:
        written = _COMMENT_FOR_VALUE.match(lines[diag.line - 1]) if 0 < diag.line <= len(lines) else None
        key = written.group(1) if written else None
        if key is not None and key in frontmatter and frontmatter[key] is None and diag.message.startswith(f"'{key}'"):
            diag = dataclasses.replace(diag, message=f"{diag.message}: the '#' after '{key}:' starts a YAML comment, "
                                                     f"so the key has no value (quote a value that starts with '#')")
        said.append(diag)
    return said
