"""The XML fragments agents put in their prompts, written the same way by the build and the loader.

- ``<available_skills>``: one ``<skill>`` entry (name, description, location) per skill, within
  a character budget, with a ``<notice>`` when entries were left out;
- ``<skill_content>``: what an agent receives when it activates a skill (its instructions,
  bundled files, sub-skills and knowledge documents).

Every value is escaped; characters XML 1.0 forbids become U+FFFD.
"""
from __future__ import annotations

from typing import Protocol, Sequence

from skillsite.agent.catalog_format import DEFAULT_MAX_RISK
from skillsite.agent.entry import Triggers
from skillsite.agent.xml_chars import xml_allowed
from skillsite.search.terms import trigger_words

MAX_LISTED_RESOURCES = 20


def xml_text(text: str) -> str:
    """Escape text for XML element content; characters XML 1.0 forbids become U+FFFD."""
    text = xml_allowed(text)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def xml_attr(text: str) -> str:
    """Escape text for a double-quoted XML attribute value."""
    return xml_text(text).replace('"', "&quot;").replace("\n", "&#10;").replace("\r", "&#13;").replace(
        "\t", "&#9;")


def one_line(text: str, limit: int = 200) -> str:
    """The first line of a description, collapsed and cut to ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


KNOWLEDGE_HINT = ("These documents load on demand: fetch one only when the task needs it, "
                  "from its URL or the catalog's knowledge() call.")


def skill_entry_xml(name: str, description: str, location: str, triggers: Sequence[str] = ()) -> str:
    """The tier-1 ``<skill>`` entry of an ``<available_skills>`` block (with its trigger
    phrases, when given)."""
    listed = "".join(f"<trigger>{xml_text(t)}</trigger>\n" for t in triggers)
    return (f"<skill>\n<name>{xml_text(name)}</name>\n<description>{xml_text(description)}</description>\n"
            f"<location>{xml_text(location)}</location>\n"
            + (f"<triggers>\n{listed}</triggers>\n" if listed else "") + "</skill>\n")


def knowledge_xml(documents: Sequence[tuple[str, str, str]]) -> str:
    """The ``<knowledge>`` block of ``(path, title, url)`` documents, with the on-demand hint."""
    if not documents:
        return ""
    docs = "".join(f'<doc path="{xml_attr(path)}" title="{xml_attr(title)}">{xml_text(url)}</doc>\n'
                   for path, title, url in documents)
    return f"<knowledge>\n<hint>{xml_text(KNOWLEDGE_HINT)}</hint>\n{docs}</knowledge>\n"


def skill_content_xml(name: str, skill_id: str, body: str, base_url: str, resources: Sequence[str],
                      sub_skills: Sequence[tuple[str, str, str]],
                      knowledge: Sequence[tuple[str, str, str]] = ()) -> str:
    """The ``<skill_content>`` fragment an agent receives when it activates a skill.

    ``resources`` are bundled file paths (at most 20 are listed, then "+N more");
    ``sub_skills`` are ``(id, name, description)`` of the direct children; ``knowledge``
    the ``(path, title, url)`` of the documents it points to.
    """
    out = [f'<skill_content name="{xml_attr(name)}" id="{xml_attr(skill_id)}">\n',
           f"<base_url>{xml_text(base_url)}</base_url>\n",
           "<instructions>\n", xml_text(body.strip("\n")), "\n</instructions>\n"]
    if resources:
        out.append("<skill_resources>\n")
        out += [f"<file>{xml_text(path)}</file>\n" for path in resources[:MAX_LISTED_RESOURCES]]
        if len(resources) > MAX_LISTED_RESOURCES:
            out.append(f"<more>+{len(resources) - MAX_LISTED_RESOURCES} more</more>\n")
        out.append("</skill_resources>\n")
    if sub_skills:
        out.append("<sub_skills>\n")
        out += [f'<skill id="{xml_attr(sid)}" name="{xml_attr(sname)}">{xml_text(one_line(sdesc))}</skill>\n'
                for sid, sname, sdesc in sub_skills]
        out.append("</sub_skills>\n")
    out.append(knowledge_xml(knowledge))
    out.append("</skill_content>\n")
    return "".join(out)


class Listed(Protocol):
    """What an ``<available_skills>`` entry shows of a skill: a
    :class:`~skillsite.agent.entry.ManifestEntry`, or any listing with the same attributes."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def triggers(self) -> Triggers | None: ...


