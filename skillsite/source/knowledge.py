"""Knowledge documents: the reference texts a skill points to instead of copying them.

``knowledge: [path, ...]`` names documents in the catalog-wide knowledge folder
(``knowledge_dir``, by default ``knowledge/`` in the first source root) or, for a path
starting with ``./``, in the skill's own folder.  Each must exist and stay inside its folder
(symbolic links included); a skill's own document must be one of the files it publishes (not
excluded, not in a skipped folder), no document may be larger than ``MAX_DOCUMENT_BYTES``, and
no path may hold a character the prompt fragment (skill.xml) cannot (it would name a document
the agent's ``knowledge(path)`` cannot find).
The catalog publishes each document once, under ``knowledge/``: a shared one at its path in the
knowledge folder, a skill's own one under ``skills/<id>/``.
"""
from __future__ import annotations

import os
import posixpath
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from skillsite.agent.xml_chars import xml_forbidden
from skillsite.diagnostics import Diagnostic, Severity, make
from skillsite.source.discover import SKILL_FILES, inside_folder

DEFAULT_KNOWLEDGE_DIR = "knowledge"
MAX_DOCUMENT_BYTES = 8 * 1024 * 1024
OWN_PREFIX = "./"
#: Where a skill's own documents are published under knowledge/ (``skills/<id>/<path>``).
OWN_FOLDER = "skills"
#: An ATX heading's line, its text read to the line's end (:func:`document_title` drops the
#: closing marks): a lazy text before them was tried against every end of a long line.
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+)$", re.M)


@dataclass(frozen=True)
class KnowledgeDoc:
    """A declared document, found inside its folder."""

    declared: str     # as the skill wrote it
    path: str         # where it is published, under knowledge/ (unique in the catalog)
    file: str         # the file read


def default_knowledge_dir(roots: Sequence[Path | str]) -> Path | None:
    """``knowledge/`` in the first source root; when that root is one skill of a larger tree
    (validating a single skill), the ``knowledge/`` of the nearest folder above it that has one,
    up to the repository's root, as a build of the whole tree would find it."""
    if not roots:
        return None
    first = Path(roots[0])
    own = first / DEFAULT_KNOWLEDGE_DIR
    # os.path's checks: a root its owner cannot open (mode 000) is said by discovery (SK006), not here
    if os.path.isdir(own) or not os.path.isfile(first / "SKILL.md"):
        return _held(own, first)
    for folder in Path(os.path.abspath(first)).parents:
        if os.path.isdir(folder / DEFAULT_KNOWLEDGE_DIR):
            return _held(folder / DEFAULT_KNOWLEDGE_DIR, folder)
        if os.path.exists(folder / ".git"):
            break
    return own


def _held(knowledge: Path, holder: Path) -> Path | None:
    """``knowledge``, unless it is a symbolic link out of ``holder`` (None): the tree's own
    ``knowledge/`` is the tree's content, and discovery follows no link out of it (SK002); only
    ``knowledge_dir`` in skillsite.yml, the operator's choice, may name a folder elsewhere."""
    return knowledge if inside_folder(os.path.realpath(knowledge), os.path.realpath(holder)) else None


def locate(declared: str, skill_id: str, skill_dir: Path, knowledge_dir: Path | None,
           bundled: frozenset[str], listings: Listings | None = None) -> KnowledgeDoc | str:
    """The document a ``knowledge`` entry names, or why it cannot be used (``bundled``: the
    paths of the files the skill publishes; ``listings``: the folders listed so far, see
    :func:`_on_disk`)."""
    listings = {} if listings is None else listings
    own = declared.startswith(OWN_PREFIX)
    relative = declared[len(OWN_PREFIX):] if own else declared
    if not relative or relative.startswith("/") or "\\" in relative or re.match(r"^[A-Za-z]:", relative):
        return f"knowledge path '{declared}' must be relative to its folder"
    if "\x00" in relative:
        return f"knowledge path {declared!r} holds a NUL character"
    if (char := xml_forbidden(relative)) is not None:  # skill.xml would name a document knowledge() cannot find
        return (f"knowledge path {declared!r} holds U+{ord(char):04X}, a character the skill's prompt fragment "
                "(skill.xml, XML 1.0) cannot hold; rename the document")
    clean = posixpath.normpath(relative)
    if clean == ".." or clean.startswith("../"):
        return f"knowledge path '{declared}' leaves its folder"
    if not own and clean.split("/", 1)[0] == OWN_FOLDER:
        return (f"knowledge path '{declared}' is in the knowledge folder's {OWN_FOLDER}/, where the catalog "
                "publishes each skill's own documents (./...): a shared one there could take one's place; move it")
    folder = skill_dir if own else knowledge_dir
    if folder is None:
        return (f"knowledge path '{declared}' needs a knowledge folder: knowledge_dir in skillsite.yml, or a "
                "knowledge/ folder in the first source (not a symbolic link out of it)")
    real_folder = os.path.realpath(folder)
    on_disk = _on_disk(folder, clean, listings)
    real_file = os.path.realpath(os.path.join(folder, *on_disk.split("/")))
    if not inside_folder(real_file, real_folder):
        return f"knowledge path '{declared}' leads outside its folder (through a symbolic link)"
    if not own and not os.path.isdir(folder):
        return (f"knowledge document '{declared}': the knowledge folder {os.path.abspath(folder)} does not exist "
                "(knowledge_dir in skillsite.yml, relative to that file; by default knowledge/ in the first source)")
    if not os.path.isfile(real_file):
        where = "the skill's folder" if own else f"the knowledge folder {os.path.abspath(folder)}"
        if _forbidden(real_file):
            return f"knowledge document '{declared}' cannot be reached in {where}: permission denied"
        return f"knowledge document '{declared}' does not exist in {where}"
    if not os.access(real_file, os.R_OK):  # else the build would publish the skill without it, saying nothing
        return f"knowledge document '{declared}' cannot be read (permission denied)"
    if own and clean in SKILL_FILES:
        return f"knowledge document '{declared}' is the skill's own {clean}, which an agent reads first: no document"
    if own and clean not in bundled and on_disk not in bundled:
        return f"knowledge document '{declared}' is not a file the skill publishes (excluded or in a skipped folder)"
    if os.path.getsize(real_file) > MAX_DOCUMENT_BYTES:
        return f"knowledge document '{declared}' is larger than {MAX_DOCUMENT_BYTES:,} bytes"
    published = f"{OWN_FOLDER}/{skill_id}/{clean}" if own else clean
    return KnowledgeDoc(declared, published, real_file)


