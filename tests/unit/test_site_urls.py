"""Site paths and their URLs: encoded once (RFC 3986), decoded back to the same path."""
from __future__ import annotations

from urllib.parse import urljoin, urlsplit

import pytest
from hypothesis import given, strategies as st

from skillsite.agent.manifest_pages import entry_path, entry_url
from skillsite.agent.site_urls import path_of, url_of


@pytest.mark.parametrize("path, url", [
    ("skills/owner@repo/x/", "skills/owner@repo/x/"),              # '@' and '+' may stand in a path
    ("skills/a+b/x", "skills/a+b/x"),
    # ';' would end a path for RFC 1808 parsers
    ("skills/semi;colon=eq&amp'quote/", "skills/semi%3Bcolon=eq&amp'quote/"),
    ("skills/100%/x", "skills/100%25/x"),                           # '%' itself: encoded once
    ("skills/%40already/x", "skills/%2540already/x"),
    ("skills/with space/x", "skills/with%20space/x"),
    ("skills/hash#tag/what?/x", "skills/hash%23tag/what%3F/x"),
    ("skills/café/日本", "skills/caf%C3%A9/%E6%97%A5%E6%9C%AC"),
    ("a:b/(copy)", "a%3Ab/%28copy%29"),                           # no scheme, no end of a Markdown link
])
def test_a_url_is_its_path_encoded_once(path: str, url: str) -> None:
    assert url_of(path) == url and path_of(url) == path


SEGMENT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"), min_size=1).filter(
    lambda s: s not in (".", ".."))  # a folder name, never "." or ".."


@given(st.lists(SEGMENT, min_size=1, max_size=4))
def test_any_path_comes_back_from_its_url_and_stays_one_relative_reference(segments: list[str]) -> None:
    path = "/".join(segments)
    url = url_of(path)
    assert path_of(url) == path
    parts = urlsplit(urljoin("https://example.org/site/", url))
    assert parts.netloc == "example.org" and not parts.query and not parts.fragment
    assert path_of(parts.path) == "/site/" + path


def test_an_entry_file_lies_in_its_skill_folder_and_its_url_names_it() -> None:
    assert entry_path("repos/elizaOS@eliza/x") == "skills/repos/elizaOS@eliza/x/entry.json"
    assert entry_url("repos/100%/x y") == "skills/repos/100%25/x%20y/entry.json"
    assert path_of(entry_url("repos/100%/x y")) == entry_path("repos/100%/x y")


def test_the_names_a_skill_folder_cannot_take_are_those_the_catalog_writes():
    from skillsite.agent.manifest_pages import ENTRY_FILE as ENTRY_JSON
    from skillsite.agent.site_urls import SKILL_FOLDER_FILES, SKILLS_FOLDER_FILES, taken_name
    from skillsite.publish.manifest import ENTRY_FILE, PAGE_FILE, PROVIDER_INDEX_FILE, XML_FILE, reserved_names
    from skillsite.publish.provider_layout import INDEX_NAME

    written = {PAGE_FILE, XML_FILE, ENTRY_FILE, PROVIDER_INDEX_FILE, ENTRY_JSON}
    assert SKILL_FOLDER_FILES == written and reserved_names(True) == written | {"SKILL.md"}  # the skill's own too
    # a folder named SKILL.md holds a nested skill in the place of its holder's SKILL.md (beside a skill.md)
    assert taken_name("h/SKILL.md", "h") == "SKILL.md" and taken_name("a/SKILL.md") is None
    assert SKILLS_FOLDER_FILES == {INDEX_NAME}
    assert taken_name("index.json") == "index.json" and taken_name("index.html") is None  # skills/index.html is free
    assert taken_name("tools/index.html") == "index.html" and taken_name("a/b/entry.json") == "entry.json"
    assert taken_name("tools/index.json.d") is None and taken_name("repos/owner@x/café") is None
