"""The HTML catalog: the home page, one page per skill (``skills/<id>/index.html``), tag
pages, a 404 page, ``sitemap.xml`` (when ``base_url`` is configured: the sitemap protocol
requires absolute URLs; past 50,000 URLs an index of ``sitemap-1.xml`` ...), ``robots.txt`` and
``llms.txt``.

A hidden skill (``hidden`` or ``hideFromDiscovery``: see
:attr:`~skillsite.agent.entry.Visibility.listed`) has its page, but no list shows it: not the
home page, tag or risk pages, ``llms.txt`` nor the sitemap; nor does any list show a copy of
another skill (:attr:`~skillsite.agent.entry.Visibility.in_lists`): its group's canonical member
stands for it, and that member's page lists its copies.

Above ``shard_above`` skills the lists are paginated (:data:`LISTING_PAGE_SIZE` cards a page):
the home page shows the first page and links to ``page/2/`` ..., a tag or risk page likewise
(``tags/<tag>/page/2/``), and the tag index :data:`TAGS_PAGE_SIZE` tags a page (``tags/page/2/``);
a smaller catalog lists everything on one page, as it always did.  The sitemap lists every page
of a list.

Pages are made on every core.  Each is keyed by a digest of the templates and every value it is
rendered from, so a rebuild keeps the pages whose values did not change (see
:meth:`~skillsite.publish.staging.Staging.keep`).  A skill page is keyed in short when every
entry it shows has an entry key (:func:`~skillsite.publish.stored_pages.entry_keys`): by those
keys and the few catalog-wide values its cards show (:meth:`SitePages.skill_page_key`), so a
rebuild finds the pages it keeps without making any page's values, and makes only the others
on the workers; a list page, by the digests of the cards it shows (:func:`list_page_key`).  In a
long-running process (``serve``) what is made of each entry (its card, its page's key: see
:mod:`~skillsite.publish.page_pieces`) is kept between builds for the very same entry and equal
values.  Output depends only on the input: no clock, sorted iteration.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Container, Mapping, Sequence
from urllib.parse import urlsplit

import jinja2
from markupsafe import Markup

from skillsite.agent.catalog_format import DEFAULT_MAX_RISK, offered_to_model, prompt_order, within_max_risk
from skillsite.agent.entry import ManifestEntry
from skillsite.cache import KeptObjects, digest, kept_or_made
from skillsite.config import SiteConfig, builtin_templates
from skillsite.publish.manifest import absolute, is_paged, page_size
from skillsite.publish.markdown import safe_url
from skillsite.publish.page_pieces import (EntryPieces, TagCatalog, entry_pieces, kept_card, kept_shown_tags,
                                          tag_catalog, tagged_skill)
from skillsite.publish.staging import Link, Placed, Staging
from skillsite.publish.templates import (shared_environment, template_problem, templates_digest, templates_read,
                                         write_assets)
from skillsite.publish.views import (FoldedTags, TagInfo, active_files, ancestors, badges, card,
                                     catalog_install_lines, copy_rows, file_rows, headers_file, hidden_note,
                                     install_snippets, listing_url, markdown_destination, metadata_rows, page_count,
                                     page_items, pager, pin_snippets, risk_pages, root_of, version_rows)
from skillsite.search.terms import folded
from skillsite.workers import MIN_PARALLEL_ITEMS, Workers

HOME_TAG_CHIPS = 30
#: Skills llms.txt lists at most in a catalog above shard_above (about 450 bytes each).
LLMS_MAX_SKILLS = 1_000
#: URLs a sitemap may hold (the sitemaps protocol); more make sitemap.xml an index of sitemaps.
SITEMAP_LIMIT = 50_000
#: Cards on a page of a paginated list (fewer when ``shard_above`` is lower).
LISTING_PAGE_SIZE = 100
#: Tags on a page of the paginated tag index (fewer when ``shard_above`` is lower).
TAGS_PAGE_SIZE = 500

#: A page to make: ("home" | "tags" | "tag" | "risk" | "skill", tag name, risk or skill id, page number).
Page = tuple[str, str, int]
#: Where a long-running process keeps each skill page's short key (:meth:`SitePages.skill_page_key`), by skill id.
SKILL_PAGE_KEYS = "skill page keys"
#: Where it keeps each list page's short key (:func:`list_page_key`), by the page's site folder.
LIST_PAGE_KEYS = "list page keys"


@dataclass
class SitePages:
    """What making any page needs; each worker process gets its own copy."""

    config: SiteConfig
    staging: Staging
    manifest: dict[str, Any]        # skills.json's object: its entries (typed), site, counts, generator
    html: Mapping[str, str]         # rendered bodies, by skill id (looked up when a page is made)
    html_keys: dict[str, str]       # what each rendered body is made of (a digest), by skill id
    dirs: list[Path]                # template folders, in lookup order
    assets: dict[str, str]          # static file -> its fingerprinted site path
    versions: dict[str, dict[str, Any]] = field(default_factory=dict)  # skill id -> its versions.json document
    #: skill id -> what its manifest entry is made of (None: unknown, the page is keyed by its values)
    entry_keys: Mapping[str, str | None] = field(default_factory=dict)
    #: the ids of the skills the discovery index lists (their pages offer ``npx skills add``)
    discovered: frozenset[str] = frozenset()
    #: what a long-running process keeps between builds (:mod:`skillsite.publish.page_pieces`); None: nothing
    resident: KeptObjects | None = None
    templates_key: str = field(init=False)
    #: what every page may show of the site, its templates and assets (skills.json's counts aside:
    #: :meth:`counts_key`)
    site_key: str = field(init=False)
    signing: dict[str, str] | None = field(init=False)   # a signed catalog's key and how to pin it
    entries: dict[str, ManifestEntry] = field(init=False)
    listed: list[ManifestEntry] = field(init=False)   # the skills the lists show, in manifest order
    tag_catalog: TagCatalog = field(init=False)   # the tags below, and their digest
    tags: list[TagInfo] = field(init=False)
    tag_by_name: dict[str, TagInfo] = field(init=False)
    pieces: dict[str, EntryPieces] = field(init=False)  # skill id -> what is made of its entry alone
    shown_tags: dict[str, tuple[TagInfo, ...]] = field(init=False)  # skill id -> its tags as cards show them
    cards: list[dict[str, Any]] = field(init=False)
    card_keys: dict[str, str] = field(init=False)   # listed skill id -> a digest of its card
    by_tag: dict[str, list[dict[str, Any]]] = field(init=False)
    by_risk: dict[str, list[dict[str, Any]]] = field(init=False)
    per_page: int = field(init=False)   # cards on a page of a list; 0: every card on one page
    tags_per_page: int = field(init=False)  # tags on a page of the tag index; 0: every tag on one page
    needed_by: dict[str, list[str]] = field(init=False)  # skill id -> ids of the skills that need it
    #: skills.json's ``counts`` as pages show them: all but ``longest_path_bytes``, which no page
    #: shows (with it in their keys, renaming one bundled file would render every list again)
    shown_counts: dict[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        self.templates_key = templates_digest(self.dirs)
        self.entries = {e.id: e for e in self.manifest["skills"]}
        self.listed = [e for e in self.manifest["skills"] if e.visibility.in_lists]
        self.pieces = {e.id: entry_pieces(self.resident, e) for e in self.manifest["skills"]}
        groups = self._copies_tags()
        self.tag_catalog = tag_catalog(self.resident, tuple(
            tagged_skill(self.resident, e.id, self.pieces[e.id].tags, tuple(groups.get(e.id, ())))
            for e in self.listed))
        self.tags, self.tag_by_name = self.tag_catalog.tags, self.tag_catalog.by_name
        self.shown_tags = {e.id: kept_shown_tags(self.resident, e, self.pieces[e.id].tags, self.tag_catalog)
                           for e in self.manifest["skills"]}
        cards = [kept_card(self.resident, e, self.shown_tags[e.id]) for e in self.listed]
        self.cards = [c.values for c in cards]
        self.card_keys = {e.id: c.key for e, c in zip(self.listed, cards)}
        self.by_tag = {t.name: [] for t in self.tags}
        for entry, skill_card in zip(self.listed, self.cards):    # a group under each tag of any member
            own, others = self.pieces[entry.id].tags, groups.get(entry.id, ())
            for key in dict.fromkeys(key for tags in (own, *others) for key in tags.keys) if others else own.keys:
                self.by_tag[self.tag_by_name[key].name].append(skill_card)
        by_id = {c["id"]: c for c in self.cards}
        self.by_risk = {risk: [by_id[i] for i in ids] for risk, ids in risk_pages(self.listed).items()}
        paged = is_paged(len(self.entries), self.config)
        self.per_page = page_size(self.config, LISTING_PAGE_SIZE) if paged else 0
        self.tags_per_page = page_size(self.config, TAGS_PAGE_SIZE) if paged else 0
        self.needed_by = needed_by(self.manifest["skills"])
        self.signing = pin_snippets(self.manifest.get("signing"), self.config)
        self.shown_counts = {k: v for k, v in self.manifest["counts"].items() if k != "longest_path_bytes"}
        self.site_key = digest(self.templates_key, self.assets, self.manifest["site"],
                               self.manifest["generator"], sorted(vars(self.config).items()), self.signing)

    def counts_key(self, template: str) -> dict[str, Any] | None:
        """What a page of ``template`` shows of skills.json's counts, for its key: the counts when
        the template reads them (the built-in home page does), else None: a skill added or a
        file renamed then renders no skill page for its counts alone."""
        reads = templates_read(tuple(self.dirs), self.templates_key, template, "counts")
        return self.shown_counts if reads else None

    def _copies_tags(self) -> dict[str, list[FoldedTags]]:
        """The tags of the copies of each listed skill, by its id, in manifest order: as search's
        tag filter lets a group's canonical member stand for its copies, a tag only a copy has
        lists the group (see :func:`~skillsite.publish.views.group_tags`)."""
        listed = {e.id for e in self.listed}
        found: dict[str, list[FoldedTags]] = {}
        for entry in self.manifest["skills"]:
            if entry.visibility.copy_of in listed:
                found.setdefault(entry.visibility.copy_of, []).append(self.pieces[entry.id].tags)
        return found

    def skill_page_key(self, entry: ManifestEntry) -> str | None:
        """What a skill's page is made of, in short: the site (with skills.json's counts when
        its template reads them: :meth:`counts_key`), the entry keys of the skill, its ancestors
        and children (their cards), each one's tags as the cards show them (page and count),
        the names and pages of the skills it needs and that need it, its versions and its
        rendered body; None when one of those entries has no key.  With resident objects, the
        key made before of this very entry and equal values."""
        shown = [entry, *ancestors(entry, self.entries),
                 *(self.entries[child] for child in entry.children if child in self.entries)]
        keys = tuple(self.entry_keys.get(e.id) for e in shown)
        if None in keys:
            return None
        tags = tuple(self.shown_tags[e.id] for e in shown)
        inputs = (self.site_key, self.counts_key("skill.html"), keys, tags, dependency_rows(entry, self),
                  self.versions.get(entry.id), self.html_keys[entry.id], entry.id in self.discovered)
        return kept_or_made(self.resident, SKILL_PAGE_KEYS, entry.id, entry, inputs, lambda: _skill_page_key(*inputs))

    def numbers(self, cards: list[dict[str, Any]]) -> range:
        """The page numbers of a list of ``cards``."""
        return range(1, page_count(len(cards), self.per_page) + 1)

    def tag_numbers(self) -> range:
        """The page numbers of the tag index."""
        return range(1, page_count(len(self.tags), self.tags_per_page) + 1)

    def listing(self, base: str, cards: list[dict[str, Any]], number: int, label: str) -> dict[str, Any]:
        """What page ``number`` of the list of ``cards`` at ``base`` shows: its cards, how many
        the whole list has, and the pager (None for a list of one page)."""
        count = page_count(len(cards), self.per_page)
        return {"cards": page_items(cards, number, self.per_page), "total": len(cards),
                "pager": pager(base, number, count, label)}

    @property
    def env(self) -> jinja2.Environment:
        return shared_environment(tuple(self.dirs), self.templates_key)

    def common(self, page_dir: str, title: str, nav: str = "") -> dict[str, Any]:
        """Variables every page template gets."""
        return {"root": root_of(page_dir), "assets": self.assets, "site": self.manifest["site"],
                "counts": self.shown_counts, "page_title": title,
                "page_url": absolute(self.config, page_dir) if self.config.base_url else "",
                "generator": self.manifest["generator"], "nav": nav, "signing": self.signing}

    def render(self, template: str, **values: Any) -> bytes:
        """The page ``template`` makes of ``values``; TemplateProblem when it cannot be made."""
        try:
            return self.env.get_template(template).render(**values).encode("utf-8")
        except (jinja2.TemplateError, UnicodeDecodeError) as exc:
            raise template_problem(exc, template) from None

    def page(self, template: str, rel: str, values: dict[str, Any]) -> None:
        """A page, kept from the previous output when made from the same templates and values."""
        self.keyed_page(template, rel, digest(self.templates_key, template, rel, values), lambda: values)

    def keyed_page(self, template: str, rel: str, key: str, values: Callable[[], dict[str, Any]]) -> None:
        """A page whose ``key`` stands for what it is made of: kept when the previous output holds
        it, else rendered from ``values()``."""
        self.staging.write_keyed(rel, key, lambda: self.render(template, **values()))


@dataclass(frozen=True)
class SkillList:
    """A list of skills with pages of its own: every skill's (the home page), a tag's or a risk's."""

    template: str                   # of its pages after the first too
    base: str                       # site folder of its first page
    title: str                      # what its pages' titles begin with
    label: str                      # its pager's accessible name
    cards: list[dict[str, Any]]
    values: dict[str, Any]          # what its template needs besides the cards
    nav: str = ""                   # the header link it is under


