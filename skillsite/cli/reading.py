"""Reading a published catalog: ``search``, ``show``, ``prompt``, ``status``, ``tool``, ``budget``, ``mcp``."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from skillsite.agent.catalog_format import DEFAULT_MAX_RISK, RISKS
from skillsite.arguments import LONGEST_WAIT, ExistingPath, Seconds
from skillsite.cli.output import fail
from skillsite.diagnostics import json_output, printable, printable_document
from skillsite.exit_codes import EXIT_CATALOG, EXIT_ENVIRONMENT, EXIT_USAGE

#: ``skillsite.agent.prompt_xml.SMALLEST_BUDGET`` (the empty block), not imported when the command line starts
#: (a test pins the two equal).
SMALLEST_BUDGET = 39


def catalog_options_for(default: str | None, *, with_catalog: bool = True):
    """The options of a command that reads published catalogs (``--catalog`` defaulting to ``default``)."""
    def decorate(func):
        func = click.option("--allowed-host", "allowed_hosts", multiple=True, metavar="HOST",
                            help="Only contact these hosts, redirects included (repeatable).")(func)
        func = click.option("--timeout", type=Seconds(min=0.1, max=LONGEST_WAIT), default=10.0, show_default=True,
                            help="Seconds allowed for each request.")(func)
        # readable=False: a cache folder that cannot be opened is one the loader goes on without, as
        # without one that cannot be written; click refused it first (exit 2).
        func = click.option("--cache-dir", type=click.Path(file_okay=False, readable=False, path_type=Path),
                            default=None, help="Cache of remote catalogs [default: the user cache folder].")(func)
        if with_catalog:
            where = "" if default else " [default: the one the lock records]"
            func = click.option("--catalog", "source", default=default, show_default=default is not None,
                                metavar="PATH_OR_URL",
                                help=f"Built site folder, path to its skills.json, or http(s) URL of one.{where}")(func)
        # kept in the context (not a parameter of every command): only open_catalog_or_exit reads them
        func = click.option("--trusted-key", "trusted_keys", multiple=True, metavar="KEY", expose_value=False,
                            callback=lambda ctx, _param, value: ctx.meta.__setitem__("trusted_keys", value),
                            help="Refuse the catalog unless it is signed by KEY (ed25519:<base64>; repeatable) "
                                 "[default: $SKILLSITE_TRUSTED_KEYS, comma-separated].")(func)
        func = click.option("--max-risk", type=click.Choice(list(RISKS)), default=DEFAULT_MAX_RISK,
                            show_default=True, expose_value=False, is_eager=True,
                            callback=lambda ctx, _param, value: ctx.meta.__setitem__("max_risk", value),
                            help="Highest audit risk of a skill to load or offer (high: every skill).")(func)
        return func
    return decorate


#: The options every command that reads a published catalog takes.
catalog_options = catalog_options_for("_site")


def open_catalog_or_exit(source: str, cache_dir: Path | None, timeout: float, allowed_hosts: tuple[str, ...]):
    """Open a catalog; loader warnings go to stderr, loader errors exit 1 with one line."""
    catalog, error = open_catalog_or_error(source, cache_dir, timeout, allowed_hosts)
    if catalog is None:
        fail(error, EXIT_CATALOG)
    return catalog


def open_catalog_or_error(source: str, cache_dir: Path | None, timeout: float, allowed_hosts: tuple[str, ...]):
    """``(catalog, "")``, or ``(None, the loader error as one line)`` when it cannot be opened, so a
    command reading several catalogs goes on with the others; loader warnings go to stderr, a
    trusted key that is no key is a usage error (exit 2)."""
    import warnings

    from skillsite.loader import LoaderError, LoaderWarning

    open_catalog = catalog_opener(source, cache_dir, timeout, allowed_hosts)
    catalog, error = None, ""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", LoaderWarning)
        try:
            catalog = open_catalog()
        except LoaderError as exc:
            error = loader_error_text(exc)
        except ValueError as exc:  # a trusted key that is no key
            raise click.BadParameter(str(exc), param_hint="--trusted-key / $SKILLSITE_TRUSTED_KEYS") from None
    for warning in caught:
        click.echo(f"skillsite: warning: {printable(str(warning.message))}", err=True)  # a host's words in it
    return catalog, error


def catalog_opener(source: str, cache_dir: Path | None, timeout: float, allowed_hosts: tuple[str, ...]):
    """A function opening the catalog as the command's options say (``--max-risk`` and the
    trusted keys read now, from the command's context): ``skillsite mcp`` opens it again with it."""
    from skillsite.loader import Catalog

    meta = click.get_current_context().meta
    max_risk, trusted_keys = meta.get("max_risk", DEFAULT_MAX_RISK), meta.get("trusted_keys") or None

    def open_again():
        return Catalog.open(source, cache_dir=cache_dir, timeout=timeout, allowed_hosts=allowed_hosts or None,
                            max_risk=max_risk, trusted_keys=trusted_keys)
    return open_again


