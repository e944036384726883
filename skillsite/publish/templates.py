"""The catalog's templates (Jinja2) and static assets.

Templates come from ``templates/`` (shipped in the wheel as ``skillsite/templates``); a folder
named by ``SiteConfig.templates`` overrides single templates or static files.  Autoescaping is
on for HTML and XML, and an undefined name is an error.
"""
from __future__ import annotations

import functools
import hashlib
import traceback
from pathlib import Path
from typing import Sequence

import jinja2
from jinja2 import meta
from jinja2.sandbox import SandboxedEnvironment
from markupsafe import Markup

from skillsite.publish.markdown import without_controls
from skillsite.publish.staging import Staging
from skillsite.publish.views import display_text, human_bytes, markdown_text

STATIC_FILES = ("app.css", "app.js", "ranking.js", "search.js", "lunr.min.js", "nojs.css", "favicon.svg")


class TemplateProblem(Exception):
    """A template that cannot be compiled or rendered (an override's syntax error, undefined name,
    missing include, bytes that are not UTF-8): exit 2, a usage problem, said in one line."""


def template_problem(exc: Exception, template: str) -> TemplateProblem:
    """What went wrong rendering ``template``, naming the template file and line where Jinja2
    tells them (the frame of the template in the traceback, for an error while rendering)."""
    if isinstance(exc, jinja2.TemplateSyntaxError):
        where = f"{exc.filename or exc.name or template}:{exc.lineno}"
        return TemplateProblem(f"template {where}: {exc.message}")
    if isinstance(exc, jinja2.TemplateNotFound):
        return TemplateProblem(f"template {template}: it names {exc.name}, which no templates folder holds")
    if isinstance(exc, UnicodeDecodeError):
        return TemplateProblem(f"template {template} (or one it includes) is not UTF-8 text: {exc.reason}")
    frames = [frame for frame in traceback.extract_tb(exc.__traceback__)
              if frame.filename.endswith((".html", ".xml", ".txt"))]
    where = f"{frames[-1].filename}:{frames[-1].lineno}" if frames else template
    return TemplateProblem(f"template {where}: {getattr(exc, 'message', None) or exc}")


def make_environment(dirs: Sequence[Path]) -> jinja2.Environment:
    """Jinja2 with autoescaping (HTML and XML), StrictUndefined and a loader per folder, sandboxed:
    a site's own templates (``templates`` in a cloned repository's skillsite.yml) reach no Python
    internals, so they run no command (``cycler.__init__.__globals__.os`` is refused)."""
    env = SandboxedEnvironment(
        loader=jinja2.ChoiceLoader([jinja2.FileSystemLoader(str(d)) for d in dirs]),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html", "xml"), default_for_string=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        finalize=_shown,
    )
    env.filters["text"] = display_text
    env.filters["bytes"] = human_bytes
    env.filters["md_text"] = markdown_text
    return env


def _shown(value: object) -> object:
    """Each value a template shows, its control characters replaced (:func:`without_controls`);
    the rendered body (the one Markup value) was, by the renderer."""
    return without_controls(value) if isinstance(value, str) and not isinstance(value, Markup) else value


@functools.lru_cache(maxsize=2)
def shared_environment(dirs: tuple[Path, ...], templates_key: str) -> jinja2.Environment:
    """:func:`make_environment` of ``dirs``, whose files have the digest ``templates_key``
    (:func:`templates_digest`), made once per process: a long-running one (``serve``), and the
    workers it forks, do not compile the same templates again for every build.  A template
    changed, added or removed gives another digest, so another Environment."""
    return make_environment(dirs)


@functools.lru_cache(maxsize=64)
def templates_read(dirs: tuple[Path, ...], templates_key: str, template: str, name: str) -> bool:
    """:func:`reads_name` of the templates in ``dirs`` (whose files have the digest
    ``templates_key``), worked out once per process for each template and name."""
    return reads_name(shared_environment(dirs, templates_key), template, name)


def reads_name(env: jinja2.Environment, template: str, name: str) -> bool:
    """Whether ``template``, or a template it extends, includes or imports, reads the variable
    ``name`` (Jinja2's own analysis of each source, :mod:`jinja2.meta`): a page whose templates do
    not read a value need not be made again when the value changes.  True when it cannot be told
    (a template named by a variable, one that cannot be read or parsed)."""
    seen: set[str] = set()
    todo = [template]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            parsed = env.parse(env.loader.get_source(env, current)[0])  # type: ignore[union-attr]
        except (jinja2.TemplateError, UnicodeDecodeError):
            return True
        referenced = list(meta.find_referenced_templates(parsed))
        if name in meta.find_undeclared_variables(parsed) or None in referenced:
            return True
        todo += [ref for ref in referenced if ref is not None]
    return False


def templates_digest(dirs: Sequence[Path]) -> str:
    """A digest of every template and static file: a page made from other ones is made again."""
    content = hashlib.sha256()
    for folder in dirs:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            content.update(f"{path.relative_to(folder)}\0{path.stat().st_size}\0".encode())
            content.update(path.read_bytes())
    return content.hexdigest()


def write_assets(staging: Staging, dirs: Sequence[Path]) -> dict[str, str]:
    """Copy static files to ``assets/<stem>.<hash><suffixes>`` (fingerprinted: cached for long);
    returns logical name -> site path."""
    assets: dict[str, str] = {}
    for name in STATIC_FILES:
        source = next((d / "static" / name for d in dirs if (d / "static" / name).is_file()), None)
        if source is None:
            raise FileNotFoundError(f"static file {name} is missing from the templates")
        data = source.read_bytes()
        stem, _, suffixes = name.partition(".")
        sha = hashlib.sha256(data).hexdigest()
        rel = f"assets/{stem}.{sha[:10]}.{suffixes}"
        staging.write_keyed(rel, sha, lambda: data)
        assets[name] = rel
    return assets
