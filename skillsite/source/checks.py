"""The checks a schema cannot express: name against folder, allowed-tools' and tags' form, control
characters, triggers, a skill conflicting with itself, body size, and names shared by several
skills."""
from __future__ import annotations

import re
import unicodedata
from typing import Any, Iterable, Sequence

from skillsite.agent.triggers import (MAX_CATALOG_WORK, normalise_triggers, own_budget_work, trigger_problems,
                                     wordless_triggers)
from skillsite.diagnostics import Diagnostic, Severity, make
from skillsite.models import ParsedSkill, SourceFile
from skillsite.source.skill import has_top_level_comma, list_in_string, normalise_allowed_tools, read_value, skill_name

MAX_BODY_LINES = 500
MAX_BODY_TOKENS = 5000
_CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def estimate_tokens(text: str) -> int:
    """A rough token count (about four characters per token), as agents budget them."""
    return (len(text) + 3) // 4


def name_diagnostics(fm: dict[str, Any], src: SourceFile, profile: str,
                     key_lines: dict[str, tuple[int, int]]) -> list[Diagnostic]:
    """SK204 when the name differs from the skill's folder (an error only in the spec profile)."""
    name = fm.get("name")
    if not isinstance(name, str) or not name.strip():
        return []
    folder = src.folder_name
    if unicodedata.normalize("NFKC", name.strip()) == unicodedata.normalize("NFKC", folder):
        return []
    severity = Severity.ERROR if profile == "spec" else Severity.WARNING
    stripped = "" if name == name.strip() else " (the spaces around a name are no part of it)"
    return [make("SK204", f"name '{name.strip()}' differs from its folder name '{folder}'{stripped}",
                 src.display_path, *key_lines.get("name", (1, 1)), severity)]


def allowed_tools_diagnostics(fm: dict[str, Any], src: SourceFile,
                              key_lines: dict[str, tuple[int, int]]) -> list[Diagnostic]:
    """SK211 for an allowed-tools list or comma-separated string (the specification wants spaces)."""
    value = read_value(fm, "allowed-tools")   # a value in a shape skillsite does not read is SK234's
    where = key_lines.get("allowed-tools", (1, 1))
    normal = " ".join(normalise_allowed_tools(value))
    if isinstance(value, list):
        return [make("SK211", f"allowed-tools is a list; the specification wants one space-separated "
                              f"string: '{normal}'", src.display_path, *where)]
    if isinstance(value, str) and has_top_level_comma(value):
        return [make("SK211", f"allowed-tools is comma-separated; the specification wants spaces: "
                              f"'{normal}'", src.display_path, *where)]
    return []


def tags_diagnostics(fm: dict[str, Any], src: SourceFile, key_lines: dict[str, tuple[int, int]]) -> list[Diagnostic]:
    """SK228 for tags written as a list inside a string (read as that list)."""
    items = list_in_string(fm.get("tags"))
    if items is None:
        return []
    listed = ", ".join(item for item in items if item)
    return [make("SK228", f"tags is a list written inside a string; read as the tags {listed!r}: write a YAML "
                          f"list (tags: [{listed}])", src.display_path, *key_lines.get("tags", (1, 1)))]


def control_char_diagnostics(fm: dict[str, Any], src: SourceFile,
                             key_lines: dict[str, tuple[int, int]]) -> list[Diagnostic]:
    """SK213: terminal escapes and other control characters in the texts every output shows."""
    diags = []
    for key in ("name", "description", "license", "compatibility", "version"):
        value = fm.get(key)
        if isinstance(value, str) and (match := _CONTROL_CHARS.search(value)):
            diags.append(make("SK213", f"'{key}' contains control character U+{ord(match.group()):04X}; "
                                       "outputs replace or escape it", src.display_path,
                              *key_lines.get(key, (1, 1))))
    return diags


def trigger_diagnostics(fm: dict[str, Any], src: SourceFile,
                        key_lines: dict[str, tuple[int, int]]) -> list[Diagnostic]:
    """SK214 for an empty trigger, or a pattern that is invalid, too long or could backtrack for ever;
    a warning for a phrase, keyword or verb with no searchable word, which is dropped (the skill keeps the others)."""
    triggers = read_value(fm, "triggers")   # a value in another shape is SK234's
    return [make("SK214", message, src.display_path, *_position(field, key_lines))
            for field, message in trigger_problems(triggers)] + \
        [make("SK214", message, src.display_path, *_position(field, key_lines), Severity.WARNING)
         for field, message in wordless_triggers(triggers)]


