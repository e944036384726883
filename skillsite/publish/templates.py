"""The catalog's templates (Jinja2) and static assets.

Templates come from ``templates/`` (shipped in the wheel as ``skillsite/templates``); a folder
named by ``SiteConfig.templates`` overrides single templates or static files.  Autoescaping is
on for HTML and XML, and an undefined name is an error.  A file of that folder is read only when
it is a regular file inside it (a symlink may lead elsewhere in the folder, not out of it): the
folder is often a pull request's, and a link to ``/proc/self/environ`` or a key would publish it.
"""
from __future__ import annotations

import functools
import hashlib
import os
import stat
import traceback
from pathlib import Path
from typing import Callable, Sequence

import jinja2
from jinja2 import meta
from jinja2.loaders import split_template_path
from jinja2.sandbox import SandboxedEnvironment
from markupsafe import Markup

from skillsite.config import builtin_templates
from skillsite.paths import special_kind
from skillsite.publish.markdown import without_controls
from skillsite.publish.staging import Staging
from skillsite.publish.views import display_text, human_bytes, markdown_text
from skillsite.source.discover import inside_folder

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
        loader=jinja2.ChoiceLoader([FolderLoader(d) for d in dirs]),
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
        for path in template_files(folder):
            data = read_template_file(folder, path)
            content.update(f"{path.relative_to(folder)}\0{len(data)}\0".encode())
            content.update(data)
    return content.hexdigest()


def write_assets(staging: Staging, dirs: Sequence[Path]) -> dict[str, str]:
    """Copy static files to ``assets/<stem>.<hash><suffixes>`` (fingerprinted: cached for long);
    returns logical name -> site path."""
    assets: dict[str, str] = {}
    for name in STATIC_FILES:
        found = next(((d, d / "static" / name) for d in dirs if os.path.lexists(d / "static" / name)), None)
        if found is None:
            raise FileNotFoundError(f"static file {name} is missing from the templates")
        data = read_template_file(*found)
        stem, _, suffixes = name.partition(".")
        sha = hashlib.sha256(data).hexdigest()
        rel = f"assets/{stem}.{sha[:10]}.{suffixes}"
        staging.write_keyed(rel, sha, lambda: data)
        assets[name] = rel
    return assets


class FolderLoader(jinja2.FileSystemLoader):
    """Jinja2's loader of one folder, reading a template only as :func:`read_template_file` does."""

    def __init__(self, folder: Path) -> None:
        super().__init__(str(folder))
        self.folder = folder

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        path = self.folder.joinpath(*split_template_path(template))
        if not os.path.lexists(path) or (os.path.isdir(path) and not os.path.islink(path)):
            raise jinja2.TemplateNotFound(template)
        contents = read_template_file(self.folder, path).decode("utf-8")
        mtime = os.path.getmtime(path)
        return contents, os.path.normpath(path), lambda: _mtime(path) == mtime


def _mtime(path: Path) -> float | None:
    """When ``path`` was last changed (None once it is gone): a template read again after."""
    try:
        return os.path.getmtime(path)
    except OSError:
        return None


def template_files(folder: Path) -> list[Path]:
    """The files of the templates folder ``folder``, sorted (a symlink to a folder inside it is
    not walked into); TemplateProblem for one :func:`read_template_file` would refuse."""
    if os.path.isdir(folder) and os.stat(folder).st_dev in _pseudo_devices():
        raise TemplateProblem(f"templates folder {folder}: on a pseudo file system (/proc, /sys), not a folder "
                              "of files; not read")
    found: list[Path] = []
    for top, subdirs, names in os.walk(folder):
        links = [name for name in subdirs if os.path.islink(os.path.join(top, name))]
        for name in names + links:
            kind = _checked(folder, Path(top, name))
            if kind is not None and stat.S_ISREG(kind):
                found.append(Path(top, name))
    return sorted(found)


def read_template_file(folder: Path, path: Path) -> bytes:
    """The bytes of ``path``, a file of the templates folder ``folder``: refused (TemplateProblem)
    when it is no regular file (a pipe would hang the build, a device or a file of ``/proc``
    never end) or, in a site's own folder, a symlink leading out of it; an error reading it names it."""
    _checked(folder, path, needed=True)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise TemplateProblem(f"template {path}: not a regular file; not read")
            return handle.read()
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from None


def _checked(folder: Path, path: Path, needed: bool = False) -> int | None:
    """The mode of what ``path`` (in ``folder``) leads to; None for a folder, or a symlink leading
    nowhere unless ``needed``.  TemplateProblem for a symlink out of a site's own folder, for what
    is neither a regular file nor a folder, and for a file of a pseudo file system."""
    if os.path.islink(path) and not _builtin(folder):
        target = os.path.realpath(path)
        if not inside_folder(target, os.path.realpath(folder)):
            raise TemplateProblem(f"template {path}: symlink leads outside the templates folder {folder} "
                                  f"(to {target}); not followed")
    try:
        info = os.stat(path)
    except FileNotFoundError:
        if needed:
            raise TemplateProblem(f"template {path}: symlink leads to nothing") from None
        return None
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    if stat.S_ISDIR(info.st_mode):
        return None
    if not stat.S_ISREG(info.st_mode):
        raise TemplateProblem(f"template {path}: {special_kind(info.st_mode)}, not a regular file; not read")
    if info.st_dev in _pseudo_devices():
        raise TemplateProblem(f"template {path}: a file of a pseudo file system (/proc, /sys), not a regular "
                              "file; not read")
    return info.st_mode


def _builtin(folder: Path) -> bool:
    """Whether ``folder`` is skillsite's own templates (a package may link its files elsewhere)."""
    return os.path.realpath(folder) == _builtin_folder()


@functools.lru_cache(maxsize=1)
def _builtin_folder() -> str:
    """The real path of skillsite's own templates, worked out once."""
    return os.path.realpath(builtin_templates())


@functools.lru_cache(maxsize=1)
def _pseudo_devices() -> frozenset[int]:
    """The devices of ``/proc`` and ``/sys`` where they are file systems of their own: their files
    say they are regular, yet may never end, block, or hold the process's secrets."""
    try:
        root = os.stat("/").st_dev
    except OSError:  # pragma: no cover - no root folder to stat
        return frozenset()
    devices = set()
    for place in ("/proc", "/sys"):
        try:
            devices.add(os.stat(place).st_dev)
        except OSError:
            pass
    return frozenset(devices - {root})
