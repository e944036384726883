"""Codex's ``agents/openai.yaml`` in a skill folder: checked against its documented fields and
limits (``skillsite/schemas/codex-openai.schema.json``), and what a catalog page shows of it.

The file is optional.  A problem is a warning (SK220): Codex falls back to the SKILL.md.
Icons must be files the catalog publishes with the skill (not excluded nor ignored); an icon
path is never followed outside the folder.  ``policy.allow_implicit_invocation: false`` (only the
user invokes the skill, as ``$name``) hides the skill from models as ``disable-model-invocation``
does (:func:`implicit_invocation_allowed`).
"""
from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import AbstractSet, Any

from skillsite.agent.entry import CODEX_POLICY
from skillsite.diagnostics import Diagnostic, make
from skillsite.source.frontmatter import parse_frontmatter_text
from skillsite.source.frontmatter_yaml import FrontmatterError
from skillsite.bounded import read_limited
from skillsite.source.schema import load_schema

CODEX_FILE = "agents/openai.yaml"
SCHEMA_FILE = "codex-openai.schema.json"
MAX_BYTES = 64 * 1024
ICON_SUFFIXES = (".png", ".svg", ".jpg", ".jpeg", ".webp")
SHOWN = ("display_name", "short_description", "icon_small", "icon_large", "brand_color")
#: The value written after a key (from the key's column): up to a space, comma, brace or comment.
_WRITTEN_VALUE = re.compile(r"[^:]*:\s*([^\s,}#]+)")


def _validator() -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(load_schema(SCHEMA_FILE))


def read_codex_file(skill_dir: Path, shown_path: str, published: AbstractSet[str]
                    ) -> tuple[dict[str, Any] | None, list[Diagnostic]]:
    """The parsed ``agents/openai.yaml`` and SK220 for each problem; (None, []) without one.
    ``published``: the paths of the skill's files the catalog publishes (an icon must be one)."""
    where = f"{shown_path.rsplit('/', 1)[0]}/{CODEX_FILE}" if "/" in shown_path else CODEX_FILE
    data, lines, diags, text = _parsed(skill_dir, where)
    if data is None:
        return None, diags
    for err in sorted(_validator().iter_errors(data), key=lambda e: list(map(str, e.absolute_path))):
        field = ".".join(str(p) for p in err.absolute_path)
        line, col = lines.get(field, lines.get(field.rsplit(".", 1)[0], (1, 1)))
        diags.append(make("SK220", f"{CODEX_FILE}: '{field or 'top level'}' {err.message}", where, line, col))
    return data, diags + _policy_spelling(data, lines, text, where) + _icon_diagnostics(data, skill_dir, where, lines,
                                                                                        published)


def _policy_spelling(data: dict[str, Any], lines: dict[str, tuple[int, int]], text: str, where: str
                     ) -> list[Diagnostic]:
    """SK220 for a policy written as a boolean of YAML 1.1 only (``no``, ``on``...): read here as
    one, but as text by Codex, whose YAML reader (1.2) takes only true and false."""
    policy = data.get("policy")
    if not (isinstance(policy, dict) and isinstance(policy.get("allow_implicit_invocation"), bool)
            and CODEX_POLICY in lines):
        return []
    line, col = lines[CODEX_POLICY]
    written = _WRITTEN_VALUE.match(text.splitlines()[line - 1], col - 1)
    if written is None or written.group(1).lower() in ("true", "false") or written.group(1)[:1] in "'\"!&*":
        return []
    return [make("SK220", f"{CODEX_FILE}: '{CODEX_POLICY}: {written.group(1)}' is a boolean in YAML 1.1 only; Codex "
                          "reads it as text (write true or false)", where, line, col)]


def implicit_invocation_allowed(skill_dir: Path) -> bool:
    """False when the skill's ``agents/openai.yaml`` (as :func:`read_codex_file` reads it) sets
    ``policy.allow_implicit_invocation`` to false: only the user invokes it."""
    data, _, _, _ = _parsed(skill_dir, CODEX_FILE)
    policy = data.get("policy") if isinstance(data, dict) else None
    return not (isinstance(policy, dict) and policy.get("allow_implicit_invocation") is False)


