"""What an open catalog offers a model on this machine: the eligible skills in prompt order, the
``<available_skills>`` block, triggered skills, slash commands and the function-calling
``skill`` tool.  :class:`skillsite.loader.Catalog`'s prompt and tool methods hand over to
:class:`Offers` (standard library only); it reads the catalog's checked entries."""
from __future__ import annotations

import warnings
from itertools import islice
from typing import Any, Iterable, Iterator, Mapping, Sequence

from skillsite.agent.catalog_format import prompt_order
from skillsite.agent.commands import close_commands, command_message, split_command_line
from skillsite.agent.eligibility import ineligible_reasons, with_dependencies
from skillsite.agent.entry import ManifestEntry
from skillsite.agent.errors import (CatalogFormatError, LoaderError, MissingToolsError, MissingToolsWarning,
                                    NotFoundError)
from skillsite.agent.prompt_xml import SMALLEST_BUDGET, available_skills_xml, xml_allowed
from skillsite.agent.results import SearchResult
from skillsite.agent.skill_tool import not_found_text, tool_definition, tool_description, tool_parameters
from skillsite.agent.status import ineligibility
from skillsite.agent.tools import ToolCheck, tool_check
from skillsite.agent.triggers import Runnable, catalog_patterns, fired_triggers

#: the most of a mistyped command an error repeats
MAX_SHOWN_COMMAND = 200



