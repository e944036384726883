"""Validation: turn parsed skills into :class:`Skill` objects and diagnostics.

Schema rules come from :mod:`skillsite.schema_check`; this module adds the checks a
schema cannot express (name versus folder, duplicate names, body size, links) and
normalises the extension keys into typed fields.  A missing description or unusable
frontmatter leaves a skill out; anything else keeps it.
"""
from __future__ import annotations

import bisect
import datetime as _dt
import html
import os
import posixpath
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Iterable, Sequence
from urllib.parse import unquote

from skillsite.diagnostics import Diagnostic, Severity, make
from skillsite.models import ParsedSkill, Requirements, Skill, SourceFile
from skillsite.schema_check import schema_diagnostics

MAX_BODY_LINES = 500
MAX_BODY_TOKENS = 5000
_PLATFORM_ALIASES = {"macos": "darwin", "win32": "windows"}
_EXTRA_KEYS = ("triggers", "knowledge", "argument-hint", "user-invocable")


@dataclass(frozen=True)
class Validation:
    """The outcome of validating a catalog."""

    skills: tuple[Skill, ...]               # kept skills (with their own diagnostics)
    left_out: tuple[ParsedSkill, ...]       # skills left out of every output
    diagnostics: tuple[Diagnostic, ...]     # every diagnostic, after --ignore


def estimate_tokens(text: str) -> int:
    """A rough token count (about four characters per token), as agents budget them."""
    return (len(text) + 3) // 4


def jsonable(value: Any) -> Any:
    """Frontmatter values as JSON can hold them (dates become ISO text)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()
    if isinstance(value, float) and value != value:  # NaN is not JSON
        return None
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return str(value)
    return value


# ---------------------------------------------------------------- allowed-tools

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


def _has_top_level_comma(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth <= 0:
            return True
    return False


def normalise_allowed_tools(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(split_tools(value))
    if isinstance(value, list):
        return tuple(t for item in value if isinstance(item, str) for t in [item.strip()] if t)
    return ()


# ---------------------------------------------------------------- extension keys

def _names(value: Any) -> list[str]:
    if isinstance(value, str):
        return [v for v in re.split(r"[,\s]+", value) if v]
    if isinstance(value, list):
        return [v.strip() for v in value if isinstance(v, str) and v.strip()]
    return []


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def _tags(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = value.split(",")
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


def _requirements(fm: dict[str, Any]) -> Requirements:
    req = fm.get("requires") if isinstance(fm.get("requires"), dict) else {}
    bins = _names(req.get("bins")) + _names(fm.get("requires_bins")) + _names(fm.get("requires-bins"))
    env = _names(req.get("env")) + _names(fm.get("requires_env")) + _names(fm.get("requires-env"))
    platforms = [_PLATFORM_ALIASES.get(p.lower(), p.lower())
                 for p in _names(req.get("platforms")) + _names(fm.get("platforms"))]
    return Requirements(_unique(bins), _unique(env), _unique(platforms))


def _is_true(fm: dict[str, Any], *keys: str) -> bool:
    return any(fm.get(k) is True for k in keys)


# ---------------------------------------------------------------- body checks

_LINK = re.compile(r"\[(?:[^\[\]\\]|\\.|\[[^\[\]]*\])*\]\(\s*(<[^>\n]*>|[^\s()]+(?:\([^\s()]*\)[^\s()]*)*)")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_FILE_REF = re.compile(r"^(?:\./)?(?:scripts|references|assets)/[\w.@/-]+$")
_TICKS = re.compile(r"``*")  # a literal first character lets re search fast (`+ does not)
_FENCE_RUNS = (re.compile("```+"), re.compile("~~~+"))
_REF_HINT = re.compile(r"`\s*(?:\./)?(?:scripts|references|assets)/")


def _fenced_ranges(body: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the fenced code blocks of a body, in order.

    Fence lines are found from the runs of three or more backticks or tildes (a regex anchored
    at every line start costs more than the rest of the scan).
    """
    fences: list[tuple[int, int, str]] = []       # (line start, line end, marker run)
    for runs in _FENCE_RUNS:
        for run in runs.finditer(body):
            at = run.start()
            line_start = body.rfind("\n", 0, at) + 1
            if at - line_start > 3 or (at > line_start and body[line_start:at].strip(" ")):
                continue                         # not at the start of its line: not a fence
            line_end = body.find("\n", at)
            fences.append((line_start, len(body) if line_end < 0 else line_end, run.group()))
    fences.sort()
    ranges: list[tuple[int, int]] = []
    opening: tuple[int, int, str] | None = None
    for fence in fences:
        line_start, line_end, marker = fence
        if opening is None:
            opening = fence
        elif marker[0] == opening[2][0] and len(marker) >= len(opening[2]) \
                and not body[line_start:line_end].strip()[len(marker):].strip():
            ranges.append((opening[0], line_end))
            opening = None
    if opening is not None:  # an unclosed fence runs to the end of the body
        ranges.append((opening[0], len(body)))
    return ranges


