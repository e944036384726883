"""The MCP server's tools and prompts, every argument described in the input schema a client
lists (a client that guesses an argument's name otherwise gets only a validation error).

Argument types are ``Annotated[..., Field(description=...)]``, which the SDK's ``MCPServer``
turns into the schema's ``description``.  pydantic comes with the SDK, so
:mod:`skillsite.mcp.server` imports this module only once the SDK is found.  The tools' skill
argument also accepts ``name``, the word a client is most likely to try.
"""
from __future__ import annotations

import base64
import json
import logging
import threading
from typing import Annotated, Any, Callable, Iterator, NamedTuple, TypeVar

from mcp import types
from mcp.server.mcpserver.prompts import Prompt
from mcp.shared.exceptions import MCPError
from pydantic import AliasChoices, Field

from skillsite.agent.catalog_format import within_max_risk
from skillsite.agent.commands import split_command_line
from skillsite.agent.entry import ManifestEntry
from skillsite.loader import Catalog, LoaderError, SearchResult
from skillsite.mcp.on_demand import OnDemandList
from skillsite.mcp.once import Once
from skillsite.mcp.reopening import Reopening
from skillsite.mcp.served_entries import (CheckedEntries, LeftOut, ServedEntries, bounded_text, served_entries,
                                          wire_text)
from skillsite.mcp.skills import INTERNAL_ERROR, error_message
from skillsite.mcp.unfolding import Unfolding

MAX_K = 50
T = TypeVar("T")
log = logging.getLogger(__name__)

Query = Annotated[str, Field(description="What the task is about, in words (e.g. 'roll back a release').")]
#: Strict: the schema says integer, and pydantic's lax mode took "3", true and 5.0 for one.
K = Annotated[int, Field(ge=1, le=MAX_K, strict=True,
                         description=f"How many skills to return, best first (1 to {MAX_K}).")]
Tags = Annotated[list[str] | None, Field(description="Only skills carrying all of these tags.")]
SkillArg = Annotated[str, Field(
    description="The skill's id (e.g. 'release-manager/changelog') or its name, as search_skills returns "
                "them. 'name' is accepted for it too.",
    validation_alias=AliasChoices("skill", "name"))]
PathArg = Annotated[str, Field(
    description="A file of the skill, relative to its folder, as its <skill_resources> lists it "
                "(e.g. 'references/rollback.md').")]
KnowledgePathArg = Annotated[str, Field(
    description="A knowledge document, by the path a loaded skill's <knowledge> block gives it "
                "(e.g. 'runbooks/database-restore.md').")]
VersionArg = Annotated[str | None, Field(
    description="Optional: a version of the skill ('1.2.0') or a version range ('^1.2', '~1.2.3', '>=1 <2'); "
                "the highest release that satisfies it is used. Default: the current version.")]
Task = Annotated[str, Field(description="What to do with the skill, as typed after the slash command "
                                        "(optional).")]
AllCopies = Annotated[bool, Field(strict=True, description="Optional: list every copy of a skill the catalog "
                                                           "publishes several times, each at its own place (default: "
                                                           "one result for them all).")]


class Checked(NamedTuple):
    """The parts the tools read of one catalog: it, and its entries as the server serves them."""

    catalog: Catalog
    checked: ServedEntries