def try_loader(call, what: str = "skillsite"):
    """``(call(), 0)``, or ``(None, exit status)`` after printing a loader error as one line:
    3 when the machine refused a write (InstallError), 2 for an unusable lock file, else 1.
    Loader warnings go to stderr either way."""
    import warnings

    from skillsite.loader import InstallError, LoaderError, LoaderWarning, LockFileError

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", LoaderWarning)
        try:
            return call(), 0
        except LoaderError as exc:
            click.echo(f"{what}: {loader_error_text(exc)}", err=True)
            return None, (EXIT_ENVIRONMENT if isinstance(exc, InstallError)
                          else EXIT_USAGE if isinstance(exc, LockFileError) else EXIT_CATALOG)
        finally:
            for warning in caught:
                click.echo(f"{what}: warning: {printable(str(warning.message))}", err=True)


def run_loader(call, what: str = "skillsite"):
    """``call()``, exiting as :func:`try_loader` says when it raises a loader error."""
    result, code = try_loader(call, what)
    if code:
        sys.exit(code)
    return result


def loader_error_text(exc: Exception) -> str:
    """A loader error as a command-line user reads it: a RiskError names ``--max-risk``, the
    flag they type (the Python API's own message names ``max_risk=``)."""
    from skillsite.loader import RiskError

    if isinstance(exc, RiskError):  # the id and the risk come from the catalog: printable, as any other text
        return printable(f"skill {exc.skill_id} is rated {exc.risk} risk by the catalog's audit, above --max-risk "
                         f"{exc.max_risk}; pass --max-risk {exc.risk} to use it anyway")
    text = str(exc).replace("pass overwrite=True", "pass --overwrite")
    return printable(text.replace("pass follow_links=True", "pass --follow-links"))



@click.command()
@click.argument("query")
@catalog_options
@click.option("-k", "k", type=click.IntRange(min=1), default=5, show_default=True, help="How many results.")
@click.option("--tag", "tags", multiple=True, metavar="TAG",
              help="Only skills with this tag (repeatable: all of them).")
@click.option("--json", "as_json", is_flag=True,
              help='Print [{"id", "name", "description", "score"}, ...] ("copies": N for a skill published N times).')
@click.option("--all-copies", is_flag=True, help="Every copy of a skill at its own place (else one result a group).")
def search(query: str, source: str, cache_dir: Path | None, timeout: float, allowed_hosts: tuple[str, ...], k: int,
           tags: tuple[str, ...], as_json: bool, all_copies: bool) -> None:
    """Search a built catalog for QUERY; best matches first (ranked exactly as skillsite.loader ranks)."""
    from skillsite.loader import LoaderError

    catalog = open_catalog_or_exit(source, cache_dir, timeout, allowed_hosts)
    try:
        results = catalog.search(query, k=k, tags=list(tags) or None, copies=all_copies)
        withheld = catalog.search_withheld(query, k=k, tags=list(tags) or None, copies=all_copies)
    except LoaderError as exc:
        fail(loader_error_text(exc), EXIT_CATALOG)
    if as_json:
        click.echo(json_output([result_json(r) for r in results]))
    else:
        print_results(query, results)
    if withheld:  # on stderr: stdout stays the results (and --json's list)
        click.echo(f"skillsite: {withheld_text(withheld, k, catalog.max_risk)}", err=True)


def print_results(query: str, results) -> None:
    """Search results as ``skillsite search`` prints them without ``--json``."""
    from skillsite.loader import one_line

    if not results:
        click.echo(f"No skills match {query!r}.", err=True)
    for rank, r in enumerate(results, 1):
        copies = f"  ({r.copies} copies)" if r.copies > 1 else ""
        click.echo(printable(f"{rank:>2}. {r.name}  [{r.id}]  {r.score:.3f}{copies}") + "\n    "
                   + printable(one_line(r.description, 100)))


def withheld_text(risks: list[str], k: int, max_risk: str) -> str:
    """What ``skillsite search`` says on stderr of the ``risks`` of the best ``k`` matches it left
    out as above ``max_risk`` (as a RiskError names the flag that would let them through)."""
    highest = max(risks, key=RISKS.index)
    counted_skills, verb, them = ("1 skill", "is", "it") if len(risks) == 1 else (f"{len(risks)} skills", "are", "them")
    return (f"{counted_skills} among the {k} best matches at any risk {verb} rated above --max-risk {max_risk} by "
            f"the catalog's audit and left out; pass --max-risk {highest} to see {them}")


