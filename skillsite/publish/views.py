"""What the catalog's pages show, as plain values for the templates: tags with their pages
and counts, skill cards, install snippets, metadata and file rows, the ``_headers`` file."""
from __future__ import annotations

import hashlib
import json
import re
import shlex
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from skillsite.agent.entry import ManifestEntry
from skillsite.agent.manifest_check import path_problem
from skillsite.agent.site_urls import url_of
from skillsite.publish.manifest import absolute
from skillsite.publish.wellknown import LEGACY_DIR, LegacyCopy, listable_originals
from skillsite.search.terms import folded

# Bundled files no browser runs as a document (text, code, data, images, fonts, media,
# archives) whatever type a host gives them. Every other bundled file might be run as a page on
# the catalog's own origin (HTML, SVG, any XML: hosts map far more extensions to those types than
# a list of them would name), so ``_headers`` makes static hosts that read it (Netlify,
# Cloudflare Pages) serve it sandboxed: none of its scripts run (an SVG still shows in an <img>).
INERT_SUFFIXES = frozenset({
    "", ".md", ".markdown", ".txt", ".text", ".rst", ".adoc", ".log", ".csv", ".tsv", ".json", ".jsonl",
    ".ndjson", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf", ".lock", ".ipynb", ".tex", ".bib", ".diff",
    ".patch", ".py", ".pyi", ".sh", ".bash", ".zsh", ".fish", ".ps1", ".psm1", ".bat", ".cmd", ".js", ".mjs",
    ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx", ".css", ".scss", ".sass", ".less", ".sql", ".rb", ".go",
    ".rs", ".java", ".kt", ".kts", ".swift", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".r", ".jl", ".lua",
    ".pl", ".pm", ".ex", ".exs", ".hs", ".scala", ".dart", ".tf", ".hcl", ".proto", ".graphql", ".gql",
    ".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".bmp", ".ico", ".tif", ".tiff", ".woff", ".woff2",
    ".ttf", ".otf", ".eot", ".mp3", ".wav", ".ogg", ".flac", ".mp4", ".webm", ".mov", ".zip", ".gz", ".tgz",
    ".tar", ".bz2", ".xz", ".7z", ".wasm", ".pdf", ".docx", ".xlsx", ".pptx"})
INERT_HEADERS = ("Content-Security-Policy: sandbox; default-src 'none'", "X-Content-Type-Options: nosniff")
_SLUG = re.compile(r"[^a-z0-9]+")
_SPACE = re.compile(r"\s+")


def display_text(value: Any) -> str:
    """Any frontmatter value as text: strings as they are, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


#: Characters of a skill's text that would start Markdown syntax in ``llms.txt`` (a link, a code
#: span swallowing the link around it, raw HTML), written as character references: CommonMark
#: shows them as themselves, and parsers that match ``[title](url)`` with a regular expression
#: (llms.txt's reference parser) never see a bracket a skill wrote.
_MARKDOWN_REFERENCES = {"&": "&amp;", "[": "&#91;", "]": "&#93;", "`": "&#96;", "<": "&lt;", "\\": "&#92;"}
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def markdown_text(value: Any) -> str:
    """One line of plain text safe inside a Markdown list item or link label (``llms.txt``):
    control characters replaced (U+FFFD), Markdown's active characters as references."""
    text = _CONTROL.sub("\ufffd", _SPACE.sub(" ", display_text(value)).strip())
    return "".join(_MARKDOWN_REFERENCES.get(c, c) for c in text)


def human_bytes(size: int) -> str:
    """``1234`` -> ``1.2 KB`` (pages and the build's summary line)."""
    value = float(size)
    for unit in ("B", "KB", "MB"):
        if value < 1024:
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"


def tag_slug(tag: str) -> str:
    """A tag's folder name: ``a-z0-9-`` only; a short hash keeps distinct tags apart, and a
    Windows device name (``aux``, ``con``: no path verify and the loader accept) from being one."""
    slug = _SLUG.sub("-", tag.lower()).strip("-")[:48].strip("-")
    if slug == tag and path_problem(slug) is None:
        return slug
    digest = hashlib.sha256(tag.encode("utf-8")).hexdigest()[:6]
    return f"{slug}-{digest}" if slug else f"tag-{digest}"


