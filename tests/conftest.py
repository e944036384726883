"""Fixtures shared by every test; plain helpers live in ``support.py``."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from support import EXAMPLES, REAL_SKILLS, RealSkills


@pytest.fixture(scope="session", autouse=True)
def private_user_cache(tmp_path_factory: pytest.TempPathFactory):
    """Caches the tests make (the loader's, ``skillsite validate``'s and the cache key) go to a
    folder of this session, never to the user's; subprocesses inherit it."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("user-cache")))
        mp.delenv("SKILLSITE_CACHE_KEY", raising=False)
        yield


@pytest.fixture(params=REAL_SKILLS, ids=[real.name for real in REAL_SKILLS])
def real_skills(request: pytest.FixtureRequest) -> RealSkills:
    """Real skills: the checked-in sample always, and the shared corpus as well when present."""
    return request.param


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example catalog, built once per test session with default settings.

    Shared by every test that asks for it: read it, or copy it before changing anything.
    """
    from skillsite.publish.build import build

    out = tmp_path_factory.mktemp("example") / "_site"  # the default --catalog of the CLI
    assert build([EXAMPLES], out).ok
    return out


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every unit test runs on every admitted Python (``-m each_python`` on the lowest one, in
    .ci/run), as do the integration modules marked so."""
    unit = Path(__file__).parent / "unit"
    for item in items:
        if unit in Path(item.path).parents:
            item.add_marker(pytest.mark.each_python)


# Under SKILLSITE_NO_SKIPS=1 (set by .ci/run, which installs every tool the tests use) a
# skipped test fails the run: a missing browser or node package must not pass unnoticed.
_SKIPPED: list[str] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and not _allowed_skip(report):
        _SKIPPED.append(report.nodeid)


def _allowed_skip(report: pytest.TestReport) -> bool:
    """A "python3.12 missing" skip is allowed only when .ci/run found no Python 3.12
    (it then sets SKILLSITE_PY312_MISSING=1); every other skip still fails the run."""
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    return (os.environ.get("SKILLSITE_PY312_MISSING") == "1"
            and reason.removeprefix("Skipped: ").startswith("python3.12 missing"))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _SKIPPED and os.environ.get("SKILLSITE_NO_SKIPS") == "1":
        print(f"\nSKILLSITE_NO_SKIPS=1: {len(_SKIPPED)} test(s) skipped, which fails the run: {_SKIPPED[:10]}")
        session.exitstatus = 1