def result_json(result) -> dict:
    """A search result as ``--json`` prints it (``copies`` only for a skill published more than once)."""
    data = {"id": result.id, "name": result.name, "description": result.description, "score": result.score}
    return {**data, "copies": result.copies} if result.copies > 1 else data


@click.command()
@click.argument("skill_id", metavar="ID")
@catalog_options
@click.option("--format", "fmt", type=click.Choice(["xml", "markdown"]), default="xml", show_default=True,
              help="xml: the <skill_content> block an agent receives; markdown: the SKILL.md as published.")
def show(skill_id: str, source: str, cache_dir: Path | None, timeout: float, allowed_hosts: tuple[str, ...],
         fmt: str) -> None:
    """Print one skill (by id or name) from a published catalog, verified against its digest."""
    from skillsite.loader import LoaderError

    catalog = open_catalog_or_exit(source, cache_dir, timeout, allowed_hosts)
    try:
        skill = catalog.load(skill_id)
    except LoaderError as exc:
        fail(loader_error_text(exc), EXIT_CATALOG)
    if fmt == "xml":
        text = printable_document(skill.xml)  # C0 controls: U+FFFD stands for each
    else:  # the SKILL.md as published may hold some: escaped as any text output escapes them
        text = printable_document(skill.raw.decode("utf-8", errors="replace").lstrip("\ufeff"))
    click.echo(text, nl=not text.endswith("\n"))


@click.command()
@catalog_options
@click.option("--budget", type=click.IntRange(min=SMALLEST_BUDGET), default=30000, show_default=True,
              help="Maximum size of the block, in characters.")
@click.option("--triggers", is_flag=True, help="List each skill's trigger phrases in its entry.")
def prompt(source: str, cache_dir: Path | None, timeout: float, allowed_hosts: tuple[str, ...],
           budget: int, triggers: bool) -> None:
    """Print the <available_skills> block of the skills eligible on this machine."""
    catalog = open_catalog_or_exit(source, cache_dir, timeout, allowed_hosts)
    click.echo(printable_document(run_loader(lambda: catalog.prompt(budget=budget, triggers=triggers))), nl=False)


@click.command()
@catalog_options
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of {id, name, state, reasons}.")
@click.option("--active", multiple=True, metavar="ID", help="A skill (id or name) the runtime has on "
                                                          "(repeatable): its conflicting skills become ineligible.")
def status(source: str, cache_dir: Path | None, timeout: float, allowed_hosts: tuple[str, ...], as_json: bool,
           active: tuple[str, ...]) -> None:
    """Say which skills are offered to a model on this machine, and why the others are not."""
    from skillsite.agent.status import STATES

    catalog = open_catalog_or_exit(source, cache_dir, timeout, allowed_hosts)
    ids = [active_id(catalog, item) for item in active]
    statuses = run_loader(lambda: catalog.skill_status(active=ids))
    if as_json:
        click.echo(json_output([s.to_json() for s in statuses]))
        return
    for s in statuses:
        click.echo(printable(f"{s.state:<10} {s.id}" + (f": {'; '.join(s.reasons)}" if s.reasons else "")))
    counts = {state: sum(s.state == state for s in statuses) for state in STATES}
    click.echo(", ".join(f"{n} {state}" for state, n in counts.items()))