def _skill_page_key(site_key: str, counts: dict[str, Any] | None, keys: Sequence[str | None],
                    tags: Sequence[Sequence[TagInfo]], *rest: Any) -> str:
    """:meth:`SitePages.skill_page_key`, made of its values."""
    shown = [[(t.name, t.slug, t.count) for t in card_tags] for card_tags in tags]
    return digest("skill page", site_key, counts, list(keys), shown, *rest)


def skill_list(pages: SitePages, kind: str, name: str) -> SkillList:
    """The list a "home", "tag" or "risk" page shows (pages after the first of the home page's
    use ``listing.html``: the search box and filters stay on the first)."""
    if kind == "home":
        return SkillList("listing.html", "", "All skills", "Pages of all skills", pages.cards, {}, "home")
    if kind == "tag":
        tag = pages.tag_by_name[folded(name)]
        return SkillList("tag.html", tag.url, tag.name, f"Pages of tag {tag.name}", pages.by_tag[name], {"tag": tag},
                         "tags")
    return SkillList("risk.html", f"risk/{name}/", f"{name.capitalize()} risk", f"Pages of {name} risk skills",
                     pages.by_risk[name], {"risk": name})


def pages_to_make(pages: SitePages, kept: Container[str] = (), kept_lists: Container[Page] = ()) -> list[Page]:
    """Every page but the skill pages ``kept`` and the list pages ``kept_lists``, the biggest
    first (the home page lists every skill, a tag page its skills), so that no process is left
    with a big one at the end."""
    listed = [(kind, name, n) for kind, name in skill_lists(pages)
              for n in pages.numbers(skill_list(pages, kind, name).cards)]
    tags = [("tags", "", n) for n in pages.tag_numbers()]
    skills = [("skill", skill_id, 1) for skill_id in pages.entries if skill_id not in kept]
    return [listed[0], *tags, *(page for page in listed[1:] if page not in kept_lists), *skills]


