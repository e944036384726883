"""Published paths and the URLs that name them.

A skill's id is its folder's path as the source tree spells it (``repos/elizaOS@eliza/x``,
``team tools/café``), and every file the build publishes for it lies under that path, written
once, in that one spelling.  Every URL that names a published file (in ``skills.json``, the
manifest pages, the catalog's pages, ``llms.txt``, the sitemap, and every URL the loader asks
for) is that path percent-encoded once, as RFC 3986 asks for a path: a character a path
segment may hold as it is stays as it is, every other one is encoded as its UTF-8 bytes.  A
static server that decodes the URL (all common ones) finds the file; one that does not decode
still finds every file whose path needs no encoding, such as ``owner@repo`` or ``a+b``.
Standard library only: shared by the build and the loader.
"""
from __future__ import annotations

from urllib.parse import quote, unquote, urljoin

#: The file every build's output holds to say it is one (written anew by each build; never signed).
OUTPUT_MARKER = ".skillsite-output"
#: The folder of a signed catalog's TUF metadata.
TUF_DIR = "tuf/"
#: What the build writes in ``skills/`` beside the skill folders: the provider layout's listing.
SKILLS_FOLDER_FILES = frozenset({"index.json"})
#: What the build writes in a skill's folder beside its own files: its page, its XML fragments, its
#: provider listing and (in a paged catalog) its manifest entry.
SKILL_FOLDER_FILES = frozenset({"index.html", "skill.xml", "entry.xml", "index.json", "entry.json"})


#: What the build writes in a versioned skill's folder: its releases' listing, and each release.
VERSIONS_FILE = "versions.json"
VERSIONS_FOLDER = "versions"


def taken_name(skill_id: str, holder_id: str | None = None, holder_versioned: bool = False) -> str | None:
    """The name of the file (or folder) the build writes where a skill's folder would be
    published: a top-level skill named like ``skills/``'s listing, a nested one like a file of
    the folder holding it, or below ``holder_id`` (the nearest skill holding it) in the place of
    one of that skill's files (``holder_versioned``: its releases' too); None when its place is free."""
    folder, _, name = skill_id.rpartition("/")
    if name in (SKILL_FOLDER_FILES if folder else SKILLS_FOLDER_FILES):
        return name
    if holder_id is None or not skill_id.startswith(holder_id + "/"):
        return None
    first = skill_id[len(holder_id) + 1:].split("/", 1)[0]
    taken = SKILL_FOLDER_FILES | {"SKILL.md"} | ({VERSIONS_FILE, VERSIONS_FOLDER} if holder_versioned else set())
    return first if first in taken else None

#: What a URL path keeps as it is, besides the letters, digits and ``-._~`` that ``quote``
#: always keeps: "/" between segments, "@" and the sub-delimiters a segment may hold (RFC
#: 3986, pchar).  Encoded besides what the RFC requires: ":" (in a relative URL's first
#: segment it would read as a scheme), ";" (RFC 1808 parsers, Python's ``urljoin`` among
#: them, cut a segment's "parameters" off there) and "(" ")" (a Markdown link, as in
#: llms.txt, ends at an unmatched ")").
PATH_SAFE = "/@!$&'*+,="


def url_of(path: str) -> str:
    """The URL of a site path (relative or not): the path percent-encoded once."""
    return quote(path, safe=PATH_SAFE)


def site_file_url(location: str, path: str) -> str:
    """The URL the loader fetches a site path from, for the catalog whose manifest's URL is
    ``location``: joined to it as RFC 3986 joins (the query and file name dropped, ``.``, ``..``
    and empty segments resolved; ``%2E`` is no dot segment)."""
    return urljoin(location, url_of(path))


def path_of(url_path: str) -> str:
    """The site path a URL's path names: :func:`url_of` undone."""
    return unquote(url_path)
