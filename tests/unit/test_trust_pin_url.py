"""Where the loader's cache keeps what it trusts of a remote catalog: under the catalog's URL as
RFC 3986 normalises it, so that another spelling of the same URL does not start trust anew."""
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from skillsite.agent import store
from skillsite.agent.store import LoaderCache

SAME = [
    ("http://127.0.0.1:8765/./live2/skills.json", "http://127.0.0.1:8765/live2/skills.json"),
    ("http://127.0.0.1:8765//live2/skills.json", "http://127.0.0.1:8765/live2/skills.json"),
    ("http://127.0.0.1:8765/%6cive2/skills.json", "http://127.0.0.1:8765/live2/skills.json"),
    ("HTTPS://Example.COM:443/a/b/../c/skills.json", "https://example.com/a/c/skills.json"),
    ("http://example.com:80/x/%7e%2fy.json?q=%61%2f", "http://example.com/x/~%2Fy.json?q=a%2F"),
    ("https://[::1]:443/skills.json", "https://[::1]/skills.json"),
    ("https://user:Secret@Example.com:8443/s/./skills.json", "https://user:Secret@example.com:8443/s/skills.json"),
]
#: Not the same URL as https://example.com/skills.json: another path's case, another port, a query.
OTHER = ["https://example.com/Skills.json", "https://example.com:8443/skills.json",
         "https://example.com/skills.json?v=2"]


@pytest.mark.parametrize("given, same", SAME)
def test_each_spelling_of_a_url_is_kept_under_one_trust_folder(given: str, same: str, tmp_path: Path) -> None:
    cache = LoaderCache(tmp_path)
    assert store.same_catalog_url(given) == same
    assert cache.trust_folder(given) == cache.trust_folder(same)
    others = {cache.trust_folder(url) for url in ["https://example.com/skills.json", *OTHER]}
    assert len(others) == 1 + len(OTHER) and (cache.trust_folder(same) in others) == (same in OTHER)


def test_a_pin_an_earlier_version_kept_under_the_url_as_given_is_moved_where_every_spelling_finds_it(
        tmp_path: Path) -> None:
    """An earlier version kept the pin under the sha256 of the URL as given: a URL that was
    already normal keeps its folder; another is moved, once, to its normal spelling's."""
    cache = LoaderCache(tmp_path)
    given = "HTTPS://Example.com/./live/skills.json"
    earlier = tmp_path / "catalogs" / hashlib.sha256(given.encode()).hexdigest()[:32] / "trust"
    earlier.mkdir(parents=True)
    (earlier / "pin.json").write_text('{"anchor": ["ed25519:x"]}')
    moved = cache.trust_folder(given)
    assert moved != earlier and not earlier.exists()
    assert (moved / "pin.json").read_text() == '{"anchor": ["ed25519:x"]}'
    assert cache.trust_folder("https://example.com//live/skills.json") == moved
    normal = "https://example.com/skills.json"
    assert cache.trust_folder(normal) == tmp_path / "catalogs" / hashlib.sha256(normal.encode()).hexdigest()[:32] \
        / "trust"