def skill_lists(pages: SitePages) -> list[tuple[str, str]]:
    """(kind, name) of every list of skills: the home page's, then each tag's, the biggest first,
    then each risk's."""
    tags = sorted((("tag", t.name) for t in pages.tags), key=lambda p: -len(pages.by_tag[p[1]]))
    return [("home", ""), *tags, *(("risk", risk) for risk in pages.by_risk)]


def make_page(pages: SitePages, page: Page) -> list[Placed]:
    """Make one page (in a worker, or here); what it placed."""
    kind, name, number = page
    if kind == "home" and number == 1:
        _home_page(pages)
    elif kind == "tags":
        _tags_page(pages, number)
    elif kind == "skill":
        _skill_page(pages, pages.entries[name])
    else:
        _list_page(pages, skill_list(pages, kind, name), number)
    return pages.staging.take_journal()


def _home_page(pages: SitePages) -> None:
    """The home page: the search box, tag and risk filters, and the first page of every skill."""
    every = skill_list(pages, "home", "")
    risks = {risk: len(cards) for risk, cards in pages.by_risk.items()}
    search_shards = (pages.manifest.get("search") or {}).get("sharded", "")  # a sharded search index's meta file (#29)
    copies = sum(1 for e in pages.manifest["skills"] if e.visibility.copy_of is not None and e.visibility.listed)
    cards = [pages.card_keys[c["id"]] for c in page_items(every.cards, 1, pages.per_page)]
    # the site, the first page's cards, how many there are, and every tag (the chips are the most used)
    key = digest("home page", pages.site_key, pages.counts_key("home.html"), cards, len(every.cards), pages.per_page,
                 risks, pages.tag_catalog.key, search_shards, copies)

    def values() -> dict[str, Any]:
        chips = sorted(pages.tags, key=lambda t: (-t.count, t.name))[:HOME_TAG_CHIPS]
        return {**pages.common("", pages.config.title, "home"),
                **pages.listing(every.base, every.cards, 1, every.label), "risks": risks, "tags": pages.tags,
                "chips": chips, "search_shards": search_shards, "copies": copies}

    pages.keyed_page("home.html", "index.html", key, values)