def add_tools(server: Any, catalog: Catalog, tool_error: type[Exception],
              error_text: Callable[[Exception], str] = str,
              checked: CheckedEntries | ServedEntries | None = None, *,
              served: Reopening[Any] | None = None) -> None:
    """search_skills, load_skill, read_skill_resource and read_knowledge; a loader error is the tool's error,
    worded by ``error_text``.  A skill the server leaves out for an id or path over
    MAX_PATH_BYTES (``checked``: the server's :class:`ServedEntries`) is in no search result,
    and loading it or its files is an error: a load checks the one entry it names, a search
    the entries of its hits.  ``served``: the parts (a ``catalog`` and its ``checked`` entries)
    each call reads, replaced when the catalog is opened again (default: ``catalog``'s, for good)."""
    holder = served if served is not None else Reopening(Checked(catalog, served_entries(catalog, checked)))

    def guarded(call: Callable[[Any], T]) -> T:
        """``call`` on the parts served now (retried once on the catalog opened anew, when that cures
        its failure); a loader error as the tool's error."""
        try:
            return holder.run(call)
        except LoaderError as exc:
            raise tool_error(error_message(exc, error_text)) from None

    def served_skill(parts: Any, skill: str) -> str:
        """``skill`` (an id or name), once its entry is known not to be left out."""
        left_out = parts.checked.over_limits(skill)
        if left_out is not None:
            raise tool_error(f"skill {left_out.shown!r} is not served: {left_out.reason}")
        return skill

    @server.tool()
    def search_skills(query: Query, k: K = 5, tags: Tags = None, all_copies: AllCopies = False) -> str:
        """Find skills for a task. Returns a JSON list of {id, name, description, score}, best first
        (and "copies": N for a skill the catalog publishes N times, which is one result)."""
        hits = guarded(lambda parts: served_hits(parts, query, k, tags, all_copies))
        return wire_text(json.dumps([hit_json(h) for h in hits], ensure_ascii=False))

    @server.tool()
    def load_skill(skill: SkillArg, version: VersionArg = None) -> str:
        """Load a skill by id or name: its instructions in a <skill_content> block, with its files and
        sub-skills (optionally of a given version or range)."""
        return guarded(lambda parts: parts.catalog.load(served_skill(parts, skill), version or None).xml)

    @server.tool()
    def read_skill_resource(skill: SkillArg, path: PathArg, version: VersionArg = None) -> str:
        """Read a file bundled with a skill (a path listed in its <skill_resources>, e.g. references/x.md),
        of the version load_skill was given, if any."""
        return resource_text(guarded(lambda parts: parts.catalog.resource(served_skill(parts, skill), path,
                                                                          version or None)), path)

    @server.tool()
    def read_knowledge(path: KnowledgePathArg) -> str:
        """Read a knowledge document a loaded skill lists in its <knowledge> block (shared reference
        text, read when the task needs it), by its path there."""
        return resource_text(guarded(lambda parts: parts.catalog.knowledge(path)), path)


def served_hits(parts: Any, query: str, k: int, tags: list[str] | None, all_copies: bool) -> list[SearchResult]:
    """The ``k`` best hits the server serves of ``parts.catalog``: the hits' entries are checked
    (``parts.checked``), not the catalog's (a paged catalog's pages are not read), and more are
    asked for while some are left out."""
    asked = k
    while True:
        hits = parts.catalog.search(query, k=asked, tags=tags or None, for_model=True, copies=bool(all_copies))
        refused = parts.checked.refused_of(h.id for h in hits)
        kept = [h for h in hits if h.id not in refused]
        if len(kept) >= k or len(hits) < asked:
            return kept[:k]
        asked = k + len(refused)


def hit_json(hit: SearchResult) -> dict[str, Any]:
    """One search_skills result: its name and description :func:`bounded_text` (the index is the
    catalog's, which may say anything), ``copies`` only for a group of copies."""
    return {"id": hit.id, "name": bounded_text(hit.name), "description": bounded_text(hit.description),
            "score": hit.score, **({"copies": hit.copies} if hit.copies > 1 else {})}


def skill_prompt(catalog: Catalog, command: str, description: str) -> Prompt:
    """The prompt of one slash command: the skill's instructions, then the task if one is given.
    Its name is the command :func:`bounded_text` (a listing repeats it); it runs the whole command."""
    return command_prompt(catalog.command_message, command, description)


def command_prompt(message: Callable[[str], str], command: str, description: str) -> Prompt:
    """:func:`skill_prompt` of the catalog ``message`` reads a command line from (the one served
    when the prompt is run, for a server that opens its catalog again)."""

    def run_skill(task: Task = "") -> str:
        """The skill's instructions, with the task the user typed after the command."""
        try:
            return message(f"/{command} {task}")
        except LoaderError as exc:
            raise prompt_error(wire_text(str(exc))) from None

    return Prompt.from_function(run_skill, name=bounded_text(command), description=bounded_text(description))