def active_id(catalog, id_or_name: str) -> str:
    """The id of a skill named by ``--active``; a usage error (exit 2) naming it, with the
    closest ids and names, when the catalog has no such skill."""
    import difflib

    from skillsite.loader import LoaderError

    try:
        return catalog.manifest_entry(id_or_name).id
    except LoaderError as exc:
        known = sorted({e["id"] for e in catalog.skills} | {e["name"] for e in catalog.skills})
        close = difflib.get_close_matches(id_or_name, known, n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise click.BadParameter(f"{exc}{hint}", param_hint="'--active'") from None


@click.command()
@catalog_options
@click.option("--style", type=click.Choice(["openai", "anthropic", "mcp"]), default="openai", show_default=True,
              help="The runtime's tool format.")
@click.option("--budget", type=click.IntRange(min=SMALLEST_BUDGET), default=30000, show_default=True,
              help="Maximum size of the skill listing in the tool's description, in characters.")
def tool(source: str, cache_dir: Path | None, timeout: float, allowed_hosts: tuple[str, ...], style: str,
         budget: int) -> None:
    """Print the function-calling `skill` tool (JSON) for the skills offered to a model on this machine."""
    catalog = open_catalog_or_exit(source, cache_dir, timeout, allowed_hosts)
    click.echo(json_output(run_loader(lambda: catalog.skill_tool(style=style, budget=budget))))


@click.command()
@click.argument("path", required=False, type=ExistingPath(file_okay=False, path_type=Path))
@catalog_options
@click.option("--json", "as_json", is_flag=True, help="Print {budgets: [...], similar: [...]} as JSON.")
def budget(path: Path | None, source: str, cache_dir: Path | None, timeout: float, allowed_hosts: tuple[str, ...],
           as_json: bool) -> None:
    """How many skills fit each agent's skill listing with full descriptions, which get cut, and
    which skills a model could not tell apart (of a published catalog, or of the skills under PATH)."""
    import json

    from skillsite.agent.budget import budget_fits, similar_pairs

    entries, locations = _listing_entries(path, source, cache_dir, timeout, allowed_hosts)
    fits = budget_fits(entries, locations)
    similar = similar_pairs(entries)
    if as_json:
        click.echo(json.dumps({"budgets": [f.to_json() for f in fits],
                               "similar": [{"score": s, "skills": [a, b]} for s, a, b in similar]}, indent=2))
        return
    for f in fits:
        cut = f" (first cut: {', '.join(f.cut[:3])}{', ...' if len(f.cut) > 3 else ''})" if f.cut else ""
        click.echo(printable(f"{f.agent:<22} {f.budget:>7,} chars: {len(f.fit):>5,} of {f.listed:,} skills fit, "
                             f"{len(f.cut):,} cut{cut}"))
    for score, a, b in similar:
        click.echo(printable(f"similar descriptions ({score:.2f}): {a}  ~  {b}"))


def _listing_entries(path: Path | None, source: str, cache_dir: Path | None, timeout: float,
                     allowed_hosts: tuple[str, ...]) -> tuple[list[dict], dict[str, str]]:
    """Manifest-like entries (and SKILL.md locations) of the skills under ``path``, or of a catalog."""
    if path is None:
        from skillsite.agent.catalog_format import within_max_risk

        catalog = open_catalog_or_exit(source, cache_dir, timeout, allowed_hosts)
        # as the loader offers them: none the audit rates above --max-risk
        usable = run_loader(lambda: {e.id for e in catalog.entries if within_max_risk(e, catalog.max_risk)})
        entries = [e for e in catalog.skills if e["id"] in usable]
        # a location the catalog gives wrong (a path that leaves the site) is a loader error: one line, exit 1
        return entries, run_loader(lambda: {e["id"]: catalog.skill_location(e["id"]) for e in entries})
    from skillsite.source.catalog import read_catalog

    reading = read_catalog([path])
    skills = [s for s in reading.skills if not s.has_errors]
    copy_of = {copy: group[0] for group in reading.copies for copy in group[1:]}
    entries = [{"id": s.id, "name": s.name, "description": s.description, "priority": s.priority,
                "visibility": {"hidden": s.hidden, "user_invocable_only": s.user_invocable_only, "always": s.always,
                               **({"copy_of": copy_of[s.id]} if s.id in copy_of else {})}, "extra": s.extra}
               for s in skills]
    return entries, {s.id: str(s.source.skill_md) for s in skills}


@click.command()
@catalog_options
def mcp(source: str, cache_dir: Path | None, timeout: float, allowed_hosts: tuple[str, ...]) -> None:
    """Serve a published catalog to agents over MCP (stdio): search_skills, load_skill, read_skill_resource."""
    from skillsite.mcp.server import MCPUnavailable, serve

    catalog = open_catalog_or_exit(source, cache_dir, timeout, allowed_hosts)
    try:
        serve(catalog, mcp_error_text, reopen_catalog(catalog_opener(source, cache_dir, timeout, allowed_hosts)))
    except MCPUnavailable as exc:
        fail(str(exc), EXIT_USAGE)


def reopen_catalog(open_again):
    """``open_again`` for a server running: its loader warnings (a stale copy used) go to stderr,
    as at start-up; a loader error is raised for the request to name."""
    def reopen():
        import warnings

        from skillsite.loader import LoaderWarning

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", LoaderWarning)
            try:
                return open_again()
            finally:
                for warning in caught:
                    click.echo(f"skillsite: warning: {printable(str(warning.message))}", err=True)
    return reopen


def mcp_error_text(exc: Exception) -> str:
    """A loader error as ``skillsite mcp`` answers it.  The server opens its catalog again by itself
    when the host published a new build or the signed metadata expired; when that fails, the
    error says why (:class:`~skillsite.mcp.reopening.ReopenError`).  An error that says to open
    the catalog again, which the server did not try (a file the signed metadata does not pin,
    skills.json unchanged), says to restart it; one it did try says the next request tries again."""
    from skillsite.mcp.reopening import ReopenError

    if isinstance(exc, ReopenError):
        return loader_error_text(exc).replace("open the catalog again", "the next request opens it again")
    return loader_error_text(exc).replace("open the catalog again", "restart skillsite mcp to read it anew")
