"""Whether a skill can run on this machine: binaries on PATH, environment variables, platform."""
from __future__ import annotations

import os
import shutil
import sys
from collections import deque
from typing import Iterable, Mapping

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
    lookups across calls (a prompt checks every skill).  A name no system can hold (a NUL, a
    lone surrogate: a catalog may say anything) is never found.
    """
    env = os.environ if env is None else env
    found = {} if _which is None else _which
    req = entry.requirements
    reasons = []
    for binary in req.bins:
        if binary not in found:
            found[binary] = _on_path(binary, env.get("PATH", os.defpath))
        if not found[binary]:
            reasons.append(f"needs '{_shown(binary)}' on PATH")
    reasons += [f"needs ${_shown(name)} set" for name in req.env if not _is_set(env, name)]
    here = current_platform(platform)
    if req.platforms and here not in req.platforms:
        reasons.append(f"runs on {', '.join(req.platforms)}, not {here}")
    return reasons


def _on_path(binary: str, path: str) -> bool:
    try:
        return shutil.which(binary, path=path) is not None
    except (ValueError, UnicodeError, OSError):  # a NUL, a lone surrogate, a name too long
        return False


def _is_set(env: Mapping[str, str], name: str) -> bool:
    try:
        return bool(env.get(name))
    except (ValueError, UnicodeError):
        return False


def _shown(name: str) -> str:
    """A name as a reason quotes it: what UTF-8 cannot hold escaped."""
    return name.encode("utf-8", "backslashreplace").decode("utf-8")


#: A reason quoting a dependency's reason is cut to this length (a chain of skills would repeat
#: every reason down the chain).
MAX_REASON = 300


def _needs(dependency: str, reasons: list[str] | None) -> str:
    """The reason a skill is kept off by a dependency (``reasons``: the dependency's; None: not in the catalog)."""
    if reasons is None:
        return f"needs {dependency}, which is not in this catalog"
    text = f"needs {dependency}, which is ineligible: {reasons[0]}"
    return text if len(text) <= MAX_REASON else text[:MAX_REASON - 1] + "…"


def with_dependencies(entries: Iterable[ManifestEntry], own: Mapping[str, list[str]]) -> dict[str, list[str]]:
    """Each skill's reasons (``own``, by id) and, after them, one for each dependency that is
    ineligible here (for any reason, its own dependencies' included) or missing from the catalog.

    Worked out from the ineligible skills to those that need them (breadth first, so each
    reason names the shortest chain): linear, and a cycle (a tampered catalog) stops it."""
    by_id = {e.id: e for e in entries}
    needed_by: dict[str, list[str]] = {}
    total = {sid: list(own.get(sid, [])) for sid in by_id}
    for sid, entry in by_id.items():
        for dep in dict.fromkeys(d.id for d in entry.dependencies):
            needed_by.setdefault(dep, []).append(sid)
            if dep not in by_id:
                total[sid].append(_needs(dep, None))
    queue = deque(sid for sid, reasons in total.items() if reasons)
    while queue:
        dep = queue.popleft()
        for sid in needed_by.get(dep, ()):
            if sid == dep:
                continue
            if not total[sid]:
                queue.append(sid)
            total[sid].append(_needs(dep, total[dep]))
    return total
