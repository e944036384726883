"""The static provider layout that skill providers such as agentskills-http read:
``skills/index.json`` lists every skill's id, and ``skills/<id>/index.json`` its resources by
kind (the files directly in ``references/``, ``scripts/`` and ``assets/``) and every file
(``SKILL.md`` included), so a provider can discover skills and list files without guessing."""
from __future__ import annotations

from typing import Any, Sequence

from skillsite.agent.entry import ManifestEntry

INDEX_NAME = "index.json"
RESOURCE_KINDS = ("references", "scripts", "assets")


def skills_index(entries: Sequence[ManifestEntry]) -> dict[str, Any]:
    """``skills/index.json``: ``{"skills": [id, ...]}``, sorted."""
    return {"skills": sorted(e.id for e in entries)}


def skill_index(entry: ManifestEntry) -> dict[str, Any]:
    """``skills/<id>/index.json``: resource names by kind, and every file of the skill."""
    paths = [f.path for f in entry.files]
    listing: dict[str, Any] = {kind: sorted(p[len(kind) + 1:] for p in paths
                                            if p.startswith(kind + "/") and "/" not in p[len(kind) + 1:])
                               for kind in RESOURCE_KINDS}
    listing["files"] = sorted(["SKILL.md", *paths])
    return listing
