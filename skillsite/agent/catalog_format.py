"""What a published catalog is: the manifest's format name and version, and which skills a
model is offered, in which order.  Shared by the build (which writes ``skills.json``) and the
loader (which reads it)."""
from __future__ import annotations

from typing import Any, Iterable

FORMAT = "skillsite-catalog"
#: Audit risks, least first; a catalog built before the audit has none ("none").
RISKS = ("none", "low", "medium", "high")
FORMAT_VERSION = 1
MANIFEST_NAME = "skills.json"


def audit_risk(entry: dict[str, Any]) -> str:
    """A skill's audit risk; an unknown value counts as ``high`` (a tampered entry is not trusted)."""
    audit = entry.get("audit")
    if audit is None:
        return "none"
    risk = audit.get("risk") if isinstance(audit, dict) else None
    return risk if risk in RISKS else "high"


def above(risk: str, max_risk: str) -> bool:
    """Whether ``risk`` is above ``max_risk``."""
    return RISKS.index(risk) > RISKS.index(max_risk)


def offered_to_model(entry: dict[str, Any]) -> bool:
    """False for a hidden or user-invocable-only skill: it is never offered to a model."""
    return not entry["visibility"]["hidden"] and not entry["visibility"]["user_invocable_only"]


def prompt_order(entries: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Skills offered to a model, in prompt order: ``always`` first, then priority, then id.

    Hidden and user-invocable-only skills are left out.
    """
    shown = [e for e in entries if offered_to_model(e)]
    return sorted(shown, key=lambda e: (not e["visibility"]["always"], -e.get("priority", 0), e["id"]))