def _inside(ranges: list[tuple[int, int]], starts: list[int], offset: int) -> bool:
    index = bisect.bisect_right(starts, offset) - 1
    return index >= 0 and ranges[index][1] > offset


def _line_code_spans(body: str, line_start: int) -> list[tuple[int, int]]:
    """(start, end) of the inline code spans of the line starting at ``line_start``: a run of
    n backticks is closed by the next run of exactly n backticks on the same line."""
    line_end = body.find("\n", line_start)
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(body, line_start,
                                                          len(body) if line_end < 0 else line_end)]
    closer: dict[int, int] = {}        # index of a run -> index of the next run of its length
    last_of_length: dict[int, int] = {}
    for index in range(len(runs) - 1, -1, -1):
        length = runs[index][1] - runs[index][0]
        if length in last_of_length:
            closer[index] = last_of_length[length]
        last_of_length[length] = index
    spans, index = [], 0
    while index < len(runs):
        if index in closer:
            spans.append((runs[index][0], runs[closer[index]][1]))
            index = closer[index] + 1
        else:
            index += 1
    return spans


def iter_body_links(body: str) -> Iterable[tuple[int, int, str, bool]]:
    """(line offset, column, target, is_link) of relative links and file references, outside code.

    Code spans never cross a line, so they are worked out only for the lines that hold a
    candidate (a link, or a backtick before ``scripts/``, ``references/``, ``assets/``).
    """
    has_refs = "`" in body and ("scripts/" in body or "references/" in body or "assets/" in body)
    has_links = "](" in body
    if not has_refs and not has_links:
        return
    fences: list[tuple[list[tuple[int, int]], list[int]]] = []  # worked out at the first candidate

    def in_fence(offset: int) -> bool:
        if not fences:
            ranges = _fenced_ranges(body) if ("```" in body or "~~~" in body) else []
            fences.append((ranges, [start for start, _ in ranges]))
        return _inside(*fences[0], offset)

    line_spans: dict[int, tuple[list[tuple[int, int]], list[int]]] = {}  # line start -> (spans, their starts)

    def spans_of_line(offset: int) -> tuple[int, list[tuple[int, int]], list[int]]:
        line_start = body.rfind("\n", 0, offset) + 1
        spans = line_spans.get(line_start)
        if spans is None:
            found = _line_code_spans(body, line_start)
            spans = line_spans[line_start] = (found, [start for start, _ in found])
        return line_start, *spans

    counted = [0, 0]  # [offset, newlines before it]: each scan below moves forward, so lines are
                      # counted from the previous place, not from the top of the body every time

    def place(offset: int) -> tuple[int, int]:
        if offset < counted[0]:
            counted[:] = [0, 0]
        counted[1] += body.count("\n", counted[0], offset)
        counted[0] = offset
        return counted[1], offset - body.rfind("\n", 0, offset)

    if has_refs:
        lines_seen: set[int] = set()
        for hint in _REF_HINT.finditer(body):
            if in_fence(hint.start()):
                continue
            line_start, spans, _ = spans_of_line(hint.start())
            if line_start in lines_seen:
                continue
            lines_seen.add(line_start)
            for start, end in spans:
                ticks = start
                while body[ticks] == "`":
                    ticks += 1
                ref = body[ticks:end - (ticks - start)].strip()
                if _FILE_REF.match(ref):
                    yield (*place(start), ref, False)
    if has_links:
        has_ticks = "`" in body
        for link in _LINK.finditer(body):
            target = link.group(1)
            if target.startswith("<"):
                target = target[1:-1]
            if _SCHEME.match(target) or target.startswith(("#", "//")):
                continue  # not relative (decoding entities, which start with '&', cannot change that)
            if in_fence(link.start()):
                continue  # code, not a link
            if has_ticks:
                _, spans, starts = spans_of_line(link.start())
                if spans and _inside(spans, starts, link.start()):
                    continue
            yield (*place(link.start()), target, True)


