"""Where the loader's cache keeps what it trusts of a remote catalog: under the URL its signed
metadata is read from, so that no other spelling of the catalog's URL starts trust anew."""
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from skillsite.agent import store
from skillsite.agent.store import LoaderCache

SAME = [
    ("http://127.0.0.1:8765/./live2/skills.json", "http://127.0.0.1:8765/live2/tuf/"),
    ("http://127.0.0.1:8765//live2/skills.json", "http://127.0.0.1:8765/live2/tuf/"),
    ("http://127.0.0.1:8765/%6cive2/skills.json", "http://127.0.0.1:8765/live2/tuf/"),
    ("http://127.0.0.1:8765/live2/skills.json?x=1", "http://127.0.0.1:8765/live2/tuf/"),
    ("http://127.0.0.1:8765/live2/SKILLS.JSON?v=2#f", "http://127.0.0.1:8765/live2/tuf/"),
    ("HTTPS://Example.COM:443/a/b/../c/skills.json", "https://example.com/a/c/tuf/"),
    ("http://example.com:80/x/%7e%2fy/skills.json", "http://example.com/x/~%2Fy/tuf/"),
    ("https://[::1]:443/skills.json", "https://[::1]/tuf/"),
    ("https://user:Secret@Example.com:8443/s/./skills.json", "https://user:Secret@example.com:8443/s/tuf/"),
    # urljoin reads "%2e" as a name, not a dot segment: the metadata is read from /x/victim/tuf/
    ("https://h/x/%2e/../victim/skills.json", "https://h/x/victim/tuf/"),
    ("https://h/x/%2E%2e/victim/skills.json", "https://h/x/%2E%2E/victim/tuf/"),
]
#: Not where https://example.com/skills.json's metadata is read: another path's case, port or folder.
OTHER = ["https://example.com/Live/skills.json", "https://example.com:8443/skills.json",
         "https://example.com/%2e/skills.json", "https://example.com/a%2Fb/skills.json"]


@pytest.mark.parametrize("given, same", SAME)
def test_each_spelling_that_reads_the_same_metadata_is_kept_under_one_trust_folder(given: str, same: str,
                                                                                  tmp_path: Path) -> None:
    cache = LoaderCache(tmp_path)
    assert store.pin_url(given) == same
    assert cache.trust_folder(given) == cache.trust_folder(same.removesuffix("tuf/") + "skills.json")
    others = {cache.trust_folder(url) for url in ["https://example.com/skills.json", *OTHER]}
    assert len(others) == 1 + len(OTHER)


def test_a_pin_an_earlier_version_kept_under_the_url_as_given_is_moved_where_every_spelling_finds_it(
        tmp_path: Path) -> None:
    """An earlier version kept the pin under the sha256 of the URL as given: it is moved, once,
    to the folder of the URL its metadata is read from, where every spelling finds it."""
    cache = LoaderCache(tmp_path)
    for given in ["HTTPS://Example.com/./live/skills.json", "https://example.com/skills.json"]:
        earlier = tmp_path / "catalogs" / hashlib.sha256(given.encode()).hexdigest()[:32] / "trust"
        earlier.mkdir(parents=True)
        (earlier / "pin.json").write_text(f'{{"anchor": ["{given}"]}}')
        moved = cache.trust_folder(given)
        assert moved != earlier and not earlier.exists()
        assert (moved / "pin.json").read_text() == f'{{"anchor": ["{given}"]}}'
        assert cache.trust_folder(given.replace("/skills.json", "/skills.json?v=2")) == moved
        assert moved == tmp_path / "catalogs" / hashlib.sha256(store.pin_url(given).encode()).hexdigest()[:32] / "trust"
    assert cache.trust_folder("https://example.com//live/SKILLS.json") == tmp_path / "catalogs" / \
        hashlib.sha256(b"https://example.com/live/tuf/").hexdigest()[:32] / "trust"