#: The folders listed while locating documents, each's entries by their NFC (:func:`_on_disk`):
#: one per check or publishing of the knowledge, so that a folder is listed once in it.
Listings = dict[str, dict[str, tuple[str, ...]]]


def _on_disk(folder: str | Path, clean: str, listings: Listings) -> str:
    """``clean``, a path in ``folder``, as the folder spells it: a name found there only in another
    Unicode spelling (a file named on macOS is decomposed, NFD; the same name typed is composed,
    NFC) is taken in the folder's, when one entry alone has it; any other as it is.  Each folder
    is listed once in ``listings`` (a skill may list thousands of documents of one folder)."""
    if clean.isascii():
        return clean
    parts, here = [], os.fspath(folder)
    for name in clean.split("/"):
        if not os.path.lexists(os.path.join(here, name)):
            if here not in listings:
                listings[here] = _listed(here)
            alike = listings[here].get(unicodedata.normalize("NFC", name), ())
            name = alike[0] if len(alike) == 1 else name
        parts.append(name)
        here = os.path.join(here, name)
    return "/".join(parts)


def _listed(folder: str) -> dict[str, tuple[str, ...]]:
    """A folder's entries by their NFC (none when it cannot be listed)."""
    try:
        entries = sorted(os.listdir(folder))
    except OSError:
        return {}
    found: dict[str, tuple[str, ...]] = {}
    for entry in entries:
        key = unicodedata.normalize("NFC", entry)
        found[key] = (*found.get(key, ()), entry)
    return found


def _forbidden(path: str) -> bool:
    """Whether looking ``path`` up is refused (a folder on its way that cannot be searched, such as
    one of mode 000): it may well exist, so it is not said to be missing."""
    try:
        os.stat(path)
    except PermissionError:
        return True
    except OSError:
        return False
    return False


def knowledge_links(declared: Iterable[Any], skill_dir: str | Path, knowledge_dir: str | Path | None
                    ) -> dict[str, str]:
    """Each shared document a skill declares as a relative link from the skill's folder names it in
    the source tree (``../knowledge/runbooks/x.md``, normalised) -> its path under ``knowledge/``:
    a body's link to it names the catalog's copy, not a file that leaves the skill.  Worked out
    from the paths alone; whether each document can be used is SK218's to say."""
    if knowledge_dir is None:
        return {}
    base, links = os.path.abspath(knowledge_dir), {}
    for item in declared:
        if not isinstance(item, str) or item.startswith(OWN_PREFIX):
            continue
        clean = posixpath.normpath(item)
        if clean in (".", "..") or clean.startswith(("../", "/")) or clean.split("/", 1)[0] == OWN_FOLDER:
            continue
        links[link_from(skill_dir, os.path.join(base, *clean.split("/")))] = clean
    return links


def link_from(skill_dir: str | os.PathLike[str], path: str | os.PathLike[str]) -> str:
    """``path`` as a relative link from the folder ``skill_dir`` names it (``../knowledge/x.md``),
    normalised."""
    link = os.path.relpath(os.path.abspath(path), os.path.abspath(skill_dir))
    return posixpath.normpath(link.replace(os.sep, "/"))


def locate_all(declared: Sequence[str], skill_id: str, skill_dir: Path, knowledge_dir: Path | None,
               bundled: frozenset[str], display_path: str, positions: Sequence[tuple[int, int]],
               listings: Listings | None = None) -> tuple[list[KnowledgeDoc], list[Diagnostic]]:
    """Every declared document of one skill, and SK218 for each that cannot be used (a warning for
    one named again in another spelling, ``sub/../d.md`` after ``d.md``: it is listed once)."""
    listings = {} if listings is None else listings
    docs: list[KnowledgeDoc] = []
    diags: list[Diagnostic] = []
    by_path: dict[str, KnowledgeDoc] = {}
    for item, (line, col) in zip(declared, positions):
        found = locate(item, skill_id, skill_dir, knowledge_dir, bundled, listings)
        if isinstance(found, str):
            diags.append(make("SK218", found, display_path, line, col))
        elif (first := by_path.get(found.path)) is not None:
            diags.append(make("SK218", f"knowledge path '{item}' names the document '{first.declared}' names; "
                                       "listed once", display_path, line, col, Severity.WARNING))
        else:
            docs.append(found)
            by_path[found.path] = found
    return docs, diags


def document_title(data: bytes, path: str) -> str:
    """A document's first Markdown heading, else its file name."""
    text = data[:65536].decode("utf-8", errors="replace")
    match = _HEADING.search(text)
    heading = match.group(1) if match else ""
    title = (heading.rstrip(" \t#") or heading[:1]).strip()
    return " ".join(title.split())[:200] or posixpath.basename(path)