def root_of(page_dir: str) -> str:
    """Relative prefix from a site folder (``skills/a/b/``) back to the site root."""
    depth = len([p for p in page_dir.split("/") if p])
    return "../" * depth


def _suffix(path: str) -> str:
    """The lowercased extension of a path's last part, as a web server maps it to a type
    (a file named just ``.html`` counts as HTML, unlike ``PurePath.suffix`` says)."""
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot:].lower() if dot >= 0 else ""


#: The files a static host serves for their folder's address (``assets/`` serves ``assets/index.html``).
FOLDER_DOCUMENTS = ("index.html", "index.htm")


def is_active(path: str) -> bool:
    """Whether a browser might run a published skill file as a page (see :data:`INERT_SUFFIXES`)."""
    return _suffix(path) not in INERT_SUFFIXES


def active_files(entries: Iterable[ManifestEntry], versions: Mapping[str, dict[str, Any]] | None = None,
                 own: Callable[[ManifestEntry], tuple[Iterable[str], Iterable[str]]] | None = None,
                 legacy: Iterable[LegacyCopy] | None = None) -> list[str]:
    """Site-relative URLs of published skill files a browser might run as a page: bundled files,
    their copies for the v0.1 discovery index, every release's copy (``versions``: each versioned
    skill's ``versions.json`` document) and knowledge documents; and the folder address of each
    one a host serves for its folder (an ``index.html``).  ``own``: an entry's such files, as
    URLs and as paths in its folder (:func:`own_active_files`, or what was kept of it);
    ``legacy``: the copies the v0.1 index lists, as a build places them (unknown, as when read
    from a published manifest: those of every entry that could stand for its name)."""
    entries = list(entries)
    own = own or own_active_files
    urls: set[str] = set()
    names: set[str] = set()  # of the entries with such bundled files
    for entry in entries:
        entry_urls, paths = own(entry)
        urls.update(entry_urls)
        if paths:
            names.add(entry.name)
    if legacy is not None:
        urls.update(url_of(site_path) for site_path, _, _ in legacy if is_active(site_path))
    else:  # any other name's entries have no such file to copy
        for entry in listable_originals([e for e in entries if e.name in names]):
            urls.update(url_of(f"{LEGACY_DIR}/{entry.name}/{path}") for path in own(entry)[1])
    for document in (versions or {}).values():
        for release in document["releases"].values():
            urls |= {release["url"] + url_of(f["path"]) for f in release["files"] if is_active(f["path"])}
    return sorted(urls | {url[:-len(name)] for url in urls for name in FOLDER_DOCUMENTS if url.endswith("/" + name)})


def own_active_files(entry: ManifestEntry) -> tuple[list[str], list[str]]:
    """The URLs of an entry's bundled files and knowledge documents a browser might run as a
    page, and the paths of those bundled files in its folder."""
    paths = [f.path for f in entry.files if is_active(f.path)]
    urls = [entry.urls.files + url_of(path) for path in paths] + [k.url for k in entry.knowledge if is_active(k.path)]
    return urls, paths


def headers_file(active: Iterable[str]) -> str:
    """A Netlify / Cloudflare Pages ``_headers`` file that sandboxes the ``active`` files (:func:`active_files`)."""
    lines = ["# Written by skillsite: bundled files that a browser might run as a page on this origin",
             "# (anything but text, code, data, images and media) are served sandboxed: none of their scripts can run."]
    for url in active:
        lines.append("/" + url)
        lines.extend("  " + header for header in INERT_HEADERS)
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- view models

@dataclass(frozen=True)
class TagInfo:
    """A tag, its page folder and how many skills carry it."""

    name: str
    slug: str
    count: int

    @property
    def url(self) -> str:
        return f"tags/{self.slug}/"


def group_tags(entries: Iterable[ManifestEntry], listed: Iterable[ManifestEntry]) -> dict[str, tuple[str, ...]]:
    """The tags each of the ``listed`` skills is shown under, by id: its own, then those of every
    copy of it among ``entries`` (all published skills, listed or hidden), as search's tag filter
    lets a group's canonical member stand for its copies: a tag only a copy has lists the group."""
    shown = {entry.id: list(entry.tags) for entry in listed}
    for entry in entries:
        if entry.visibility.copy_of in shown:
            shown[entry.visibility.copy_of].extend(entry.tags)
    return {skill_id: tuple(tags) for skill_id, tags in shown.items()}


