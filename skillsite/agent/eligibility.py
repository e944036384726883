"""Whether a skill can run on this machine: binaries on PATH, environment variables, platform."""
from __future__ import annotations

import os
import shutil
import sys
from typing import Mapping

from skillsite.agent.entry import ManifestEntry


def current_platform(name: str | None = None) -> str:
    """``sys.platform`` mapped to the catalog's names: linux, darwin or windows."""
    name = name or sys.platform
    if name.startswith("linux"):
        return "linux"
    if name.startswith(("win", "cygwin", "msys")):
        return "windows"
    return name


def ineligible_reasons(entry: ManifestEntry, env: Mapping[str, str] | None = None,
                       platform: str | None = None, _which: dict[str, bool] | None = None) -> list[str]:
    """Why a skill cannot run here (missing binaries, unset variables, other platform); [] if it can.

    Binaries are looked up with ``shutil.which`` on ``env["PATH"]``; a variable counts as set
    when it is present and non-empty in ``env`` (default ``os.environ``).  ``_which`` keeps
    lookups across calls (a prompt checks every skill).
    """
    env = os.environ if env is None else env
    found = {} if _which is None else _which
    req = entry.requirements
    reasons = []
    for binary in req.bins:
        if binary not in found:
            found[binary] = shutil.which(binary, path=env.get("PATH", os.defpath)) is not None
        if not found[binary]:
            reasons.append(f"needs '{binary}' on PATH")
    reasons += [f"needs ${name} set" for name in req.env if not env.get(name)]
    here = current_platform(platform)
    if req.platforms and here not in req.platforms:
        reasons.append(f"runs on {', '.join(req.platforms)}, not {here}")
    return reasons