def _tags_page(pages: SitePages, number: int) -> None:
    """Page ``number`` of the tag index (every tag by name; one page below ``shard_above``); a
    page after the first says which it is in its title."""
    count = len(pages.tag_numbers())
    where = f", page {number} of {count}" if number > 1 else ""
    page_dir = listing_url("tags/", number)
    pages.page("tags.html", f"{page_dir}index.html", {
        **pages.common(page_dir, f"Tags{where} · {pages.config.title}", "tags"),
        "tags": page_items(pages.tags, number, pages.tags_per_page), "total": len(pages.tags),
        "pager": pager("tags/", number, count, "Pages of tags")})


def _list_page(pages: SitePages, shown: SkillList, number: int) -> None:
    """Page ``number`` of a list of skills; a page after the first says which it is in its title."""
    listing = pages.listing(shown.base, shown.cards, number, shown.label)
    where = f", page {number} of {listing['pager']['count']}" if number > 1 else ""
    page_dir = listing_url(shown.base, number)
    values = {**pages.common(page_dir, f"{shown.title}{where} · {pages.config.title}", shown.nav), **listing,
              **shown.values}
    pages.keyed_page(shown.template, f"{page_dir}index.html", list_page_key(pages, shown, number), lambda: values)


def list_page_key(pages: SitePages, shown: SkillList, number: int) -> str:
    """What page ``number`` of a list of skills is made of, in short (as
    :meth:`SitePages.skill_page_key`): the site, the list, and the digest of each of its cards
    (:class:`~skillsite.publish.page_pieces.Card`: all a card shows).  With resident objects,
    the key made before for this page of equal values (its cards' digests, the same strings)."""
    cards = page_items(shown.cards, number, pages.per_page)
    inputs = (pages.site_key, pages.counts_key(shown.template), shown.template, shown.base, shown.title, shown.label,
              shown.nav, number, len(shown.cards), pages.per_page, tuple(pages.card_keys[c["id"]] for c in cards),
              shown.values)
    return kept_or_made(pages.resident, LIST_PAGE_KEYS, listing_url(shown.base, number), LIST_PAGE_KEYS, inputs,
                        lambda: digest("list page", *inputs))