def runs_as_typed(command: str) -> bool:
    """Whether ``/command task`` gives ``command`` back whole, as the loader splits a command line
    (:func:`~skillsite.agent.commands.split_command_line`): not when it holds white space."""
    return split_command_line(f"/{command}") == (command, "")


def listed_prompt(prompt: Prompt) -> dict[str, Any]:
    """``prompt`` as ``prompts/list`` gives it: as the SDK's ``MCPServer.list_prompts`` makes it, in JSON."""
    arguments = [types.PromptArgument(name=a.name, description=a.description, required=a.required)
                 for a in prompt.arguments or []]
    return types.Prompt(name=prompt.name, title=prompt.title, description=prompt.description, arguments=arguments,
                        icons=prompt.icons).model_dump(by_alias=True, mode="json", exclude_none=True)


class SlashPrompts:
    """The prompts of the user-invocable skills, in the order of their commands, each given to the
    SDK only when ``prompts/get`` first names it (by :class:`ServedPrompts`): the SDK's prompt
    object holds a pydantic model of its arguments, and made for every skill at start-up they
    cost a catalog of 20,000 some 35 s.  Listed as the SDK lists them: a name two commands are
    shown as (both over MAX_TEXT and alike up to it) is the first one's.

    The order needs every entry's command, read unchecked (a sort of strings) from the
    catalog's JSON, or a paged catalog's indexes (:meth:`~skillsite.loader.Catalog.commands`:
    not its pages); an entry is read (a paged catalog's page) and checked (``checked``) only
    when a page lists it or a request names its prompt (its entry file), and one left out, or
    not a prompt (not user-invocable, above ``max_risk``), is skipped then: the first page
    checks the entries it shows, not the catalog's.  Checks are
    kept (:class:`~skillsite.mcp.served_entries.ServedEntries`), so each entry is checked once whichever
    asks first."""

    def __init__(self, catalog: Catalog, checked: ServedEntries) -> None:
        self.catalog = catalog
        self.checked = checked
        self._commands = Once(self._sorted_commands)
        self._named = Once(self._by_name)
        self._listed = Once(lambda: Unfolding(self._listing(), remake=self._listing))

    def _sorted_commands(self) -> list[tuple[str, str]]:
        """Each skill with a command a prompt can run, as (that command as served
        (:func:`wire_text`), its id), in the order of those commands, the catalog's last first
        among equal ones: a hostile catalog may give two skills one command, and the loader's
        command line runs the last (:meth:`~skillsite.loader.Catalog.command_message`), so the
        prompt listed is that one's.  A command the loader would not read back whole from a
        command line (it holds white space: no build makes one) is left out, logged."""
        pairs = list(self.catalog.commands())
        runnable = [(index, skill_id, command) for index, (skill_id, command) in enumerate(pairs)
                    if runs_as_typed(command)]
        if len(runnable) < len(pairs):
            skill_id, command = next(pair for pair in pairs if not runs_as_typed(pair[1]))
            log.warning("prompts: leaving out %d slash command(s) a command line cannot give whole (the first: "
                        "skill %r, command %r)", len(pairs) - len(runnable), bounded_text(wire_text(skill_id)),
                        bounded_text(wire_text(command)))
        found = sorted(((wire_text(command), -index, skill_id) for index, skill_id, command in runnable))
        return [(command, skill_id) for command, _, skill_id in found]

    def _by_name(self) -> dict[str, list[str]]:
        """The ids of the skills by the name their prompt would be listed under, each name's in order."""
        by_name: dict[str, list[str]] = {}
        for command, skill_id in self._commands():
            by_name.setdefault(bounded_text(command), []).append(skill_id)
        return by_name

    def prompt_entry(self, skill_id: str, *, with_page: bool = False) -> ManifestEntry | None:
        """The checked entry of ``skill_id`` when it is served as a prompt (user-invocable, not
        above ``max_risk``: the loader would refuse it), else None (``with_page``: see
        :meth:`~skillsite.loader.Catalog.raw_entry`)."""
        data = self.catalog.raw_entry(skill_id, with_page=with_page)
        entry = None if data is None else self.checked.check(data)
        if entry is None or isinstance(entry, LeftOut) or entry.slash_command is None:
            return None
        return entry if within_max_risk(entry, self.catalog.max_risk) else None

    def named(self, name: str) -> ManifestEntry | None:
        """The entry of the prompt listed as ``name``, None when no prompt is (the first of the
        entries a name stands for that is served as a prompt, as the listing shows it)."""
        return next(filter(None, map(self.prompt_entry, self._named().get(name, ()))), None)

    def listed(self) -> Unfolding[dict[str, Any]]:
        """Every prompt as ``prompts/list`` gives it, each made when first asked for."""
        return self._listed()

    def _listing(self) -> Iterator[dict[str, Any]]:
        """Each prompt as ``prompts/list`` gives it: one made as the SDK makes it, for its
        arguments and the description of one without a description, the others like it."""
        shape = listed_prompt(skill_prompt(self.catalog, "", ""))
        shown: set[str] = set()
        for command, skill_id in self._commands():
            name = bounded_text(command)
            entry = None if name in shown else self.prompt_entry(skill_id, with_page=True)
            if entry is not None:
                shown.add(name)
                yield {**shape, "name": name, "description": bounded_text(entry.description) or shape["description"]}


