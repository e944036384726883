"""Configuration: the optional ``skillsite.yml`` and the command-line flags that override it."""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillsite.agent.prompt_xml import SMALLEST_BUDGET
from skillsite.config_sections import audit_problem, copies_problem, marketplace_problem, signing_problem
from skillsite.diagnostics import CODES, Diagnostic, make


CONFIG_NAMES = ("skillsite.yml", "skillsite.yaml")
DEFAULT_PROMPT_BUDGET = 30_000
#: Above this many skills the catalog's big files are published in pieces fetched on demand
#: (skills.json pages and per-skill entries, search shards, paginated listings): at 2,000 skills
#: skills.json is about 4 MB and the browser's lunr index about 2 MB, the most a page should load.
DEFAULT_SHARD_ABOVE = 2_000


@dataclass(frozen=True)
class SiteConfig:
    """Everything a build needs to know besides the skills themselves."""

    title: str = "Agent skills"
    description: str = ""
    base_url: str = ""               # absolute URL the site is published at ("" = relative links only)
    repo_url: str = ""               # e.g. https://github.com/org/skills, for source and edit links
    branch: str = "main"
    sources: tuple[str, ...] = ()    # source roots, relative to the config file
    exclude: tuple[str, ...] = ()
    profile: str = "default"
    strict: bool = False
    ignore: tuple[str, ...] = ()
    prompt_budget: int = DEFAULT_PROMPT_BUDGET
    shard_above: int = DEFAULT_SHARD_ABOVE   # more skills than this: skills.json, search and listings in pieces
    max_bytes: int = 1024 * 1024
    templates: str = ""              # folder of template overrides
    knowledge_dir: str = ""          # folder of shared knowledge documents ("" = knowledge/ in the first source)
    marketplace: dict[str, Any] = field(default_factory=dict)  # name, owner, description, version
    audit: dict[str, Any] = field(default_factory=dict)        # ignore (suppressions), fail_on
    signing: dict[str, Any] = field(default_factory=dict)      # expires (the key comes from the command line)
    copies: dict[str, Any] = field(default_factory=dict)       # group, similarity, prefer, apart, versions
    config_path: str = ""            # where the configuration was read from ("" = none)

    def with_overrides(self, **values: Any) -> "SiteConfig":
        """A copy with every non-None value replaced (command-line flags win)."""
        return dataclasses.replace(self, **{k: v for k, v in values.items() if v is not None})


_FIELD_TYPES: dict[str, type | tuple[type, ...]] = {
    "title": str, "description": str, "base_url": str, "repo_url": str, "branch": str,
    "sources": list, "exclude": list, "profile": str, "strict": bool, "ignore": list,
    "prompt_budget": int, "shard_above": int, "max_bytes": int, "templates": str, "knowledge_dir": str,
    "marketplace": dict, "audit": dict, "signing": dict, "copies": dict,
}


class ConfigError(Exception):
    """The configuration file cannot be used; carries its diagnostics."""

    def __init__(self, diagnostics: list[Diagnostic]):
        super().__init__("; ".join(d.message for d in diagnostics))
        self.diagnostics = diagnostics


def find_config(start: Path) -> Path | None:
    """``skillsite.yml`` in ``start``, if there is one."""
    for name in CONFIG_NAMES:
        candidate = start / name
        if candidate.is_file():
            return candidate
    return None


#: The largest configuration read (a skillsite.yml is a few lines).
MAX_CONFIG_BYTES = 1024 * 1024


def _read_yaml(path: Path) -> tuple[dict[str, Any], dict[str, tuple[int, int]]]:
    """The mapping in a configuration file and the line of each key; ConfigError when unreadable."""
    from skillsite.source.frontmatter import parse_frontmatter_text
    from skillsite.source.frontmatter_yaml import FrontmatterError

    from skillsite.bounded import read_limited

    try:
        raw, _size = read_limited(path, MAX_CONFIG_BYTES)   # never /dev/zero read to its end
        if len(raw) > MAX_CONFIG_BYTES:
            raise ConfigError([make("SK401", f"the configuration is over {MAX_CONFIG_BYTES:,} bytes", str(path))])
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError([make("SK401", f"cannot read configuration: {exc}", str(path))]) from None
    if not text.strip():
        return {}, {}
    try:
        data, lines, found = parse_frontmatter_text(text, str(path), line_offset=0)
    except FrontmatterError as exc:  # the reader of a SKILL.md's frontmatter says "frontmatter is ..."
        message = exc.message.replace("frontmatter", "the configuration", 1)
        raise ConfigError([make("SK401", message, str(path), exc.line, exc.col)]) from None
    # A key written twice (a merge's leftover, often) would decide the catalog unseen: refused, as
    # GitHub Actions refuses it in a workflow, rather than the last one winning.
    twice = [make("SK401", d.message.replace("the last value wins", "write it once"), str(path), d.line, d.col)
             for d in found if d.code == "SK112"]
    if twice:
        raise ConfigError(twice)
    return data, lines


