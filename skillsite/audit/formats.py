"""Report formats of ``skillsite audit``: text, JSON, GitHub workflow commands and SARIF 2.1.0.

Every format is deterministic: skills in id order, findings by path, line, column and code,
paths relative to the current folder, no times.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from skillsite import __version__
from skillsite.agent.site_urls import url_of
from skillsite.audit.model import Finding, SkillAudit
from skillsite.audit.report import AuditReport
from skillsite.audit.rules import RULES
from skillsite.diagnostics import counted, json_output, printable

FORMATS = ("text", "json", "github", "sarif")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_LEVEL = {"high": "error", "medium": "warning", "low": "note"}
SECURITY_SEVERITY = {"high": "8.0", "medium": "5.0", "low": "2.0"}
GITHUB_COMMAND = {"high": "error", "medium": "warning", "low": "notice"}


def relative(path: Path, cwd: Path | None = None) -> str:
    """``path`` relative to the current folder (POSIX), or absolute when outside it."""
    full = Path(os.path.abspath(path))
    try:
        return full.relative_to(os.path.abspath(cwd or Path.cwd())).as_posix() or "."
    except ValueError:
        return full.as_posix()


def shown_path(skill: SkillAudit | None, finding: Finding, cwd: Path | None = None) -> str:
    """A finding's file as reports show it (a suppression problem's path is the configuration's)."""
    return finding.path if skill is None else relative(skill.folder / finding.path, cwd)


def _rows(report: AuditReport) -> list[tuple[SkillAudit | None, Finding]]:
    rows: list[tuple[SkillAudit | None, Finding]] = [(None, p) for p in report.problems]
    rows.extend(report.findings())
    return rows


def summary_line(report: AuditReport) -> str:
    """One line saying what was audited and what was found."""
    s = report.summary()
    return (f"{counted(s['skills'], 'skill')} audited: {s['high']} high, {s['medium']} medium, {s['low']} low risk; "
            f"{counted(s['findings'], 'finding')} ({s['suppressed']} suppressed, "
            f"{counted(s['problems'] - s['unaudited'], 'suppression problem')})"
            + (f"; {counted(s['unaudited'], 'place')} not audited (unreadable, too deep, not UTF-8 or never searched)"
               if s["unaudited"] else ""))


def format_text(report: AuditReport) -> str:
    """``path:line:col: severity CODE message`` lines, then the summary line."""
    lines = [f"{printable(shown_path(skill, f))}:{f.line}:{f.column}: {f.severity} {f.code} {printable(f.message)}"
             for skill, f in _rows(report)]
    lines.append(summary_line(report))
    return "\n".join(lines) + "\n"


def format_json(report: AuditReport) -> str:
    """``{"version", "skills": [{"id", "path", "risk", "findings"}], "problems", "summary"}``."""
    cwd = Path.cwd()
    skills = []
    for skill in report.skills:
        entries = []
        for f in skill.findings:
            entry = f.to_json()
            entry["file"] = shown_path(skill, f, cwd)
            entries.append(entry)
        skills.append({"id": skill.id, "path": relative(skill.folder, cwd), "risk": skill.risk,
                       "suppressed": skill.suppressed, "findings": entries})
    data = {"version": 1, "skills": skills, "problems": [p.to_json() for p in report.problems],
            "summary": report.summary()}
    return json_output(data) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def format_github(report: AuditReport) -> str:
    """GitHub Actions workflow commands: error for high, warning for medium, notice for low."""
    lines = []
    for skill, f in _rows(report):
        props = (f"file={_escape_property(printable(shown_path(skill, f)))},line={f.line},col={f.column},"
                 f"title={_escape_property(f'{f.code} ({f.severity})')}")
        lines.append(f"::{GITHUB_COMMAND[f.severity]} {props}::{_escape_data(printable(f.message))}")
    lines.append(summary_line(report))
    return "\n".join(lines) + "\n"


def _rule_name(message: str) -> str:
    """A rule's SARIF name: its message in UpperCamelCase ("UnicodeTagCharactersInvisibleText")."""
    return "".join(w[:1].upper() + w[1:] for w in re.findall(r"[A-Za-z0-9]+", message))


def sarif_rules() -> list[dict[str, object]]:
    """Every audit rule as a SARIF reportingDescriptor, in code order."""
    rules = []
    for code in sorted(RULES):
        rule = RULES[code]
        rules.append({
            "id": code,
            "name": _rule_name(rule.message),
            "shortDescription": {"text": rule.message},
            "fullDescription": {"text": rule.why},
            "help": {"text": f"{rule.message}. {rule.why}",
                     "markdown": f"**{code}: {rule.message}** ({rule.severity} by default)\n\n{rule.why}"},
            "defaultConfiguration": {"level": SARIF_LEVEL[rule.severity]},
            "properties": {"category": rule.category, "security-severity": SECURITY_SEVERITY[rule.severity],
                           "tags": ["security", rule.category], "precision": "high"},
        })
    return rules


def _uri(path: str) -> str:
    if path.startswith("/"):
        return Path(path).as_uri()
    return url_of(path)


def format_sarif(report: AuditReport) -> str:
    """A SARIF 2.1.0 log that GitHub code scanning accepts."""
    index = {code: i for i, code in enumerate(sorted(RULES))}
    results = []
    for skill, f in _rows(report):
        result: dict[str, object] = {
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": SARIF_LEVEL[f.severity],
            "message": {"text": f.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": _uri(shown_path(skill, f))},
                "region": {"startLine": max(1, f.line), "startColumn": max(1, f.column)}}}],
            "properties": {"severity": f.severity, "category": f.category},
        }
        if skill is not None:
            result["properties"]["skill"] = skill.id  # type: ignore[index]
        results.append(result)
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            # no informationUri or helpUri: skillsite has no published home page to point at, and
            # each rule carries its help text (help.text, help.markdown) in the log itself
            "tool": {"driver": {"name": "skillsite", "version": __version__, "semanticVersion": __version__,
                                "rules": sarif_rules()}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
    return json_output(log) + "\n"


RENDERERS = {"text": format_text, "json": format_json, "github": format_github, "sarif": format_sarif}


def render(report: AuditReport, fmt: str) -> str:
    """The report in one of :data:`FORMATS`."""
    return RENDERERS[fmt](report)
