"""Reading a ``skills.json`` safely: the top level and every entry checked before use, and
every path or URL it names checked to stay inside its folder or site."""
from __future__ import annotations

import json
import urllib.parse
from typing import Any

from skillsite.agent.catalog_format import FORMAT, FORMAT_VERSION
from skillsite.agent.errors import CatalogFormatError, UnsafePathError, UnsupportedVersionError

_HEX = frozenset("0123456789abcdef")


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
        raise CatalogFormatError(f"{where} is not valid JSON: {exc.msg} at line {exc.lineno} "
                                 f"column {exc.colno}{hint}") from None
    except RecursionError:
        raise CatalogFormatError(f"{where} nests too deeply to be a catalog") from None
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
    for index, entry in enumerate(skills):
        if not (isinstance(entry, dict) and isinstance(entry.get("id"), str) and entry["id"]
                and isinstance(entry.get("name"), str) and isinstance(entry.get("description"), str)):
            raise CatalogFormatError(f"{where}: skills[{index}] {entry_problem(entry) or 'is malformed'}")


def is_hex_sha256(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 64 and _HEX.issuperset(value)


def entry_problem(entry: Any) -> str | None:
    """What is wrong with one manifest entry, or None."""
    if not isinstance(entry, dict):
        return "is not an object"
    for key in ("id", "name", "description"):
        if not isinstance(entry.get(key), str) or not entry[key]:
            return f"has no {key}"
    if not is_hex_sha256(entry.get("sha256")):
        return f"({entry['id']}) has no valid sha256"
    urls = entry.get("urls")
    if not isinstance(urls, dict) or not all(isinstance(urls.get(k), str) for k in ("skill_md", "files")):
        return f"({entry['id']}) has no urls.skill_md / urls.files"
    files = entry.get("files")
    if not isinstance(files, list) or not all(
            isinstance(f, dict) and isinstance(f.get("path"), str) and is_hex_sha256(f.get("sha256"))
            for f in files):
        return f"({entry['id']}) has malformed files"
    if not isinstance(entry.get("visibility"), dict) or not isinstance(entry.get("requirements"), dict):
        return f"({entry['id']}) has no visibility / requirements"
    return None


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
