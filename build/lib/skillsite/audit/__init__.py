"""Audit skills for malicious and risky content (``skillsite audit``, issue 21).

Rules with stable SK6xx codes (:data:`RULES`) scan a skill's SKILL.md and every bundled text
file, statically: nothing in a skill is ever run.  The public API:

- :func:`audit_skill` (one folder -> sorted :class:`Finding` list) and :func:`risk_of`;
- :func:`audit_paths` (discover and audit a tree -> :class:`AuditReport` of :class:`SkillAudit`);
- suppressions: :class:`Suppression`, :func:`parse_suppressions`, :func:`apply_suppressions`;
- report formats in :mod:`skillsite.audit.formats` (text, json, github, sarif).

Names are imported on first use, so importing the command line stays cheap.
"""
from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Finding": "skillsite.audit.model", "Rule": "skillsite.audit.declare", "risk_of": "skillsite.audit.model",
    "SEVERITIES": "skillsite.audit.model", "RULES": "skillsite.audit.rules",
    "audit_skill": "skillsite.audit.engine", "audit_document": "skillsite.audit.engine",
    "Suppression": "skillsite.audit.suppress", "parse_suppressions": "skillsite.audit.suppress",
    "apply_suppressions": "skillsite.audit.suppress",
    "AuditReport": "skillsite.audit.report", "SkillAudit": "skillsite.audit.model",
    "audit_paths": "skillsite.audit.report",
    "FORMATS": "skillsite.audit.formats", "render": "skillsite.audit.formats",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'skillsite.audit' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