#: The block's first and last lines.
HEAD, TAIL = "<available_skills>\n", "</available_skills>\n"
#: The smallest budget: the empty block.
SMALLEST_BUDGET = len(HEAD + TAIL)


def available_skills_xml(entries: Sequence[Listed], locations: Sequence[str], budget: int,
                         excluded: int = 0, triggers: bool = False, withheld: int = 0) -> str:
    """The ``<available_skills>`` block, never longer than ``budget`` characters.

    ``entries`` are manifest entries already in prompt order, ``locations`` their SKILL.md
    URLs.  Entries are added in order until the next would not fit; a ``<notice>`` says how
    many were left out (``excluded`` counts skills removed earlier, e.g. as ineligible, and
    ``withheld`` those the audit rates above :data:`DEFAULT_MAX_RISK`, each reported separately).
    With ``triggers``, each entry lists its trigger phrases.
    """
    head, tail = HEAD, TAIL
    parts: list[str] = []
    used = len(head) + len(tail)
    worst_notice = len(_notice(len(entries), excluded, budget, withheld))
    for index, (entry, location) in enumerate(zip(entries, locations)):
        listed = trigger_words(entry.triggers.to_json()) if triggers and entry.triggers is not None else ()
        piece = skill_entry_xml(entry.name, entry.description, location, listed)
        is_last = index == len(entries) - 1
        reserve = 0 if is_last and not excluded and not withheld else worst_notice
        if used + len(piece) + reserve > budget:
            break
        parts.append(piece)
        used += len(piece)
    omitted = len(entries) - len(parts)
    notice = _notice(omitted, excluded, budget, withheld) if omitted or excluded or withheld else ""
    block = head + "".join(parts) + notice + tail
    if len(block) > budget:  # a budget too small for the notice: the short one, else the empty block
        short = head + _short_notice(omitted + excluded) + tail if omitted or excluded else ""
        block = short if short and len(short) <= budget else head + tail if len(head + tail) <= budget else ""
    return block


def _short_notice(unlisted: int) -> str:
    """The ``<notice>`` of a budget that holds no skill and no full notice: a model still learns
    that the catalog has skills to search for."""
    return f"<notice>{unlisted} skill{'s' if unlisted != 1 else ''} not listed; search the catalog.</notice>\n"


def _notice(omitted: int, excluded: int, budget: int, withheld: int = 0) -> str:
    """The ``<notice>`` that says how many skills a block leaves out, and why (those ``withheld``
    as above the default risk limit are not to be searched for: a loader refuses them)."""
    reasons = []
    if omitted:
        reasons.append(f"{omitted} more skill{'s' if omitted != 1 else ''} not listed "
                       f"(prompt budget {budget} characters)")
    if excluded:
        reasons.append(f"{excluded} skill{'s' if excluded != 1 else ''} not eligible here")
    searched = f"{'; '.join(reasons)}; search the catalog to find them." if reasons else ""
    refused = (f"{withheld} skill{'s' if withheld != 1 else ''} not listed: the catalog's audit rates "
               f"{'it' if withheld == 1 else 'them'} above {DEFAULT_MAX_RISK} risk, the most a loader offers "
               f"unless told otherwise (max_risk).") if withheld else ""
    return f"<notice>{xml_text(' '.join(t for t in (searched, refused) if t))}</notice>\n"
