"""Fixtures shared by every test; plain helpers live in ``support.py``."""
from __future__ import annotations

from pathlib import Path

import pytest

from support import CORPUS, EXAMPLES


@pytest.fixture(scope="session", autouse=True)
def private_user_cache(tmp_path_factory: pytest.TempPathFactory):
    """Caches the tests make (the loader's, ``skillsite validate``'s and the cache key) go to a
    folder of this session, never to the user's; subprocesses inherit it."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("user-cache")))
        mp.delenv("SKILLSITE_CACHE_KEY", raising=False)
        yield


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not beside the repository")
    return CORPUS


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example catalog, built once per test session with default settings.

    Shared by every test that asks for it: read it, or copy it before changing anything.
    """
    from skillsite.publish.build import build

    out = tmp_path_factory.mktemp("example") / "_site"  # the default --catalog of the CLI
    assert build([EXAMPLES], out).ok
    return out
