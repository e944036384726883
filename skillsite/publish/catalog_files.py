"""The catalog-wide files, made once every skill is published: ``skills.json`` and its schema (and
``skillsite.yml``'s), the discovery indexes (v0.2, and v0.1 with its file copies), the static
provider layout, the plugin marketplace and ``available_skills.xml``; and the search indexes, which
a worker makes and writes while the skills are published (they depend on the skills' frontmatter
only), but for a sharded index's cards and what pins them (they show the audit's risk:
:func:`search_section`)."""
from __future__ import annotations

import hashlib
from typing import Any, Mapping, Sequence

from skillsite import __version__
from skillsite.agent.budget import budget_fits, catalog_block_budget
from skillsite.agent.catalog_format import DEFAULT_MAX_RISK, offered_to_model, prompt_order, within_max_risk
from skillsite.agent.entry import ManifestEntry, Visibility
from skillsite.agent.manifest_pages import ROOT_PAGE_SIZE, entries_per_page
from skillsite.agent.prompt_xml import available_skills_xml
from skillsite.cache import KeptObjects, digest, kept_or_made
from skillsite.config import DEFAULT_PROMPT_BUDGET, DEFAULT_SHARD_ABOVE, SiteConfig
from skillsite.models import Skill
from skillsite.publish.manifest import (SCHEMA_FILE, CatalogDigest, absolute, catalog_digest, entries_json, hidden_by,
                                        indented_json, is_paged, manifest_bytes, page_size, paged_manifest_files,
                                        PageStore, sha256_hex, skill_dir_url, skill_triggers)
from skillsite.publish.skills import SkillPublishing
from skillsite.publish.staging import Link, Placed, Staging
from skillsite.publish.marketplace import MARKETPLACE_PATH, marketplace_json
from skillsite.publish.provider_layout import INDEX_NAME, skills_index_json
from skillsite.publish.wellknown import INDEX_PATH, LEGACY_INDEX_PATH, DiscoveryIndexes
from skillsite.search.bm25 import SEARCH_VERSION
from skillsite.search.lunr_index import build_indexes
from skillsite.search.shard_format import CARD_BUCKET, SHARDS_VERSION, card_path
from skillsite.search.shard_writer import Card, build_chunks, card_bucket, card_row, finish_shards
from skillsite.source.schema import load_schema

MANIFEST_FILE = "skills.json"
TUF_SCHEMA_FILE = "tuf.schema.json"
CONFIG_SCHEMA_FILE = "skillsite.schema.json"  # of skillsite.yml: for editors, at a URL the catalog serves
AVAILABLE_SKILLS_FILE = "available_skills.xml"


def search_entry(skill: Skill, group: tuple[str, int] | None = None) -> dict[str, Any]:
    """What search reads of a skill's manifest entry (see :func:`~skillsite.publish.manifest.skill_entry`):
    known before its files are published, so the indexes can be made meanwhile; ``listed`` says
    whether the browser's search finds it (not a hidden skill: see ``Visibility.listed``);
    ``group``: its group of copies' canonical member and size (the browser shows a group once)."""
    canonical, count = group or (skill.id, 1)
    return {"id": skill.id, "name": skill.name, "description": skill.description, "tags": list(skill.tags),
            "tools": [dict(t) for t in skill.tools], "priority": skill.priority,
            "triggers": skill_triggers(skill).to_json(),
            "urls": {"page": skill_dir_url(skill.id)},
            "listed": Visibility(hidden=skill.hidden, hidden_by=hidden_by(skill)).listed,
            "copy_of": canonical if canonical != skill.id else None, "copies": count}


#: Where a long-running process's resident objects keep the digest of each skill's search entry (by its id).
SEARCH_ENTRY_DIGEST = "search entry digest"


def search_digests(skills: Sequence[Skill], copies: Mapping[str, tuple[str, int]],
                   resident: KeptObjects | None = None) -> list[str]:
    """The digest of every skill's :func:`search_entry` (``copies``: each copy's group, by id), what
    :func:`search_key` reads; in a long-running process, the digest the last build made of this very
    skill (``serve`` keeps each unchanged skill) in the same group (:func:`~skillsite.cache.kept_or_made`):
    the key of the indexes is then worked out of the changed skills' entries alone, and no entry is
    kept (the workers make the entries again when the indexes are made)."""
    return [kept_or_made(resident, SEARCH_ENTRY_DIGEST, skill.id, skill, (group,),
                         lambda skill=skill, group=group: digest(search_entry(skill, group)))
            for skill in skills for group in [copies.get(skill.id)]]


