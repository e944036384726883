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

    def __init__(self, target: Path):
        self.target = target.absolute()
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

    def write_bytes(self, rel: str, data: bytes) -> None:
        self.file(rel).write_bytes(data)

    def write_text(self, rel: str, text: str) -> None:
        self.write_bytes(rel, text.encode("utf-8"))

    def write_json(self, rel: str, data: Any) -> bytes:
        payload = (json.dumps(data, indent=1, ensure_ascii=False, sort_keys=False) + "\n").encode("utf-8")
        self.write_bytes(rel, payload)
        return payload

    def copy_hashing(self, source: Path, rel: str) -> tuple[int, str]:
        """Copy a file into the staging folder, returning its size and sha256."""
        digest = hashlib.sha256()
        size = 0
        with open(source, "rb") as src, open(self.file(rel), "wb") as dst:
            while chunk := src.read(CHUNK):
                digest.update(chunk)
                dst.write(chunk)
                size += len(chunk)
        return size, digest.hexdigest()

    def size(self) -> int:
        """Total bytes written so far."""
        return sum(f.stat().st_size for f in self.path.rglob("*") if f.is_file())

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
