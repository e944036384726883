"""The function-calling ``skill`` tool: one tool whose ``skill_name`` parameter is an enum of the
skills offered to the model, and whose description lists them as XML, so the model can only
pick a valid name.  Standard library only.

The tool is written in the shape each runtime expects (``openai``, ``anthropic``, ``mcp``); its
result is the skill's ``<skill_content>``, or a short plain error text, never an exception, so
an agent loop can hand it straight back to the model.
"""
from __future__ import annotations

import dataclasses
import difflib
from typing import Any, Sequence

from skillsite.agent.entry import ManifestEntry
from skillsite.agent.prompt_xml import available_skills_xml

TOOL_NAME = "skill"
STYLES = ("openai", "anthropic", "mcp")
_INTRO = ("Load a skill: its full instructions, its bundled files and its sub-skills. Call it when the task "
          "matches a skill below; skill_name is the <name> listed for it.\n\n")


def tool_parameters(ids: Sequence[str]) -> dict[str, Any]:
    """The tool's parameters as a JSON Schema (Draft 2020-12): one required ``skill_name``, one of
    ``ids``, and an optional ``version`` (an exact version or a range).  With no skill offered,
    ``skill_name`` has no enum: an empty one is a schema no call satisfies (and older drafts and
    some runtimes refuse it); the description's listing says no skill is offered."""
    choice = {"enum": list(ids)} if ids else {}
    return {"type": "object",
            "properties": {"skill_name": {"type": "string", **choice,
                                          "description": "The skill to load, as listed in this tool's description."},
                           "version": {"type": "string",
                                       "description": "Optional: a version ('1.2.0') or range ('^1.2') of the "
                                                      "skill; the highest release that satisfies it is loaded. "
                                                      "Leave it out for the current version."}},
            "required": ["skill_name"], "additionalProperties": False}


def tool_description(entries: Sequence[ManifestEntry], locations: Sequence[str], budget: int, excluded: int) -> str:
    """What the tool does, then the ``<available_skills>`` listing of ``entries`` (in prompt order)
    within ``budget`` characters; each listed name is the skill's id, the value to pass."""
    listed = [dataclasses.replace(entry, name=entry.id) for entry in entries]
    return _INTRO + available_skills_xml(listed, locations, budget, excluded)


def tool_definition(style: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    """The tool in a runtime's own shape."""
    if style == "openai":
        return {"type": "function", "function": {"name": TOOL_NAME, "description": description,
                                                 "parameters": parameters}}
    if style == "anthropic":
        return {"name": TOOL_NAME, "description": description, "input_schema": parameters}
    if style == "mcp":
        return {"name": TOOL_NAME, "description": description, "inputSchema": parameters}
    raise ValueError(f"style must be one of {', '.join(STYLES)}, not {style!r}")


def not_found_text(name: str, offered: Sequence[str]) -> str:
    """The tool's answer for a name it does not offer, with the closest names it does."""
    close = difflib.get_close_matches(name, offered, n=3, cutoff=0.5)
    hint = (f" Did you mean: {', '.join(close)}?" if close
            else " Pass one of the names listed in the tool's description.")
    return f"Error: skill {name!r} not found.{hint}"