def collect_tags(entries: Iterable[ManifestEntry], shown: Mapping[str, Sequence[str]] | None = None) -> list[TagInfo]:
    """Every tag of ``entries`` (the listed skills: a tag page lists no hidden skill) with its
    count, sorted by name; ``shown``: the tags each is shown under (:func:`group_tags`: a group of
    copies counts once under each tag of any member), else its own.  Tags that fold alike
    (:func:`~skillsite.search.terms.folded`: ``UPPER`` and ``upper``, "é" written composed or
    decomposed) are one tag, as every tag filter takes them, shown as its first spelling in sorted
    order among the tags ``entries`` write themselves: a copy the lists do not show spells only a
    tag no shown skill has."""
    def others(entry: ManifestEntry) -> tuple[FoldedTags, ...]:
        return () if shown is None else (folded_tags(shown[entry.id][len(entry.tags):]),)

    return count_tags((folded_tags(entry.tags), others(entry)) for entry in entries)


@dataclass(frozen=True)
class FoldedTags:
    """A skill's tags folded (:func:`~skillsite.search.terms.folded`), each once, in the order
    the skill first writes them: with its first spelling in the skill (what its card shows) and
    its least one in sorted order (what names the tag among every skill's spellings)."""

    first: tuple[tuple[str, str], ...]   # (folded tag, first spelling)
    least: tuple[str, ...]               # the least spelling of each, in the same order

    @property
    def keys(self) -> Iterator[str]:
        """Each folded tag, once, in order."""
        return (key for key, _ in self.first)


def folded_tags(tags: Iterable[str]) -> FoldedTags:
    """:class:`FoldedTags` of ``tags``."""
    first: dict[str, str] = {}
    least: dict[str, str] = {}
    for tag in tags:
        key = folded(tag)
        first.setdefault(key, tag)
        least[key] = min(tag, least.get(key, tag))
    return FoldedTags(tuple(first.items()), tuple(least.values()))


def count_tags(skills: Iterable[tuple[FoldedTags, Sequence[FoldedTags]]]) -> list[TagInfo]:
    """:func:`collect_tags` of skills given folded: each listed skill's own tags and those of
    the other members of its group of copies (shown under it)."""
    counts: dict[str, int] = {}
    own: dict[str, str] = {}        # each tag's first spelling among the skills' own tags
    any_member: dict[str, str] = {}  # and among those of every member of their groups
    for mine, others in skills:
        _least_spellings(own, mine)
        _least_spellings(any_member, mine)
        for other in others:
            _least_spellings(any_member, other)
        keys = dict.fromkeys(key for tags in (mine, *others) for key in tags.keys) if others else mine.keys
        for key in keys:
            counts[key] = counts.get(key, 0) + 1
    names = sorted({**any_member, **own}.values())
    slugs = _unique_slugs(names)
    return [TagInfo(name, slugs[name], counts[folded(name)]) for name in names]


def _least_spellings(spellings: dict[str, str], tags: FoldedTags) -> None:
    """Keep in ``spellings`` (folded tag -> spelling) the least in sorted order of each of ``tags``."""
    for key, spelling in zip(tags.keys, tags.least):
        known = spellings.get(key)
        spellings[key] = spelling if known is None or spelling < known else known


def tags_by_folded_name(tags: Iterable[TagInfo]) -> dict[str, TagInfo]:
    """Each tag by its name folded: what :func:`card_tags` looks a skill's tags up in."""
    return {folded(tag.name): tag for tag in tags}


def _unique_slugs(tags: Sequence[str]) -> dict[str, str]:
    """``tag_slug`` of each tag, made unique in the rare case two still collide."""
    seen: dict[str, str] = {}
    used: set[str] = set()
    for tag in tags:
        slug, n = tag_slug(tag), 2
        base = slug
        while slug in used:
            slug, n = f"{base}-{n}", n + 1
        used.add(slug)
        seen[tag] = slug
    return seen


