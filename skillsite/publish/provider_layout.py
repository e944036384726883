"""The static provider layout that skill providers such as agentskills-http read:
``skills/index.json`` lists every skill's id, and ``skills/<id>/index.json`` its resources by
kind (the files directly in ``references/``, ``scripts/`` and ``assets/``) and every file
(``SKILL.md`` included), so a provider can discover skills and list files without guessing."""
from __future__ import annotations

from typing import Any, Sequence

from skillsite.agent.entry import ManifestEntry
from skillsite.publish.composed_json import composed_json, encode_string

INDEX_NAME = "index.json"
RESOURCE_KINDS = ("references", "scripts", "assets")


def skills_index(entries: Sequence[ManifestEntry]) -> dict[str, Any]:
    """``skills/index.json``: ``{"skills": [id, ...]}``, sorted."""
    return ids_document(sorted(e.id for e in entries))


def skills_index_json(entries: Sequence[ManifestEntry]) -> bytes:
    """:func:`skills_index`'s indented JSON, its ids encoded one at a time (the json module's C
    encoder) instead of through the indenting encoder."""
    return composed_json(ids_document, [encode_string(skill_id) for skill_id in sorted(e.id for e in entries)])


def ids_document(ids: list[Any]) -> dict[str, Any]:
    """``skills/index.json`` of its list of ids."""
    return {"skills": ids}


def skill_index(entry: ManifestEntry) -> dict[str, Any]:
    """``skills/<id>/index.json``: resource names by kind, and every file of the skill."""
    paths = [f.path for f in entry.files]
    listing: dict[str, Any] = {kind: sorted(p[len(kind) + 1:] for p in paths
                                            if p.startswith(kind + "/") and "/" not in p[len(kind) + 1:])
                               for kind in RESOURCE_KINDS}
    listing["files"] = sorted(["SKILL.md", *paths])
    return listing