class ServedPrompts:
    """The prompts of the catalog served now (its parts' :class:`SlashPrompts`, replaced when the
    catalog is opened again), each given to ``server`` when ``prompts/get`` first names it.  The
    SDK's prompts made of a catalog since replaced are taken back from it before the next use
    (their descriptions were that catalog's); a prompt reads the catalog served when it runs."""

    def __init__(self, server: Any, served: Reopening[Any]) -> None:
        self.server, self.served = server, served
        self.made: set[str] = set()
        self._generation = served.generation
        self._lock = threading.Lock()

    def current(self) -> SlashPrompts:
        """The prompts of the catalog served now (the SDK's of a replaced one taken back first)."""
        with self._lock:
            if self._generation != self.served.generation:
                for name in self.made:
                    self.server.remove_prompt(name)
                self.made.clear()
                self._generation = self.served.generation
        return self.served.current.prompts

    def named(self, name: str) -> ManifestEntry | None:
        """:meth:`SlashPrompts.named` of the catalog served now (opened again when that cures its
        failure), the SDK's prompts of a replaced catalog taken back first."""
        self.current()
        return self._entry(name)

    def _entry(self, name: str) -> ManifestEntry | None:
        """:meth:`SlashPrompts.named` of the catalog served now: a lookup alone."""
        return self.served.run(lambda parts: parts.prompts.named(name))

    def make(self, name: str) -> None:
        """Give the SDK the prompt listed as ``name`` (once a catalog), when one is."""
        entry = self.named(name)
        self.current()  # the SDK's prompts of a catalog this call replaced taken back
        if name not in self.made and entry is not None:
            self.server.add_prompt(command_prompt(self.message, entry.slash_command or "", entry.description))
            self.made.add(name)

    def message(self, line: str) -> str:
        """What a command line sends the model, read from the catalog served now."""
        return self.served.run(lambda parts: parts.catalog.command_message(line))

    def on_demand(self) -> OnDemandList:
        """``prompts/list`` and ``prompts/get`` of the prompts of the catalog served now."""
        return OnDemandList("prompts/list", "prompts", "prompts/get", "name", self.names,
                            lambda: self.current().listed(), self.make, self.made.__contains__)

    def names(self, name: str) -> bool:
        """Whether ``name`` is a prompt of the catalog served now: a lookup alone, which may run
        off the event loop (the SDK's prompts are changed by :meth:`make`, on it)."""
        return self._entry(name) is not None


def prompt_error(text: str) -> Exception:
    """What a prompt that cannot be given raises, so that ``text`` reaches the client: the SDK
    sends an ``MCPError`` as it is, and words any other "Error rendering prompt NAME" (the reason
    dropped, a traceback logged)."""
    return MCPError(INTERNAL_ERROR, text)


def resource_text(data: bytes, path: str) -> str:
    """A bundled file as text; binary files come back base64-encoded, with a one-line header."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return f"[binary file {path}, {len(data)} bytes, base64]\n" + base64.b64encode(data).decode("ascii")
