"""Audit one skill folder: read each file once, run every rule, turn hits into findings.

The rules (:mod:`skillsite.audit.rules`) are not listed here: every rule with patterns runs on
every text file, every check on what it looks at (a text, a SKILL.md's frontmatter, a file's
first bytes).  Severity: the rule's default (or the match's own, e.g. a known installer is
medium), demoted one level where the rule's :class:`~skillsite.audit.declare.Demotion` says so:
inside a fenced example or a table of a reference document, in a sentence that warns against or
describes the thing, when quoted (prose rules anywhere, command rules in reference documents),
or for prompt-injection text that a script holds as data without printing it.  One finding per
rule and line.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Iterable, Iterator, NamedTuple

from skillsite.agent.skill_md import split_skill_md
from skillsite.audit.archives import (ArchiveBudget, SealedMember, archive_kind, archive_members, members_of,
                                      shown_name)
from skillsite.audit.context import in_example, printed, quoted, warns
from skillsite.audit.declare import FileHead, Rule, SkillMd
from skillsite.audit.files import MAX_TEXT_BYTES, SkillFile, decode, read_capped, read_head, skill_files
from skillsite.audit.hit import Hit
from skillsite.audit.magic import content_kind, looks_binary
from skillsite.audit.model import RANK, Finding, demote
from skillsite.audit.rules import CHECKS, PATTERNS, RULES
from skillsite.audit.text import Document, is_skill_md, make_document
from skillsite.source.frontmatter import parse_frontmatter_text

#: The rules that are patterns, and the checks that are not, by what they look at.
PATTERN_RULES: tuple[Rule, ...] = tuple(rule for rule in RULES.values() if rule.patterns)
TEXT_CHECKS = tuple(check for check in CHECKS if check.scope == "text")
SKILL_CHECKS = tuple(check for check in CHECKS if check.scope == "skill")
FILE_CHECKS = tuple(check for check in CHECKS if check.scope == "file")


@functools.lru_cache(maxsize=None)
def prepare() -> int:
    """Compile every declared pattern, once, before the first document is read: the one-pass
    search for their literals then knows all of them.  Returns how many there are."""
    return len([each.gate for each in PATTERNS])


def _file_finding(path: str, hit: Hit) -> Finding:
    """The finding of a hit about a whole file (its name, content type or size): at line 1, never demoted."""
    rule = RULES[hit.code]
    return Finding(rule.code, rule.category, hit.severity or rule.severity, path, 1, 1, rule.message + hit.detail)


def _span(doc: Document, hit: Hit) -> tuple[int, int]:
    """A hit's (start, end) offsets in the document's text."""
    if not hit.folded:
        return hit.start, hit.end
    return doc.original(hit.start), doc.original(max(hit.start, hit.end - 1)) + 1


def _judged(doc: Document, path: str, hit: Hit, start: int, end: int, position: tuple[int, int],
            judge: bool = True) -> Finding:
    """The finding of a hit at ``start:end`` (``position``: its line and column), demoted in its
    context (unless not ``judge``: then at full severity)."""
    rule = RULES[hit.code]
    severity = hit.severity or rule.severity
    message = rule.message + hit.detail
    context = _context(doc, rule, start, end, hit) if rule.demotable and judge else None
    if context:
        severity, message = demote(severity), f"{message} ({context})"
    return Finding(rule.code, rule.category, severity, path, *position, message)


#: How many matches of one rule on one line are judged in their context; the next one counts at
#: full severity.  Real text never comes near; a hostile line of thousands gets no demotion for it.
MAX_JUDGED = 100
#: Archives inside archives are opened to this depth (the skill's own archive is the first level).
MAX_NESTING = 3


def _document_findings(doc: Document, path: str, hits: Iterable[Hit]) -> Iterator[Finding]:
    """The findings of a document's hits.  A hit that cannot outrank a finding already made on its
    line for its rule (one as severe as the hit can be, further left) is not judged: :func:`_unique`
    would drop it, and judging each of thousands of matches on one hostile line reads that line
    again for each (see also :data:`MAX_JUDGED`)."""
    kept: dict[tuple[int, str], tuple[int, int]] = {}   # (line, code) -> (severity rank, column) of the best
    judged: dict[tuple[int, str], int] = {}
    for hit in hits:
        start, end = _span(doc, hit)
        line, column = doc.position(start)
        best = kept.get((line, hit.code))
        if best is not None and (best[0], -best[1]) > (RANK[hit.severity or RULES[hit.code].severity], -column):
            continue
        count = judged[(line, hit.code)] = judged.get((line, hit.code), 0) + 1
        finding = _judged(doc, path, hit, start, end, (line, column), judge=count <= MAX_JUDGED)
        if best is None or (best[0], -best[1]) < (RANK[finding.severity], -column):
            kept[(line, hit.code)] = (RANK[finding.severity], column)
        yield finding


def _context(doc: Document, rule: Rule, start: int, end: int, hit: Hit) -> str | None:
    """Why a match is demoted under its rule's :class:`~skillsite.audit.declare.Demotion`, or None:
    an example, a warning, a quotation, or a script's data."""
    policy = rule.demotion
    if policy.examples and in_example(doc, start):
        return "in a fenced example"
    if policy.warnings and (warns(doc, start, end) or (
            hit.related is not None and warns(doc, doc.original(hit.related), doc.original(hit.related) + 1))):
        return "in a warning or description"
    if doc.kind in policy.quoted_in and quoted(doc, start, end):
        return "quoted"
    if policy.unprinted and doc.kind == "code" and not printed(doc, start):
        return "in a script's data, not printed"
    return None


