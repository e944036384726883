"""Which of a skill's bundled files the catalog can publish under their names, and why not.

A bundled file is published at ``skills/<id>/<path>``, listed in the manifest and the prompt
fragment, and fetched by agents and installers on every system: a name one of them cannot hold
or reads another way is left out with a warning, in the current release as in past ones.
"""
from __future__ import annotations

from typing import Iterable, Sequence

from skillsite.agent.manifest_check import path_problem, windows_drive
from skillsite.agent.spellings import one_spelling
from skillsite.agent.xml_chars import xml_keeps
from skillsite.diagnostics import Diagnostic, make
from skillsite.models import SourceFile
from skillsite.publish.manifest import is_reserved_path, is_versions_path, reserved_names
from skillsite.source.versioning import canonical_version


def publishable(path: str, reserved: frozenset[str], versioned: bool) -> bool:
    """Whether a skill's bundled file can be published: not in the place of a file the catalog
    writes in its folder (``reserved``, or its releases when it is ``versioned``), named as
    skill.xml can list it (else the fragment would name a file that is not there), and without a
    backslash, a ``:`` (a drive too), another character Windows forbids, a Windows device name or a
    last dot or space in a part (:func:`path_problem`: the loader and installers refuse them, as no
    Windows file system holds them as written)."""
    return (xml_keeps(path) and "\\" not in path and path_problem(path) is None
            and not is_reserved_path(path, reserved) and not (versioned and is_versions_path(path)))


def spelling_twins(paths: Iterable[str]) -> dict[str, str]:
    """Each of ``paths`` spelt as an earlier one in another case or Unicode form (``a.md`` after
    ``A.md``), with that earlier one: a file system that ignores case and form (macOS, Windows)
    holds one file for both, so an install there would keep one and the skill's digest would fail."""
    first: dict[str, str] = {}
    twins: dict[str, str] = {}
    for path in paths:
        spelt = one_spelling(path)
        if spelt in first:
            twins[path] = first[spelt]
        else:
            first[spelt] = path
    return twins


def left_out(paths: Iterable[str], reserved: frozenset[str], versioned: bool) -> dict[str, str | None]:
    """Each of a skill's bundled ``paths`` (in path order) the catalog does not publish, with the
    earlier path it is a :func:`spelling_twins` of (None: :func:`publishable` refuses it)."""
    listed = list(paths)
    twins = spelling_twins(listed)
    return {path: twins.get(path) for path in listed if path in twins or not publishable(path, reserved, versioned)}


def unpublished(path: str, skill_md: str, twin_of: str | None = None) -> Diagnostic:
    """Why a bundled file :func:`publishable` refuses (or the :func:`spelling_twins` of
    ``twin_of``) is not published."""
    if twin_of is not None:
        return make("SK022", f"bundled file '{path}' is '{twin_of}' in another case or Unicode form, one file on "
                             "macOS and Windows; not published", skill_md)
    if not xml_keeps(path):
        return make("SK017", f"bundled file '{path}' has a name the skill's prompt fragment (skill.xml) cannot "
                             "hold as written; not published", skill_md)
    if "\\" in path:
        return make("SK020", f"bundled file '{path}' holds a backslash, which agents refuse in a path (a separator "
                             "on Windows); not published", skill_md)
    if windows_drive(path):
        return make("SK020", f"bundled file '{path}' starts as a Windows drive does ('{path[:2]}'), which agents "
                             "refuse as an absolute path; not published", skill_md)
    if (problem := path_problem(path)) is not None:
        return make("SK020", f"bundled file '{path}' cannot be written on every system ({problem}); agents "
                             "refuse it; not published", skill_md)
    return make("SK009", f"bundled file '{path}' has a name the catalog uses for its own pages; not published",
                skill_md)


def unpublished_files(skills: Sequence[tuple[SourceFile, str | None]], paged: bool) -> list[Diagnostic]:
    """The warnings a build gives of the bundled files it would not publish (:func:`unpublished`),
    said without publishing, for ``skillsite validate``: each skill with its version as written (a
    versioned one reserves its releases' names), in a catalog ``paged`` or not (its entry file's name)."""
    reserved = reserved_names(paged)
    return [unpublished(path, src.display_path, twin_of) for src, version in skills
            for path, twin_of in left_out((f.path for f in src.files), reserved,
                                          canonical_version(version) is not None).items()]