def link_diagnostics(parsed: ParsedSkill, skill_dirs: frozenset[tuple[str, str]]) -> list[Diagnostic]:
    """Relative links and file references that point at missing files or leave the skill folder."""
    src = parsed.source
    path = src.display_path
    files: set[str] | None = None   # the skill's files and folders, worked out at the first local target
    dirs: set[str] = set()
    skill_rel = posixpath.dirname(src.rel_path)
    root = str(src.root)
    diags = []
    for offset, col, target, is_link in iter_body_links(parsed.body):
        if is_link and "&" in target:
            target = html.unescape(target)  # a link destination's entities are decoded (CommonMark)
        if _SCHEME.match(target) or target.startswith(("#", "//", "mailto:")):
            continue
        target = unquote(target.split("#", 1)[0].split("?", 1)[0])
        if not target:
            continue
        line = parsed.body_line + offset
        if target.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", target):
            diags.append(make("SK305", f"link to absolute path '{target}'; file references must be relative "
                                       "to the skill folder", path, line, col))
            continue
        inside = posixpath.normpath(target)
        if inside == "." or inside.endswith("/.") :
            continue
        if inside == ".." or inside.startswith("../"):
            in_root = posixpath.normpath(posixpath.join(skill_rel, target)) if skill_rel else inside
            other = in_root[:-len("/SKILL.md")] if in_root.endswith("/SKILL.md") else in_root
            if not in_root.startswith("..") and (root, other) in skill_dirs:
                continue  # a link to another skill: the catalog links its page
            diags.append(make("SK304", f"link '{target}' leaves the skill folder; it is not published with "
                                       "the skill", path, line, col))
            continue
        if files is None:
            files = {f.path for f in src.files}
            dirs = {posixpath.dirname(p) for p in files}
            while "" not in dirs and dirs:
                dirs |= {posixpath.dirname(d) for d in dirs}
        nested = posixpath.join(skill_rel, inside) if skill_rel else inside
        nested_dir = nested[:-len("/SKILL.md")] if nested.endswith("/SKILL.md") else nested
        if inside in files or inside in dirs or inside == "SKILL.md" or (root, nested_dir) in skill_dirs:
            continue
        what = "link" if is_link else "file reference"
        if os.path.lexists(os.path.join(src.dir, inside)):
            reason = "a file that is not published with the skill (a symlink leaving the skill folder)"
        else:
            reason = "a file that does not exist in the skill folder"
        diags.append(make("SK303", f"{what} '{target}' points to {reason}", path, line, col))
    return diags