def badges(entry: ManifestEntry) -> list[tuple[str, str, str]]:
    """(css class, label, explanation) of a skill's visibility flags."""
    vis = entry.visibility
    out = []
    if vis.always:
        out.append(("always", "always on", "Listed first in the model's catalog"))
    if vis.hidden and not vis.listed:
        out.append(("hidden", "hidden", "Never offered to a model and left out of this catalog's lists; "
                                        "its page and files are published for whoever has the link"))
    elif vis.hidden:
        out.append(("hidden", "hidden from models", "Never offered to a model; people may still use it"))
    if vis.user_invocable_only:
        out.append(("user-only", "user-invoked only", "Only a person can invoke it; left out of the model's catalog"))
    if entry.copies is not None and entry.visibility.copy_of is None:
        out.append(("copies", f"{entry.copies.count} copies",
                    f"The same skill is published {entry.copies.count} times in this catalog; this one stands for "
                    "them all"))
    elif entry.visibility.copy_of is not None:
        out.append(("copy", "a copy", f"A copy of {entry.visibility.copy_of}: lists, search and models show that one"))
    if entry.audit is not None and entry.risk in RISKS:
        risk, count = entry.risk, len(entry.audit.findings)
        out.append((f"risk-{risk}", f"{risk} risk", f"The audit rated it {risk} risk ({count} finding"
                                                    f"{'' if count == 1 else 's'}; see its page)"))
    return out


#: Audit risks a skill list can be filtered by, most severe first.
RISKS = ("high", "medium", "low")


def risk_pages(entries: Iterable[ManifestEntry]) -> dict[str, list[str]]:
    """The ids of the skills at each audit risk that any skill has, most severe first."""
    found: dict[str, list[str]] = {risk: [] for risk in RISKS}
    for entry in entries:
        if entry.risk in found:
            found[entry.risk].append(entry.id)
    return {risk: ids for risk, ids in found.items() if ids}


def hidden_note(entry: ManifestEntry) -> str | None:
    """What a hidden skill's page says of it: the key that hid it and what that means; None when listed."""
    vis = entry.visibility
    if vis.listed:
        return None
    key = f"{vis.hidden_by}: true" if vis.hidden_by else "hidden"
    return (f"This skill is hidden ({key}): it is never offered to a model, and this catalog's home page, "
            "tag and risk pages, search and llms.txt leave it out. This page, its files and its skills.json "
            "entry stay published for whoever has the link or its id.")


def card(entry: ManifestEntry, tags: dict[str, TagInfo]) -> dict[str, Any]:
    """What a skill list item shows."""
    return card_showing(entry, card_tags(entry, tags))


def card_showing(entry: ManifestEntry, tags: Sequence[TagInfo]) -> dict[str, Any]:
    """What a skill list item shows, given its tags as cards show them (:func:`card_tags`)."""
    return {
        "id": entry.id,
        "name": entry.name,
        "description": entry.description,
        "version": entry.version,
        "url": entry.urls.page,
        "tags": list(tags),
        "badges": badges(entry),
        "nested": "/" in entry.id,
    }


def copy_rows(entry: ManifestEntry) -> dict[str, Any] | None:
    """What a skill page says of the skill's group of copies: the canonical member's page and
    how this copy differs from it, or (for the canonical member) each copy's page and difference."""
    group = entry.copies
    if group is None:
        return None
    if entry.visibility.copy_of is not None:
        return {"canonical": {"id": group.canonical, "url": url_of(f"skills/{group.canonical}/"),
                              "differs": group.differs}, "members": []}
    return {"canonical": None, "count": group.count,
            "members": [{"id": m.id, "url": url_of(f"skills/{m.id}/"), "differs": m.differs} for m in group.members]}


def card_tags(entry: ManifestEntry, tags: dict[str, TagInfo]) -> list[TagInfo]:
    """A skill's tags as its card shows them (``tags``: :func:`tags_by_folded_name`): each once
    however it is spelt (folded), with its page and count (a tag only hidden skills have: unlinked, count 0)."""
    return list(shown_tags(folded_tags(entry.tags), tags))


