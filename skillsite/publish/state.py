"""What a build leaves for the next one, beside the cache: a small JSON state file.

It says what the last build read (a digest of every input's size and modification time),
what it published (a digest of its output's files, and the content key of each keyed file:
see :class:`~skillsite.publish.staging.Staging`), and its result.  A rebuild whose inputs and
output are both as the last build left them stops after discovery and reports that result.

An input changed within two seconds of a build may change again within the file system's
timestamp granularity and keep its stamp: when one is that recent, the build records no input
digest, and the next build reads everything again.
"""
from __future__ import annotations

import importlib.util
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillsite.cache import RACY_NS, digest, make_cache_folder
from skillsite.diagnostics import Diagnostic
from skillsite.publish.staging import Recorded, snapshot
from skillsite.source.discover import Discovery

STATE_FILE = "build-state.json"
FORMAT = "skillsite-build-state 7"


@dataclass(frozen=True)
class BuildState:
    """What a build published, and from which inputs."""

    scope: str                          # skillsite and the configuration (the cache's scope)
    out: str                            # the output folder (absolute): a state is for one output
    inputs: str                         # digest of every input's stamp ("" when one was too recent)
    output: str                         # digest of the output's files as published
    outputs: dict[str, Recorded]        # content key, size and mtime of every keyed file of the output
    back: dict[str, Recorded]           # the same of the catalog it replaced (in the cache's back folder)
    published: tuple[str, ...]
    skipped: tuple[str, ...]
    diagnostics: tuple[Diagnostic, ...]
    output_bytes: int
    budget: tuple[dict[str, Any], ...] = ()   # how the catalog fits agents' listings (BuildResult.budget)

    def unchanged(self, inputs: str, out: Path) -> bool:
        """Whether every input and the output are as this build left them."""
        return bool(self.inputs) and self.inputs == inputs and current_output_digest(out) == self.output

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "scope": self.scope, "out": self.out, "inputs": self.inputs, "output": self.output,
                "outputs": self.outputs, "back": self.back, "published": self.published, "skipped": self.skipped,
                "diagnostics": [d.to_json() for d in self.diagnostics], "output_bytes": self.output_bytes,
                "budget": list(self.budget)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BuildState:
        outputs, back = ({rel: (key, size, mtime) for rel, (key, size, mtime) in data[name].items()}
                         for name in ("outputs", "back"))
        return cls(data["scope"], data["out"], data["inputs"], data["output"], outputs, back, tuple(data["published"]),
                   tuple(data["skipped"]), tuple(Diagnostic.from_json(d) for d in data["diagnostics"]),
                   data["output_bytes"], tuple(data["budget"]))


def output_digest(files: dict[str, tuple[int, int]]) -> str:
    """A digest of an output's :func:`~skillsite.publish.staging.snapshot`."""
    return digest(sorted(files.items()))


def current_output_digest(out: Path) -> str:
    """:func:`output_digest` of the folder as it is now ("" when it cannot be listed)."""
    try:
        return output_digest(snapshot(out))
    except OSError:
        return ""


def inputs_digest(found: Discovery, settings: Any, templates: list[tuple[str, int, int]], since_ns: int) -> str:
    """A digest of every input as discovery saw it (where each skill is, its SKILL.md's and
    bundled files' sizes and times), of the templates' stamps and of ``settings``; "" when an
    input changed at or after ``since_ns``."""
    stamps = [s.stamp for s in found.sources] + [(f.bytes, f.mtime_ns) for s in found.sources for f in s.files]
    if any(mtime_ns >= since_ns for _, mtime_ns in stamps) or any(t[2] >= since_ns for t in templates):
        return ""
    inputs = [(s.id, s.display_path, s.rel_path, str(s.root), str(s.dir), s.parent_id, s.stamp,
               [(f.path, f.abspath, f.bytes, f.mtime_ns) for f in s.files]) for s in found.sources]
    return digest(settings, templates, inputs, [d.to_json() for d in found.diagnostics])


def library_stamps(*modules: str) -> list[tuple[str, int, int]]:
    """Where each library is installed, with its package file's size and time: a changed
    installation changes them (without importing the library)."""
    stamps = []
    for name in modules:
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec is not None and spec.origin else ""
        st = os.stat(origin) if origin else None
        stamps.append((origin, st.st_size if st else 0, st.st_mtime_ns if st else 0))
    return stamps


def load_state(folder: Path, scope: str, out: Path) -> BuildState | None:
    """The state the last build left in ``folder``, if it is of this scope, of the output ``out``
    (a cache folder shared by two outputs) and readable."""
    try:
        data = json.loads((folder / STATE_FILE).read_text(encoding="utf-8"))
        if data.get("format") != FORMAT or data.get("scope") != scope or data.get("out") != str(out.absolute()):
            return None
        return BuildState.from_json(data)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def save_state(folder: Path, state: BuildState) -> None:
    """Write the state file atomically; OSError (naming the file) when it cannot be written."""
    make_cache_folder(folder)
    fd, tmp = tempfile.mkstemp(prefix=".state-", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(state.to_json(), ensure_ascii=False))
        os.replace(tmp, folder / STATE_FILE)
    except OSError as exc:
        os.unlink(tmp)
        raise OSError(exc.errno, exc.strerror, exc.filename or str(folder / STATE_FILE)) from exc


def racy_since(started_ns: int) -> int:
    """Inputs changed at or after this time (nanoseconds) are too recent to trust their stamps."""
    return started_ns - RACY_NS
