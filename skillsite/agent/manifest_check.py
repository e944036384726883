"""Reading a ``skills.json`` safely: the top level and every entry checked before use, and
every path or URL it names checked to stay inside its folder or site."""
from __future__ import annotations

import json
import urllib.parse
from typing import Any, Callable

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


def is_hex_sha256(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 64 and _HEX.issuperset(value)


def entry_problem(entry: Any) -> str | None:
    """What is wrong with one manifest entry, or None: every field the loader reads is checked,
    so a hostile entry is refused here instead of failing wherever it is used."""
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
    if not _is_files(entry.get("files")):
        return f"({entry['id']}) has malformed files"
    if not isinstance(entry.get("visibility"), dict) or not isinstance(entry.get("requirements"), dict):
        return f"({entry['id']}) has no visibility / requirements"
    problem = next((f"malformed {key}" for key, ok in _FIELD_CHECKS if key in entry and not ok(entry[key])), None)
    problem = problem or _requirements_problem(entry["requirements"])
    return f"({entry['id']}) has {problem}" if problem else None


def is_size(value: Any) -> bool:
    """A byte count: a non-negative integer (JSON true and false are not)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def is_strings(value: Any) -> bool:
    """A list of strings, as the manifest's ``strings`` type."""
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _is_files(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(f, dict) and isinstance(f.get("path"), str) and is_hex_sha256(f.get("sha256"))
        and ("bytes" not in f or is_size(f["bytes"])) for f in value)


def _is_visibility(value: Any) -> bool:
    return (all(isinstance(value.get(k), bool) for k in ("hidden", "user_invocable_only", "always"))
            and isinstance(value.get("user_invocable", True), bool))


def _is_size_record(value: Any) -> bool:
    return isinstance(value, dict) and ("bytes" not in value or is_size(value["bytes"]))


def _is_priority(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_tools(value: Any) -> bool:
    return isinstance(value, list) and all(not isinstance(t, dict) or isinstance(t.get("name", ""), str)
                                           for t in value)


# Fields an entry may leave out (visibility aside) but not get wrong: (key, check).
_FIELD_CHECKS: tuple[tuple[str, Callable[[Any], bool]], ...] = (
    ("visibility", _is_visibility), ("size", _is_size_record), ("children", is_strings),
    ("allowed-tools", is_strings), ("priority", _is_priority), ("tools", _is_tools),
)


def _requirements_problem(requirements: dict[str, Any]) -> str | None:
    """Which requirement list is malformed (each is a list of strings when present), or None."""
    bad = next((k for k in ("bins", "env", "platforms") if k in requirements and not is_strings(requirements[k])),
               None)
    return f"malformed requirements.{bad}" if bad else None


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
