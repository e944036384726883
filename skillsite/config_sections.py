"""The sections of ``skillsite.yml`` that have a shape of their own (``audit``,
``marketplace``, ``signing``, ``copies``): what is wrong with a value, in one sentence, or None.
A sentence about one key of a section starts with its quoted path (``'copies.similarity' must
...``), by which the configuration's reader says the line of that key.

Kept apart from :mod:`skillsite.config` so that publishing (the marketplace file) and the
configuration share the marketplace's naming rules without the configuration importing
publishing.
"""
from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

#: ``audit.fail_on``: the least severe finding that fails a build (never: none does).
NEVER = "never"
FAIL_ON = (NEVER, "low", "medium", "high")
AUDIT_KEYS = ("ignore", "fail_on")

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


def marketplace_problem(value: Any) -> str | None:
    """What is wrong with the ``marketplace`` value of ``skillsite.yml``, or None."""
    if not isinstance(value, dict):
        return "'marketplace' must be a mapping of name, owner, description and version"
    unknown = sorted(set(value) - set(CONFIG_KEYS))
    if unknown:
        return f"'marketplace' has unknown keys: {', '.join(unknown)} (known: {', '.join(CONFIG_KEYS)})"
    if "name" in value and (not isinstance(value["name"], str) or (problem := name_problem(value["name"]))):
        return problem if isinstance(value.get("name"), str) else "'marketplace.name' must be a string"
    owner = value.get("owner", {})
    if isinstance(owner, dict) and (unknown := sorted(set(map(str, owner)) - set(OWNER_KEYS))):
        return f"'marketplace.owner' has unknown keys: {', '.join(unknown)} (known: {', '.join(OWNER_KEYS)})"
    if not isinstance(owner, dict) or not all(isinstance(v, str) for v in owner.values()):
        return "'marketplace.owner' must be a mapping of name, email and url (strings)"
    if "owner" in value and not owner.get("name"):
        return "'marketplace.owner' needs a name"
    if any(not isinstance(value.get(key, ""), str) for key in ("description", "version")):
        return "'marketplace.description' and 'marketplace.version' must be strings"
    return None


def audit_problem(value: Any) -> str | None:
    """What is wrong with the ``audit`` value of ``skillsite.yml`` (``ignore``, ``fail_on``), or None."""
    from skillsite.audit.suppress import parse_suppressions  # the audit's rule table: only when asked

    if not isinstance(value, dict):
        return "'audit' must be a mapping: {ignore: [{code, skill, reason}], fail_on: never|low|medium|high}"
    unknown = sorted(set(map(str, value)) - set(AUDIT_KEYS))
    if unknown:
        return f"'audit' has unknown keys: {', '.join(unknown)} (known: {', '.join(AUDIT_KEYS)})"
    if value.get("fail_on", NEVER) not in FAIL_ON:
        return f"'audit.fail_on' must be one of {', '.join(FAIL_ON)}, not {value.get('fail_on')!r}"
    _, problems = parse_suppressions({"ignore": value.get("ignore")} if "ignore" in value else None)
    return "; ".join(problems) or None


_DURATION = re.compile(r"^\s*([0-9]+)\s*([smhdw])\s*$")   # ASCII digits, as the schema's pattern
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
SIGNING_KEYS = ("expires",)


#: The longest duration taken: signed metadata valid longer is no check at all (and a date
#: past year 9999 is none Python can write).
MAX_DURATION = timedelta(days=100 * 365)


def parse_duration(text: str) -> timedelta:
    """``30d``, ``12h``, ``15m``, ``90s`` or ``2w``, up to :data:`MAX_DURATION`; ValueError for anything else."""
    match = _DURATION.match(str(text))
    if match is None or int(match.group(1)) == 0:
        raise ValueError(f"{text!r} is not a duration such as 30d, 12h, 15m or 90s")
    amount, unit = int(match.group(1)), _UNITS[match.group(2)]
    if amount > MAX_DURATION / timedelta(**{unit: 1}):
        raise ValueError(f"{text!r} is longer than {MAX_DURATION.days:,} days")
    return timedelta(**{unit: amount})


def signing_problem(value: Any) -> str | None:
    """What is wrong with the ``signing`` value of ``skillsite.yml`` (``expires``), or None."""
    if not isinstance(value, dict):
        return "'signing' must be a mapping: {expires: 30d}"
    unknown = sorted(set(map(str, value)) - set(SIGNING_KEYS))
    if unknown:
        return (f"'signing' has unknown keys: {', '.join(unknown)} (known: {', '.join(SIGNING_KEYS)}; the key itself "
                "comes from --sign-key or $SKILLSITE_SIGNING_KEY, never from this file)")
    if "expires" in value:
        try:
            parse_duration(value["expires"])
        except ValueError as exc:
            return f"'signing.expires': {exc}"
    return None


COPIES_KEYS = ("group", "similarity", "prefer", "apart", "versions")


def copies_problem(value: Any) -> str | None:
    """What is wrong with the ``copies`` value of ``skillsite.yml``, or None: ``group`` (true),
    ``similarity`` (0.5 to 1), ``prefer`` (folders, best first), ``apart`` (ids never grouped)
    and ``versions`` (true: one name and description group whatever the bodies)."""
    if not isinstance(value, dict):
        return ("'copies' must be a mapping: {group: true, similarity: 0.9, prefer: [skills/, ...], apart: [id, ...], "
                "versions: true}")
    unknown = sorted(set(map(str, value)) - set(COPIES_KEYS))
    if unknown:
        return f"'copies' has unknown keys: {', '.join(unknown)} (known: {', '.join(COPIES_KEYS)})"
    for key in ("group", "versions"):
        if not isinstance(value.get(key, True), bool):
            return f"'copies.{key}' must be true or false"
    similarity = value.get("similarity", 0.9)
    if isinstance(similarity, bool) or not isinstance(similarity, (int, float)) or not 0.5 <= similarity <= 1:
        return "'copies.similarity' must be a number from 0.5 to 1 (the share of lines two copies have in common)"
    for key in ("prefer", "apart"):
        items = value.get(key, [])
        if not isinstance(items, list) or not all(isinstance(item, str) and item for item in items):
            return f"'copies.{key}' must be a list of strings"
    if not all(item.endswith("/") for item in value.get("prefer", [])):
        return "'copies.prefer' lists folders, each ending with '/' (skills/, .claude/skills/, ...)"
    return None
