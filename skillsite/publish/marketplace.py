"""``.claude-plugin/marketplace.json``: the catalog as a skills-only plugin marketplace, which
Claude Code (``/plugin marketplace add``), Copilot CLI and the ``skills`` installer read.

One plugin holds every skill (a group of copies once, as its canonical member): ``"source": "./"``
(the site root), ``"strict": false`` (the entry defines the plugin; there is no plugin.json) and
``"skills": ["./skills/<id>", ...]``.
Name, owner and metadata come from ``marketplace:`` in ``skillsite.yml``.
"""
from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from skillsite.agent.entry import ManifestEntry
from skillsite.config_sections import MAX_NAME, name_problem

MARKETPLACE_PATH = ".claude-plugin/marketplace.json"


def default_name(title: str) -> str:
    """A usable marketplace name made from the site title: its words, else with ``-catalog``
    added (a reserved name), else ``skills-catalog`` (a title Claude Code would read as official,
    such as "Anthropic skills")."""
    slug = "-".join(re.findall(r"[a-z0-9]+", title.lower()))[:MAX_NAME].strip("-") or "skills"
    for name in (slug, f"{slug[:MAX_NAME - 8].strip('-')}-catalog"):
        if name_problem(name) is None:
            return name
    return "skills-catalog"


def marketplace_document(settings: Mapping[str, Any], title: str, description: str,
                         entries: Sequence[ManifestEntry]) -> dict[str, Any]:
    """The marketplace file of the published ``entries`` (``settings``: the configured ``marketplace``)."""
    name = settings.get("name") or default_name(title)
    summary = settings.get("description") or description or title
    metadata = {"description": summary, **({"version": settings["version"]} if settings.get("version") else {})}
    plugin = {"name": name, "description": summary, "source": "./", "strict": False,
              "skills": [f"./skills/{e.id}" for e in sorted(entries, key=lambda e: e.id)
                        if e.visibility.copy_of is None]}
    return {"name": name, "owner": dict(settings.get("owner") or {"name": title or name}), "metadata": metadata,
            "plugins": [plugin]}
