"""The rule declarations (skillsite.audit.declare) and the table that collects them
(skillsite.audit.rules): one place per rule, titles derived by the diagnostics, lazy compilation."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from skillsite.audit.declare import (COMMANDS, NEVER, SPOKEN, Check, FileHead, Rule, SkillMd, check, command,
                                     pattern, prose, rule)
from skillsite.audit.engine import _read_frontmatter
from skillsite.audit.hit import Hit
from skillsite.audit.rules import CHECKS, PATTERNS, RULES, _by_code
from skillsite.audit.text import Document, make_document
from skillsite.diagnostics import CODES, Severity

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "audit-fixtures"


def test_the_diagnostics_take_the_audit_codes_from_the_rule_table():
    audit_codes = {code: info for code, info in CODES.items() if code.startswith("SK6")}
    assert list(audit_codes) == list(RULES)
    assert all(info.title == RULES[code].message and info.severity is Severity.WARNING
               for code, info in audit_codes.items())


def test_every_rule_is_reported_by_its_patterns_or_a_check_beside_it():
    by_checks = {code for c in CHECKS for code in c.codes}
    unscanned = {code for code, r in RULES.items() if not r.patterns and code not in by_checks}
    assert unscanned == {"SK644"} | {code for code, r in RULES.items() if r.category == "configuration"}
    assert not any(RULES[code].patterns for code in by_checks)
    for c in CHECKS:  # each check sits in the module of the rules it reports
        assert all(r is RULES[r.code] for r in c.rules)


def test_two_declarations_of_one_code_are_refused():
    twin = replace(RULES["SK610"], message="another")
    with pytest.raises(ValueError, match="SK610"):
        _by_code([RULES["SK610"], twin])


def test_importing_the_rules_compiles_no_pattern_and_reads_no_table():
    code = ("import sys, skillsite.audit.rules as r, skillsite.audit.letters as l; "
            "print(sum('gate' in p.__dict__ for p in r.PATTERNS), len(r.PATTERNS),"
            " 'skillsite.diagnostics' in sys.modules, l.confusables.cache_info().currsize)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == "0" and int(out[1]) == len(PATTERNS) > 100 and out[2] == "False"
    assert out[3] == "0"  # nor reads Unicode's table of look-alikes


def _fixture_files() -> list[tuple[str, str, bytes]]:
    """(skill folder name, path, bytes) of every file of the labelled fixtures."""
    return [(skill.name, path.relative_to(skill).as_posix(), path.read_bytes())
            for skill in sorted(p for p in FIXTURES.iterdir() if p.is_dir())
            for path in sorted(skill.rglob("*")) if path.is_file()]


def _check_input(c: Check, folder: str, path: str, data: bytes) -> object | None:
    """What a check gets for a file (None: the check does not look at this file)."""
    if c.scope == "file":
        return FileHead(path, data[:8192], len(data), False)
    if b"\x00" in data[:8192]:
        return None
    doc = make_document(path, data.decode("utf-8", "replace"))
    if c.scope == "skill":
        if doc.kind != "skill":
            return None
        read = _read_frontmatter(doc)
        return SkillMd(doc, read.values if read is not None else None, folder)
    return doc


def test_each_check_reports_only_the_rules_it_is_declared_with():
    reported: dict[str, set[str]] = {c.function.__name__: set() for c in CHECKS}
    for folder, path, data in _fixture_files():
        for c in CHECKS:
            given = _check_input(c, folder, path, data)
            if given is not None:
                reported[c.function.__name__].update(h.code for h in c.function(given))
    for c in CHECKS:
        assert reported[c.function.__name__] <= c.codes
    assert set().union(*reported.values()) >= {"SK606", "SK620", "SK641", "SK643", "SK660"}


def test_a_rule_is_one_declaration_its_patterns_conditions_and_gate_words():
    def loud(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
        return replace(hit, detail=f": {match.group()}") if match.group().isupper() else None

    declared = rule("SK699", "remote-code", "medium", "shouts", "why", demotion=COMMANDS,
                    patterns=(pattern(r"\bhello\b", "hello"),))(loud)
    doc = make_document("SKILL.md", "hello HELLO\n")
    assert [(h.code, h.start, h.detail) for h in declared.hits(doc)] == [("SK699", 6, ": HELLO")]
    assert list(declared.hits(make_document("SKILL.md", "goodbye\n"))) == []
    assert declared.why == "why" + COMMANDS.note and declared.demotable


def test_pattern_scopes_paragraphs_whole_text_and_text_as_written():
    spoken = Rule("SK698", "prompt-injection", "high", "t", "r", SPOKEN,
                  patterns=(prose(r"\bsplit\s+phrase\b", "split"),))
    assert [h.start for h in spoken.hits(make_document("SKILL.md", "a split\nphrase\n\nsplit\n\nphrase\n"))] == [2]
    written = Rule("SK697", "invisible-text", "high", "t", "r", NEVER,
                   patterns=(pattern("\u200b+", flags=0, scope="written"),))
    hits = list(written.hits(make_document("SKILL.md", "a\u200bb\n")))
    assert [(h.start, h.folded) for h in hits] == [(1, False)]
    whole = Rule("SK696", "exfiltration", "high", "t", "r", NEVER,
                 patterns=(pattern(r"<!--.*?-->", "<!--", flags=re.DOTALL, scope="folded"),))
    text = "x\n" * 3000 + "<!--\n" + "y\n" * 10 + "-->\n"
    assert [h.end - h.start for h in whole.hits(make_document("references/a.md", text))] == [28]


def test_a_command_pattern_passes_over_a_failing_run_and_a_russian_one_reads_as_folded_text():
    declared = Rule("SK695", "permissions", "high", "t", "r", COMMANDS,
                    patterns=(command(r"\bdd\s+", r"[^\n]*", r"\bof=/dev/sda", "dd"),))
    assert declared.patterns[0].gate.hopeless
    assert len(list(declared.hits(make_document("a.sh", "dd if=x " * 50 + "of=/dev/sda\n")))) == 1
    russian = Rule("SK694", "prompt-injection", "high", "t", "r", SPOKEN,
                   patterns=(prose(r"\bигнорируй\b", "игнор", folds=True),))
    assert russian.patterns[0].gate.words != (("игнор",),)  # read as the folded text reads it
    assert [h.start for h in russian.hits(make_document("SKILL.md", "Теперь игнорируй это.\n"))] == [7]


def test_checks_are_declared_beside_their_rules_by_a_decorator():
    lonely = Rule("SK694", "obfuscation", "low", "t", "r", NEVER)

    @check(lonely, scope="file")
    def empty_files(file: FileHead):
        if file.size == 0:
            yield Hit("SK694", 0, 0, folded=False)

    assert empty_files.codes == {"SK694"} and empty_files.scope == "file"
    assert [h.code for h in empty_files.function(FileHead("a/.b", b"", 0, False))] == ["SK694"]
    assert FileHead("a/.b", b"", 0, False).suffix == "" and FileHead("a/b.TXT", b"", 0, False).suffix == "txt"


def test_the_labels_name_only_declared_rules():
    labels = json.loads((FIXTURES / "labels.json").read_text(encoding="utf-8"))["fixtures"]
    assert {code for fx in labels for code in fx["codes"]} <= set(RULES)
