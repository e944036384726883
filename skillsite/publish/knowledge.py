"""Publishing knowledge documents: each declared document once, under ``knowledge/``, and its
record (path, title, size, sha256, URL) in the manifest entry of every skill that names it."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from skillsite.models import Skill
from skillsite.publish.manifest import sha256_hex
from skillsite.publish.staging import Staging
from skillsite.source.knowledge import MAX_DOCUMENT_BYTES, Listings, document_title, knowledge_links, locate
from skillsite.bounded import read_limited
from skillsite.agent.site_urls import url_of

KNOWLEDGE_FOLDER = "knowledge/"


@dataclass
class Knowledge:
    """The documents of a catalog: each skill's records, and each document's bytes and sha256 by path."""

    records: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    documents: dict[str, tuple[bytes, str]] = field(default_factory=dict)
    #: skill id -> how links from its folder name the shared documents it publishes -> their paths
    links: dict[str, dict[str, str]] = field(default_factory=dict)

    def write(self, staging: Staging) -> None:
        """Every document under ``knowledge/`` (left in place when unchanged)."""
        for path, (data, sha) in sorted(self.documents.items()):
            staging.write_keyed(KNOWLEDGE_FOLDER + path, sha, lambda data=data: data)


def knowledge_url(path: str) -> str:
    """Site-relative, percent-encoded URL of a published document."""
    return url_of(KNOWLEDGE_FOLDER + path)


def read_knowledge(skills: Sequence[Skill], knowledge_dir: Path | None) -> Knowledge:
    """Each skill's usable documents (the check reported the others), each read once."""
    found = Knowledge()
    records_by_path: dict[str, dict[str, Any]] = {}
    listings: Listings = {}
    for skill in skills:
        records, listed = [], set()
        bundled = frozenset(f.path for f in skill.source.files)
        for declared in skill.knowledge:
            doc = locate(declared, skill.id, skill.source.dir, knowledge_dir, bundled, listings)
            if isinstance(doc, str) or doc.path in listed:  # unusable, or named again
                continue
            listed.add(doc.path)
            if doc.path not in records_by_path:
                try:
                    data, _ = read_limited(Path(doc.file), MAX_DOCUMENT_BYTES)
                except OSError:  # gone since it was checked: the next build reports it
                    continue
                if len(data) > MAX_DOCUMENT_BYTES:  # grew past the limit since it was checked
                    continue
                found.documents[doc.path] = (data, sha256_hex(data))
                records_by_path[doc.path] = {"path": doc.path, "title": document_title(data, doc.path),
                                             "size": len(data), "sha256": found.documents[doc.path][1],
                                             "url": knowledge_url(doc.path)}
            records.append(dict(records_by_path[doc.path]))
        if records:
            found.records[skill.id] = records
            published = {r["path"] for r in records}
            declared = knowledge_links(skill.knowledge, skill.source.dir, knowledge_dir)
            links = {link: path for link, path in declared.items() if path in published}
            if links:
                found.links[skill.id] = links
    return found