def published_patterns(fm: dict[str, Any], key_lines: dict[str, tuple[int, int]]
                       ) -> tuple[tuple[str, int, int, int], ...]:
    """The trigger patterns a skill publishes (those within its own budget), each with the line
    and column where it is first written and the work it may cost."""
    triggers = read_value(fm, "triggers")   # a value in another shape is SK234's
    written = triggers.get("patterns") if isinstance(triggers, dict) else None
    if not isinstance(written, list):
        return ()
    first: dict[str, int] = {}
    for index, item in enumerate(written):
        if isinstance(item, str):
            first.setdefault(item.strip(), index)
    published = normalise_triggers(triggers)["patterns"]
    return tuple((pattern, *_position(f"triggers.patterns[{first[pattern]}]", key_lines), work or 0)
                 for pattern, work in zip(published, own_budget_work(published)))


def catalog_budget_diagnostic(patterns: Sequence[tuple[str, int, int, int]], runs: Sequence[bool],
                              path: str) -> Diagnostic | None:
    """SK231 when some of a skill's published patterns (:func:`published_patterns`) are past the
    catalog's budget (``runs``: :func:`~skillsite.agent.triggers.within_catalog_budget`'s verdict)."""
    left_out = [(pattern, line, col) for (pattern, line, col, _), run in zip(patterns, runs) if not run]
    if not left_out:
        return None
    named = ", ".join(repr(pattern[:40]) for pattern, _, _ in left_out[:3]) + (", ..." if len(left_out) > 3 else "")
    return make("SK231", f"{len(left_out)} of its {len(patterns)} trigger patterns ({named}) never run: the "
                         f"catalog's patterns may cost {MAX_CATALOG_WORK:,} tries together on a message, and those of "
                         "the skills before this one in prompt order (always on, then priority, then id) take it; "
                         "fewer or cheaper patterns in those, or a higher priority here, make room",
                path, *left_out[0][1:])


def self_conflict_diagnostics(parsed: ParsedSkill) -> list[Diagnostic]:
    """SK216 when a skill's ``conflicts`` names the skill itself (by id or name)."""
    conflicts = (parsed.frontmatter or {}).get("conflicts")
    items = (re.split(r"[,\s]+", conflicts) if isinstance(conflicts, str)
             else conflicts if isinstance(conflicts, list) else [])
    own = {parsed.source.id, skill_name(parsed)}
    return [make("SK216", f"conflicts names the skill itself ('{item.strip()}')", parsed.source.display_path,
                 *_position(f"conflicts[{index}]", parsed.key_lines))
            for index, item in enumerate(items) if isinstance(item, str) and item.strip() in own]


def _position(field: str, key_lines: dict[str, tuple[int, int]]) -> tuple[int, int]:
    """Where a field (``triggers.patterns[1]``) is, else its key, else the top of the file."""
    return key_lines.get(field) or key_lines.get(field.split("[")[0]) or (1, 1)


def body_diagnostics(parsed: ParsedSkill) -> list[Diagnostic]:
    """Size advice of the specification: under 500 lines and about 5,000 tokens."""
    path, diags = parsed.source.display_path, []
    lines = parsed.body.count("\n") + (0 if parsed.body.endswith("\n") or not parsed.body else 1)
    if lines > MAX_BODY_LINES:
        diags.append(make("SK301", f"body is {lines} lines; keep it under {MAX_BODY_LINES} and move detail "
                                   "into references/", path, parsed.body_line, parsed.body_column))
    tokens = estimate_tokens(parsed.body)
    if tokens > MAX_BODY_TOKENS:
        diags.append(make("SK302", f"body is about {tokens:,} tokens; keep it under about {MAX_BODY_TOKENS:,}",
                          path, parsed.body_line, parsed.body_column))
    return diags


def duplicate_name_diagnostics(named: Iterable[tuple[SourceFile, str, tuple[int, int]]]
                               ) -> list[tuple[int, Diagnostic]]:
    """SK212 for every kept skill (given as source, name, position of its name) whose name an
    earlier one already uses: ``(index in named, diagnostic)``."""
    found = []
    seen_names: dict[str, str] = {}
    for index, (source, name, (line, col)) in enumerate(named):
        first = seen_names.setdefault(name, source.id)
        if first != source.id:
            found.append((index, make("SK212", f"name '{name}' is also used by skill '{first}'; installers will "
                                               "confuse them", source.display_path, line, col)))
    return found
