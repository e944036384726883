"""Output: a staging folder beside the target, swapped in only when the build succeeded."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

MARKER = ".skillsite-output"
CHUNK = 1 << 20


class OutputError(Exception):
    """The output folder cannot be used (exit 2: a usage problem, not a skill problem)."""


def is_previous_output(folder: Path) -> bool:
    """True when ``folder`` was written by skillsite (it holds the marker file)."""
    return (folder / MARKER).is_file()


def check_target(target: Path, force: bool) -> None:
    """Refuse to replace a non-empty folder that is not an earlier skillsite output."""
    if target.exists() and not target.is_dir():
        raise OutputError(f"{target} exists and is not a folder")
    if target.is_dir() and any(target.iterdir()) and not is_previous_output(target) and not force:
        raise OutputError(f"{target} is not empty and was not written by skillsite; "
                          "choose another folder or pass --force to replace it")


class Staging:
    """A temporary folder next to the target; ``commit`` swaps it in, ``discard`` removes it."""

    def __init__(self, target: Path, reuse: dict[str, tuple[str, int, int]] | None = None):
        self.target = target.absolute()
        # files of the previous output that may be hard-linked instead of written again:
        # site-relative path -> (content key, size, mtime_ns) as recorded after that build
        self.previous = reuse if reuse and is_previous_output(self.target) else {}
        self.keys: dict[str, str] = {}
        self.target.parent.mkdir(parents=True, exist_ok=True)
        self.path = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.building-", dir=self.target.parent))
        self._made: set[str] = {""}

    def file(self, rel: str) -> Path:
        """The staging path of a site-relative file, with its folder created."""
        parts = rel.split("/")
        if rel.startswith("/") or any(p in ("", ".", "..") for p in parts) or "\x00" in rel:
            raise OutputError(f"refusing to write outside the output folder: {rel!r}")
        folder = "/".join(parts[:-1])
        if folder not in self._made:
            os.makedirs(os.path.join(self.path, folder), exist_ok=True)
            self._made.add(folder)
        return self.path.joinpath(*parts)

    def write_bytes(self, rel: str, data: bytes, key: str | None = None) -> None:
        self.file(rel).write_bytes(data)
        if key:
            self.keys[rel] = key

    def reuse(self, rel: str, key: str) -> bool:
        """Hard-link ``rel`` from the previous output when it holds exactly the content ``key`` names.

        The previous file must still have the size and modification time recorded when it
        was published, so a copy edited by hand since is never reused.  Safe because no
        published file is ever modified in place: every build writes new files.
        """
        recorded = self.previous.get(rel)
        if recorded is None or recorded[0] != key:
            return False
        old = self.target.joinpath(*rel.split("/"))
        try:
            stat = os.stat(old, follow_symlinks=False)
            if (stat.st_size, stat.st_mtime_ns) != (recorded[1], recorded[2]) or not os.path.isfile(old):
                return False
            os.link(old, self.file(rel))
        except OSError:
            return False
        self.keys[rel] = key
        return True

    def published_keys(self, stats: dict[str, tuple[int, int]]) -> dict[str, tuple[str, int, int]]:
        """After ``commit``: content key, size and mtime of every keyed file, for the next build.

        ``stats`` are the size and mtime of every published file by site-relative path.
        """
        return {rel: (key, *stats[rel]) for rel, key in self.keys.items() if rel in stats}

    def write_text(self, rel: str, text: str) -> None:
        self.write_bytes(rel, text.encode("utf-8"))

    def write_json(self, rel: str, data: Any, compact: bool = False) -> bytes:
        """Write JSON: indented for people, or ``compact`` for big files that programs read."""
        text = (json.dumps(data, ensure_ascii=False, separators=(",", ":")) if compact
                else json.dumps(data, indent=1, ensure_ascii=False))
        payload = (text + "\n").encode("utf-8")
        self.write_bytes(rel, payload)
        return payload

    def copy_hashing(self, source: Path, rel: str) -> tuple[int, str]:
        """Copy a file into the staging folder, returning its size and sha256 (its content key)."""
        digest = hashlib.sha256()
        size = 0
        with open(source, "rb") as src, open(self.file(rel), "wb") as dst:
            while chunk := src.read(CHUNK):
                digest.update(chunk)
                dst.write(chunk)
                size += len(chunk)
        self.keys[rel] = digest.hexdigest()
        return size, self.keys[rel]

    def commit(self) -> None:
        """Swap the staging folder in place of the target; the old output is removed afterwards."""
        (self.path / MARKER).write_text("skillsite build output; safe to replace with a new build\n",
                                        encoding="utf-8")
        os.chmod(self.path, 0o755)
        old = None
        if self.target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.old-", dir=self.target.parent))
            os.rmdir(old)
            os.rename(self.target, old)
        os.rename(self.path, self.target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)

    def discard(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
