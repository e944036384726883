"""A small JSON Schema (Draft 2020-12) evaluator for the keywords skillsite's own schemas use.

Why not jsonschema at run time: importing it takes longer than validating a thousand
skills, and ``skillsite validate`` must start fast.  This evaluator covers exactly the
keywords of ``skill.spec.schema.json`` and ``skill.default.schema.json`` (it refuses a
schema using any other) and reports failures as jsonschema does — same keyword, path,
subschema and instance — which ``tests/unit/test_schema_eval.py`` checks against
jsonschema itself on the corpus, the hostile fixtures and random frontmatter.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Iterator

#: Keywords that only annotate (or are skillsite's own ``x-`` annotations).
_ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "title", "description", "default", "examples"})
_KEYWORDS = frozenset({"type", "properties", "required", "additionalProperties", "items", "anyOf", "enum",
                       "const", "minLength", "maxLength", "pattern", "maxItems", "minItems", "minimum", "$ref"})


@dataclass(frozen=True)
class SchemaError:
    """One failing keyword, with the attributes of a ``jsonschema.ValidationError`` that skillsite reads."""

    validator: str                   # the failing keyword
    validator_value: Any             # its value in the schema
    schema: dict[str, Any]           # the (sub)schema holding the keyword
    instance: Any                    # the value that failed
    absolute_path: tuple[Any, ...] = field(default=())  # keys and indexes from the root
    message: str = ""


def _is_type(value: Any, kind: str) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    if isinstance(value, bool):
        return False
    if kind == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if kind == "number":
        return isinstance(value, (int, float))
    raise ValueError(f"unknown JSON Schema type {kind!r}")


def _equal(a: Any, b: Any) -> bool:
    """JSON equality: booleans are not numbers."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    return a == b


@lru_cache(maxsize=256)
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