def shown_tags(folds: FoldedTags, tags: dict[str, TagInfo]) -> tuple[TagInfo, ...]:
    """:func:`card_tags` of a skill's tags given folded."""
    return tuple(tags.get(key) or TagInfo(spelling, "", 0) for key, spelling in folds.first)


# ---------------------------------------------------------------------------- paginated listings

#: How far from the current page the pager links: the pages around it, then jumps of 10 and
#: 100, so that any page of a long listing is a few clicks away without a script.
PAGER_STEPS = (-100, -10, -2, -1, 0, 1, 2, 10, 100)


def listing_url(base: str, number: int) -> str:
    """Site-relative folder of page ``number`` of the listing at ``base`` (``tags/x/page/2/``)."""
    return base if number == 1 else f"{base}page/{number}/"


def page_count(items: int, per_page: int) -> int:
    """Pages of a listing of ``items`` at ``per_page`` each (0: one page); an empty one has one."""
    return max(1, -(-items // per_page)) if per_page else 1


def page_items(items: Sequence[Any], number: int, per_page: int) -> list[Any]:
    """The items page ``number`` shows (every item when ``per_page`` is 0)."""
    return list(items[(number - 1) * per_page:number * per_page]) if per_page else list(items)


def pager(base: str, number: int, count: int, label: str) -> dict[str, Any] | None:
    """What a listing's page navigation shows (None for a listing of one page): links to the
    previous and next page, and to the first, last and nearby pages with gaps between."""
    if count <= 1:
        return None
    shown = sorted({1, count} | {number + step for step in PAGER_STEPS if 1 <= number + step <= count})
    items: list[dict[str, Any]] = []
    for before, n in zip([0, *shown], shown):
        if n - before > 1:
            items.append({"gap": True})
        items.append({"gap": False, "number": n, "url": listing_url(base, n), "current": n == number})
    return {"label": label, "number": number, "count": count, "items": items,
            "prev": listing_url(base, number - 1) if number > 1 else None,
            "next": listing_url(base, number + 1) if number < count else None}


def install_snippets(entry: ManifestEntry, config: Any, discovered: bool) -> list[dict[str, Any]]:
    """Install commands for a skill; ``{site}`` marks where the site URL goes.

    With ``base_url`` configured the text is final; without it the page's script fills in
    the URL the page was loaded from (the static text shows ``<site-url>``).  ``npx skills add
    --skill NAME`` only for a skill the discovery index lists (``discovered``): it installs by
    name what that index lists, so for any other skill it would fail, or install another one.
    """
    site = shlex.quote(config.base_url.rstrip("/")) if config.base_url else "{site}"
    manifest_url = absolute(config, "skills.json") if config.base_url else "{site}/skills.json"
    raw = absolute(config, entry.urls.skill_md) if config.base_url else "{site}/" + entry.urls.skill_md
    dynamic = not config.base_url  # the snippets below that hold ``site`` hold it first, once
    snippets = []
    if discovered:
        snippets.append({"label": "Install with the skills CLI", "dynamic": dynamic,
                         "text": f"npx skills add {site} --skill {shlex.quote(entry.name)}"})
    snippets += [{**snippet, "dynamic": False} for snippet in repository_snippets(entry, config)]
    # the id as a Python literal: JSON's \ud83d\ude80 for an emoji is two lone surrogates to Python
    program = (f"from skillsite.loader import Catalog; "
               f"print(Catalog.open({json.dumps(manifest_url)}).load({json.dumps(entry.id, ensure_ascii=False)}).body)")
    snippets.append({"label": "Load it in Python (skillsite.loader)", "dynamic": dynamic,
                     "text": f"python -c {shlex.quote(program)}"})
    snippets.append({"label": "Raw SKILL.md", "dynamic": dynamic, "text": raw})
    for snippet in snippets:  # only the marker put first: a skill's id may hold "{site}" too
        text = snippet["text"]
        snippet["static"] = text.replace("{site}", "<site-url>", 1) if snippet["dynamic"] else text
    return snippets


def markdown_destination(url: str) -> str:
    """``url`` as a Markdown link's destination: its parentheses (a base URL may hold them, and an
    unmatched ')' ends the link) percent-encoded, which names the same file on a static host."""
    return url.replace("(", "%28").replace(")", "%29")


def catalog_install_lines(config: Any) -> list[tuple[str, list[str]]]:
    """(agent, commands run one after the other) to install the whole catalog, for ``llms.txt``;
    none without ``base_url``."""
    if not config.base_url:
        return []
    site = config.base_url.rstrip("/")
    # not Claude Code's /plugin marketplace add of the site's URL: a marketplace added by URL
    # downloads marketplace.json alone, so its plugin (the site's own files) cannot install
    lines = [("skills CLI (Claude Code, Codex, Cursor, Gemini CLI, ...)", [f"npx skills add {shlex.quote(site)}"])]
    repo = github_repository(config.repo_url)
    if repo:
        lines.append(("GitHub CLI", [f"gh skill install {repo}"]))
    lines.append(("Python (skillsite.loader)", [f"Catalog.open({json.dumps(site + '/skills.json')})"]))
    return lines


def pin_snippets(signing: dict[str, Any] | None, config: Any) -> dict[str, str] | None:
    """A signed catalog's key and how an agent pins it: the loader, the command line, MCP."""
    if not signing:
        return None
    key = signing["key"]
    site = config.base_url.rstrip("/") if config.base_url else "<site-url>"
    word = shlex.quote(site) if config.base_url else site  # a base URL may hold ';', '&' or ')'
    return {"key": key, "keyid": signing["keyid"], "metadata": signing["metadata"],
            "loader": f"Catalog.open({json.dumps(site + '/skills.json')}, trusted_keys=[{json.dumps(key)}])",
            "cli": f"skillsite search QUERY --catalog {word} --trusted-key {key}",
            "mcp": f"skillsite mcp --catalog {word} --trusted-key {key}"}


def github_repository(repo_url: str) -> str | None:
    """``owner/repo`` of a github.com repository URL, else None."""
    match = re.fullmatch(r"https://github\.com/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+?)(?:\.git)?/?", repo_url or "")
    return f"{match.group(1)}/{match.group(2)}" if match else None


def repository_snippets(entry: ManifestEntry, config: Any) -> list[dict[str, str]]:
    """Installers that fetch from the source repository (``repo_url``): GitHub CLI, Gemini CLI."""
    path = entry.source.path
    if not config.repo_url or path.startswith("../") or "/" not in path:
        return []
    folder = shlex.quote(path.rsplit("/", 1)[0])
    snippets = []
    repo = github_repository(config.repo_url)
    if repo:
        snippets.append({"label": "GitHub CLI", "text": f"gh skill install {repo} {folder}"})
    git_url = config.repo_url.rstrip("/")
    git_url = git_url if git_url.endswith(".git") else git_url + ".git"
    snippets.append({"label": "Gemini CLI", "text": f"gemini skills install {shlex.quote(git_url)} --path {folder}"})
    return snippets


def metadata_rows(entry: ManifestEntry) -> list[tuple[str, str]]:
    """(key, text) of metadata and understood extension keys, sorted by key."""
    rows = [(str(k), display_text(v)) for k, v in entry.metadata.items()]
    rows += [(str(k), display_text(v)) for k, v in entry.extra.items()]
    return sorted(rows)


def file_rows(entry: ManifestEntry) -> list[dict[str, Any]]:
    """Bundled files with their URLs relative to the skill's page."""
    return [{"path": f.path, "url": url_of(f.path), "bytes": f.bytes} for f in entry.files]


def ancestors(entry: ManifestEntry, entries: dict[str, ManifestEntry]) -> list[ManifestEntry]:
    """Parent chain of a skill, outermost first."""
    chain = []
    parent = entry.parent
    while parent and parent in entries and len(chain) < 64:
        chain.append(entries[parent])
        parent = entries[parent].parent
    return list(reversed(chain))


def version_rows(document: dict[str, Any]) -> list[dict[str, Any]]:
    """A skill's releases as its page lists them, newest first: version, its SKILL.md's URL
    (relative to the skill's page), commit date, and whether it is the current one."""
    releases = document["releases"]
    return [{"version": version, "url": f"versions/{version}/SKILL.md", "date": (releases[version]["date"] or "")[:10],
             "latest": version == document["latest"]} for version in reversed(document["versions"])]