def body_diagnostics(parsed: ParsedSkill) -> list[Diagnostic]:
    """Size advice of the specification: under 500 lines and about 5,000 tokens."""
    path, diags = parsed.source.display_path, []
    lines = parsed.body.count("\n") + (0 if parsed.body.endswith("\n") or not parsed.body else 1)
    if lines > MAX_BODY_LINES:
        diags.append(make("SK301", f"body is {lines} lines; keep it under {MAX_BODY_LINES} and move detail "
                                   "into references/", path, parsed.body_line, 1))
    tokens = estimate_tokens(parsed.body)
    if tokens > MAX_BODY_TOKENS:
        diags.append(make("SK302", f"body is about {tokens:,} tokens; keep it under about {MAX_BODY_TOKENS:,}",
                          path, parsed.body_line, 1))
    return diags


# ---------------------------------------------------------------- one skill

def _name_diagnostics(fm: dict[str, Any], src: SourceFile, profile: str,
                      key_lines: dict[str, tuple[int, int]]) -> list[Diagnostic]:
    name = fm.get("name")
    if not isinstance(name, str) or not name.strip():
        return []
    folder = src.folder_name
    if unicodedata.normalize("NFKC", name.strip()) != unicodedata.normalize("NFKC", folder):
        sev = Severity.ERROR if profile == "spec" else Severity.WARNING
        return [make("SK204", f"name '{name}' differs from its folder name '{folder}'", src.display_path,
                     *key_lines.get("name", (1, 1)), sev)]
    return []


def _allowed_tools_diagnostics(fm: dict[str, Any], src: SourceFile,
                               key_lines: dict[str, tuple[int, int]]) -> list[Diagnostic]:
    value = fm.get("allowed-tools")
    where = key_lines.get("allowed-tools", (1, 1))
    normal = " ".join(normalise_allowed_tools(value))
    if isinstance(value, list):
        return [make("SK211", f"allowed-tools is a list; the specification wants one space-separated "
                              f"string: '{normal}'", src.display_path, *where)]
    if isinstance(value, str) and _has_top_level_comma(value):
        return [make("SK211", f"allowed-tools is comma-separated; the specification wants spaces: "
                              f"'{normal}'", src.display_path, *where)]
    return []


_CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _control_char_diagnostics(fm: dict[str, Any], src: SourceFile,
                              key_lines: dict[str, tuple[int, int]]) -> list[Diagnostic]:
    """Terminal escapes and other control characters in the texts every output shows."""
    diags = []
    for key in ("name", "description", "license", "compatibility", "version"):
        value = fm.get(key)
        if isinstance(value, str) and (match := _CONTROL_CHARS.search(value)):
            diags.append(make("SK213", f"'{key}' contains control character U+{ord(match.group()):04X}; "
                                       "outputs replace or escape it", src.display_path,
                              *key_lines.get(key, (1, 1))))
    return diags


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _description_ok(fm: dict[str, Any]) -> bool:
    return isinstance(fm.get("description"), str) and bool(fm["description"].strip())


def build_skill(parsed: ParsedSkill, diags: Sequence[Diagnostic]) -> Skill:
    """Normalise a parsed skill's frontmatter into a :class:`Skill`."""
    fm = parsed.frontmatter or {}
    src = parsed.source
    meta = fm.get("metadata") if isinstance(fm.get("metadata"), dict) else {}
    version = _text(fm.get("version")) or _text(meta.get("version"))
    priority = fm.get("priority")
    return Skill(
        id=src.id,
        name=_text(fm.get("name")) or src.folder_name,
        description=fm["description"].strip(),
        source=src,
        body=parsed.body,
        body_line=parsed.body_line,
        raw=parsed.raw,
        frontmatter=jsonable(fm),
        license=_text(fm.get("license")),
        compatibility=_text(fm.get("compatibility")),
        version=version,
        tags=_tags(fm.get("tags")),
        allowed_tools=normalise_allowed_tools(fm.get("allowed-tools")),
        metadata=jsonable(meta),
        tools=_tools(fm.get("tools")),
        parameters=_parameters(fm.get("parameters")),
        examples=tuple(jsonable(e) for e in fm.get("examples", []) if isinstance(e, (str, dict)))
        if isinstance(fm.get("examples"), list) else (),
        priority=priority if isinstance(priority, int) and not isinstance(priority, bool) else 0,
        hidden=_is_true(fm, "hidden", "hideFromDiscovery", "disable-model-invocation"),
        user_invocable_only=_is_true(fm, "user_invocable_only", "user-invocable-only"),
        always=_is_true(fm, "always"),
        requirements=_requirements(fm),
        extra={k: jsonable(fm[k]) for k in _EXTRA_KEYS if k in fm},
        diagnostics=tuple(diags),
    )


