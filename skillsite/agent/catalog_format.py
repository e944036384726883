"""What a published catalog is: the manifest's format name and version, and which skills a
model is offered, in which order.  Shared by the build (which writes ``skills.json``) and the
loader (which reads it)."""
from __future__ import annotations

from typing import Any, Iterable

FORMAT = "skillsite-catalog"
FORMAT_VERSION = 1
MANIFEST_NAME = "skills.json"


def offered_to_model(entry: dict[str, Any]) -> bool:
    """False for a hidden or user-invocable-only skill: it is never offered to a model."""
    return not entry["visibility"]["hidden"] and not entry["visibility"]["user_invocable_only"]


def prompt_order(entries: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Skills offered to a model, in prompt order: ``always`` first, then priority, then id.

    Hidden and user-invocable-only skills are left out.
    """
    shown = [e for e in entries if offered_to_model(e)]
    return sorted(shown, key=lambda e: (not e["visibility"]["always"], -e.get("priority", 0), e["id"]))