class Frontmatter(NamedTuple):
    """A SKILL.md's frontmatter as read: its values, the line of each key, its text as written."""

    values: dict[str, Any]
    lines: dict[str, tuple[int, int]]
    written: str


def _read_frontmatter(doc: Document) -> Frontmatter | None:
    """A SKILL.md's frontmatter, read by the project's reader (bounded aliases and nesting, lenient
    like the build); None when it has none or it cannot be read."""
    parts = split_skill_md(doc.text[1:] if doc.text.startswith("\ufeff") else doc.text)
    if parts is None or not parts.closed:
        return None
    try:
        data, lines, _diags = parse_frontmatter_text(parts.frontmatter, doc.path)
    except Exception:  # FrontmatterError, and anything pyyaml raises on hostile input
        return None
    return Frontmatter(data, lines, parts.frontmatter) if isinstance(data, dict) else None


def _strings(value: Any) -> Iterator[str]:
    """Every string in a frontmatter value (keys and items of nested ones too)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _decoded_findings(path: str, frontmatter: Frontmatter, folder_name: str) -> Iterator[Finding]:
    """Findings in the frontmatter's values that YAML escapes change (``\\x7c``, ``\\u0049``): the
    scan reads SKILL.md (at ``path``) as written, agents read the values decoded (the description
    is in every model's listing).  Each is placed at its key's line."""
    spaced = " ".join(frontmatter.written.split())
    for key, value in frontmatter.values.items():
        for text in _strings(value):
            if " ".join(text.split()) in spaced:
                continue  # as written, but for the line breaks of a folded value: scanned with the file
            decoded = make_document(path + ".value", text)
            for found in _document_findings(decoded, path, _text_hits(decoded, folder_name)):
                yield dataclasses.replace(found, line=frontmatter.lines.get(str(key), (1, 1))[0], column=1,
                                          message=f"{found.message} (in '{key}' as YAML decodes it)")


def _text_hits(doc: Document, folder_name: str, frontmatter: Frontmatter | None = None) -> Iterator[Hit]:
    """The hits of every rule in a text file: the patterns, the checks of a text, and for SKILL.md
    the checks of its frontmatter (``frontmatter``: when read already) and folder name."""
    prepare()
    for rule in PATTERN_RULES:
        if rule.may_match(doc):
            yield from rule.hits(doc)
    for check in TEXT_CHECKS:
        yield from check.function(doc)
    if doc.kind == "skill":
        read = frontmatter or _read_frontmatter(doc)
        skill = SkillMd(doc, read.values if read is not None else None, folder_name)
        for check in SKILL_CHECKS:
            yield from check.function(skill)


def audit_document(path: str, text: str, folder_name: str = "") -> list[Finding]:
    """The findings of one text file (``path`` relative to its skill folder); for tests and tools."""
    doc = make_document(path, text)
    return _unique(_document_findings(doc, path, _text_hits(doc, Path(folder_name or "skill").name)))


def _audit_file(file: SkillFile, folder: Path) -> Iterator[Finding]:
    if not file.listed:  # what it holds is unseen: as serious as the worst it could hide
        yield _file_finding(file.path, Hit("SK644", 0, 0, ": folder cannot be listed", severity="high", folded=False))
        return
    head, whole = read_head(file)
    facts = FileHead(file.path, head, file.size, file.executable)
    for check in FILE_CHECKS:
        for hit in check.function(facts):
            yield _file_finding(file.path, hit)
    kind = archive_kind(file.path, head)
    if kind is not None:
        yield from _audit_archive(file, kind, folder)
    if known_binary(head):
        return
    if file.size > MAX_TEXT_BYTES:
        raw = None
    else:  # read once when the head is all of it
        raw = head if whole else read_capped(file)
    if raw is None:
        if file.size > MAX_TEXT_BYTES:
            yield _file_finding(file.path, Hit("SK644", 0, 0, f": {file.size:,} bytes, over {MAX_TEXT_BYTES:,}",
                                               folded=False))
        else:  # unseen, as a folder that cannot be listed
            yield _file_finding(file.path, Hit("SK644", 0, 0, ": cannot be read", severity="high", folded=False))
        return
    if known_binary(raw):
        return
    if not is_skill_md(file.path):
        yield from _text_findings(file.path, raw)
        return
    doc = make_document(file.path, decode(without_nul(raw)))
    frontmatter = _read_frontmatter(doc)  # read once, for both
    yield from _document_findings(doc, file.path, _text_hits(doc, folder.name, frontmatter))
    if frontmatter is not None:
        yield from _decoded_findings(file.path, frontmatter, folder.name)


#: How many bundled text files' findings a process keeps (:func:`_text_findings`), the last used,
#: and how many findings in all: a hostile file may hold one on every line.
KNOWN_TEXTS = 4096
KNOWN_FINDINGS = 1 << 16


class KnownTexts:
    """The findings of the text files audited last, by (path, sha256), within both bounds."""

    def __init__(self) -> None:
        self._found: OrderedDict[tuple[str, bytes], tuple[Finding, ...]] = OrderedDict()
        self._findings = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._found)

    def get(self, key: tuple[str, bytes]) -> tuple[Finding, ...] | None:
        with self._lock:
            found = self._found.get(key)
            if found is not None:
                self._found.move_to_end(key)
            return found

    def put(self, key: tuple[str, bytes], found: tuple[Finding, ...]) -> None:
        with self._lock:
            self._found[key] = found
            self._findings += len(found)
            while len(self._found) > KNOWN_TEXTS or self._findings > KNOWN_FINDINGS:
                self._findings -= len(self._found.popitem(last=False)[1])


_known_texts = KnownTexts()


def _text_findings(path: str, raw: bytes) -> tuple[Finding, ...]:
    """The findings of a bundled text file (not SKILL.md) at ``path`` holding ``raw``: they depend
    on those alone (a folder's name counts for its SKILL.md only), so a process audits such a
    file once however many skills hold it: the copies of a skill in a directory, and the past
    releases of a skill, whose files are mostly the same."""
    key = (path, hashlib.sha256(raw).digest())
    found = _known_texts.get(key)
    if found is None:
        doc = make_document(path, decode(without_nul(raw)))
        found = tuple(_unique(_document_findings(doc, path, _text_hits(doc, ""))))   # as audit_skill keeps them
        _known_texts.put(key, found)
    return found


def known_binary(data: bytes) -> bool:
    """Not text, and of a format its first bytes name (an image, an archive, compiled code...):
    skipped.  A file with NUL bytes but no such name is read as text without them: one NUL does
    not hide a script (bash runs one whose NUL comes late) or a document."""
    return looks_binary(data) and content_kind(data) not in (None, "script")


def without_nul(raw: bytes) -> bytes:
    """The bytes with NULs dropped (UTF-16 with a byte order mark keeps them: they are its text)."""
    return raw if raw.startswith((b"\xff\xfe", b"\xfe\xff")) else raw.replace(b"\x00", b"")


def _audit_archive(file: SkillFile, kind: str, folder: Path) -> Iterator[Finding]:
    """The findings in the text files of a bundled archive, placed at the archive (the member
    and its line are in the message)."""
    left_out: list[str] = []
    budget = ArchiveBudget()
    try:
        for member, data in archive_members(file, kind, left_out, budget):
            yield from _member_findings(file, member, data, folder, budget)
    except SealedMember as exc:  # what it holds is unseen: as serious as the worst it could hide
        yield _file_finding(file.path, Hit("SK644", 0, 0, f": a member cannot be read ({exc})", severity="high",
                                           folded=False))
    if left_out:  # past the caps: not audited, as a file over 1 MiB
        yield _file_finding(file.path, Hit("SK644", 0, 0, f": {'; '.join(left_out[:3])}", folded=False))


def _member_findings(file: SkillFile, member: str, data: bytes, folder: Path, budget: ArchiveBudget,
                     depth: int = 1) -> Iterator[Finding]:
    """The findings of one archive member's text, placed at the archive; a member that is an
    archive itself (read whole) is opened in turn, to :data:`MAX_NESTING` levels, its members
    drawn from the ``budget`` of the bundled archive."""
    kind = archive_kind(member, data[:512])
    if kind is not None and len(data) >= MAX_TEXT_BYTES:
        return  # read in part, which the archive's finding says: not opened
    if kind is not None and depth < MAX_NESTING:
        left_out: list[str] = []
        for inner, inner_data in members_of(data, len(data), kind, left_out, budget):
            yield from _member_findings(file, f"{member}/{inner}", inner_data, folder, budget, depth + 1)
        if left_out:
            yield _file_finding(file.path, Hit("SK644", 0, 0, f": in {shown_name(member)}: {'; '.join(left_out[:3])}",
                                               folded=False))
        return
    if kind is not None:  # what it holds is unseen: as serious as the worst it could hide
        raise SealedMember(f"{shown_name(member)}: archives nested deeper than {MAX_NESTING} levels are not opened")
    if known_binary(data):
        return
    doc = make_document(member, decode(without_nul(data)))
    shown = shown_name(member)
    for found in _document_findings(doc, member, _text_hits(doc, folder.name)):
        yield dataclasses.replace(found, path=file.path, line=1, column=1,
                                  message=f"{found.message} (in {shown}, line {found.line})")


def _unique(findings: Iterable[Finding]) -> list[Finding]:
    """One finding per (path, line, code): the most severe, then the first; sorted for reports."""
    best: dict[tuple[str, int, str], Finding] = {}
    for finding in findings:
        key = (finding.path, finding.line, finding.code)
        kept = best.get(key)
        if kept is None or RANK[finding.severity] > RANK[kept.severity] or (
                finding.severity == kept.severity and finding.sort_key() < kept.sort_key()):
            best[key] = finding
    return sorted(best.values(), key=Finding.sort_key)


def audit_skill(folder: Path) -> list[Finding]:
    """Every finding in the skill at ``folder`` (SKILL.md and all its bundled files), sorted by
    path, line, column and code.  Never raises on bad input; nothing in the skill is run."""
    folder = Path(folder)
    findings: list[Finding] = []
    for file in skill_files(folder):
        findings.extend(_audit_file(file, folder))
    return _unique(findings)
