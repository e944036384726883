"""Reading a ``skills.json`` safely: the top level checked on reading (each entry is checked
when first used, by :meth:`~skillsite.agent.entry.ManifestEntry.from_json`), and every path or
URL it names checked to stay inside its folder or site."""
from __future__ import annotations

import json
import urllib.parse
from typing import Any

from skillsite.agent.catalog_format import FORMAT, FORMAT_VERSION
from skillsite.agent.entry import entry_problem
from skillsite.agent.errors import CatalogFormatError, UnsafePathError, UnsupportedVersionError


def parse_manifest(body: bytes, where: str) -> dict[str, Any]:
    """Decode and check a manifest; CatalogFormatError / UnsupportedVersionError on problems."""
    try:
        data = json.loads(body)
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
    check_manifest(data, where)
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
    skills = data.get("skills")
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


def safe_relpath(path: str, what: str) -> str:
    """A normalised relative POSIX path, or UnsafePathError if it could escape its folder."""
    if not isinstance(path, str) or not path or "\x00" in path or "\\" in path:
        raise UnsafePathError(f"{what} {path!r} is not a plain relative path")
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        raise UnsafePathError(f"{what} {path!r} is absolute")
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        raise UnsafePathError(f"{what} {path!r} escapes its folder")
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
