"""Reading a ``skills.json`` safely: the top level checked on reading (each entry is checked
when first used, by :meth:`~skillsite.agent.entry.ManifestEntry.from_json`), and every path or
URL it names checked to stay inside its folder or site.  A paged catalog's other files (pages,
their indexes, entry files: :mod:`~skillsite.agent.manifest_pages`) are checked the same way,
and against what the root says of them."""
from __future__ import annotations

import json
import re
import urllib.parse
from typing import Any

from skillsite.agent.catalog_format import FORMAT, FORMAT_VERSION, PAGED_FORMAT_VERSION
from skillsite.agent.entry import entry_problem, is_hex_sha256
from skillsite.agent.errors import CatalogFormatError, UnsafePathError, UnsupportedVersionError
from skillsite.agent.commands import command_name
from skillsite.agent.manifest_pages import (COMMANDS_FROM_IDS, INDEX_FORMAT, PAGE_FORMAT, IndexRow, PageRecord,
                                            page_records)
from skillsite.agent.utf8 import is_utf8_text
from skillsite.agent.vcs_names import is_vcs_folder
from skillsite.bounded import too_dense


def parse_manifest(body: bytes, where: str) -> dict[str, Any]:
    """Decode and check a manifest; CatalogFormatError / UnsupportedVersionError on problems."""
    data = decode_json(body, where)
    check_manifest(data, where)
    return data