def kept_list_pages(pages: SitePages) -> set[Page]:
    """The pages of lists of skills (all but the home page's first) that the output holds as
    they would be made now (by their short key): taken here, without sending them to a worker."""
    if not pages.staging.holds_earlier_output:
        return set()
    kept = set()
    for kind, name in skill_lists(pages):
        shown = skill_list(pages, kind, name)
        for number in pages.numbers(shown.cards):
            if kind == "home" and number == 1:
                continue
            if pages.staging.keep(f"{listing_url(shown.base, number)}index.html", list_page_key(pages, shown, number)):
                kept.add((kind, name, number))
    pages.staging.take_journal()  # recorded here already
    return kept


def needed_by(entries: list[ManifestEntry]) -> dict[str, list[str]]:
    """The skills that need each skill (its dependencies read backwards), by id, sorted."""
    found: dict[str, set[str]] = {}
    for entry in entries:
        for dep in entry.dependencies:
            found.setdefault(dep.id, set()).add(entry.id)
    return {sid: sorted(ids) for sid, ids in found.items()}


def dependency_rows(entry: ManifestEntry, pages: SitePages) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """What a skill page lists under "Needs" (name, page, range, release chosen) and "Needed by"."""
    if not entry.dependencies and entry.id not in pages.needed_by:
        return [], []
    def page(sid: str) -> dict[str, Any]:
        other = pages.entries.get(sid)
        return {"id": sid, "name": other.name if other else sid, "url": other.urls.page if other else None}

    needs = [{**page(d.id), "range": d.version, "resolved": d.resolved} for d in entry.dependencies]
    return needs, [page(sid) for sid in pages.needed_by.get(entry.id, [])]