class SchemaEvaluator:
    """Evaluates instances against one schema document."""

    def __init__(self, schema: dict[str, Any]):
        self.root = schema
        self._check(schema)
        # id of a (sub)schema -> the schema (kept, so that no other object takes its id) and its predicate
        self._predicates: dict[int, tuple[dict[str, Any], Callable[[Any], bool]]] = {}

    def _check(self, schema: Any) -> None:
        if isinstance(schema, dict):
            for key, value in schema.items():
                if key.startswith("x-") or key in _ANNOTATIONS:
                    if key == "$defs":
                        for sub in value.values():
                            self._check(sub)
                    continue
                if key not in _KEYWORDS:
                    raise ValueError(f"schema keyword {key!r} is not supported by skillsite's evaluator")
                if key in ("properties",):
                    for sub in value.values():
                        self._check(sub)
                elif key in ("items", "additionalProperties"):
                    self._check(value)
                elif key == "anyOf":
                    for sub in value:
                        self._check(sub)

    def _resolve(self, ref: str) -> dict[str, Any]:
        if not ref.startswith("#/"):
            raise ValueError(f"only local $ref is supported, not {ref!r}")
        node: Any = self.root
        for part in ref[2:].split("/"):
            node = node[part]
        return node

    def is_valid(self, instance: Any, schema: dict[str, Any] | None = None) -> bool:
        """Whether ``iter_errors`` finds nothing: decided by a predicate made once per (sub)schema,
        with no generators and no error objects (most frontmatter is valid: then only this runs)."""
        return self._predicate(self.root if schema is None else schema)(instance)

    def _predicate(self, schema: dict[str, Any]) -> Callable[[Any], bool]:
        made = self._predicates.get(id(schema))
        if made is not None:
            return made[1]
        checks = tuple(getattr(self, "_accepts_" + key.lstrip("$"))(value, schema)
                       for key, value in schema.items() if not (key.startswith("x-") or key in _ANNOTATIONS))

        def predicate(instance: Any) -> bool:
            for check in checks:
                if not check(instance):
                    return False
            return True
        self._predicates[id(schema)] = (schema, predicate)
        return predicate

    def iter_errors(self, instance: Any, schema: dict[str, Any] | None = None,
                    path: tuple[Any, ...] = ()) -> Iterator[SchemaError]:
        """Every failing keyword, descending into properties, items and references."""
        schema = self.root if schema is None else schema
        for key, value in schema.items():
            if key.startswith("x-") or key in _ANNOTATIONS:
                continue
            yield from getattr(self, "_" + key.lstrip("$"))(value, instance, schema, path)

    # -- keywords, as predicates (for is_valid) -------------------------------------------------

    def _accepts_ref(self, value, schema):
        return lambda instance: self._predicate(self._resolve(value))(instance)  # resolved when used: may recurse

    def _accepts_type(self, value, schema):
        kinds = value if isinstance(value, list) else [value]
        simple = {"string": str, "object": dict, "array": list, "boolean": bool}
        if len(kinds) == 1 and kinds[0] in simple:
            kind = simple[kinds[0]]
            return lambda instance: isinstance(instance, kind)
        return lambda instance: any(_is_type(instance, k) for k in kinds)

    def _accepts_properties(self, value, schema):
        pairs = tuple((name, self._predicate(sub)) for name, sub in value.items())
        return lambda instance: not isinstance(instance, dict) or all(
            check(instance[name]) for name, check in pairs if name in instance)

    def _accepts_required(self, value, schema):
        return lambda instance: not isinstance(instance, dict) or all(name in instance for name in value)

    def _accepts_additionalProperties(self, value, schema):
        known = frozenset(schema.get("properties", {}))
        if value is False:
            return lambda instance: not isinstance(instance, dict) or all(k in known for k in instance)
        if isinstance(value, dict):
            check = self._predicate(value)
            return lambda instance: not isinstance(instance, dict) or all(
                check(v) for k, v in instance.items() if k not in known)
        return lambda instance: True

    def _accepts_items(self, value, schema):
        check = self._predicate(value)
        return lambda instance: not isinstance(instance, list) or all(check(item) for item in instance)

    def _accepts_anyOf(self, value, schema):
        checks = tuple(self._predicate(sub) for sub in value)
        return lambda instance: any(check(instance) for check in checks)

    def _accepts_enum(self, value, schema):
        return lambda instance: any(_equal(instance, option) for option in value)

    def _accepts_const(self, value, schema):
        return lambda instance: _equal(instance, value)

    def _accepts_minLength(self, value, schema):
        return lambda instance: not isinstance(instance, str) or len(instance) >= value

    def _accepts_maxLength(self, value, schema):
        return lambda instance: not isinstance(instance, str) or len(instance) <= value

    def _accepts_pattern(self, value, schema):
        search = _regex(value).search
        return lambda instance: not isinstance(instance, str) or search(instance) is not None

    def _accepts_maxItems(self, value, schema):
        return lambda instance: not isinstance(instance, list) or len(instance) <= value

    def _accepts_minItems(self, value, schema):
        return lambda instance: not isinstance(instance, list) or len(instance) >= value

    def _accepts_minimum(self, value, schema):
        return lambda instance: not (_is_type(instance, "number") and instance < value)

    # -- keywords, as failures (for iter_errors) ------------------------------------------------

    def _ref(self, value, instance, schema, path):
        yield from self.iter_errors(instance, self._resolve(value), path)

    def _type(self, value, instance, schema, path):
        kinds = value if isinstance(value, list) else [value]
        if not any(_is_type(instance, k) for k in kinds):
            yield SchemaError("type", value, schema, instance, path, f"{instance!r} is not of type {value!r}")

    def _properties(self, value, instance, schema, path):
        if isinstance(instance, dict):
            for name, sub in value.items():
                if name in instance:
                    yield from self.iter_errors(instance[name], sub, path + (name,))

    def _required(self, value, instance, schema, path):
        if isinstance(instance, dict):
            for name in value:
                if name not in instance:
                    yield SchemaError("required", value, schema, instance, path, f"{name!r} is a required property")

    def _additionalProperties(self, value, instance, schema, path):
        if not isinstance(instance, dict):
            return
        extras = [k for k in instance if k not in schema.get("properties", {})]
        if value is False:
            if extras:
                yield SchemaError("additionalProperties", value, schema, instance, path,
                                  "Additional properties are not allowed")
        elif isinstance(value, dict):
            for name in extras:
                yield from self.iter_errors(instance[name], value, path + (name,))

    def _items(self, value, instance, schema, path):
        if isinstance(instance, list):
            for index, item in enumerate(instance):
                yield from self.iter_errors(item, value, path + (index,))

    def _anyOf(self, value, instance, schema, path):
        if not any(self.is_valid(instance, sub) for sub in value):
            yield SchemaError("anyOf", value, schema, instance, path,
                              f"{instance!r} is not valid under any of the given schemas")

    def _enum(self, value, instance, schema, path):
        if not any(_equal(instance, option) for option in value):
            yield SchemaError("enum", value, schema, instance, path, f"{instance!r} is not one of {value!r}")

    def _const(self, value, instance, schema, path):
        if not _equal(instance, value):
            yield SchemaError("const", value, schema, instance, path, f"{value!r} was expected")

    def _minLength(self, value, instance, schema, path):
        if isinstance(instance, str) and len(instance) < value:
            yield SchemaError("minLength", value, schema, instance, path, f"{instance!r} is too short")

    def _maxLength(self, value, instance, schema, path):
        if isinstance(instance, str) and len(instance) > value:
            yield SchemaError("maxLength", value, schema, instance, path, f"{instance!r} is too long")

    def _pattern(self, value, instance, schema, path):
        if isinstance(instance, str) and not _regex(value).search(instance):
            yield SchemaError("pattern", value, schema, instance, path, f"{instance!r} does not match {value!r}")

    def _maxItems(self, value, instance, schema, path):
        if isinstance(instance, list) and len(instance) > value:
            yield SchemaError("maxItems", value, schema, instance, path, f"{instance!r} is too long")

    def _minItems(self, value, instance, schema, path):
        if isinstance(instance, list) and len(instance) < value:
            yield SchemaError("minItems", value, schema, instance, path, f"{instance!r} is too short")

    def _minimum(self, value, instance, schema, path):
        if _is_type(instance, "number") and instance < value:
            yield SchemaError("minimum", value, schema, instance, path, f"{instance!r} is less than {value!r}")
