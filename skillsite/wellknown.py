"""The Agent Skills discovery index (RFC v0.2): ``.well-known/agent-skills/index.json``.

Skills without bundled files are listed as ``skill-md`` (their raw SKILL.md); others as
deterministic ``.tar.gz`` archives with ``SKILL.md`` at the root: sorted entries, fixed
times and owners, no links, no ``./`` prefix, USTAR headers (which fail instead of
silently cutting long names).
"""
from __future__ import annotations

import gzip
import io
import re
import tarfile
from pathlib import Path
from typing import Any, Sequence

INDEX_PATH = ".well-known/agent-skills/index.json"
ARCHIVE_DIR = ".well-known/agent-skills/archives"
DISCOVERY_SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
NAME_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def listable(entry: dict[str, Any]) -> bool:
    """Installers accept only specification names and descriptions up to 1,024 characters."""
    return (bool(NAME_PATTERN.match(entry["name"])) and len(entry["name"]) <= 64
            and 0 < len(entry["description"]) <= 1024)


def deterministic_tar_gz(members: Sequence[tuple[str, Path]], mtime: int) -> bytes:
    """A .tar.gz of ``(archive path, file)`` pairs that depends only on their content and ``mtime``."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for name, source in sorted(members):
            data = source.read_bytes()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = mtime
            info.mode = 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.type = tarfile.REGTYPE
            tar.addfile(info, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=mtime, compresslevel=6) as gz:
        gz.write(raw.getvalue())
    return out.getvalue()


def discovery_entry(name: str, description: str, kind: str, url: str, sha256: str) -> dict[str, str]:
    """One skill in the discovery index; ``sha256`` (hex) is the listed artifact's."""
    return {"name": name, "type": kind, "description": description, "url": url, "digest": "sha256:" + sha256}


def index_document(entries: list[dict[str, str]]) -> dict[str, Any]:
    return {"$schema": DISCOVERY_SCHEMA, "skills": entries}
