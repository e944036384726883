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
from skillsite.publish.composed_json import Document, composed_json, encode_string

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
    return marketplace_frame(settings, title, description)(marketplace_skills(entries))


def marketplace_json(settings: Mapping[str, Any], title: str, description: str,
                     entries: Sequence[ManifestEntry]) -> bytes:
    """:func:`marketplace_document`'s indented JSON, its list of skills encoded one string at a time
    (the json module's C encoder) instead of through the indenting encoder."""
    return composed_json(marketplace_frame(settings, title, description),
                         [encode_string(path) for path in marketplace_skills(entries)])


def marketplace_skills(entries: Sequence[ManifestEntry]) -> list[str]:
    """The plugin's skills: each group of copies once, as its canonical member, by id."""
    return [f"./skills/{e.id}" for e in sorted(entries, key=lambda e: e.id) if e.visibility.copy_of is None]


def marketplace_frame(settings: Mapping[str, Any], title: str, description: str) -> Document:
    """The marketplace file of its plugin's list of skills."""
    name = settings.get("name") or default_name(title)
    summary = settings.get("description") or description or title
    metadata = {"description": summary, **({"version": settings["version"]} if settings.get("version") else {})}
    owner = dict(settings.get("owner") or {"name": title or name})
    return lambda skills: {"name": name, "owner": owner, "metadata": metadata, "plugins": [
        {"name": name, "description": summary, "source": "./", "strict": False, "skills": skills}]}