def _parsed(skill_dir: Path, where: str) -> tuple[Any, dict[str, tuple[int, int]], list[Diagnostic], str]:
    """The file's YAML, the line of each key, SK220 for each problem reading it (the YAML reader's
    recovery warnings too: a key written twice, the last one winning) and its text; None for the
    YAML when it cannot be read (nothing said without a file)."""
    try:
        raw, _ = read_limited(skill_dir / CODEX_FILE, MAX_BYTES)
    except OSError:
        return None, {}, [], ""
    if len(raw) > MAX_BYTES:
        return None, {}, [make("SK220", f"{CODEX_FILE} is larger than {MAX_BYTES:,} bytes; not read", where)], ""
    try:
        text = raw.decode("utf-8")
        data, lines, warnings = parse_frontmatter_text(text, where, line_offset=0)
    except UnicodeDecodeError:
        return None, {}, [make("SK220", f"{CODEX_FILE} is not UTF-8", where)], ""
    except FrontmatterError as exc:
        return None, {}, [make("SK220", _unusable(exc), where, exc.line, exc.col)], ""
    return data, lines, [make("SK220", f"{CODEX_FILE}: {w.message}", where, w.line, w.col) for w in warnings], text


def _unusable(exc: FrontmatterError) -> str:
    """Why the file cannot be used, said of the file, not of a SKILL.md's frontmatter (whose
    reader read it: an empty file does not lack "a description")."""
    if exc.message.startswith("frontmatter is empty"):
        return f"{CODEX_FILE} is empty; it must be a mapping of keys to values"
    if exc.message.startswith("frontmatter "):
        return f"{CODEX_FILE} {exc.message.removeprefix('frontmatter ')}"
    if exc.message.startswith(possessive := "frontmatter's "):
        return f"{CODEX_FILE}'s {exc.message.removeprefix(possessive)}"
    return f"{CODEX_FILE}: {exc.message.removesuffix(' in frontmatter')}"


def _icon_diagnostics(data: dict[str, Any], skill_dir: Path, where: str,
                      lines: dict[str, tuple[int, int]], published: AbstractSet[str]) -> list[Diagnostic]:
    """SK220 for an icon that is no image file of the skill, or one the catalog does not publish."""
    diags = []
    interface = data.get("interface") if isinstance(data.get("interface"), dict) else {}
    for key in ("icon_small", "icon_large"):
        icon = interface.get(key)
        if not (isinstance(icon, str) and icon):
            continue
        path = icon_path(icon, skill_dir)
        problem = "is no image file of the skill" if path is None else \
            None if path in published else "is not published with the skill (excluded or ignored)"
        if problem:
            diags.append(make("SK220", f"{CODEX_FILE}: 'interface.{key}' {icon!r} {problem}",
                              where, *lines.get(f"interface.{key}", (1, 1))))
    return diags


def icon_path(icon: str, skill_dir: Path) -> str | None:
    """An icon as a path relative to the skill folder, when it is an image file inside it."""
    if "\x00" in icon:
        return None
    clean = posixpath.normpath(icon.removeprefix("./"))
    if clean.startswith(("../", "/")) or clean == ".." or not clean.lower().endswith(ICON_SUFFIXES):
        return None
    real_dir = skill_dir.resolve()
    target = (skill_dir / clean).resolve()
    return clean if target.is_file() and real_dir in target.parents else None


def codex_interface(skill_dir: Path, shown_path: str, published: AbstractSet[str]) -> dict[str, Any] | None:
    """What a page and the manifest show of a skill's ``agents/openai.yaml``: the interface
    fields that are valid on their own (icons as paths of ``published`` files), or None."""
    from jsonschema import Draft202012Validator

    data, _ = read_codex_file(skill_dir, shown_path, published)
    interface = data.get("interface") if isinstance(data, dict) else None
    if not isinstance(interface, dict):
        return None
    fields = load_schema(SCHEMA_FILE)["properties"]["interface"]["properties"]
    shown = {key: interface[key] for key in SHOWN
             if key in interface and Draft202012Validator(fields[key]).is_valid(interface[key])}
    for key in ("icon_small", "icon_large"):
        if key in shown:
            path = icon_path(shown[key], skill_dir)
            if path is None or path not in published:
                del shown[key]
            else:
                shown[key] = path
    return shown or None