def decode_json(body: bytes, where: str) -> Any:
    """The JSON value of a catalog file; CatalogFormatError, saying why, when it is none or is
    :func:`too_dense` to decode.  Catalogs are UTF-8 (RFC 8259): bytes in UTF-16 or UTF-32, which
    ``json.loads`` would guess, are refused."""
    if (problem := too_dense(body)) is not None:
        raise CatalogFormatError(f"{where} is not a usable catalog: it {problem}")
    try:
        data = json.loads(body.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise CatalogFormatError(f"{where} is not UTF-8 JSON ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        stripped = body.strip()
        truncated = exc.pos >= len(stripped) or (stripped[:1] == b"{" and stripped[-1:] != b"}")
        hint = "; it looks truncated" if truncated else ""
        raise CatalogFormatError(f"{where} is not valid JSON ({exc.msg}: line {exc.lineno} "
                                 f"column {exc.colno}){hint}") from None
    except RecursionError:
        raise CatalogFormatError(f"{where} nests too deeply to be a catalog") from None
    except ValueError:  # an integer of thousands of digits (sys.get_int_max_str_digits())
        raise CatalogFormatError(f"{where} is not a usable catalog: it holds a number too long to read") from None
    return data


def check_manifest(data: Any, where: str) -> None:
    """The top level, and the id, name and description of every entry (the rest is checked on use)."""
    if not isinstance(data, dict):
        raise CatalogFormatError(f"{where} is not a skillsite catalog: the top level is not an object")
    if data.get("format") != FORMAT:
        raise CatalogFormatError(f"{where} is not a skillsite catalog: format is {data.get('format')!r}, "
                                 f"expected {FORMAT!r}")
    version = data.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise CatalogFormatError(f"{where}: format_version {version!r} is not a positive integer")
    if version > FORMAT_VERSION:
        raise UnsupportedVersionError(version, where)
    check_entries(data.get("skills"), where)
    if version == PAGED_FORMAT_VERSION:
        page_records(data, where)


def check_entries(skills: Any, where: str) -> None:
    """A list of entries, each with a string id, name and description; no id twice."""
    if not isinstance(skills, list):
        raise CatalogFormatError(f"{where}: 'skills' is not a list")
    seen: dict[str, int] = {}
    for index, entry in enumerate(skills):
        if not (isinstance(entry, dict) and isinstance(entry.get("id"), str) and entry["id"]
                and isinstance(entry.get("name"), str) and isinstance(entry.get("description"), str)):
            raise CatalogFormatError(f"{where}: skills[{index}] {entry_problem(entry) or 'is malformed'}")
        if entry["id"] in seen:
            raise CatalogFormatError(f"{where}: skills[{index}] has the duplicate id {entry['id']!r} "
                                     f"(skills[{seen[entry['id']]}] has it too); ids must be unique")
        seen[entry["id"]] = index


def parse_page(body: bytes, record: PageRecord, where: str) -> list[dict[str, Any]]:
    """The entries of a page file, checked to be the page the root describes (number, count,
    id range, ascending ids)."""
    data = _paged_file(body, PAGE_FORMAT, record, where)
    check_entries(data.get("skills"), where)
    _check_rows(data["skills"], record, where)
    return data["skills"]


def parse_index(body: bytes, record: PageRecord, where: str) -> dict[str, IndexRow]:
    """A page's index: id -> its row (name, sha256 of its entry file, command), checked as
    :func:`parse_page`.  Commands are known from an index that says how it gives them
    (:data:`~skillsite.agent.manifest_pages.COMMANDS_FROM_IDS`: a row of an ASCII id may leave its
    command to be made of its id, any other gives it); from any other, the page gives them."""
    data = _paged_file(body, INDEX_FORMAT, record, where)
    rows = data.get("skills")
    if not isinstance(rows, list) or not all(
            isinstance(r, dict) and isinstance(r.get("id"), str) and isinstance(r.get("name"), str)
            and is_hex_sha256(r.get("sha256")) and _is_command(r.get("command")) for r in rows):
        raise CatalogFormatError(f"{where}: 'skills' is not a list of {{id, name, sha256}} rows "
                                 "(and a command, text or null)")
    _check_rows(rows, record, where)
    if data.get("commands") != COMMANDS_FROM_IDS or not all("command" in r or r["id"].isascii() for r in rows):
        return {r["id"]: IndexRow(r["name"], r["sha256"], None, False) for r in rows}
    return {r["id"]: IndexRow(r["name"], r["sha256"], r["command"] if "command" in r else command_name(r["id"]), True)
            for r in rows}


def _is_command(value: Any) -> bool:
    """Whether an index row's ``command`` (None when it has none) is one: a text, or null."""
    return value is None or (isinstance(value, str) and value != "")


def parse_entry_file(body: bytes, skill_id: str, where: str) -> dict[str, Any]:
    """A skill's entry file: one manifest entry, of ``skill_id`` (checked in full when used)."""
    data = decode_json(body, where)
    check_entries([data], where)
    if data["id"] != skill_id:
        raise CatalogFormatError(f"{where} is the entry of {data['id']!r}, not of {skill_id!r}")
    return data


def _paged_file(body: bytes, kind: str, record: PageRecord, where: str) -> dict[str, Any]:
    """A page or index file's top level: its format and page number."""
    data = decode_json(body, where)
    if not isinstance(data, dict) or data.get("format") != kind:
        raise CatalogFormatError(f"{where} is not a {kind} file")
    if data.get("format_version") != PAGED_FORMAT_VERSION:
        raise CatalogFormatError(f"{where}: format_version {data.get('format_version')!r} is not "
                                 f"{PAGED_FORMAT_VERSION}")
    if data.get("page") != record.page:
        raise CatalogFormatError(f"{where} is page {data.get('page')!r}, the catalog lists it as page {record.page}")
    return data


def _check_rows(rows: list[dict[str, Any]], record: PageRecord, where: str) -> None:
    """The rows of a page: as many as the root says, ascending ids from its first to its last."""
    ids = [row["id"] for row in rows]
    if len(ids) != record.count or not ids or ids[0] != record.first or ids[-1] != record.last:
        raise CatalogFormatError(f"{where} does not hold the {record.count} skills from {record.first!r} to "
                                 f"{record.last!r} the catalog lists")
    if any(a >= b for a, b in zip(ids, ids[1:])):
        raise CatalogFormatError(f"{where}: ids are not in ascending order")


#: How a Windows path on a drive starts (``C:``, ``C:\\``, ``q:notes``: relative to that drive's folder).
_WINDOWS_DRIVE = re.compile(r"[A-Za-z]:")


def windows_drive(path: str) -> bool:
    """Whether ``path`` starts with a drive letter and ``:``, which Windows reads as a drive (a
    path such as ``1:1 mapping.md`` does not)."""
    return _WINDOWS_DRIVE.match(path) is not None


#: The names Windows reads as a device in every folder, with any extension (``nul.txt`` is ``NUL``),
#: as Python 3.13's ``ntpath.isreserved`` lists them (the superscript ports are documented ones).
WINDOWS_DEVICES = frozenset({"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"}
                            | {port + n for port in ("COM", "LPT") for n in "123456789\u00b9\u00b2\u00b3"})


def windows_name_problem(name: str) -> str | None:
    """Why no Windows file system holds the path segment ``name`` as itself, or None: a ``:`` (a
    drive, ``D:evil``, or a data stream, ``a.md:x``), a device name in any case and with any
    extension (``CON``, ``nul.txt``, ``Com1.md``), or a last dot or space, which Windows drops."""
    if ":" in name:
        return "holds ':', which Windows reads as a drive or a file's data stream"
    if name.endswith((".", " ")):
        return "ends with a dot or a space, which Windows drops"
    if name.partition(".")[0].rstrip(" ").upper() in WINDOWS_DEVICES:
        return "is a Windows device name"
    return None


def path_problem(path: str) -> str | None:
    """Why a relative ``/``-separated path cannot be written on every system (the first of its
    segments :func:`windows_name_problem` refuses, named), or None: the build publishes no such
    skill folder (SK019) or bundled file (SK020), and installers and the loader refuse one."""
    for part in path.split("/"):
        if part not in ("", ".", "..") and (why := windows_name_problem(part)) is not None:
            return f"'{part}' {why}"
    return None


def skill_folder_problem(skill_id: str) -> str | None:
    """Why a skill cannot be installed beside another in the folder its id names (its last
    segment), or None: that name is hidden (``.ssh``, ``.github``, ``.config``: other programs
    read such folders, and an installer's own temporary folders are hidden ones it removes), or
    :func:`path_problem` refuses the id."""
    name = skill_id.rsplit("/", 1)[-1]
    if name.startswith("."):
        return f"its folder '{name}' would be hidden (as .ssh or .github are, which other programs read)"
    return path_problem(skill_id)


def safe_relpath(path: str, what: str) -> str:
    """A normalised relative POSIX path, or UnsafePathError if it could escape its folder, lead
    into a version-control folder (:func:`is_vcs_folder`) or name a file no Windows file system
    holds as itself (:func:`path_problem`)."""
    if not isinstance(path, str) or not path or "\x00" in path or "\\" in path:
        raise UnsafePathError(f"{what} {path!r} is not a plain relative path")
    if not is_utf8_text(path):
        raise UnsafePathError(f"{what} {path!r} is not valid Unicode text")  # JSON allows a lone surrogate
    if path.startswith("/") or windows_drive(path):
        raise UnsafePathError(f"{what} {path!r} is absolute")
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        raise UnsafePathError(f"{what} {path!r} escapes its folder")
    if any(is_vcs_folder(part) for part in parts):
        raise UnsafePathError(f"{what} {path!r} leads into a version-control folder (its hooks and config run code)")
    if (problem := path_problem(path)) is not None:
        raise UnsafePathError(f"{what} {path!r} cannot be written on every system: {problem}")
    return "/".join(parts)


def site_relative(url: str, what: str) -> str:
    """A manifest URL (relative, percent-encoded) checked to stay inside the site; trailing / kept."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme or parts.netloc or parts.query or parts.fragment:
        raise CatalogFormatError(f"{what} {url!r} is not a site-relative URL")
    decoded = urllib.parse.unquote(parts.path)
    try:
        clean = safe_relpath(decoded, what)
    except UnsafePathError as exc:
        raise CatalogFormatError(str(exc)) from None
    return clean + ("/" if decoded.endswith("/") else "")
