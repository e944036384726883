"""Diagnostics: stable codes, severities, and the three output formats.

Every problem found in input becomes a :class:`Diagnostic`; they are collected,
sorted by path and line, and printed all at once.  Exceptions are reserved for
bugs and environment failures.
"""
from __future__ import annotations

import errno
import json
import os
import re
from bisect import bisect_left
from dataclasses import dataclass
from enum import Enum
from operator import attrgetter
from typing import Hashable, Iterable, Mapping, Sequence

from skillsite.audit.rules import RULES as AUDIT_RULES  # a leaf: imports only the audit's own declarations


class Severity(str, Enum):
    """How bad a diagnostic is.  ``error`` fails a build; ``warning`` fails under ``--strict``."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class CodeInfo:
    """The registry entry of one diagnostic code."""

    code: str
    severity: Severity
    title: str


def _registry(*entries: tuple[str, str, str]) -> dict[str, CodeInfo]:
    return {code: CodeInfo(code, Severity(sev), title) for code, sev, title in entries}


#: Every diagnostic code skillsite emits, with its default severity.  Codes are stable:
#: users silence them with ``--ignore CODE``; never renumber.
CODES: dict[str, CodeInfo] = _registry(
    # discovery
    ("SK001", "warning", "lowercase skill.md file name"),
    ("SK002", "warning", "symlink leads outside the source root; not followed"),
    ("SK003", "info", "folder already discovered under a shorter id"),
    ("SK004", "info", "skill overridden by a later source root"),
    ("SK005", "warning", "symlink loop or broken symlink; not followed"),
    ("SK006", "error", "file cannot be read"),
    ("SK007", "warning", "bundled file leaves the skill folder; not published"),
    ("SK008", "warning", "folder nesting too deep; not searched further"),
    ("SK009", "warning", "bundled file name is reserved by the catalog; not published"),
    ("SK010", "info", "bundled file path too long for a tar header; the skill's discovery archive is a .zip"),
    ("SK011", "warning", "file or folder name is not valid UTF-8; skipped"),
    ("SK012", "warning", "special file (pipe, socket or device); skipped"),
    ("SK013", "error", "no SKILL.md found under a source folder"),
    ("SK014", "info", "bundled file name an older installer cannot fetch; skill not in the legacy discovery index"),
    ("SK015", "error", "skill folder named like a file the catalog writes in its place"),
    ("SK016", "warning", "frontmatter installers read strictly skip; skill not in the discovery index"),
    ("SK017", "warning", "bundled file name the prompt fragment (skill.xml) cannot hold; not published"),
    ("SK018", "error", "skill folder name the prompt fragment (skill.xml) cannot hold; skill not published"),
    ("SK019", "error", "skill folder name holding a backslash, a ':' or a Windows device name (CON, nul.txt), "
                       "ending with a dot or a space, or hidden (.ssh), which agents refuse; skill not published"),
    ("SK020", "warning", "bundled file name holding a backslash, a ':' or a Windows device name (CON, nul.txt) or "
                         "ending with a dot or a space, which agents refuse in a path; not published"),
    ("SK021", "warning", "a folder named SKILL.md or skill.md; not read as a skill"),
    ("SK022", "warning", "bundled file named as another of the skill in another case or Unicode form; not published"),
    ("SK023", "warning", "file named SKILL.md in another case (Skill.md, SKILL.MD); folder not read as a skill"),
    ("SK024", "warning", "skill name a Windows device name (aux, con); skill not in the discovery indexes"),
    ("SK025", "warning", "SKILL.md in a folder never searched (a tool's folder, a virtual environment, a published "
              "catalog); not read, not audited"),
    # file and frontmatter parsing
    ("SK100", "error", "empty SKILL.md"),
    ("SK101", "error", "no YAML frontmatter"),
    ("SK102", "error", "frontmatter is not closed"),
    ("SK103", "error", "frontmatter is not valid YAML"),
    ("SK104", "error", "frontmatter is not a mapping"),
    ("SK105", "error", "file is not valid UTF-8"),
    ("SK106", "error", "file too large"),
    ("SK107", "warning", "file is large"),
    ("SK108", "error", "YAML too large or too deep (aliases counted as what they repeat)"),
    ("SK109", "error", "binary file"),
    ("SK110", "warning", "unquoted ': ' in a value; read as a string"),
    ("SK111", "warning", "a text value YAML reads as something else (YAML 1.1 coercion, a list, an alias); "
                        "kept as written"),
    ("SK112", "warning", "duplicate key; the last one wins"),
    ("SK113", "error", "unsupported YAML tag"),
    ("SK114", "warning", "a value's lines go on at the start of a line (not indented); read as one value"),
    ("SK115", "warning", "the frontmatter's closing line holds more than '---'; the rest read as the body"),
    # frontmatter fields
    ("SK201", "error", "description missing or empty"),
    ("SK202", "error", "name missing"),
    ("SK203", "error", "name has an invalid format"),
    ("SK204", "error", "name differs from its folder name"),
    ("SK205", "error", "name too long"),
    ("SK206", "error", "description too long"),
    ("SK207", "error", "unknown frontmatter key"),
    ("SK208", "error", "field has the wrong type or value"),
    ("SK209", "error", "compatibility too long"),
    ("SK210", "error", "metadata value is not a string"),
    ("SK211", "warning", "allowed-tools is not a space-separated string"),
    ("SK212", "warning", "duplicate skill name in the catalog"),
    ("SK213", "warning", "text contains control characters"),
    ("SK214", "error", "trigger is empty or its pattern is unsafe (a warning for a phrase, keyword or verb with "
                       "no searchable word, only stop words: it is dropped)"),
    ("SK215", "warning", "conflicts names no skill of the catalog"),
    ("SK216", "error", "skill conflicts with itself"),
    ("SK217", "warning", "slash command taken by another skill; numbered"),
    ("SK218", "error", "knowledge document missing, outside its folder, too big or its path unusable"),
    ("SK219", "warning", "descriptions so alike a model cannot tell the skills apart"),
    ("SK220", "warning", "Codex agents/openai.yaml has an invalid field"),
    # versions and dependencies
    ("SK221", "info", "no release history (not a git repository or a shallow clone); only the current version"),
    ("SK222", "warning", "skill changed since the commit that set its version; bump the version"),
    ("SK223", "error", "dependency names no skill of the catalog (or one left out of it for its errors), "
                       "or a name several skills share"),
    ("SK224", "error", "no release of the dependency satisfies the range"),
    ("SK225", "error", "dependency cycle"),
    ("SK226", "error", "dependency is not `name` or `name@range`"),
    ("SK227", "warning", "version is not a semantic version"),
    ("SK228", "warning", "tags written as a list inside a string"),
    ("SK229", "info", "a copy of another skill; shown once, as its group's canonical member"),
    ("SK230", "warning", "release tag on a commit outside HEAD's history or of another version; not published"),
    ("SK231", "warning", "trigger patterns past what the catalog's patterns may cost together; never run"),
    ("SK232", "warning", "skill id that differs from another only in case or Unicode spelling"),
    ("SK233", "warning", "priority is not a whole number; ignored (read as 0) and kept in the manifest's extra"),
    ("SK234", "warning", "a known key in a shape skillsite does not read (another tool's, or empty): license, "
                        "compatibility, metadata, allowed-tools, requires (or its bins, env, platforms), platforms, "
                        "tools, parameters or triggers; ignored and kept in the manifest's extra"),
    # body
    ("SK301", "warning", "body longer than 500 lines"),
    ("SK302", "warning", "body longer than about 5,000 tokens"),
    ("SK303", "warning", "link to a missing file"),
    ("SK304", "warning", "link leaves the skill folder"),
    ("SK305", "warning", "link to an absolute file path"),
    # configuration
    ("SK401", "error", "configuration problem"),
    ("SK402", "info", "cache file cannot be used; starting with an empty cache"),
)


def _audit_codes() -> dict[str, CodeInfo]:
    """The audit's SK6xx codes, as warnings, with the titles its rule declarations give them
    (:mod:`skillsite.audit.rules`: each rule's category, low/medium/high severity and reason)."""
    return {code: CodeInfo(code, Severity.WARNING, rule.message) for code, rule in AUDIT_RULES.items()}


CODES.update(_audit_codes())


@dataclass(frozen=True, order=True, slots=True)
class Diagnostic:
    """One problem found in input: where it is, how bad, and what it is."""

    path: str
    line: int
    col: int
    code: str
    severity: Severity
    message: str

    def to_json(self) -> dict:
        """The diagnostic as the JSON object of ``--format json``."""
        return {"code": self.code, "severity": self.severity.value, "message": self.message,
                "path": self.path, "line": self.line, "col": self.col}

    @classmethod
    def from_json(cls, data: dict) -> "Diagnostic":
        """The diagnostic :meth:`to_json` gave."""
        return cls(data["path"], data["line"], data["col"], data["code"], Severity(data["severity"]),
                   data["message"])


def make(code: str, message: str, path: str, line: int = 0, col: int = 0,
         severity: Severity | None = None) -> Diagnostic:
    """Build a diagnostic with the code's default severity unless one is given."""
    info = CODES[code]
    return Diagnostic(printable(path), line, col, code, severity or info.severity, printable(message))


#: What text output never shows raw: control characters (C0, DEL, C1), the line and
#: paragraph separators, and the bidirectional embeddings, overrides and isolates that reorder a line.
_UNSHOWN = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` as every text output shows an untrusted value: what :data:`_UNSHOWN` matches
    escaped as ``\\xNN`` (``\\uNNNN`` past U+00FF), so it cannot drive the terminal, break the line or
    reorder it.  (JSON output keeps JSON's own escaping.)"""
    return _UNSHOWN.sub(_escaped, text)


#: What a document shown as text (a SKILL.md) escapes: as :data:`_UNSHOWN`, but its tabs and line ends.
_UNSHOWN_IN_DOCUMENTS = re.compile(r"(?![\t\n\r])" + _UNSHOWN.pattern)


def printable_document(text: str) -> str:
    """A document of many lines as text output shows it: as :func:`printable` shows a value, its
    tabs and line ends kept."""
    return _UNSHOWN_IN_DOCUMENTS.sub(_escaped, text)


def json_output(data: object, indent: int = 2) -> str:
    """``data`` as every JSON output prints it: indented, text as written (not ``\\u`` escapes for
    every non-ASCII letter), and what no output shows raw escaped (:func:`printable_json`)."""
    return printable_json(json.dumps(data, indent=indent, ensure_ascii=False))


def printable_json(text: str) -> str:
    """JSON text as output shows it: what :data:`_UNSHOWN` matches (JSON escapes C0 controls
    already; C1 controls, line separators and bidirectional controls it leaves raw) written as the
    JSON escape ``\\u202e``, which reads back as the same character.  Its own tabs and line ends
    (indentation; those of its strings are escaped already) are kept."""
    return _UNSHOWN_IN_DOCUMENTS.sub(_json_escaped, text)


def _json_escaped(match: re.Match) -> str:
    return f"\\u{ord(match.group()):04x}"


def skill_at(path: str, folders: Mapping[str, str]) -> str | None:
    """The id of the skill whose folder (``folders``: each skill's folder as diagnostics show
    it, to its id) is the nearest at or above a diagnostic's ``path``; None outside every one."""
    while path not in folders:
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent
    return folders[path]


def _escaped(match: re.Match) -> str:
    return escaped_code(ord(match.group()))


def escaped_code(code: int) -> str:
    """A character as text output writes it escaped: ``\\xNN``, ``\\uNNNN`` past U+00FF,
    ``\\UNNNNNNNN`` past U+FFFF."""
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


#: The order of a list of diagnostics: path, line, column, code, message, then severity, so that no
#: two distinct diagnostics tie (their order is then the same in every process, whatever the hashes).
_ORDER = attrgetter("path", "line", "col", "code", "message", "severity")


def sort_diagnostics(diags: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Sorted by path, line, column, code, message and severity; exact duplicates removed."""
    return sorted(set(diags), key=_ORDER)


def merge_diagnostics(ordered: Sequence[Diagnostic], more: Iterable[Diagnostic]) -> list[Diagnostic]:
    """What :func:`sort_diagnostics` gives of ``ordered`` (a list it gave) and ``more`` together,
    each of ``more`` placed by bisection: a rebuild adds a few diagnostics to tens of thousands,
    which are neither sorted nor hashed again."""
    added = sort_diagnostics(more)
    if len(added) > len(ordered):  # more new than old: one sort of them all costs less
        return sort_diagnostics([*ordered, *added])
    merged: list[Diagnostic] = []
    start = 0
    for diag in added:
        key = _ORDER(diag)
        at = bisect_left(ordered, key, start, len(ordered), key=_ORDER)
        merged += ordered[start:at]
        if at == len(ordered) or _ORDER(ordered[at]) != key:  # else the same diagnostic is there already
            merged.append(diag)
        start = at
    merged += ordered[start:]
    return merged


#: Past this share of its parts changed, a :class:`SortedParts` is made anew rather than patched.
MOST_CHANGED_SHARE = 8


@dataclass(frozen=True)
class SortedParts:
    """What :func:`sort_diagnostics` gives of the diagnostics of several parts (each skill's, the
    discovery's), kept with the parts and how many times each diagnostic occurs among them, so
    that a rebuild after a few skills changed replaces their parts in the sorted list (the others
    are neither sorted nor hashed again).  Shared between builds: never changed, only replaced."""

    ordered: tuple[Diagnostic, ...]
    parts: Mapping[Hashable, tuple[Diagnostic, ...]]
    held: Mapping[Diagnostic, int]   # how many times each diagnostic occurs in the parts

    @classmethod
    def of(cls, parts: Mapping[Hashable, tuple[Diagnostic, ...]]) -> SortedParts:
        """The sorted diagnostics of ``parts``, made anew."""
        held: dict[Diagnostic, int] = {}
        for part in parts.values():
            for diag in part:
                held[diag] = held.get(diag, 0) + 1
        return cls(tuple(sorted(held, key=_ORDER)), dict(parts), held)

    def updated(self, parts: Mapping[Hashable, tuple[Diagnostic, ...]]) -> SortedParts:
        """The sorted diagnostics of ``parts``: these, patched where a part is not the same (or an
        equal) tuple; made anew when many are not.  Itself when none changed."""
        changed = [key for key, part in parts.items() if not _same_part(self.parts.get(key), part)]
        changed += [key for key in self.parts if key not in parts]
        if not changed:
            return self
        if len(changed) * MOST_CHANGED_SHARE > len(parts):
            return SortedParts.of(parts)
        held = dict(self.held)
        touched = _counted_again(held, [self.parts.get(key, ()) for key in changed],
                                 [parts.get(key, ()) for key in changed])
        gone = {diag for diag in touched if diag in self.held and diag not in held}
        added = [diag for diag in touched if diag not in self.held and diag in held]
        return SortedParts(tuple(merge_diagnostics(_without(self.ordered, gone), added)), dict(parts), held)


def _same_part(last: tuple[Diagnostic, ...] | None, part: tuple[Diagnostic, ...]) -> bool:
    """Whether a part is the one of the last build (most are the very same tuple)."""
    return last is part or (last is not None and last == part)


def _without(ordered: Sequence[Diagnostic], gone: Iterable[Diagnostic]) -> Sequence[Diagnostic]:
    """``ordered`` (sorted, no duplicates) without ``gone`` (diagnostics it holds), each found by bisection."""
    at = sorted(bisect_left(ordered, _ORDER(diag), key=_ORDER) for diag in gone)
    if not at:
        return ordered
    pieces = [ordered[start + 1:end] for start, end in zip(at, [*at[1:], len(ordered)])]
    return [*ordered[:at[0]], *(diag for piece in pieces for diag in piece)]


def _counted_again(held: dict[Diagnostic, int], before: Sequence[tuple[Diagnostic, ...]],
                   after: Sequence[tuple[Diagnostic, ...]]) -> set[Diagnostic]:
    """``held`` with the diagnostics of ``before`` counted out and those of ``after`` counted in
    (none left at zero); the diagnostics whose count changed."""
    touched: set[Diagnostic] = set()
    for part in before:
        for diag in part:
            touched.add(diag)
            held[diag] -= 1
            if not held[diag]:
                del held[diag]
    for part in after:
        for diag in part:
            touched.add(diag)
            held[diag] = held.get(diag, 0) + 1
    return touched


def count_by_severity(diags: Iterable[Diagnostic]) -> dict[str, int]:
    """``{"error": n, "warning": n, "info": n}``."""
    counts = {s.value: 0 for s in Severity}
    for d in diags:
        counts[d.severity.value] += 1
    return counts


def _location(d: Diagnostic) -> str:
    if d.line:
        return f"{d.path}:{d.line}:{d.col or 1}"
    return d.path


def format_text(d: Diagnostic) -> str:
    """``path:line:col: error SK201 message``."""
    return f"{_location(d)}: {d.severity.value} {d.code} {d.message}"


def _gh_escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_escape_prop(value: str) -> str:
    return _gh_escape_data(value).replace(":", "%3A").replace(",", "%2C")


def format_github(d: Diagnostic) -> str:
    """A GitHub Actions workflow command (``::error file=...,line=...::message``)."""
    level = {"error": "error", "warning": "warning", "info": "notice"}[d.severity.value]
    props = [f"file={_gh_escape_prop(d.path)}"]
    if d.line:
        props.append(f"line={d.line}")
        props.append(f"col={d.col or 1}")
    props.append(f"title={_gh_escape_prop(d.code)}")
    return f"::{level} {','.join(props)}::{_gh_escape_data(d.code + ' ' + d.message)}"


#: Past this many diagnostics, text output summarises them (per code: count and first few).
MAX_LISTED = 200
FIRST_OF_EACH = 3
_SEVERITY_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


def summary_by_code(diags: list[Diagnostic], report: str) -> list[str]:
    """Text lines standing for a list too long to read: errors first, then each code by how
    often it occurs, with its count, its title and its first few diagnostics; ``report`` names
    where the whole list is."""
    groups: dict[tuple[Severity, str], list[Diagnostic]] = {}
    for d in diags:
        groups.setdefault((d.severity, d.code), []).append(d)
    order = sorted(groups, key=lambda key: (_SEVERITY_ORDER[key[0]], -len(groups[key]), key[1]))
    lines = [f"{len(diags):,} diagnostics, too many to list: per code, the count and the first {FIRST_OF_EACH}; "
             f"all of them are in {report} (or pass --all)"]
    for severity, code in order:
        found = groups[(severity, code)]
        title = CODES[code].title if code in CODES else ""
        lines.append(f"{code} ({severity.value}, {len(found):,}): {title}")
        lines += [f"  {format_text(d)}" for d in found[:FIRST_OF_EACH]]
    return lines


def format_json_report(skills: list[dict], diags: list[Diagnostic], summary: dict) -> str:
    """The single JSON object printed by ``--format json``."""
    report = {"skills": skills, "diagnostics": [d.to_json() for d in diags], "summary": summary}
    return json_output(report)


def counted(number: int, noun: str) -> str:
    """``1 skill``, ``2 skills`` (``info`` is never plural: the severity's name)."""
    return f"{number:,} {noun}" if number == 1 or noun == "info" else f"{number:,} {noun}s"


def describe_os_error(exc: OSError) -> str:
    """One line naming the path and the cause of an error of the machine (a full disk, a
    read-only or forbidden folder, a name too long), as ``path: cause (ECODE)``."""
    cause = exc.strerror or str(exc)
    code = errno.errorcode.get(exc.errno or 0)
    where = f"{printable(str(exc.filename))}: " if exc.filename else ""
    return f"{where}{cause}" + (f" ({code})" if code else "")