class Offers:
    """The skills of one open catalog a model is offered here (``env``, ``platform``)."""

    def __init__(self, catalog: Any) -> None:  # the open skillsite.loader.Catalog
        self.catalog = catalog
        self._patterns: dict[str, Runnable] | None = None

    def patterns(self) -> dict[str, Runnable]:
        """The trigger patterns that run, by skill id: those within the catalog's budget, the skills
        a model may be offered counted in prompt order whatever this machine offers (so the same
        catalog always runs the same ones), compiled once."""
        if self._patterns is None:
            self._patterns = catalog_patterns((e.id, e.triggers.patterns) for e in prompt_order(self.catalog.entries)
                                              if e.triggers is not None)
        return self._patterns

    def needed(self, entry: ManifestEntry) -> list[ManifestEntry]:
        """``entry`` and every skill it needs, directly or not, that the catalog has (each once)."""
        found = {entry.id: entry}
        todo = [entry]
        while todo:
            for dep in todo.pop().dependencies:
                if dep.id not in found and (data := self.catalog._source.find(dep.id)) is not None:
                    found[dep.id] = self.catalog._source.checked(data)
                    todo.append(found[dep.id])
        return list(found.values())

    def ineligible(self, entry: ManifestEntry, env: Mapping[str, str] | None, platform: str | None) -> list[str]:
        """Why ``entry`` is not eligible here, its own requirements and those it needs ([]: it is)."""
        needed = self.needed(entry)
        which: dict[str, bool] = {}
        own = {e.id: ineligible_reasons(e, env, platform, which) for e in needed}
        return with_dependencies(needed, own)[entry.id]

    def offered(self, env: Mapping[str, str] | None, platform: str | None, active: Iterable[str] = (),
                entries: Sequence[ManifestEntry] | None = None) -> tuple[list[ManifestEntry], int]:
        """The skills offered to a model here, in prompt order, and how many more are ineligible
        (requirements unmet, or kept off by a conflicting skill that is on); of ``entries`` when
        given (a server that leaves some out), else of every entry."""
        entries = self.catalog.entries if entries is None else entries
        blocked = ineligibility(entries, env, platform, active, self.catalog.max_risk)
        shown = prompt_order(entries)
        eligible = [e for e in shown if not blocked[e.id]]
        return eligible, len(shown) - len(eligible)

    def prompt(self, budget: int, env: Mapping[str, str] | None, platform: str | None, triggers: bool,
               entries: Sequence[ManifestEntry] | None = None) -> str:
        """The ``<available_skills>`` block of the skills offered here (of ``entries`` when given),
        within ``budget`` characters."""
        if budget < SMALLEST_BUDGET:
            raise ValueError(f"a budget of {budget} characters cannot hold an <available_skills> block")
        eligible, excluded = self.offered(env, platform, entries=entries)
        locations = [self.catalog._files.url(e.urls.skill_md) for e in eligible]
        return available_skills_xml(eligible, locations, budget, excluded=excluded, triggers=triggers)

    def triggered(self, message: str, env: Mapping[str, str] | None, k: int, platform: str | None
                  ) -> list[SearchResult]:
        """The offered skills whose triggers fire on ``message``: most fired first, then
        priority, then id; ``score`` is the number fired."""
        hits = []
        runnable = self.patterns()
        for entry in self.offered(env, platform)[0]:
            fired = fired_triggers(entry.triggers.to_json(), message, runnable.get(entry.id, ())) \
                if entry.triggers is not None else []
            if fired:
                hits.append((-len(fired), -entry.priority, entry.id, entry))
        return [SearchResult(e.id, e.name, e.description, float(-count))
                for count, _, _, e in sorted(hits, key=lambda h: h[:3])[:max(0, k)]]

    def command(self, line: str) -> str:
        """What a slash command line sends the model: the skill's body and ``Task: ...``."""
        command, task = split_command_line(line)
        # commands are made lower-case: /Release_Manager is /release_manager, as typed
        entry = self._answering(command) or self._answering(command.lower())
        if entry is None:
            raise self._none_answers(command)
        return command_message(self.catalog.load(entry.id).body, task)

    def _none_answers(self, command: str) -> NotFoundError:
        """The error of a command no skill answers to: a skill that names it but has none
        (user-invocable: false), else the catalog's commands closest to it, each answered."""
        typed = xml_allowed(command[:MAX_SHOWN_COMMAND])  # said as the tool's texts say it, never raw
        for refused in self._naming(command):  # a catalog built before user-invocable: false removed its command
            if refused.slash_command is None:
                return NotFoundError(f"no skill answers to /{typed}: skill {xml_allowed(refused.id)} has no slash "
                                     "command (user-invocable: false)")
        known = sorted({c for _, c in self.catalog._source.commands()})
        close = list(islice((c for c in close_commands(command, known, max(1, len(known))) if self._answering(c)), 3))
        hint = f"; did you mean {', '.join('/' + c for c in close)}?" if close else ""
        return NotFoundError(f"no skill answers to /{typed}{hint}")

    def _answering(self, command: str) -> ManifestEntry | None:
        """The skill that answers to ``command``: the last well-formed entry whose slash command it
        is.  Only the entries whose JSON names that command are checked (where every entry
        was checked, a big catalog's first command paid for all of them; a paged catalog reads its
        indexes and those entries' files, not its pages); the others cannot answer."""
        found = None
        for entry in self._naming(command):
            found = entry if entry.slash_command == command else found
        return found

    def _naming(self, command: str) -> Iterator[ManifestEntry]:
        """The well-formed entries whose JSON names ``command``, in manifest order."""
        source = self.catalog._source
        for data in source.with_command(command):
            try:
                yield source.checked(data)
            except CatalogFormatError:
                continue

    def tool(self, style: str, env: Mapping[str, str] | None, budget: int, platform: str | None) -> dict[str, Any]:
        """The ``skill`` tool: an enum of the offered skills' ids, described within ``budget``."""
        offered, excluded = self.offered(env, platform)
        locations = [self.catalog._files.url(e.urls.skill_md) for e in offered]
        description = tool_description(offered, locations, budget, excluded)
        return tool_definition(style, description, tool_parameters([e.id for e in offered]))

    def tool_result(self, arguments: Mapping[str, Any], env: Mapping[str, str] | None, platform: str | None) -> str:
        """The ``skill`` tool's result: a ``<skill_content>``, or a short error text (never an exception)."""
        name = arguments.get("skill_name") if isinstance(arguments, Mapping) else None
        if not isinstance(name, str) or not name:
            return "Error: the skill tool needs a skill_name (a string, one of the names in its description)."
        version = arguments.get("version")
        if version is not None and not isinstance(version, str):
            return "Error: the skill tool's version is a string: a version ('1.2.0') or a range ('^1.2')."
        try:
            offered_ids = [e.id for e in self.offered(env, platform)[0]]
        except LoaderError as exc:
            return f"Error: the skill catalog cannot be used: {exc}"
        try:
            skill_id = self.catalog.manifest_entry(name).id
        except LoaderError:
            return not_found_text(name, offered_ids)
        if skill_id not in offered_ids:
            status = next(s for s in self.catalog.skill_status(env, platform=platform) if s.id == skill_id)
            reasons = status.reasons or ["it is not offered to models"]
            return f"Error: skill {name!r} is not available here: {'; '.join(reasons)}."
        try:
            return self.catalog.load(skill_id, version or None).xml
        except LoaderError as exc:
            return f"Error: skill {name!r} could not be loaded: {exc}"


def checked_tools(entry: ManifestEntry, available_tools: Iterable[str], mode: str) -> ToolCheck:
    """Which tools a skill needs that the runtime lacks; ``strict`` raises, ``warn`` warns."""
    if mode not in ("strict", "warn", "ignore"):
        raise ValueError(f"mode must be strict, warn or ignore, not {mode!r}")
    check = tool_check(entry, available_tools)
    if check.missing and mode != "ignore":
        message = f"skill {check.skill_id} needs tools this runtime lacks: {', '.join(check.missing)}"
        if mode == "strict":
            raise MissingToolsError(message, check)
        warnings.warn(MissingToolsWarning(message), stacklevel=3)
    return check