#: What the cache keeps of the search indexes: their files are in the output, not in the cache.
#: 4: search/groups.json, docs.json's hidden_tags; 5: symbol terms ("🚀"); 6: NFC terms; 7: words
#: keep their combining marks ("हिन्दी", "สวัสดี"), in every index; 8: tag chunks folded as terms
#: (NFC too, not only lower-cased); 9: the lunr index holds the symbols written against a word
#: ("ready🚀"); 10: and the words of terms.words a word holds ("été" of "l'été", "v2" of "v2.0").
SEARCH_CACHE_FORMAT = 10


def search_key(digests: Sequence[str], shard_above: int = DEFAULT_SHARD_ABOVE) -> str:
    """What the search indexes are made of: the search entries whole (:func:`search_entry`: no
    body, no file, so a change to those reuses them; each list as a list, since the tag chunks
    and docs.json keep ``["a b"]`` apart from ``["a", "b"]``), by the digest of each, and whether
    they are sharded (``digests``: :func:`search_digests`)."""
    sharded = SHARDS_VERSION if len(digests) > shard_above else None
    return digest(__version__, SEARCH_VERSION, SEARCH_CACHE_FORMAT, sharded, list(digests))


def search_files(entries: Sequence[dict[str, Any]], shard_above: int = DEFAULT_SHARD_ABOVE
                 ) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The search indexes of ``entries`` (:func:`search_entry`): what describes them and the
    files, by site path.  Up to ``shard_above`` skills, skills.json's ``search`` section over
    every skill (the loader's search; described as ``section``) and the browser's lunr files
    over the listed ones (their refs are rows of docs.json); above it, the term and tag chunks
    of the sharded index (#29: :mod:`skillsite.search.shard_writer`) that both search, described
    by its meta file's object (``meta``) and their sha256 (``chunk_sha256``), from which
    :func:`search_section` makes the rest of it."""
    if len(entries) > shard_above:
        chunks = build_chunks(entries)
        return {"meta": chunks.meta, "chunk_sha256": chunks.digests()}, chunks.files
    indexes = build_indexes(entries, [e for e in entries if e["listed"]])
    return {"section": indexes.manifest_search}, indexes.files


def publish_search(job: SkillPublishing, key: str) -> tuple[dict[str, Any], list[Placed]]:
    """Make the search indexes of ``job``'s skills and write them into its staging folder (a
    worker does, beside the skills: the files never pass through the build's process); returns
    what the cache keeps of them under ``key`` (:func:`search_key`) and what was placed."""
    described, files = search_files([search_entry(s, job.copies.get(s.id)) for s in job.skills],
                                    job.config.shard_above)
    for rel, data in files.items():
        job.staging.write_keyed(rel, file_key(key, rel), lambda data=data: data)
    return {"key": key, **described, "files": sorted(files)}, job.staging.take_journal()


def keep_search(staging: Staging, kept: dict[str, Any] | None) -> dict[str, Any] | None:
    """The search indexes the cache describes (``kept``: what :func:`publish_search` returned),
    when every file of theirs can be taken as published (:meth:`Staging.keep`); else None."""
    if kept is None or not all(staging.keep(rel, file_key(kept["key"], rel)) for rel in kept["files"]):
        return None
    return kept


def file_key(key: str, rel: str) -> str:
    """The content key of search file ``rel`` of the indexes keyed ``key``."""
    return digest(key, rel)


#: Where a long-running process's resident objects keep each skill's result card (by its id).
SEARCH_CARD = "search card"


def search_section(staging: Staging, entries: Sequence[ManifestEntry], search: dict[str, Any],
                   resident: KeptObjects | None = None) -> dict[str, Any]:
    """skills.json's ``search`` section of the indexes ``search`` describes (what
    :func:`publish_search` returned).  For a sharded index, its other files are written first
    (each kept in place when its bytes are unchanged): the result cards of ``entries`` (the
    manifest's, audited), in its skill order (priority, then id), what a result shows and what
    searches filter on (listed, offered to a model, audit risk); the card-digest files; the
    digests file, which pins every chunk and card-digest file; and the meta file, which names
    the digests file.  In a long-running process, the card the last build made of this very entry
    (``serve`` keeps each unchanged one) with its canonical member at the same place is taken again."""
    if "meta" not in search:
        return search["section"]
    ordered = sorted(entries, key=lambda e: (-e.priority, e.id))
    number = {e.id: n for n, e in enumerate(ordered)}
    rows = [kept_or_made(resident, SEARCH_CARD, e.id, e, (copy_of,), lambda e=e, copy_of=copy_of: card_row(
                e.id, e.name, e.description, e.urls.page, e.tags, e.risk, e.visibility.listed,
                offered_to_model(e, copies_too=True), copy_of, e.copies.count if e.copies else 1))
            for e in ordered for copy_of in [number.get(e.visibility.copy_of or "", -1)]]
    buckets = kept_buckets(rows, search["meta"]["index"], resident)
    shards = finish_shards(search["meta"], search["chunk_sha256"], rows, buckets)
    known = {card_path(bucket): sha for bucket, (_, sha) in enumerate(buckets)}
    files = [(rel, known.get(rel) or hashlib.sha256(data).hexdigest(), data) for rel, data in shards.files.items()]
    for (rel, key, data), taken in zip(files, staging.keep_those_here([(rel, key) for rel, key, _ in files])):
        if not taken:
            staging.write_keyed(rel, key, lambda data=data: data)
    return shards.section


#: Where a long-running process's resident objects keep each card file of the search index (by its number).
CARD_FILE = "card file"


def kept_buckets(rows: Sequence[Card], index: str, resident: KeptObjects | None = None) -> list[tuple[bytes, str]]:
    """The card files of ``rows`` (:func:`~skillsite.search.shard_writer.card_buckets`); in a
    long-running process, each one the last build made of the very same cards for the same index
    is taken again (``serve`` keeps each unchanged skill's card, so an edit makes one or two files
    again, not a file per four skills)."""
    return [kept_or_made(resident, CARD_FILE, str(bucket), CARD_FILE, (index, cards),
                         lambda cards=cards, start=start: card_bucket(cards, index, start))
            for bucket, start in enumerate(range(0, len(rows), CARD_BUCKET))
            for cards in [tuple(rows[start:start + CARD_BUCKET])]]


def write_catalog_files(staging: Staging, config: SiteConfig, manifest: dict[str, Any],
                        discovery: DiscoveryIndexes, pages: PageStore | None = None) -> tuple[str, list[Link]]:
    """skills.json (``manifest``: :func:`~skillsite.publish.manifest.manifest`'s object, its
    digest left unset; a paged one takes from ``pages`` what an earlier build made), its schema,
    the discovery index and available_skills.xml (the search indexes' files come with the skills,
    :func:`publish_search`, and before the manifest, :func:`search_section`); returns the
    catalog's digest (worked out as skills.json is written) and the links to skill files the
    legacy discovery index lists, left for the caller to place (:func:`write_compatibility_files`)."""
    digest_of_entries = write_manifest(staging, config, manifest, pages)
    staging.write(SCHEMA_FILE, indented_json(load_schema(SCHEMA_FILE)))
    staging.write(CONFIG_SCHEMA_FILE, indented_json(load_schema(CONFIG_SCHEMA_FILE)))
    if manifest.get("signing"):
        staging.write(TUF_SCHEMA_FILE, indented_json(load_schema(TUF_SCHEMA_FILE)))
    write_document(staging, INDEX_PATH, discovery.index_json())
    ordered, withheld = offered_by_default(manifest["skills"])
    block = available_skills_xml(ordered, [absolute(config, e.urls.skill_md) for e in ordered],
                                 config.prompt_budget, withheld=len(withheld))
    staging.write(AVAILABLE_SKILLS_FILE, block.encode("utf-8"))
    return digest_of_entries, write_compatibility_files(staging, config, manifest["skills"], discovery)


#: Pages of fewer entries than this are cut by count: a catalog so small (a low ``shard_above``)
#: gains nothing from pages that end where their entries say.
CONTENT_CUT_FROM = 16


def most_on_a_page(config: SiteConfig, size: int) -> int:
    """The most entries a page of a paged ``skills.json`` holds when its pages hold ``size`` on
    average (:func:`~skillsite.publish.manifest.page_bounds`): half as many again, never more
    than ``shard_above``; ``size`` itself for small pages."""
    return size if size < CONTENT_CUT_FROM else page_size(config, size + size // 2)


def page_layout(config: SiteConfig, skills: int) -> tuple[int, int]:
    """The entries a page of a paged ``skills.json`` of ``skills`` holds on average and at the
    most (:func:`most_on_a_page`).  When ``shard_above`` leaves less room than half as many again
    (pages of 250, ``shard_above`` 260), the average is two thirds of the most: pages that could
    only grow by a few entries past their size would end at the most, by count, and a skill added
    would shift every page after its own again."""
    size = page_size(config, entries_per_page(skills))
    most = most_on_a_page(config, size)
    fitted = most * 2 // 3
    if most < size + size // 2 and fitted >= CONTENT_CUT_FROM:
        return fitted, most
    return size, most


def write_manifest(staging: Staging, config: SiteConfig, manifest: dict[str, Any],
                   pages: PageStore | None = None) -> str:
    """skills.json as one file, or, above ``shard_above`` skills, paged: its root, pages, their
    indexes and every skill's entry file (each kept in place when its bytes are unchanged; the
    entries made JSON a page at a time, unless ``pages`` holds the page); returns the catalog's
    digest."""
    entries = manifest["skills"]
    if not is_paged(len(entries), config):
        as_json = entries_json(entries)
        sha = catalog_digest(as_json)
        staging.write(MANIFEST_FILE, manifest_bytes({**manifest, "digest": sha}, as_json))
        return sha
    digest_of_entries = CatalogDigest()
    size, most = page_layout(config, len(entries))
    for rel, data in paged_manifest_files(manifest, entries, size, page_size(config, ROOT_PAGE_SIZE),
                                          digest_of_entries, pages, most):
        if rel == MANIFEST_FILE:
            staging.write(rel, data)
        else:
            staging.write_keyed(rel, sha256_hex(data), lambda data=data: data)
    return digest_of_entries.value


def write_compatibility_files(staging: Staging, config: SiteConfig, entries: list[ManifestEntry],
                              discovery: DiscoveryIndexes) -> list[Link]:
    """What other clients read: the v0.1 discovery index, the static provider layout's catalog
    listing and the plugin marketplace (each skill's own listing is written with the skill,
    :mod:`skillsite.publish.skills`); returns the v0.1 index's copies of skill files, a hard link
    each (:meth:`~skillsite.publish.staging.Staging.link_all`), which the pages' workers place:
    thousands of links are no work for the one process all the others wait on."""
    write_document(staging, LEGACY_INDEX_PATH, discovery.legacy_json())
    write_document(staging, f"skills/{INDEX_NAME}", skills_index_json(entries))
    write_document(staging, MARKETPLACE_PATH, marketplace_json(config.marketplace, config.title,
                                                               config.description, entries))
    return discovery.legacy_copies


def write_document(staging: Staging, rel: str, data: bytes) -> None:
    """A catalog-wide document (its bytes, composed of rows encoded once: see
    :mod:`~skillsite.publish.composed_json`) at ``rel``, kept in place when the output holds it
    unchanged (keyed by its sha256): a big catalog's listings rarely change with one skill."""
    staging.write_keyed(rel, sha256_hex(data), lambda: data)


def offered_by_default(entries: Sequence[ManifestEntry]) -> tuple[list[ManifestEntry], list[ManifestEntry]]:
    """The skills offered to a model, in prompt order, that the audit rates at most
    :data:`DEFAULT_MAX_RISK`, and those it rates above (in the same order): a model that reads
    available_skills.xml has no loader to refuse a skill, so the block offers what a loader would."""
    shown = prompt_order(entries)
    return ([e for e in shown if within_max_risk(e, DEFAULT_MAX_RISK)],
            [e for e in shown if not within_max_risk(e, DEFAULT_MAX_RISK)])


def listing_budgets(entries: list[ManifestEntry], config: SiteConfig) -> tuple[dict[str, Any], ...]:
    """How the catalog fits each known agent listing (first ten cut ids each), and its own
    available_skills.xml when ``prompt_budget`` is not the 30,000 characters of the last one: of
    the skills available_skills.xml offers (``withheld``: how many it leaves out as above
    :data:`DEFAULT_MAX_RISK`)."""
    own = () if config.prompt_budget == DEFAULT_PROMPT_BUDGET else (catalog_block_budget(config.prompt_budget),)
    offered, withheld = offered_by_default(entries)
    fits = budget_fits(offered, {e.id: absolute(config, e.urls.skill_md) for e in offered}, own, len(withheld))
    return tuple({"agent": f.agent, "budget": f.budget, "listed": f.listed, "fit": len(f.fit),
                  "first_cut": list(f.cut[:10]), "withheld": len(withheld), "max_risk": DEFAULT_MAX_RISK}
                 for f in fits)