def skill_page_path(skill_id: str) -> str:
    """Where a skill's page is, in the site."""
    return f"skills/{skill_id}/index.html"


def _skill_page(pages: SitePages, entry: ManifestEntry) -> None:
    """A skill's page, keyed in short when it can be (:meth:`SitePages.skill_page_key`), else by
    its values."""
    rel, skill_id = skill_page_path(entry.id), entry.id
    key, values = pages.skill_page_key(entry), None
    if key is None:
        values = _skill_page_values(pages, entry)
        # the body stands in the key as what it was rendered from: fetched only to render the page
        key = digest(pages.templates_key, "skill.html", rel, values, pages.html_keys[skill_id])

    def page_values() -> dict[str, Any]:
        shown = values if values is not None else _skill_page_values(pages, entry)
        return {**shown, "body": Markup(pages.html[skill_id])}

    pages.keyed_page("skill.html", rel, key, page_values)


def _skill_page_values(pages: SitePages, entry: ManifestEntry) -> dict[str, Any]:
    """What a skill's page shows but its body; the template gets its entry as ``skills.json``
    has it (the JSON that templates, built-in or a site's own, read with
    ``entry['allowed-tools']`` and the like)."""
    source = entry.source
    needs, users = dependency_rows(entry, pages)
    values = {
        **pages.common(entry.urls.page, f"{entry.name} · {pages.config.title}"),
        "entry": entry.to_json(), "card": card(entry, pages.tag_by_name),
        "ancestors": [card(e, pages.tag_by_name) for e in ancestors(entry, pages.entries)],
        "children": [card(pages.entries[c], pages.tag_by_name) for c in entry.children if c in pages.entries],
        "snippets": install_snippets(entry, pages.config, entry.id in pages.discovered),
        "metadata": metadata_rows(entry),
        "hidden_note": hidden_note(entry),
        "files": file_rows(entry), "needs": needs, "needed_by": users, "source_url": safe_url(source.url),
        "edit_url": safe_url(source.edit_url), "copies": copy_rows(entry)}
    if entry.id in pages.versions:
        values["versions"] = version_rows(pages.versions[entry.id])
    return values


def kept_skill_pages(pages: SitePages) -> set[str]:
    """The skills whose page the output holds as it would be made now (by its short key): taken
    here, without making their values or sending them to a worker."""
    if not pages.staging.holds_earlier_output:
        return set()
    keyed = [(entry.id, skill_page_path(entry.id), key) for entry in pages.entries.values()
             if (key := pages.skill_page_key(entry)) is not None]
    taken = pages.staging.keep_those_here([(rel, key) for _, rel, key in keyed])
    kept = {skill_id for (skill_id, rel, key), took in zip(keyed, taken) if took or pages.staging.keep(rel, key)}
    pages.staging.take_journal()  # recorded here already
    return kept