def skill_diagnostics(parsed: ParsedSkill, profile: str,
                      skill_dirs: frozenset[tuple[str, str]]) -> list[Diagnostic]:
    """Every per-skill diagnostic of a parsed skill whose frontmatter could be read."""
    fm = parsed.frontmatter or {}
    src = parsed.source
    diags = list(parsed.diagnostics)
    diags += schema_diagnostics(fm, profile, src.display_path, parsed.key_lines)
    diags += _name_diagnostics(fm, src, profile, parsed.key_lines)
    diags += _allowed_tools_diagnostics(fm, src, parsed.key_lines)
    diags += _control_char_diagnostics(fm, src, parsed.key_lines)
    diags += body_diagnostics(parsed)
    diags += link_diagnostics(parsed, skill_dirs)
    return diags


def catalog_skill_dirs(sources: Iterable[SourceFile]) -> frozenset[tuple[str, str]]:
    """(root, folder relative to the root) of every skill: what links to other skills resolve against."""
    return frozenset((str(s.root), posixpath.dirname(s.rel_path)) for s in sources)


def check_skill(parsed: ParsedSkill, profile: str, skill_dirs: frozenset[tuple[str, str]]) -> list[Diagnostic]:
    """Every diagnostic of one skill on its own (catalog-wide checks come later)."""
    if parsed.fatal:
        return list(parsed.diagnostics)
    return skill_diagnostics(parsed, profile, skill_dirs)


def is_kept(parsed: ParsedSkill) -> bool:
    """False when the skill is left out of every output (unreadable, or no usable description)."""
    return not parsed.fatal and _description_ok(parsed.frontmatter or {})


def skill_name(parsed: ParsedSkill) -> str:
    """The name a skill is known by: its frontmatter name, else its folder's."""
    return _text((parsed.frontmatter or {}).get("name")) or parsed.source.folder_name


def duplicate_name_diagnostics(named: Sequence[tuple[SourceFile, str, tuple[int, int]]]
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


def validate_catalog(parsed: Sequence[ParsedSkill], profile: str = "default", ignore: Iterable[str] = (),
                     checked: Sequence[list[Diagnostic]] | None = None) -> Validation:
    """Validate every parsed skill and the catalog as a whole.

    ``checked`` holds each skill's own diagnostics when they were computed already
    (in parallel, or taken from the cache); otherwise they are computed here.
    """
    ignored = frozenset(ignore)
    if checked is None:
        skill_dirs = catalog_skill_dirs(p.source for p in parsed)
        checked = [check_skill(item, profile, skill_dirs) for item in parsed]
    kept: list[tuple[ParsedSkill, list[Diagnostic]]] = []
    left_out: list[ParsedSkill] = []
    all_diags: list[Diagnostic] = []
    for item, diags in zip(parsed, checked):
        if not is_kept(item):
            left_out.append(item)
            all_diags += diags
            continue
        kept.append((item, list(diags)))
    named = [(item.source, skill_name(item), item.key_lines.get("name", (1, 1))) for item, _ in kept]
    for index, diag in duplicate_name_diagnostics(named):
        kept[index][1].append(diag)
    skills = []
    for item, diags in kept:
        mine = [d for d in diags if d.code not in ignored]
        skills.append(build_skill(item, mine))
        all_diags += diags
    return Validation(tuple(skills), tuple(left_out),
                      tuple(d for d in all_diags if d.code not in ignored))