def _checked_value(key: str, value: Any) -> tuple[Any, str | None]:
    """A configuration value as :class:`SiteConfig` holds it, or what is wrong with it."""
    expected = _FIELD_TYPES.get(key)
    if expected is None:
        return None, f"unknown configuration key '{key}' (known: {', '.join(sorted(_FIELD_TYPES))})"
    if expected is list and isinstance(value, str):
        value = [value]
    if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
        return None, f"'{key}' must be {getattr(expected, '__name__', expected)}, not {type(value).__name__}"
    if expected is list:
        if not all(isinstance(v, str) for v in value):
            return None, f"'{key}' must be a list of strings"
        value = tuple(value)
    if key == "profile" and value not in ("default", "spec"):
        return None, "'profile' must be 'default' or 'spec'"
    if key in COUNTS and value < 1:
        return None, f"'{key}' must be at least 1, not {value}"
    if key == "prompt_budget" and value < SMALLEST_BUDGET:
        return None, (f"'prompt_budget' must be at least {SMALLEST_BUDGET} (the empty <available_skills> block), "
                      f"not {value}")
    if key == "base_url" and value and (problem := base_url_problem(value)):
        return None, f"'base_url' {problem}"
    if key == "repo_url" and value and not re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", value):
        return None, f"'repo_url' must be an http:// or https:// URL of the repository, not {value!r}"
    if key == "audit":
        return (None, problem) if (problem := audit_problem(value)) else (value, None)
    if key == "marketplace":
        return (None, problem) if (problem := marketplace_problem(value)) else (value, None)
    if key == "signing":
        return (None, problem) if (problem := signing_problem(value)) else (value, None)
    if key == "copies":
        return (None, problem) if (problem := copies_problem(value)) else (value, None)
    if key == "ignore" and any(c not in CODES for c in value):
        return None, f"'ignore' names unknown codes: {', '.join(c for c in value if c not in CODES)}"
    return value, None


#: A base URL as every page, sitemap and install line joins paths to it: http(s), a host and an
#: optional port, no credentials, then a path of visible ASCII without a query or fragment (the
#: schema's ``base_url`` pattern says the same).
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
#: A path's characters as RFC 3986 allows them (unreserved, sub-delimiters, ":", "@", "%XX").
_PATH_CHAR = r"(?:[A-Za-z0-9._~!$&'()*+,;=:@/-]|%[0-9A-Fa-f]{2})"
#: ``http(s)://host[:port][/path]``: a host of labels (or an IPv6 address in brackets), a path not
#: starting with "//" (the pages' links would name another host: "//docs/assets/...").
BASE_URL = re.compile(rf"https?://(?:{_LABEL}(?:\.{_LABEL})*\.?|\[[0-9A-Fa-f:.]+\])(?::([0-9]{{1,5}}))?"
                      rf"(?:/(?!/){_PATH_CHAR}*)?")


def base_url_problem(text: str) -> str | None:
    """Why ``text`` cannot be the catalog's base URL (None when it can)."""
    match = BASE_URL.fullmatch(text)
    if match and int(match.group(1) or 0) <= 65535:
        return None
    return (f"must be an http:// or https:// URL with a host (and a port up to 65535), without credentials, "
            f"'?' or '#', a path not starting with '//', and any space or other character percent-encoded, "
            f"not {text!r}")


#: The settings that count something: at least 1 (a negative budget or page size means nothing).
COUNTS = ("prompt_budget", "shard_above", "max_bytes")


#: The quoted key path a section's problem starts with (:mod:`skillsite.config_sections`).
_PROBLEM_FIELD = re.compile(r"'([A-Za-z_]+(?:\.[A-Za-z_]+)+)'")


def _field_of(problem: str, key: str) -> str:
    """The key a problem of section ``key`` is about: the path it starts with, else the section."""
    match = _PROBLEM_FIELD.match(problem)
    return match.group(1) if match and match.group(1).startswith(f"{key}.") else key


def load_config(path: Path) -> SiteConfig:
    """Read a ``skillsite.yml``; unknown keys and wrong types are errors with their line."""
    data, lines = _read_yaml(path)
    values: dict[str, Any] = {}
    diags = []
    for key, raw in data.items():
        value, problem = _checked_value(key, raw)
        if problem is None:
            values[key] = value
        else:
            diags.append(make("SK401", problem, str(path), *lines.get(_field_of(problem, key), lines.get(key, (1, 1)))))
    for key in ("templates", "knowledge_dir"):  # relative to the configuration file
        if values.get(key):
            values[key] = str(path.parent / values[key])
            # templates must be there; a knowledge folder yet to be made is said of each document (SK218)
            if not Path(values[key]).is_dir() and (key == "templates" or Path(values[key]).exists()):
                diags.append(make("SK401", f"'{key}' names no folder: {values[key]}", str(path),
                                  *lines.get(key, (1, 1))))
    if diags:
        raise ConfigError(diags)
    if "sources" in values:  # relative to the configuration file
        values["sources"] = tuple(str(path.parent / s) for s in values["sources"])
    return SiteConfig(config_path=str(path), **values)


def builtin_templates() -> Path:
    """The packaged templates: ``skillsite/templates`` in a wheel, ``templates/`` in a checkout."""
    package = Path(__file__).resolve().parent
    for candidate in (package / "templates", package.parent / "templates"):
        if (candidate / "base.html").is_file():
            return candidate
    raise FileNotFoundError("skillsite's templates folder is missing from the installation")


def template_dirs(override: str = "") -> list[Path]:
    """Template folders in lookup order: the user's override folder first, if any."""
    return ([Path(override)] if override else []) + [builtin_templates()]