def _text_files(pages: SitePages, links: Sequence[Link]) -> None:
    """404.html, sitemap.xml, robots.txt, llms.txt, .nojekyll and _headers (which also sandboxes
    the ``links``: the v0.1 index's copies of skill files)."""
    config, staging, entries = pages.config, pages.staging, list(pages.entries.values())
    not_found = pages.common("", f"Not found · {config.title}")
    # served at any missing path, so its links start at the site's own path on its host
    not_found["root"] = (urlsplit(config.base_url).path if config.base_url else "/").rstrip("/") + "/"
    pages.page("404.html", "404.html", not_found)
    if config.base_url:
        urls = ["", "tags/"] + [t.url for t in pages.tags] + [f"risk/{risk}/" for risk in pages.by_risk] \
            + _later_pages(pages) + [e.urls.page for e in pages.listed]
        for rel, template, values in sitemap_files([absolute(config, u) for u in urls], config, SITEMAP_LIMIT):
            pages.page(template, rel, values)
    pages.page("robots.txt", "robots.txt", {"sitemap": absolute(config, "sitemap.xml") if config.base_url else ""})
    _llms_txt(pages)
    staging.write(".nojekyll", b"")  # GitHub Pages' Jekyll would drop .well-known and _headers
    active = active_files(entries, pages.versions, lambda entry: pages.pieces[entry.id].active(), links)
    if active:
        staging.write("_headers", headers_file(active).encode("utf-8"))


def _later_pages(pages: SitePages) -> list[str]:
    """Site folders of the pages after the first of every paginated list: the home page's, the
    tag index's, each tag's and each risk's (none below ``shard_above``)."""
    lists = [("", len(pages.numbers(pages.cards))), ("tags/", len(pages.tag_numbers()))]
    lists += [(t.url, len(pages.numbers(pages.by_tag[t.name]))) for t in pages.tags]
    lists += [(f"risk/{risk}/", len(pages.numbers(cards))) for risk, cards in pages.by_risk.items()]
    return [listing_url(base, n) for base, count in lists for n in range(2, count + 1)]


def _llms_txt(pages: SitePages) -> None:
    """llms.txt: every listed skill the audit rates at most :data:`DEFAULT_MAX_RISK` (a model
    reads it with no loader to refuse the others; it says how many it withholds), those offered
    to models first; a catalog above ``shard_above`` lists at most :data:`LLMS_MAX_SKILLS` (the
    first a model is offered, in prompt order) and says where the others are."""
    config = pages.config
    install = catalog_install_lines(config)
    usable = [e for e in pages.listed if within_max_risk(e, DEFAULT_MAX_RISK)]
    withheld = len(pages.listed) - len(usable)
    most = page_size(config, LLMS_MAX_SKILLS) if pages.per_page else len(usable)
    visible = [e for e in usable if offered_to_model(e)]
    others = [e for e in usable if not offered_to_model(e)]
    if len(usable) > most:
        visible = prompt_order(visible)[:most]
        others = others[:most - len(visible)]
    key = digest(pages.templates_key, "llms.txt", config.base_url, pages.manifest["site"], pages.signing,
                 pages.shown_counts, _llms_entries(pages, visible, others), install, most, len(usable), withheld,
                 DEFAULT_MAX_RISK)

    def values() -> dict[str, Any]:
        return {"site": pages.manifest["site"], "counts": pages.shown_counts, "install": install,
                "signing": pages.signing if config.base_url else None,
                "visible": visible, "others": others, "left_out": len(pages.listed) - len(visible) - len(others),
                "listed": len(pages.listed), "withheld": withheld, "max_risk": DEFAULT_MAX_RISK,
                "link": lambda rel: markdown_destination(absolute(config, rel)), "badges": badges}

    pages.keyed_page("llms.txt", "llms.txt", key, values)


