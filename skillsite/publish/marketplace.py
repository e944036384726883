"""``.claude-plugin/marketplace.json``: the catalog as a skills-only plugin marketplace, which
Claude Code (``/plugin marketplace add``), Copilot CLI and the ``skills`` installer read.

One plugin holds every skill: ``"source": "./"`` (the site root), ``"strict": false`` (the
entry defines the plugin; there is no plugin.json) and ``"skills": ["./skills/<id>", ...]``.
Name, owner and metadata come from ``marketplace:`` in ``skillsite.yml``.
"""
from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from skillsite.agent.entry import ManifestEntry

MARKETPLACE_PATH = ".claude-plugin/marketplace.json"
NAME_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
MAX_NAME = 64
#: Names Claude Code keeps for official and community marketplaces and plugin directories.
RESERVED_NAMES = frozenset({
    "claude-code-marketplace", "claude-code-plugins", "claude-plugins-official", "anthropic-marketplace",
    "anthropic-plugins", "agent-skills", "anthropic-agent-skills", "life-sciences", "knowledge-work-plugins",
    "claude-for-legal", "claude-for-financial-services", "financial-services-plugins", "first-party-plugins",
    "claude-tag-plugins", "claude-community", "claude-plugins-community", "healthcare",
    "anthropic-plugin-directory", "claude-plugin-directory",
})
OWNER_KEYS = ("name", "email", "url")
CONFIG_KEYS = ("name", "owner", "description", "version")


def name_problem(name: str) -> str | None:
    """Why a marketplace name cannot be used (format, reserved, posing as an official one); None if it can."""
    if not NAME_PATTERN.match(name) or len(name) > MAX_NAME:
        return f"marketplace name '{name}' must be kebab-case (a-z, 0-9, single hyphens), at most {MAX_NAME} characters"
    if name in RESERVED_NAMES:
        return f"marketplace name '{name}' is reserved by Claude Code"
    words = set(name.split("-"))
    if "anthropic" in words or ("claude" in words and words & {"official", "plugins", "marketplace"}):
        return f"marketplace name '{name}' reads as an official Anthropic marketplace; Claude Code refuses it"
    return None


def config_problem(value: Any) -> str | None:
    """What is wrong with the ``marketplace`` value of ``skillsite.yml``, or None."""
    if not isinstance(value, dict):
        return "'marketplace' must be a mapping of name, owner, description and version"
    unknown = sorted(set(value) - set(CONFIG_KEYS))
    if unknown:
        return f"'marketplace' has unknown keys: {', '.join(unknown)} (known: {', '.join(CONFIG_KEYS)})"
    if "name" in value and (not isinstance(value["name"], str) or (problem := name_problem(value["name"]))):
        return problem if isinstance(value.get("name"), str) else "'marketplace.name' must be a string"
    owner = value.get("owner", {})
    if not isinstance(owner, dict) or set(owner) - set(OWNER_KEYS) or not all(isinstance(v, str) for v in owner.values()):
        return "'marketplace.owner' must be a mapping of name, email and url (strings)"
    if "owner" in value and not owner.get("name"):
        return "'marketplace.owner' needs a name"
    if any(not isinstance(value.get(key, ""), str) for key in ("description", "version")):
        return "'marketplace.description' and 'marketplace.version' must be strings"
    return None


def default_name(title: str) -> str:
    """A usable marketplace name made from the site title."""
    slug = "-".join(re.findall(r"[a-z0-9]+", title.lower()))[:MAX_NAME].strip("-") or "skills"
    return slug if name_problem(slug) is None else f"{slug[:MAX_NAME - 8].strip('-')}-catalog"


def marketplace_document(settings: Mapping[str, Any], title: str, description: str,
                         entries: Sequence[ManifestEntry]) -> dict[str, Any]:
    """The marketplace file of the published ``entries`` (``settings``: the configured ``marketplace``)."""
    name = settings.get("name") or default_name(title)
    summary = settings.get("description") or description or title
    metadata = {"description": summary, **({"version": settings["version"]} if settings.get("version") else {})}
    plugin = {"name": name, "description": summary, "source": "./", "strict": False,
              "skills": [f"./skills/{e.id}" for e in sorted(entries, key=lambda e: e.id)]}
    return {"name": name, "owner": dict(settings.get("owner") or {"name": title}), "metadata": metadata,
            "plugins": [plugin]}
