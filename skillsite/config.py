"""Configuration: the optional ``skillsite.yml`` and the command-line flags that override it."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillsite.diagnostics import CODES, Diagnostic, make

CONFIG_NAMES = ("skillsite.yml", "skillsite.yaml")
DEFAULT_PROMPT_BUDGET = 30_000


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
    max_bytes: int = 1024 * 1024
    templates: str = ""              # folder of template overrides
    config_path: str = ""            # where the configuration was read from ("" = none)

    def with_overrides(self, **values: Any) -> "SiteConfig":
        """A copy with every non-None value replaced (command-line flags win)."""
        return dataclasses.replace(self, **{k: v for k, v in values.items() if v is not None})


_FIELD_TYPES: dict[str, type | tuple[type, ...]] = {
    "title": str, "description": str, "base_url": str, "repo_url": str, "branch": str,
    "sources": list, "exclude": list, "profile": str, "strict": bool, "ignore": list,
    "prompt_budget": int, "max_bytes": int, "templates": str,
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


def load_config(path: Path) -> SiteConfig:
    """Read a ``skillsite.yml``; unknown keys and wrong types are errors with their line."""
    from skillsite.parse import FrontmatterError, parse_frontmatter_text

    shown = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError([make("SK401", f"cannot read configuration: {exc}", shown)]) from None
    if not text.strip():
        return SiteConfig(config_path=shown)
    try:
        data, lines, _ = parse_frontmatter_text(text, shown, line_offset=0)
    except FrontmatterError as exc:
        raise ConfigError([make("SK401", exc.message, shown, exc.line, exc.col)]) from None
    diags = []
    values: dict[str, Any] = {}
    for key, value in data.items():
        line, col = lines.get(key, (1, 1))
        expected = _FIELD_TYPES.get(key)
        if expected is None:
            diags.append(make("SK401", f"unknown configuration key '{key}' (known: "
                                       f"{', '.join(sorted(_FIELD_TYPES))})", shown, line, col))
            continue
        if expected is list and isinstance(value, str):
            value = [value]
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            diags.append(make("SK401", f"'{key}' must be {getattr(expected, '__name__', expected)}, "
                                       f"not {type(value).__name__}", shown, line, col))
            continue
        if expected is list:
            if not all(isinstance(v, str) for v in value):
                diags.append(make("SK401", f"'{key}' must be a list of strings", shown, line, col))
                continue
            value = tuple(value)
        values[key] = value
    if values.get("profile", "default") not in ("default", "spec"):
        diags.append(make("SK401", "'profile' must be 'default' or 'spec'", shown, *lines.get("profile", (1, 1))))
    unknown_codes = [c for c in values.get("ignore", ()) if c not in CODES]
    if unknown_codes:
        diags.append(make("SK401", f"'ignore' names unknown codes: {', '.join(unknown_codes)}", shown,
                          *lines.get("ignore", (1, 1))))
    if diags:
        raise ConfigError(diags)
    base = path.parent
    if "sources" in values:
        values["sources"] = tuple(str(base / s) for s in values["sources"])
    if values.get("templates"):
        values["templates"] = str(base / values["templates"])
    return SiteConfig(config_path=shown, **values)


def builtin_templates() -> Path:
    """The packaged templates: ``skillsite/templates`` in a wheel, ``templates/`` in a checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "templates", here.parent / "templates"):
        if (candidate / "base.html").is_file():
            return candidate
    raise FileNotFoundError("skillsite's templates folder is missing from the installation")


def template_dirs(override: str = "") -> list[Path]:
    """Template folders in lookup order: the user's override folder first, if any."""
    dirs = [Path(override)] if override else []
    return dirs + [builtin_templates()]