def _template_file(env: jinja2.Environment, name: str) -> str:
    """The file the template ``name`` is read from, not compiled ("" when it cannot be read: its
    rendering then says why, as a TemplateProblem)."""
    try:
        return env.loader.get_source(env, name)[1] or ""
    except (jinja2.TemplateError, UnicodeDecodeError):
        return ""


def _llms_entries(pages: SitePages, visible: list[ManifestEntry], others: list[ManifestEntry]) -> Any:
    """What llms.txt shows of the skills it lists (``visible``, then the ``others``), for its
    key: the built-in template shows each one's name, SKILL.md and description (and the others'
    badges), so a change to anything else in an entry leaves it as it is; a site's own template
    may show anything, so there it is each entry's key (the manifest's digest when one has none)."""
    if _template_file(pages.env, "llms.txt") == str(builtin_templates() / "llms.txt"):
        return [[(e.name, e.urls.skill_md, e.description) for e in visible],
                [(e.name, e.urls.skill_md, e.description, [b[1] for b in badges(e)]) for e in others]]
    keys = [pages.entry_keys.get(e.id) for e in [*visible, *others]]
    return pages.manifest["digest"] if None in keys else keys


def sitemap_files(urls: list[str], config: SiteConfig, limit: int) -> list[tuple[str, str, dict[str, Any]]]:
    """(site path, template, values) of the sitemap: ``sitemap.xml`` with every URL, or, past
    ``limit`` URLs, ``sitemap-1.xml`` ... of ``limit`` URLs each and ``sitemap.xml`` as their
    ``<sitemapindex>`` (what robots.txt names either way)."""
    if len(urls) <= limit:
        return [("sitemap.xml", "sitemap.xml", {"urls": urls})]
    parts = [(f"sitemap-{n}.xml", "sitemap.xml", {"urls": urls[start:start + limit]})
             for n, start in enumerate(range(0, len(urls), limit), start=1)]
    index = {"sitemaps": [absolute(config, rel) for rel, _, _ in parts]}
    return [*parts, ("sitemap.xml", "sitemap-index.xml", index)]


def write_site(config: SiteConfig, staging: Staging, manifest: dict[str, Any], html: Mapping[str, str],
               html_keys: dict[str, str], dirs: list[Path], jobs: int,
               versions: dict[str, dict[str, Any]] | None = None,
               entry_keys: Mapping[str, str | None] | None = None, discovered: frozenset[str] = frozenset(),
               links: Sequence[Link] = (), resident: KeptObjects | None = None) -> None:
    """Every page and asset of the catalog, into the staging folder (``versions``: each versioned
    skill's ``versions.json`` document, listed on its page; ``entry_keys``: what each skill's
    entry is made of, when known; ``discovered``: the ids the discovery index lists), and the
    ``links`` to published files under other names, placed by a worker beside the pages;
    ``resident``: what a long-running process keeps between builds (:mod:`~skillsite.publish.page_pieces`)."""
    assets = write_assets(staging, dirs)
    pages = SitePages(config, staging, manifest, html, html_keys, dirs, assets, versions or {}, entry_keys or {},
                      discovered, resident)
    kept, kept_lists = kept_skill_pages(pages), kept_list_pages(pages)
    # a rebuild's links are nearly all in place already; a worker links the rest beside the pages
    # when there are many (a first build), else they are linked here, and no worker is started for them
    to_place = staging.keep_links_here(links)
    to_make = pages_to_make(pages, kept, kept_lists)
    with Workers(jobs, pages, pieces=len(to_make)) as workers:
        linking = workers.submit(place_links, to_place) if len(to_place) >= MIN_PARALLEL_ITEMS else None
        for placed in workers.map(make_page, to_make):
            staging.adopt(placed)
        staging.adopt(linking.result() if linking is not None else place_links(pages, to_place))
    _text_files(pages, links)


def place_links(pages: SitePages, links: Sequence[Link]) -> list[Placed]:
    """Place ``links`` (in a worker, or here); what was placed."""
    pages.staging.link_all(links)
    return pages.staging.take_journal()
