"""Whether a skill can run on this machine: binaries on PATH, environment variables, platform."""
from __future__ import annotations

import os
import shutil
import sys
from typing import Any, Mapping


def current_platform(name: str | None = None) -> str:
    """``sys.platform`` mapped to the catalog's names: linux, darwin or windows."""
    name = name or sys.platform
    if name.startswith("linux"):
        return "linux"
    if name.startswith(("win", "cygwin", "msys")):
        return "windows"
    return name


def ineligible_reasons(entry: Mapping[str, Any], env: Mapping[str, str] | None = None,
                       platform: str | None = None, _which: dict[str, bool] | None = None) -> list[str]:
    """Why a skill cannot run here (missing binaries, unset variables, other platform); [] if it can.

    Binaries are looked up with ``shutil.which`` on ``env["PATH"]``; a variable counts as set
    when it is present and non-empty in ``env`` (default ``os.environ``).  ``_which`` keeps
    lookups across calls (a prompt checks every skill).
    """
    env = os.environ if env is None else env
    found = {} if _which is None else _which
    req = entry.get("requirements") or {}
    reasons = []
    for binary in req.get("bins") or ():
        if binary not in found:
            found[binary] = shutil.which(binary, path=env.get("PATH", os.defpath)) is not None
        if not found[binary]:
            reasons.append(f"needs '{binary}' on PATH")
    reasons += [f"needs ${name} set" for name in req.get("env") or () if not env.get(name)]
    platforms = req.get("platforms") or []
    here = current_platform(platform)
    if platforms and here not in platforms:
        reasons.append(f"runs on {', '.join(platforms)}, not {here}")
    return reasons
